"""The convergence plot (docs/continuous.md E13): the layer sub-stepped n = 1 … 64 times,
its distance to the flow u′ = A(u) + M(u) for Euler and a second-order scheme, on log axes,
with the real layer (n = 1) marked. The words (titles, legend, the n = 1 label) are the
panel's, set through :attr:`titles`, :attr:`layer_label` and :meth:`set_legend`.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor, QFontMetrics, QResizeEvent

from app.widgets.plotting import (
    QuietTextItem,
    fast_axes,
    fit_axis_title,
    left_bottom_only,
    log_points,
)
from engine.continuous import Convergence

EULER_COLOUR = QColor(31, 119, 180)
SECOND_COLOUR = QColor(214, 110, 20)
#: The sub-step counts the plot labels (every other one when narrow).
CONV_TICK_NS = (1, 2, 4, 8, 16, 32, 64)
#: Where the label of the real layer (n = 1) starts (log10 n).
LAYER_TEXT_X = 0.06


class ConvergencePlot(pg.PlotWidget):
    def __init__(self) -> None:
        super().__init__(axisItems=fast_axes(), enableMenu=False)  # (grid lines)
        left_bottom_only(self)
        # pyqtgraph sizes an axis for 80 % of its title's box and sets the title at the far
        # edge: a few pixels of its glyphs fell outside the plot (the y title's left, the x
        # title's bottom); this margin keeps them inside at any text size
        self.getPlotItem().layout.setContentsMargins(4, 1, 1, 4)
        #: the label beside n = 1 when it fits (else "n = 1")
        self.layer_label = "n = 1"
        self._legend_names: tuple[str, str] = ("", "")
        plot = self
        #: the x-axis title, longest first: the longest that fits is shown (retranslate)
        self.titles: tuple[str, ...] = ("n",)
        #: the y-axis title, longest first (a short plot: presentation mode at 1366 x 768)
        self.left_titles: tuple[str, ...] = ("",)
        plot.hideButtons()
        plot.setMouseEnabled(x=False, y=False)
        plot.setLogMode(x=True, y=True)
        plot.showGrid(x=True, y=True, alpha=0.25)
        # bottom left: the curves fall from n = 1 (top left), so the corner below them is
        # free as long as the entries stay short (one word each: ~n = 1…2 wide)
        self.legend = plot.addLegend(offset=(4, -4), labelTextSize="8pt", verSpacing=-6)
        self.conv_euler = pg.PlotDataItem(pen=pg.mkPen(EULER_COLOUR, width=2), symbol="o",
                                          symbolSize=6, symbolBrush=EULER_COLOUR,
                                          symbolPen=pg.mkPen("w"))
        self.conv_second = pg.PlotDataItem(pen=pg.mkPen(SECOND_COLOUR, width=2), symbol="s",
                                           symbolSize=6, symbolBrush=SECOND_COLOUR,
                                           symbolPen=pg.mkPen("w"))
        plot.addItem(self.conv_euler)
        plot.addItem(self.conv_second)
        self.layer_marker = pg.ScatterPlotItem(size=13, symbol="o", brush=pg.mkBrush(None),
                                               pen=pg.mkPen(QColor(200, 30, 30), width=2))
        plot.addItem(self.layer_marker)
        self.layer_text = QuietTextItem(anchor=(0.0, 1.0), color=(200, 30, 30))
        plot.addItem(self.layer_text, ignoreBounds=True)
        self._conv_ticks_every = 0  # 1: every doubling labelled, 2: every other (see below)
        plot.getViewBox().sigTransformChanged.connect(lambda *_args: self.fit_ticks())
        self.fit_ticks()

    def fit_ticks(self) -> None:
        """Label every doubling n = 1, 2, 4 … 64 while the labels stand apart; in a narrow
        plot (1280 x 720) "16" and "32" ran together as "1632": then every other one, 2, 8,
        32 (the axis drops a label that would stick out at its ends, as 1 and 64 there)."""
        box = self.getViewBox()
        (x0, x1), width = box.viewRange()[0], box.sceneBoundingRect().width()
        doubling = width / max(x1 - x0, 1e-9) * np.log10(2.0)  # px between n and 2n
        axis = self.getAxis("bottom")
        label = QFontMetrics(axis.style.get("tickFont") or axis.font()).horizontalAdvance("64")
        every = 1 if doubling >= 2 * label else 2
        if every != self._conv_ticks_every:
            self._conv_ticks_every = every
            self.getAxis("bottom").setTicks(
                [[(np.log10(n), str(n)) for n in CONV_TICK_NS[every - 1::every]], []])
        # the label beside n = 1 in full while it fits before the plot's right edge, else
        # only "n = 1" ("the real layer (n" was cut off; the caption below says the rest)
        full = self.layer_label
        room = width * (x1 - LAYER_TEXT_X) / max(x1 - x0, 1e-9)
        fits = QFontMetrics(self.layer_text.textItem.font()).horizontalAdvance(full) < room
        text = full if fits else "n = 1"
        if self.layer_text.textItem.toPlainText() != text:
            self.layer_text.setText(text)
        fit_axis_title(self.getPlotItem(), "bottom", self.titles)
        fit_axis_title(self.getPlotItem(), "left", self.left_titles)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if hasattr(self, "layer_text"):  # (pyqtgraph resizes it while it is being built)
            self.fit_ticks()  # (a taller text with the same range moves no view box)

    def items(self) -> tuple[pg.GraphicsObject, ...]:
        return self.conv_euler, self.conv_second, self.layer_marker, self.layer_text

    def has_data(self) -> bool:
        return self.conv_euler.xData is not None and len(self.conv_euler.xData) > 0

    def set_legend(self, euler: str, second: str) -> None:
        """Legend entries, rebuilt only when their words change."""
        if self._legend_names != (euler, second):
            self._legend_names = (euler, second)
            self.legend.clear()
            self.legend.addItem(self.conv_euler, euler)
            self.legend.addItem(self.conv_second, second)

    def clear_data(self) -> None:
        self.conv_euler.setData([], [])
        self.conv_second.setData([], [])
        self.layer_marker.setData([], [])

    def show_sweep(self, conv: Convergence) -> float:
        """Both schemes' errors against n, the range fitted (headroom above n = 1 for its
        label), the real layer marked; returns its error (n = 1)."""
        ns = np.asarray(conv.ns, dtype=np.float64)
        self.conv_euler.setData(*log_points(ns, conv.errors_euler))
        self.conv_second.setData(*log_points(ns, conv.errors_second_order))
        e1 = float(conv.errors_euler[0])
        errors = np.concatenate([conv.errors_euler, conv.errors_second_order])
        errors = errors[errors > 0]
        if errors.size:  # log10 view coordinates
            top, bottom = np.log10(errors.max()), np.log10(errors.min())
            self.setYRange(bottom - 0.15, top + 0.3 * max(top - bottom, 1.0), padding=0)
            self.setXRange(-0.05, np.log10(ns[-1]) + 0.08, padding=0)
        y1 = np.log10(e1) if e1 > 0 else 0.0
        self.layer_marker.setData([0.0], [y1])
        self.layer_text.setPos(LAYER_TEXT_X, y1)
        return e1
