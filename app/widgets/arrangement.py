"""When a panel's plots stand side by side instead of stacked (shared by the depth-time panel
and the temperature lens).

A panel whose plot area is much wider than tall (a 16:9 screen's bottom row, 1366 x 768)
squeezes stacked plots into strips whose tick labels and line labels cannot be shown; side by
side each gets the full height. The rule is in text lines, so it follows the text size.
"""

from __future__ import annotations

#: The plot area's width / height above which its plots stand side by side, and below which
#: they stack again (the gap keeps a resize near the line from flipping it to and fro).
SIDE_BY_SIDE_AT = 2.3
STACKED_BELOW = 2.0
#: ... and only when each column gets at least this many text lines of width.
MIN_COLUMN_LINES = 10


def side_by_side(width: int, height: int, columns: int, line: int, now: bool) -> bool:
    """True when ``columns`` plots should stand side by side in a ``width`` x ``height`` area
    (``line``: the text line height; ``now``: whether they do now)."""
    if height <= 0:
        return now
    ratio = width / height
    wanted = ratio > SIDE_BY_SIDE_AT or (now and ratio >= STACKED_BELOW)
    return wanted and width >= columns * MIN_COLUMN_LINES * line
