"""A panel's two arrangements (compact and wide) and the switch between them, in one place.

A panel measures its room, in text lines or as a width / height ratio so the rule follows the
text size, and declares what each arrangement does. :class:`Arrangement` switches between them
with hysteresis: the room to leave the compact arrangement is larger than the room at which it
was entered. Without the gap, a resize near the line (or the switch itself, which changes the
room) flipped the panel to and fro.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Hysteresis:
    """Compact once the room falls below ``enter``; wide again only once it rises above
    ``leave`` (``leave >= enter``)."""

    enter: float
    leave: float

    def __post_init__(self) -> None:
        if self.leave < self.enter:
            raise ValueError(f"leave ({self.leave}) must be at least enter ({self.enter})")

    def compact(self, room: float, now: bool) -> bool:
        """Whether ``room`` calls for the compact arrangement (``now``: whether it is on)."""
        return room <= self.leave if now else room < self.enter


class Arrangement:
    """Two arrangements of one panel. ``wide()`` and ``compact()`` apply them; :meth:`update`
    calls the one the measured room asks for, only when it changes (and returns True then)."""

    def __init__(self, rule: Hysteresis, *, wide: Callable[[], None],
                 compact: Callable[[], None]) -> None:
        self.rule = rule
        self._wide, self._compact = wide, compact
        #: True while the compact arrangement is on
        self.compact = False

    def update(self, room: float) -> bool:
        compact = self.rule.compact(room, self.compact)
        if compact == self.compact:
            return False
        self.compact = compact
        (self._compact if compact else self._wide)()
        return True


#: The plot area's width / height above which its plots stand side by side, and below which
#: they stack again (a panel whose plot area is much wider than tall, a 16:9 screen's bottom
#: row at 1366 x 768, squeezes stacked plots into strips whose labels cannot be shown).
SIDE_BY_SIDE_AT = 2.3
STACKED_BELOW = 2.0
#: Stacked is the compact arrangement of the ratio rule.
STACKING = Hysteresis(enter=STACKED_BELOW, leave=SIDE_BY_SIDE_AT)
#: ... and side by side only when each column gets at least this many text lines of width.
MIN_COLUMN_LINES = 10


def side_by_side(width: int, height: int, columns: int, line: int, now: bool) -> bool:
    """True when ``columns`` plots should stand side by side in a ``width`` x ``height`` area
    (``line``: the text line height; ``now``: whether they do now)."""
    if height <= 0:
        return now
    wanted = not STACKING.compact(width / height, not now)
    return wanted and width >= columns * MIN_COLUMN_LINES * line
