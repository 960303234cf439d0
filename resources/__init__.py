"""Data files of Dual View (icons, translations, example sessions, styles, font).

A package only so that ``app.resources.resource_root`` can find it wherever it is installed.
"""
