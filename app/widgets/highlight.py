"""A coloured frame drawn over a widget (the guided tour marks the dock it talks about).

The frame is a transparent child that follows its target's size and lets every mouse event
through, so the highlighted panel stays fully usable.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QWidget

#: Orange from the Okabe–Ito palette: visible on light and dark themes, colour-blind safe.
HIGHLIGHT_COLOUR = QColor("#e69f00")


class HighlightFrame(QWidget):
    """Call :meth:`highlight` with a widget to frame it, or ``None`` to hide the frame."""

    def __init__(self, parent: QWidget | None = None, *, width: int = 4) -> None:
        super().__init__(parent)
        self.setObjectName("highlightFrame")
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setAttribute(Qt.WidgetAttribute.WA_NoSystemBackground)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.line_width = width
        self.target: QWidget | None = None
        self.hide()

    def highlight(self, target: QWidget | None) -> None:
        if self.target is not None:
            self.target.removeEventFilter(self)
        self.target = target
        if target is None:
            self.hide()
            return
        self.setParent(target)
        target.installEventFilter(self)
        self.setGeometry(target.rect())
        self.show()
        self.raise_()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.target and event.type() in (QEvent.Type.Resize,
                                                       QEvent.Type.ChildAdded):
            self.setGeometry(self.target.rect())
            self.raise_()
        return False

    def paintEvent(self, _event: QPaintEvent) -> None:
        painter = QPainter(self)
        pen = QPen(HIGHLIGHT_COLOUR, self.line_width)
        painter.setPen(pen)
        half = self.line_width / 2
        painter.drawRect(self.rect().adjusted(int(half), int(half), -int(half + 0.5),
                                              -int(half + 0.5)))
        painter.end()
