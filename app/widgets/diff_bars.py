"""The causality inspector's drawing pieces that need no words: |after − before| exactly,
cell outlines, sparse row labels and the bar chart of each row's max |Δ| on a log axis.

Exact zeros are never the low end of the colour map (see app/widgets/diff_heatmap.py): the bars
draw them as a short teal bar labelled 0.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFontMetrics, QPen

from app.verdict import fmt_diff
from app.widgets.cached_bounds import CachedBoundsBars
from app.widgets.heatmap import MAX_TICKS
from app.widgets.plotting import QuietTextItem, fast_axes, left_bottom_only

#: An exact zero (bitwise equal) is drawn in this colour: light teal stays apart from the
#: |Δ| map's pale yellow end, also under deuteranopia and protanopia.
ZERO_HTML = "#9fd3e6"
ZERO_COLOUR = QColor(ZERO_HTML)
#: The dashed line at the first edited token k, and the verdict's "info" colour.
K_LINE_HTML = "#1f5fa8"
#: Outline of changed raw scores in earlier rows (they lie in the masked future columns).
OUTLINE_HTML = "#ff7f0e"
OUTLINE_PEN = pg.mkPen(QColor(OUTLINE_HTML), width=2.5)
#: no outline: one pen shared by every bar (a new one per bar cost ~2 ms at T = 512)
NO_PEN = pg.mkPen(None)
#: Number labels beside the bars up to this many rows; beyond, hover shows the number.
MAX_BAR_LABELS = 24
#: A good (exactly 0) bar label's colour, picked for a white page.
GOOD_HTML = "#1b7f3b"


def k_line_pen() -> QPen:
    return pg.mkPen(K_LINE_HTML, width=1.5, style=Qt.PenStyle.DashLine)


def abs_diff(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """|after − before| for display, with equal entries (also −∞ against −∞) exactly 0.

    Subtracts only where the bits differ: an edit leaves most entries untouched, and
    arithmetic on the masked −∞ entries is slow (300 ms for one 2048 × 2048 map, 40 ms so)."""
    return abs_diff_changed(before, after)[0]


def abs_diff_changed(before: np.ndarray, after: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`abs_diff` and the flat indices of the entries whose bits differ (outside them
    the difference is exactly 0): the diff map's log image looks at only those, not again at
    every entry (~0.15 ms of a 512 × 512 map)."""
    before = np.ascontiguousarray(before, dtype=np.float64).reshape(-1)
    after_flat = np.ascontiguousarray(after, dtype=np.float64).reshape(-1)
    out = np.zeros(after_flat.size)
    # flat indices: one index array instead of one per axis (~3× faster to find and use)
    changed = np.flatnonzero(before.view(np.int64) != after_flat.view(np.int64))
    with np.errstate(invalid="ignore"):
        out[changed] = np.abs(after_flat[changed] - before[changed])
    return out.reshape(np.shape(after)), changed


