"""Small pyqtgraph speed helpers shared by the panels (measured with
``benchmarks/gui_bench.py`` and a per-item paint profile).

- :class:`FastAxisItem`: an axis replays its picture (every tick label, every grid line)
  whenever anything under it repaints — its ticks and grid reach into the plot. It keeps the
  last raster of that picture instead, so a repaint is a blit. And Qt's raster engine draws a
  semi-transparent aliased line pixel by pixel (35 grid lines across a 400 px plot: 2.5 ms),
  so grid lines are drawn as the 1-pixel fills they are, ~20× faster and the same picture
  (pixel for pixel at whole-pixel positions; at some sub-pixel offsets a line lands one pixel
  over).
- :class:`RasterCachedCurve`: a curve that keeps its last on-screen raster as a pixmap, so a
  repaint caused by something else (the depth-time line moving over it on every animation
  frame) is a blit instead of stroking every point again.

- :class:`BundleCurve`: hundreds of polylines of one pen in one item (the depth panel's norm
  curve of every token). An edit of token k leaves the polylines before k as they were, so
  those stay a raster and only the rest are stroked: at T = 512 one changed curve instead of
  512 (~25 ms). Hairlines blend segment by segment, so the two layers give the same pixels.

The raster caches are redrawn on any change of the item (pyqtgraph calls ``update()`` after
each; an axis drops its picture) or of its device transform (range, size); SVG export and
printing (non-raster painters) always get the vectors and the text.
- :func:`settle`: ``ViewBox.setRange`` only marks the view transform dirty, and pyqtgraph
  applies it at the start of the next paint — which moves every item and so schedules a
  second full paint of the view. Applying it right after a redraw makes the first paint final.
- :func:`one_clip_rect`: pyqtgraph views repaint the union of what changed, a region of many
  rectangles when many items change at once (an attention graph's nodes, labels and arcs);
  Qt then clips every span of every stroke against that region. At T = 512 the arcs took
  25 ms to stroke so, 8 ms with the region's bounding rectangle as the clip.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pyqtgraph as pg
from pyqtgraph import debug
from PySide6.QtCore import QPoint, QPointF, QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetrics,
    QPaintEngine,
    QPainter,
    QPen,
    QPicture,
    QPixmap,
    QStaticText,
    QTransform,
)
from PySide6.QtWidgets import QGraphicsView

from app.theme import current_theme, text_colour_for


def _thin_solid(pen: QPen) -> bool:
    return (pen.style() == Qt.PenStyle.SolidLine and pen.isSolid()
            and (pen.widthF() <= 1.0 if pen.isCosmetic() else pen.widthF() == 0.0))


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
#: A log axis whose ticks all lie in this range shows plain decimals (0.01 … 1000).
_PLAIN_LOG_RANGE = (1e-3, 1e4)


def log_tick_strings(values: Sequence[float], scale: float = 1.0) -> list[str]:
    """Labels for a log axis's ticks (``values`` are exponents) in one notation per axis:
    plain decimals when every tick is between 0.001 and 1000, else powers of ten throughout.
    pyqtgraph picks per tick, so one axis read '0.01, 0.1, 1, 10¹, 10²'."""
    numbers = [float("%.1g" % (10.0 ** v * scale)) for v in values]
    low, high = _PLAIN_LOG_RANGE
    if all(low <= abs(x) < high for x in numbers):
        return [f"{x:g}" if x < 1e3 else f"{x:.0f}" for x in numbers]
    labels = []
    for x in numbers:
        mantissa, exponent = f"{x:.0e}".split("e")
        power = "10" + str(int(exponent)).translate(_SUPERSCRIPT)
        labels.append(power if mantissa == "1" else f"{mantissa}·{power}")
    return labels


class FastAxisItem(pg.AxisItem):
    """An AxisItem painted from a raster of its picture; grid lines as 1-pixel fills."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        self._picture_version = 0
        self._raster_key: tuple | None = None
        self._raster: QPixmap | None = None
        super().__init__(*args, **kwargs)
        # token indices, features and values read as they are: no "(x0.001)" on an axis whose
        # range is ±0.6 (a one-token sentence's token axis). Off, setRange also drops the
        # picture of the old range itself (see _updateLabel)
        self.enableAutoSIPrefix(False)

    @debug.warnOnException  # an exception escaping a paint() takes Qt down
    def paint(self, p: QPainter, opt: object, widget: object) -> None:
        if self.picture is None:  # pyqtgraph drops it on every change: make it as it does
            self.picture = self.make_picture()
            self._picture_version += 1
        if not _raster_paint(self, p, self._picture_version, self.boundingRect(),
                             self.picture.play):
            self.picture.play(p)

    def make_picture(self) -> QPicture:
        """The axis as pyqtgraph records it; a subclass may return anything with ``play``."""
        picture = QPicture()
        painter = QPainter(picture)
        try:
            if self.style["tickFont"]:
                painter.setFont(self.style["tickFont"])
            specs = self.generateDrawSpecs(painter)
            if specs is not None:
                self.drawPicture(painter, *specs)
        finally:
            painter.end()
        return picture

    def logTickStrings(self, values: list[float], scale: float,
                       spacing: float) -> list[str]:
        return log_tick_strings(values, scale)

    # Restyling (font scale, presentation mode, theme) sets fonts, widths and labels again after
    # every redraw; pyqtgraph regenerates the axis picture on each call, even for equal values.
    def setTickFont(self, font: QFont) -> None:
        if self.style["tickFont"] is not None and QFont(font) == self.style["tickFont"]:
            return
        super().setTickFont(font)

    def setWidth(self, w: int | None = None) -> None:
        if w is not None and w == self.fixedWidth:
            return
        super().setWidth(w)

    def setHeight(self, h: int | None = None) -> None:
        if h is not None and h == self.fixedHeight:
            return
        super().setHeight(h)

    def _updateLabel(self) -> None:
        html = self.labelString()
        if html == getattr(self, "_label_html", None):
            # (restyling calls this after every redraw; with the automatic SI prefix on,
            # setRange relies on it to drop the old range's picture: that prefix is off here)
            return
        self._label_html = html
        super()._updateLabel()

    def drawPicture(self, p: QPainter, axisSpec: tuple, tickSpecs: list,
                    textSpecs: list) -> None:
        if self.grid is False:  # short ticks only: pyqtgraph's lines are as fast
            super().drawPicture(p, axisSpec, tickSpecs, textSpecs)
            return
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        pen, p1, p2 = axisSpec
        p.setPen(pen)
        p.drawLine(p1, p2)
        # in pyqtgraph's order (so overlaps blend the same); runs of fills of one colour are
        # one drawRects call
        run: list[QRectF] = []
        colour = None
        for pen, p1, p2 in tickSpecs:
            if _thin_solid(pen) and (p1.x() == p2.x() or p1.y() == p2.y()):
                if pen.color() != colour and run:
                    _fill(p, run, colour)
                    run = []
                colour = pen.color()
                # an aliased 1-px line covers pixels floor(start) … floor(end); an aliased
                # fill rounds its edges, so the rectangle starts half a pixel early
                x0, x1 = sorted((p1.x(), p2.x()))
                y0, y1 = sorted((p1.y(), p2.y()))
                run.append(QRectF(x0 - 0.5, y0 - 0.5, x1 - x0 + 1.0, y1 - y0 + 1.0))
            else:
                if run:
                    _fill(p, run, colour)
                    run = []
                p.setPen(pen)
                p.drawLine(p1, p2)
        if run:
            _fill(p, run, colour)
        # the tick labels, as pyqtgraph draws them (its axis line and ticks are drawn above)
        super().drawPicture(p, (QPen(Qt.PenStyle.NoPen), axisSpec[1], axisSpec[2]), [],
                            textSpecs)


