"""Continuous view: the residual stream u(t) as depth time t runs from the input to the output.

A pre-norm Qwen3 layer is two explicit Euler sub-steps (docs/continuous.md, E13/E14):
``u(½) = x + A(x)`` and ``u(1) = u(½) + M(u(½))``. The slider's in-between states are the exact
partial steps ``x + s·A`` and ``h + s·M`` from ``result.depth.at(t)`` — real states of the layer
with that sub-step scaled by s, not a blend of pictures. Moving t never recomputes the layer: a
frame is one ``at(t)``, one ``setImage`` with fixed levels and a line moved.

Beside it: each token's norm ‖u(t)‖ along t, and the layer sub-stepped n = 1..64 times
converging to its flow (``state.convergence``, computed on the worker after each result).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QElapsedTimer, QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QFont, QHideEvent
from PySide6.QtWidgets import (
    QAbstractButton,
    QButtonGroup,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QSpacerItem,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app import palettes, theme
from app.compute import (
    Result,
    norm_curve_points,
    token_html,
)
from app.panels.base import Panel
from app.panels.depth_convergence import ConvergenceSection
from app.state import AppState
from app.widgets.animated_heatmap import AnimatedHeatmapView
from app.widgets.arrangement import Hysteresis, side_by_side
from app.widgets.claim_badge import ClaimBadge
from app.widgets.depth_slider import RESOLUTION, DepthSlider, play_step
from app.widgets.norm_curves import NormCurvesPlot
from app.widgets.plotting import set_title
from app.widgets.relayout import move_to_box
from engine.continuous import Convergence

#: (label, seconds for one sweep t = 0 → 1)
SPEEDS: tuple[tuple[str, float], ...] = (
    ("0.25×", 16.0), ("0.5×", 8.0), ("1×", 4.0), ("2×", 2.0), ("4×", 1.0))
DEFAULT_SPEED = 2
#: Timer interval while playing (ms); the position follows the clock, not the tick count.
FRAME_MS = 15
#: Stacked, each of the two small plots gets half the plot area's height: below this many text
#: lines each (title, data, tick labels and axis title: ~5 lines, and 60 px of data) the panel
#: shows one of them at a time beside u(t), with a switch between them (COMPACT_LEAVE: the way
#: back, a little higher)
MIN_PLOT_LINES = 9.5
COMPACT_LEAVE_LINES = 10.0
#: u(t)'s share of the width beside the small plots: its token names and colour bar take
#: ~150 px of it at presentation text (half of a 500-px panel left its data 60 px wide)
HEATMAP_SHARE = 0.58
#: Side by side, each of the three plots needs as many text lines of width as this many
#: columns' share (u(t) with its token names and colour bar counts as two)
SIDE_BY_SIDE_COLUMNS = 4
COMPACT = Hysteresis(MIN_PLOT_LINES, COMPACT_LEAVE_LINES)


def move_dot(dot: pg.ScatterPlotItem, x: float, y: float) -> None:
    """``dot.setData([x], [y])`` for a one-spot scatter whose look stays: only the spot's
    position is written, and what setData would reset after it (bounds, the cached picture).
    setData builds the spot again (style, symbol atlas), ~0.2 ms of every edit and frame."""
    data = dot.data
    if len(data) != 1:
        dot.setData([x], [y])
        return
    data["x"][0], data["y"][0] = x, y
    dot.prepareGeometryChange()
    dot.informViewBoundsChanged()
    dot.bounds = [None, None]
    dot.invalidate()
    dot.sigPlotChanged.emit(dot)


def fmt_t(t: float) -> str:
    """t with the fraction the true states are known by."""
    return {0.0: "0", 0.5: "½", 1.0: "1"}.get(t, f"{t:.3f}")


class DepthTimePanel(Panel):
    @property
    def curves(self) -> list[pg.PlotCurveItem]:
        """The norm curves' items (one per token, or the one bundle of a long input)."""
        return self.norm_plot.curves

    def __init__(self, state: AppState) -> None:
        super().__init__(state)
        body = QWidget()

        # ----- header: title and badge -----
        self.title = QLabel()
        self.title.setObjectName("depthTitle")
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.title.setWordWrap(True)  # one line at large text: wider than a 1280-px screen
        self.badge = ClaimBadge("EXACT", "E14")

        # ----- controls: play, slider with the true states marked, t, speed -----
        self.play_button = QToolButton()
        self.play_button.setObjectName("depthPlay")
        self.play_button.setCheckable(True)
        self.play_button.setMinimumWidth(70)
        self.slider = DepthSlider()
        self.t_label = QLabel()
        self.t_label.setObjectName("depthTLabel")
        self.speed_label = QLabel()
        self.speed_box = QComboBox()
        self.speed_box.setObjectName("depthSpeed")
        for label, seconds in SPEEDS:
            self.speed_box.addItem(label, seconds)
        self.speed_box.setCurrentIndex(DEFAULT_SPEED)

        # ----- caption: which sub-step, and that it is an exact Euler step -----
        self.caption = QLabel()
        self.caption.setObjectName("depthCaption")
        self.caption.setTextFormat(Qt.TextFormat.RichText)
        self.caption.setWordWrap(True)
        self.caption.setMinimumHeight(38)

        # ----- u(t) heatmap -----
        self.view = AnimatedHeatmapView()
        self.view.setMinimumWidth(180)
        self.readout = QLabel(" ")
        self.readout.setTextFormat(Qt.TextFormat.PlainText)  # token text as typed
        self.readout.setObjectName("depthReadout")
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.setSpacing(2)
        left_layout.addWidget(self.view, 1)
        left_layout.addWidget(self.readout)

        # ----- norm curves along t -----
        self.norm_plot = NormCurvesPlot()
        self.norm_plot.setObjectName("depthNormPlot")
        # (its items, as tests and the animation reach them)
        plot = self.norm_plot
        self.t_line, self.query_curve = plot.t_line, plot.query_curve
        self.query_dot = plot.query_dot
        self.attn_text, self.mlp_text = plot.attn_text, plot.mlp_text

        # ----- convergence to the flow (app/panels/depth_convergence.py) -----
        self.convergence = ConvergenceSection(self)
        section = self.convergence  # (its widgets and items, as the layout and tests reach them)
        self.conv_plot, self.conv_caption = section.plot, section.caption
        self.conv_waiting, self.conv_stack = section.waiting, section.stack
        self.conv_badge, self.conv_caption_box = section.badge, section.caption_box
        self.conv_euler, self.conv_second = section.plot.conv_euler, section.plot.conv_second
        self.layer_marker = section.plot.layer_marker
        self.layer_text = section.plot.layer_text
        conv_box = section.box

        # compact (a short, narrow panel: the tour open at 1366 x 768): one small plot at a
        # time beside u(t), picked with these two buttons (see _arrange)
        self.show_norm_button = QToolButton()
        self.show_norm_button.setObjectName("depthShowNorm")
        self.show_conv_button = QToolButton()
        self.show_conv_button.setObjectName("depthShowConv")
        self._plot_choice = QButtonGroup(self)
        for button in (self.show_norm_button, self.show_conv_button):
            button.setCheckable(True)
            button.setAutoRaise(True)
            self._plot_choice.addButton(button)
        self.show_norm_button.setChecked(True)
        self._plot_choice.buttonToggled.connect(self._on_plot_choice)
        switch_row = QHBoxLayout()
        switch_row.setContentsMargins(0, 0, 0, 0)
        switch_row.setSpacing(2)
        switch_row.addWidget(self.show_norm_button)
        switch_row.addWidget(self.show_conv_button)
        switch_row.addStretch(1)
        self._compact_box = QWidget()
        self._compact_box.setObjectName("depthCompact")
        self._compact_layout = QVBoxLayout(self._compact_box)
        self._compact_layout.setContentsMargins(0, 0, 0, 0)
        self._compact_layout.setSpacing(1)
        self._compact_layout.addLayout(switch_row)

        # u(t) on the left; the norm curves above the convergence plot on the right, or, when
        # the panel is wide and short (presentation mode on a 16:9 screen), all three side by
        # side, so neither plot is squeezed into a strip; or, short and narrow, one of the two
        # beside u(t) (see _arrange)
        self.conv_box = conv_box
        right = QSplitter(Qt.Orientation.Vertical)
        right.setObjectName("depthRight")
        right.addWidget(self.norm_plot)
        right.addWidget(conv_box)
        right.setStretchFactor(0, 1)
        right.setStretchFactor(1, 1)
        self._right = right
        split = QSplitter(Qt.Orientation.Horizontal)
        split.setObjectName("depthSplit")
        split.addWidget(left)
        split.addWidget(right)
        split.addWidget(self._compact_box)
        self._compact_box.hide()  # (it keeps its place in the splitter, at no width)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        self._split = split
        #: True while the three plots stand side by side
        self.side_by_side = False
        #: True while one small plot at a time stands beside u(t) (see _arrange)
        self.compact = False
        split.installEventFilter(self)

        header = QHBoxLayout()
        header.addWidget(self.title, 1)
        header.addWidget(self.badge)
        # one row; in a narrow panel the slider gets a row of its own (see _arrange_controls)
        controls = QHBoxLayout()
        controls.addWidget(self.play_button, 0, Qt.AlignmentFlag.AlignTop)
        controls.addWidget(self.slider, 1)
        controls.addWidget(self.t_label, 0, Qt.AlignmentFlag.AlignTop)
        # takes the slider's share of the row when the slider has gone (stretch 0 till then)
        self._gap = QSpacerItem(0, 0, QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Minimum)
        controls.addItem(self._gap)
        controls.addWidget(self.speed_label, 0, Qt.AlignmentFlag.AlignTop)
        controls.addWidget(self.speed_box, 0, Qt.AlignmentFlag.AlignTop)
        self._controls = controls
        self._slider_row = QHBoxLayout()
        self._slider_row.setContentsMargins(0, 0, 0, 0)
        #: True while the slider has a row of its own
        self.slider_alone = False
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(3)
        layout.addLayout(header)
        layout.addLayout(controls)
        layout.addLayout(self._slider_row)
        layout.addWidget(self.caption)
        #: what is left of the flow under an intervention that skips a branch (issue 23)
        self.skip_note = QLabel()
        self.skip_note.setObjectName("depthSkipNote")
        self.skip_note.setWordWrap(True)
        self.skip_note.hide()
        layout.addWidget(self.skip_note)
        layout.addWidget(split, 1)
        layout.addWidget(self.conv_caption_box)
        self.set_body(body)
        self._body = body
        body.installEventFilter(self)

        #: u(t) on screen as float64, exactly ``result.depth.at(t)`` (hover reads it)
        self.source: np.ndarray | None = None
        #: fixed colour levels for the whole animation: symmetric max over u(0), u(½), u(1)
        self.levels: tuple[float, float] = (-1.0, 1.0)
        self._result: Result | None = None
        self._norm_times: np.ndarray | None = None
        self._norms: np.ndarray | None = None  # [n_points, T]
        self._shown_t: float | None = None
        self._frame_dirty = False
        #: what the norm plot shows, so an edit that leaves a curve (or the range, the title)
        #: as it was touches nothing: a changed item repaints the whole plot
        self._title = ""
        self._query_shown: tuple[int, int] | None = None  # (id of the norms array, query)

        # ----- playback -----
        self.timer = QTimer(self)
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(FRAME_MS)
        self.timer.timeout.connect(self._on_tick)
        self._clock = QElapsedTimer()
        self._play_pos = 0.0
        self._played_t = -1.0  # the last t the player set

        self.play_button.toggled.connect(self._on_play_toggled)
        self.slider.t_changed.connect(self._on_slider_moved)
        self.view.hovered.connect(self._on_hovered)
        self.view.clicked.connect(lambda row, _col, _v: self.state.set_query(row))
        self.t_line.sigDragged.connect(self._on_line_dragged)
        state.convergence_changed.connect(self._on_convergence_changed)
        self._apply_fonts()
        toggle = getattr(state, "play_toggle_requested", None)  # the Space key
        if toggle is not None:
            toggle.connect(self._on_play_toggle_requested)
        self.retranslate()

    def _apply_fonts(self) -> None:
        """Bold t readout sized from the panel's (scalable) font, at a fixed width: a changing
        number must not re-lay out the panel on every frame."""
        font = QFont(self.font())
        font.setBold(True)
        self.t_label.setFont(font)
        self.t_label.setFixedWidth(self.t_label.fontMetrics().horizontalAdvance(
            "t = 0.000 · s = 0.000") + 8)
        # the slider carries its marks below it: align the rest with the slider's own row
        controls = (self.play_button, self.t_label, self.speed_label, self.speed_box)
        for widget in controls:
            widget.setMinimumHeight(0)
            widget.setMaximumHeight(16777215)
        row_height = max(self.speed_box.sizeHint().height(), self.play_button.sizeHint().height())
        for widget in controls:
            widget.setFixedHeight(row_height)
        if hasattr(self, "_body"):
            self._arrange_controls()  # a larger text needs a wider row

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange and hasattr(self, "speed_box"):
            self._apply_fonts()  # font scale or presentation mode

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            if watched is self._split:
                self._arrange()
            elif watched is self._body:
                self._arrange_controls()
        return super().eventFilter(watched, event)

    def _controls_width(self) -> int:
        """The width one row of controls needs with the slider at its narrowest readable."""
        spacing = max(self._controls.spacing(), 0)
        widgets = (self.play_button, self.t_label, self.speed_label, self.speed_box)
        margins = self._body.layout().contentsMargins()
        return (sum(w.sizeHint().width() if w is not self.t_label else w.width()
                    for w in widgets) + self.slider.min_readable_width()
                + 4 * spacing + margins.left() + margins.right())

    def _arrange_controls(self) -> None:
        """The slider shares the row with Play, the t readout and the speed box while it gets
        its readable width there (its t = 0, ½, 1 marks apart); in a narrower panel it stands
        on a row of its own at the panel's full width (the tour open at 1366 x 768 left it
        ~70 px, its marks piled up as "u(0|½|1)")."""
        alone = self._body.width() < self._controls_width()
        if alone == self.slider_alone:
            return
        self.slider_alone = alone
        # moved by its own layout item (see app/widgets/relayout.py)
        if alone:
            move_to_box(self._controls, self.slider, self._slider_row, -1)
        else:
            move_to_box(self._slider_row, self.slider, self._controls, 1, stretch=1)
        self._controls.setStretch(self._controls.indexOf(self._gap), 1 if alone else 0)

    def _arrange(self) -> None:
        """Stack the norm curves over the convergence plot, or put them beside u(t) when the
        plot area is over SIDE_BY_SIDE_AT times as wide as it is tall (back below
        STACKED_BELOW: the gap keeps a resize near the line from flipping it to and fro); or,
        where stacked they would be too short to read and side by side too narrow, show one
        of them at a time beside u(t) (compact)."""
        width, height = self._split.width(), self._split.height()
        if height <= 0:
            return
        if self.compact and self.conv_caption_box.isHidden():
            # decide as if the caption were shown: hiding it must not flip the mode back
            height -= self.conv_caption_box.heightForWidth(width) + self._body.layout().spacing()
        line = self.fontMetrics().height()
        side = side_by_side(width, max(height, 1), SIDE_BY_SIDE_COLUMNS, line,
                            self.side_by_side)
        # stacked, each small plot gets half the height
        compact = not side and COMPACT.compact(height / (2 * line), self.compact)
        mode = "side" if side else "compact" if compact else "stacked"
        if mode == ("side" if self.side_by_side else "compact" if self.compact else "stacked"):
            return
        self.side_by_side, self.compact = side, compact
        if side:
            self._split.addWidget(self.norm_plot)
            self._split.addWidget(self.conv_box)
            self._right.hide()
            self._compact_box.hide()
            # u(t) carries its colour bar: a little more than a third
            parts = [self._split.widget(i) for i in range(self._split.count())]
            self._split.setSizes([0 if w in (self._right, self._compact_box) else round(
                width * (0.38 if w not in (self.norm_plot, self.conv_box) else 0.31))
                for w in parts])
        elif compact:
            self._compact_layout.addWidget(self.norm_plot, 1)
            self._compact_layout.addWidget(self.conv_box, 1)
            self._right.hide()
            self._compact_box.show()
            heatmap = round(width * HEATMAP_SHARE)
            self._split.setSizes([heatmap, 0, width - heatmap])
        else:
            self._right.addWidget(self.norm_plot)
            self._right.addWidget(self.conv_box)
            self._right.show()
            self._compact_box.hide()
            self._right.setSizes([height // 2] * 2)
            heatmap = round(width * HEATMAP_SHARE)
            self._split.setSizes([heatmap, width - heatmap, 0])
        self._show_chosen_plot()

    def _on_plot_choice(self, _button: QAbstractButton, checked: bool) -> None:
        if checked:
            self._show_chosen_plot()

    def show_small_plot(self, which: str) -> None:
        """Compact mode: show the "norm" curves or the "convergence" plot beside u(t) (the
        tour's convergence stop asks for it; the other modes show both anyway)."""
        button = self.show_conv_button if which == "convergence" else self.show_norm_button
        button.setChecked(True)

    def _show_chosen_plot(self) -> None:
        """In compact mode only the chosen small plot shows, and the convergence caption only
        with its plot; in the others, both plots and the caption."""
        conv = self.show_conv_button.isChecked()
        for widget, shown in ((self.norm_plot, not self.compact or not conv),
                              (self.conv_box, not self.compact or conv),
                              (self.conv_caption_box, not self.compact or conv)):
            if widget.isHidden() == shown:  # (showing a shown widget re-lays out the panel)
                widget.setVisible(shown)

    # ----- building the plots -----

    # ----- strings -----
    def retranslate(self) -> None:
        self.title.setText(self.tr("<b>u(t)</b> — the residual stream in depth time "
                                   "<span style='color:%1'>(continuous view)</span>")
                           .replace("%1", theme.quiet_css()))
        self.badge.setToolTip(self.tr(
            "E14 (exact, tested): inside an explicit sub-step "
            "(1 − s)·x + s·(x + F(x)) = x + s·F(x), so every in-between state is a true Euler "
            "step of size s."))
        self.play_button.setToolTip(self.tr("Play or pause: t runs from 0 to 1 and loops"))
        self.speed_label.setText(self.tr("speed"))
        self.speed_box.setToolTip(self.tr("1× = one sweep from u(0) to u(1) in 4 seconds"))
        self.slider.slider.setToolTip(self.tr("Depth time t (steps of 0.005)"))
        self.slider.set_texts(
            ((self.tr("u(0) input"), self.tr("u(½) after attention residual"),
              self.tr("u(1) output")),
             (self.tr("u(0)\ninput"), self.tr("u(½)\nafter attention residual"),
              self.tr("u(1)\noutput")),
             (self.tr("u(0)\ninput"), self.tr("u(½)\nafter attn."), self.tr("u(1)\noutput")),
             (self.tr("u(0)"), self.tr("u(½)"), self.tr("u(1)"))),
            (self.tr("x + s·A"), self.tr("h + s·M")),
            (self.tr("t = 0: the input X (step 0, embed)"),
             self.tr("t = ½: h = x + A, the first residual (step 15, resid_attn)"),
             self.tr("t = 1: h + M, the layer output (step 22, resid_mlp)")))
        self.norm_plot.setLabel("bottom", self.tr("depth time t"))
        # (a formula, the same in every language: "‖u(t)‖ per token" was longer than the
        # plot is tall; one curve per token is in the tooltip and the plot's title)
        self.norm_plot.setLabel("left", "‖u(t)‖")
        self.norm_plot.setToolTip(self.tr("One curve per token; the bold one is the selected "
                                          "query token (click a heatmap row). Drag the red "
                                          "line to move t."))
        self.attn_text.setText(self.tr("attention"))
        self.mlp_text.setText(self.tr("MLP"))
        self.show_norm_button.setText(self.tr("‖u(t)‖"))
        self.show_norm_button.setToolTip(self.tr("Show each token's norm along depth time"))
        self.show_conv_button.setText(self.tr("convergence"))
        self.show_conv_button.setToolTip(self.tr("Show the layer sub-stepped n times "
                                                 "converging to its flow"))
        self._update_play_text()
        self._arrange_controls()  # the marks' words have their own widths in each language
        # (the query curve's title and the caption follow at the redraw that comes with every
        # language or theme switch)
        self.convergence.retranslate()
        self.convergence.show(self.state, force=True)

    def _update_play_text(self) -> None:
        playing = self.play_button.isChecked()
        self.play_button.setText(self.tr("❚❚ Pause") if playing else self.tr("▶ Play"))

    def caption_text(self, t: float) -> str:
        """What u(t) is at this t, in words (rich text)."""
        depth = self._result.depth if self._result is not None else None
        if depth is None:
            return ""
        if t == 0.0:
            return self.tr("<b>t = 0 — true state u(0)</b>: the input X (step 0, <i>embed</i>). "
                           "Press ▶ to run the layer as time.")
        if t == 0.5:
            return self.tr("<b>t = ½ — true state u(½) = x + A(x)</b>: the first residual "
                           "(step 15, <i>resid_attn</i>), bit for bit.")
        if t == 1.0:
            return self.tr("<b>t = 1 — true state u(1) = h + M(h)</b>: the layer output "
                           "(step 22, <i>resid_mlp</i>), bit for bit.")
        # the same words for a whole sub-step (s itself is beside the slider), so a frame of
        # the animation never re-lays out this label
        phase, _s = depth.sub_step(t)
        if phase == "attention":
            return self.tr("<b>Attention sub-step (s = 2t)</b>: u(t) = x + s·A(x), A = o_proj "
                           "(step 14).") + " " + self.tr(
                "An <b>exact</b> Euler step of size s — what resid_attn (step 15) would be with "
                "the attention branch scaled by s — not a cosmetic blend of two pictures.")
        return self.tr("<b>MLP sub-step (s = 2t − 1)</b>: u(t) = h + s·M(h), M = down_proj "
                       "(step 21).") + " " + self.tr(
            "An <b>exact</b> Euler step of size s — the layer's output with the MLP branch "
            "scaled by s — not a cosmetic blend of two pictures.")

    def t_text(self, t: float) -> str:
        """``t = 0.350 · s = 0.700``: depth time and the step size taken in its sub-step."""
        if self._result is None or self._result.depth is None or t in (0.0, 0.5, 1.0):
            return f"t = {fmt_t(t)}"
        _phase, s = self._result.depth.sub_step(t)
        return f"t = {t:.3f} · s = {s:.3f}"

    # ----- drawing a result -----
    def skip_text(self, skipped: tuple[str, ...]) -> str:
        """What is left of the flow when ``skipped`` branches add nothing ("" for none)."""
        if "attention" in skipped and "mlp" in skipped:
            return self.tr("Both branches skipped: u(t) does not move (the layer is the "
                           "identity).")
        if "attention" in skipped:
            return self.tr("Attention skipped: what is left is a pure MLP step (u stays put "
                           "for t ≤ ½, then moves by the MLP).")
        if "mlp" in skipped:
            return self.tr("MLP skipped: what is left is a pure attention step (u moves by "
                           "attention for t ≤ ½, then stays put).")
        return ""

    def redraw(self, result: Result) -> None:
        self._result = result
        depth = result.depth
        note = self.skip_text(depth.skipped)
        self.skip_note.setText(note)
        self.skip_note.setVisible(bool(note))
        states = depth.states  # [3, T, D]
        m = float(np.max(np.abs(states))) if states.size else 1.0
        self.levels = (-m, m) if np.isfinite(m) and m > 0 else (-1.0, 1.0)
        t = self.state.depth_t
        self.source = depth.at(t)
        map_name = palettes.map_for("signed", getattr(self.state, "palette", "classic"))
        self.view.set_matrix(self.source, self.levels, map_name, result.labels,
                             x_title=self.tr("feature"), y_title=self.tr("token"))
        # computed by the worker with the result (65 or 17 evaluations of u(t))
        self._norm_times, self._norms = result.norm_curves or depth.norm_curves(
            norm_curve_points(depth))
        self.norm_plot.draw(self._norm_times, self._norms)
        self._draw_query_curve()
        self._shown_t = None
        self._apply_t(force=True, shown=True)
        self.convergence.show(self.state)

    def _draw_query_curve(self) -> None:
        if self._norms is None or self._result is None:
            return
        q = min(self.state.query, self._norms.shape[1] - 1)
        self.norm_plot.draw_query(self._norm_times, self._norms[:, q])
        # (the plot's title is HTML)
        token = token_html(self._result.tokens[q]) if q < len(self._result.tokens) else ""
        title = self.tr("bold: token %1 “%2”").replace("%1", str(q)).replace("%2", token)
        if title != self._title:
            self._title = title
            set_title(self.norm_plot, title, size="8pt")  # (no layout pass if it fits)

    # ----- depth time: the per-frame path -----
    def _apply_t(self, force: bool = False, shown: bool = False) -> None:
        """Show u(t) for the state's t: pixels, line, dot, caption. No layer recompute.
        ``shown``: the pixels of this t are on screen already (redraw just set them)."""
        result = self._result
        if result is None or result.depth is None:
            return
        t = self.state.depth_t
        if t == self._shown_t and not force:
            return
        self._shown_t = t
        self.slider.set_t(t)
        self.t_label.setText(self.t_text(t))
        self.t_line.setValue(t)
        if not shown:  # (u(t) again and a compare of every pixel: the same matrix, unchanged)
            self.source = result.depth.at(t)
            self.view.set_values(self.source, self.levels)
        self.caption.setText(self.caption_text(t))
        if self._norms is not None:
            q = min(self.state.query, self._norms.shape[1] - 1)
            norm = float(np.linalg.norm(self.source[q]))
            move_dot(self.query_dot, t, norm)

    def _on_selection_changed(self, field: str) -> None:
        if field == "depth_t":
            if self.isVisible() and not self._dirty:
                self._apply_t()
            else:
                self._dirty = True
        elif field == "query" and self._result is not None:
            if self.isVisible() and not self._dirty:
                self._draw_query_curve()
                self._apply_t(force=True)
            else:
                self._dirty = True

    def _on_slider_moved(self, t: float) -> None:
        self.state.set_depth_t(t)

    def _on_line_dragged(self, line: pg.InfiniteLine) -> None:
        self.state.set_depth_t(round(line.value() * RESOLUTION) / RESOLUTION)

    def _on_hovered(self, row: int, col: int, _shown: float) -> None:
        if row < 0 or self.source is None or self._result is None:
            self.readout.setText(" ")
            return
        self.readout.setText(self.tr("token %1 · feature %2 · u(t) = %3").replace(
            "%1", self._result.labels[row]).replace("%2", str(col)).replace(
            "%3", repr(float(self.source[row, col]))))

    # ----- playback -----
    def _on_play_toggled(self, playing: bool) -> None:
        self._update_play_text()
        if playing:
            t = self.state.depth_t
            self._play_pos = 0.0 if t >= 1.0 else t
            self._clock.start()
            self.timer.start()
        else:
            self.timer.stop()

    def _on_play_toggle_requested(self) -> None:
        if self.isVisible() and self.state.result is not None:
            self.play(not self.play_button.isChecked())

    def play(self, on: bool = True) -> None:
        self.play_button.setChecked(on)

    @property
    def playing(self) -> bool:
        return self.timer.isActive()

    def advance(self, seconds: float) -> None:
        """Move the playhead by ``seconds`` of wall time at the chosen speed; loops at 1.

        Positions snap to the slider's grid, and a frame never jumps over a true state: crossing
        t = ½ (or reaching 1) shows that state exactly for one frame.
        """
        sweep = float(self.speed_box.currentData() or 4.0)
        self._play_pos = play_step(self.state.depth_t, self._play_pos, self._played_t,
                                   seconds / sweep)
        self._played_t = round(self._play_pos * RESOLUTION) / RESOLUTION
        self.state.set_depth_t(self._played_t)

    def _on_tick(self) -> None:
        seconds = self._clock.restart() / 1000.0
        self.advance(min(seconds, 0.1))  # a stalled frame does not skip half the layer

    def hideEvent(self, event: QHideEvent) -> None:
        self.play(False)  # nothing to animate when nobody can see it
        super().hideEvent(event)

    # ----- convergence -----

    def skipped_text(self, result: Result) -> str:
        return self.convergence.skipped_text(result)

    def _on_convergence_changed(self, _conv: Convergence | None) -> None:
        self.convergence.show(self.state)
