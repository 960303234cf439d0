"""Through the depth: the continuous view across the layers of the open Qwen3 model.

Each decoder layer is one time step of the residual stream (u ← u + block(u)), several layers
their composition. Above: ‖u‖ of every token after each layer (a heatmap, states × tokens).
Below: the logit lens for the last position (engine.logit_lens): each state read out through
the final RMSNorm and the LM head, its five most probable tokens. The numbers are exact float64;
reading an intermediate layer through the final head is an interpretation, badged as such.
The layer shown in the other panels is marked in both.

With an intervention on (``Result.model_plain``: the plain model's run on the same ids), the
lens compares the two runs at every depth: the plain and the intervened top token, the change in
probability of the plain one, and the last token's ‖u‖ in both; the states before the first
intervened layer are the same bits in both runs, and the table says so.

The logit lens is (layers + 1) x hidden x vocab multiply-adds: ~4.5 G for Qwen3-0.6B (~0.8 s
on one core), too long for the UI thread on every keystroke. Above :data:`SYNC_WORK` it runs on
a latest-wins worker of the panel's own, and the table says it is computing meanwhile; the
tiny test checkpoints compute inline.
"""

from __future__ import annotations

import sys
import threading

import numpy as np
import pyqtgraph as pg
import shiboken6
from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QPen
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSplitter,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app import palettes, theme
from app.compute import Result
from app.panels.lens_base import LensHeader, LensPanel, badge_tip, pick
from app.scheduler import LatestWinsWorker
from app.state import AppState
from app.widgets.claim_badge import ClaimBadge
from app.widgets.heatmap import HeatmapView
from app.widgets.piece_text import ShownPiece, shown_pieces
from engine.logit_lens import LogitLens, logit_lens, softmax
from engine.model import ModelRun, Qwen3Model

#: Tokens per logit-lens row.
LENS_TOP = 5
#: The shown layer's row background in the logit-lens table.
SHOWN_TINT = QColor(255, 190, 60, 90)
SPECIAL_TINT = QColor(150, 110, 200, 60)
#: The outline around the shown layer's row of the heatmap.
MARK_COLOUR = QColor(230, 120, 0)
#: Multiply-adds of a logit lens computed on the UI thread (~10 ms); more go to the worker.
SYNC_WORK = 50_000_000


def state_norms(residual: np.ndarray) -> np.ndarray:
    """``[L + 1, T]`` ‖u‖ of every token in every state (embeddings, then each layer)."""
    return np.sqrt(np.einsum("std,std->st", residual, residual))


#: The quiet grey of the states the intervention has not reached yet (the same bits).
SAME_GREY = QColor(128, 128, 128)
RISE, FALL = QColor(46, 125, 50), QColor(198, 40, 40)


def lens_shift(plain: LogitLens, lens: LogitLens) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """At every state: the plain run's top token, its probability in the plain run and in the
    intervened one (``lens``), each a softmax of that state's full readout (float64)."""
    top = plain.ids[:, 0]
    rows = np.arange(top.shape[0])
    return top, plain.probs[:, 0], softmax(lens.logits)[rows, top]


def same_states(plain: ModelRun, run: ModelRun) -> int:
    """How many leading states (embeddings first) are bit for bit the same in both runs."""
    count = 0
    for a, b in zip(plain.residual, run.residual, strict=True):
        if not np.array_equal(a, b):
            break
        count += 1
    return count


def lens_work(model: Qwen3Model) -> int:
    """Multiply-adds of one logit lens of ``model`` (every state through the head)."""
    config = model.config
    return (config.num_hidden_layers + 1) * config.layer.hidden_size * config.vocab_size


