"""Lens: sub-stepping the Qwen3 layer converges to its flow (docs/continuous.md E13).

The worker runs, after each result, the layer with Δt = 1/n for n = 1, 2, 4, … 64 (explicit
Euler: exactly what n stacked ReZero layers with α = 1/n compute) and a second-order scheme,
and measures the distance to the flow u' = A(u) + M(u) at t = 1 (``state.convergence``). This
panel plots error against n on log-log axes with reference slopes 1 and 2, and prints the
least-squares slopes over n ≥ the chosen start (the fit range is the control). The real layer
is the n = 1 point: its distance from the flow is the caveat to "the network solves the PDE".
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from app import theme
from app.compute import (
    SWEEP_LAYER_RUNS,
    Result,
    convergence_max_tokens,
    convergence_skipped,
)
from app.engine_text import exception_text
from app.panels.lens_base import LensHeader, LensPanel, badge_tip, pick
from app.state import AppState
from app.widgets.claim_badge import ClaimBadge
from app.widgets.plotting import fast_axes, fit_axis_title, left_bottom_only, log_points
from engine.continuous import Convergence

EULER_COLOUR = (40, 90, 200)
SECOND_COLOUR = (200, 70, 30)
DEFAULT_FIT_FROM = 4
#: The key stands in the plot while it fills at most this share of the plot's height.
KEY_IN_PLOT_UP_TO = 0.6


def fitted_slope(ns: tuple[int, ...], errors: np.ndarray, n_min: int) -> float:
    """−(least-squares slope of log error against log n) over n ≥ n_min: the observed order."""
    n = np.asarray(ns, dtype=float)
    keep = (n >= n_min) & np.isfinite(errors) & (errors > 0)
    if keep.sum() < 2:
        return math.nan
    slope = np.polyfit(np.log(n[keep]), np.log(errors[keep]), 1)[0]
    return float(-slope)


class ConvergencePanel(LensPanel):
    def __init__(self, state: AppState) -> None:
        super().__init__(state)
        #: (convergence, its error) as last drawn
        self._drawn_sweep: tuple[object, object] = (self, self)
        state.convergence_changed.connect(self._on_convergence_changed)

    def build(self) -> None:
        body = QWidget()
        self.header = LensHeader([("EXACT", "E13")])

        self.fit_label = QLabel()
        self.fit_box = QComboBox()
        self.fit_box.setObjectName("fitFromBox")
        self.show_layer = QCheckBox()
        self.show_layer.setObjectName("showLayerDistance")
        # fast axes: one notation for the error decades (see log_tick_strings)
        self.plot = pg.PlotWidget(axisItems=fast_axes())
        left_bottom_only(self.plot)
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        self.plot.setLogMode(x=True, y=True)
        self.plot.showGrid(x=True, y=True, alpha=0.2)
        # bottom left, just above the reference's dotted floor: the errors fall from the top
        # left, and top right the Euler curve ran through the legend (and the distance to the
        # real layer climbs there)
        self.legend = self.plot.addLegend(offset=(8, -30), labelTextSize="8pt")
        #: the key as one line of text above a plot too short to hold it (see _place_key)
        self.key_line = QLabel()
        self.key_line.setObjectName("convergenceKey")
        self.key_line.setTextFormat(Qt.TextFormat.RichText)
        self.key_line.setWordWrap(True)
        self.key_line.hide()
        #: the x-axis title, longest first: the longest that fits is shown (_retranslate)
        self._bottom_titles: tuple[str, ...] = ("n",)
        self._left_titles: tuple[str, ...] = ("‖uₙ − u(1)‖",)
        self.plot.getViewBox().sigTransformChanged.connect(lambda *_args: self._place_key())
        self.euler_curve = pg.PlotDataItem(pen=pg.mkPen(EULER_COLOUR, width=2), symbol="o",
                                           symbolSize=7, symbolBrush=EULER_COLOUR,
                                           symbolPen=None)
        self.second_curve = pg.PlotDataItem(pen=pg.mkPen(SECOND_COLOUR, width=2), symbol="s",
                                            symbolSize=7, symbolBrush=SECOND_COLOUR,
                                            symbolPen=None)
        self.ref1 = pg.PlotDataItem(pen=pg.mkPen(EULER_COLOUR, width=1,
                                                 style=Qt.PenStyle.DashLine))
        self.ref2 = pg.PlotDataItem(pen=pg.mkPen(SECOND_COLOUR, width=1,
                                                 style=Qt.PenStyle.DashLine))
        self.layer_curve = pg.PlotDataItem(pen=pg.mkPen((120, 120, 120), width=1),
                                           symbol="t", symbolSize=6,
                                           symbolBrush=(120, 120, 120), symbolPen=None)
        self.floor = pg.InfiniteLine(angle=0, pen=pg.mkPen((150, 150, 150),
                                                            style=Qt.PenStyle.DotLine))
        self.fit_band = pg.LinearRegionItem(orientation="vertical", movable=False,
                                            brush=pg.mkBrush(255, 220, 120, 40),
                                            pen=pg.mkPen(None))
        for item in (self.fit_band, self.ref1, self.ref2, self.layer_curve, self.euler_curve,
                     self.second_curve, self.floor):
            self.plot.addItem(item)
        self.readout = QLabel()
        self.readout.setObjectName("convergenceReadout")
        self.readout.setTextFormat(Qt.TextFormat.RichText)
        self.readout.setWordWrap(True)
        self.readout.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.caveat_badge = ClaimBadge("ANALOGY")
        self.caveat = QLabel()
        self.caveat.setObjectName("convergenceCaveat")
        self.caveat.setWordWrap(True)
        theme.make_caveat(self.caveat)  # brown on light, lighter on dark

        controls = QHBoxLayout()
        controls.addWidget(self.fit_label)
        controls.addWidget(self.fit_box)
        controls.addWidget(self.show_layer)
        controls.addStretch(1)
        caveat_row = QHBoxLayout()
        caveat_row.addWidget(self.caveat_badge, 0, Qt.AlignmentFlag.AlignTop)
        caveat_row.addWidget(self.caveat, 1)
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(3)
        layout.addWidget(self.header)
        layout.addLayout(controls)
        layout.addWidget(self.key_line)
        layout.addWidget(self.plot, 1)
        layout.addWidget(self.readout)
        layout.addLayout(caveat_row)
        self.set_body(body)

        #: the fitted slopes on screen (NaN while the sweep is still running)
        self.slope_euler = math.nan
        self.slope_second = math.nan
        self.drawn_convergence: Convergence | None = None

        self.fit_box.currentIndexChanged.connect(lambda _i: self.request_redraw())
        self.show_layer.toggled.connect(lambda _on: self.request_redraw())

    @property
    def fit_from(self) -> int:
        data = self.fit_box.currentData()
        return int(data) if data is not None else DEFAULT_FIT_FROM

    def set_fit_from(self, n: int) -> None:
        index = self.fit_box.findData(n)
        if index >= 0:
            self.fit_box.setCurrentIndex(index)

    def _place_key(self) -> None:
        """The key in the plot unless it would fill more than KEY_IN_PLOT_UP_TO of its height
        (four rows reached the curves falling from the top left of a short plot, 1366 x 768);
        then it is one line of text above the plot. (Shown above, the plot is shorter, so
        the choice holds: no flip-flop.)"""
        height = self.plot.getViewBox().sceneBoundingRect().height()
        in_plot = self.legend.boundingRect().height() <= KEY_IN_PLOT_UP_TO * height
        self.legend.setVisible(in_plot)  # (no-ops when unchanged)
        self.key_line.setVisible(not in_plot)
        self._fit_titles()

    def _fit_titles(self) -> None:
        """Each axis's longest title that fits (a short plot cut "‖uₙ − u(1)‖ (log)")."""
        fit_axis_title(self.plot, "bottom", self._bottom_titles)
        fit_axis_title(self.plot, "left", self._left_titles)

    def _retranslate(self) -> None:
        st = self.state
        self.header.set_texts(
            self.tr("Convergence to the flow"),
            pick(st, "Run the layer as n sub-steps of Δt = 1/n (each x + (1/n)·F(x), a true "
                     "Euler step) and compare with the flow u' = A(u) + M(u) at t = 1: the error "
                     "halves when n doubles (slope 1). Heun's second-order scheme: slope 2.",
                 "把本层拆成 n 个 Δt = 1/n 的子步（每步 x + (1/n)·F(x)，是真正的欧拉步），"
                 "与 t = 1 时的流 u' = A(u) + M(u) 比较：n 翻倍误差减半（斜率 1）；"
                 "二阶 Heun 格式斜率为 2。"),
            [badge_tip(self, "EXACT")])
        self.fit_label.setText(self.tr("fit slopes over n ≥"))
        self.show_layer.setText(self.tr("distance to the real layer (n = 1)"))
        self.caveat_badge.setToolTip(badge_tip(self, "ANALOGY"))
        self._bottom_titles = (self.tr("sub-steps n (log)"), self.tr("sub-steps n"), "n")
        self._left_titles = (self.tr("‖uₙ − u(1)‖ (log)"), "‖uₙ − u(1)‖", self.tr("error"))
        self._fit_titles()
        self.plot.setTitle(self.tr("error at t = 1 against the number of sub-steps"), size="9pt")
        self.legend.clear()
        self.legend.addItem(self.euler_curve, self.tr("Euler (the layer, sub-stepped)"))
        self.legend.addItem(self.second_curve, self.tr("second order"))
        self.legend.addItem(self.ref1, self.tr("slope 1"))
        self.legend.addItem(self.ref2, self.tr("slope 2"))
        self.key_line.setText(" · ".join(
            f"<span style='color:rgb{colour}'><b>{mark}</b></span> {name}"
            for colour, mark, name in (
                (EULER_COLOUR, "●—", self.tr("Euler (the layer, sub-stepped)")),
                (SECOND_COLOUR, "■—", self.tr("second order")),
                (EULER_COLOUR, "- -", self.tr("slope 1")),
                (SECOND_COLOUR, "- -", self.tr("slope 2")))))

    def _fill_fit_box(self, ns: tuple[int, ...]) -> None:
        choices = [n for n in ns[:-2]]
        if [self.fit_box.itemData(i) for i in range(self.fit_box.count())] == choices:
            return
        keep = self.fit_box.currentData()
        self.fit_box.blockSignals(True)
        self.fit_box.clear()
        for n in choices:
            self.fit_box.addItem(str(n), n)
        index = self.fit_box.findData(keep if keep is not None else DEFAULT_FIT_FROM)
        self.fit_box.setCurrentIndex(index if index >= 0 else 0)
        self.fit_box.blockSignals(False)

    def _on_convergence_changed(self, _conv: Convergence | None) -> None:
        st = self.state
        result = st.result
        if (not self._dirty and self.drawn_id == (result.request_id if result else 0)
                and self._drawn_sweep == (st.convergence, st.convergence_error)):
            return  # a result's "no sweep yet" follows it: drawn with it already
        self.request_redraw()

    def redraw(self, result: Result) -> None:
        conv = self.state.convergence
        self.drawn_convergence = conv
        self._drawn_sweep = (conv, self.state.convergence_error)
        st = self.state
        if conv is None:
            for item in (self.euler_curve, self.second_curve, self.ref1, self.ref2,
                         self.layer_curve):
                item.setData([], [])
            self.slope_euler = self.slope_second = math.nan
            if convergence_skipped(result):
                limit = convergence_max_tokens(result.trace.config)  # type: ignore[union-attr]
                self.readout.setText(
                    pick(st, f"Not computed: the sweep runs the layer ~{SWEEP_LAYER_RUNS} "
                             "times, too much work for a layer this large.",
                         f"未计算：这一扫描要运行本层约 {SWEEP_LAYER_RUNS} 次，"
                         "对这么大的层计算量太大。")
                    if limit == 0 else
                    pick(st, f"Not computed: the sweep runs the layer ~{SWEEP_LAYER_RUNS} times; "
                             f"at this layer size it runs for up to {limit} tokens. Shorten the "
                             "text to see it.",
                         f"未计算：这一扫描要运行本层约 {SWEEP_LAYER_RUNS} 次；在这个层大小下"
                         f"最多支持 {limit} 个词元。缩短文本即可看到。"))
            elif st.convergence_error is not None:
                reason = exception_text(st.convergence_error)
                self.readout.setText(pick(st, f"Not computed: the sweep could not run: {reason}",
                                          f"未计算：扫描无法运行：{reason}"))
            else:
                self.readout.setText(pick(st, "Sub-stepping the layer n = 1 … 64 times on the "
                                              "worker…",
                                          "正在后台把本层拆成 n = 1 … 64 步计算……"))
            self.caveat.setText("")
            return
        self._fill_fit_box(conv.ns)
        ns = np.asarray(conv.ns, dtype=float)
        e1 = np.asarray(conv.errors_euler)
        e2 = np.asarray(conv.errors_second_order)
        self.euler_curve.setData(*log_points(ns, e1))
        self.second_curve.setData(*log_points(ns, e2))
        n_min = self.fit_from
        self.slope_euler = fitted_slope(conv.ns, e1, n_min)
        self.slope_second = fitted_slope(conv.ns, e2, n_min)
        # reference lines through each curve's last point, over the whole n range
        self.ref1.setData(*log_points(ns, e1[-1] * (ns[-1] / ns)))
        self.ref2.setData(*log_points(ns, e2[-1] * (ns[-1] / ns) ** 2))
        if self.show_layer.isChecked():
            self.layer_curve.setData(*log_points(ns[1:], np.asarray(conv.distance_to_layer)[1:]))
        else:
            self.layer_curve.setData([], [])
        self.fit_band.setRegion((math.log10(n_min) - 0.05, math.log10(ns[-1]) + 0.05))
        floor = max(conv.reference_error, 1e-300)
        self.floor.setValue(math.log10(floor))
        # only positive errors have a logarithm: a layer that barely moves its input (a
        # session's huge rms_norm_eps) gives errors of exactly 0, and log10(0) raised here
        errors = np.concatenate([e1, e2])
        errors = errors[np.isfinite(errors) & (errors > 0)]
        low = min(float(errors.min()), floor) if errors.size else floor
        high = max(float(errors.max()), low) if errors.size else low
        self.plot.setYRange(math.log10(low) - 0.3, math.log10(high) + 0.3, padding=0)
        self.plot.setXRange(math.log10(ns[0]) - 0.1, math.log10(ns[-1]) + 0.1, padding=0)
        self.plot.getAxis("bottom").setTicks([[(math.log10(n), str(n)) for n in conv.ns], []])

        ratio1 = float(conv.ratios_euler[-1])
        ratio2 = float(conv.ratios_second_order[-1])
        self.readout.setText(
            self.tr("least-squares order over n ≥ %1: Euler <b>%2</b> (expect 1), %3 <b>%4</b> "
                    "(expect 2) · last ratio when n doubles: %5 and %6 · reference flow: RK4 "
                    "with %7 steps, own error ≈ %8 (dotted line)")
            .replace("%1", str(n_min)).replace("%2", f"{self.slope_euler:.3f}")
            .replace("%3", conv.second_order_scheme.capitalize())
            .replace("%4", f"{self.slope_second:.3f}").replace("%5", f"{ratio1:.3f}")
            .replace("%6", f"{ratio2:.3f}").replace("%7", str(conv.reference_steps))
            .replace("%8", f"{conv.reference_error:.1e}"))
        x = result.trace["embed"]
        moved = float(np.linalg.norm(np.asarray(conv.flow) - x))
        err1 = float(e1[0])
        # (a layer whose flow does not move its input travels no distance to compare with)
        share = f"{100 * err1 / moved:.0f}%" if moved > 0 else "—"
        self.caveat.setText(pick(
            st,
            f"“The network solves the PDE” is an analogy: the real layer (n = 1) is "
            f"{err1:.3g} away from its own flow, {share} of the distance "
            "the flow travels; only as n grows does it approach the flow.",
            f"“网络在求解这个偏微分方程”只是类比：真实的层（n = 1）离它自己的流还有 "
            f"{err1:.3g}，是流所走距离的 {share}；只有 n 增大时才逼近这条流。"))
