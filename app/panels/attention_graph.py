"""Placeholder until this panel lands (being written now)."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel

from app.compute import Result
from app.panels.base import Panel
from app.state import AppState


class AttentionGraphPanel(Panel):
    def __init__(self, state: AppState) -> None:
        super().__init__(state)
        self.label = QLabel()
        self.set_body(self.label)

    def redraw(self, result: Result) -> None:
        self.label.setText(f"{len(result.tokens)} tokens")
