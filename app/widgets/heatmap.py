"""A labelled heatmap: token rows, feature (or key token) columns, a colour bar, hover readout.

Follows pyqtgraph's speed rules: row-major float32 for display only, explicit levels (no
per-frame autoLevels), a 256-entry LUT, ticks rebuilt only when the labels change.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress, pairwise

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Signal
from PySide6.QtGui import (
    QColor,
    QFontMetrics,
    QImage,
)

from app import palettes, theme
from app.widgets.plotting import left_bottom_only
from app.widgets.token_axis import token_axes

#: theme -> colour of masked cells (the view box behind the image)
MASKED_COLOURS: dict[str, str] = {"light": "#c8c8c8", "dark": "#585858"}

#: At most this many tick labels on an axis; more tokens get a stride.
MAX_TICKS = 40


def _ticks(labels: Sequence[str], min_stride: int = 1,
           block_starts: Sequence[int] = ()) -> list[list[tuple[float, str]]]:
    """Every k-th label (k at least ``min_stride``, at most MAX_TICKS labels). With
    ``block_starts`` (the first column of each block, e.g. each head of "all heads") the
    count restarts in every block, so each block shows its own first label; where blocks are
    narrower than k, the first label of every few blocks, never two closer than k."""
    stride = max(1, int(np.ceil(len(labels) / MAX_TICKS)))
    stride *= -(-min_stride // stride)  # a multiple of the count stride: the same grid
    if not block_starts:
        major = [(i + 0.5, labels[i]) for i in range(0, len(labels), stride)]
        return [major, []]
    bounds = [*block_starts, len(labels)]
    narrowest = min(b - a for a, b in pairwise(bounds))
    every = max(1, -(-stride // max(narrowest, 1)))  # blocks per label when they are narrow
    chosen = range(0, len(bounds) - 1, every)
    major = []
    for j in chosen:
        start, stop = bounds[j], bounds[j + 1]  # labels of this block only
        if j + every < len(bounds) - 1:  # ... k cells before the next shown block's first
            stop = min(stop, bounds[j + every] - stride + 1)
        major += [(i + 0.5, labels[i]) for i in range(start, max(stop, start + 1), stride)
                  if labels[i]]
    return [major, []]


#: Strides for numbered columns (feature, step): 1, 2, 5, 10, 20, 50, ... columns apart.
_NICE_STRIDES = tuple(m * 10 ** e for e in range(6) for m in (1, 2, 5))


def index_ticks(n: int, stride: int) -> list[list[tuple[float, str]]]:
    """Column numbers 0, stride, 2·stride, ... under the centres of their cells (a number at a
    cell edge read as a fraction, '0.5', or as a column past the last, '16' of 0 … 15)."""
    return [[(i + 0.5, str(i)) for i in range(0, n, stride)], []]


#: Horizontal room between two column labels, in widths of a space.
_LABEL_GAP_SPACES = 2
#: How far (pixels) a column label may reach past either end of the plot.
_LABEL_OVERFLOW_PX = 40


#: font -> label -> width in pixels: an edit changes one label, and measuring 512 of them
#: again cost ~2 ms per edit
_label_widths: dict[str, dict[str, int]] = {}
_LABEL_WIDTHS_MAX = 1 << 14


def display_array(array: np.ndarray) -> np.ndarray:
    """C-contiguous float32 copy for drawing; −inf (masked) becomes NaN, drawn transparent."""
    out = np.ascontiguousarray(array, dtype=np.float32)
    if not np.isfinite(out).all():
        out = np.where(np.isfinite(out), out, np.nan).astype(np.float32)
    return out


def premultiplied_table(lut: np.ndarray) -> np.ndarray:
    """A [N, 3 or 4] uint8 lookup table as N + 1 premultiplied ARGB32 pixels; the extra last
    one, fully transparent, is where NaN (masked) cells go."""
    lut = np.asarray(lut, dtype=np.uint32)
    alpha = lut[:, 3] if lut.shape[1] == 4 else np.full(len(lut), 255, np.uint32)
    # Qt's qPremultiply: x·a/255, rounded
    rgb = [(c * alpha + 128 + ((c * alpha + 128) >> 8)) >> 8 for c in lut.T[:3]]
    table = np.zeros(len(lut) + 1, dtype=np.uint32)
    table[:-1] = (alpha << 24) | (rgb[0] << 16) | (rgb[1] << 8) | rgb[2]
    return table


class FastImageItem(pg.ImageItem):
    """An ImageItem whose float image with a uint8 lookup table becomes a premultiplied
    ARGB32 QImage: pyqtgraph makes an Indexed8 image (or RGBA8888 where NaN), which Qt
    converts again on every paint; drawn scaled, that took ~1.3 ms per paint of a 400 px
    heatmap, the native format ~0.15 ms. Same colours: the same float32 rescale as pyqtgraph,
    the same table entry per cell, NaN transparent. Anything else renders as pyqtgraph does."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        self._table_key: tuple | None = None
        self._table: np.ndarray | None = None
        #: the image setImage was last given, as a copy, with its levels and table (None: a
        #: case this class leaves to pyqtgraph)
        self._held: tuple[np.ndarray, float, float, np.ndarray] | None = None
        #: rows changed since the last fast render (None: all of them)
        self._pending: np.ndarray | None = None
        #: the last fast render's pixels, its levels and premultiplied table
        self._pixels: np.ndarray | None = None
        self._pixels_state: tuple[float, float, np.ndarray] | None = None
        self._quiet = False
        super().__init__(*args, **kwargs)

    def update(self, *args: object) -> None:
        if self._quiet:
            return
        self._pending = None  # (levels, table, anything pyqtgraph changes: all rows)
        super().update(*args)

    def setImage(self, image: np.ndarray | None = None, autoLevels: bool | None = None,
                 **kwargs: object) -> None:
        """pyqtgraph's, but where only some rows change (an edit of the last token changes
        the last row of every step) with the same levels and table, only those rows are
        repainted and rendered again: a repaint of the whole image also repainted the view
        box's background and every item its box reaches (the axes' ticks reach into it)."""
        self._quiet = True
        try:
            super().setImage(image, autoLevels=autoLevels, **kwargs)
        finally:
            self._quiet = False
        image, lut, levels = self.image, self.lut, self.levels
        held, state = self._held, None
        if (image is not None and image.ndim == 2 and image.dtype == np.float32
                and self.axisOrder == "row-major" and isinstance(lut, np.ndarray)
                and levels is not None and np.ndim(levels) == 1 and self.paintMode is None
                and not self.autoDownsample):
            state = (float(levels[0]), float(levels[1]), lut)
        if (state is None or held is None or held[0].shape != image.shape
                or held[1:3] != state[:2] or held[3] is not lut):
            self.update()
        else:  # (the same bits: NaN and −0.0 compare as what they are)
            rows = np.flatnonzero((image.view(np.uint32) != held[0].view(np.uint32))
                                  .any(axis=1))
            if self._pending is not None:  # (with the rows a render has not shown yet)
                self._pending = np.union1d(self._pending, rows)
            if rows.size:
                super().update(QRectF(0, float(rows[0]), float(image.shape[1]),
                                      float(rows[-1] - rows[0] + 1)))
        self._held = (image.copy(), *state) if state is not None else None

    def render(self) -> None:
        image, lut, levels = self.image, self.lut, self.levels
        if (image is None or image.ndim != 2 or image.size == 0 or image.dtype != np.float32
                or self.axisOrder != "row-major" or self.autoDownsample
                or not isinstance(lut, np.ndarray) or lut.dtype != np.uint8 or lut.ndim != 2
                or lut.shape[1] not in (3, 4) or not 0 < len(lut) <= 256 or levels is None
                or np.ndim(levels) != 1 or self.paintMode is not None):
            super().render()
            return
        key = (lut.shape, lut.tobytes())
        if key != self._table_key:
            self._table_key, self._table = key, premultiplied_table(lut)
        low, high = float(levels[0]), float(levels[1])
        table = self._table
        assert table is not None
        # An edit of the last token changes one row of a T × T map: only the rows setImage
        # found changed since the last render are rendered again (rendering all 512 rows
        # took ~1-2 ms of every edit's paint at T = 512)
        pixels, rows, state = self._pixels, self._pending, self._pixels_state
        if (rows is not None and pixels is not None and pixels.shape == image.shape
                and state is not None and state[:2] == (low, high) and state[2] is table):
            pixels = pixels.copy()  # the QImage on screen keeps the old buffer as it is
            if rows.size:
                pixels[rows] = self._pixels_of(image[rows], low, high, table)
        else:
            pixels = self._pixels_of(image, low, high, table)
        self._pixels, self._pixels_state = pixels, (low, high, table)
        self._pending = np.zeros(0, dtype=np.intp)  # what the image holds is on screen
        self.qimage = pg.functions.ndarray_to_qimage(
            pixels, QImage.Format.Format_ARGB32_Premultiplied)
        self._renderRequired = False
        self._unrenderable = False

    @staticmethod
    def _pixels_of(image: np.ndarray, low: float, high: float,
                   table: np.ndarray) -> np.ndarray:
        """Premultiplied ARGB32 pixels of a float32 image (each cell on its own)."""
        n = len(table) - 1
        # pyqtgraph's rescale (functions_qimage._rescale_and_lookup_float): float32
        # (x − low) · n / (high − low), clipped to 0 … n − 1, truncated to an index
        span = high - low or 1.0
        scaled = (image - np.float32(low)) * np.float32(n / span)
        np.clip(scaled, 0, n - 1, out=scaled)
        scaled[np.isnan(scaled)] = n  # the transparent entry
        return table[scaled.astype(np.intp)]


