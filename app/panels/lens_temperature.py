"""Lens: softmax is a Boltzmann distribution at temperature τ (docs/continuous.md E16–E18).

A log-scale τ slider (a multiple of √d) recomputes the selected head's attention from the
layer's own q and k (after q/k-norm and RoPE; GQA: query head h reads kv head h // G):
the probability heatmap, each row's entropy beside its causal bound log(i + 1), the entropy of
the selected query row against τ, and the measured slope of log p against the logit, which is
1/τ. At τ = 1 (the 1/√d dropped) a note says the attention is sharper but not one-hot; the
"Bose–Einstein condensate" reading is marked as an analogy.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from app import palettes, theme
from app.compute import Result
from app.panels.lens_base import LensHeader, LensPanel, LogSlider, badge_tip, pick
from app.state import AppState
from app.widgets.arrangement import side_by_side
from app.widgets.claim_badge import ClaimBadge
from app.widgets.heatmap import HeatmapView
from app.widgets.plotting import fast_axes, left_bottom_only, plain_numbers
from engine.lenses import entropy_curve, random_qk, temperature_lens

#: The slider runs over τ = multiplier·√d with the multiplier from 1e-3 to 1e3.
MULT_LO, MULT_HI = 1e-3, 1e3
#: Multipliers of the entropy-vs-τ curve (computed once per result and head).
CURVE_MULTS = np.logspace(math.log10(MULT_LO), math.log10(MULT_HI), 121)
#: At most this many query rows get a thin curve in the entropy-against-τ plot.
CURVE_ROWS = 64
#: The layer's own entropy (τ = √d) on the entropy bars: near-black on the light theme, made
#: as light as it must be to stand out on the dark plot (theme.plot_ink).
LAYER_DOT = "#282828"
#: |log τ| below this counts as "τ = 1" for the E18 note (about one slider step each side).
TAU_ONE_TOLERANCE = 0.02


def _e18_reference() -> float:
    """docs/continuous.md E18's own setting: d = 128, random q, k, τ = 1 — mean max weight ≈ 0.9."""
    q, k = random_qk(n_heads=4, n_tokens=16, head_dim=128, seed=0)
    lens = temperature_lens(q, k, multiplier=1 / math.sqrt(128), causal=False)
    return float(lens.max_weight.mean())