class ThroughDepthPanel(LensPanel):
    #: (run, lens) from the worker, delivered queued on this thread
    _lens_ready = Signal(object, object)

    def __init__(self, state: AppState) -> None:
        super().__init__(state)
        #: what is on screen, for tests
        self.lens: LogitLens | None = None
        self.norms: np.ndarray | None = None
        self.shown_layer = -1
        self._run: object = None
        #: with an intervention: the plain run, its lens, how many leading states both runs
        #: share, and its last token's ‖u‖ per state (for tests, like ``lens``)
        self.plain_lens: LogitLens | None = None
        self.same = 0
        self.plain_norms: np.ndarray | None = None
        self._plain: ModelRun | None = None
        #: the last lenses computed, by run: switching an intervention on or off keeps the
        #: plain run (the same object), whose lens is not computed again
        self._known: list[tuple[ModelRun, LogitLens]] = []
        self._shift: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._pieces: dict[int, ShownPiece] = {}
        self._worker: LatestWinsWorker | None = None
        #: set when the panel is destroyed: a lens finishing later is dropped, not emitted
        #: (its signal's object is gone; PySide raised a TypeError from the worker thread)
        self._gone = threading.Event()
        gone = self._gone
        self.destroyed.connect(lambda: gone.set())
        #: logit lenses handed to the worker (large models), for tests
        self.worker_lenses = 0
        self._lens_ready.connect(self._on_lens_ready)
        if hasattr(state, "palette_changed"):
            state.palette_changed.connect(lambda _key: self.request_redraw())

    def build(self) -> None:
        body = QWidget()
        self.pages = QStackedWidget()
        self.note = QLabel()
        self.note.setObjectName("throughDepthNoModel")
        self.note.setWordWrap(True)
        self.note.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.pages.addWidget(self.note)

        content = QWidget()
        self.header = LensHeader([("EXACT", "")])
        self.view = HeatmapView()
        self.view.setObjectName("throughDepthNorms")
        self.view.setMinimumHeight(160)
        self.mark = pg.QtWidgets.QGraphicsRectItem()
        self.mark.setPen(pg.mkPen(MARK_COLOUR, width=3))
        self.mark.setZValue(10)
        self.mark.hide()
        self.view.plot.addItem(self.mark)

        self.lens_title = QLabel()
        self.lens_title.setObjectName("logitLensTitle")
        self.lens_title.setStyleSheet("font-weight: bold;")
        #: with an intervention: which states both runs share
        self.shift_note = QLabel()
        self.shift_note.setObjectName("logitLensShiftNote")
        self.shift_note.setWordWrap(True)
        self.shift_note.hide()
        self.table = QTableWidget(0, LENS_TOP + 1)
        self.table.setObjectName("logitLensTable")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.setWordWrap(False)  # "<|im_end|>  4%" on one line, rows of one height
        self.table.verticalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents)
        self.note_badge = ClaimBadge("ANALOGY")
        self.caveat = QLabel()
        self.caveat.setObjectName("logitLensCaveat")
        self.caveat.setWordWrap(True)

        lens_box = QWidget()
        lens_layout = QVBoxLayout(lens_box)
        lens_layout.setContentsMargins(0, 0, 0, 0)
        lens_layout.setSpacing(2)
        lens_layout.addWidget(self.lens_title)
        lens_layout.addWidget(self.shift_note)
        lens_layout.addWidget(self.table, 1)
        caveat_row = QHBoxLayout()
        caveat_row.addWidget(self.note_badge, 0, Qt.AlignmentFlag.AlignTop)
        caveat_row.addWidget(self.caveat, 1)
        lens_layout.addLayout(caveat_row)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.view)
        split.addWidget(lens_box)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 3)
        layout = QVBoxLayout(content)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(3)
        layout.addWidget(self.header)
        layout.addWidget(split, 1)
        self.pages.addWidget(content)
        outer = QVBoxLayout(body)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.pages)
        self.set_body(body)

    def _retranslate(self) -> None:
        st = self.state
        self.note.setText(self.tr("Open a model (File ▸ Open model…) to see what Qwen3 "
                                  "predicts next."))
        self.header.set_texts(
            self.tr("Through the depth"),
            pick(st, "Each layer is one time step of the residual stream, u ← u + block(u); "
                     "several layers are their composition. Above: ‖u‖ of every token after "
                     "each layer. Below: the last position after each layer, read out through "
                     "the final RMSNorm and the LM head.",
                 "每一层是残差流的一个时间步：u ← u + block(u)；多层就是它们的复合。"
                 "上：每层之后每个词元的 ‖u‖。"
                 "下：每层之后最后一个位置的状态，经最终 RMSNorm 和 LM head 读出。"),
            [badge_tip(self, "EXACT")])
        self._set_plot_title()
        self.note_badge.setToolTip(badge_tip(self, "ANALOGY"))
        self.caveat.setText(pick(
            st, "The readouts are exact; reading an intermediate layer through the final norm "
                "and head is an interpretation: the head was trained on the last layer only.",
            "读出的数值是精确的；但用最终的 norm 和 head 去读中间层是一种解读：head 只在最后"
            "一层的输出上训练过。"))
        self.caveat.setStyleSheet(f"color: {theme.quiet_css()};")
        self._fill_table()

    def _set_plot_title(self) -> None:
        title = (self.tr("‖u‖ of every token after each layer (the intervened run)")
                 if self._plain is not None else self.tr("‖u‖ of every token after each layer"))
        self.view.plot.setTitle(title, size="10pt")

    def _lens_title(self) -> str:
        if self._plain is not None:
            return self.tr("Logit lens, plain model → intervened: the last token after each "
                           "layer")
        return self.tr("Logit lens: the last token's top %1 after each layer").replace(
            "%1", str(LENS_TOP))

    def _known_lens(self, run: ModelRun | None) -> LogitLens | None:
        return next((lens for r, lens in self._known if r is run), None)

    # ----- drawing -----
    def redraw(self, result: Result) -> None:
        run = getattr(result, "model_run", None)
        model = getattr(result, "model", None)
        if run is None or model is None:
            self.pages.setCurrentIndex(0)
            self._run, self.lens, self.norms, self.shown_layer = None, None, None, -1
            self._plain, self.plain_lens, self.plain_norms = None, None, None
            return
        self.pages.setCurrentIndex(1)
        self.shown_layer = int(run.layer)
        plain = getattr(result, "model_plain", None)
        if run is not self._run or plain is not self._plain:
            self._run, self._plain = run, plain
            self.norms = state_norms(np.asarray(run.residual))
            self.lens = self.plain_lens = self.plain_norms = None
            self.same = 0
            if plain is not None:
                self.plain_norms = state_norms(np.asarray(plain.residual))[:, -1]
                self.same = same_states(plain, run)
            if lens_work(model) * (1 if plain is None else 2) <= SYNC_WORK:
                self._set_lens(model, lenses(model, run, plain, self._known_lens(run),
                                             self._known_lens(plain)))
            else:
                self._submit_lens(model, run, plain)
            self._set_plot_title()
        self._draw_norms(result)
        self._fill_table()

    def _submit_lens(self, model: Qwen3Model, run: ModelRun, plain: ModelRun | None) -> None:
        if self._worker is None:
            self._worker = LatestWinsWorker(self._run_lens, name="dualview-logit-lens")
            worker = self._worker
            # (no join: the UI does not wait for a lens in progress, which is dropped)
            self.destroyed.connect(lambda: worker.stop(0.0))
        self.worker_lenses += 1
        self._worker.submit((model, run, plain, self._known_lens(run), self._known_lens(plain)))

    def _run_lens(self, request: tuple[Qwen3Model, ModelRun, ModelRun | None,
                                       LogitLens | None, LogitLens | None]) -> None:
        """On the worker thread: no Qt object is touched but the queued signal."""
        model, run = request[:2]
        lens = lenses(model, *request[1:])
        if self._gone.is_set():
            return  # the panel was deleted while this lens ran
        try:
            self._lens_ready.emit((model, run), lens)
        except (RuntimeError, TypeError):
            # deleted between the check and the emit, or the interpreter is exiting: PySide
            # says so with a RuntimeError, or a TypeError for a signal of a deleted object
            if not (self._gone.is_set() or sys.is_finalizing()
                    or not shiboken6.isValid(self)):
                raise

    def _on_lens_ready(self, request: tuple[Qwen3Model, ModelRun],
                       lens: tuple[LogitLens, LogitLens | None]) -> None:
        model, run = request
        if run is not self._run:
            return  # a newer result is on screen (its lens is on its way)
        self._set_lens(model, lens)
        if self.built:
            self._fill_table()

    def _set_lens(self, model: Qwen3Model, both: tuple[LogitLens, LogitLens | None]) -> None:
        lens, plain_lens = both
        ids = {int(i) for i in lens.ids.ravel()} | {lens.final_id}
        if plain_lens is not None:
            ids |= {int(i) for i in plain_lens.ids[:, 0]}
        self._pieces = {p.token_id: p for p in shown_pieces(model, sorted(ids))}
        self.lens, self.plain_lens = lens, plain_lens
        self._shift = lens_shift(plain_lens, lens) if plain_lens is not None else None
        runs = [(self._run, lens)] + ([(self._plain, plain_lens)] if plain_lens else [])
        self._known = [*runs, *((r, k) for r, k in self._known
                                if all(r is not o for o, _ in runs))][:2]  # type: ignore[misc]

    def state_labels(self) -> list[str]:
        """Row labels of the states: the embeddings, then the layer whose output it is; the
        shown layer's output marked ▶."""
        if self.norms is None:
            return []
        labels = [self.tr("embed")]
        for k in range(self.norms.shape[0] - 1):
            labels.append(f"▶ {k}" if k == self.shown_layer else str(k))
        return labels

    def _draw_norms(self, result: Result) -> None:
        norms = self.norms
        assert norms is not None
        top = float(norms.max()) if norms.size else 1.0
        self.view.set_matrix(
            norms, (0.0, top or 1.0),
            palettes.map_for("probability", getattr(self.state, "palette", "classic"),
                             getattr(self.state, "theme", "light")),
            self.state_labels(), result.labels,
            x_title=self.tr("token"), y_title=self.tr("after layer"))
        # the shown layer's output row (row k + 1: row 0 is the embeddings)
        row = self.shown_layer + 1
        self.mark.setRect(QRectF(0, row, norms.shape[1], 1))
        pen = QPen(MARK_COLOUR)
        pen.setWidth(3)
        pen.setCosmetic(True)
        self.mark.setPen(pen)
        self.mark.show()

    def _fill_table(self) -> None:
        if not self.built:
            return
        lens = self.lens
        if lens is None:
            computing = self._run is not None
            self.lens_title.setText(self._lens_title() + (
                " — " + self.tr("computing…") if computing else ""))
            self.table.setRowCount(0)
            self.shift_note.hide()
            return
        self.lens_title.setText(self._lens_title())
        if self.plain_lens is not None:
            self._fill_shift(lens, self.plain_lens)
            return
        self.shift_note.hide()
        table = self.table
        if table.columnCount() != LENS_TOP + 1:
            table.setRowCount(0)  # the other layout's cells (colours, alignment) go
            table.setColumnCount(LENS_TOP + 1)
            table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        states = lens.num_states
        if table.rowCount() != states:
            table.setRowCount(states)
        columns = [self.tr("top %1").replace("%1", str(i + 1)) for i in range(LENS_TOP)]
        final = self._pieces[lens.final_id]
        columns.append(self.tr("p(“%1”)").replace("%1", final.text))
        table.setHorizontalHeaderLabels(columns)
        table.setVerticalHeaderLabels(self.state_labels())
        big = QFont(self.font())
        big.setPointSizeF(big.pointSizeF() * 1.15)
        shown_row = self.shown_layer + 1
        for s in range(states):
            tint = SHOWN_TINT if s == shown_row else QColor(0, 0, 0, 0)
            for c in range(LENS_TOP):
                token_id = int(lens.ids[s, c])
                piece = self._pieces[token_id]
                p = float(lens.probs[s, c])
                item = table.item(s, c) or QTableWidgetItem()
                item.setText(f"{piece.text}  {p:.0%}" if p >= 0.01 else f"{piece.text}  {p:.1%}")
                font = QFont(big)
                font.setItalic(piece.special)
                font.setBold(token_id == lens.final_id)
                item.setFont(font)
                item.setBackground(SPECIAL_TINT if piece.special and s != shown_row else tint)
                item.setToolTip(self.tr("id %1 · stored as %2").replace(
                    "%1", str(token_id)).replace("%2", repr(piece.raw))
                    + f" · p = {p:.12g}")
                if table.item(s, c) is None:
                    table.setItem(s, c, item)
            p_final = float(lens.final_prob[s])
            item = table.item(s, LENS_TOP) or QTableWidgetItem()
            item.setText(f"{p_final:.1%}")
            item.setFont(big)
            item.setBackground(tint)
            item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            item.setToolTip(f"p = {p_final:.12g}")
            if table.item(s, LENS_TOP) is None:
                table.setItem(s, LENS_TOP, item)

    def _fill_shift(self, lens: LogitLens, plain: LogitLens) -> None:
        """Plain against intervened at every depth: each run's top token, the plain top
        token's probability before → after, the last token's ‖u‖ in both."""
        table = self.table
        states = lens.num_states
        if table.columnCount() != 5:
            table.setRowCount(0)
            table.setColumnCount(5)
            for column in (3, 4):  # the norms: as wide as their numbers, the tokens the rest
                table.horizontalHeader().setSectionResizeMode(
                    column, QHeaderView.ResizeMode.ResizeToContents)
        if table.rowCount() != states:
            table.setRowCount(states)
        table.setHorizontalHeaderLabels([
            self.tr("plain: top 1"), self.tr("intervened: top 1"),
            self.tr("p(plain top 1)"), self.tr("‖u‖ plain"),
            self.tr("‖u‖ intervened")])
        table.setVerticalHeaderLabels(self.state_labels())
        big = QFont(self.font())
        big.setPointSizeF(big.pointSizeF() * 1.15)
        assert self._shift is not None
        top, before, after = self._shift
        norms = self.norms[:, -1] if self.norms is not None else np.zeros(states)
        plain_norms = self.plain_norms if self.plain_norms is not None else norms
        shown_row = self.shown_layer + 1
        same_tip = self.tr("The same bits in both runs: the intervention has not acted yet")
        for s in range(states):
            same = s < self.same
            tint = SHOWN_TINT if s == shown_row else QColor(0, 0, 0, 0)
            p0, p1 = float(before[s]), float(after[s])
            cells = [(int(top[s]), p0), (int(lens.ids[s, 0]), float(lens.probs[s, 0]))]
            texts = [f"{self._pieces[i].text}  {_share(p)}" for i, p in cells]
            texts.append(f"{_share(p0)} → {_share(p1)}")
            texts += [f"{float(plain_norms[s]):.4g}", f"{float(norms[s]):.4g}"]
            tips = [self.tr("id %1 · stored as %2").replace("%1", str(i)).replace(
                "%2", repr(self._pieces[i].raw)) + f" · p = {p:.12g}" for i, p in cells]
            tips.append(f"p = {p0:.12g} → {p1:.12g}  (Δ {p1 - p0:+.3g})")
            tips += [f"‖u‖ = {float(plain_norms[s]):.12g}", f"‖u‖ = {float(norms[s]):.12g}"]
            for c, (text, tip) in enumerate(zip(texts, tips, strict=True)):
                item = table.item(s, c) or QTableWidgetItem()
                item.setText(text)
                item.setFont(big)
                item.setBackground(tint)
                item.setToolTip(same_tip + "\n" + tip if same else tip)
                colour = (SAME_GREY if same else RISE if c == 2 and p1 > p0
                          else FALL if c == 2 and p1 < p0 else None)
                item.setData(Qt.ItemDataRole.ForegroundRole, colour)
                if c >= 2:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                if table.item(s, c) is None:
                    table.setItem(s, c, item)
        first = self._first_intervened()
        if self.same <= 1:
            note = self.tr("Only the embeddings are the same in both runs: the intervention "
                           "acts from layer %1 on.").replace("%1", str(first))
        else:
            note = self.tr("From the embeddings to the output of layer %1 the two runs are "
                           "the same bits (grey): the intervention acts from layer %2 on."
                           ).replace("%1", str(self.same - 2)).replace("%2", str(first))
        self.shift_note.setText(note)
        self.shift_note.show()

    def _first_intervened(self) -> int:
        """The first layer the intervention ran in (0 when unknown)."""
        run = self._run
        layers = getattr(run, "intervened_layers", ())
        return int(layers[0]) if layers else 0


def lenses(model: Qwen3Model, run: ModelRun, plain: ModelRun | None = None,
           known: LogitLens | None = None, known_plain: LogitLens | None = None
           ) -> tuple[LogitLens, LogitLens | None]:
    """The logit lens of ``run`` and of the plain ``plain`` (None: no intervention), each
    taken from ``known`` / ``known_plain`` when given (a lens computed before for that run)."""
    lens = known if known is not None else logit_lens(model, run, top=LENS_TOP)
    if plain is None:
        return lens, None
    return lens, known_plain if known_plain is not None else logit_lens(model, plain,
                                                                        top=LENS_TOP)


def _share(p: float) -> str:
    """A probability as the table shows it: whole percent, or one decimal below 1 %."""
    return f"{p:.0%}" if p >= 0.01 else f"{p:.1%}"
