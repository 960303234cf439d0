"""The depth panel's plot of every token's norm ‖u(t)‖ along depth time t (docs/continuous.md:
the residual stream as a trajectory): the attention half and the MLP half shaded, the t line,
one curve per token (or one bundle for a long input) and the query token's curve in bold.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from pyqtgraph import debug
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPainter, QPen

from app import theme
from app.widgets.plotting import (
    BundleCurve,
    QuietTextItem,
    RasterCachedCurve,
    fast_axes,
    left_bottom_only,
    shows_points,
)

#: Beyond this many tokens the norm curves are one grey bundle, not a colour each.
MAX_COLOURED_CURVES = 16
ATTENTION_BRUSH = QColor(70, 130, 220, 28)
MLP_BRUSH = QColor(230, 140, 40, 28)
T_PEN = pg.mkPen(QColor(200, 30, 30), width=2)


class OpaqueCurve(RasterCachedCurve):
    """A curve whose translucent pen is stroked as its colour pre-blended over the plot's
    background: Qt's raster engine strokes an antialiased translucent pen ~2-10× slower than an
    opaque one, and on the plain (or faintly tinted) plot the colour looks the same. Where two
    curves cross, the upper one hides the lower instead of letting a fifth of it through.
    The item's pen stays the translucent one (its colour is the curve's colour); the blend
    follows the view's background (the theme) at paint time."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        self._blend_key: tuple | None = None
        self._opaque_pen: QPen | None = None
        super().__init__(*args, **kwargs)

    def stroke_pen(self) -> QPen:
        """The pen the curve is stroked with: the item's pen, opaque, blended over the
        background of the view it is in."""
        pen = self.opts["pen"]
        colour = pen.color()
        scene = self.scene()
        views = scene.views() if scene is not None else []
        if colour.alpha() == 255 or not views:
            return pen
        background = views[0].backgroundBrush().color()
        key = (colour.rgba(), pen.widthF(), pen.style(), background.rgba())
        if key != self._blend_key:
            self._blend_key = key
            opaque = QPen(pen)
            opaque.setColor(theme.blend(background, QColor(colour.rgb()), colour.alphaF()))
            self._opaque_pen = opaque
            self._version += 1  # a new background (theme): the cached raster is stale
        return self._opaque_pen

    @debug.warnOnException  # an exception escaping a paint() takes Qt down
    def paint(self, p: QPainter, opt: object, widget: object) -> None:
        pen = self.opts["pen"]
        self.opts["pen"] = self.stroke_pen()
        try:
            super().paint(p, opt, widget)
        finally:
            self.opts["pen"] = pen



