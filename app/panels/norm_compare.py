"""LayerNorm vs RMSNorm for one token at one point of the layer, and the projection reading.

The vector is a row of the result (``embed`` or ``resid_attn``: the inputs of the layer's two
RMSNorms). ``engine.norms.compare_norms`` gives both norms with γ = 1 and the layer's ε, their
statistics and the distances to the constraint sets (docs/continuous.md E5, E10); the panel
only reads them. The layer's own RMSNorm·γ is checked against the trace row it must equal.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, QPointF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.compute import Result
from app.panels.base import Panel
from app.panels.norm_words import (
    IDENTITY_TEXT,
    hover_text,
    match_text,
    plain_text,
    projection_readings,
)
from app.state import AppState
from app.widgets.arrangement import Arrangement, Hysteresis
from app.widgets.cached_bounds import CachedBoundsBars
from app.widgets.controls import set_tooltip, sync_combo
from app.widgets.norm_parts import (
    InlineBadge,
    LevelLine,
    RangeMemoryAxis,
    column_widths,
    empty_bars,
    empty_line,
    fit_table_height,
    nice_ceil,
    one_line_width,
    stats_row,
)
from app.widgets.plotting import fast_axes, left_bottom_only
from app.widgets.reflow_guard import ReflowGuard
from app.widgets.relayout import move_in_grid
from app.widgets.stable_label import StableLabel
from app.widgets.stacked_table import StackedTable
from engine.norms import NormComparison, VectorStats, compare_norms, weighted_rms_norm

#: point of the layer -> (the RMSNorm step that reads it, its weight, depth time)
POINTS: dict[str, tuple[str, str, str]] = {
    "embed": ("input_layernorm", "input_layernorm.weight", "t = 0"),
    "resid_attn": ("post_attention_layernorm", "post_attention_layernorm.weight", "t = ½"),
}
#: Up to this many features the chart is grouped bars; beyond, one line per series.
MAX_BAR_FEATURES = 64

#: series -> colour
COLOURS = {
    "v": (150, 150, 150),
    "ln": (230, 120, 20),
    "rms": (33, 90, 180),
    "layer": (27, 127, 59),
}
#: badge background: EXACT, anything else

#: The table's row names; the last one may wrap after "RMSNorm(v)" in a narrow dock.
ROW_LABELS = ("v", "LN(v)", "RMSNorm(v)", "RMSNorm(v)·γ")
WRAPPED_ROW_LABELS = ("v", "LN(v)", "RMSNorm(v)", "RMSNorm(v)\n·γ")
#: What the table tries, in order, until its numbers fit whole: (row names, text scale).
TABLE_FITS = ((ROW_LABELS, 1.0), (WRAPPED_ROW_LABELS, 1.0), (WRAPPED_ROW_LABELS, 0.95),
              (WRAPPED_ROW_LABELS, 0.9))
#: The chart's least data height (px): its bars' signs still read. Its axis' numbers and
#: title come on top (80 px in all left 42 px of bars; 110 px made a 1920 x 1080 window
#: scroll by 10 px, see chart_min_height)
CHART_MIN_HEIGHT = 62
#: Compact once everything shown would need more height than the viewport has (room < 0 px),
#: wide again once it has a few pixels to spare: the room is measured against the wide
#: arrangement's height, remembered from when it was last on (see _fit_content)
FOLDING = Hysteresis(enter=0, leave=6)
#: Folded, a dock widened by more than this (a scroll bar's coming and going) measures again
REMEASURE_WIDER_PX = 48


def chart_min_height(line: int) -> int:
    """The chart's least height for a text line of ``line`` px: its data area at least
    CHART_MIN_HEIGHT px, with the axis' numbers and title under it (about three lines)."""
    return CHART_MIN_HEIGHT + 3 * line


