"""The norm panel's pieces that need no words: number formats for its table, a value axis
that remembers its range, empty-series helpers and the inline claim badge of its table.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from pyqtgraph import debug
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QPainter, QPicture, QTextDocument, QTransform
from PySide6.QtWidgets import QTableWidget

from app.widgets.claim_badge import BADGE_COLOURS
from app.widgets.plotting import FastAxisItem
from engine.norms import VectorStats

EXACT_COLOUR, NOT_EXACT_COLOUR = BADGE_COLOURS["EXACT"][0], "#8a8a8a"


def format_number(x: float) -> str:
    """Seven significant digits (so 0.9999995 is not shown as 1); a rounding residue stays
    visible as such (2.8e-17)."""
    if x != 0 and abs(x) < 1e-9:
        return f"{x:.1e}"
    return f"{x:.7g}"


def stats_row(stats: VectorStats) -> tuple[str, str, str]:
    return format_number(stats.mean), format_number(stats.std), format_number(stats.rms)


#: Steps a chart's half-height snaps up to (× a power of ten).
NICE_STEPS = (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)


def nice_ceil(x: float) -> float:
    """The smallest of 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 × 10^k at or above ``x`` (> 0): the
    chart's range, so that typing (a new vector every keystroke) rarely changes its scale and
    axis — a new range regenerates the axis and its grid, the costliest part of the chart."""
    power = 10.0 ** np.floor(np.log10(x))
    return float(next(s * power for s in NICE_STEPS if s * power >= x * (1 - 1e-12)))


def _transform_key(t: QTransform) -> tuple[float, ...]:
    return (t.m11(), t.m12(), t.m21(), t.m22(), t.dx(), t.dy())


class RangeMemoryAxis(FastAxisItem):
    """The value axis of the chart, remembering the pictures of the ranges it showed.

    The chart's range snaps to a few nice values (see :func:`nice_ceil`) and typing moves it
    between them (±2, ±2.5, ±3, ±4, ±5 for the toy layer's vectors); each move made pyqtgraph
    generate the axis again — its ticks, labels and grid lines across the chart, ~2-3 ms of
    Python. A picture is kept per state it was drawn from (range, geometry, transform, style,
    pens, fonts, ticks) and replayed when the axis comes back to that state, with the one
    thing generating it does besides drawing: telling the axis how wide its labels are."""

    #: pictures remembered (a few ranges × a size or two)
    MEMORY = 12

    def __init__(self, *args: object, **kwargs: object) -> None:
        #: state -> (picture, its version, the label size generating it reported)
        self._pictures: dict[tuple, tuple[QPicture, int, float]] = {}
        self._text_size: float | None = None
        super().__init__(*args, **kwargs)

    def picture_key(self) -> tuple | None:
        """Everything the axis picture is drawn from (None: not drawable yet)."""
        transform = self.deviceTransform_()
        if transform is None:
            return None
        view = self.linkedView()
        ticks = (None if view is None or self.grid is False
                 else view.mapRectToItem(self, view.boundingRect()).getRect())
        style = tuple((name, value.key() if isinstance(value, QFont) else repr(value))
                      for name, value in sorted(self.style.items()))
        pens = tuple((pen.color().rgba(), pen.widthF(), pen.style(), pen.isCosmetic())
                     for pen in (self.pen(), self.textPen(), self.tickPen()))
        return (tuple(self.range), self.orientation, repr(self.logMode), self.scale,
                self.autoSIPrefixScale, self.mapRectFromParent(self.geometry()).getRect(),
                ticks, _transform_key(transform), repr(self.grid), style, pens,
                QFont().key(), repr(self._tickLevels), repr(self._tickSpacing))

    def _updateMaxTextSize(self, x: int) -> None:
        self._text_size = x  # (generating the picture reports its labels' size here)
        super()._updateMaxTextSize(x)

    @debug.warnOnException  # an exception escaping a paint() takes Qt down
    def paint(self, p: QPainter, opt: object, widget: object) -> None:
        if self.picture is not None:
            super().paint(p, opt, widget)
            return
        key = self.picture_key()
        remembered = self._pictures.get(key) if key is not None else None
        if remembered is not None:
            picture, version, text_size = remembered
            self._updateMaxTextSize(text_size)  # as generating it would have, then drawn
            self.picture, self._picture_version = picture, version
            super().paint(p, opt, widget)
            return
        self._text_size = None
        super().paint(p, opt, widget)  # generates the picture
        if key is not None and self.picture is not None and self._text_size is not None:
            if len(self._pictures) >= self.MEMORY:
                self._pictures.pop(next(iter(self._pictures)))
            self._pictures[key] = (self.picture, self._picture_version, self._text_size)


def empty_bars(bar: pg.BarGraphItem) -> None:
    if len(bar.opts["height"]):
        bar.setOpts(x=[], height=[])


def empty_line(line: pg.PlotDataItem) -> None:
    if line.xData is not None and len(line.xData):
        line.setData([], [])


class InlineBadge:
    """EXACT (green) or another verdict (grey), with the docs/continuous.md id, drawn as rich
    text at the start of its reading (not app/widgets/claim_badge.py's widget: a badge column
    of its own left the readings ~110 px narrower, so they wrapped to twice the lines and a
    1366 x 768 window had to scroll to reach them)."""

    def __init__(self) -> None:
        self._text = ""
        self.exact = False

    def text(self) -> str:
        return self._text

    def set(self, exact: bool, paper_id: str, other: str) -> None:
        self.exact = exact
        self._text = f"EXACT · {paper_id}" if exact else f"{other} · {paper_id}"

    def html(self) -> str:
        colour = EXACT_COLOUR if self.exact else NOT_EXACT_COLOUR
        return (f"<span style='background-color:{colour}; color:white; font-weight:bold'>"
                f"&nbsp;{self._text.replace(' ', '&nbsp;')}&nbsp;</span>&nbsp; ")


def one_line_width(html: str, font: QFont) -> int:
    """Rich text's width on one line (a word-wrapped label's size hint is narrower than its
    text, so a key measured by it wrapped beside a box instead of the box moving under it)."""
    doc = QTextDocument()
    doc.setDocumentMargin(0)
    doc.setDefaultFont(font)
    doc.setHtml(html)
    return math.ceil(doc.idealWidth())


def column_widths(needs: Sequence[int], spare: int, held: Sequence[int]) -> list[int]:
    """Widths for columns that need ``needs`` pixels with ``spare`` pixels left over (less
    than 0: they do not fit, each gets its need and the table scrolls). The spare room is
    shared out evenly, left columns first; but columns whose ``held`` widths still hold their
    needs and fill the same room keep them. An edit's new numbers are a digit or a sign wider
    or narrower each time: sharing the room out again moved the columns at every keystroke,
    which QTableView repaints on a timer of its own, after the edit's paint (~0.5 ms)."""
    if spare < 0 or not needs:
        return list(needs)
    if sum(held) == sum(needs) + spare and all(
            width >= need for width, need in zip(held, needs, strict=True)):
        return list(held)
    share, left_over = divmod(spare, len(needs))
    return [need + share + (1 if c < left_over else 0) for c, need in enumerate(needs)]


