"""Causality inspector: edit a token and see, step by step, which rows of the layer changed.

Reads ``result.causality`` (``engine.causality.CausalityReport``) and ``result.baseline``
(the earlier input it was compared with, chosen by app/baseline.py); what to say is decided in
app/verdict.py, without Qt. docs/continuous.md E11: with the causal mask, every row before the
edited token k is *bitwise* unchanged in every step — except the raw scores q·kᵀ of the future
columns, which ``causal_mask`` then removes. With the mask off the earlier rows change. E12:
when the token count changes, the common prefix agrees only up to rounding.

Three views share the token rows: an overview (token × step, log₁₀ of each row's max |Δ|), the
selected step's |after − before| (per head for per-head steps) and a bar per row. Exact zeros get
their own colour, never the low end of the colour map.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QColor, QFont, QTextDocumentFragment
from PySide6.QtWidgets import (
    QBoxLayout,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QSpinBox,
    QSplitter,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app import theme
from app.compute import Baseline, Result
from app.panels.base import Panel
from app.state import AppState
from app.verdict import InterventionVerdict, Message, Verdict, decide, decide_intervention
from app.widgets.arrangement import Arrangement, Hysteresis
from app.widgets.causality_words import CausalityWords
from app.widgets.claim_badge import ClaimBadge
from app.widgets.controls import set_tooltip, sync_spin
from app.widgets.diff_bars import (
    GOOD_HTML,
    K_LINE_HTML,
    OUTLINE_HTML,
    OUTLINE_PEN,
    ZERO_COLOUR,
    ZERO_HTML,
    DiffBars,
    abs_diff,
    abs_diff_changed,
    cell_outline,
    k_line_pen,
    sparse_index_labels,
    sparse_labels,
)
from app.widgets.diff_heatmap import DiffHeatmapView
from app.widgets.heatmap import FastImageItem
from app.widgets.plotting import RasterCachedCurve, set_points
from app.widgets.reflow_guard import ReflowGuard
from app.widgets.relayout import move_in_grid
from app.widgets.stable_label import StableLabel
from engine import STEP_INFO, STEP_NAMES, Step
from engine.causality import CausalityReport

__all__ = ["MASK_RGBA", "CausalityPanel", "abs_diff"]

#: |Δ| colour map (log₁₀ scale): pale yellow (rounding) → orange → purple (large).
DIFF_MAP = "CET-L17"
#: log₁₀|Δ| at the bottom of the colour map: 1e-18, just below float64 rounding of O(1) values.
LOG_FLOOR = -18.0
#: Compact (a short panel: 1366 x 768, 1280 x 720): below this many text lines for the three
#: views, the explanation, the hint and the legend fold behind a Details button (the verdict
#: stays), so the views get their height; they unfold once the views would keep this many.
COMPACT_BELOW_LINES = 10
COMPACT_LEAVE_LINES = 12
#: Beside the badge and buttons the verdict needs this many line heights of width, else it
#: goes under them (about ten characters of its bold text)
VERDICT_MIN_LINES_PX = 10
FOLD_SPACING = 3  # px between the folded labels (the layouts' spacing)
#: Veil over the masked (future) triangle j > i of attention maps: translucent white, as it has
#: always looked (pyqtgraph auto-levelled the uint8 array (70, 70, 70, 60) it was given to this)
MASK_RGBA = (255, 255, 255, 218)
#: Token labels on the overview's rows and key indices under the difference map, at most
MAX_ROW_LABELS = 16
MAX_KEY_LABELS = 12
#: Draw cell outlines up to this many changed cells (one line item, four edges each).
MAX_OUTLINES = 20_000
ATTENTION_MAPS = ("attn_scores", "causal_mask", "attn_probs")

#: verdict colours by level (app.verdict), picked for a white page (:func:`app.theme.ink`
#: adapts them to the theme); "quiet" is the palette's quiet text colour
LEVEL_COLOURS = {"good": GOOD_HTML, "warn": "#b34700", "info": K_LINE_HTML, "quiet": ""}


def _large(text: str) -> str:
    """A paragraph of the big page's text size."""
    return f"<p style='font-size:large'>{text}</p>"


