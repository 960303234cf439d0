"""Causality inspector: edit a token and see, step by step, which rows of the layer changed.

Reads ``result.causality`` (``engine.causality.CausalityReport``: the new trace against the
previous input, or a pinned baseline). PAPER E11: with the causal mask, every row before the
edited token k is *bitwise* unchanged in every step — except the raw scores q·kᵀ of the future
columns, which ``causal_mask`` then removes. With the mask off the earlier rows change. PAPER E12:
when the token count changes, the common prefix agrees only up to rounding.

Three views share the token rows: an overview (token × step, log₁₀ of each row's max |Δ|), the
selected step's |after − before| (per head for per-head steps) and a bar per row. Exact zeros get
their own colour, never the low end of the colour map.
"""

from __future__ import annotations

from collections import deque

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QTextDocumentFragment
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
from app.compute import LRM, Result, isolated, token_html
from app.panels.base import Panel
from app.state import AppState
from app.widgets.claim_badge import ClaimBadge
from app.widgets.controls import sync_spin
from app.widgets.diff_heatmap import DiffHeatmapView
from app.widgets.heatmap import MAX_TICKS, FastImageItem
from app.widgets.plotting import (
    QuietTextItem,
    RasterCachedCurve,
    fast_axes,
    left_bottom_only,
    set_points,
)
from app.widgets.reflow_guard import ReflowGuard
from app.widgets.relayout import move_in_grid
from app.widgets.stable_label import StableLabel
from engine import STEP_INFO, STEP_NAMES, Step
from engine.causality import CausalityReport

#: An exact zero (bitwise equal) is drawn in this colour: the image shows NaN there, and the
#: view's background shows through. Light teal stays apart from the map's pale yellow end, also
#: under deuteranopia and protanopia.
ZERO_COLOUR = QColor("#9fd3e6")
ZERO_HTML = "#9fd3e6"
#: |Δ| colour map (log₁₀ scale): pale yellow (rounding) → orange → purple (large).
DIFF_MAP = "CET-L17"
#: log₁₀|Δ| at the bottom of the colour map: 1e-18, just below float64 rounding of O(1) values.
LOG_FLOOR = -18.0
#: Outline of changed raw scores in earlier rows (they lie in the masked future columns).
OUTLINE_HTML = "#ff7f0e"
OUTLINE_PEN = pg.mkPen(QColor(OUTLINE_HTML), width=2.5)
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
#: Number labels beside the bars up to this many rows; beyond, hover shows the number.
MAX_BAR_LABELS = 24
#: Token labels on the overview's rows and key indices under the difference map, at most
MAX_ROW_LABELS = 16
MAX_KEY_LABELS = 12
#: Tokens of the baseline quoted in the detail line, at most
MAX_QUOTED_TOKENS = 12
#: Draw cell outlines up to this many changed cells (one line item, four edges each).
MAX_OUTLINES = 20_000
ATTENTION_MAPS = ("attn_scores", "causal_mask", "attn_probs")

#: verdict colours, picked for a white page (:func:`app.theme.ink` adapts them to the theme)
GOOD = "#1b7f3b"
WARN = "#b34700"
INFO = "#1f5fa8"
#: verdict in the palette's quiet text colour (:func:`app.theme.quiet_css`)
QUIET = "quiet"


#: PAPER E12's tolerance: after a change of length the common prefix agrees to this (allclose)
E12_ATOL = 1e-12