def sparse_labels(labels: Sequence[str], most: int) -> list[str]:
    """At most ``most`` of ``labels`` kept (evenly strided), the rest blank: a small view with
    many rows stays legible (hover names every row)."""
    n = len(labels)
    base = max(1, -(-n // MAX_TICKS))  # the view keeps every base-th tick: stay on its grid
    stride = base * max(1, -(-max(1, -(-n // most)) // base))
    shown = [""] * n  # (slices, not a loop over every row: 512 rows on every edit)
    shown[::stride] = labels[::stride]
    return shown


@lru_cache(maxsize=8)
def sparse_index_labels(n: int, most: int) -> tuple[str, ...]:
    """:func:`sparse_labels` of the column numbers 0 … n − 1, written once per length: the key
    columns of a T × T map are the same numbers at every edit."""
    return tuple(sparse_labels([str(j) for j in range(n)], most))


def cell_outline(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """x, y of the four edges of each (row, col) cell, as pairs for ``connect='pairs'``."""
    rows, cols = cells[:, 0].astype(float), cells[:, 1].astype(float)
    x0, x1, y0, y1 = cols, cols + 1, rows, rows + 1
    xs = np.stack([x0, x1, x1, x1, x1, x0, x0, x0], axis=1).reshape(-1)
    ys = np.stack([y0, y0, y0, y1, y1, y1, y1, y0], axis=1).reshape(-1)
    return xs, ys


class DiffBars(pg.PlotWidget):
    """One bar per token row, log₁₀ of its max |Δ|, rows top to bottom like the heatmaps."""

    def __init__(self) -> None:
        super().__init__(axisItems=fast_axes(), enableMenu=False)
        self.hideButtons()
        self.setMouseEnabled(x=False, y=False)
        self.invertY(True)
        left_bottom_only(self)
        self.hideAxis("left")
        self.getViewBox().setBackgroundColor(None)
        # bounds kept between changes (app/widgets/cached_bounds.py): asked many times a paint
        self.bar_item = CachedBoundsBars(x0=[], y=[], height=[], width=[])
        self.zero_item = CachedBoundsBars(x0=[], y=[], height=[], width=[],
                                         brush=ZERO_COLOUR, pen=pg.mkPen(None))
        self.addItem(self.zero_item)
        #: what the zero bars were last set from (see draw)
        self._zero_key: tuple | None = None
        self.addItem(self.bar_item)
        #: the number labels (a pool reused across redraws: text items are costly to make)
        self.labels: list[pg.TextItem] = []
        self._label_state: list[tuple[str, str] | None] = []
        self.k_line = pg.InfiniteLine(angle=0, pen=k_line_pen())
        self.addItem(self.k_line)
        #: the log₁₀ range the bars span, and the decade ticks shown under them
        self.decades = (0.0, 0.0)
        self.ticks: list[tuple[float, str]] = []
        self._view: tuple = ()
        self.getViewBox().sigResized.connect(self.update_ticks)

    def draw(self, values: np.ndarray, levels: tuple[float, float],
             colours_of: Callable[[np.ndarray], list[QColor]], outlined: np.ndarray) -> None:
        """Bars of ``values`` between the log₁₀ ``levels``, coloured by ``colours_of`` (all the
        bars' colours in one call); the rows where ``outlined`` is True get the changed-score
        outline."""
        n = len(values)
        rows = np.arange(n) + 0.5
        nonzero = values > 0
        logs = np.maximum(np.log10(np.where(nonzero, values, 1.0)), levels[0])
        low, high = levels
        if nonzero.any():
            self.bar_item.setOpts(x0=np.full(int(nonzero.sum()), low), y=rows[nonzero],
                                  height=0.72, width=logs[nonzero] - low,
                                  brushes=colours_of(values[nonzero]),
                                  pens=[OUTLINE_PEN if o else NO_PEN
                                        for o in outlined[nonzero]])
        else:  # (pyqtgraph 0.14 fails on empty per-bar pen lists)
            self.bar_item.setOpts(x0=[], y=[], height=0.72, width=[], brushes=None, pens=None,
                                  brush=ZERO_COLOUR, pen=pg.mkPen(None))
        zero_width = 0.04 * (high - low)
        # the exact zeros are the same rows edit after edit (all before k): their bars are
        # set again only when those rows or the scale change (a setOpts is ~0.1 ms)
        zero_key = (low, zero_width, nonzero.tobytes())
        if zero_key != self._zero_key:
            self._zero_key = zero_key
            self.zero_item.setOpts(x0=np.full(int((~nonzero).sum()), low), y=rows[~nonzero],
                                   height=0.72, width=zero_width)
        count = n if n <= MAX_BAR_LABELS else 0
        while len(self.labels) < count:
            label = QuietTextItem(anchor=(0.0, 0.5))
            self.addItem(label)
            self.labels.append(label)
            self._label_state.append(None)
        while len(self.labels) > count:
            self.removeItem(self.labels.pop())
            self._label_state.pop()
        foreground = pg.getConfigOption("foreground")
        for i, label in enumerate(self.labels):
            text, colour = fmt_diff(float(values[i])), foreground if nonzero[i] else GOOD_HTML
            if self._label_state[i] != (text, str(colour)):
                self._label_state[i] = (text, str(colour))
                label.setText(text, color=colour)
            label.setPos(logs[i] if nonzero[i] else low + zero_width, rows[i])
        span = high - low
        # ranges and ticks only when they change: each call regenerates the axis picture
        view = ((low, high + (0.4 * span if n <= MAX_BAR_LABELS else 0)), (0, n))
        if view != self._view:
            self._view = view
            self.setRange(xRange=view[0], yRange=view[1], padding=0)
        self.decades = (low, high)
        self.update_ticks()

    def update_ticks(self, _view: object = None) -> None:
        """Decade labels under the bars, every 6th decade or fewer: in a narrow plot "1e-12"
        and "1e-6" ran into each other."""
        low, high = self.decades
        if high <= low:
            return
        axis = self.getAxis("bottom")
        metrics = QFontMetrics(axis.style["tickFont"] or axis.font())
        room = metrics.horizontalAdvance("1e-12") + 2 * metrics.horizontalAdvance(" ")
        width = self.getViewBox().width()
        per_decade = width / (high - low) if width > 0 else room
        step = 6 * max(1, int(np.ceil(room / (6 * per_decade))))
        ticks = [(v, "1" if v == 0 else f"1e{int(v)}")
                 for v in range(int(np.ceil(low / step) * step), int(high) + 1, step)]
        if ticks != self.ticks:
            self.ticks = ticks
            axis.setTicks([ticks, []])
