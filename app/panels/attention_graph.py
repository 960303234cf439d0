"""Attention flow: for one query token and one head, arcs from every key/value token into the
query, their width and opacity growing with the attention weight.

Drawn as an arc diagram: the tokens sit in a row, every link is a half ellipse above the row
that ends at the query. Links are grouped into ``N_BUCKETS`` weight buckets, each one
``PlotCurveItem(connect='pairs')``; the masked (future) links are one dashed grey curve. One
``ScatterPlotItem`` draws every node. Changing the query or the head only redraws: the weights
come from ``result.trace['attn_probs']``.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QCursor, QFont, QPen
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSpinBox,
    QToolButton,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from app import theme
from app.compute import Result, isolated, token_html
from app.panels.base import Panel
from app.state import AppState
from app.widgets.attention_arcs import (
    ARC_TOP,
    N_BUCKETS,
    ArcCurve,
    ArcMemo,
    arc_points,
    bucket_of,
    bucket_pen,
    format_weight,
    link_rgb,
    pairs,
)
from app.widgets.cached_bounds import CachedBoundsScatter
from app.widgets.controls import set_tooltip, sync_combo, sync_spin
from app.widgets.plotting import (
    QuietTextItem,
    TokenLabelsItem,
    fast_axes,
    set_points,
)
from app.widgets.reflow_guard import ReflowGuard
from app.widgets.stable_label import StableLabel

#: Beyond this many tokens only the heaviest links are drawn (the caption says so).
MAX_ARCS = 512
#: Beyond this many masked links only a stride of them is drawn (dashed lines are slow).
MAX_MASKED_ARCS = 32
#: The graph's least height: its node labels (up to three lines) and arcs above them.
GRAPH_MIN_HEIGHT = 160
#: the least the graph shrinks to when even the folded texts leave it less than the above
GRAPH_FLOOR_HEIGHT = 100
#: Tokens with a text label under their node; more tokens get a stride (the query always has one).
MAX_LABELS = 64
#: Pixels a rotated label needs beside its neighbour, at least; and the gap between labels.
LABEL_SPACING_PX = 15
LABEL_GAP_PX = 4
#: Labels are upright and carry the weight when every token gets this many pixels (and there
#: are at most UPRIGHT_LABELS tokens); otherwise they are rotated and show index and text.
UPRIGHT_PX = 52
UPRIGHT_LABELS = 24
#: Pixels: hovering this close to a node or a link shows its numbers.
HOVER_PX = 9.0

QUERY_RGB = (230, 120, 20)
MASKED_RGB = (165, 165, 165)
#: the masked (dashed) links' opacity over the plot, pre-blended like the links' (bucket_pen)
MASKED_OPACITY = 200 / 255
LABEL_TEXT = (20, 20, 20)
LABEL_MASKED = (140, 140, 140)
LABEL_QUERY = (150, 65, 0)
#: Half-width and height in pixels of the loop drawn for a token's link to itself.
LOOP_PX = (11.0, 38.0)  # view units: height of the longest arc; the row of nodes is at y = 0


def _pad(n: int, width: float) -> float:
    """View units left and right of the row of ``n`` nodes: ≥ 12 px beside the end nodes."""
    return max(0.8, 12.0 * n / max(width, 50.0))


class AttentionGraphPanel(Panel):
    """Arcs into one query token for one head; masked links dashed and grey."""

    def __init__(self, state: AppState) -> None:
        super().__init__(state)
        body = QWidget()
        self.query_label = QLabel()
        self.query_box = QComboBox()
        self.query_box.setObjectName("attnQueryBox")
        self.query_box.setMinimumContentsLength(3)
        self.query_box.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.head_label = QLabel()
        self.head_box = QSpinBox()
        self.head_box.setObjectName("attnHeadBox")
        #: switches the picked head off (issue 23): its output is zero before o_proj. One short
        #: word: the attention and causality panels share a column, a wide button widened it
        self.head_off = QToolButton()
        self.head_off.setObjectName("attnHeadOff")
        self.head_off.setCheckable(True)
        self.gqa_note = StableLabel()
        self.gqa_note.setObjectName("attnGqaNote")
        self.gqa_note.setWordWrap(True)
        self.caption = StableLabel()  # numbers change per edit: no relayout for a pixel
        self.caption.setObjectName("attnCaption")
        self.caption.setTextFormat(Qt.TextFormat.RichText)
        self.caption.setWordWrap(True)
        self.readout = QLabel(" ")
        self.readout.setObjectName("attnReadout")
        self.readout.setTextFormat(Qt.TextFormat.PlainText)  # token text as typed
        self.readout.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.graph = pg.PlotWidget(axisItems=fast_axes(), enableMenu=False)  # (hidden ones)
        self.graph.setObjectName("attnGraph")
        self.graph.setMinimumHeight(GRAPH_MIN_HEIGHT)
        self.plot = self.graph.getPlotItem()
        for side in ("left", "bottom", "right", "top"):
            self.plot.hideAxis(side)
        self.plot.hideButtons()
        self.plot.getViewBox().setMouseEnabled(x=False, y=False)
        self.plot.getViewBox().setDefaultPadding(0.0)

        self.bucket_curves: list[ArcCurve] = []
        for b in range(N_BUCKETS):
            curve = ArcCurve(connect="pairs", pen=bucket_pen(b), antialias=True)
            curve.setZValue(1 + b)
            self.plot.addItem(curve, ignoreBounds=True)  # (the view's range is _fit_view's)
            self.bucket_curves.append(curve)
        masked_pen = QPen(QColor(*MASKED_RGB))  # (its colour: _set_link_colours)
        masked_pen.setWidthF(1.2)
        masked_pen.setStyle(Qt.PenStyle.DashLine)
        masked_pen.setCosmetic(True)
        self.masked_curve = ArcCurve(connect="pairs", pen=masked_pen, antialias=True,
                                     device_dash=True)
        self.masked_curve.setZValue(0)
        self.plot.addItem(self.masked_curve, ignoreBounds=True)
        self.nodes = CachedBoundsScatter(pxMode=True)
        self.nodes.setZValue(20)
        self.plot.addItem(self.nodes)
        self.masked_text = QuietTextItem(color=QColor(110, 110, 110), anchor=(0.0, 1.0),
                                       fill=QColor(255, 255, 255, 210))
        self.masked_text.setZValue(21)
        self.plot.addItem(self.masked_text)
        self._masked_text_shown = True
        self._label_px = 60
        self._label_y = 0.0
        self._view: tuple = ()
        self._loop = (0.2, 0.15)  # the self-link's size in view units (set from LOOP_PX)
        self._masked_at = (0.0, 0.0)  # where the "masked" caption wants to start
        self._link_theme = ""  # the theme the link colours were made for
        self._brushes: list[QBrush] = []
        self._pens: list[QPen] = []
        self._set_link_colours()
        self._label_font = QFont()
        self._label_font.setPointSizeF(max(self._label_font.pointSizeF(), 9.0))
        #: every token label in one item (they change every edit: no text layout per label)
        self.labels_item = TokenLabelsItem()
        self.labels_item.setZValue(22)
        self.plot.addItem(self.labels_item, ignoreBounds=True)
        #: (token index, text, colour, upright) of each label shown, left to right
        self._labels: list[tuple[int, str, tuple[int, int, int], bool]] = []

        controls = QHBoxLayout()
        controls.addWidget(self.query_label)
        controls.addWidget(self.query_box, 1)
        controls.addSpacing(8)
        controls.addWidget(self.head_label)
        controls.addWidget(self.head_box)
        controls.addWidget(self.head_off)
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(3)
        layout.addLayout(controls)
        layout.addWidget(self.gqa_note)
        layout.addWidget(self.graph, 1)
        layout.addWidget(ReflowGuard(self.caption))  # new numbers every edit: no window relayout
        layout.addWidget(self.readout)
        self.set_body(body)
        self._body = body
        #: the caption's numbers and its colour key (see _fit_caption)
        self._caption_parts: tuple[str, str] = ("", "")
        #: True while the colour key stands under the numbers (False: in the caption's tooltip)
        self.caption_key_shown = True
        body.installEventFilter(self)

        # what is on screen (tests read these; float64 so hover shows exact numbers)
        #: attention weights of the shown row, [T]
        self.weights: np.ndarray | None = None
        #: raw scores q·k/√d of the shown row, [T]
        self.scores: np.ndarray | None = None
        #: True where the key is masked (the future under the causal mask), [T]
        self.masked: np.ndarray = np.zeros(0, dtype=bool)
        #: key token indices drawn in each weight bucket
        self.edge_keys: list[np.ndarray] = [np.zeros(0, dtype=np.int64)] * N_BUCKETS
        #: masked key token indices drawn dashed
        self.masked_keys: np.ndarray = np.zeros(0, dtype=np.int64)
        self._drawn_stride = 1
        self.shown_head = -1
        self.shown_query = -1
        self._tokens: tuple[str, ...] = ()
        self._token_items: list[str] = []
        self._hover_keys = np.zeros(0, dtype=np.int64)
        self._hover_pts = np.zeros((0, 2))
        self._hover_key = -2
        #: what the links and nodes were last drawn for (see ``redraw``)
        self._drawn_key: tuple | None = None
        #: what the nodes show (see _draw_nodes)
        self._nodes_look: tuple | None = None
        #: the arcs' shapes of the last few key sets (they do not depend on the weights)
        self._arcs = ArcMemo()
        #: id(curve) -> the (shape, keys) it shows (see _set_arcs)
        self._curve_arcs: dict[int, tuple] = {}

        self.query_box.currentIndexChanged.connect(self._on_query_box)
        self.head_box.valueChanged.connect(self.state.set_head)
        self.head_off.clicked.connect(self._on_head_off)
        state.intervention_changed.connect(lambda _iv: self._sync_head_off())
        self.nodes.sigClicked.connect(self._on_node_clicked)
        self.graph.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self.plot.getViewBox().sigResized.connect(self._on_view_resized)
        state.inputs_changed.connect(self._on_inputs_changed)
        state.font_scale_changed.connect(self._on_font_scale_changed)
        self.retranslate()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._body and event.type() == QEvent.Type.Resize:
            self._fit_caption()
        return super().eventFilter(watched, event)

    def _fit_caption(self) -> None:
        """The caption's colour key ("orange = the query; line width …") under its numbers
        while the graph keeps GRAPH_MIN_HEIGHT beside them; in a shorter panel (1366 x 768,
        more so with the tour open) the key goes to the caption's tooltip: with it the texts
        left the graph less than its minimum and the caption was laid over its node labels.
        Shorter still (1280 x 720 with the tour open and the mask off, whose red line adds two
        more) the GQA note goes to the head box's tooltip, and the graph takes the height that
        is left rather than keep a minimum the layout could only meet by overlapping."""
        numbers, key = self._caption_parts
        if not numbers:
            return
        layout = self._body.layout()
        margins = layout.contentsMargins()
        width = self._body.width() - margins.left() - margins.right()
        full = numbers + "<br>" + key
        # the caption measures its text as it is set (StableLabel) and remembers the height:
        # a second label laying the same rich text out again cost ~1 ms per edit
        self.caption.setText(full)
        fixed = (self.query_box.sizeHint().height() + self.readout.sizeHint().height()
                 + 3 * layout.spacing() + margins.top() + margins.bottom())
        note = self.gqa_note.heightForWidth(width) + layout.spacing()
        room = self._body.height() - fixed - note  # for the graph and the caption
        shown = room - self.caption.heightForWidth(width) >= GRAPH_MIN_HEIGHT
        self.caption_key_shown = shown
        if not shown:
            self.caption.setText(numbers)
        set_tooltip(self.caption, "" if shown else full)
        room -= self.caption.heightForWidth(width)  # the caption as it is now set
        note_shown = room >= GRAPH_MIN_HEIGHT
        if not note_shown:
            room += note
        self.gqa_note.setVisible(note_shown)
        set_tooltip(self.head_box, self._head_tip + ("" if note_shown
                                                     else "\n" + self.gqa_note.text()))
        self.graph.setMinimumHeight(max(min(GRAPH_MIN_HEIGHT, room), GRAPH_FLOOR_HEIGHT))

    # ----- strings -----
    def retranslate(self) -> None:
        self.query_label.setText(self.tr("Query token:"))
        self.head_label.setText(self.tr("Head:"))
        self.query_box.setToolTip(self.tr("The token that reads (click a node to choose it)"))
        self._head_tip = self.tr("Query head; shared with the step heatmap")
        self.head_box.setToolTip(self._head_tip)
        self.masked_text.setText(self.tr("masked (future)"))
        self.graph.setToolTip("")
        self.head_off.setText(self.tr("off"))
        self.head_off.setToolTip(self.tr(
            "Switch this head off: its attention output is zero before o_proj (its pattern, "
            "drawn here, is still computed); every panel then shows the intervened layer"))

    def _on_head_off(self) -> None:
        self.state.toggle_head(self.state.head)

    def _sync_head_off(self) -> None:
        iv = self.state.intervention
        off = iv is not None and self.state.head in iv.zero_heads
        self.head_off.blockSignals(True)
        self.head_off.setChecked(off)
        self.head_off.blockSignals(False)

    # ----- state -> view -----
    def _on_selection_changed(self, field: str) -> None:
        if field == "head":
            self._sync_head_off()
        if field in ("head", "query"):
            self.request_redraw()

    def _on_inputs_changed(self) -> None:
        self._hover_key = -2

    def _on_font_scale_changed(self, _scale: float) -> None:
        # the labels are not TextItems, so the plot restyling does not reach them
        self.request_redraw()

    def _on_query_box(self, index: int) -> None:
        if index >= 0:
            self.state.set_query(index)

    def _on_node_clicked(self, _item: object, points: list, _event: object = None) -> None:
        if len(points):
            self.state.set_query(int(points[0].data()))

    def _sync_controls(self, result: Result) -> None:
        tokens = result.tokens
        config = result.trace.config
        if tokens != self._tokens:
            self._tokens = tokens
            self._token_items = [f"{i}  {t}" for i, t in enumerate(result.shown_tokens)]
        sync_combo(self.query_box, self._token_items, self.state.query)
        sync_spin(self.head_box, config.num_attention_heads - 1, self.state.head)

    def gqa_text(self, head: int) -> str:
        config = self.state.result.trace.config if self.state.result else self.state.config
        g = config.group_size
        kv = head // g
        if g == 1:
            return self.tr("MHA: query head %1 has its own key/value head %2.").replace(
                "%1", str(head)).replace("%2", str(kv))
        others = [h for h in range(kv * g, kv * g + g) if h != head]
        return self.tr("GQA: query head %1 reads kv head %2, shared with query head(s) %3 — "
                       "same K and V, different weights because q differs.").replace(
            "%1", str(head)).replace("%2", str(kv)).replace(
            "%3", ", ".join(str(h) for h in others))

    def _on_view_resized(self, _vb: object = None) -> None:
        """Pixel-sized parts (label stride and room, the self-loop) follow the new size."""
        self._fit_view()
        result = self.state.result
        if self.weights is not None and result is not None and result.ok and self.is_current:
            self.redraw_epoch += 1  # everything drawn again at the new size
            self.redraw(result)

    def _set_link_colours(self) -> None:
        """Link pens, node fills and outlines in the current theme's link colour, the pens
        pre-blended toward its plot background (pen widths stay: presentation mode scales
        them)."""
        self._link_theme = theme.current_theme()
        rgb = link_rgb(self._link_theme)
        background = QColor(theme.PLOT_COLOURS[self._link_theme][0])
        for b, curve in enumerate(self.bucket_curves):
            pen = QPen(curve.opts["pen"])
            pen.setColor(bucket_pen(b, rgb, background).color())
            curve.setPen(pen)
        pen = QPen(self.masked_curve.opts["pen"])
        pen.setColor(theme.blend(background, QColor(*MASKED_RGB), MASKED_OPACITY))
        self.masked_curve.setPen(pen)
        self._brushes = [QBrush(QColor(*rgb, int(40 + 215 * (b + 0.5) / N_BUCKETS)))
                         for b in range(N_BUCKETS)]
        self._brushes += [QBrush(QColor(235, 235, 235)), QBrush(QColor(*QUERY_RGB))]
        #: node outlines: a visible key, a masked key (dashed), the query
        self._pens = [pg.mkPen(QColor(*rgb), width=1),
                      pg.mkPen(QColor(*MASKED_RGB), width=1, style=Qt.PenStyle.DashLine),
                      pg.mkPen(QColor(140, 60, 0), width=2)]
        self._drawn_key = self._nodes_look = None  # the nodes are drawn again

    # ----- drawing -----
    def redraw(self, result: Result) -> None:
        trace = result.trace
        if theme.current_theme() != self._link_theme:
            self._set_link_colours()
        self._sync_controls(result)
        head, query = self.state.head, self.state.query
        n = len(result.tokens)
        weights = trace["attn_probs"][head, query]  # [T] float64, read-only
        scores = trace["attn_scores"][head, query]  # [T]
        masked = np.isneginf(trace["causal_mask"][head, query])  # [T]
        self.weights, self.scores, self.masked = weights, scores, masked
        self.shown_head, self.shown_query = head, query
        self.gqa_note.setText(self.gqa_text(head))

        # links: the visible keys, bucketed by weight; beyond MAX_ARCS only the heaviest
        visible = np.flatnonzero(~masked)
        capped = visible.size > MAX_ARCS
        if capped:
            order = np.argsort(weights[visible], kind="stable")[::-1][:MAX_ARCS]
            visible = np.sort(visible[order])
        self._draw_labels(result.tokens, weights, masked, query)
        # the view for this many tokens first: the self-loop is sized in pixels through it
        # (drawn with the last input's scale, 300 tokens' loop spanned half of a short row)
        self._fit_view()
        # an edit after the query leaves its row as it was (the causal mask): the arcs and
        # nodes drawn for it stay (the labels and caption are compared where they are set)
        key = (self.redraw_epoch, head, query, n, weights.tobytes(), masked.tobytes(),
               self._loop)
        if key != self._drawn_key:
            self._drawn_key = None  # until drawn
            self._draw_links(weights, masked, visible, query, n)
            self._draw_nodes(weights, masked, query, n)
            self._drawn_key = key
            self._place_masked_text()
        self._draw_caption(result, head, query, n, capped, visible.size)
        if self._hover_key >= -1:
            self._show_hover(self._hover_key, tooltip=False)

    def _draw_links(self, weights: np.ndarray, masked: np.ndarray, visible: np.ndarray,
                    query: int, n: int) -> None:
        samples = 40 if n <= 64 else 24
        points = self._arcs.points(visible, query, n, samples, self._loop)  # [K, S, 2]
        buckets = bucket_of(weights[visible])
        self.edge_keys = []
        shape = (query, n, samples, self._loop)  # what an arc's points depend on besides its key
        for b, curve in enumerate(self.bucket_curves):
            sel = buckets == b
            self.edge_keys.append(visible[sel])
            self._set_arcs(curve, shape, visible[sel], points[sel])

        hidden = np.flatnonzero(masked)
        if hidden.size > MAX_MASKED_ARCS:
            stride = math.ceil(hidden.size / MAX_MASKED_ARCS)
            hidden = hidden[::stride]
        self.masked_keys = hidden
        mpoints = self._arcs.points(hidden, query, n, samples, self._loop)
        self._set_arcs(self.masked_curve, shape, hidden, mpoints)
        if masked.any():
            # above the apex of the outermost masked arc: only masked arcs reach there
            last = int(np.flatnonzero(masked)[-1])
            apex = arc_points(np.array([last]), query, n, 3)[0, 1]
            self._masked_at = (query + 0.3, float(apex[1]) + 0.03)  # _fit_view places it
        if self._masked_text_shown != bool(masked.any()):  # (TextItem.setVisible costs)
            self._masked_text_shown = bool(masked.any())
            self.masked_text.setVisible(self._masked_text_shown)

        self._hover_keys = np.concatenate([visible, hidden]).astype(np.int64)
        self._hover_pts = np.concatenate([points, mpoints], axis=0)  # [K, S, 2]

    def _set_arcs(self, curve: ArcCurve, shape: tuple, keys: np.ndarray,
                  points: np.ndarray) -> None:
        """Give ``curve`` the arcs of ``keys`` unless it shows them already: most edits move
        a weight within its bucket, and the bucket's segments were rebuilt and compared
        point by point for nothing."""
        drawn = (shape, keys.tobytes())
        if self._curve_arcs.get(id(curve)) != drawn:
            set_points(curve, *pairs(points))
            self._curve_arcs[id(curve)] = drawn

    def _draw_nodes(self, weights: np.ndarray, masked: np.ndarray, query: int, n: int) -> None:
        size = 15 if n <= 32 else (10 if n <= 128 else 6)
        kind = np.where(masked, N_BUCKETS, bucket_of(weights))
        kind[query] = N_BUCKETS + 1
        # a new weight in the same bucket looks the same: the nodes stay as they are drawn
        look = (n, size, query, kind.tobytes())
        if look == self._nodes_look:
            return
        same_places = self._nodes_look is not None and self._nodes_look[:3] == look[:3]
        self._nodes_look = look
        table = self._brushes  # N_BUCKETS link fills, then masked, then query
        brushes = [table[k] for k in kind.tolist()]
        if n <= 128:
            pens = [self._pens[min(k - N_BUCKETS, 1) + 1 if k >= N_BUCKETS else 0]
                    for k in kind.tolist()]
        else:  # thousands of per-spot pens are slow; tiny nodes need no outline style
            pens = self._pens[0]
        if same_places:
            # the same nodes in new colours (most edits): restyled in place, not cleared and
            # added again with new bounds (half the time)
            self.nodes.setBrush(brushes, update=False)
            self.nodes.setPen(pens, update=False)
            self.nodes.updateSpots()
            return
        sizes = np.full(n, size, dtype=np.float64)
        sizes[query] = size * 1.45
        self.nodes.setData(x=np.arange(n, dtype=np.float64), y=np.zeros(n), size=sizes,
                           brush=brushes, pen=pens, data=np.arange(n), symbol="o")

    def _draw_labels(self, tokens: tuple[str, ...], weights: np.ndarray, masked: np.ndarray,
                     query: int) -> None:
        """Every token's label up to MAX_LABELS tokens; beyond, every k-th plus the query's
        own label (a neighbour within half a stride gives way to it)."""
        n = len(tokens)
        font = QFont(self._label_font)  # first: the labels are measured in it
        font.setPointSizeF(self._label_font.pointSizeF() * self.state.font_scale)
        self.labels_item.setFont(font)
        slot = self._token_px(n)
        upright = n <= UPRIGHT_LABELS and slot >= UPRIGHT_PX
        if upright:  # ... while the widest label fits between its neighbours (at 2× text
            # "0.240" stood over "0.051": a fixed pixel rule ignored the text size)
            widest = max(self.labels_item.box(
                self._label_text(tokens, weights, masked, i, True))[0] for i in range(n))
            upright = slot >= widest - 2 * TokenLabelsItem.MARGIN + LABEL_GAP_PX
        stride = self._label_stride(n)
        self._drawn_stride = stride
        labels = []
        for i in range(0, n, stride):
            if i == query or (stride > 1 and abs(i - query) < stride / 2):
                continue  # the query's own label stands here
            labels.append((i, self._label_text(tokens, weights, masked, i, upright),
                           LABEL_MASKED if masked[i] else LABEL_TEXT, upright))
        labels.append((query, self._label_text(tokens, weights, masked, query, upright),
                       LABEL_QUERY, upright))
        labels.sort(key=lambda label: label[0])
        self._labels = labels
        #: the token labels on screen, left to right (tests read them)
        self.label_texts = [text for _i, text, _c, _u in labels]
        boxes = [self.labels_item.box(text) for text in self.label_texts]
        extent = max((h if upright else w) for w, h in boxes)
        self._label_px = int(min(extent, 160) + 16)

    def _place_labels(self) -> None:
        """Hand the labels to their item at the row's current offset below the nodes."""
        if not self._view:
            return
        (x0, x1), (y0, y1) = self._view
        self.labels_item.set_labels(
            [(float(i), self._label_y, text, colour, not upright)
             for i, text, colour, upright in self._labels],
            QRectF(x0, y0, x1 - x0, y1 - y0))

    def _label_stride(self, n: int) -> int:
        """1 (every token) up to MAX_LABELS tokens if they fit side by side, else every k-th:
        a rotated label stands one text line wide, at least LABEL_SPACING_PX apart."""
        slot = self._token_px(n)
        line = self.labels_item.box("0")[1] - 2 * TokenLabelsItem.MARGIN
        spacing = max(LABEL_SPACING_PX, line + LABEL_GAP_PX)
        if not math.isfinite(slot):
            return 1 if n <= MAX_LABELS else math.ceil(n / MAX_LABELS)
        return max(1, math.ceil(n / min(MAX_LABELS, max(4, int(n * slot / spacing)))))

    def _token_px(self, n: int) -> float:
        """Pixels from one node to the next (inf before the view has a size)."""
        width = self.plot.getViewBox().width()
        return width / (n - 1 + 2 * _pad(n, width)) if width > 0 else math.inf

    def _label_text(self, tokens: tuple[str, ...], weights: np.ndarray, masked: np.ndarray,
                    i: int, upright: bool) -> str:
        token = tokens[i]
        if len(token) > 12:
            token = token[:11] + "…"
        if upright:
            token = token if len(token) <= 7 else token[:6] + "…"
            value = self.tr("masked") if masked[i] else f"{weights[i]:.3f}"
            return f"{i}\n{token}\n{value}"
        return f"{i} {token}"  # masked ones: grey, and one "masked" caption above

    def _fit_view(self) -> None:
        """Tokens fill the width; below the row keep room (in pixels) for the labels, above the
        arcs room for the "masked" caption."""
        vb = self.plot.getViewBox()
        n = self.weights.size if self.weights is not None else 1
        height = max(vb.height(), 60.0)
        top_px, bottom_px = 24.0, float(self._label_px)
        inner = max(height - top_px - bottom_px, 20.0)
        # arcs no taller than half the width read as arcs, not spikes: spare height goes on top
        arcs = min(inner, max(0.5 * vb.width(), 80.0))
        top_px += inner - arcs
        per_px = (ARC_TOP + 0.02) / arcs
        pad = _pad(n, vb.width())
        view = ((-pad, n - 1 + pad), (-bottom_px * per_px, ARC_TOP + 0.02 + top_px * per_px))
        if view != self._view:
            self._view = view
            vb.setRange(xRange=view[0], yRange=view[1], padding=0)
            bounds = QRectF(view[0][0], view[1][0], view[0][1] - view[0][0],
                            view[1][1] - view[1][0])
            for curve in (*self.bucket_curves, self.masked_curve):
                curve.set_bounds(bounds)
        per_px_x = (view[0][1] - view[0][0]) / max(vb.width(), 1.0)
        self._loop = (LOOP_PX[0] * per_px_x, LOOP_PX[1] * per_px)
        self._label_y = -12.0 * per_px
        self._place_masked_text()
        self._place_labels()

    def _place_masked_text(self) -> None:
        """The "masked" caption starts just right of the query, over the masked arcs (the past
        arcs are all to the left); near the right edge it slides left to stay in view."""
        if not self._view:
            return
        x0, x1 = self._view[0]
        per_px_x = (x1 - x0) / max(self.plot.getViewBox().width(), 1.0)
        text_w = self.masked_text.textItem.boundingRect().width() * per_px_x
        left = min(self._masked_at[0], x1 - text_w)
        self.masked_text.setPos(left, self._masked_at[1])

    def _draw_caption(self, result: Result, head: int, query: int, n: int, capped: bool,
                      drawn: int) -> None:
        entropy = float(result.entropy[head, query])
        causal = result.trace.causal
        seen = query + 1 if causal else n
        bound = math.log(seen)
        top = int(np.argmax(self.weights))
        parts = [
            self.tr("entropy H = %1 nats").replace("%1", f"{entropy:.4f}"),
            (self.tr("causal bound log(%1 + 1) = %2") if causal
             else self.tr("bound with the mask off log T = log %1 = %2")).replace(
                "%1", str(query if causal else n)).replace("%2", f"{bound:.4f}"),
            self.tr("strongest: %1 “%2” %3").replace("%1", str(top)).replace(
                "%2", token_html(result.tokens[top])).replace(
                "%3", format_weight(float(self.weights[top]))),
        ]
        lines = [" · ".join(parts)]
        legend = self.tr("orange = the query; line width and opacity grow with the weight "
                         "(√ scale, %1 steps)")
        legend = legend.replace("%1", str(N_BUCKETS))
        if causal:
            legend += self.tr("; grey dashed = masked future token (weight 0)")
        else:
            lines.append(f"<span style='color:{theme.error_colour()}'>" + self.tr(
                "Causal mask off: every token also reads the future (View ▸ Causal mask, M).")
                + "</span>")
        if capped:
            legend += self.tr("; showing the %1 heaviest of %2 links").replace(
                "%1", str(drawn)).replace("%2", str(int((~self.masked).sum())))
        self._caption_parts = ("<br>".join(lines),
                               f"<span style='color:{theme.quiet_css()}'>{legend}</span>")
        self._fit_caption()

    # ----- hover -----
    def key_at(self, scene_pos: QPointF) -> int:
        """The key token under the mouse (a node or a link), or −1."""
        if self.weights is None or not self.plot.sceneBoundingRect().contains(scene_pos):
            return -1
        vb = self.plot.getViewBox()
        p = vb.mapSceneToView(scene_pos)
        px, py = vb.viewPixelSize()
        if px <= 0 or py <= 0:
            return -1
        n = self.weights.size
        node_d = np.hypot((np.arange(n) - p.x()) / px, p.y() / py)
        best = int(np.argmin(node_d))
        best_d = float(node_d[best])
        if self._hover_keys.size:
            d = np.hypot((self._hover_pts[..., 0] - p.x()) / px,
                         (self._hover_pts[..., 1] - p.y()) / py).min(axis=1)
            k = int(np.argmin(d))
            if d[k] < best_d - 2:  # nodes win ties: they sit on top of every link's end
                best, best_d = int(self._hover_keys[k]), float(d[k])
        return best if best_d <= HOVER_PX else -1

    def _on_mouse_moved(self, scene_pos: QPointF) -> None:
        key = self.key_at(scene_pos)
        if key != self._hover_key:
            self._hover_key = key
            self._show_hover(key, tooltip=True)

    def hover_text(self, key: int) -> str:
        result = self.state.result
        if key < 0 or result is None or self.weights is None or key >= self.weights.size:
            return ""
        q, h = self.shown_query, self.shown_head
        text = self.tr("key %1 “%2” → query %3 “%4”, head %5: weight %6").replace(
            "%1", str(key)).replace("%2", isolated(result.shown_tokens[key])).replace(
            "%3", str(q)).replace("%4", isolated(result.shown_tokens[q])).replace(
            "%5", str(h)).replace("%6", format_weight(float(self.weights[key])))
        if self.masked[key]:
            text += self.tr(" (masked: score −∞ before the softmax)")
        else:
            text += self.tr(" · score q·k/√d = %1").replace("%1", f"{self.scores[key]:.6f}")
        return text

    def _show_hover(self, key: int, *, tooltip: bool) -> None:
        text = self.hover_text(key)
        self.readout.setText(text or self.tr("Hover a token or a link for its exact weight; "
                                             "click a token to make it the query."))
        if tooltip:
            if text:
                QToolTip.showText(QCursor.pos(), text, self.graph)
            else:
                QToolTip.hideText()