class _LabelStats:
    """What :meth:`HeatmapView._stride` reads of an axis's labels (which are blank, their widths
    in the axis font), kept between calls and brought up to date from the positions that
    changed: an edit changes one label of 512, and every pass over 512 fresh label strings
    (compare, count, hash, measure) cost ~50-250 µs of an edit, the caches cold after the
    image's arrays. (Lists, not arrays: numpy's per-call cost showed at 9 labels.)"""

    def __init__(self) -> None:
        self.labels: tuple[str, ...] = ()
        #: not blank, per label; and how many are blank
        self.shown: list[bool] = []
        self.blanks = 0
        #: width per label in the font of ``_font_key`` (None: not measured)
        self._widths: list[int] | None = None
        self._font_key = ""
        #: positions changed since the widths were measured
        self._stale: list[int] = []

    def update(self, labels: tuple[str, ...]) -> bool:
        """Hold ``labels``; False if they read as the labels held (which are then kept)."""
        old = self.labels
        if labels is old:
            return False
        if len(labels) != len(old):
            self.labels, self._widths, self._stale = labels, None, []
            self.shown = list(map(bool, labels))
            self.blanks = len(labels) - sum(self.shown)
            return True
        changed = list(compress(range(len(labels)), map(str.__ne__, labels, old)))
        if not changed:
            return False
        self.labels, shown = labels, self.shown
        for i in changed:
            now = labels[i] != ""
            self.blanks += shown[i] - now
            shown[i] = now
        self._stale += changed
        if len(self._stale) > len(labels):  # (rows never measured: no list without end)
            self._widths, self._stale = None, []
        return True

    def spacing(self) -> int:
        """Fewest cells between two shown labels (1 with none blank)."""
        if not self.blanks:
            return 1
        positions = list(compress(range(len(self.shown)), self.shown))
        return min((b - a for a, b in pairwise(positions)), default=1)

    def widest(self, font_key: str, widths: dict[str, int], metrics: QFontMetrics) -> int:
        """The widest shown label's width; ``widths``: the font's memory of label widths."""
        labels = self.labels
        if self._widths is None or font_key != self._font_key:
            for text in set(labels).difference(widths):
                widths[text] = metrics.horizontalAdvance(text)
            self._widths = list(map(widths.__getitem__, labels))
            self._font_key = font_key
        else:
            for i in self._stale:
                text = labels[i]
                width = widths.get(text)
                if width is None:
                    width = widths[text] = metrics.horizontalAdvance(text)
                self._widths[i] = width
        self._stale = []
        return max(compress(self._widths, self.shown)) if self.blanks else max(self._widths)


