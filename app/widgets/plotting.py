"""Small pyqtgraph speed helpers shared by the panels (measured with
``benchmarks/gui_bench.py`` and a per-item paint profile).

- :class:`FastAxisItem`: Qt's raster engine draws a semi-transparent aliased line pixel by
  pixel — 35 grid lines across a 400 px plot took 2.5 ms, and an axis replays its picture
  every time anything under it repaints. Filling the same pixels as a 1-pixel rectangle is
  ~20× faster and the same picture (pixel for pixel at whole-pixel positions; at some
  sub-pixel offsets a line lands one pixel over), so thin axis-aligned tick and grid lines are
  drawn that way; everything else is pyqtgraph's own drawing.
- :class:`RasterCachedCurve`: a curve that keeps its last on-screen raster as a pixmap, so a
  repaint caused by something else (the depth-time line moving over it on every animation
  frame) is a blit instead of stroking every point again. Any change to the curve (pyqtgraph
  calls ``update()`` after each) or to its device transform (range, size) draws it afresh;
  printing and SVG export (non-raster painters) always draw the vectors.
- :func:`settle`: ``ViewBox.setRange`` only marks the view transform dirty, and pyqtgraph
  applies it at the start of the next paint — which moves every item and so schedules a
  second full paint of the view. Applying it right after a redraw makes the first paint final.
"""

from __future__ import annotations

from collections.abc import Iterable

import pyqtgraph as pg
from pyqtgraph import debug
from PySide6.QtCore import QPoint, QRectF, Qt
from PySide6.QtGui import QColor, QPaintEngine, QPainter, QPen, QPixmap, QTransform


def _thin_solid(pen: QPen) -> bool:
    return (pen.style() == Qt.PenStyle.SolidLine and pen.isSolid()
            and (pen.widthF() <= 1.0 if pen.isCosmetic() else pen.widthF() == 0.0))


class FastAxisItem(pg.AxisItem):
    """An AxisItem whose thin horizontal and vertical lines (ticks, grid) are 1-pixel fills."""

    def drawPicture(self, p: QPainter, axisSpec: tuple, tickSpecs: list,
                    textSpecs: list) -> None:
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
        self._cache_key: tuple | None = None
        self._cache: QPixmap | None = None
        super().__init__(*args, **kwargs)

    def update(self, *args: object) -> None:
        self._version += 1  # pyqtgraph calls this after every change of data, pen or brush
        super().update(*args)

    @debug.warnOnException  # an exception escaping a paint() takes Qt down
    def paint(self, p: QPainter, opt: object, widget: object) -> None:
        engine = p.paintEngine()
        t = p.worldTransform()
        view = self.getViewBox()
        if (engine is None or engine.type() != QPaintEngine.Type.Raster or view is None
                or t.type().value > QTransform.TransformationType.TxScale.value
                or self.xData is None or len(self.xData) == 0):
            super().paint(p, opt, widget)
            return
        # the part that can be seen: the curve's bounds within its view box, in device pixels
        seen = self.boundingRect() & self.mapRectFromItem(view, view.rect())
        rect = t.mapRect(seen).toAlignedRect().adjusted(-1, -1, 1, 1)
        if rect.isEmpty():
            return
        dpr = p.device().devicePixelRatioF()
        # a whole-pixel move of the item reuses the picture; its sub-pixel phase must match
        key = (self._version, t.m11(), t.m22(), t.dx() - rect.x(), t.dy() - rect.y(),
               rect.width(), rect.height(), dpr, bool(p.renderHints()
                                                      & QPainter.RenderHint.Antialiasing))
        if key != self._cache_key:
            pixmap = QPixmap(round(rect.width() * dpr), round(rect.height() * dpr))
            pixmap.setDevicePixelRatio(dpr)
            pixmap.fill(Qt.GlobalColor.transparent)
            painter = QPainter(pixmap)
            painter.setRenderHints(p.renderHints())
            painter.setTransform(t * QTransform.fromTranslate(-rect.x(), -rect.y()))
            super().paint(painter, opt, widget)
            painter.end()
            self._cache_key, self._cache = key, pixmap
        p.save()
        p.resetTransform()
        p.drawPixmap(QPoint(rect.x(), rect.y()), self._cache)
        p.restore()


def settle(views: Iterable[pg.GraphicsView]) -> None:
    """Apply pending range and auto-range changes now, before Qt paints (see module doc)."""
    for view in views:
        scene = view.scene()
        if scene is not None:
            scene.prepareForPaint()
