"""Trial for issue #20: the step heatmap drawn by a widget that paints itself, against the app's.

    python benchmarks/painted_trial.py [--size WxH] [--edits N] [--no-window]

Would panels that paint themselves (the image as one QImage, the labels as cached QStaticText,
the tick marks as one ``drawLines``, no per-item caches to regenerate) show an edit for much
less than pyqtgraph's item machinery (``ImageItem.setImage``, axis pictures regenerated,
``ColorBarItem``, the layout)? This script measures it on the most-used plot, the step heatmap,
at the size the Step heatmap dock gives it in the default 1600 x 1000 window (its HeatmapView
is 659 x 243 px there), with real traces of the toy layer (``engine.run_layer``), the app's
fonts (``build_app`` installs them) and its token labels, Chinese and English:

- ``A``: the app's own :class:`app.widgets.heatmap.HeatmapView`, fed as
  ``app/panels/step_heatmap.py`` feeds it (``set_matrix`` with levels, map, labels, titles);
- ``B``: :class:`PaintedHeatmap`, a plain ``QWidget`` painting the same things itself;
- ``B_item``: the same painting in one ``pg.GraphicsObject`` inside a ``pg.GraphicsView``
  (pyqtgraph kept, its per-item machinery not used).

Two steps, each at the default input (10 tokens) and at T = 512: ``features`` (``resid_mlp``,
T x 16, the diverging CET-D1 map, numbered columns) and ``attention`` (``attn_probs`` of head
0, T x T, the sequential map, token labels on both axes: the step the app opens on).

Per widget, back to back in one process, the same sequence of matrices, interleaved:

- ``edit``: the next trace's matrix and labels set (the last token differs, as a classroom
  edit), then Qt delivers what that posted and paints, once (``paints/edit`` counts it), as
  an edit reaches the screen in the app. (``set_matrix`` then ``repaint()`` painted a
  pyqtgraph view twice: its scene's queued update painted it again afterwards.)
- ``repaint``: a synchronous paint with nothing changed: ``repaint()`` of B, of a view's
  viewport for A and B_item. ``QWidget.repaint()`` of a QGraphicsView, or of any window
  around it, paints none of the scene's items (Qt 6.11, offscreen and xcb alike).

Then, unless ``--no-window``, the app's window at its default size, in the same process:
``edit`` (gui_bench.py's default edit); the window painted again with nothing recomputed
three ways: ``window`` (``QWidget.repaint()``, as ``gui_floor.py --app`` times the issue's
denominator: it paints none of the plots), ``plots`` (every visible plot) and
``window_and_plots`` (all of it in one pass); and ``edit_no_redraw``, the edit with every
panel's ``redraw`` a no-op (what no way of drawing the panels can take off).

Medians and p95 in ms, and edit / repaint per widget. The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Sequence

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QImage,
    QPainter,
    QPen,
    QStaticText,
    QTransform,
)
from PySide6.QtWidgets import QAbstractScrollArea, QWidget

import engine
from app import palettes
from app.__main__ import build_app
from app.compute import _embed_cache, short_token, symmetric_levels
from app.widgets.heatmap import (
    HeatmapView,
    _ticks,
    display_array,
    index_ticks,
    premultiplied_table,
)

#: The Step heatmap dock's HeatmapView at the default window (1600 x 1000), default layout.
DEFAULT_SIZE = (659, 243)
#: The token texts: the last one changes with every edit, alternately English and Chinese.
BASE_TOKENS = ("我", "爱", "北", "京", "天", "安", "门", "the", "cat")
LONG_CYCLE = ("我", "爱", "北", "京", "天", "安", "门", "the", "cat", "sat", "on", "mat")
WARM_UP = 5


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def token_sets(n_tokens: int, count: int) -> list[tuple[str, ...]]:
    """``count`` token sequences of ``n_tokens`` whose last token differs."""
    if n_tokens <= len(BASE_TOKENS) + 1:
        base = BASE_TOKENS[:n_tokens - 1]
    else:
        base = tuple(LONG_CYCLE[i % len(LONG_CYCLE)] for i in range(n_tokens - 1))
    return [(*base, f"sat{k}" if k % 2 else f"猫{k}") for k in range(count)]


def traces(n_tokens: int, count: int) -> list[tuple[tuple[str, ...], engine.LayerTrace]]:
    """Real layer traces of the toy config (as app/compute.py runs it), one per token set."""
    weights = engine.LayerWeights.random(engine.TOY_CONFIG, 0)
    out, previous = [], None
    for tokens in token_sets(n_tokens, count):
        x = _embed_cache.embed(tokens, engine.TOY_CONFIG.hidden_size)
        previous = engine.run_layer(x, weights, engine.TOY_CONFIG, reuse=previous)
        out.append((tokens, previous))
    return out


class Frame:
    """What one edit shows: the matrix and everything ``set_matrix`` is given."""

    def __init__(self, matrix: np.ndarray, levels: tuple[float, float], map_name: str,
                 rows: list[str], cols: list[str] | None, x_title: str) -> None:
        self.matrix, self.levels, self.map_name = matrix, levels, map_name
        self.rows, self.cols, self.x_title = rows, cols, x_title


def frames(case: str, n_tokens: int, count: int) -> list[Frame]:
    """The frames of ``count`` edits, as the step heatmap panel would be given them."""
    out = []
    for tokens, trace in traces(n_tokens, count):
        labels = [f"{i} {short_token(t)}" for i, t in enumerate(tokens)]
        if case == "features":
            matrix = trace["resid_mlp"]
            out.append(Frame(matrix, symmetric_levels(matrix), palettes.map_for("signed"),
                             labels, None, "feature"))
        else:
            matrix = trace["attn_probs"][0]
            out.append(Frame(matrix, (0.0, 1.0), palettes.map_for("probability"), labels,
                             labels, "key token"))
    return out


# ----- B: a heatmap that paints itself -----------------------------------------------------

def nice_ticks(low: float, high: float, most: int = 5) -> list[float]:
    """Round values from ``low`` to ``high``, at most ``most`` of them (1, 2 or 5 times a power
    of 10 apart): the colour bar's ticks."""
    span = high - low
    if not span > 0:
        return [low]
    raw = span / most
    power = 10.0 ** np.floor(np.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = np.ceil(low / step) * step
    return [float(v) for v in np.arange(first, high + step * 1e-9, step)]


#: Nice strides of numbered columns (HeatmapView's: 1, 2, 5, 10, ...).
_STRIDES = tuple(m * 10 ** e for e in range(6) for m in (1, 2, 5))
#: pyqtgraph's tick length and HeatmapView's text offset (px).
TICK, GAP = 5.0, 2.0


class PaintedHeatmap:
    """Everything the heatmap shows, laid out in pixels and painted with a few QPainter calls.

    Apart from any widget, so that a ``QWidget`` and a ``pg.GraphicsObject`` paint it alike.
    An edit computes the pixels of the rows whose values changed (numpy: one table lookup per
    cell, into a buffer a QImage wraps) and, when labels, levels or the size changed, the label
    positions and tick lines; a paint is one scaled ``drawImage`` for the matrix, one for the
    colour bar, one ``drawLines`` and one ``drawStaticText`` per shown label. Each label text
    is a QStaticText made once (its glyphs laid out once), as long as the process lives."""

    def __init__(self, font: QFont, margins: dict[str, float]) -> None:
        self.font = font
        self.metrics = QFontMetricsF(font)
        self.margins = margins
        self.size = (1, 1)
        self.pen = QPen(QColor("black"))
        self.pen.setCosmetic(True)
        self.background = QColor("white")
        self.masked = QColor("#c8c8c8")  # HeatmapView's masked-cell grey, light theme
        self._map = ""
        self._table = np.zeros(1, np.uint32)
        self._bar_pixels = np.zeros((1, 1), np.uint32)
        self._bar_image = QImage()
        self._data: np.ndarray | None = None
        self._pixels = np.zeros((1, 1), np.uint32)
        self._image = QImage()
        self._levels = (0.0, 1.0)
        self._rows: tuple[str, ...] = ()
        self._cols: tuple[str, ...] = ()
        self._titles = ("", "")
        self._static: dict[str, QStaticText] = {}
        self._widths: dict[str, float] = {}
        self._texts: list[tuple[QPointF, QStaticText]] = []
        self._turned: list[tuple[QPointF, QStaticText]] = []  # the y title, drawn turned
        self._lines: list[QLineF] = []
        self._layout_key: tuple = ()

    # -- data
    def set_matrix(self, array: np.ndarray, levels: tuple[float, float], map_name: str,
                   row_labels: Sequence[str], col_labels: Sequence[str] | None = None, *,
                   x_title: str = "", y_title: str = "") -> None:
        data = display_array(array)  # the app's float32 display copy, NaN where masked
        if map_name != self._map:
            self._map = map_name
            self._table = premultiplied_table(palettes.lut(map_name))
            # the colour bar: the table from high (top) to low, one pixel wide
            self._bar_pixels = np.ascontiguousarray(self._table[:-1][::-1].reshape(-1, 1))
            self._bar_image = QImage(self._bar_pixels.data, 1, len(self._bar_pixels), 4,
                                     QImage.Format.Format_ARGB32_Premultiplied)
            self._data = None
        low, high = float(levels[0]), float(levels[1])
        last = self._data
        if last is not None and last.shape == data.shape and (low, high) == self._levels:
            # only rows whose values changed bits get new pixels (an edit of the last token
            # changes the last row of attention, every row of a feature step after it)
            changed = np.flatnonzero((data.view(np.uint32) != last.view(np.uint32)).any(axis=1))
            if changed.size:
                self._pixels[changed] = self._pixels_of(data[changed], low, high)
        else:
            self._pixels = np.ascontiguousarray(self._pixels_of(data, low, high))
            h, w = self._pixels.shape
            # wraps the numpy buffer without a copy: rows changed in place show at the next
            # paint
            self._image = QImage(self._pixels.data, w, h, 4 * w,
                                 QImage.Format.Format_ARGB32_Premultiplied)
        self._data, self._levels = data, (low, high)
        self._rows = tuple(row_labels)
        self._cols = tuple(col_labels) if col_labels is not None else ()
        self._titles = (x_title, y_title)
        self.layout()

    def _pixels_of(self, image: np.ndarray, low: float, high: float) -> np.ndarray:
        """Premultiplied ARGB32 pixels: pyqtgraph's float32 rescale to 0 … n − 1, truncated to
        a table index, NaN to the table's transparent last entry (as FastImageItem)."""
        n = len(self._table) - 1
        scaled = (image - np.float32(low)) * np.float32(n / (high - low or 1.0))
        np.clip(scaled, 0, n - 1, out=scaled)
        scaled[np.isnan(scaled)] = n
        return self._table[scaled.astype(np.intp)]

    # -- layout
    def resize(self, width: int, height: int) -> None:
        self.size = (width, height)
        self.layout()

    def plot_rect(self) -> QRectF:
        m, (w, h) = self.margins, self.size
        return QRectF(m["left"], m["top"], w - m["left"] - m["right"],
                      h - m["top"] - m["bottom"])

    def bar_rect(self) -> QRectF:
        m, (w, h) = self.margins, self.size
        return QRectF(w - m["bar_right"] - m["bar_width"], m["bar_top"], m["bar_width"],
                      h - m["bar_top"] - m["bar_bottom"])

    def static(self, text: str) -> QStaticText:
        """The label ``text`` laid out once in the font."""
        st = self._static.get(text)
        if st is None:
            st = QStaticText(text)
            st.setTextFormat(Qt.TextFormat.PlainText)
            st.prepare(QTransform(), self.font)
            self._static[text] = st
            self._widths[text] = st.size().width()
        return st

    def _stride(self, labels: tuple[str, ...], length: float, across: bool) -> int:
        """Every how-many-th label fits without overlapping the next (HeatmapView's rule)."""
        if not labels or length <= 0:
            return 1
        if across:
            widths = self._widths
            for text in labels:
                if text not in widths:
                    self.static(text)
            needed = max(widths[t] for t in labels) + 2 * self.metrics.horizontalAdvance(" ")
        else:
            needed = self.metrics.height()
        return max(1, int(np.ceil(needed / (length / len(labels)))))

    def layout(self) -> None:
        """Label positions and tick lines, again only when something they depend on changed."""
        if self._data is None:
            return
        key = (self.size, self._rows, self._cols, self._levels, self._titles, self._data.shape)
        if key == self._layout_key:
            return
        self._layout_key = key
        plot, bar = self.plot_rect(), self.bar_rect()
        n_rows, n_cols = self._data.shape
        cell_h, cell_w = plot.height() / n_rows, plot.width() / n_cols
        texts = []
        lines = [QLineF(plot.topLeft(), plot.bottomLeft()),
                 QLineF(plot.bottomLeft(), plot.bottomRight())]
        for value, text in _ticks(self._rows,
                                  self._stride(self._rows, plot.height(), False))[0]:
            y = plot.top() + value * cell_h
            lines.append(QLineF(plot.left() - TICK, y, plot.left(), y))
            st = self.static(text)
            texts.append((QPointF(plot.left() - TICK - GAP - self._widths[text],
                                  y - st.size().height() / 2), st))
        if self._cols:
            col_ticks = _ticks(self._cols, self._stride(self._cols, plot.width(), True))
        else:
            widest = self.metrics.horizontalAdvance(str(n_cols - 1)) \
                + 2 * self.metrics.horizontalAdvance(" ")
            stride = next((k for k in _STRIDES if k * cell_w >= widest), _STRIDES[-1])
            col_ticks = index_ticks(n_cols, stride)
        for value, text in col_ticks[0]:
            x = plot.left() + value * cell_w
            lines.append(QLineF(x, plot.bottom(), x, plot.bottom() + TICK))
            st = self.static(text)
            texts.append((QPointF(x - self._widths[text] / 2, plot.bottom() + TICK + GAP), st))
        # the colour bar: its frame, and ticks with their values on its right
        corners = [bar.topLeft(), bar.topRight(), bar.bottomRight(), bar.bottomLeft()]
        lines += [QLineF(a, b) for a, b in zip(corners, corners[1:] + corners[:1],
                                               strict=True)]
        low, high = self._levels
        for value in nice_ticks(low, high):
            y = bar.bottom() - (value - low) / (high - low or 1.0) * bar.height()
            lines.append(QLineF(bar.right(), y, bar.right() + TICK, y))
            st = self.static(f"{value:g}")
            texts.append((QPointF(bar.right() + TICK + GAP, y - st.size().height() / 2), st))
        x_title, y_title = (self.static(t) for t in self._titles)
        texts.append((QPointF(plot.center().x() - x_title.size().width() / 2,
                              self.size[1] - x_title.size().height() - 2), x_title))
        self._turned = [(QPointF(-plot.center().y() - y_title.size().width() / 2, 2), y_title)]
        self._texts, self._lines = texts, lines

    # -- paint
    def paint(self, p: QPainter) -> None:
        w, h = self.size
        p.fillRect(QRectF(0, 0, w, h), self.background)
        if self._data is None:
            return
        plot = self.plot_rect()
        p.fillRect(plot, self.masked)
        p.drawImage(plot, self._image)
        p.drawImage(self.bar_rect(), self._bar_image)
        p.setPen(self.pen)
        p.drawLines(self._lines)
        p.setFont(self.font)
        for point, st in self._texts:
            p.drawStaticText(point, st)
        p.save()
        p.rotate(-90)
        for point, st in self._turned:
            p.drawStaticText(point, st)
        p.restore()


class PaintedWidget(QWidget):
    """B: a QWidget whose paintEvent paints a :class:`PaintedHeatmap`."""

    def __init__(self, margins: dict[str, float]) -> None:
        super().__init__()
        self.model = PaintedHeatmap(self.font(), margins)
        self.paints = 0

    def set_matrix(self, *args: object, **kwargs: object) -> None:
        self.model.set_matrix(*args, **kwargs)  # type: ignore[arg-type]
        self.update()

    def resizeEvent(self, event: object) -> None:
        self.model.resize(self.width(), self.height())

    def paintEvent(self, event: object) -> None:
        self.paints += 1
        p = QPainter(self)
        try:
            p.setRenderHint(QPainter.RenderHint.Antialiasing)  # as pyqtgraph's views
            self.model.paint(p)
        finally:
            p.end()


class PaintedItem(pg.GraphicsObject):
    """B_item's one item: a :class:`PaintedHeatmap` in scene coordinates that are pixels."""

    def __init__(self, model: PaintedHeatmap) -> None:
        super().__init__()
        self.model = model

    def boundingRect(self) -> QRectF:
        return QRectF(0, 0, *self.model.size)

    def paint(self, p: QPainter, *args: object) -> None:
        self.model.paint(p)


class PaintedView(pg.GraphicsView):
    """B_item: pyqtgraph kept (its view and scene), one item painting everything."""

    def __init__(self, margins: dict[str, float]) -> None:
        self.item: PaintedItem | None = None
        super().__init__()
        self.item = PaintedItem(PaintedHeatmap(self.font(), margins))
        self.addItem(self.item)
        self.paints = 0

    def set_matrix(self, *args: object, **kwargs: object) -> None:
        assert self.item is not None
        self.item.model.set_matrix(*args, **kwargs)  # type: ignore[arg-type]
        self.item.update()

    def resizeEvent(self, event: object) -> None:
        super().resizeEvent(event)  # (pg.GraphicsView's scene range follows the pixels)
        if self.item is not None:
            self.item.prepareGeometryChange()
            self.item.model.resize(self.width(), self.height())

    def paintEvent(self, event: object) -> None:
        self.paints += 1
        super().paintEvent(event)


class CountedHeatmapView(HeatmapView):
    """A: the app's HeatmapView as it is, its paints counted."""

    def __init__(self) -> None:
        super().__init__()
        self.paints = 0

    def paintEvent(self, event: object) -> None:
        self.paints += 1
        super().paintEvent(event)


def app_margins(view: HeatmapView) -> dict[str, float]:
    """Where HeatmapView puts its plot and colour bar, in its own pixels: B uses the same."""
    width, height = view.width(), view.height()
    plot = view.mapFromScene(view.plot.getViewBox().sceneBoundingRect()).boundingRect()
    assert view.colorbar is not None
    bar = view.mapFromScene(view.colorbar.bar.sceneBoundingRect()).boundingRect()
    return {"left": plot.left(), "top": plot.top(), "right": width - plot.right() - 1,
            "bottom": height - plot.bottom() - 1, "bar_width": bar.width(),
            "bar_right": width - bar.right() - 1, "bar_top": bar.top(),
            "bar_bottom": height - bar.bottom() - 1}


# ----- the measurement ----------------------------------------------------------------------

def paint_now(widget: QWidget) -> None:
    """A synchronous paint of everything ``widget`` shows. ``QWidget.repaint()`` of a
    QGraphicsView (or of any window around it) does not repaint its viewport, where the scene
    is drawn: none of its items paints (Qt 6.11, offscreen and xcb alike). A view is repainted
    through its viewport."""
    if isinstance(widget, QAbstractScrollArea):
        widget.viewport().repaint()
    else:
        widget.repaint()


def measure(app: object, widgets: dict[str, QWidget], shown: list[Frame]
            ) -> dict[str, dict[str, list[float]]]:
    """Edits and repaints of every widget, interleaved so that load drifts alike for all.

    An edit is timed from ``set_matrix`` until Qt delivered what it posted (two passes of
    ``processEvents``: a scene's update arrives queued and posts the viewport's paint), the
    way an edit reaches the screen in the app: one paint. A forced ``repaint()`` right after
    ``set_matrix`` painted a pyqtgraph view twice (its scene's queued update paints again)."""
    times: dict[str, dict[str, list[float]]] = {
        name: {"edit": [], "repaint": [], "paints": [], "late": []} for name in widgets}
    process = app.processEvents  # type: ignore[attr-defined]
    for k, frame in enumerate(shown):
        for name, widget in widgets.items():
            before = widget.paints  # type: ignore[attr-defined]
            start = time.perf_counter()
            widget.set_matrix(frame.matrix, frame.levels, frame.map_name,  # type: ignore
                              frame.rows, frame.cols, x_title=frame.x_title, y_title="token")
            process()
            process()
            edit_ms = (time.perf_counter() - start) * 1e3
            painted = widget.paints - before  # type: ignore[attr-defined]
            process()
            late = widget.paints - before - painted  # type: ignore[attr-defined]
            start = time.perf_counter()
            paint_now(widget)
            repaint_ms = (time.perf_counter() - start) * 1e3
            process()
            if k >= WARM_UP:
                t = times[name]
                t["edit"].append(edit_ms)
                t["repaint"].append(repaint_ms)
                t["paints"].append(float(painted))
                t["late"].append(float(late))
    return times


def summary(t: dict[str, list[float]]) -> dict[str, float]:
    row = {"edit_median": statistics.median(t["edit"]), "edit_p95": percentile(t["edit"], 95),
           "repaint_median": statistics.median(t["repaint"]),
           "repaint_p95": percentile(t["repaint"], 95),
           "paints_per_edit": statistics.median(t["paints"]),
           "late_paints": max(t["late"])}
    row["edit_over_repaint"] = row["edit_median"] / row["repaint_median"]
    return {k: round(v, 3) for k, v in row.items()}


def app_edits(app: object, window: object, texts: list[str]) -> list[float]:
    """gui_bench.py's edit: the text set, the main thread blocked in the event loop until the
    worker's result is accepted and every visible panel drew it, then Qt paints."""
    from PySide6.QtCore import QEventLoop

    times = []
    for text in texts:
        start = time.perf_counter()
        window.editor.set_text(text)  # type: ignore[attr-defined]
        while not (window.state.result is not None  # type: ignore[attr-defined]
                   and window.state.result.text == text  # type: ignore[attr-defined]
                   and window.all_panels_current()):  # type: ignore[attr-defined]
            app.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents)  # type: ignore
        app.processEvents()  # type: ignore[attr-defined]
        times.append((time.perf_counter() - start) * 1e3)
    return times


