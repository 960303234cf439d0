"""Dual View's desktop app: PySide6 + pyqtgraph panels over the engine."""

__version__ = "0.1.0"
