"""What the lens panels share (they never import one another): :class:`LensPanel`, which
builds its widgets on first show; :class:`LensHeader` (title, statement, claim badges);
:class:`LogSlider`; :func:`pick` (an explanation in the app's language) and :func:`badge_tip`.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSlider, QVBoxLayout, QWidget

from app.panels.base import Panel
from app.state import AppState
from app.widgets.claim_badge import ClaimBadge


def pick(state: AppState, en: str, zh: str) -> str:
    """The explanation in the app's current language (``state.language``)."""
    return zh if state.language == "zh" else en


class LogSlider(QSlider):
    """A horizontal slider over ``[lo, hi]`` on a log scale.

    ``value_changed(x)`` fires when the person moves it. :meth:`set_value` puts an exact value
    (a preset such as τ = 1) without rounding it to a slider position and without emitting.
    """

    value_changed = Signal(float)

    def __init__(self, lo: float, hi: float, value: float, *, steps: int = 1000,
                 parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self._log_lo, self._log_hi = math.log10(lo), math.log10(hi)
        self.setRange(0, steps)
        self.setSingleStep(1)
        self.setPageStep(max(1, steps // 20))
        self._value = float(value)
        self.set_value(value)
        self.valueChanged.connect(self._on_position)

    @property
    def value_float(self) -> float:
        return self._value

    def position_of(self, value: float) -> int:
        frac = (math.log10(value) - self._log_lo) / (self._log_hi - self._log_lo)
        return round(min(max(frac, 0.0), 1.0) * self.maximum())

    def value_at(self, position: int) -> float:
        return 10.0 ** (self._log_lo + (self._log_hi - self._log_lo) * position / self.maximum())

    def set_value(self, value: float) -> None:
        self._value = float(value)
        self.blockSignals(True)
        self.setValue(self.position_of(value))
        self.blockSignals(False)

    def _on_position(self, position: int) -> None:
        self._value = self.value_at(position)
        self.value_changed.emit(self._value)


class LensHeader(QWidget):
    """A lens's title, its claim badges (EXACT / ANALOGY with the docs/continuous.md id) and the
    statement it shows, in the app's language."""

    def __init__(self, badges: list[tuple[str, str]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel()
        self.title.setObjectName("lensTitle")
        self.title.setStyleSheet("font-weight: bold; font-size: 11pt;")
        self.badges = [ClaimBadge(kind, paper_id) for kind, paper_id in badges]
        self.statement = QLabel()
        self.statement.setObjectName("lensStatement")
        self.statement.setWordWrap(True)
        self.statement.setTextFormat(Qt.TextFormat.RichText)
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.title)
        for badge in self.badges:
            top.addWidget(badge)
        top.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(top)
        layout.addWidget(self.statement)

    def set_texts(self, title: str, statement: str, badge_tips: list[str]) -> None:
        self.title.setText(title)
        self.statement.setText(statement)
        for badge, tip in zip(self.badges, badge_tips, strict=True):
            badge.setToolTip(tip)


class LensPanel(Panel):
    """A lens panel builds its widgets on first show, not at start-up.

    Lens docks open hidden (tabbed behind Depth time) and hold a dozen plots between them;
    building them only when a person opens one keeps the window's first paint fast.
    Subclasses subscribe to the state in ``__init__``, build in :meth:`build`, and set their
    strings in :meth:`_retranslate` (called after building and on every language change).
    """

    def __init__(self, state: AppState) -> None:
        super().__init__(state)
        self.built = False

    def build(self) -> None:
        raise NotImplementedError

    def ensure_built(self) -> None:
        if not self.built:
            self.built = True
            self.build()
            self._retranslate()

    def showEvent(self, event: QShowEvent) -> None:
        self.ensure_built()
        super().showEvent(event)

    def retranslate(self) -> None:
        if self.built:
            self._retranslate()

    def _retranslate(self) -> None:
        raise NotImplementedError


def badge_tip(widget: QWidget, kind: str) -> str:
    """What a badge kind promises, translated in ``widget``'s context."""
    if kind == "EXACT":
        return widget.tr("Exact: a test asserts this statement in float64.")
    if kind == "ANALOGY":
        return widget.tr("Analogy: shown with its caveat, never asserted.")
    return widget.tr("Interpolation: a drawing aid between true states.")