def fit_table_height(table: QTableWidget) -> None:
    """The table exactly as tall as its rows (and its sideways scroll bar, if shown)."""
    height = table.horizontalHeader().height() + 2 * table.frameWidth()
    height += sum(table.rowHeight(r) for r in range(table.rowCount()))
    if table.horizontalScrollBarPolicy() != Qt.ScrollBarPolicy.ScrollBarAlwaysOff:
        height += table.horizontalScrollBar().sizeHint().height()
    if height != table.height():
        table.setFixedHeight(height)


class LevelLine(pg.InfiniteLine):
    """A horizontal line that moves up and down (the chart's mean, every edit). pyqtgraph
    computes its bounds again after every move (the view rectangle in its coordinates, its
    pixel size); in its own coordinates they are the view's width and a few pixels around 0,
    the same at every height while the view's range and size stay."""

    def _view_key(self) -> tuple | None:
        view = self.getViewBox()
        if view is None:
            return None
        rect, size = view.viewRect(), view.size()
        return (rect.x(), rect.y(), rect.width(), rect.height(), size.width(), size.height())

    def setPos(self, pos: object) -> None:
        kept, before, along = self._boundingRect, self._view_key(), self.p[0]
        super().setPos(pos)
        if (kept is not None and before is not None and self.angle % 180 == 0
                and self.p[0] == along and self._view_key() == before):
            self._boundingRect = kept
