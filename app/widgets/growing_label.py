"""A label whose box only grows, so a text of a new width does not lay its parent out."""

from __future__ import annotations

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QLabel

#: Qt's "no maximum" for a widget's size (QWIDGETSIZE_MAX)
_NO_MAXIMUM = (1 << 24) - 1


class GrowingLabel(QLabel):
    """A label whose box only grows: it is fixed at the largest size its texts have needed.

    The status bar's compute time changes at every edit, and with it the label's width ("9.8"
    and "10.2"). A widget of fixed size does not ask its parent to lay out again when its text
    changes; a resizable one does, and QStatusBar answers a layout pass by repainting itself
    and every label on it (~0.4 ms an edit, measured at T = 512). :meth:`let_shrink` starts
    over (a language switch); a new font or style does too."""

    def setText(self, text: str) -> None:
        super().setText(text)
        self._fit()

    def let_shrink(self) -> None:
        """Forget the sizes held: the next text (or this one, on a new font) sets the box."""
        self.setMinimumSize(0, 0)
        self.setMaximumSize(_NO_MAXIMUM, _NO_MAXIMUM)
        # QLabel's size hint is never less than the minimum size it was computed under, and
        # QLabel keeps it until its text changes: the same text set again would keep the
        # held width. Setting the text anew drops the hint.
        text = self.text()
        super().setText("")
        super().setText(text)

    def _fit(self) -> None:
        hint = self.sizeHint()
        width, height = max(hint.width(), self.minimumWidth()), max(hint.height(),
                                                                    self.minimumHeight())
        if (self.minimumWidth(), self.minimumHeight(), self.maximumWidth(),
                self.maximumHeight()) != (width, height, width, height):
            self.setFixedSize(width, height)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self.let_shrink()
            self._fit()
