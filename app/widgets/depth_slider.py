"""The depth-time slider: t ∈ [0, 1] in fine steps, with the true states marked under it.

A plain ``QSlider`` (integer positions, ``RESOLUTION`` per unit of t) plus a row of clickable
marks placed exactly under the handle positions of t = 0, ½ and 1, and the names of the two
sub-steps between them.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QFont, QResizeEvent
from PySide6.QtWidgets import (
    QLabel,
    QSizePolicy,
    QSlider,
    QSpacerItem,
    QStyle,
    QStyleOptionSlider,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app import theme

#: Slider positions per unit of depth time: a step of 1/200 = 0.005. Even, so t = ½ is a position.
RESOLUTION = 200


class DepthSlider(QWidget):
    """``t_changed(t)`` when the person moves the handle or clicks a mark (not on ``set_t``)."""

    t_changed = Signal(float)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setObjectName("depthSlider")
        self.slider.setRange(0, RESOLUTION)
        self.slider.setSingleStep(1)
        self.slider.setPageStep(RESOLUTION // 10)
        self.slider.setTickPosition(QSlider.TickPosition.TicksBelow)
        self.slider.setTickInterval(RESOLUTION // 2)
        #: t = 0, ½, 1: buttons under the ticks that jump to that true state
        self.marks: list[QToolButton] = []
        for value in (0, RESOLUTION // 2, RESOLUTION):
            mark = QToolButton(self)
            mark.setObjectName(f"depthMark{value}")
            mark.setAutoRaise(True)
            mark.setCursor(Qt.CursorShape.PointingHandCursor)
            mark.setStyleSheet("QToolButton { padding: 0 2px; }")  # (bold: _bold_marks)
            mark.clicked.connect(lambda _checked=False, v=value: self._jump(v))
            self.marks.append(mark)
        #: the two sub-steps' names, centred between the marks
        self.phases = [QLabel(self), QLabel(self)]
        for label in self.phases:
            theme.make_quiet(label)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.slider)
        #: room under the slider for the marks: two lines of text
        self._spacer = QSpacerItem(0, self._marks_height(), QSizePolicy.Policy.Minimum,
                                   QSizePolicy.Policy.Fixed)
        layout.addItem(self._spacer)
        self._mark_tiers: tuple[tuple[str, str, str], ...] = (("", "", ""),)
        self._bold_marks()
        self.slider.valueChanged.connect(self._on_value_changed)

    # ----- API -----
    @property
    def t(self) -> float:
        return self.slider.value() / RESOLUTION

    def set_t(self, t: float) -> None:
        """Move the handle to the position nearest ``t`` without emitting ``t_changed``."""
        value = round(min(max(t, 0.0), 1.0) * RESOLUTION)
        if value != self.slider.value():
            self.slider.blockSignals(True)
            self.slider.setValue(value)
            self.slider.blockSignals(False)

    def set_texts(self, tiers: Sequence[tuple[str, str, str]], phases: tuple[str, str],
                  tooltips: tuple[str, str, str]) -> None:
        """Mark labels: the first of ``tiers`` (one line, two lines, short…) whose labels do
        not overlap; the two sub-steps' names between them (hidden when there is no room);
        the marks' tooltips."""
        self._mark_tiers = tuple(tiers)
        for button, tip in zip(self.marks, tooltips, strict=True):
            button.setToolTip(tip)
        for label, text in zip(self.phases, phases, strict=True):
            label.setText(text)
            label.adjustSize()
        self._place_marks()

    # ----- internals -----
    def _jump(self, value: int) -> None:
        if value == self.slider.value():
            self.t_changed.emit(value / RESOLUTION)  # already there: still an answer
        else:
            self.slider.setValue(value)  # emits through valueChanged

    def _on_value_changed(self, value: int) -> None:
        self.t_changed.emit(value / RESOLUTION)

    def handle_x(self, value: int) -> int:
        """The x (in this widget) of the handle's centre at slider position ``value``."""
        option = QStyleOptionSlider()
        self.slider.initStyleOption(option)
        style = self.slider.style()
        groove = style.subControlRect(QStyle.ComplexControl.CC_Slider, option,
                                      QStyle.SubControl.SC_SliderGroove, self.slider)
        handle = style.subControlRect(QStyle.ComplexControl.CC_Slider, option,
                                      QStyle.SubControl.SC_SliderHandle, self.slider)
        span = groove.width() - handle.width()
        x = groove.x() + handle.width() // 2 + QStyle.sliderPositionFromValue(
            self.slider.minimum(), self.slider.maximum(), value, span)
        return self.slider.x() + x

    def _bold_marks(self) -> None:
        """The marks in this widget's font, bold. (A style sheet's font-weight pinned their
        size: presentation mode's larger text left them at the normal size.)"""
        font = QFont(self.font())
        font.setBold(True)
        for mark in self.marks:
            mark.setFont(font)

    def _marks_height(self, lines: int = 2) -> int:
        return lines * self.fontMetrics().lineSpacing() + 8

    def _groove_margin(self) -> int:
        """The slider's width beyond the span between the handle at t = 0 and at t = 1."""
        return self.slider.width() - (self.handle_x(RESOLUTION) - self.handle_x(0))

    def min_readable_width(self) -> int:
        """The narrowest width at which the shortest marks (u(0), u(½), u(1)) stand apart."""
        metrics = self.marks[0].fontMetrics()
        widths = [max(metrics.horizontalAdvance(line) for line in t.split("\n")) + 12
                  for t in self._mark_tiers[-1]]
        half = max(widths[0], widths[2]) + widths[1] / 2
        return int(2 * half + max(self._groove_margin(), 0)) + 8

    def _fits(self, texts: tuple[str, str, str]) -> bool:
        metrics = self.marks[0].fontMetrics()
        widths = [max(metrics.horizontalAdvance(line) for line in t.split("\n")) + 12
                  for t in texts]
        half = self.handle_x(RESOLUTION) - self.handle_x(RESOLUTION // 2)
        return widths[0] + widths[1] / 2 <= half and widths[2] + widths[1] / 2 <= half

    def _place_marks(self) -> None:
        tiers = self._mark_tiers
        texts = next((tier for tier in tiers if self._fits(tier)), tiers[-1])
        for button, text in zip(self.marks, texts, strict=True):
            if button.text() != text:
                button.setText(text)
        # room for as many lines as the marks shown have (one line of them: one line of room)
        height = self._marks_height(max(text.count("\n") + 1 for text in texts))
        if self._spacer.sizeHint().height() != height:
            self._spacer.changeSize(0, height, QSizePolicy.Policy.Minimum,
                                    QSizePolicy.Policy.Fixed)
            self.layout().invalidate()
            self.updateGeometry()  # the panel's layout makes the new room
        y = self.slider.geometry().bottom() + 1
        xs = [self.handle_x(v) for v in (0, RESOLUTION // 2, RESOLUTION)]
        width = self.width()
        for i, (button, x) in enumerate(zip(self.marks, xs, strict=True)):
            w = button.sizeHint().width()
            left = x - w // 2 if i == 1 else (0 if i == 0 else width - w)
            button.setGeometry(max(0, min(left, width - w)), y, w, height)
        gaps = []
        for i, label in enumerate(self.phases):
            # centred in the gap between the marks on either side
            lo = self.marks[i].geometry().right() + 4
            hi = self.marks[i + 1].geometry().left() - 4
            w, h = label.sizeHint().width(), label.sizeHint().height()
            label.setGeometry((lo + hi - w) // 2, y + (height - h) // 2, w, h)
            gaps.append(hi - lo >= w)
        for label in self.phases:  # both or neither, so the row never looks lopsided
            label.setVisible(all(gaps))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange and hasattr(self, "_spacer"):
            self._bold_marks()
            self._place_marks()  # (and the room under the slider for their lines)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._place_marks()


def play_step(t: float, position: float, played: float, fraction: float) -> float:
    """The playhead's next position: ``fraction`` of a sweep after ``position`` (``t`` is the
    depth time on screen, ``played`` the one the player last set). It starts again at 0 after
    showing u(1), stops on t = ½ when it would jump over it, and follows t when it was moved
    by hand (slider, line, marks) while playing."""
    if t != played:
        position = t
    if t >= 1.0:
        return 0.0
    position = min(position + fraction, 1.0)
    return 0.5 if t < 0.5 < position else position