class HeatmapView(pg.GraphicsLayoutWidget):
    """One matrix as an image with labelled axes. ``hovered(row, col, value)`` follows the mouse;
    ``hovered(-1, -1, nan)`` when it leaves the image."""

    hovered = Signal(int, int, float)
    clicked = Signal(int, int, float)

    def __init__(self, parent: object = None, *, colorbar: bool = True) -> None:
        super().__init__(parent)
        self.plot = self.addPlot(row=0, col=0, axisItems=token_axes(), enableMenu=False)
        left_bottom_only(self.plot)
        self.plot.hideButtons()
        self.plot.invertY(True)  # row 0 (the first token) at the top, like a matrix
        self._masked_theme = ""  # the theme the masked cells' grey was picked for
        self._set_masked_colour()
        self.plot.getViewBox().setMouseEnabled(x=False, y=False)
        self.image = FastImageItem(axisOrder="row-major")
        self.plot.addItem(self.image)
        self.colorbar: pg.ColorBarItem | None = None
        if colorbar:
            self.colorbar = pg.ColorBarItem(values=(-1, 1), width=14, interactive=False,
                                            colorMap=palettes.colormap("CET-D1"))
            self.colorbar.setImageItem(self.image)
            self.addItem(self.colorbar, row=0, col=1)
        self._data: np.ndarray | None = None
        self._row_labels: tuple[str, ...] = ()
        self._col_labels: tuple[str, ...] = ()
        #: side -> what the label strides read of that side's labels
        self._label_stats = {"left": _LabelStats(), "bottom": _LabelStats()}
        #: first column of each block of columns (all heads side by side), or () for one block
        self._col_blocks: tuple[int, ...] = ()
        #: the tick lists handed to the axes (a long sentence shows every k-th label only)
        self._row_ticks: list | None = None
        self._col_ticks: list | None = None
        self._map = ""
        self._titles: tuple[str, str] | None = None
        self._shape: tuple[int, ...] = ()
        self._levels: tuple[float, ...] = ()
        for axis in ("left", "bottom"):
            self.plot.getAxis(axis).setStyle(tickTextOffset=2, autoExpandTextSpace=True)
        self.plot.getAxis("left").setWidth(70)
        # the first key token's label may stand out left of the plot, under the row labels'
        # empty corner (pyqtgraph hides a label that crosses its axis's ends)
        self.plot.getAxis("bottom").setStyle(hideOverlappingLabels=_LABEL_OVERFLOW_PX)
        self.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self.plot.getViewBox().sigResized.connect(self._update_ticks)
        self.scene().sigMouseClicked.connect(self._on_mouse_clicked)

    def _set_masked_colour(self) -> None:
        """Masked (NaN) cells show the view's background: a grey a little off the plot's
        background, so a masked weight reads as nothing, as a zero weight does. The light
        grey on the dark theme read as a heavy weight (its probabilities grow toward light)."""
        self._masked_theme = theme.current_theme()
        self.plot.getViewBox().setBackgroundColor(QColor(MASKED_COLOURS[self._masked_theme]))

    @property
    def data(self) -> np.ndarray | None:
        """What is displayed, as float32 (NaN where masked)."""
        return self._data

    @property
    def levels(self) -> tuple[float, float]:
        lo, hi = self.image.getLevels()
        return float(lo), float(hi)

    @property
    def row_labels(self) -> tuple[str, ...]:
        return self._row_labels

    @property
    def col_labels(self) -> tuple[str, ...]:
        return self._col_labels

    def set_matrix(self, array: np.ndarray, levels: tuple[float, float], map_name: str,
                   row_labels: Sequence[str], col_labels: Sequence[str] | None = None,
                   *, x_title: str = "", y_title: str = "",
                   col_blocks: Sequence[int] = ()) -> None:
        """Show a 2-D array. ``col_labels`` None: numeric feature ticks. ``col_blocks``: the
        first column of each block the labels are thinned in separately."""
        data = display_array(array)
        self._data = data
        if theme.current_theme() != self._masked_theme:
            self._set_masked_colour()
        if map_name != self._map:
            self._map = map_name
            self.image.setLookupTable(palettes.lut(map_name))
            if self.colorbar is not None:
                self.colorbar.setColorMap(palettes.colormap(map_name))
        self.image.setImage(data, autoLevels=False, levels=levels)
        if self.colorbar is not None and tuple(levels) != self._levels:
            self.colorbar.setLevels(levels)
        self._levels = tuple(levels)
        # setTicks regenerates the axis picture (~4 ms for 40 token labels): only when the
        # ticks shown change. Beyond MAX_TICKS tokens the edited last token usually has none.
        rows = tuple(row_labels)
        if self._labels_changed("left", rows, self._row_labels):
            self._row_labels = rows
            self._update_row_ticks()
        cols = tuple(col_labels) if col_labels is not None else ()
        if (self._labels_changed("bottom", cols, self._col_labels)
                or tuple(col_blocks) != self._col_blocks):
            self._col_labels = cols
            self._col_blocks = tuple(col_blocks)
            self._update_col_ticks()
        # titles, levels and ranges only when they change: each call re-lays out or
        # regenerates an axis picture, which costs more than the image itself
        if (x_title, y_title) != self._titles:
            self._titles = (x_title, y_title)
            self.plot.setLabel("bottom", x_title)
            self.plot.setLabel("left", y_title)
        if data.shape != self._shape:
            self._shape = data.shape
            self.plot.getViewBox().setRange(xRange=(0, data.shape[1]),
                                            yRange=(0, data.shape[0]), padding=0)
            if not cols:  # numbered columns: their count sets the numbers
                self._update_col_ticks()

    def _labels_changed(self, side: str, labels: tuple[str, ...],
                        shown: tuple[str, ...]) -> bool:
        """``labels != shown`` (the labels on ``side``), found by the stride's own update
        when it holds ``shown``: one pass over the labels, not two."""
        stats = self._label_stats[side]
        if stats.labels is shown:
            return stats.update(labels)
        return labels != shown

    def _update_ticks(self, _view: object = None) -> None:
        self._update_row_ticks()
        self._update_col_ticks()

    def _update_row_ticks(self) -> None:
        """Token labels beside the rows, every k-th one where one above the other they would
        overlap at the plot's current height (~30 tokens in a default-sized dock)."""
        rows = self._row_labels
        row_ticks = _ticks(rows, self._stride(rows, "left"))
        if row_ticks != self._row_ticks:
            self._row_ticks = row_ticks
            self.plot.getAxis("left").setTicks(row_ticks)

    def _update_col_ticks(self) -> None:
        """Key-token labels under the columns, every k-th one when side by side they would
        overlap at the plot's current width (a narrow dock, large text)."""
        cols = self._col_labels
        if cols:
            col_ticks = _ticks(cols, self._stride(cols, "bottom"), self._col_blocks)
        elif len(self._shape) == 2:
            col_ticks = index_ticks(self._shape[1], self._index_stride(self._shape[1]))
        else:
            col_ticks = None
        if col_ticks != self._col_ticks:
            self._col_ticks = col_ticks
            self.plot.getAxis("bottom").setTicks(col_ticks)

    def _stride(self, labels: tuple[str, ...], side: str) -> int:
        """Show every how-many-th label on ``side`` so that no two overlap (1: all)."""
        view = self.plot.getViewBox()
        length = view.width() if side == "bottom" else view.height()
        stats = self._label_stats[side]
        stats.update(labels)  # ("" is a label a caller blanked)
        if length <= 0 or stats.blanks == len(labels):
            return 1  # not laid out yet: the resize that follows decides
        # labels blanked every k-th (the causality panel's) already stand k cells apart
        spacing = stats.spacing()
        axis = self.plot.getAxis(side)
        font = axis.style["tickFont"] or axis.font()
        metrics = QFontMetrics(font)
        if side == "bottom":
            key = font.key()
            widths = _label_widths.setdefault(key, {})
            if len(widths) > _LABEL_WIDTHS_MAX:
                widths.clear()
            needed = (stats.widest(key, widths, metrics)
                      + _LABEL_GAP_SPACES * metrics.horizontalAdvance(" "))
        else:
            needed = metrics.height()
        cells = int(np.ceil(needed / (length / len(labels))))  # apart, for room
        return 1 if spacing >= cells else spacing * int(np.ceil(cells / spacing))

    def _index_stride(self, n: int) -> int:
        """The smallest nice stride at which the widest column number, with a gap, fits."""
        width = self.plot.getViewBox().width()
        if width <= 0:
            return _NICE_STRIDES[0]
        axis = self.plot.getAxis("bottom")
        metrics = QFontMetrics(axis.style["tickFont"] or axis.font())
        needed = metrics.horizontalAdvance(str(n - 1)) + _LABEL_GAP_SPACES * \
            metrics.horizontalAdvance(" ")
        cell = width / n
        return next((k for k in _NICE_STRIDES if k * cell >= needed), _NICE_STRIDES[-1])

    def clear_matrix(self) -> None:
        self._data = None
        self._shape = ()
        self.image.clear()

    def cell_at(self, scene_pos: QPointF) -> tuple[int, int] | None:
        if self._data is None or not self.plot.sceneBoundingRect().contains(scene_pos):
            return None
        point = self.plot.getViewBox().mapSceneToView(scene_pos)
        row, col = int(np.floor(point.y())), int(np.floor(point.x()))
        if 0 <= row < self._data.shape[0] and 0 <= col < self._data.shape[1]:
            return row, col
        return None

    def _on_mouse_moved(self, scene_pos: QPointF) -> None:
        cell = self.cell_at(scene_pos)
        if cell is None:
            self.hovered.emit(-1, -1, float("nan"))
        else:
            self.hovered.emit(cell[0], cell[1], float(self._data[cell]))  # type: ignore[index]

    def _on_mouse_clicked(self, event: object) -> None:
        cell = self.cell_at(event.scenePos())  # type: ignore[attr-defined]
        if cell is not None:
            self.clicked.emit(cell[0], cell[1], float(self._data[cell]))  # type: ignore[index]
