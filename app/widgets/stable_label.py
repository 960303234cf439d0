"""A word-wrapped label that does not make its panel re-lay out (or repaint) for nothing.

Numbers in a caption change on every edit, and a line that happens to hold a Chinese glyph is
~2 px taller (the CJK fallback font has a larger line height). A plain QLabel passes that on:
its height changes, the layout moves the plot above it, and the plot redraws at its new size —
about a third of all edits in the classroom demo. This label reports the height it had before
unless its text needs a taller box or is at least half a line shorter, so only a real change
in the number of lines moves anything.

It also measures each text once: asking a rich-text QLabel for its height at a width re-lays
out its document and repaints it, so every layout pass that asked (three per edit) painted the
label again. The height is measured when the text is set — while the label is going to repaint
anyway — and remembered per text until the font or style changes: a text shown again (an edit
undone, a token picked again, the language switched back) is not measured again. (Measuring is
QLabel's own parse and layout of the rich text, most of what painting it costs anyway; a
document of our own measured the same heights but cost more, as the label still lays out its
own for painting.)
"""

from __future__ import annotations

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QLabel


class StableLabel(QLabel):
    #: widths remembered (a layout asks a few)
    _MEMORY = 8
    #: natural heights remembered, for as many (text, width) pairs
    _TEXT_MEMORY = 64

    def __init__(self, *args: object) -> None:
        super().__init__(*args)
        self._held: dict[int, int] = {}
        #: (text, width, what else QLabel measures with) -> natural height
        self._natural: dict[tuple, int] = {}

    def setText(self, text: str) -> None:
        if text == self.text():
            return
        super().setText(text)
        if self.wordWrap():
            self.heightForWidth(self.width())  # measured now, with the repaint it costs

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._natural.clear()
        super().changeEvent(event)

    def _measure_key(self, width: int) -> tuple:
        """What QLabel's height for a width depends on besides the font and style (whose
        changes empty the memory)."""
        margins = self.contentsMargins()
        return (self.text(), width, self.textFormat(), self.wordWrap(), self.margin(),
                self.indent(), margins.left(), margins.top(), margins.right(),
                margins.bottom(), self.minimumWidth(), self.minimumHeight(), self.frameWidth())

    def heightForWidth(self, width: int) -> int:
        key = self._measure_key(width)
        natural = self._natural.get(key)
        if natural is None:
            natural = super().heightForWidth(width)
            if len(self._natural) >= self._TEXT_MEMORY:
                self._natural.pop(next(iter(self._natural)))  # the oldest
            self._natural[key] = natural
        held = self._held.get(width)
        if held is not None and natural <= held < natural + self.fontMetrics().lineSpacing() / 2:
            return held
        if len(self._held) >= self._MEMORY:
            self._held.clear()
        self._held[width] = natural
        return natural
