"""Lens: the "energy" mean(u²) through N random layers (docs/continuous.md E20, E21; E15 at α = 0).

The same seeded random layers run three ways — post-norm (2017), pre-norm (Qwen3) and no
norm — on the sentence's own embedding. Post-norm sits on the line σ₁² + σ₂² exactly after
every layer; pre-norm's sublayers read inputs of rms exactly |σ₂| while its residual stream
grows; with no norm the growth compounds. Log y axis.

α, the init scale and σ₁, σ₂ recompute the sweep for the N layers shown (layer l is the same
for any N, so a shorter sweep is the start of a longer one, bit for bit). For a sentence of
~10 tokens that is ~2–4 ms for 32 layers, ~4–8 ms for 64, so it runs on this thread inside the
move: the move, the new curves and their paint fit in one 60 Hz frame
(``benchmarks/lens_gui_bench.py``) with no worker thread's round trip. A sweep expected (from
the fastest one of this input so far) to take longer than ``SYNC_BUDGET_MS`` — attention grows
as tokens²: ~25 ms for 32 layers at 64 tokens — runs on a latest-wins worker instead, and the
curves follow as results arrive, so a drag never stalls the window. Moving N down slices the
sweep; moving it past the layers computed recomputes all 64 once. A new sentence computes all
64 here, as the old worker-based panel did, so N moves after it only slice.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from app import theme
from app.compute import Result
from app.panels.lens_base import LensHeader, LensPanel, LogSlider, badge_tip, pick
from app.scheduler import LatestWinsWorker
from app.widgets.plotting import FastAxisItem, fast_axes, left_bottom_only, plain_numbers
from engine.lenses import MAX_LAYERS, VARIANTS, EnergySweep, energy_sweep

#: the readout's colours of post-norm, pre-norm and no norm (as in its translated text)
POST_HTML, PRE_HTML, NONE_HTML = "#1e783c", "#285ac8", "#c83228"

#: Inputs larger than this use the seeded random 8 × 16 input instead of the sentence.
MAX_INPUT_TOKENS = 64
MAX_INPUT_FEATURES = 64
STACK_HEADS = 4

COLOURS = {"post-norm": (30, 120, 60), "pre-norm": (40, 90, 200), "no-norm": (200, 50, 40)}
ALPHA_STEPS = 200  # α in [0, 2] by 0.01
#: A sweep expected to take longer than this (ms) runs on the worker: the rest of the frame is
#: for drawing and painting the curves (~5 ms).
SYNC_BUDGET_MS = 8.0


#: A decade shorter than this (pixels) gets no minor grid lines (2 … 9 × 10^k).
MIN_DECADE_PX = 60


class DecadeAxis(FastAxisItem):
    """A log axis that drops the minor ticks once decades are too short to tell them apart.

    The stacks span up to ~30 decades: at ~15 px a decade pyqtgraph's eight minor lines per
    decade are 1–4 px apart and it fades them to ~1 % opacity, so they are not seen, yet
    regenerating the axis with them (~140 ticks) took ~3.5 ms of each move that changes the
    range, ~1 ms without. The decade lines and their labels stay."""

    def logTickValues(self, minVal: float, maxVal: float, size: float,
                      stdTicks: list) -> list:
        ticks = super().logTickValues(minVal, maxVal, size, stdTicks)
        if size < MIN_DECADE_PX * (maxVal - minVal):
            ticks = [(spacing, values) for spacing, values in ticks if spacing is not None]
        return ticks


class EnergyPanel(LensPanel):
    #: (request key, sweep, ms per layer) from the worker, delivered queued on this thread
    _sweep_ready = Signal(object, object, float)

    def build(self) -> None:
        body = QWidget()
        self.header = LensHeader([("EXACT", "E20"), ("EXACT", "E21"), ("ANALOGY", "")])

        self.n_label = QLabel()
        self.n_slider = QSlider(Qt.Orientation.Horizontal)
        self.n_slider.setObjectName("layersSlider")
        self.n_slider.setRange(1, MAX_LAYERS)
        self.n_slider.setValue(MAX_LAYERS // 2)
        self.alpha_label = QLabel()
        self.alpha_slider = QSlider(Qt.Orientation.Horizontal)
        self.alpha_slider.setObjectName("alphaSlider")
        self.alpha_slider.setRange(0, ALPHA_STEPS)
        self.alpha_slider.setValue(ALPHA_STEPS // 2)
        self.scale_label = QLabel()
        self.scale_slider = LogSlider(0.1, 10.0, 1.0, steps=400)
        self.scale_slider.setObjectName("initScaleSlider")
        self.beta_label = QLabel()
        self.beta_box = QDoubleSpinBox()
        self.beta_box.setObjectName("sigma1Box")
        self.beta_box.setRange(-3.0, 3.0)
        self.beta_box.setSingleStep(0.1)
        self.beta_box.setValue(0.0)
        self.gamma_label = QLabel()
        self.gamma_box = QDoubleSpinBox()
        self.gamma_box.setObjectName("sigma2Box")
        self.gamma_box.setRange(0.1, 3.0)
        self.gamma_box.setSingleStep(0.1)
        self.gamma_box.setValue(1.0)

        # fast axes: pyqtgraph's own strokes a grid line pixel by pixel (~14 ms for the log
        # grid at 14 decades), and α moves the range, so the axis is redrawn on most moves
        axes = fast_axes()
        axes["left"] = DecadeAxis("left")
        self.plot = pg.PlotWidget(axisItems=axes)
        plain_numbers(self.plot)
        left_bottom_only(self.plot)
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        self.plot.setLogMode(x=False, y=True)
        self.plot.showGrid(x=False, y=True, alpha=0.25)
        self.plot.getAxis("left").enableAutoSIPrefix(False)
        self.legend = self.plot.addLegend(offset=(8, 8), labelTextSize="8pt")
        # dynamicRangeLimit off: the y range always holds every point (log10 values, ≤ ~300),
        # and the limit re-processes every curve on each range change
        self.curves = {
            v: pg.PlotDataItem(pen=pg.mkPen(COLOURS[v], width=2), connect="finite",
                               dynamicRangeLimit=None)
            for v in VARIANTS}
        for curve in self.curves.values():
            self.plot.addItem(curve)
        self.exact_curve = pg.PlotDataItem(pen=pg.mkPen((30, 120, 60), width=1,
                                                        style=Qt.PenStyle.DashLine),
                                           dynamicRangeLimit=None)
        self.plot.addItem(self.exact_curve)

        self.readout = QLabel()
        self.readout.setObjectName("energyReadout")
        self.readout.setTextFormat(Qt.TextFormat.RichText)
        self.readout.setWordWrap(True)
        self.readout.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.caveat = QLabel()
        self.caveat.setWordWrap(True)
        theme.make_caveat(self.caveat)  # brown on light, lighter on dark

        grid = QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(6)
        grid.setVerticalSpacing(1)
        grid.addWidget(self.n_label, 0, 0)
        grid.addWidget(self.n_slider, 0, 1)
        grid.addWidget(self.alpha_label, 0, 2)
        grid.addWidget(self.alpha_slider, 0, 3)
        grid.addWidget(self.scale_label, 1, 0)
        grid.addWidget(self.scale_slider, 1, 1)
        sigmas = QHBoxLayout()
        sigmas.addWidget(self.beta_label)
        sigmas.addWidget(self.beta_box)
        sigmas.addWidget(self.gamma_label)
        sigmas.addWidget(self.gamma_box)
        sigmas.addStretch(1)
        grid.addLayout(sigmas, 1, 2, 1, 2)
        grid.setColumnStretch(1, 1)
        grid.setColumnStretch(3, 1)
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(3)
        layout.addWidget(self.header)
        layout.addLayout(grid)
        layout.addWidget(self.plot, 1)
        layout.addWidget(self.readout)
        layout.addWidget(self.caveat)
        self.set_body(body)

        #: the sweep for the current controls (≥ N layers), and what is drawn (first N layers)
        self.sweep: EnergySweep | None = None
        self.shown: dict[str, np.ndarray] = {}
        self.input_is_sentence = False
        self._x: np.ndarray | None = None
        self._x_id = -1
        self._sweep_key: tuple | None = None
        self._pending_key: tuple | None = None
        self._pending_layers = 0
        self._level_drawn: tuple[int, float] | None = None
        #: the fastest sweep of this input so far (ms per layer): the cost a move expects
        self._layer_ms = math.inf
        self._worker: LatestWinsWorker | None = None
        #: sweeps handed to the worker (long inputs), for tests and the benchmark
        self.worker_sweeps = 0
        self._sweep_ready.connect(self._on_sweep_ready)

        self.n_slider.valueChanged.connect(self._on_layers_changed)
        self.alpha_slider.valueChanged.connect(self._on_sweep_control_changed)
        self.scale_slider.value_changed.connect(self._on_sweep_control_changed)
        self.beta_box.valueChanged.connect(self._on_sweep_control_changed)
        self.gamma_box.valueChanged.connect(self._on_sweep_control_changed)

    # ----- controls -----
    @property
    def n_layers(self) -> int:
        return self.n_slider.value()

    @property
    def alpha(self) -> float:
        return self.alpha_slider.value() * 2.0 / ALPHA_STEPS

    @property
    def init_scale(self) -> float:
        return self.scale_slider.value_float

    @property
    def sigma1(self) -> float:
        return self.beta_box.value()

    @property
    def sigma2(self) -> float:
        return self.gamma_box.value()

    def sweep_kwargs(self) -> dict[str, float | int]:
        """What :func:`energy_sweep` is called with (besides the input), for tests."""
        return {"alpha": self.alpha, "init_scale": self.init_scale, "gamma": self.sigma2,
                "beta": self.sigma1, "n_heads": STACK_HEADS}

    def _on_layers_changed(self, _n: int) -> None:
        self._on_control_changed()

    def _sweep_request(self) -> tuple:
        return (self._x_id, self.alpha, self.init_scale, self.sigma1, self.sigma2)

    def _on_sweep_control_changed(self, *_args: object) -> None:
        self._on_control_changed()

    def _on_control_changed(self) -> None:
        if not self.isVisible() or self._x is None:
            self._update_labels()
            self._dirty = True
            return
        n_layers = self._layers_to_compute()
        if n_layers == 0 or n_layers * self._layer_ms <= SYNC_BUDGET_MS:
            self.flush()
            return
        self._update_labels()  # the curves follow when the worker's sweep arrives
        key = self._sweep_request()
        if key == self._pending_key and self._pending_layers >= n_layers:
            return  # already on its way
        if self._worker is None:
            self._worker = LatestWinsWorker(self._run_sweep, name="dualview-energy-lens")
            worker = self._worker
            self.destroyed.connect(lambda: worker.stop(1.0))
        self._pending_key, self._pending_layers = key, n_layers
        self.worker_sweeps += 1
        self._worker.submit((key, self._x, n_layers, self.sweep_kwargs()))

    def _layers_to_compute(self) -> int:
        """0 when the sweep drawn covers the controls and N; else the layers a new sweep needs:
        the N shown after a move of α, the scale or σ (the time a move waits), all 64 when N
        passes the layers computed (so a drag up recomputes once)."""
        if self._sweep_request() != self._sweep_key:
            return self.n_layers
        if self.sweep is None or self.sweep.n_layers < self.n_layers:
            return MAX_LAYERS
        return 0

    def _run_sweep(self, request: tuple) -> None:
        """On the worker thread: no Qt object is touched but the queued signal."""
        key, x, n_layers, kwargs = request
        start = time.perf_counter()
        sweep = energy_sweep(x, n_layers=n_layers, **kwargs)
        layer_ms = (time.perf_counter() - start) * 1e3 / n_layers
        try:
            self._sweep_ready.emit(key, sweep, layer_ms)
        except RuntimeError:  # the panel was deleted while this sweep ran
            pass

    def _on_sweep_ready(self, key: tuple, sweep: EnergySweep, layer_ms: float) -> None:
        if key != self._pending_key or key[0] != self._x_id:
            return  # a newer request is on its way (or the sentence changed)
        self._layer_ms = min(self._layer_ms, layer_ms)
        self._sweep_key, self.sweep = key, sweep
        if not self.isVisible():
            self._dirty = True
        elif sweep.n_layers >= self.n_layers:
            self._draw()
            self.settle_views()
        else:  # N moved up meanwhile
            self._on_control_changed()

    def flush(self, all_layers: bool = False) -> None:
        """Recompute on this thread if the controls moved since the last sweep or N passed its
        layers (see :meth:`_layers_to_compute`), then draw: every short input's move, tests
        and the benchmark. ``all_layers`` (a new sentence) computes all 64, as N moves then
        only slice."""
        if self._x is None:
            return
        n_layers = self._layers_to_compute()
        if n_layers:
            if all_layers:
                n_layers = MAX_LAYERS
            key = self._sweep_request()
            if self._layer_ms == math.inf:
                # a new input: one layer first, which draws the random weights if they are
                # new, so that the time below is the sweep's own
                energy_sweep(self._x, n_layers=1, **self.sweep_kwargs())
            start = time.perf_counter()
            self.sweep = energy_sweep(self._x, n_layers=n_layers, **self.sweep_kwargs())
            self._layer_ms = min(self._layer_ms,
                                 (time.perf_counter() - start) * 1e3 / n_layers)
            # (and a worker's sweep still on its way is now stale)
            self._sweep_key = self._pending_key = key
            self._pending_layers = n_layers
        self._draw()
        self.settle_views()  # the new range now: else the move's paint schedules a second one

    def _retranslate(self) -> None:
        st = self.state
        self.header.set_texts(
            self.tr("Energy through depth"),
            pick(st, "The same random layers, three placements of the norm, all with ε = 0. "
                     "<b>Post-norm</b> (LN with scalar γ = σ₂, β = σ₁) puts every row on mean σ₁, "
                     "variance σ₂², so mean(u²) = σ₁² + σ₂² after every layer, exactly. "
                     "<b>Pre-norm</b>: each sublayer reads rms exactly |σ₂|, but the residual "
                     "stream is never normalised and grows. <b>No norm</b>: the growth compounds.",
                 "同一组随机层，归一化放在三个不同位置，ε 都取 0。"
                 "<b>后归一化</b>（标量 γ = σ₂、β = σ₁ 的 LN）让每一行均值为 σ₁、方差为 σ₂²，"
                 "所以每层之后 mean(u²) 恰好等于 σ₁² + σ₂²。"
                 "<b>前归一化</b>：每个子层读到的输入 rms 恰为 |σ₂|，但残差流本身从不归一化，"
                 "会增长。<b>无归一化</b>：增长逐层累积。"),
            [badge_tip(self, "EXACT"), badge_tip(self, "EXACT"), badge_tip(self, "ANALOGY")])
        self.caveat.setText(pick(
            st, "Analogy, not fact: “LayerNorm is a thermostat” — what is exact is the flat "
                "post-norm line. “Pre-norm won because post-norm overflows” — post-norm stays "
                "bounded here; the documented reason is gradient scale at initialisation.",
            "只是类比：“LayerNorm 是恒温器”——精确成立的只有后归一化那条水平线。"
            "“前归一化胜出是因为后归一化会溢出”——此图中后归一化始终有界；"
            "文献给出的原因是初始化时的梯度尺度。"))
        self.plot.setLabel("bottom", self.tr("layer"))
        self.plot.setLabel("left", self.tr("mean(u²)  (log scale)"))
        self.legend.clear()
        names = {"post-norm": self.tr("post-norm (LayerNorm)"),
                 "pre-norm": self.tr("pre-norm (RMSNorm, Qwen3)"),
                 "no-norm": self.tr("no norm")}
        for variant, curve in self.curves.items():
            self.legend.addItem(curve, names[variant])
        self.legend.addItem(self.exact_curve, self.tr("σ₁² + σ₂²"))
        self.n_slider.setToolTip(self.tr("Number of layers N"))
        self.alpha_slider.setToolTip(self.tr("ReZero α: every branch is scaled by α "
                                             "(α = 0: pre-norm and no-norm are the identity)"))
        self.scale_slider.setToolTip(self.tr("Scale of the random initial weights"))
        self.beta_box.setToolTip(self.tr("LayerNorm shift β = σ₁ (the target mean)"))
        self.gamma_box.setToolTip(self.tr("Norm scale γ = σ₂ (the target standard deviation)"))
        self._update_labels()
        if self.sweep is not None and self.sweep.n_layers >= self.n_layers:
            self._update_readout()  # (else N moved while hidden: the redraw on show writes it)

    def _update_labels(self) -> None:
        self.n_label.setText(self.tr("N = %1").replace("%1", str(self.n_layers)))
        self.alpha_label.setText(self.tr("α = %1").replace("%1", f"{self.alpha:.2f}"))
        self.scale_label.setText(self.tr("init × %1").replace("%1", f"{self.init_scale:.3g}"))
        self.beta_label.setText(self.tr("σ₁"))
        self.gamma_label.setText(self.tr("σ₂"))

    # ----- drawing -----
    def redraw(self, result: Result) -> None:
        x = result.trace["embed"]
        t, d = x.shape
        use_sentence = (t <= MAX_INPUT_TOKENS and d <= MAX_INPUT_FEATURES
                        and d % STACK_HEADS == 0)
        self.input_is_sentence = use_sentence
        if use_sentence:
            if self._x is None or self._x_id != result.request_id:
                self._x, self._x_id = x, result.request_id
                self._layer_ms = math.inf  # (its first sweep, below, measures it)
        elif self._x_id != -2:
            self._x = np.random.default_rng([0, 1]).standard_normal((8, 16))
            self._x_id = -2
            self._layer_ms = math.inf
        self.flush(all_layers=True)

    def _draw(self) -> None:
        sweep = self.sweep
        n = self.n_layers
        self._update_labels()
        layers = np.arange(n + 1, dtype=float)
        self.shown = {}
        lo = hi = level = sweep.post_norm_energy
        for variant in VARIANTS:
            energy = np.asarray(sweep[variant].energy[:n + 1])
            self.shown[variant] = energy
            finite = np.isfinite(energy) & (energy > 0)
            if finite.all():
                self.curves[variant].setData(x=layers, y=energy)
            else:
                self.curves[variant].setData(x=layers[finite], y=energy[finite])
            if finite.any():
                lo = min(lo, float(energy[finite].min()))
                hi = max(hi, float(energy[finite].max()))
        if self._level_drawn != (n, level):  # the σ₁² + σ₂² line moves with N and σ only
            self._level_drawn = (n, level)
            self.exact_curve.setData(x=[0.0, float(max(n, 1))], y=[level, level])
        # one range change (two would each re-lay the axes); x padding as padding=0.02 gave
        width = max(n, 1)
        self.plot.setRange(xRange=(-0.02 * width, 1.02 * width),
                           yRange=(math.log10(lo) - 0.3, math.log10(hi) + 0.3), padding=0)
        self._update_readout()

    def _update_readout(self) -> None:
        sweep = self.sweep
        n = self.n_layers
        post = np.asarray(sweep["post-norm"].energy[1:n + 1])
        post_dev = float(np.max(np.abs(post - sweep.post_norm_energy)))
        pre = sweep["pre-norm"]
        rms = np.asarray(pre.sublayer_input_rms[:n])
        rms_dev = float(np.max(np.abs(rms - abs(sweep.gamma)))) if np.isfinite(rms).all() \
            else math.inf
        pre_end = float(pre.energy[n])
        none = sweep["no-norm"]
        none_end = float(none.energy[n])
        overflow = none.overflow_layer if none.overflow_layer and none.overflow_layer <= n \
            else None
        none_text = (self.tr("overflows at layer %1").replace("%1", str(overflow))
                     if overflow is not None else f"{none_end:.3g}")
        source = (self.tr("input: your sentence's embedding (%1 tokens)")
                  .replace("%1", str(len(self._x))) if self.input_is_sentence
                  else self.tr("input: seeded random 8 × 16 (sentence too large)"))
        self.readout.setText(
            self.tr("<b style='color:#1e783c'>post-norm</b>: every layer at σ₁² + σ₂² = %1 "
                    "(largest deviation %2) · <b style='color:#285ac8'>pre-norm</b>: sublayer "
                    "inputs have rms |σ₂| (deviation ≤ %3), stream energy at layer %7 = %4 · "
                    "<b style='color:#c83228'>no norm</b> at layer %7: %5 · %6")
            .replace("%1", f"{sweep.post_norm_energy:.6g}").replace("%2", f"{post_dev:.1e}")
            .replace("%3", f"{rms_dev:.1e}").replace("%4", f"{pre_end:.3g}")
            .replace("%5", none_text).replace("%6", source).replace("%7", str(n))
            # the variant names wear their curves' colours, made readable on this theme
            .replace(POST_HTML, theme.ink(POST_HTML)).replace(PRE_HTML, theme.ink(PRE_HTML))
            .replace(NONE_HTML, theme.ink(NONE_HTML)))