class TemperaturePanel(LensPanel):
    def __init__(self, state: AppState) -> None:
        super().__init__(state)

    def build(self) -> None:
        body = QWidget()
        self.header = LensHeader([("EXACT", "E16"), ("EXACT", "E17")])

        self.tau_label = QLabel()
        self.slider = LogSlider(MULT_LO, MULT_HI, 1.0)
        self.slider.setObjectName("tauSlider")
        self.preset_zero = QPushButton()
        self.preset_one = QPushButton()
        self.preset_one.setObjectName("tauOneButton")
        self.preset_sqrt = QPushButton()
        self.preset_sqrt.setObjectName("tauSqrtDButton")
        self.preset_hot = QPushButton()
        for button in (self.preset_zero, self.preset_one, self.preset_sqrt, self.preset_hot):
            button.setAutoDefault(False)
        self.readout = QLabel()
        self.readout.setObjectName("tauReadout")
        self.readout.setTextFormat(Qt.TextFormat.RichText)
        self.readout.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.view = HeatmapView()
        self.view.setMinimumWidth(180)
        self.entropy_plot = pg.PlotWidget()
        plain_numbers(self.entropy_plot)
        self.entropy_plot.setMenuEnabled(False)
        self.entropy_plot.getViewBox().setMouseEnabled(x=False, y=False)
        self.entropy_plot.hideButtons()
        self.entropy_bars = pg.BarGraphItem(x=[], height=[], width=0.6,
                                            brush=QColor(70, 110, 200, 200), pen=None)
        self.bound_curve = pg.PlotDataItem(pen=pg.mkPen((200, 40, 40), width=2,
                                                        style=Qt.PenStyle.DashLine),
                                           stepMode="center")
        # coloured for the theme in _retranslate (near-black vanished on the dark plot)
        self.layer_dots = pg.ScatterPlotItem(size=7, brush=QColor(LAYER_DOT), pen=None,
                                             symbol="d")
        self.entropy_plot.addItem(self.entropy_bars)
        self.entropy_plot.addItem(self.bound_curve)
        self.entropy_plot.addItem(self.layer_dots)
        self.entropy_legend = self.entropy_plot.addLegend(offset=(5, 2), labelTextSize="8pt",
                                                          colCount=3)

        # fast axes: one notation for the τ decades (0.01 … 1000, see log_tick_strings)
        self.curve_plot = pg.PlotWidget(axisItems=fast_axes())
        left_bottom_only(self.curve_plot)
        self.curve_plot.setMenuEnabled(False)
        self.curve_plot.hideButtons()
        self.curve_plot.getViewBox().setMouseEnabled(x=False, y=False)
        self.curve_plot.setLogMode(x=True, y=False)
        #: every row's entropy against τ, thin; the selected query row bold on top
        self.all_rows = pg.PlotCurveItem(pen=pg.mkPen((70, 110, 200, 70), width=1),
                                         connect="finite")
        self.row_curve = pg.PlotDataItem(pen=pg.mkPen((70, 110, 200), width=3))
        self.row_bound = pg.InfiniteLine(angle=0, pen=pg.mkPen((200, 40, 40), width=2,
                                                                 style=Qt.PenStyle.DashLine))
        self.tau_line = pg.InfiniteLine(angle=90, pen=pg.mkPen((20, 20, 20), width=2))
        # τ = 1 labelled left of its line, √d right of its: with the two lines close (a small
        # head_dim, a narrow plot) the √d label steps one line down (see _place_line_labels)
        self.one_line = pg.InfiniteLine(angle=90, pos=0.0,
                                        pen=pg.mkPen((150, 150, 150), style=Qt.PenStyle.DotLine),
                                        label="τ=1", labelOpts={"position": 0.95,
                                                                 "color": (90, 90, 90),
                                                                 "anchors": [(1, 0), (1, 0)]})
        self.sqrt_line = pg.InfiniteLine(angle=90, pen=pg.mkPen((150, 150, 150),
                                                                 style=Qt.PenStyle.DotLine),
                                         label="√d", labelOpts={"position": 0.95,
                                                                 "color": (90, 90, 90),
                                                                 "anchors": [(0, 0), (0, 0)]})
        self.curve_plot.getViewBox().sigResized.connect(self._place_line_labels)
        self.curve_plot.getViewBox().sigXRangeChanged.connect(self._place_line_labels)
        for item in (self.all_rows, self.row_curve, self.row_bound, self.one_line, self.sqrt_line,
                     self.tau_line):
            self.curve_plot.addItem(item)

        self.note_badge = ClaimBadge("ANALOGY", "E18")
        self.note = QLabel()
        self.note.setObjectName("tauOneNote")
        self.note.setWordWrap(True)
        self.note.setTextFormat(Qt.TextFormat.RichText)

        controls = QHBoxLayout()
        controls.addWidget(self.tau_label)
        controls.addWidget(self.slider, 1)
        presets = QHBoxLayout()
        for button in (self.preset_zero, self.preset_one, self.preset_sqrt, self.preset_hot):
            presets.addWidget(button)
        presets.addWidget(self.readout, 1)
        # the entropy bars over the entropy-against-τ curves beside the heatmap; in a wide,
        # short panel (1366 x 768) all three side by side (see _arrange): stacked, the curves
        # got ~40 px and neither the τ = 1 nor the √d label could show
        plots = QSplitter(Qt.Orientation.Vertical)
        plots.addWidget(self.entropy_plot)
        plots.addWidget(self.curve_plot)
        self._plots = plots
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.view)
        split.addWidget(plots)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        self._split = split
        #: True while the heatmap and the two plots stand side by side
        self.side_by_side = False
        note_row = QHBoxLayout()
        note_row.addWidget(self.note_badge, 0, Qt.AlignmentFlag.AlignTop)
        note_row.addWidget(self.note, 1)
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(3)
        layout.addWidget(self.header)
        layout.addLayout(controls)
        layout.addLayout(presets)
        layout.addWidget(split, 1)
        layout.addLayout(note_row)
        self.set_body(body)

        #: what is on screen, for tests and the benchmark
        self.lens = None
        self.head_dim = 0
        self._key: tuple[int, int] | None = None
        self._q: np.ndarray | None = None
        self._k: np.ndarray | None = None
        self._causal = True
        self._curve: np.ndarray | None = None  # [M, rows] entropy of some rows vs multiplier
        self._curve_rows = np.zeros(0, dtype=int)  # which rows (all up to CURVE_ROWS tokens)
        self._row_curves: dict[int, np.ndarray] = {}  # other rows' curves, as asked for
        self._layer_entropy: np.ndarray | None = None
        self._entropy_top: float | None = None  # the bars' y range without the legend's room
        split.installEventFilter(self)  # (see _arrange)
        self._labels: list[str] = []
        self._e18_reference = _e18_reference()

        self.slider.value_changed.connect(self._on_multiplier_changed)
        self.preset_zero.clicked.connect(lambda: self.set_multiplier(MULT_LO))
        self.preset_one.clicked.connect(
            lambda: self.set_multiplier(1.0 / math.sqrt(max(self.head_dim, 1))))
        self.preset_sqrt.clicked.connect(lambda: self.set_multiplier(1.0))
        self.preset_hot.clicked.connect(lambda: self.set_multiplier(MULT_HI))
        self.view.clicked.connect(lambda row, _col, _v: self.state.set_query(row))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if self.built and watched is self._split and event.type() == QEvent.Type.Resize:
            self._arrange()
        return super().eventFilter(watched, event)

    def _arrange(self) -> None:
        """The two plots stacked beside the heatmap, or all three side by side when the area
        is wide and short (the depth-time panel's rule, app.widgets.arrangement)."""
        width, height = self._split.width(), self._split.height()
        wanted = side_by_side(width, height, 3, self.fontMetrics().height(), self.side_by_side)
        if wanted == self.side_by_side:
            return
        self.side_by_side = wanted
        if wanted:
            self._split.addWidget(self.entropy_plot)
            self._split.addWidget(self.curve_plot)
            self._plots.hide()  # (it keeps its place in the splitter, at no width)
            # the heatmap's cells stretch; the plots' titles need their width
            self._split.setSizes([round(width * 0.3), 0, round(width * 0.35),
                                  round(width * 0.35)])
        else:
            self._plots.addWidget(self.entropy_plot)
            self._plots.addWidget(self.curve_plot)
            self._plots.show()
            self._plots.setSizes([height // 2] * 2)
            self._split.setSizes([width // 2, width // 2])
        if self.lens is not None:
            self.update_tau()  # the curves' title: on two lines in a column of its own
        self._fit_plot_widths()

    def _entropy_range(self) -> None:
        """Room above the bars for the legend: one row of it, or three when side by side."""
        if self._entropy_top is not None:
            room = 1.75 if self.side_by_side else 1.3
            self.entropy_plot.setYRange(0, self._entropy_top * room, padding=0)

    def _fit_plot_widths(self) -> None:
        """Side by side, each plot keeps the width its title and axes need (the splitter gave
        it less and the plot was drawn wider than its column, cut at the right)."""
        # its legend's three entries in one row are wider than a third of the panel: one column
        # (top left, over the short bars of the first rows)
        columns = 1 if self.side_by_side else 3
        if self.entropy_legend.columnCount != columns:
            self.entropy_legend.setColumnCount(columns)
            self._entropy_range()
        for plot in (self.entropy_plot, self.curve_plot):
            need = plot.getPlotItem().effectiveSizeHint(Qt.SizeHint.MinimumSize).width()
            width = math.ceil(need) if self.side_by_side else 0
            if plot.minimumWidth() != width:
                plot.setMinimumWidth(width)
            # a plot item is never made narrower than its minimum: one sized while its title
            # was a wider line stays that wide (cut at the right) until fitted to its view again
            item = plot.getPlotItem()
            if item.geometry() != plot.range:
                item.setGeometry(plot.range)

    # ----- controls -----
    @property
    def multiplier(self) -> float:
        return self.slider.value_float

    @property
    def tau(self) -> float:
        return self.multiplier * math.sqrt(max(self.head_dim, 1))

    def _place_line_labels(self, *_args: object) -> None:
        """τ = 1 and √d at the top of the plot; the √d label one text line lower where the two
        would stand too close to read as two (a small head_dim or a narrow plot)."""
        view = self.curve_plot.getViewBox()
        height = view.height()
        if height <= 0:
            return
        one, sqrt = self.one_line.label, self.sqrt_line.label
        # the labels' own text boxes (pixels), and the lines' distance apart on screen
        gap = abs(view.mapViewToScene(pg.Point(self.sqrt_line.value(), 0)).x()
                  - view.mapViewToScene(pg.Point(self.one_line.value(), 0)).x())
        text_h = one.textItem.boundingRect().height()
        close = gap < 0.5 * (one.textItem.boundingRect().width()
                             + sqrt.textItem.boundingRect().width())
        top = max(0.0, 1.0 - 4.0 / height)  # a few pixels under the top edge
        # on a plate of the plot's background: the thin curves run behind the labels
        plate = QColor(theme.PLOT_COLOURS[theme.current_theme()][0])
        plate.setAlpha(210)
        for label in (one, sqrt):
            label.fill = pg.mkBrush(plate)
        one.setPosition(top)
        sqrt.setPosition(max(0.0, top - text_h / height) if close else top)

    def set_multiplier(self, multiplier: float) -> None:
        """τ = multiplier·√d, exactly (presets and tests)."""
        self.slider.set_value(multiplier)
        self._on_multiplier_changed(multiplier)

    def _on_multiplier_changed(self, _multiplier: float) -> None:
        if self.isVisible() and self._q is not None:
            self.update_tau()
        else:
            self._dirty = True

    def _on_selection_changed(self, field: str) -> None:
        if field in ("head", "query"):
            self.request_redraw()

    def _retranslate(self) -> None:
        st = self.state
        self.header.set_texts(
            self.tr("Softmax temperature"),
            pick(st, "Softmax is a Boltzmann distribution: log p<sub>j</sub> = s<sub>j</sub>/τ − "
                     "log Z with logit s = q·k. The layer uses τ = √d. Entropy never decreases "
                     "as τ grows; it tends to 0 as τ → 0 and to log(i + 1) for causal row i "
                     "as τ → ∞.",
                 "Softmax 就是玻尔兹曼分布：log p<sub>j</sub> = s<sub>j</sub>/τ − log Z，"
                 "logit s = q·k。本层用的是 τ = √d。熵随 τ 增大而不减；τ → 0 时趋于 0，"
                 "τ → ∞ 时因果第 i 行趋于 log(i + 1)。"),
            [badge_tip(self, "EXACT")] * 2)
        self.tau_label.setText(self.tr("τ:"))
        self.slider.setToolTip(self.tr("Softmax temperature τ on a log scale, as a multiple of √d"))
        self.preset_zero.setText(self.tr("τ → 0"))
        self.preset_one.setText(self.tr("τ = 1 (drop 1/√d)"))
        self.preset_sqrt.setText(self.tr("τ = √d (the layer)"))
        self.preset_hot.setText(self.tr("τ → ∞"))
        self.note_badge.setToolTip(badge_tip(self, "ANALOGY"))
        self.entropy_plot.setTitle(self.tr("entropy of each query row (nats)"), size="9pt")
        self._fit_plot_widths()
        self.entropy_plot.setLabel("bottom", self.tr("query token i"))
        self._curve_title = ""
        self.curve_plot.setLabel("bottom", self.tr("τ (log scale)"))
        self.layer_dots.setBrush(pg.mkBrush(theme.plot_ink(LAYER_DOT)))  # (a theme switch too)
        self.entropy_legend.clear()
        self.entropy_legend.addItem(self.entropy_bars, self.tr("at this τ"))
        self.entropy_legend.addItem(self.bound_curve, self.tr("bound log(i+1)"))
        self.entropy_legend.addItem(self.layer_dots, self.tr("layer (τ=√d)"))
        self._place_line_labels()  # (and their plates in a new theme's background)
        if self.lens is not None:
            self.update_tau()

    # ----- drawing -----
    def redraw(self, result: Result) -> None:
        trace = result.trace
        config = trace.config
        head = min(self.state.head, config.num_attention_heads - 1)
        key = (result.request_id, head)
        if key != self._key:
            self._key = key
            kv_head = head // config.group_size
            self._q = trace["q_rope"][head][None]  # [1, T, d]
            self._k = trace["k_rope"][kv_head][None]  # [1, T, d]
            self._causal = trace.causal
            self.head_dim = config.head_dim
            t = self._q.shape[1]
            # a long text draws some rows' curves (every row: M·T² exps on this thread, 100 s
            # and gigabytes at 2048 tokens); the selected row's is computed when asked for
            self._curve_rows = (np.arange(t) if t <= CURVE_ROWS else
                                np.unique(np.linspace(0, t - 1, CURVE_ROWS).round().astype(int)))
            self._curve = entropy_curve(self._q, self._k, CURVE_MULTS, causal=self._causal,
                                        rows=self._curve_rows)[:, 0]  # [M, rows]
            self._row_curves = {}
            self._layer_entropy = temperature_lens(self._q, self._k, multiplier=1.0,
                                                   causal=self._causal).entropy[0]
            labels = result.labels
            self._labels = labels
            sqrt_d = math.sqrt(self.head_dim)
            self.sqrt_line.setValue(math.log10(sqrt_d))
            self.curve_plot.setXRange(math.log10(MULT_LO * sqrt_d), math.log10(MULT_HI * sqrt_d),
                                      padding=0.02)
            t = len(result.tokens)
            self.entropy_plot.setXRange(-0.6, t - 0.4, padding=0)
            top = float(np.log(t)) * 1.08 + 0.05
            self._entropy_top = top
            self._entropy_range()
            self.curve_plot.setYRange(0, top, padding=0)
            rows = self._curve.shape[1]
            xs = np.tile(np.append(CURVE_MULTS * math.sqrt(self.head_dim), np.nan), rows)
            ys = np.concatenate([np.append(self._curve[:, i], np.nan) for i in range(rows)])
            self.all_rows.setData(np.log10(xs), ys)
            x = np.arange(t, dtype=float)
            self.layer_dots.setData(x=x, y=self._layer_entropy)
            self.entropy_plot.getAxis("bottom").setTicks(
                [[(i, str(i)) for i in range(0, t, max(1, t // 12))], []])
        self.update_tau()

    def update_tau(self) -> None:
        """Recompute at the slider's τ and move every item: the per-frame path."""
        if self._q is None:
            return
        lens = temperature_lens(self._q, self._k, multiplier=self.multiplier,
                                causal=self._causal)
        self.lens = lens
        probs = lens.probs[0]  # [T, T]
        shown = np.where(np.isneginf(lens.log_probs[0]), np.nan, probs)  # masked: grey
        self.view.set_matrix(shown, (0.0, 1.0),
                             palettes.map_for("probability",
                                              getattr(self.state, "palette", "classic"),
                                              getattr(self.state, "theme", "light")),
                             self._labels, self._labels, x_title=self.tr("key token"),
                             y_title=self.tr("query token"))
        t = probs.shape[0]
        x = np.arange(t, dtype=float)
        self.entropy_bars.setOpts(x=x, height=lens.entropy[0], width=0.6)
        edges = np.arange(t + 1, dtype=float) - 0.5
        self.bound_curve.setData(x=edges, y=lens.entropy_bound)
        query = min(self.state.query, t - 1)
        self.row_curve.setData(x=CURVE_MULTS * math.sqrt(self.head_dim),
                               y=self.row_entropy_curve(query))
        self.row_bound.setValue(float(lens.entropy_bound[query]))
        title = self.tr("entropy against τ · bold: query row %1 (click a row)").replace(
            "%1", str(query))
        if self.side_by_side:  # a third of the width: two lines (a title never wraps itself)
            title = title.replace(" · ", "<br>", 1)
        if title != self._curve_title:
            self._curve_title = title
            self.curve_plot.setTitle(title, size="9pt")
            self._fit_plot_widths()
        self.tau_line.setValue(math.log10(lens.tau))
        self._update_texts()

    def row_entropy_curve(self, query: int) -> np.ndarray:
        """``[M]`` entropy of query row ``query`` against the multipliers."""
        at = np.searchsorted(self._curve_rows, query)
        if at < self._curve_rows.size and self._curve_rows[at] == query:
            return self._curve[:, at]
        if query not in self._row_curves:
            self._row_curves[query] = entropy_curve(
                self._q, self._k, CURVE_MULTS, causal=self._causal, rows=[query])[:, 0, 0]
        return self._row_curves[query]

    def _update_texts(self) -> None:
        lens = self.lens
        st = self.state
        slope = float(lens.slope[0])
        sqrt_d = math.sqrt(self.head_dim)
        slope_text = "—" if math.isnan(slope) else f"{slope:.12g}"
        self.tau_label.setText(self.tr("τ = %1").replace("%1", f"{lens.tau:.4g}"))
        self.readout.setText(
            self.tr("τ = %1 × √d (√d = %2) · slope of log p vs logit = <b>%3</b> · 1/τ = %4")
            .replace("%1", f"{lens.multiplier:.4g}").replace("%2", f"{sqrt_d:.4g}")
            .replace("%3", slope_text).replace("%4", f"{1 / lens.tau:.12g}"))
        # rows that see more than one key (causal row 0 always puts weight 1 on itself)
        choice = np.asarray(lens.entropy_bound) > 0
        weights = lens.max_weight[0][choice] if choice.any() else lens.max_weight[0]
        max_w = float(weights.mean())
        at_one = self.at_tau_one
        if at_one:
            text = pick(
                st,
                f"<b>τ = 1: sharper, not one-hot.</b> Mean largest weight here {max_w:.3f} "
                f"(d = {self.head_dim}); E18's setting, d = 128 with random q, k, gives "
                f"{self._e18_reference:.2f}. Calling this a frozen “Bose–Einstein "
                "condensate” is only an analogy: every key keeps a nonzero weight.",
                f"<b>τ = 1：更尖锐，但不是独热。</b>此处平均最大权重 {max_w:.3f}"
                f"（d = {self.head_dim}）；E18 的设定（d = 128，随机 q、k）为 "
                f"{self._e18_reference:.2f}。说它“冻结成玻色–爱因斯坦凝聚”只是类比："
                "每个键的权重都仍大于 0。")
        else:
            text = pick(
                st,
                f"Mean largest weight per row {max_w:.3f}. Press “τ = 1” to drop the 1/√d: "
                "attention gets sharper but not one-hot (the “condensate” is an analogy).",
                f"平均最大权重 {max_w:.3f}。按“τ = 1”去掉 1/√d：注意力更尖锐，"
                "但不是独热（“凝聚”只是类比）。")
        self.note.setText(text)
        # both follow the theme: this runs on every redraw, and a theme switch redraws
        style = (f"background: {theme.note_background()}; padding: 3px;" if at_one
                 else f"color: {theme.quiet_css()};")
        if style != self.note.styleSheet():
            self.note.setStyleSheet(style)

    @property
    def at_tau_one(self) -> bool:
        return self.lens is not None and abs(math.log(self.lens.tau)) < TAU_ONE_TOLERANCE