def _fill(p: QPainter, rects: list[QRectF], colour: QColor) -> None:
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(colour)
    p.drawRects(rects)
    p.setBrush(Qt.BrushStyle.NoBrush)


def fast_axes() -> dict[str, FastAxisItem]:
    """``axisItems`` for a PlotItem / PlotWidget: a FastAxisItem on every side (the hidden
    ones too: restyling visits them after every redraw). pyqtgraph shows every axis it is
    given: call :func:`left_bottom_only` on the plot afterwards."""
    return {name: FastAxisItem(name) for name in ("left", "bottom", "right", "top")}


def shows_points(curve: pg.PlotCurveItem, xs: object, ys: object) -> bool:
    """The curve already holds exactly these points."""
    old_x, old_y = curve.getData()
    return (old_x is not None and old_y is not None and np.array_equal(old_x, xs)
            and np.array_equal(old_y, ys))


def set_points(curve: pg.PlotCurveItem, xs: object, ys: object) -> None:
    """``curve.setData(x=xs, y=ys)`` unless it holds exactly these points: setData rebuilds
    the path and the bounds and repaints the view, and many curves stay put from edit to edit
    (arcs whose weight bucket did not change, the causality outlines, the depth curves)."""
    if not shows_points(curve, xs, ys):
        curve.setData(x=xs, y=ys)


