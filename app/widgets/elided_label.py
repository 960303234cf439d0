"""A one-line label that fits whatever width its layout gives it."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget


class ElidedLabel(QLabel):
    """Plain text on one line, cut with "…" where it does not fit (all of it in the tooltip).

    A plain QLabel insists on its whole text's width: in the status bar a long engine error
    (a file's path in it) ran over the weights and token labels beside it. ``text()`` stays
    the whole text; only the drawing is cut.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # Ignored: the layout gives it the room there is, never its text's whole width
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setTextFormat(Qt.TextFormat.PlainText)

    def setText(self, text: str) -> None:
        super().setText(text)
        self.setToolTip(text)

    def shown_text(self) -> str:
        """What is drawn: the text, cut to the label's width."""
        return self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight,
                                             self.contentsRect().width())

    def paintEvent(self, _event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setPen(self.palette().color(self.foregroundRole()))
        painter.drawText(self.contentsRect(), int(self.alignment()), self.shown_text())
        painter.end()
