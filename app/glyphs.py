"""Characters no font can draw, said once in the status bar instead of shown as silent boxes.

The bundled fonts (app/fonts.py) cover Chinese (the CJK Unified Ideographs and Extension A),
Latin, the formulas' symbols and emoji, but not the rare Han characters of CJK Extension B and
after (planes 2 and 3: 𠀀 U+20000, 𠮷 U+20BB7, 𪚥 U+2A6A5). A font that has them does not fit
the bundle's size budget: HanaMinB (Debian's fonts-hanazono) cut down to Extension B alone is
22 MB, 9 MB even compressed, and the bundle has ~2 MB to spare below 200 MB. So a student who
types one sees a box on the chips and every axis, and the status bar says why, once per run.
An installed font that has the character counts: Qt falls back to it and nothing is said.
"""

from __future__ import annotations

import unicodedata

from PySide6.QtCore import QObject
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QApplication

#: Planes 2 and 3: CJK Unified Ideographs Extension B to H and the compatibility supplement.
RARE_HAN = range(0x20000, 0x40000)
#: Characters named in the message at most.
MAX_NAMED = 5
#: Unicode categories never drawn as a glyph of their own (or unassigned: no font has them),
#: and combining marks (a variation selector after an emoji has no glyph and needs none).
_NOT_DRAWN = {"Cc", "Cf", "Cs", "Co", "Cn", "Zs", "Zl", "Zp", "Mn", "Me"}

#: Said once per process, like the missing CJK font (mainwindow.check_cjk_font).
_warned = False


def missing_glyphs(chars: set[str] | str, font: QFont | None = None) -> list[str]:
    """The characters of ``chars`` that ``font`` (default: the application font, with its
    fallback families and the system's) cannot draw, in code point order."""
    metrics = QFontMetrics(font if font is not None else QApplication.font())
    return sorted((c for c in set(chars)
                   if unicodedata.category(c) not in _NOT_DRAWN
                   and not metrics.inFontUcs4(ord(c))), key=ord)


class MissingGlyphWatch(QObject):
    """Checks each new character typed into the window's text field; on the first one no font
    draws, says so in the status bar (``window.notify``), once, and stops watching."""

    def __init__(self, window: QObject) -> None:
        super().__init__(window)
        self.window = window
        self._seen: set[str] = set()
        self.message = ""
        editor = window.editor  # type: ignore[attr-defined]
        editor.text_edited.connect(self.check)
        self.check(editor.text())

    def check(self, text: str) -> None:
        global _warned
        if _warned:
            return
        new = set(text) - self._seen
        if not new:
            return
        self._seen |= new
        missing = missing_glyphs(new)
        if not missing:
            return
        _warned = True
        self.window.editor.text_edited.disconnect(self.check)  # type: ignore[attr-defined]
        named = " ".join(missing[:MAX_NAMED]) + (" …" if len(missing) > MAX_NAMED else "")
        if any(ord(c) in RARE_HAN for c in missing):
            self.message = self.tr(
                "Rare Han characters such as %1 (CJK Extension B and later) are not in the "
                "bundled fonts and no installed font has them: they show as boxes.").replace(
                "%1", named)
        else:
            self.message = self.tr("No bundled or installed font has %1: shown as boxes."
                                   ).replace("%1", named)
        self.window.notify(self.message, dialog=False)  # type: ignore[attr-defined]


def watch_missing_glyphs(window: QObject) -> MissingGlyphWatch:
    """Start watching ``window``'s text field (call once, after the window is built)."""
    return MissingGlyphWatch(window)