def fit_axis_title(plot: pg.PlotItem, side: str, titles: Sequence[str]) -> None:
    """Title the ``side`` axis with the first of ``titles`` (longest first) that fits along
    it, else the last: pyqtgraph centres a title and cuts off whatever is longer than the
    axis ("sub-steps n (Δt = 1/r" at 1366 x 768)."""
    axis = plot.getAxis(side)
    rect = axis.sceneBoundingRect()
    room = rect.width() if side in ("bottom", "top") else rect.height()
    # the title is drawn at its label style's size (presentation mode sets it there, not in
    # the item's font): measured in the item's font, a title 30 % too long was let through
    font = QFont(axis.label.font())
    size = str(axis.labelStyle.get("font-size", ""))
    if size.endswith("pt"):
        font.setPointSizeF(float(size[:-2]))
    elif size.endswith("px"):
        font.setPixelSize(round(float(size[:-2])))
    metrics = QFontMetrics(font)
    # a little margin: the title's text item has a document margin on each side
    title = next((t for t in titles if metrics.horizontalAdvance(t) + 12 <= room), titles[-1])
    if axis.labelText != title:
        plot.setLabel(side, title)
        # pyqtgraph centres the title only when the axis resizes: a shorter title at the same
        # axis size kept the longer one's left edge, and ran past the plot's right edge
        axis.resizeEvent()


def set_title(plot: pg.PlotItem | pg.PlotWidget, title: str, **style: object) -> None:
    """``plot.setTitle(title, **style)``, without a layout pass when only the words change:
    pyqtgraph's LabelItem.setText sets the title's minimum size and has the plot laid out
    again (~0.5 ms per edit for the depth panel's "bold: token k" title). A title in the
    style the label has, whose text fits in the label's box, is put in as pyqtgraph puts it
    (the same HTML, centred as its resizeEvent centres it); anything else is pyqtgraph's."""
    plot = getattr(plot, "plotItem", plot)
    label = plot.titleLabel
    if (not label.isVisible() or label.opts.get("justify") != "center"
            or any(label.opts.get(k) != v for k, v in style.items())):
        plot.setTitle(title, **style)
        return
    label.item.setHtml(_title_html(label, title))
    bounds, rect = label.itemRect(), label.rect()
    if bounds.width() > rect.width() or bounds.height() > rect.height():
        # it needs a larger box: a layout pass (setTitle sets the new HTML itself, so the old
        # one is not kept to put back: toHtml() cost ~0.1 ms of every edit)
        plot.setTitle(title, **style)
        return
    label.text = title
    label.item.setPos(0, 0)
    bounds = label.itemRect()
    bounds.moveCenter(rect.center())
    label.item.setPos(bounds.topLeft() - label.itemRect().topLeft())


def _title_html(label: pg.LabelItem, text: str) -> str:
    """The HTML pyqtgraph's ``LabelItem.setText`` gives its text item."""
    opts = label.opts
    colour = opts["color"] if opts["color"] is not None else pg.getConfigOption("foreground")
    styles = ["color: " + pg.mkColor(colour).name(QColor.NameFormat.HexArgb)]
    if "family" in opts:
        styles.append("font-family: " + opts["family"])
    if "size" in opts:
        styles.append("font-size: " + opts["size"])
    if opts.get("bold") in (True, False):
        styles.append("font-weight: " + ("bold" if opts["bold"] else "normal"))
    if opts.get("italic") in (True, False):
        styles.append("font-style: " + ("italic" if opts["italic"] else "normal"))
    return f"<span style='{'; '.join(styles)}'>{text}</span>"