def window_figures(app: object, repeats: int) -> dict[str, float]:
    """The app's window at its default size (issue #20's numerator and denominator, in one
    process): ``edit`` is gui_bench.py's default edit; ``window``, ``plots`` and
    ``window_and_plots`` are the window painted again with nothing recomputed: ``repaint()``
    of the window, as ``gui_floor.py --app`` times it, which paints none of the plots
    (counted here), every visible plot's viewport, and both in one pass (everything the
    window shows, once); ``edit_no_redraw`` is the same edit with every panel's ``redraw`` a
    no-op: tokenizing, the worker's compute, the hand-over, the editor and status, and no
    panel drawing: what no way of drawing the panels can take off."""
    import tempfile

    os.environ.setdefault("DUALVIEW_CONFIG_DIR", tempfile.mkdtemp(prefix="dualview-trial-"))
    from app.mainwindow import MainWindow

    counted = {"views": 0}
    original = pg.GraphicsView.paintEvent

    def paint_event(view: pg.GraphicsView, event: object) -> None:
        counted["views"] += 1
        original(view, event)

    pg.GraphicsView.paintEvent = paint_event  # before the window's views exist
    window = MainWindow(persist_layout=False, initial_text=None)
    window.show()
    process = app.processEvents  # type: ignore[attr-defined]
    texts = [f"我爱北京天安门 第{k}" for k in range(2 * (WARM_UP + repeats))]  # gui_bench's
    app_edits(app, window, texts[:WARM_UP])
    edits = app_edits(app, window, texts[WARM_UP:WARM_UP + repeats])
    views = [v for v in window.findChildren(pg.GraphicsView) if v.isVisible()]

    def plots() -> None:
        for view in views:
            view.viewport().update()
        process()

    def window_and_plots() -> None:
        window.update()  # the window and every widget in it, but for the scenes
        plots()

    figures: dict[str, float] = {"visible_plots": len(views),
                                 "edit_median_ms": round(statistics.median(edits), 2),
                                 "edit_p95_ms": round(percentile(edits, 95), 2)}
    print(f"  {'edit':17s} median {statistics.median(edits):6.2f} ms  "
          f"p95 {percentile(edits, 95):6.2f} ms")
    for label, paint in (("window", window.repaint), ("plots", plots),
                         ("window_and_plots", window_and_plots)):
        times, painted = [], []
        for k in range(WARM_UP + repeats):
            before = counted["views"]
            start = time.perf_counter()
            paint()
            elapsed = (time.perf_counter() - start) * 1e3
            process()
            if k >= WARM_UP:
                times.append(elapsed)
                painted.append(counted["views"] - before)
        figures[f"{label}_median_ms"] = round(statistics.median(times), 2)
        figures[f"{label}_p95_ms"] = round(percentile(times, 95), 2)
        figures[f"{label}_plots_painted"] = statistics.median(painted)
        print(f"  {label:17s} median {statistics.median(times):6.2f} ms  "
              f"p95 {percentile(times, 95):6.2f} ms  plots painted "
              f"{statistics.median(painted):.0f} of {len(views)}")
    for panel in window.panels.values():
        panel.redraw = lambda result: None  # type: ignore[method-assign]
    rest = texts[WARM_UP + repeats:]
    app_edits(app, window, rest[:WARM_UP])
    bare = app_edits(app, window, rest[WARM_UP:])
    figures["edit_no_redraw_median_ms"] = round(statistics.median(bare), 2)
    print(f"  {'edit_no_redraw':17s} median {statistics.median(bare):6.2f} ms")
    for label in ("window", "window_and_plots"):
        figures[f"edit_over_{label}"] = round(
            figures["edit_median_ms"] / figures[f"{label}_median_ms"], 2)
        figures[f"edit_no_redraw_over_{label}"] = round(
            figures["edit_no_redraw_median_ms"] / figures[f"{label}_median_ms"], 2)
    print(f"  edit / window {figures['edit_over_window']:.2f}, / window_and_plots "
          f"{figures['edit_over_window_and_plots']:.2f}; edit_no_redraw / window "
          f"{figures['edit_no_redraw_over_window']:.2f}")
    window.close()
    window.bridge.shutdown()
    pg.GraphicsView.paintEvent = original
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="x".join(map(str, DEFAULT_SIZE)),
                        help="widget size WxH (default: the step heatmap's at 1600 x 1000)")
    parser.add_argument("--edits", type=int, default=100, help="timed edits per case, T = 10")
    parser.add_argument("--long-edits", type=int, default=40, help="timed edits at T = 512")
    parser.add_argument("--no-window", action="store_true",
                        help="skip the app window's figures (window_figures)")
    args = parser.parse_args()
    width, height = (int(v) for v in args.size.lower().split("x"))
    app = build_app(sys.argv[:1])

    a = CountedHeatmapView()
    a.resize(width, height)
    a.show()
    warm = frames("features", 10, 1)[0]
    a.set_matrix(warm.matrix, warm.levels, warm.map_name, warm.rows, warm.cols,
                 x_title=warm.x_title, y_title="token")
    app.processEvents()  # type: ignore[attr-defined]
    margins = app_margins(a)
    b, b_item = PaintedWidget(margins), PaintedView(margins)
    for widget in (b, b_item):
        widget.resize(width, height)
        widget.show()
    app.processEvents()  # type: ignore[attr-defined]
    widgets: dict[str, QWidget] = {"A": a, "B": b, "B_item": b_item}
    print(f"{width} x {height} px. A: the app's HeatmapView; B: a QWidget painting itself; "
          f"B_item: one pg.GraphicsObject painting itself. ms, median (p95)")
    figures: dict[str, object] = {"size": [width, height]}
    for case in ("features", "attention"):
        for n_tokens, count in ((10, args.edits), (512, args.long_edits)):
            shown = frames(case, n_tokens, count + WARM_UP)
            times = measure(app, widgets, shown)
            label = f"{case}_T{n_tokens}"
            rows, cols = shown[0].matrix.shape
            print(f"{label} ({rows} x {cols}, {count} edits)")
            for name, t in times.items():
                row = figures[f"{label}_{name}"] = summary(t)
                print(f"  {name:7s} edit {row['edit_median']:6.2f} ({row['edit_p95']:6.2f})  "
                      f"repaint {row['repaint_median']:5.2f} ({row['repaint_p95']:5.2f})  "
                      f"edit/repaint {row['edit_over_repaint']:5.2f}  "
                      f"paints/edit {row['paints_per_edit']:.0f} (+{row['late_paints']:.0f})")
    if not args.no_window:
        for widget in widgets.values():
            widget.hide()  # (pg.GraphicsView.close() of these crashed in PySide6 6.11)
        print("the app's window (1600 x 1000): an edit, the window painted again with nothing "
              "recomputed, an edit with no panel drawing:")
        figures["app_window"] = window_figures(app, 40)
    print(json.dumps(figures, ensure_ascii=False))


if __name__ == "__main__":
    main()
