"""A small coloured badge saying how much a picture claims: EXACT, ANALOGY or INTERPOLATION.

docs/continuous.md sorts the continuous view's statements into three kinds; every panel that
shows one
carries a badge with the statement's id (``E14``), so a reader can look it up and knows whether
a test asserts it.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

#: kind -> (background, text colour)
BADGE_COLOURS: dict[str, tuple[str, str]] = {
    "EXACT": ("#1b7f3b", "#ffffff"),
    "ANALOGY": ("#b26a00", "#ffffff"),
    "INTERPOLATION": ("#5b6b7f", "#ffffff"),
}


class ClaimBadge(QLabel):
    """``EXACT · E14`` in a rounded coloured box; the tooltip says what is claimed."""

    def __init__(self, kind: str, paper_id: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("claimBadge")
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
        self.kind = ""
        self.paper_id = ""
        self.set_claim(kind, paper_id)

    def set_claim(self, kind: str, paper_id: str = "") -> None:
        if kind not in BADGE_COLOURS:
            raise ValueError(f"badge kind must be one of {', '.join(BADGE_COLOURS)}, got {kind!r}")
        if (kind, paper_id) == (self.kind, self.paper_id):
            return  # a style sheet costs a re-polish: only when the claim changes
        self.kind, self.paper_id = kind, paper_id
        background, colour = BADGE_COLOURS[kind]
        self.setText(f"{kind} · {paper_id}" if paper_id else kind)
        self.setStyleSheet(
            f"QLabel#claimBadge {{ background: {background}; color: {colour}; font-weight: bold;"
            f" border-radius: 4px; padding: 1px 6px; }}")