class CausalityPanel(Panel):
    def __init__(self, state: AppState) -> None:
        super().__init__(state)
        body = QWidget()

        # ----- verdict block -----
        self.badge = ClaimBadge("EXACT", "E11")
        # the verdict and its detail change with every edit: labels that hold their height
        # within half a line, in guards that keep their relayout to themselves
        self.verdict = StableLabel()
        self.verdict.setObjectName("causalityVerdict")
        self.verdict.setTextFormat(Qt.TextFormat.RichText)
        self.verdict.setWordWrap(True)
        self._apply_fonts()
        self.pin_button = QToolButton()
        self.pin_button.setObjectName("pinBaseline")
        self.pin_button.setCheckable(True)
        #: shown in compact mode only: unfolds the explanation, hint and legend
        self.details_button = QToolButton()
        self.details_button.setObjectName("causalityDetails")
        self.details_button.setCheckable(True)
        self.details_button.hide()
        self.detail = StableLabel()
        self.detail.setObjectName("causalityDetail")
        self.detail.setTextFormat(Qt.TextFormat.RichText)
        self.detail.setWordWrap(True)
        self.hint = StableLabel()
        self.hint.setObjectName("causalityHint")
        self.hint.setTextFormat(Qt.TextFormat.RichText)
        self.hint.setWordWrap(True)

        # ----- the three views over token rows -----
        self.step_title = QLabel()
        self.step_title.setObjectName("causalityStepTitle")
        self.step_title.setTextFormat(Qt.TextFormat.RichText)
        self.step_title.setWordWrap(True)
        self.head_label = QLabel()
        self.head_box = QSpinBox()
        self.head_box.setObjectName("causalityHead")

        # no colour bars: the bars plot's log axis, in the same colours, is the scale
        self.grid_view = DiffHeatmapView(map_name=DIFF_MAP, floor=LOG_FLOOR,
                                         zero_colour=ZERO_COLOUR)
        self.grid_view.setObjectName("causalityGrid")
        self.diff_view = DiffHeatmapView(map_name=DIFF_MAP, floor=LOG_FLOOR,
                                         zero_colour=ZERO_COLOUR)
        self.diff_view.setObjectName("causalityDiff")
        self.diff_view.plot.hideAxis("left")  # rows are the overview's rows
        self.bars = DiffBars()
        self.bars.setObjectName("causalityBars")
        self._setup_overlays()

        self.grid_caption = QLabel()
        self.diff_caption = QLabel()
        self.bars_caption = QLabel()
        for label in (self.grid_caption, self.diff_caption, self.bars_caption):
            label.setAlignment(Qt.AlignmentFlag.AlignCenter)
            label.setWordWrap(True)  # at large text one line made the window wider than a screen
            theme.make_quiet(label)

        def titled(widget: QWidget, caption: QLabel) -> QWidget:
            box = QWidget()
            box_layout = QVBoxLayout(box)
            box_layout.setContentsMargins(0, 0, 0, 0)
            box_layout.setSpacing(0)
            box_layout.addWidget(caption)
            box_layout.addWidget(widget, 1)
            return box

        self.split = QSplitter(Qt.Orientation.Horizontal)
        self.split.setObjectName("causalitySplit")
        self.split.addWidget(titled(self.grid_view, self.grid_caption))
        self.split.addWidget(titled(self.diff_view, self.diff_caption))
        self.split.addWidget(titled(self.bars, self.bars_caption))
        self.split.setStretchFactor(0, 5)
        self.split.setStretchFactor(1, 5)
        self.split.setStretchFactor(2, 3)
        self.legend = QLabel()
        self.legend.setObjectName("causalityLegend")
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setWordWrap(True)
        self.readout = QLabel(" ")
        self.readout.setObjectName("causalityReadout")
        self.readout.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        views = QWidget()
        views_layout = QVBoxLayout(views)
        views_layout.setContentsMargins(0, 0, 0, 0)
        views_layout.setSpacing(2)
        step_row = QHBoxLayout()
        step_row.addWidget(self.step_title, 1)
        step_row.addWidget(self.head_label)
        step_row.addWidget(self.head_box)
        views_layout.addLayout(step_row)
        views_layout.addWidget(self.split, 1)
        views_layout.addWidget(self.legend)
        views_layout.addWidget(self.readout)
        #: page 0: nothing to compare yet (a big hint); page 1: the views
        self.nothing = QLabel()
        self.nothing.setObjectName("causalityNothing")
        self.nothing.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.nothing.setWordWrap(True)
        self.nothing.setTextFormat(Qt.TextFormat.RichText)
        self.pages = QStackedWidget()
        self.pages.addWidget(self.nothing)
        self.pages.addWidget(views)

        top = QGridLayout()
        top.setContentsMargins(0, 0, 0, 0)
        self._top = top
        self._verdict_guard = ReflowGuard(self.verdict)
        self._buttons = QBoxLayout(QBoxLayout.Direction.TopToBottom)
        self._buttons.setSpacing(2)
        self._buttons.addWidget(self.pin_button)
        self._buttons.addWidget(self.details_button)
        self._buttons.addStretch(1)
        #: the verdict beside the badge and buttons, or under them (a narrow panel: the room
        #: beside them in line heights; the switch does not change it, so no hysteresis)
        self.header = Arrangement(Hysteresis(VERDICT_MIN_LINES_PX, VERDICT_MIN_LINES_PX),
                                  wide=self._place_header, compact=self._place_header)
        self._place_header()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(3)
        #: with an intervention on: how the intervened layer differs from the plain one
        self.intervention_verdict = QLabel()
        self.intervention_verdict.setObjectName("interventionVerdict")
        self.intervention_verdict.setTextFormat(Qt.TextFormat.RichText)
        self.intervention_verdict.setWordWrap(True)
        self.intervention_verdict.hide()
        #: what app.verdict.decide_intervention said of the result on screen (None: plain)
        self.intervention_data: InterventionVerdict | None = None
        layout.addWidget(self.intervention_verdict)
        layout.addLayout(top)
        layout.addWidget(ReflowGuard(self.detail))  # (a guard shows and hides with its label)
        layout.addWidget(ReflowGuard(self.hint))
        layout.addWidget(self.pages, 1)
        self.set_body(body)
        #: the explanation, hint and legend shown, or folded behind the Details button (compact)
        self.folding = Arrangement(Hysteresis(COMPACT_BELOW_LINES, COMPACT_LEAVE_LINES),
                                   wide=self._fold, compact=self._fold)
        self.split.installEventFilter(self)

        # ----- what is on screen (tests and hover read these) -----
        self.report: CausalityReport | None = None
        #: the baseline the verdict names (the one the report compared against), its kind
        self.before: Baseline | None = None
        self.baseline_kind = ""  # "previous", "pinned" or "earlier"
        #: what app.verdict decided for the result on screen
        self.verdict_data: Verdict | None = None
        self.words = CausalityWords(self)
        #: [common, 23] max |Δ| of each row per step (the overview's numbers)
        self.grid_source: np.ndarray | None = None
        #: the selected step's |after − before| (float64, head slice), rows = tokens
        self.diff_source: np.ndarray | None = None
        #: the selected step's max |Δ| per row (all heads), as the bars show it
        self.bar_values: np.ndarray | None = None
        #: (row, col) cells of the diff view outlined: changed raw scores in earlier rows
        self.highlighted_cells: set[tuple[int, int]] = set()
        self.earlier_max: float | None = None
        self._result: Result | None = None
        self._cols_are_keys = False
        self._diff_col_kind = ""
        self._mask_size = -1

        self.pin_button.toggled.connect(self._on_pin_toggled)
        self.details_button.toggled.connect(lambda _on: self._show_foldable())
        self.head_box.valueChanged.connect(self.state.set_head)
        self.grid_view.clicked.connect(self._on_grid_clicked)
        self.grid_view.hovered.connect(self._on_grid_hovered)
        self.diff_view.hovered.connect(self._on_diff_hovered)
        state.baseline_changed.connect(self._on_baseline_changed)
        self.retranslate()

    def _setup_overlays(self) -> None:
        # the masked future triangle of attention maps, shaded
        # (one shade: 1 in the future triangle, NaN elsewhere; see FastImageItem)
        self.mask_image = FastImageItem(axisOrder="row-major")
        self.mask_image.setLookupTable(np.array([MASK_RGBA], dtype=np.uint8))
        self.mask_image.setZValue(5)
        self.diff_view.plot.addItem(self.mask_image)
        # changed raw scores in earlier rows, outlined. An edit of the last token outlines
        # the same T − 1 cells again while the map under them repaints: kept as a raster,
        # that repaint is a blit instead of stroking 4 (T − 1) edges (~2-3 ms at T = 512)
        self.outline = RasterCachedCurve(pen=OUTLINE_PEN, connect="pairs")
        self.outline.setZValue(10)
        self.diff_view.plot.addItem(self.outline)
        self.grid_outline = RasterCachedCurve(pen=OUTLINE_PEN, connect="pairs")
        self.grid_outline.setZValue(10)
        self.grid_view.plot.addItem(self.grid_outline)
        # the selected step's column in the overview
        self.step_box = pg.PlotCurveItem(pen=pg.mkPen(QColor(30, 30, 30), width=2))
        self.step_box.setZValue(11)
        self.grid_view.plot.addItem(self.step_box)
        # ... on a white halo: the dark line alone vanished over the dark cells of the changed
        # rows (and in the dark theme over the plot)
        self.step_box_halo = pg.PlotCurveItem(pen=pg.mkPen(QColor(255, 255, 255), width=4))
        self.step_box_halo.setZValue(10.5)
        self.grid_view.plot.addItem(self.step_box_halo)
        # the boundary between the rows before k and the rest, in every view
        self.k_lines = []
        for view in (self.grid_view, self.diff_view):
            line = pg.InfiniteLine(angle=0, pen=k_line_pen())
            line.setZValue(12)
            view.plot.addItem(line)
            self.k_lines.append(line)

    def _apply_fonts(self) -> None:
        """The verdict a little larger and bold, relative to the panel's (scalable) font."""
        font = QFont(self.font())
        if font.pointSizeF() > 0:
            font.setPointSizeF(font.pointSizeF() * 1.15)
        font.setBold(True)
        self.verdict.setFont(font)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:  # font scale or presentation mode
            self._apply_fonts()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.split and event.type() == QEvent.Type.Resize:
            self._arrange_header()
            self._arrange()
        return super().eventFilter(watched, event)

    # ----- a narrow panel: the verdict under the badge and the buttons -----
    @property
    def verdict_below(self) -> bool:
        """True while the verdict stands under the badge and buttons."""
        return self.header.compact

    def _place_header(self) -> None:
        """Badge and buttons stay on the first row; the verdict stands between them or under
        them (moved by its own layout item: see app/widgets/relayout.py)."""
        top = self._top
        top.setColumnStretch(1, 1)
        if top.indexOf(self.badge) < 0:  # the first time: every item in its wide place
            top.addWidget(self.badge, 0, 0)
            top.addWidget(self._verdict_guard, 0, 1)
            top.addLayout(self._buttons, 0, 2)
        if self.verdict_below:
            self._buttons.setDirection(QBoxLayout.Direction.LeftToRight)
            top.setAlignment(self.badge, Qt.AlignmentFlag.AlignVCenter)
            move_in_grid(top, self._verdict_guard, 1, 0, 1, 3)
        else:
            self._buttons.setDirection(QBoxLayout.Direction.TopToBottom)
            top.setAlignment(self.badge, Qt.AlignmentFlag.AlignTop)
            move_in_grid(top, self._verdict_guard, 0, 1)

    def _arrange_header(self) -> None:
        """Beside the badge and the buttons the verdict kept ~90 px at 1280 x 720 with the tour
        open: seven lines of one word each, and the pictures under it squeezed to a strip.
        Under them it has the panel's width, and the buttons stand side by side."""
        spacing = max(self._top.horizontalSpacing(), 0)
        buttons = max(self.pin_button.sizeHint().width(),
                      self.details_button.sizeHint().width())
        beside = self.split.width() - self.badge.sizeHint().width() - buttons - 2 * spacing
        self.header.update(beside / self.verdict.fontMetrics().height())

    # ----- compact: a short panel folds its words so the views keep their height -----
    def _folded_height(self) -> int:
        """The height the explanation, hint and legend take when shown at this width."""
        width = self.split.width()
        return sum(label.heightForWidth(width) + FOLD_SPACING
                   for label in (self.detail, self.hint, self.legend))

    @property
    def compact(self) -> bool:
        """True while the explanation, hint and legend fold behind the Details button."""
        return self.folding.compact

    def _arrange(self) -> None:
        """Fold or unfold by the height the three views get, in text lines (so it follows the
        text size): folded, as they would be with the words unfolded (unless Details already
        unfolded them by hand)."""
        height = self.split.height()
        if self.compact and not self.details_button.isChecked():
            height -= self._folded_height()
        self.folding.update(height / self.fontMetrics().lineSpacing())

    def _fold(self) -> None:
        self.details_button.setVisible(self.compact)
        self._show_foldable()

    def _show_foldable(self) -> None:
        """The explanation and legend unless folded; the hint too, unless the "nothing to
        compare" page says it, larger."""
        shown = not self.compact or self.details_button.isChecked()
        self.detail.setVisible(shown)
        self.legend.setVisible(shown)
        self.hint.setVisible(shown and self.pages.currentIndex() == 1)
        self._sync_verdict_tip()

    def _sync_verdict_tip(self) -> None:
        """Folded, the explanation and hint are the verdict's tooltip too."""
        folded = self.compact and not self.details_button.isChecked()
        set_tooltip(self.verdict, f"{self.detail.text()}<br><br>{self.hint.text()}"
                    if folded else "")

    # ----- strings -----
    def retranslate(self) -> None:
        self._set_pin_text()
        self.details_button.setText(self.tr("Details"))
        self.details_button.setToolTip(self.tr(
            "Show what was compared, the next thing to try and the colour key (folded away "
            "while the panel is short, so the three views keep their height)."))
        self.pin_button.setToolTip(self.tr(
            "Compare every following edit with the input on screen now (instead of with the "
            "previous input). Click again to release."))
        self.badge.setToolTip(self.tr(
            "E11 (exact, tested): editing token k leaves every earlier row of every step "
            "bitwise unchanged — except the raw scores of the future columns, which the mask "
            "removes. With the mask off, earlier rows change."))
        self.head_label.setText(self.tr("Head:"))
        self.head_box.setToolTip(self.tr("Query head of the per-head steps (shared with the "
                                         "step heatmap)"))
        self.grid_caption.setText(self.tr("all steps: max |Δ| per row"))
        self.bars_caption.setText(self.tr("this step: max |Δ| per row"))
        # (a formula, the same in every language: "max |Δ| (log)" and its Chinese ran past
        # the narrow bars' edge; "max … per row" is in the caption above them)
        self.bars.setLabel("bottom", "log₁₀|Δ|")
        self.legend.setText(self.tr(
            "<span style='background:%1'>&nbsp;&nbsp;&nbsp;&nbsp;</span> 0 exactly · colour "
            "log₁₀|Δ| (scale under the bars) · <span style='color:%2'><b>- -</b></span> token k · "
            "<span style='color:%3'><b>□</b></span> changed masked score").replace(
            "%1", ZERO_HTML).replace("%2", K_LINE_HTML).replace("%3", OUTLINE_HTML))
        self.legend.setToolTip(self.tr(
            "Teal: the difference is exactly 0 (bitwise equal). Other colours: log₁₀ of |Δ|, "
            "pale for rounding (1e-16), dark for a real change. The dashed line is the first "
            "changed token k. An orange box is a raw score q·k that changed in a row before k: "
            "it lies in the future (j > i, shaded), which causal_mask removes."))
        self.grid_view.plot.setLabel("bottom", self.tr("step"))

    # ----- drawing -----
    def redraw(self, result: Result) -> None:
        self._result = result
        self._write_intervention(result)
        verdict = decide(result.tokens, result.text, result.trace.causal, result.causality,
                         result.baseline, just_pinned=self.state.pinned is result)
        self.verdict_data = verdict
        # the pinned input itself: nothing is compared on screen
        report = result.causality if verdict.compared else None
        self.report = report
        self.before = verdict.baseline
        self.baseline_kind = verdict.baseline.kind if verdict.baseline is not None else ""
        self._sync_pin_button()
        self._write_verdict(verdict, result.trace.causal)
        if report is None or not report.changed:
            self.grid_source = self.diff_source = self.bar_values = None
            self.highlighted_cells = set()
            self.pages.setCurrentIndex(0)
            self._show_foldable()  # (the hint hides: the page says it, larger)
            return
        self.pages.setCurrentIndex(1)
        self._show_foldable()
        common = report.common
        self.grid_source = report.per_position_array.T  # [common, 23]
        peak = float(self.grid_source.max()) if self.grid_source.size else 0.0
        high = max(1.0, float(np.ceil(np.log10(peak)))) if peak > 0 else 1.0
        self._levels = (LOG_FLOOR, high)
        rows = result.labels[:common]
        self._rows = rows
        self.grid_view.set_diff(self.grid_source, high, sparse_labels(rows, MAX_ROW_LABELS),
                                [str(i) if i % 5 == 0 else "" for i in range(len(STEP_NAMES))],
                                x_title=self.tr("step"), y_title=self.tr("token"))
        k = report.first_changed
        for line in (*self.k_lines, self.bars.k_line):
            line.setValue(verdict.edited or 0)
            line.setVisible(verdict.edited is not None)
        # attn_scores rows before k that changed (with the mask on, only in masked columns):
        # outline them in the overview
        scores_col = STEP_NAMES.index("attn_scores")
        earlier = np.flatnonzero(self.grid_source[:k, scores_col] > 0)
        if earlier.size and result.trace.causal:
            set_points(self.grid_outline, *cell_outline(np.stack(
                [earlier, np.full(earlier.size, scores_col)], axis=1)))
        else:
            set_points(self.grid_outline, [], [])
        self._draw_step()

    def _head_slice(self, step: Step) -> np.ndarray:
        """The selected head's 2-D slice of a step, rows = tokens (the whole array if the step
        has no head axis; a kv step shows the kv head the selected query head reads)."""
        array = step.array
        if "head" not in step.axes:
            return array
        config = self._result.trace.config
        per_head = np.moveaxis(array, step.axes.index("head"), 0)  # [heads, T, cols]
        head = self.state.head
        if per_head.shape[0] != config.num_attention_heads:
            head = head // config.group_size
        return per_head[min(head, per_head.shape[0] - 1)]

    def _draw_step(self) -> None:
        """The selected step (and head): diff heatmap, masked triangle, outlines and bars."""
        result, report = self._result, self.report
        if result is None or report is None or not report.changed:
            return
        name = self.state.step
        info = STEP_INFO[STEP_NAMES.index(name)]
        step = result.trace.step(name)
        common, k = report.common, report.first_changed
        has_heads = "head" in info.axes
        config = result.trace.config
        sync_spin(self.head_box, config.num_attention_heads - 1, self.state.head)
        self.head_label.setEnabled(has_heads)
        self.head_box.setEnabled(has_heads)

        # |after − before| on the common prefix, rows = tokens
        cols_are_keys = info.axes[-1] == "key token"
        diff = changed = None
        if self.before is not None and self.before.trace is not None:
            a = self._head_slice(self.before.trace.step(name))[:common]
            b = self._head_slice(step)[:common]
            if cols_are_keys:  # the key axis is a token axis too: compare the common prefix
                a, b = a[:, :common], b[:, :common]
            diff, changed = abs_diff_changed(a, b)
        self.diff_source = diff
        head_text = ""
        if has_heads:
            kv = step.array.shape[info.axes.index("head")] != config.num_attention_heads
            head_text = (self.tr("kv head %1").replace("%1", str(self.state.head //
                                                                 config.group_size))
                         if kv else self.tr("head %1").replace("%1", str(self.state.head)))
        note = ""
        if name == "attn_scores" and result.trace.causal and 0 < k < common:
            note = " — <span style='color:%1'>%2</span>".replace(
                "%1", theme.ink(OUTLINE_HTML)).replace(
                "%2", self.tr("rows before k changed only in the masked future (outlined)"))
        formula = self.state.formula(result.trace.step(name))  # "S": causal_mask, mask off
        self.step_title.setText(
            f"<b>{info.index}. {name}</b> &nbsp;<code>{formula}</code>"
            + (f" &nbsp;({head_text})" if head_text else "")
            + " &nbsp;" + self.tr("|after − before|") + note)
        self.diff_caption.setText(
            self.tr("this step: |after − before|") if diff is not None
            else self.tr("this step: baseline not in memory"))
        # key columns by index only (the rows carry the words; hover names the key token)
        self._cols_are_keys = cols_are_keys and common > 0
        shown_cols = (sparse_index_labels(common, MAX_KEY_LABELS if common <= 99 else 5)
                      if self._cols_are_keys else None)  # 3-digit indices need more room each
        self._diff_col_kind = info.axes[-1]
        if diff is not None:
            self.diff_view.set_diff(diff, self._levels[1], self._rows, shown_cols,
                                    x_title=self.tr(info.axes[-1]), within=changed)
            self.diff_view.plot.hideAxis("left")
        else:
            self.diff_view.clear_matrix()

        # attention maps: shade the masked future (j > i); outline changed scores of rows < k
        self.highlighted_cells = set()
        if name in ATTENTION_MAPS and result.trace.causal and diff is not None:
            if self._mask_size != common:  # built once per length, not per step or head
                future = np.triu(np.ones((common, common), dtype=bool), 1)
                mask = np.where(future, np.float32(1.0), np.float32(np.nan))
                self.mask_image.setImage(mask, autoLevels=False, levels=(0.0, 1.0))
                self.mask_image.setRect(0, 0, common, common)
                self._mask_size = common
            self.mask_image.setVisible(True)
        else:
            self.mask_image.setVisible(False)
        if name == "attn_scores" and result.trace.causal and diff is not None:
            cells = np.argwhere(diff[:k] > 0)  # [n, 2] (row, col) with row < k
            self.highlighted_cells = {(int(r), int(c)) for r, c in cells}
            if 0 < len(cells) <= MAX_OUTLINES:
                set_points(self.outline, *cell_outline(cells))
            else:
                set_points(self.outline, [], [])
        else:
            set_points(self.outline, [], [])

        # the selected column in the overview
        col = info.index
        for box in (self.step_box_halo, self.step_box):
            set_points(box, [col, col + 1, col + 1, col, col], [0, 0, common, common, 0])
        values = report.per_position[name]
        self.bar_values = values
        future_only = name == "attn_scores" and result.trace.causal
        self.bars.draw(values, self._levels, self.diff_view.colours_of,
                       future_only & (np.arange(len(values)) < k))

    # ----- words (decided by app.verdict, worded by app.widgets.causality_words) -----
    def _write_verdict(self, verdict: Verdict, causal: bool) -> None:
        self.badge.set_claim("EXACT", verdict.claim)
        self.earlier_max = verdict.earlier_max
        words = self.words
        # never a line break inside "max |Δ| ="
        text = words.render(verdict.title).replace("max |Δ| = ", "max\u00a0|Δ|\u00a0=\u00a0")
        colour = LEVEL_COLOURS[verdict.level]
        colour = theme.ink(colour) if colour else theme.quiet_css()
        self.verdict.setText(f"<span style='color:{colour}'>{text}</span>")
        self.detail.setText(" ".join(words.render(m) for m in verdict.detail))
        self.hint.setText(words.render(verdict.hint))
        if verdict.page is not None:
            self.nothing.setText(self._big_hint(causal) if verdict.page.id == "big_hint"
                                 else _large(words.render(verdict.page)))

    def _write_intervention(self, result: Result) -> None:
        diff = result.intervention_diff
        label = self.intervention_verdict
        if diff is None:
            self.intervention_data = None
            label.hide()
            return
        verdict = decide_intervention(diff)
        self.intervention_data = verdict
        colour = LEVEL_COLOURS[verdict.level]
        colour = theme.ink(colour) if colour else theme.quiet_css()
        words = [self.words.intervention(verdict.title),
                 *(self.words.intervention(m) for m in verdict.detail)]
        label.setText(f"<span style='color:{colour}'><b>{words[0]}</b></span> "
                      + " ".join(words[1:]))
        label.show()

    @property
    def intervention_plain(self) -> str:
        """The intervention verdict as a reader sees it ("" without an intervention)."""
        if not self.intervention_verdict.isVisibleTo(self):
            return ""
        return QTextDocumentFragment.fromHtml(self.intervention_verdict.text()).toPlainText()

    @property
    def verdict_plain(self) -> str:
        """The verdict as a reader sees it: no markup, ordinary spaces."""
        return QTextDocumentFragment.fromHtml(self.verdict.text()).toPlainText().replace(
            "\u00a0", " ")

    def _big_hint(self, causal: bool) -> str:
        suggestion = self.words.render(Message("suggest_on" if causal else "suggest_off"))
        return (_large(suggestion) + "<p style="
                f"'color:{theme.quiet_css()}'>" + self.tr(
                    "Pin baseline keeps comparing with the input on screen now, so you can make "
                    "several edits in a row.") + "</p>")

    # ----- events -----
    def _sync_pin_button(self) -> None:
        self.pin_button.blockSignals(True)
        self.pin_button.setChecked(self.state.pinned is not None)
        self.pin_button.blockSignals(False)
        self._set_pin_text()

    def _set_pin_text(self) -> None:
        # a checked tool button looks nearly the same on a projector: a click seemed to do
        # nothing, and a second click released the pin
        self.pin_button.setText(self.tr("✓ Pinned") if self.pin_button.isChecked()
                                else self.tr("Pin baseline"))

    def _on_pin_toggled(self, on: bool) -> None:
        self.state.pin_baseline(on)

    def _on_baseline_changed(self) -> None:
        self._sync_pin_button()
        if self._result is not None and self._result.ok:
            self.request_redraw()  # pinned: say so now; released: the comparison comes back

    def _on_selection_changed(self, field: str) -> None:
        if field in ("step", "head"):
            if self.isVisible() and not self._dirty:
                self._draw_step()
            else:
                self._dirty = True

    def _on_grid_clicked(self, _row: int, col: int, _value: float) -> None:
        self.state.set_step(STEP_NAMES[col])

    def _on_grid_hovered(self, row: int, col: int, _value: float) -> None:
        if row < 0 or self.grid_source is None:
            self.readout.setText(" ")
            return
        value = float(self.grid_source[row, col])
        self.readout.setText(self.tr("%1 · step %2 %3 · max |Δ| of the row = %4").replace(
            "%1", self._rows[row]).replace("%2", str(col)).replace(
            "%3", STEP_NAMES[col]).replace("%4", repr(value) if value else self.tr(
                "0 (bitwise equal)")))

    def _on_diff_hovered(self, row: int, col: int, _value: float) -> None:
        if row < 0 or self.diff_source is None:
            self.readout.setText(" ")
            return
        value = float(self.diff_source[row, col])
        column = (self._rows[col] if self._cols_are_keys else f"{self._diff_col_kind} {col}")
        self.readout.setText(self.tr("%1 · column %2 · |Δ| = %3").replace(
            "%1", self._rows[row]).replace("%2", column).replace(
            "%3", repr(value) if value else self.tr("0 (bitwise equal)")))
