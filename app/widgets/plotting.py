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

Both raster caches are redrawn on any change of the item (pyqtgraph calls ``update()`` after
each; an axis drops its picture) or of its device transform (range, size); SVG export and
printing (non-raster painters) always get the vectors and the text.
- :func:`settle`: ``ViewBox.setRange`` only marks the view transform dirty, and pyqtgraph
  applies it at the start of the next paint — which moves every item and so schedules a
  second full paint of the view. Applying it right after a redraw makes the first paint final.
"""

from __future__ import annotations

from collections.abc import Iterable

import pyqtgraph as pg
from pyqtgraph import debug
from PySide6.QtCore import QPoint, QRectF, Qt
from PySide6.QtGui import QColor, QPaintEngine, QPainter, QPen, QPicture, QPixmap, QTransform


def _thin_solid(pen: QPen) -> bool:
    return (pen.style() == Qt.PenStyle.SolidLine and pen.isSolid()
            and (pen.widthF() <= 1.0 if pen.isCosmetic() else pen.widthF() == 0.0))


class FastAxisItem(pg.AxisItem):
    """An AxisItem painted from a raster of its picture; grid lines as 1-pixel fills."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        self._picture_version = 0
        self._raster_key: tuple | None = None
        self._raster: QPixmap | None = None
        super().__init__(*args, **kwargs)

    @debug.warnOnException  # an exception escaping a paint() takes Qt down
    def paint(self, p: QPainter, opt: object, widget: object) -> None:
        if self.picture is None:  # pyqtgraph drops it on every change: make it as it does
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
            self.picture = picture
            self._picture_version += 1
        if not _raster_paint(self, p, self._picture_version, self.boundingRect(),
                             self.picture.play):
            self.picture.play(p)

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


def fast_axes(*names: str) -> dict[str, FastAxisItem]:
    """``axisItems`` for a PlotItem / PlotWidget: a FastAxisItem for each side named."""
    return {name: FastAxisItem(name) for name in names or ("left", "bottom")}


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


def settle(views: Iterable[pg.GraphicsView]) -> None:
    """Apply pending range and auto-range changes now, before Qt paints (see module doc)."""
    for view in views:
        scene = view.scene()
        if scene is not None:
            scene.prepareForPaint()