def abs_diff(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """|after − before| for display, with equal entries (also −∞ against −∞) exactly 0.

    Subtracts only where the bits differ: an edit leaves most entries untouched, and
    arithmetic on the masked −∞ entries is slow (300 ms for one 2048 × 2048 map, 40 ms so)."""
    before = np.ascontiguousarray(before, dtype=np.float64).reshape(-1)
    after_flat = np.ascontiguousarray(after, dtype=np.float64).reshape(-1)
    out = np.zeros(after_flat.size)
    # flat indices: one index array instead of one per axis (~3× faster to find and use)
    changed = np.flatnonzero(before.view(np.int64) != after_flat.view(np.int64))
    with np.errstate(invalid="ignore"):
        out[changed] = np.abs(after_flat[changed] - before[changed])
    return out.reshape(np.shape(after))


def fmt_diff(value: float) -> str:
    """Short: ``0``, ``2.5``, ``0.031``, ``8.9e-16``."""
    return "0" if value == 0 else f"{value:.2g}"


def sparse_labels(labels: list[str], most: int) -> list[str]:
    """At most ``most`` of ``labels`` kept (evenly strided), the rest blank: a small view with
    many rows stays legible (hover names every row)."""
    n = len(labels)
    base = max(1, -(-n // MAX_TICKS))  # the view keeps every base-th tick: stay on its grid
    stride = base * max(1, -(-max(1, -(-n // most)) // base))
    return [label if i % stride == 0 else "" for i, label in enumerate(labels)]


def cell_outline(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """x, y of the four edges of each (row, col) cell, as pairs for ``connect='pairs'``."""
    rows, cols = cells[:, 0].astype(float), cells[:, 1].astype(float)
    x0, x1, y0, y1 = cols, cols + 1, rows, rows + 1
    xs = np.stack([x0, x1, x1, x1, x1, x0, x0, x0], axis=1).reshape(-1)
    ys = np.stack([y0, y0, y0, y1, y1, y1, y1, y0], axis=1).reshape(-1)
    return xs, ys


def _quoted(tokens: tuple[str, ...]) -> str:
    """The first MAX_QUOTED_TOKENS tokens as rich text, "…" after them if there are more; each
    isolated, after a left-to-right mark, so Hebrew or Arabic tokens stay in token order."""
    return LRM + " ".join(isolated(token_html(t)) for t in tokens[:MAX_QUOTED_TOKENS]) + (
        " …" if len(tokens) > MAX_QUOTED_TOKENS else "")


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
        self.bars = pg.PlotWidget(axisItems=fast_axes(), enableMenu=False)
        self.bars.setObjectName("causalityBars")
        self._setup_bars()
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
        #: True while the verdict stands under the badge and buttons (a narrow panel)
        self.verdict_below = False
        self._place_header()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(3)
        layout.addLayout(top)
        layout.addWidget(ReflowGuard(self.detail))  # (a guard shows and hides with its label)
        layout.addWidget(ReflowGuard(self.hint))
        layout.addWidget(self.pages, 1)
        self.set_body(body)
        #: True while the explanation, hint and legend fold behind the Details button
        self.compact = False
        self.split.installEventFilter(self)

        # ----- what is on screen (tests and hover read these) -----
        self.report: CausalityReport | None = None
        self.before: Result | None = None  # the baseline result the report compared against
        self.baseline_kind = ""  # "previous" or "pinned"
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
        self._history: deque[Result] = deque(maxlen=6)
        self._diff_cols: list[str] | None = None
        self._diff_col_kind = ""
        self._mask_size = -1
        self._bars_view: tuple = ()
        self._bars_ticks: list = []

        self.pin_button.toggled.connect(self._on_pin_toggled)
        self.details_button.toggled.connect(lambda _on: self._show_foldable())
        self.head_box.valueChanged.connect(self.state.set_head)
        self.grid_view.clicked.connect(self._on_grid_clicked)
        self.grid_view.hovered.connect(self._on_grid_hovered)
        self.diff_view.hovered.connect(self._on_diff_hovered)
        state.selection_changed.connect(self._on_selection_changed)
        state.baseline_changed.connect(self._on_baseline_changed)
        for name in ("palette_changed", "theme_changed"):
            signal = getattr(state, name, None)
            if signal is not None:
                signal.connect(lambda _value: self.request_redraw())
        self.retranslate()

    # ----- building -----
    def _setup_bars(self) -> None:
        plot = self.bars
        plot.hideButtons()
        plot.setMouseEnabled(x=False, y=False)
        plot.invertY(True)
        left_bottom_only(plot)
        plot.hideAxis("left")
        plot.getViewBox().setBackgroundColor(None)
        self.bar_item = pg.BarGraphItem(x0=[], y=[], height=[], width=[])
        self.zero_item = pg.BarGraphItem(x0=[], y=[], height=[], width=[],
                                         brush=ZERO_COLOUR, pen=pg.mkPen(None))
        plot.addItem(self.zero_item)
        plot.addItem(self.bar_item)
        self.bar_labels: list[pg.TextItem] = []
        self._bar_label_state: list[tuple[str, str] | None] = []
        self.bar_k_line = pg.InfiniteLine(angle=0, pen=pg.mkPen(INFO, width=1.5,
                                                                style=Qt.PenStyle.DashLine))
        plot.addItem(self.bar_k_line)
        self._bars_decades = (0.0, 0.0)  # the log10 range the bars span (see _draw_bars)
        plot.getViewBox().sigResized.connect(self._update_bars_ticks)

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
            line = pg.InfiniteLine(angle=0, pen=pg.mkPen(INFO, width=1.5,
                                                         style=Qt.PenStyle.DashLine))
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
        below = beside < VERDICT_MIN_LINES_PX * self.verdict.fontMetrics().height()
        if below != self.verdict_below:
            self.verdict_below = below
            self._place_header()

    # ----- compact: a short panel folds its words so the views keep their height -----
    def _folded_height(self) -> int:
        """The height the explanation, hint and legend take when shown at this width."""
        width = self.split.width()
        return sum(label.heightForWidth(width) + FOLD_SPACING
                   for label in (self.detail, self.hint, self.legend))

    def _arrange(self) -> None:
        """Fold or unfold by the height the three views get (in text lines, so it follows the
        text size). With Details unfolded the views are as short as without compact mode."""
        line = self.fontMetrics().lineSpacing()
        height = self.split.height()
        if self.compact and self.details_button.isChecked():  # unfolded by hand
            room = height >= COMPACT_LEAVE_LINES * line
        elif self.compact:
            room = height - self._folded_height() >= COMPACT_LEAVE_LINES * line
        else:
            room = height >= COMPACT_BELOW_LINES * line
        if room == (not self.compact):
            return
        self.compact = not room
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
        self.verdict.setToolTip(f"{self.detail.text()}<br><br>{self.hint.text()}"
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
            "PAPER E11 (exact, tested): editing token k leaves every earlier row of every step "
            "bitwise unchanged — except the raw scores of the future columns, which the mask "
            "removes. With the mask off, earlier rows change."))
        self.head_label.setText(self.tr("Head:"))
        self.head_box.setToolTip(self.tr("Query head of the per-head steps (shared with the "
                                         "step heatmap)"))
        self.grid_caption.setText(self.tr("all steps: max |Δ| per row"))
        self.bars_caption.setText(self.tr("this step: max |Δ| per row"))
        self.bars.setLabel("bottom", self.tr("max |Δ| (log)"))
        self.legend.setText(self.tr(
            "<span style='background:%1'>&nbsp;&nbsp;&nbsp;&nbsp;</span> 0 exactly · colour "
            "log₁₀|Δ| (scale under the bars) · <span style='color:%2'><b>- -</b></span> token k · "
            "<span style='color:%3'><b>□</b></span> changed masked score").replace(
            "%1", ZERO_HTML).replace("%2", INFO).replace("%3", OUTLINE_HTML))
        self.legend.setToolTip(self.tr(
            "Teal: the difference is exactly 0 (bitwise equal). Other colours: log₁₀ of |Δ|, "
            "pale for rounding (1e-16), dark for a real change. The dashed line is the first "
            "changed token k. An orange box is a raw score q·k that changed in a row before k: "
            "it lies in the future (j > i, shaded), which causal_mask removes."))
        self.grid_view.plot.setLabel("bottom", self.tr("step"))

    # ----- result history: which baseline the report compared against -----
    def _on_result_changed(self, result: Result | None) -> None:
        if result is None:
            self._history.clear()
        elif not self._history or self._history[-1] is not result:
            self._history.append(result)
        super()._on_result_changed(result)

    def find_baseline(self, result: Result) -> tuple[Result | None, str]:
        """The accepted result the report was computed against: the pinned one or an earlier
        one with the same tokens, config and mask (what the state sent as the baseline)."""
        report = result.causality
        if report is None:
            return None, ""
        pinned = self.state.pinned
        candidates: list[tuple[Result, str]] = []
        if pinned is not None and pinned is not result:
            candidates.append((pinned, "pinned"))
        candidates += [(r, "previous") for r in reversed(self._history) if r is not result]
        for candidate, kind in candidates:
            if (candidate.ok and candidate.tokens == result.baseline_tokens
                    and candidate.trace.config == result.trace.config
                    and candidate.trace.causal == result.trace.causal
                    and candidate.trace.num_tokens == report.num_tokens_before):
                return candidate, kind
        return None, ""

    # ----- drawing -----
    def redraw(self, result: Result) -> None:
        self._result = result
        # the pinned input itself: nothing is compared on screen (see _write_verdict)
        report = None if self.state.pinned is result else result.causality
        self.report = report
        self.before, self.baseline_kind = self.find_baseline(result)
        self._sync_pin_button()
        self._write_verdict(result)
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
        for line in (*self.k_lines, self.bar_k_line):
            line.setValue(k)
            line.setVisible(0 < k < common)
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
        diff = None
        if self.before is not None:
            a = self._head_slice(self.before.trace.step(name))[:common]
            b = self._head_slice(step)[:common]
            if cols_are_keys:  # the key axis is a token axis too: compare the common prefix
                a, b = a[:, :common], b[:, :common]
            diff = abs_diff(a, b)
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
        self._diff_cols = [str(j) for j in range(common)] if cols_are_keys else None
        shown_cols = (sparse_labels(self._diff_cols, MAX_KEY_LABELS if common <= 99 else 5)
                      if self._diff_cols else None)  # 3-digit indices need more room each
        self._diff_col_kind = info.axes[-1]
        if diff is not None:
            self.diff_view.set_diff(diff, self._levels[1], self._rows, shown_cols,
                                    x_title=self.tr(info.axes[-1]))
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
        self._draw_bars(report.per_position[name], k,
                        future_only=name == "attn_scores" and result.trace.causal)

    def _draw_bars(self, values: np.ndarray, k: int, *, future_only: bool) -> None:
        """One bar per row, log₁₀ max |Δ| in the map's colours; exact zeros as a short teal bar
        labelled 0. ``future_only``: rows before k changed only in masked columns (outlined)."""
        self.bar_values = values
        n = len(values)
        rows = np.arange(n) + 0.5
        nonzero = values > 0
        logs = np.maximum(np.log10(np.where(nonzero, values, 1.0)), LOG_FLOOR)
        low, high = self._levels
        outlined = future_only & (np.arange(n) < k)
        if nonzero.any():
            self.bar_item.setOpts(x0=np.full(int(nonzero.sum()), low), y=rows[nonzero],
                                  height=0.72, width=logs[nonzero] - low,
                                  brushes=[self.diff_view.colour_of(v) for v in values[nonzero]],
                                  pens=[OUTLINE_PEN if o else pg.mkPen(None)
                                        for o in outlined[nonzero]])
        else:  # (pyqtgraph 0.14 fails on empty per-bar pen lists)
            self.bar_item.setOpts(x0=[], y=[], height=0.72, width=[], brushes=None, pens=None,
                                  brush=ZERO_COLOUR, pen=pg.mkPen(None))
        zero_width = 0.04 * (high - low)
        self.zero_item.setOpts(x0=np.full(int((~nonzero).sum()), low), y=rows[~nonzero],
                               height=0.72, width=zero_width)
        # number labels: text items are costly to make, so a pool is reused across redraws
        count = n if n <= MAX_BAR_LABELS else 0
        while len(self.bar_labels) < count:
            label = QuietTextItem(anchor=(0.0, 0.5))
            self.bars.addItem(label)
            self.bar_labels.append(label)
            self._bar_label_state.append(None)
        while len(self.bar_labels) > count:
            self.bars.removeItem(self.bar_labels.pop())
            self._bar_label_state.pop()
        foreground = pg.getConfigOption("foreground")
        for i, label in enumerate(self.bar_labels):
            text, colour = fmt_diff(float(values[i])), foreground if nonzero[i] else GOOD
            if self._bar_label_state[i] != (text, str(colour)):
                self._bar_label_state[i] = (text, str(colour))
                label.setText(text, color=colour)
            label.setPos(logs[i] if nonzero[i] else low + zero_width, rows[i])
        span = high - low
        # ranges and ticks only when they change: each call regenerates the axis picture
        view = ((low, high + (0.4 * span if n <= MAX_BAR_LABELS else 0)), (0, n))
        if view != self._bars_view:
            self._bars_view = view
            self.bars.setRange(xRange=view[0], yRange=view[1], padding=0)
        self._bars_decades = (low, high)
        self._update_bars_ticks()

    def _update_bars_ticks(self, _view: object = None) -> None:
        """Decade labels under the bars, every 6th decade or fewer: in a narrow plot "1e-12"
        and "1e-6" ran into each other."""
        low, high = self._bars_decades
        if high <= low:
            return
        axis = self.bars.getAxis("bottom")
        metrics = QFontMetrics(axis.style["tickFont"] or axis.font())
        room = metrics.horizontalAdvance("1e-12") + 2 * metrics.horizontalAdvance(" ")
        width = self.bars.getViewBox().width()
        per_decade = width / (high - low) if width > 0 else room
        step = 6 * max(1, int(np.ceil(room / (6 * per_decade))))
        ticks = [(v, "1" if v == 0 else f"1e{int(v)}")
                 for v in range(int(np.ceil(low / step) * step), int(high) + 1, step)]
        if ticks != self._bars_ticks:
            self._bars_ticks = ticks
            axis.setTicks([ticks, []])

    # ----- words -----
    def _token(self, tokens: tuple[str, ...], i: int) -> str:
        return token_html(tokens[i]) if 0 <= i < len(tokens) else "∅"

    def _write_verdict(self, result: Result) -> None:
        report = result.causality
        causal = result.trace.causal
        self.badge.set_claim("EXACT", "E11")
        self.earlier_max = None
        if self.state.pinned is result:
            # just pinned: the comparison on screen was with the previous input, and the pin
            # seemed to change nothing until the next edit; say what the baseline is now
            self._set_verdict(QUIET, self.tr("Baseline pinned"))
            text = self.tr("“%1” (%2 tokens) is the baseline now: edit the text and every "
                           "input is compared with it until you release the pin.").replace(
                "%1", _quoted(result.tokens)).replace("%2", str(len(result.tokens)))
            self.detail.setText(text)
            self.hint.setText(self._suggestion(causal))
            self.nothing.setText(_large(text))
            return
        if report is None:
            self._set_verdict(QUIET, self.tr("No comparison yet"))
            pinned = self.state.pinned
            pin_blocks = (pinned is not None and pinned is not result
                          and pinned.trace.causal != causal)
            if pin_blocks:
                reason = self.tr("The pinned baseline was computed with the mask %1: release "
                                 "the pin to compare this layer with itself.").replace(
                    "%1", self.tr("on") if pinned.trace.causal else self.tr("off"))
            elif len(self._history) > 1:
                previous = self._history[-2]
                if previous.trace.causal != causal:
                    reason = self.tr("The causal mask was just switched %1: the new layer has "
                                     "nothing of its own kind to compare with yet.").replace(
                        "%1", self.tr("on") if causal else self.tr("off"))
                else:
                    reason = self.tr("The layer itself changed (config or weights): there is "
                                     "nothing of the same layer to compare with yet.")
            else:
                reason = self.tr("This is the first input: there is nothing to compare it "
                                 "with yet.")
            self.detail.setText(reason)
            self.hint.setText(self._suggestion(causal))
            if pin_blocks:
                # every edit stays uncompared until the pin is released: the page says so
                # (it said "edit the last word", and the reason was folded behind Details)
                self.nothing.setText(_large(reason))
            else:
                self.nothing.setText(self._big_hint(causal))
            return
        tokens_after, tokens_before = result.tokens, result.baseline_tokens
        source = (self.tr("pinned baseline") if self.baseline_kind == "pinned"
                  else self.tr("previous input"))
        compared = self.tr("Before: “%1” (%2, %3 tokens).").replace(
            "%1", _quoted(tokens_before)).replace("%2", source).replace(
            "%3", str(report.num_tokens_before))
        k = report.first_changed
        if not report.changed:
            self._set_verdict(QUIET, self.tr("Same tokens as the baseline: nothing changed"))
            self.detail.setText(compared)
            self.hint.setText(self._suggestion(causal))
            self.nothing.setText(self._big_hint(causal))
            return
        if k < len(tokens_after):
            k_token = self.tr("token %1 “%2”").replace("%1", str(k)).replace(
                "%2", self._token(tokens_after, k))
        else:  # the last token(s) deleted: k is past the end, named as it was before
            k_token = self.tr("removed token %1 “%2”").replace("%1", str(k)).replace(
                "%2", self._token(tokens_before, k))
        earlier = report.max_earlier_diff
        self.earlier_max = earlier
        if k == 0:
            self._set_verdict(QUIET, self.tr("The first token changed: there are no earlier "
                                             "rows to check"))
            self.detail.setText(compared)
            self.hint.setText(self.tr("Edit a later token — e.g. <b>the last word</b> — and "
                                      "watch the rows before it."))
            return
        if causal and report.num_tokens_before != report.num_tokens_after:
            # PAPER E12: a new shape; the common prefix agrees only up to rounding (with the
            # mask off the earlier rows read the new tokens: the mask-off verdict below)
            self.badge.set_claim("EXACT", "E12")
            what = (self.tr("appended") if report.num_tokens_after > report.num_tokens_before
                    else self.tr("removed"))
            if k >= report.common:
                head = self.tr("%1 → %2 tokens (%3 at the end): the common prefix agrees up to "
                               "rounding, max |Δ| = %4").replace(
                    "%1", str(report.num_tokens_before)).replace(
                    "%2", str(report.num_tokens_after)).replace("%3", what).replace(
                    "%4", fmt_diff(earlier))
            else:
                head = self.tr("%1 → %2 tokens: rows before %3 agree up to rounding, "
                               "max |Δ| = %4").replace(
                    "%1", str(report.num_tokens_before)).replace(
                    "%2", str(report.num_tokens_after)).replace("%3", k_token).replace(
                    "%4", fmt_diff(earlier))
            self._set_verdict(INFO, head)
            self.detail.setText(compared + " " + self.tr(
                "PAPER E12: allclose (1e-12), <b>not</b> bitwise — a new shape may change how "
                "the matrix products are blocked.") + (
                " " + self.tr("(Here it happens to be 0.)") if earlier == 0 else ""))
            self.hint.setText(self.tr(
                "For the bitwise test keep the token count: <b>edit the last word</b> instead "
                "of adding or removing one."))
            return
        n_steps = len(report.step_names) - 1  # the report holds embed too: 22 steps after it
        if causal and report.exact:
            self._set_verdict(GOOD, self.tr(
                "Every row before %1 is bitwise identical (max |Δ| = 0)").replace("%1", k_token))
            scores = self.tr("In the input and all %1 steps.").replace("%1", str(n_steps))
            if report.scores_changed_count:
                if report.scores_changed_future_only:
                    scores = self.tr(
                        "In the input and all %1 steps, except %n raw score(s) in attn_scores "
                        "(step 10): all in the future column(s) j ≥ k — exactly what causal_mask "
                        "(step 11) removes.", "", report.scores_changed_count).replace(
                        "%1", str(n_steps))
                else:
                    scores = self.tr("Unexpected: raw scores outside the future columns changed.")
            self.detail.setText(scores + " " + compared)
            self.hint.setText(self.tr(
                "Next: turn the mask off (View ▸ Causal mask, key M) and edit the last word "
                "again."))
        else:
            # after a change of length, rounding (E12: up to ~1e-12) is not a change
            floor = 0.0 if report.num_tokens_before == report.num_tokens_after else E12_ATOL
            changed_steps = [n for n in report.step_names
                             if report.earlier_max_abs_diff[n] > floor
                             and (n != "attn_scores" or not causal)]
            first_step = changed_steps[0] if changed_steps else ""
            if causal:
                self._set_verdict(WARN, self.tr(
                    "Unexpected: earlier rows changed although the mask is on (max |Δ| = %1)")
                    .replace("%1", fmt_diff(earlier)))
            else:
                earlier = max(earlier, report.earlier_max_abs_diff["attn_scores"])
                self.earlier_max = earlier
                self._set_verdict(WARN, self.tr(
                    "Mask off: earlier rows changed (max |Δ| = %1 before %2)")
                    .replace("%1", fmt_diff(earlier)).replace("%2", k_token))
            steps_text = self.tr("%1 of %2 steps changed rows before k, from step %3 %4 on: "
                                 "nothing removes the future key any more.").replace(
                "%1", str(len(changed_steps))).replace(
                "%2", str(n_steps)).replace(
                "%3", str(STEP_NAMES.index(first_step)) if first_step else "–").replace(
                "%4", first_step)
            self.detail.setText(steps_text + " " + compared)
            self.hint.setText(self.tr(
                "Turn the mask back on (View ▸ Causal mask, key M) and edit again: the earlier "
                "rows return to exactly 0."))

    def _set_verdict(self, colour: str, text: str) -> None:
        text = text.replace("max |Δ| = ", "max\u00a0|Δ|\u00a0=\u00a0")  # never wrap inside
        colour = theme.quiet_css() if colour == QUIET else theme.ink(colour)
        self.verdict.setText(f"<span style='color:{colour}'>{text}</span>")

    @property
    def verdict_plain(self) -> str:
        """The verdict as a reader sees it: no markup, ordinary spaces."""
        return QTextDocumentFragment.fromHtml(self.verdict.text()).toPlainText().replace(
            "\u00a0", " ")

    def _suggestion(self, causal: bool) -> str:
        if causal:
            return self.tr("Try it: <b>edit the last word</b> (keep the number of tokens) — "
                           "every earlier row should stay exactly the same.")
        return self.tr("The mask is off: <b>edit the last word</b> and see the earlier rows "
                       "change.")

    def _big_hint(self, causal: bool) -> str:
        return (_large(self._suggestion(causal)) + "<p style="
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
        column = (self._rows[col] if self._diff_cols else f"{self._diff_col_kind} {col}")
        self.readout.setText(self.tr("%1 · column %2 · |Δ| = %3").replace(
            "%1", self._rows[row]).replace("%2", column).replace(
            "%3", repr(value) if value else self.tr("0 (bitwise equal)")))