class NormCurvesPlot(pg.PlotWidget):
    """‖u(t)‖ per token against t ∈ [0, 1]. ``draw(times, norms)`` for a new result,
    ``draw_query(times, curve)`` for the selected token; the words are the panel's."""

    def __init__(self) -> None:
        super().__init__(axisItems=fast_axes(), enableMenu=False)
        left_bottom_only(self)
        self._y_top: float | None = None
        self._y_max: float | None = None  # the top of the y range (fit_range)
        plot = self
        plot.hideButtons()
        plot.setMouseEnabled(x=False, y=False)
        plot.setXRange(0.0, 1.0, padding=0.02)
        plot.getAxis("bottom").setTicks([[(0.0, "0"), (0.5, "½"), (1.0, "1")],
                                         [(x / 10, "") for x in range(11)]])
        self.attn_region = pg.LinearRegionItem((0.0, 0.5), brush=ATTENTION_BRUSH, movable=False,
                                               pen=pg.mkPen(None))
        self.mlp_region = pg.LinearRegionItem((0.5, 1.0), brush=MLP_BRUSH, movable=False,
                                              pen=pg.mkPen(None))
        for region in (self.attn_region, self.mlp_region):
            region.setZValue(-10)
            plot.addItem(region)
        # mid tones: readable on the light and the dark theme
        self.attn_text = QuietTextItem(anchor=(0.5, 0.0), color=(70, 130, 220))
        self.mlp_text = QuietTextItem(anchor=(0.5, 0.0), color=(215, 120, 30))
        plot.addItem(self.attn_text, ignoreBounds=True)
        plot.addItem(self.mlp_text, ignoreBounds=True)
        # the band for them depends on the plot's height in pixels
        plot.getViewBox().sigResized.connect(self.fit_range)
        self.half_line = pg.InfiniteLine(0.5, pen=pg.mkPen((120, 120, 120),
                                                          style=Qt.PenStyle.DashLine))
        plot.addItem(self.half_line)
        self.t_line = pg.InfiniteLine(1.0, movable=True, pen=T_PEN, bounds=(0.0, 1.0),
                                      hoverPen=pg.mkPen(QColor(240, 60, 60), width=4))
        self.t_line.setZValue(20)
        plot.addItem(self.t_line)
        self.curves: list[pg.PlotCurveItem] = []
        #: draws every token's curve of a long input, keeping the unchanged ones as a raster
        self._bundle: BundleCurve | None = None
        self._one_curve = False  # the curves item draws every token (long inputs)
        # cached rasters: the t line sweeps over the curves on every animation frame
        self.query_curve = RasterCachedCurve(pen=pg.mkPen((20, 20, 20), width=3))
        self.query_curve.setZValue(10)
        plot.addItem(self.query_curve)
        self.query_dot = pg.ScatterPlotItem(size=9, brush=pg.mkBrush(200, 30, 30),
                                            pen=pg.mkPen("w"))
        self.query_dot.setZValue(21)
        plot.addItem(self.query_dot)

    def _curve_items(self, count: int) -> list[pg.PlotCurveItem]:
        """``count`` curve items on the plot, reused across results (creating items is what
        costs; an edit that keeps the token count creates none)."""
        if self.curves and self.curves[0] is self._bundle:
            self.curves = []
            self._bundle.setData([], [])  # (kept for the next long input)
        while len(self.curves) < count:
            curve = OpaqueCurve()
            self.addItem(curve)
            self.curves.append(curve)
        while len(self.curves) > count:
            self.removeItem(self.curves.pop())
        return self.curves

    def draw(self, times: np.ndarray, norms: np.ndarray) -> None:
        """One curve per token (a bundle beyond MAX_COLOURED_CURVES), the y range fitted."""
        n_tokens = norms.shape[1]
        if n_tokens <= MAX_COLOURED_CURVES:
            recolour = len(self.curves) != n_tokens or self._one_curve
            for i, curve in enumerate(self._curve_items(n_tokens)):
                if recolour:
                    curve.setPen(pg.mkPen(pg.intColor(i, hues=max(n_tokens, 6), sat=160,
                                                      alpha=200), width=1.5))
                # an edit of token k leaves the curves of tokens before k as they were
                if recolour or not shows_points(curve, times, norms[:, i]):
                    # connect="all": the item may have drawn every token (with gaps) before
                    curve.setData(times, norms[:, i], connect="all")
            self._one_curve = False
        else:  # one item for all: NaN-free, the pen lifted between tokens
            xs = np.tile(times, n_tokens)
            ys = norms.T.reshape(-1)
            if self.curves and self.curves[0] is not self._bundle:
                for item in self.curves:  # the per-token items of a short input
                    self.removeItem(item)
                self.curves = []
            if self._bundle is None:
                self._bundle = BundleCurve()
                self.addItem(self._bundle)
            curve = self._bundle
            self.curves = [curve]
            if not self._one_curve:
                curve.setPen(pg.mkPen(QColor(110, 130, 160, 90), width=1))
            if not self._one_curve or not shows_points(curve, xs, ys):
                connect = np.ones(xs.size, dtype=bool)
                connect[len(times) - 1::len(times)] = False
                curve.setData(xs, ys, connect=connect)
            self._one_curve = True
        top = float(norms.max()) if norms.size else 1.0
        if top != self._y_top:
            self._y_top = top
            self.fit_range()

    def fit_range(self, *_args: object) -> None:
        """The y range of ‖u(t)‖: the curves, and above them a band as tall as the
        "attention" / "MLP" labels, so no curve runs through them in a short plot (a fixed 15 %
        headroom let the top curve cross "MLP" at 100 px, read as "MI P")."""
        top = self._y_top
        if top is None:
            return
        view_px = self.getViewBox().height()
        label_px = self.mlp_text.boundingRect().height()
        share = min(label_px / view_px, 0.5) if view_px > 0 else 0.0  # of the range, labels
        y_max = top * 1.04 / (1.0 - share) if top > 0 else 1.0
        if self._y_max != y_max:
            self._y_max = y_max
            self.setYRange(0.0, y_max, padding=0.0)
            self.attn_text.setPos(0.25, y_max)
            self.mlp_text.setPos(0.75, y_max)

    def draw_query(self, times: np.ndarray, values: np.ndarray) -> None:
        """The selected token's curve in bold, in the theme's foreground colour."""
        if not shows_points(self.query_curve, times, values):
            self.query_curve.setData(times, values)
        colour = pg.mkColor(pg.getConfigOption("foreground"))
        if self.query_curve.opts["pen"].color() != colour:
            self.query_curve.setPen(pg.mkPen(colour, width=3))