def log_points(xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The points a log-scale plot can draw: an error of exactly 0 (a session's layer that
    barely moves its input) has no logarithm, and all-NaN points made pyqtgraph warn on
    stderr at every paint."""
    ys = np.asarray(ys, dtype=np.float64)
    keep = np.isfinite(ys) & (ys > 0)
    return np.asarray(xs)[keep], ys[keep]


def plain_numbers(plot: pg.PlotItem | pg.PlotWidget) -> None:
    """Tick numbers as they are on every axis: pyqtgraph's automatic SI prefix put
    "(x0.001)" on a one-token sentence's token axis (range ±0.6)."""
    for side in ("left", "bottom", "right", "top"):
        plot.getAxis(side).enableAutoSIPrefix(False)


def left_bottom_only(plot: pg.PlotItem | pg.PlotWidget) -> None:
    """Hide the top and right axes again, as a plot has them by default."""
    plot.hideAxis("top")
    plot.hideAxis("right")


class QuietTextItem(pg.TextItem):
    """A TextItem that ignores being given the font it already has (restyling does that after
    every redraw, and each time the text was laid out again)."""

    def setFont(self, font: QFont) -> None:
        if QFont(font) == self.textItem.font():
            return
        super().setFont(font)


class RasterCachedCurve(pg.PlotCurveItem):
    """A PlotCurveItem painted from a pixmap of its last raster paint (see module doc)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        self._version = 0
        self._raster_key: tuple | None = None
        self._raster: QPixmap | None = None
        super().__init__(*args, **kwargs)

    def update(self, *args: object) -> None:
        self._version += 1  # pyqtgraph calls this after every change of data, pen or brush
        super().update(*args)

    @debug.warnOnException  # an exception escaping a paint() takes Qt down
    def paint(self, p: QPainter, opt: object, widget: object) -> None:
        view = self.getViewBox()
        if view is None or self.xData is None or len(self.xData) == 0:
            super().paint(p, opt, widget)
            return
        # the part that can be seen: the curve's bounds within its view box
        seen = self.boundingRect() & self.mapRectFromItem(view, view.rect())
        if not _raster_paint(self, p, self._version, seen,
                             lambda painter: super(RasterCachedCurve, self).paint(
                                 painter, opt, widget)):
            super().paint(p, opt, widget)


class BundleCurve(pg.PlotCurveItem):
    """Equal-length polylines (``connect`` False at each one's last point) drawn as a cached
    raster of the leading ones that did not change plus the rest stroked directly."""

    #: Rebuild the raster when this many more leading polylines could be in it.
    RESPLIT = 32

    def __init__(self, *args: object, **kwargs: object) -> None:
        self._points = 0  # points per polyline
        self._unchanged = 0  # leading polylines the last setData left as they were
        self._layer_n = 0  # polylines in the raster (0: none)
        self._layer_key: tuple | None = None
        self._layer: QPixmap | None = None
        self._rest: tuple[int, object] | None = None  # (first polyline, path of the rest)
        super().__init__(*args, **kwargs)

    def setData(self, *args: object, **kwargs: object) -> None:
        old_x, old_y, old_points = self.xData, self.yData, self._points
        super().setData(*args, **kwargs)
        x, y, connect = self.xData, self.yData, self.opts["connect"]
        self._rest = None
        ends = np.flatnonzero(~connect) if isinstance(connect, np.ndarray) else np.zeros(0)
        points = int(ends[0]) + 1 if ends.size else 0
        if points < 2 or x is None or len(x) % points:
            self._points = self._unchanged = self._layer_n = 0
            return
        self._points = points
        n = len(x) // points
        unchanged = 0
        if old_points == points and old_x is not None and len(old_x) >= points:
            common = min(n, len(old_x) // points) * points
            same = ((old_x[:common] == x[:common]) & (old_y[:common] == y[:common])
                    ).reshape(-1, points).all(axis=1)
            unchanged = int(np.argmin(same)) if not same.all() else len(same)
        self._unchanged = unchanged
        if self._layer_n > unchanged:
            self._layer_n = 0  # the raster holds a polyline that changed

    @debug.warnOnException  # an exception escaping a paint() takes Qt down
    def paint(self, p: QPainter, opt: object, widget: object) -> None:
        engine = p.paintEngine()
        t = p.worldTransform()
        view = self.getViewBox()
        pen = self.opts["pen"]
        if (not self._points or view is None or engine is None
                or engine.type() != QPaintEngine.Type.Raster
                or t.type().value > QTransform.TransformationType.TxScale.value
                or self.opts["fillLevel"] is not None or self.opts["shadowPen"] is not None):
            super().paint(p, opt, widget)
            return
        n = len(self.xData) // self._points
        rect = t.mapRect(self.mapRectFromItem(view, view.rect())).toAlignedRect()
        dpr = p.device().devicePixelRatioF()
        aa = bool(self.opts["antialias"])
        key = (t.m11(), t.m22(), t.dx() - rect.x(), t.dy() - rect.y(), rect.width(),
               rect.height(), dpr, aa, pen.color().rgba(), pen.widthF(), pen.style())
        if key != self._layer_key:
            self._layer_n = 0
        if self._layer_n == 0 or self._unchanged - self._layer_n > self.RESPLIT:
            # (re)build the raster of the leading polylines that did not change
            self._layer_n = 0
            lead = min(self._unchanged, n)
            if lead > self.RESPLIT:
                pixmap = QPixmap(round(rect.width() * dpr), round(rect.height() * dpr))
                pixmap.setDevicePixelRatio(dpr)
                pixmap.fill(Qt.GlobalColor.transparent)
                painter = QPainter(pixmap)
                try:
                    painter.setRenderHint(QPainter.RenderHint.Antialiasing, aa)
                    painter.setTransform(t * QTransform.fromTranslate(-rect.x(), -rect.y()))
                    painter.setPen(pen)
                    painter.drawPath(self._subpath(0, lead))
                finally:
                    painter.end()
                self._layer, self._layer_n, self._layer_key = pixmap, lead, key
                self._rest = None
        if self._layer_n:
            p.save()
            p.resetTransform()
            p.drawPixmap(QPoint(rect.x(), rect.y()), self._layer)
            p.restore()
        if self._rest is None or self._rest[0] != self._layer_n:
            self._rest = (self._layer_n, self._subpath(self._layer_n, n))
        p.setRenderHint(QPainter.RenderHint.Antialiasing, aa)
        p.setPen(pen)
        p.drawPath(self._rest[1])

    def _subpath(self, first: int, stop: int) -> object:
        a, b = first * self._points, stop * self._points
        return pg.arrayToQPath(self.xData[a:b], self.yData[a:b],
                               connect=self.opts["connect"][a:b])


def _raster_paint(item: object, p: QPainter, version: int, rect_item: QRectF,
                  draw: object) -> bool:
    """Paint ``item`` from its raster of ``draw`` over ``rect_item`` (item coordinates). The
    raster is made the second time the item is painted with the same ``version`` and device
    transform: a picture that changes on every edit (a token axis, the edited token's curve) is
    drawn once, directly, and never pays for a pixmap. False: the caller draws directly (also
    for non-raster or rotated painters)."""
    engine = p.paintEngine()
    t = p.worldTransform()
    if (engine is None or engine.type() != QPaintEngine.Type.Raster
            or t.type().value > QTransform.TransformationType.TxScale.value):
        return False
    rect = t.mapRect(rect_item).toAlignedRect().adjusted(-1, -1, 1, 1)
    if rect.isEmpty():
        return True
    dpr = p.device().devicePixelRatioF()
    # a whole-pixel move reuses the raster; the sub-pixel phase must match
    key = (version, t.m11(), t.m22(), t.dx() - rect.x(), t.dy() - rect.y(), rect.width(),
           rect.height(), dpr, int(p.renderHints().value), p.font().key())
    if key != item._raster_key:
        if key != getattr(item, "_raster_pending", None):
            item._raster_pending = key  # first paint of this picture: draw it directly
            return False
        pixmap = QPixmap(round(rect.width() * dpr), round(rect.height() * dpr))
        pixmap.setDevicePixelRatio(dpr)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        try:
            painter.setRenderHints(p.renderHints())
            painter.setFont(p.font())
            painter.setTransform(t * QTransform.fromTranslate(-rect.x(), -rect.y()))
            draw(painter)
        finally:
            painter.end()
        item._raster_key, item._raster = key, pixmap
    p.save()
    p.resetTransform()
    p.drawPixmap(QPoint(rect.x(), rect.y()), item._raster)
    p.restore()
    return True


def one_clip_rect(view: pg.GraphicsView) -> None:
    """Repaint the bounding rectangle of what changed instead of the exact region."""
    view.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.BoundingRectViewportUpdate)


def settle(views: Iterable[pg.GraphicsView]) -> None:
    """Apply pending range and auto-range changes now, before Qt paints (see module doc)."""
    for view in views:
        scene = view.scene()
        if scene is not None:
            scene.prepareForPaint()


class TokenLabelsItem(pg.GraphicsObject):
    """Many short text labels at view positions, drawn in one ``paint`` with cached
    ``QStaticText`` lines. Each label looks like a :class:`pg.TextItem` of the same font and
    colour (4 px document margin, lines centred, an anchor into the box, optionally turned 90°
    counter-clockwise), but a label whose text changes costs a dictionary lookup instead of
    a QTextDocument layout and a graphics item of its own (the attention graph's labels carry
    the weights: nine documents laid out per edit took ~2.5 ms).

    The colours are the panel's, for a white background; in the dark theme they get the same
    lightness mirroring :func:`app.theme.adapt_text_colours` gives TextItems."""

    MARGIN = 4.0  # QTextDocument's default documentMargin, as a TextItem has

    def __init__(self) -> None:
        super().__init__()
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self._font = QFont()
        #: line text -> its static text, width and height (a CJK line is a pixel taller: the
        #: fallback font's metrics, as in a QTextDocument)
        self._static: dict[str, tuple[QStaticText, float, float]] = {}
        #: (x, y, text, rgb, rotated) per label, in view coordinates
        self._labels: list[tuple[float, float, str, tuple[int, int, int], bool]] = []
        self._anchor_upright = (0.5, 0.0)
        self._anchor_rotated = (1.0, 0.5)
        self._rect = QRectF()

    def setFont(self, font: QFont) -> None:
        if QFont(font) == self._font:
            return
        self._font = QFont(font)
        self._static.clear()
        self.update()

    def font(self) -> QFont:
        return QFont(self._font)

    def set_labels(self, labels: list[tuple[float, float, str, tuple[int, int, int], bool]],
                   rect: QRectF) -> None:
        """Show these labels; ``rect`` (view coordinates) holds them all."""
        if rect != self._rect:
            self.prepareGeometryChange()
            self._rect = QRectF(rect)
        if labels != self._labels:
            self._labels = list(labels)
            self.update()

    def texts(self) -> list[str]:
        return [label[2] for label in self._labels]

    def _line(self, text: str) -> tuple[QStaticText, float, float]:
        cached = self._static.get(text)
        if cached is None:
            if len(self._static) > 4096:  # long sessions: forget old weights' texts
                self._static.clear()
            static = QStaticText(text)
            static.setTextFormat(Qt.TextFormat.PlainText)
            static.prepare(QTransform(), self._font)
            size = static.size()
            cached = (static, size.width(), size.height())
            self._static[text] = cached
        return cached

    def box(self, text: str, rotated: bool = False) -> tuple[float, float]:
        """Width and height in pixels of a label's box (upright; margins included), as
        ``TextItem.textItem.boundingRect()`` gives them."""
        lines = [self._line(line) for line in text.split("\n")]
        width = max(w for _s, w, _h in lines)
        return width + 2 * self.MARGIN, sum(h for _s, _w, h in lines) + 2 * self.MARGIN

    def boundingRect(self) -> QRectF:
        return QRectF(self._rect)

    @debug.warnOnException  # an exception escaping a paint() takes Qt down
    def paint(self, p: QPainter, opt: object, widget: object) -> None:
        if not self._labels:
            return
        theme = current_theme()
        to_device = p.transform()
        p.save()
        try:
            p.resetTransform()  # labels are pixel-sized, like a TextItem's
            p.setFont(self._font)
            pens: dict[tuple[int, int, int], QColor] = {}
            for x, y, text, rgb, rotated in self._labels:
                colour = pens.get(rgb)
                if colour is None:
                    colour = text_colour_for(QColor(*rgb), theme)
                    pens[rgb] = colour
                lines = [self._line(line) for line in text.split("\n")]
                inner_w = max(width for _s, width, _h in lines)
                box_w = inner_w + 2 * self.MARGIN
                box_h = sum(height for _s, _w, height in lines) + 2 * self.MARGIN
                ax, ay = self._anchor_rotated if rotated else self._anchor_upright
                at = to_device.map(QPointF(x, y))
                p.setTransform(QTransform.fromTranslate(at.x(), at.y()))
                if rotated:
                    p.rotate(-90.0)
                p.setPen(colour)
                top = -ay * box_h + self.MARGIN
                for static, width, height in lines:
                    left = -ax * box_w + self.MARGIN + (inner_w - width) / 2
                    p.drawStaticText(QPointF(left, top), static)
                    top += height
        finally:
            p.restore()