class NormComparePanel(Panel):
    """Input v, LN(v) and RMSNorm(v) side by side, their statistics, the projection reading."""

    def __init__(self, state: AppState) -> None:
        super().__init__(state)
        body = QWidget()
        self.token_label = QLabel()
        self.token_box = QComboBox()
        self.token_box.setObjectName("normTokenBox")
        self.token_box.setMinimumContentsLength(6)
        self.token_box.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.point_label = QLabel()
        self.point_box = QComboBox()
        self.point_box.setObjectName("normPointBox")
        for key in POINTS:
            self.point_box.addItem("", key)
        self.identity = QLabel()
        self.identity.setObjectName("normIdentity")
        self.identity.setWordWrap(True)

        axes = fast_axes()  # a grid: fast lines
        axes["left"] = RangeMemoryAxis("left")
        self.graph = pg.PlotWidget(axisItems=axes, enableMenu=False)
        left_bottom_only(self.graph)
        self.graph.setObjectName("normGraph")
        self.graph.setMinimumHeight(chart_min_height(self.fontMetrics().height()))
        # no size hint of its own: the chart takes what the text leaves, down to its minimum
        self.graph.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Ignored)
        self.plot = self.graph.getPlotItem()
        self.plot.hideButtons()
        self.plot.getViewBox().setMouseEnabled(x=False, y=False)
        self.plot.showGrid(y=True, alpha=0.25)
        self.plot.addItem(pg.InfiniteLine(pos=0, angle=0, pen=pg.mkPen((90, 90, 90), width=1)))
        self.mean_line = LevelLine(angle=0, pen=pg.mkPen(
            (120, 120, 120), width=1, style=Qt.PenStyle.DashLine))
        self.plot.addItem(self.mean_line)
        self.bars: dict[str, pg.BarGraphItem] = {}
        self.lines: dict[str, pg.PlotDataItem] = {}
        for key, rgb in COLOURS.items():
            bar = CachedBoundsBars(x=[], height=[], width=0.2, brush=QColor(*rgb),
                                  pen=pg.mkPen(QColor(*rgb).darker(130), width=0.5))
            # 1 px: a line is drawn only for long vectors (a real model's 1024 features), where
            # Qt strokes a wider antialiased pen ~8x slower (0.5 s a repaint, the window stalled)
            line = pg.PlotDataItem(pen=pg.mkPen(QColor(*rgb), width=1))
            self.plot.addItem(bar)
            self.plot.addItem(line)
            self.bars[key], self.lines[key] = bar, line
        self.legend = QLabel()
        self.legend.setObjectName("normLegend")
        self.legend.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.legend.setWordWrap(True)
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.show_layer = QCheckBox()
        self.show_layer.setObjectName("normShowLayer")

        self._row_labels = ROW_LABELS
        self._fitting = False
        self._header_pad: int | None = None
        self.table = QTableWidget(4, 3)
        self.table.setObjectName("normTable")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        # every column at least as wide as its widest number (see _fit_columns): stretched
        # equally, a 1366 x 768 window elided 0.9999997 to "0.99999…", which reads as 1
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.table.installEventFilter(self)
        self.table.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        for r in range(4):
            for c in range(3):
                item = QTableWidgetItem("")
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(r, c, item)
        # the teaching point in the table: LN's mean is 0 (to rounding) and its std 1, RMSNorm's
        # RMS is 1
        for r, c in ((1, 0), (1, 1), (2, 2)):
            item = self.table.item(r, c)
            font = item.font()
            font.setBold(True)
            item.setFont(font)

        self.proj_title = QLabel()
        self.proj_title.setStyleSheet("font-weight: bold;")
        self.proj_title.setWordWrap(True)
        # numbers that change with every edit: see ReflowGuard and StableLabel
        self.ln_text, self.rms_text, self.centred_text = StableLabel(), StableLabel(), StableLabel()
        self.ln_badge, self.rms_badge, self.centred_badge = (InlineBadge() for _ in range(3))
        self.ln_text.setObjectName("normLnDistance")
        self.rms_text.setObjectName("normRmsDistance")
        self.centred_text.setObjectName("normCentred")
        self.match_text = StableLabel()
        self.match_text.setObjectName("normLayerMatch")
        self.match_text.setWordWrap(True)
        for label in (self.ln_text, self.rms_text, self.centred_text, self.match_text):
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        for label in (self.ln_text, self.rms_text, self.centred_text):
            label.setTextFormat(Qt.TextFormat.RichText)
            label.setWordWrap(True)

        # Token and Vector on one row, or one under the other in a narrow dock (the tour open
        # at 1366 x 768): one row was wider than the dock, so the panel scrolled sideways and
        # cut the explanation under it (see _arrange_controls)
        controls = QGridLayout()
        # (4 px: English's Token and Vector then fit one row of a 1366 x 768 window's dock)
        controls.setHorizontalSpacing(4)
        controls.setVerticalSpacing(2)
        self._controls = controls
        #: True while Vector stands under Token
        self.controls_stacked = False
        # the chart's key and the layer's RMSNorm·γ box: one row, or the box under the key
        legend_row = QGridLayout()
        legend_row.setHorizontalSpacing(6)
        legend_row.setVerticalSpacing(2)
        self._legend_row = legend_row
        #: True while the "show the layer's RMSNorm·γ" box stands under the key
        self.legend_stacked = False
        # the compact arrangement folds the identity, the layer's RMSNorm·γ box and its match
        # line behind this button (its check is the teacher's: kept across switches)
        self.details_button = QToolButton()
        self.details_button.setObjectName("normDetails")
        self.details_button.setCheckable(True)
        self.details_button.setAutoRaise(False)
        self.details_button.hide()
        #: the projection reading (distances to the constraint sets), one block
        self.reading = QWidget()
        self.reading.setObjectName("normReading")
        proj = QVBoxLayout(self.reading)
        proj.setContentsMargins(0, 0, 0, 0)
        proj.setSpacing(2)
        title_row = QHBoxLayout()
        title_row.setContentsMargins(0, 0, 0, 0)
        title_row.addWidget(self.proj_title, 1)
        title_row.addWidget(self.details_button, 0, Qt.AlignmentFlag.AlignTop)
        proj.addLayout(title_row)
        for text in (self.ln_text, self.rms_text, self.centred_text):
            proj.addWidget(ReflowGuard(text))
        #: the reading's full lines; the compact arrangement shows one short line per distance
        #: and keeps each full line in its tooltip
        self._full: dict[StableLabel, str] = {}
        self._short: dict[StableLabel, str] = {}
        self._match_guard = ReflowGuard(self.match_text)
        #: wide: everything shown; compact (a 1600 x 1000 window): the identity, the layer's
        #: box and the match line behind Details (see _fold)
        self.folding = Arrangement(FOLDING, wide=self._fold, compact=self._fold)
        #: ... and, folded, when the full reading still does not fit (1366 x 768): one short
        #: line per distance, the full line its tooltip
        self.shortening = Arrangement(FOLDING, wide=self._fold, compact=self._fold)
        #: the content's height in the wide arrangement, at the width it was last measured
        self._wide_need = 0
        self._need_width = -1  # (the width _wide_need was measured at)
        #: ... and with the identity and match line folded, the reading full
        self._folded_need = 0
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(3)
        layout.addLayout(controls)
        # the reading first: under the chart and the table, a 1366 x 768 window had to scroll
        # to reach it; here it shows whole with the chart under it. (A fixed order: moving it
        # with removeWidget as the dock resized left a dangling widget that crashed
        # QApplication.allWidgets() at the next theme switch)
        layout.addWidget(self.reading)
        layout.addWidget(self.graph, 1)
        layout.addLayout(legend_row)
        self._place_controls()
        layout.addWidget(self.identity)
        layout.addWidget(self.table)
        #: the table one row under another where its columns do not fit (see _fit_columns)
        self.stacked_table = StackedTable(self.table)
        self.stacked_table.setObjectName("normStackedTable")
        self.stacked_table.hide()
        layout.addWidget(self.stacked_table)
        layout.addWidget(self._match_guard)
        # small docks scroll instead of squashing the chart or cutting the projection lines
        scroll = QScrollArea()
        scroll.setObjectName("normScroll")
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        # narrower than its controls (the tour open at 1366 x 768): scroll, never cut off the
        # table's right-hand columns unseen
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        scroll.setWidget(body)
        scroll.viewport().installEventFilter(self)
        body.installEventFilter(self)
        self._scroll, self._content = scroll, body
        self.set_body(scroll)

        #: what is on screen (tests read these)
        self.comparison: NormComparison | None = None  # γ = 1, ε of the layer
        self.layer_rms: np.ndarray | None = None  # RMSNorm(v)·γ with the layer's own γ
        #: what the last complete redraw drew (see ``redraw``)
        self._drawn_key: tuple | None = None
        self.layer_row: np.ndarray | None = None  # the trace row it must equal
        self.shown_query = -1
        self._hover_feature = -1
        self._tokens: tuple[str, ...] = ()
        self._token_items: list[str] = []
        self._shown_tokens: tuple[str, ...] = ()
        self._view: tuple = ()  # the chart's (x, y) range on screen

        self.token_box.currentIndexChanged.connect(self._on_token_box)
        self.point_box.currentIndexChanged.connect(lambda _i: self.request_redraw())
        self.show_layer.toggled.connect(self._on_show_layer)
        self.details_button.toggled.connect(lambda _on: self._fold())
        self.graph.scene().sigMouseMoved.connect(self._on_mouse_moved)
        state.language_changed.connect(lambda _lang: self._set_identity())
        self.retranslate()

    def _place_controls(self) -> None:
        """Token and the chart's key keep their cells; Vector and the layer's box move beside
        or under them, by their own layout items (see app/widgets/relayout.py)."""
        grid = self._controls
        if grid.indexOf(self.token_label) < 0:  # the first time: every widget in one row
            grid.addWidget(self.token_label, 0, 0)
            grid.addWidget(self.token_box, 0, 1)
            grid.addWidget(self.point_label, 0, 2)
            grid.addWidget(self.point_box, 0, 3)
            self._legend_row.addWidget(self.legend, 0, 0)
            self._legend_row.addWidget(self.show_layer, 0, 1)
        stacked = self.controls_stacked
        move_in_grid(grid, self.point_label, 1 if stacked else 0, 0 if stacked else 2)
        move_in_grid(grid, self.point_box, 1 if stacked else 0, 1 if stacked else 3)
        for column in range(4):  # the boxes share the spare width (Token's 1 : Vector's 2)
            grid.setColumnStretch(column, 0)
        grid.setColumnStretch(1, 1)
        if not stacked:
            grid.setColumnStretch(3, 2)
        row = self._legend_row
        move_in_grid(row, self.show_layer, 1 if self.legend_stacked else 0,
                     0 if self.legend_stacked else 1)
        row.setColumnStretch(0, 1)

    def _arrange_controls(self) -> None:
        """Token and Vector side by side while one row fits the visible width, else one
        under the other; the same for the chart's key and the layer's box."""
        margins = self._content.layout().contentsMargins()
        room = self._scroll.viewport().width() - margins.left() - margins.right()

        def row_width(widgets: tuple[QWidget, ...], grid: QGridLayout) -> int:
            return (sum(w.sizeHint().width() for w in widgets)
                    + (len(widgets) - 1) * grid.horizontalSpacing())

        stacked = room < row_width((self.token_label, self.token_box, self.point_label,
                                    self.point_box), self._controls)
        # the key on one line beside the layer's box, or under it
        legend = room < (one_line_width(self.legend.text(), self.legend.font())
                         + self._legend_row.horizontalSpacing()
                         + self.show_layer.sizeHint().width())
        if (stacked, legend) != (self.controls_stacked, self.legend_stacked):
            self.controls_stacked, self.legend_stacked = stacked, legend
            self._place_controls()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize and watched is self._scroll.viewport():
            self._arrange_controls()
            self._fit_columns()  # (a hidden table gets no resize of its own)
        if (event.type() == QEvent.Type.Resize and watched is self._scroll.viewport()) or \
                (event.type() == QEvent.Type.LayoutRequest and watched is self._content):
            self._fit_content()
        if watched is self.table and event.type() in (QEvent.Type.Resize,
                                                      QEvent.Type.FontChange):
            self._fit_columns()
        return super().eventFilter(watched, event)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange and hasattr(self, "stacked_table"):
            self.graph.setMinimumHeight(chart_min_height(self.fontMetrics().height()))
            self._fit_columns()  # the table's own (fitted) font follows the text size

    def _fit_columns(self) -> None:
        """Each column as wide as its widest number, the spare width shared out. Where that
        does not fit, the last row's name wraps onto two lines, then the table's text gets a
        little smaller (to TABLE_FITS' last scale), and only then does the table scroll
        sideways: a number is never cut short ("0.99999…" for 0.9999997 reads as 1)."""
        if self._fitting or not hasattr(self, "stacked_table"):
            return  # (setting the table's font below sends a FontChange)
        self._fitting = True
        try:
            table = self.table
            margins = self._content.layout().contentsMargins()
            # the width the layout gives the table (hidden, its own width is stale)
            room = (self._scroll.viewport().width() - margins.left() - margins.right()
                    - 2 * table.frameWidth())
            base = self.font()  # the panel's: scaled with the app's text size
            for labels, scale in TABLE_FITS:
                font = QFont(base)
                font.setPointSizeF(base.pointSizeF() * scale)
                if table.font() != font:
                    table.setFont(font)
                if labels != self._row_labels:
                    self._row_labels = labels
                    table.setVerticalHeaderLabels(list(labels))
                needs = [max(table.sizeHintForColumn(c), table.horizontalHeader()
                             .sectionSizeHint(c)) for c in range(table.columnCount())]
                spare = room - self._row_header_width() - sum(needs)
                if spare >= 0:
                    break
            fits = spare >= 0
            # where even that does not fit, the rows one under another (a class cannot
            # scroll a table sideways): StackedTable, a name and a number wide
            if table.isHidden() == fits:
                table.setVisible(fits)
                self.stacked_table.setVisible(not fits)
            table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff if fits
                                               else Qt.ScrollBarPolicy.ScrollBarAsNeeded)
            header = table.horizontalHeader()
            sizes = [header.sectionSize(c) for c in range(len(needs))]
            for c, width in enumerate(column_widths(needs, spare, sizes)):
                if sizes[c] != width:
                    header.resizeSection(c, width)
            fit_table_height(self.table)
        finally:
            self._fitting = False

    def _row_header_width(self) -> int:
        """The width the row names need in the table's current font."""
        header = self.table.verticalHeader()
        metrics = QFontMetrics(self.table.font())
        widest = max(metrics.horizontalAdvance(line) for label in self._row_labels
                     for line in label.split("\n"))
        if self._header_pad is None:  # the style's margins around a row name
            self._header_pad = header.sizeHint().width() - widest
        return widest + self._header_pad

    def _fit_content(self) -> None:
        """Wrapped labels need more height when the dock is narrow; tell the scroll area, or
        a short dock would squeeze the widgets on top of each other instead of scrolling."""
        layout = self._content.layout()
        width = self._scroll.viewport().width()
        if self.folding.compact and width > self._need_width + REMEASURE_WIDER_PX:
            # measured narrower, the wrapped lines' needs kept a widened panel folded for good
            self.shortening.update(1e9)
            self.folding.update(1e9)
        # the chart's size hint is ignored (0) in heightForWidth: add its minimum
        need = layout.heightForWidth(width) + self.graph.minimumHeight()
        if need != self._content.minimumHeight():
            self._content.setMinimumHeight(need)
        if not self.folding.compact:
            self._wide_need, self._need_width = need, width
            self._folded_need = need - self._folded_away(width)
        elif not self.shortening.compact:
            self._folded_need = need
        height = self._scroll.viewport().height()
        self.folding.update(height - self._wide_need)
        self.shortening.update(height - self._folded_need if self.folding.compact else 1e9)

    def _folded_away(self, width: int) -> int:
        """What folding saves at ``width``: the identity and the match line, each with its
        spacing."""
        spacing = self._content.layout().spacing()
        return sum(w.heightForWidth(width) + spacing if w.hasHeightForWidth()
                   else w.sizeHint().height() + spacing
                   for w in (self.identity, self._match_guard))

    def _fold(self) -> None:
        """Show what :attr:`folding` and :attr:`shortening` chose: folded, no identity,
        layer's box or match line until Details is pressed; shortened, the short reading
        (its full lines in tooltips)."""
        compact = self.folding.compact
        shown = not compact or self.details_button.isChecked()
        self.details_button.setVisible(compact)
        for widget in (self.identity, self.show_layer, self._match_guard):
            widget.setVisible(shown)
        self._show_reading()

    def _show_reading(self) -> None:
        """The reading's lines in the current arrangement."""
        compact = self.shortening.compact
        self.proj_title.setText(self._short_title if compact else self._title)
        self.proj_title.setToolTip(self._title if compact else "")
        for label, full in self._full.items():
            label.setText(self._short[label] if compact else full)
            label.setToolTip(f"{self._title}\n{plain_text(full)}" if compact else "")

    # ----- strings -----
    @property
    def point(self) -> str:
        """The layer point shown: "embed" or "resid_attn"."""
        return self.point_box.currentData()

    def set_point(self, point: str) -> None:
        self.point_box.setCurrentIndex(list(POINTS).index(point))

    def retranslate(self) -> None:
        self.token_label.setText(self.tr("Token:"))
        self.point_label.setText(self.tr("Vector:"))
        self.point_box.setItemText(0, self.tr("embed (t = 0)"))
        self.point_box.setItemText(1, self.tr("resid_attn (t = ½)"))
        self.point_box.setToolTip(self.tr(
            "The vectors the layer's two RMSNorms read: embed goes into input_layernorm, "
            "resid_attn into post_attention_layernorm"))
        self.show_layer.setText(self.tr("show the layer's RMSNorm·γ"))
        self.show_layer.setToolTip(self.tr("Also draw the layer's own RMSNorm with its weight γ "
                                           "(the row of its norm step)"))
        self.table.setHorizontalHeaderLabels([self.tr("mean"), self.tr("std"), self.tr("RMS")])
        self.table.setVerticalHeaderLabels(list(self._row_labels))
        self.table.setToolTip(self.tr("std is the population std (1/d), as LayerNorm uses; "
                                      "the length is ‖u‖ = √d · RMS"))
        self._title = self.tr("Distance from v (normalisation as projection, ε = 0, γ = 1):")
        self._short_title = self.tr("Distance from v:")
        self._show_reading()
        self.plot.setLabel("bottom", self.tr("feature"))
        self.details_button.setText(self.tr("Details"))
        self.details_button.setToolTip(self.tr(
            "Show the identity LN(v) = RMSNorm(v − mean v), the layer's own RMSNorm·γ and "
            "its check against the trace"))
        self.mean_line.setToolTip(self.tr("mean of v"))
        self._set_legend()
        self._set_identity()
        self._arrange_controls()  # the words have their own widths in each language

    def _set_legend(self) -> None:
        """The colour key; while the mouse is over a feature, that feature's numbers."""
        self._hover_feature = -1
        entries = [("v", "v"), ("ln", "LN(v)"), ("rms", "RMSNorm(v)")]
        if self.show_layer.isChecked():
            entries.append(("layer", "RMSNorm(v)·γ"))
        self.legend.setText(" &nbsp; ".join(
            # (a no-break space: a wrapped key never leaves a swatch at a line's end)
            f"<span style='color:rgb{COLOURS[key]}'>■</span>&nbsp;{name}" for key, name in entries))

    def _set_identity(self) -> None:
        self.identity.setText(IDENTITY_TEXT.get(self.state.language, IDENTITY_TEXT["en"]))

    # ----- state -> view -----
    def _on_selection_changed(self, field: str) -> None:
        if field == "query":
            self.request_redraw()

    def _on_show_layer(self, _on: bool) -> None:
        self._set_legend()
        self._arrange_controls()  # a longer key
        self.request_redraw()

    def _on_token_box(self, index: int) -> None:
        if index >= 0:
            self.state.set_query(index)

    def _sync_controls(self, result: Result) -> None:
        if result.tokens != self._tokens:
            shown, before = result.shown_tokens, self._shown_tokens
            # an edit writes only the items of the tokens it changed (512 f-strings per edit)
            same_length = len(shown) == len(before)
            items = list(self._token_items) if same_length else [""] * len(shown)
            for i, token in enumerate(shown):
                if not same_length or token != before[i]:
                    items[i] = f"{i}  {token}"
            self._tokens, self._shown_tokens, self._token_items = result.tokens, shown, items
        sync_combo(self.token_box, self._token_items, self.state.query)

    def redraw(self, result: Result) -> None:
        self._sync_controls(result)
        trace = result.trace
        config = trace.config
        query = self.state.query
        point = self.point
        norm_step, weight_name, _t = POINTS[point]
        v = trace[point][query]  # [D] float64
        layer_row = trace[norm_step][query]
        weights = self.state.weights
        own_weights = weights.config == config  # (a new model may be pending)
        # an edit after the shown token leaves its row as it was (the causal mask): then
        # everything drawn here reads the same, and nothing is drawn again
        key = (self.redraw_epoch, point, query, self.show_layer.isChecked(),
               config.rms_norm_eps, id(weights) if own_weights else None, v.tobytes(),
               layer_row.tobytes())
        if key == self._drawn_key:
            self.shown_query = query
            return
        self._drawn_key = None  # until drawn
        eps = config.rms_norm_eps
        # derived on the worker for the last token (app/derive.py); another row: found here
        derived = result.derived.norm_comparison(point, query) if result.derived else None
        cmp = derived if derived is not None else compare_norms(v, eps=eps)
        self.comparison, self.shown_query = cmp, query
        if own_weights:
            # RMSNorm(v)·γ, what compare_norms(v, eps=eps, gamma=γ).rms_norm is
            self.layer_rms = weighted_rms_norm(cmp.vector, weights[weight_name], eps)
        else:
            self.layer_rms = None
        self.layer_row = layer_row

        self._draw_chart(cmp)
        if self._hover_feature >= 0:
            self.legend.setText(self.hover_text(min(self._hover_feature, v.size - 1)))
        self._fill_table(cmp)
        self._fill_match(norm_step, query)
        self._fill_projection(cmp, config.rms_norm_eps)
        self._fit_content()
        self._drawn_key = key

    def _draw_chart(self, cmp: NormComparison) -> None:
        d = cmp.vector.size
        series = {"v": cmp.vector, "ln": cmp.layer_norm, "rms": cmp.rms_norm}
        if self.show_layer.isChecked() and self.layer_rms is not None:
            series["layer"] = self.layer_rms
        x = np.arange(d, dtype=np.float64)
        as_bars = d <= MAX_BAR_FEATURES
        width = 0.8 / len(series)
        for k, key in enumerate(COLOURS):
            values = series.get(key)
            bar, line = self.bars[key], self.lines[key]
            # an item emptied again, or a view range set again, still repaints or re-lays out
            # the plot: only what changed is touched
            if values is None:
                empty_bars(bar)
                empty_line(line)
                continue
            if as_bars:
                offset = (k - (len(series) - 1) / 2) * width
                bar.setOpts(x=x + offset, height=values, width=width * 0.92)
                empty_line(line)
            else:
                empty_bars(bar)
                line.setData(x, values)
        if self.mean_line.value() != cmp.input_stats.mean:
            self.mean_line.setPos(cmp.input_stats.mean)
        top = max(float(np.max(np.abs(s))) for s in series.values())
        top = nice_ceil(1.08 * top) if top > 0 else 1.0
        view = ((-0.6, d - 0.4), (-top, top))
        if view != self._view:
            self._view = view
            self.plot.getViewBox().setRange(xRange=view[0], yRange=view[1], padding=0)

    def _fill_table(self, cmp: NormComparison) -> None:
        rows = [cmp.input_stats, cmp.layer_norm_stats, cmp.rms_norm_stats,
                VectorStats.of(self.layer_rms) if self.layer_rms is not None else None]
        # each cell's setText tells the view and its resize-to-contents header on its own
        # (~0.15 ms a cell): the model stays quiet while the texts change, then says it once
        model = self.table.model()
        changed = []
        model.blockSignals(True)
        try:
            for r, stats in enumerate(rows):
                texts = stats_row(stats) if stats is not None else ("—",) * 3
                for c, text in enumerate(texts):
                    item = self.table.item(r, c)
                    if item.text() != text:
                        item.setText(text)
                        changed.append((r, c))
        finally:
            model.blockSignals(False)
        if changed:
            rows_changed = [r for r, _c in changed]
            cols_changed = [c for _r, c in changed]
            model.dataChanged.emit(model.index(min(rows_changed), min(cols_changed)),
                                   model.index(max(rows_changed), max(cols_changed)))
            self._fit_columns()  # a longer number may need a wider column
        else:
            fit_table_height(self.table)

    def _fill_match(self, norm_step: str, query: int) -> None:
        self.match_text.setText(match_text(self.layer_rms, self.layer_row, norm_step, query))

    def _fill_projection(self, cmp: NormComparison, eps: float) -> None:
        lines = ((self.ln_badge, self.ln_text), (self.rms_badge, self.rms_text),
                 (self.centred_badge, self.centred_text))
        for (badge, label), reading in zip(lines, projection_readings(cmp, eps), strict=True):
            badge.set(reading.exact, reading.claim, reading.failed)
            self._set_reading(label, badge.html() + reading.full, badge.html() + reading.short)

    def _set_reading(self, label: StableLabel, full: str, short: str) -> None:
        """One line of the reading: ``full`` in the wide arrangement, ``short`` (with
        ``full`` as its tooltip) in the compact one."""
        self._full[label], self._short[label] = full, short
        compact = self.shortening.compact
        label.setText(short if compact else full)
        set_tooltip(label, f"{self._title}\n{plain_text(full)}" if compact else "")

    # ----- hover -----
    def feature_at(self, scene_pos: QPointF) -> int:
        if self.comparison is None or not self.plot.sceneBoundingRect().contains(scene_pos):
            return -1
        x = self.plot.getViewBox().mapSceneToView(scene_pos).x()
        i = round(x)
        return i if 0 <= i < self.comparison.vector.size else -1

    def hover_text(self, i: int) -> str:
        return hover_text(self.comparison, self.layer_rms, i)

    def _on_mouse_moved(self, scene_pos: QPointF) -> None:
        i = self.feature_at(scene_pos)
        if i == self._hover_feature:
            return
        if i < 0:
            self._set_legend()
        else:
            self._hover_feature = i
            self.legend.setText(self.hover_text(i))
