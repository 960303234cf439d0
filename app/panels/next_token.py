"""Next token: what the open Qwen3 model predicts after the last token.

The ten most probable tokens of ``softmax(logits / T)`` over the whole vocabulary (float64,
from ``Result.model_run.logits``, the LM head on the last position), with the softmax
temperature T on a log slider, and an Append button that appends the most probable token
(greedy decoding, one step per press). Without a model it says how to open one.

With an intervention on (``Result.model_plain`` is the plain model's run on the same ids), the
list compares the plain model with the intervened one: the tokens of both top tens, each with
its probability before and after, the largest change first.

Append: the panel emits ``append_requested(id)``; when the state has ``append_token`` the panel
connects that signal to it itself, so nothing else needs to wire it (else the window does).
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app import theme
from app.compute import Result
from app.panels.base import intervention_text, layers_text
from app.panels.lens_base import LensHeader, LensPanel, LogSlider, badge_tip, pick
from app.state import AppState
from app.widgets.piece_text import ShownPiece, shown_pieces
from engine.logit_lens import softmax, top_tokens

#: How many next tokens are listed.
TOP = 10
#: The temperature slider's range (log scale); T = 1 is the model's own distribution.
T_LO, T_HI = 0.1, 10.0
#: A special token's row background (a quiet violet, readable in both themes' text colours).
SPECIAL_TINT = QColor(150, 110, 200, 60)


def next_token_probs(logits: np.ndarray, temperature: float) -> np.ndarray:
    """``softmax(logits / T)`` in float64: the distribution the list shows."""
    return softmax(np.asarray(logits, dtype=np.float64) / temperature)


#: A risen and a fallen probability's change (readable on both themes' backgrounds).
RISE, FALL = QColor(46, 125, 50), QColor(198, 40, 40)


def next_token_changes(plain_logits: np.ndarray, logits: np.ndarray, temperature: float,
                       top: int = TOP) -> tuple[list[int], np.ndarray, np.ndarray]:
    """The plain model against the intervened one: the ids of both top ``top`` lists (their
    union), with their probabilities before and after at ``temperature``, the largest
    |after − before| first (ties: the lower id)."""
    before = next_token_probs(plain_logits, temperature)
    after = next_token_probs(logits, temperature)
    union = sorted({int(i) for i in top_tokens(before[None], top)[0]}
                   | {int(i) for i in top_tokens(after[None], top)[0]})
    ids = sorted(union, key=lambda i: (-abs(after[i] - before[i]), i))
    return ids, before[ids], after[ids]


def rank_of(probs: np.ndarray, token_id: int) -> int:
    """``token_id``'s place in ``probs`` (1: the most probable; ties share the better one).
    Logits give the same places as their probabilities at any temperature."""
    return int(np.count_nonzero(probs > probs[token_id])) + 1


class NextTokenPanel(LensPanel):
    #: the id of the token to append (the top one at the moment of the press)
    append_requested = Signal(int)

    def __init__(self, state: AppState) -> None:
        super().__init__(state)
        append = getattr(state, "append_token", None)
        if callable(append):
            self.append_requested.connect(append)
        #: what is on screen, for tests: ids and probabilities, most probable first
        self.top_ids: list[int] = []
        self.top_probs = np.zeros(0)
        self.shown: list[ShownPiece] = []
        self._logits: np.ndarray | None = None
        self._run: object = None
        #: with an intervention: the plain run's logits, and what is on screen (for tests):
        #: the ids of both top tens, largest change first, their probabilities before, after
        self._plain_logits: np.ndarray | None = None
        self._plain_run: object = None
        self.changes: list[int] = []
        self.before = np.zeros(0)
        self.after = np.zeros(0)
        self._change_pieces: dict[int, ShownPiece] = {}
        self._ranks: dict[int, tuple[int, int]] = {}
        self._iv_words = ""
        self._columns: list[str] = []
        state.error_changed.connect(lambda _m: self._enable_append())

    def build(self) -> None:
        body = QWidget()
        self.pages = QStackedWidget()
        self.note = QLabel()
        self.note.setObjectName("nextTokenNoModel")
        self.note.setWordWrap(True)
        self.note.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.pages.addWidget(self.note)

        content = QWidget()
        self.header = LensHeader([("EXACT", "")])
        self.t_label = QLabel()
        self.t_label.setObjectName("nextTokenTLabel")
        self.slider = LogSlider(T_LO, T_HI, 1.0)
        self.slider.setObjectName("nextTokenTSlider")
        self.t_one = QPushButton()
        self.t_one.setObjectName("nextTokenTOne")
        self.t_one.setAutoDefault(False)
        self.table = QTableWidget(0, 3)
        self.table.setObjectName("nextTokenTable")
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.table.setShowGrid(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        #: with an intervention: what the list compares (above the table)
        self.compare_note = QLabel()
        self.compare_note.setObjectName("nextTokenCompare")
        self.compare_note.setWordWrap(True)
        self.compare_note.hide()
        self.append_button = QPushButton()
        self.append_button.setObjectName("nextTokenAppend")
        self.append_button.setAutoDefault(False)

        controls = QHBoxLayout()
        controls.addWidget(self.t_label)
        controls.addWidget(self.slider, 1)
        controls.addWidget(self.t_one)
        bottom = QHBoxLayout()
        bottom.addWidget(self.append_button)
        bottom.addStretch(1)
        layout = QVBoxLayout(content)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        layout.addWidget(self.header)
        layout.addLayout(controls)
        layout.addWidget(self.compare_note)
        layout.addWidget(self.table, 1)
        layout.addLayout(bottom)
        self.pages.addWidget(content)
        outer = QVBoxLayout(body)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.pages)
        self.set_body(body)

        self.slider.value_changed.connect(lambda _t: self._update_list())
        self.t_one.clicked.connect(lambda: self.set_temperature(1.0))
        self.append_button.clicked.connect(self.append_top)

    # ----- controls -----
    @property
    def temperature(self) -> float:
        return self.slider.value_float if self.built else 1.0

    def set_temperature(self, temperature: float) -> None:
        """T exactly (the T = 1 button and tests)."""
        self.ensure_built()
        self.slider.set_value(temperature)
        self._update_list()

    def append_top(self) -> None:
        """Ask for the most probable token to be appended: one greedy step per press (the
        button waits for the result of that step before it offers the next)."""
        if not self.top_ids:
            return
        if self.built:
            self.append_button.setEnabled(False)
        self.append_requested.emit(self.top_ids[0])

    def _enable_append(self) -> None:
        if self.built:
            self.append_button.setEnabled(bool(self.top_ids))

    def _retranslate(self) -> None:
        st = self.state
        self.note.setText(self.tr("Open a model (File ▸ Open model…) to see what Qwen3 "
                                  "predicts next."))
        self.header.set_texts(
            self.tr("Next token"),
            pick(st, "What the model predicts after the last token: softmax(logits / T) over "
                     "the whole vocabulary, the ten most probable. T = 1 is the model's own "
                     "distribution; a lower T sharpens it, a higher T flattens it (the order "
                     "stays).",
                 "模型对最后一个词元之后的预测：对整个词表做 softmax(logits / T)，列出最可能的"
                 "十个。T = 1 是模型自己的分布；T 越小越尖锐，越大越平坦（顺序不变）。"),
            [badge_tip(self, "EXACT")])
        self.slider.setToolTip(self.tr("Softmax temperature T on a log scale"))
        self.t_one.setText(self.tr("T = 1 (the model)"))
        self.append_button.setToolTip(self.tr(
            "Append the most probable token to the text (greedy: one step per press)"))
        self._update_list()

    # ----- drawing -----
    def redraw(self, result: Result) -> None:
        run = getattr(result, "model_run", None)
        model = getattr(result, "model", None)
        if run is None or model is None:
            self.pages.setCurrentIndex(0)
            self._logits, self._run = None, None
            self._plain_logits, self._plain_run = None, None
            self.top_ids, self.top_probs, self.shown = [], np.zeros(0), []
            self._enable_append()
            return
        self.pages.setCurrentIndex(1)
        plain = getattr(result, "model_plain", None)
        if run is not self._run or plain is not self._plain_run:
            self._run, self._plain_run = run, plain
            self._logits = np.asarray(run.logits, dtype=np.float64)
            # the ranking is the same at every T > 0: the pieces are looked up once a result
            ids = top_tokens(self._logits[None], TOP)[0].tolist()
            self.shown = shown_pieces(model, ids)
            self._plain_logits = None
            if plain is not None:
                self._plain_logits = np.asarray(plain.logits, dtype=np.float64)
                # (so is the union of both top tens: only its order follows T)
                union, _b, _a = next_token_changes(self._plain_logits, self._logits, 1.0)
                self._change_pieces = {p.token_id: p for p in shown_pieces(model, union)}
                # and the ranks (a count over the vocabulary: once, not per slider frame)
                self._ranks = {i: (rank_of(self._plain_logits, i), rank_of(self._logits, i))
                               for i in union}
        what = intervention_text(result.trace.intervention if result.trace else None)
        layers = layers_text(result)
        self._iv_words = f"{what}, {layers}" if what and layers else what
        self._update_list()
        self._enable_append()

    def _update_list(self) -> None:
        """Probabilities at the slider's T; the per-frame path of the slider."""
        if not self.built:
            return
        t = self.temperature
        self.t_label.setText(self.tr("T = %1").replace("%1", f"{t:.3g}"))
        if self._logits is None:
            return
        probs = next_token_probs(self._logits, t)
        ids = [p.token_id for p in self.shown]
        self.top_ids = ids
        self.top_probs = probs[ids]
        if self._plain_logits is not None:
            self.changes, self.before, self.after = next_token_changes(
                self._plain_logits, self._logits, t)
            self._fill_changes()
        else:
            self.changes, self.before, self.after = [], np.zeros(0), np.zeros(0)
            self._fill_table()
        top = self.shown[0] if self.shown else None
        self.append_button.setText(
            self.tr("Append “%1”").replace("%1", top.text) if top else self.tr("Append"))

    def _set_columns(self, labels: list[str]) -> None:
        """The table's columns: 3 for the model's list, 5 for before and after."""
        table = self.table
        self.compare_note.setVisible(len(labels) > 3)
        if labels == self._columns:  # (the slider's per-frame path: nothing to set)
            return
        self._columns = labels
        if table.columnCount() != len(labels):
            table.setRowCount(0)  # the cells' widgets were for the other layout
            table.setColumnCount(len(labels))
            header = table.horizontalHeader()
            for column in range(len(labels)):
                header.setSectionResizeMode(
                    column, QHeaderView.ResizeMode.ResizeToContents if column in (0, 1)
                    or column == 4 else QHeaderView.ResizeMode.Stretch)
        table.setHorizontalHeaderLabels(labels)

    def _token_item(self, row: int, piece: ShownPiece, mono: QFont) -> None:
        table = self.table
        token = table.item(row, 1) or QTableWidgetItem()
        token.setText(piece.text)
        font = QFont(mono)
        font.setItalic(piece.special)
        token.setFont(font)
        token.setBackground(SPECIAL_TINT if piece.special else QColor(0, 0, 0, 0))
        tip = self.tr("id %1 · stored as %2").replace("%1", str(piece.token_id)).replace(
            "%2", repr(piece.raw))
        if piece.special:
            tip += " · " + self.tr("special token")
        token.setToolTip(tip)
        if table.item(row, 1) is None:
            table.setItem(row, 1, token)

    def _bar(self, row: int, column: int, p: float) -> None:
        bar = self.table.cellWidget(row, column)
        if not isinstance(bar, QProgressBar):
            bar = QProgressBar()
            bar.setRange(0, 1000)
            bar.setTextVisible(True)
            bar.setAlignment(Qt.AlignmentFlag.AlignCenter)
            self.table.setCellWidget(row, column, bar)
        bar.setValue(round(p * 1000))
        bar.setFormat(_percent(p))
        bar.setToolTip(f"p = {p:.12g}")

    def _fill_changes(self) -> None:
        """Before and after side by side: rank, token, plain p, intervened p, change."""
        self._set_columns([self.tr("rank"), self.tr("token"), self.tr("plain model"),
                           self.tr("intervened"), self.tr("change")])
        self.compare_note.setText(self.tr(
            "The plain model and the intervened one (%1) on the same text: the tokens of "
            "both top %2, the largest change first.").replace(
                "%1", self._iv_words).replace("%2", str(TOP)))
        mono, quiet = self._rows(len(self.changes))
        for row, token_id in enumerate(self.changes):
            p0, p1 = float(self.before[row]), float(self.after[row])
            r0, r1 = self._ranks[token_id]
            self._number(row, 0, f"{r0} → {r1}" if r0 != r1 else str(r0), quiet,
                         self.tr("place in the plain model's list → in the intervened "
                                 "model's"))
            self._token_item(row, self._change_pieces[token_id], mono)
            self._bar(row, 2, p0)
            self._bar(row, 3, p1)
            self._number(row, 4, _change(p1 - p0),
                         RISE if p1 > p0 else FALL if p1 < p0 else quiet,
                         f"Δp = {p1 - p0:+.12g}")
        self.table.resizeRowsToContents()

    def _fill_table(self) -> None:
        self._set_columns([self.tr("#"), self.tr("token"), self.tr("probability")])
        mono, quiet = self._rows(len(self.shown))
        for row, (piece, p) in enumerate(zip(self.shown, self.top_probs, strict=True)):
            self._number(row, 0, str(row + 1), quiet, "")
            self._token_item(row, piece, mono)
            self._bar(row, 2, float(p))
        self.table.resizeRowsToContents()

    def _rows(self, count: int) -> tuple[QFont, QColor]:
        """The table at ``count`` rows; the tokens' font and the ranks' quiet colour."""
        if self.table.rowCount() != count:
            self.table.setRowCount(count)
        mono = QFont(self.font())
        mono.setPointSizeF(mono.pointSizeF() * 1.25)
        return mono, QColor(theme.quiet_css())

    def _number(self, row: int, column: int, text: str, colour: QColor, tip: str) -> None:
        """A right-aligned number cell (a rank, a change), its item kept across redraws."""
        item = self.table.item(row, column)
        if item is None:
            item = QTableWidgetItem()
            self.table.setItem(row, column, item)
        item.setText(text)
        item.setForeground(colour)
        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        item.setToolTip(tip)

def _change(delta: float) -> str:
    """A change of probability in percentage points, signed ("+12.3 %", "−0.04 %")."""
    if delta == 0.0:
        return "0 %"
    sign = "+" if delta > 0 else "−"
    return sign + _percent(abs(delta))


def _percent(p: float) -> str:
    """A probability as a percentage with the digits that matter (0.0003 %, 12.3 %)."""
    if p <= 0.0:
        return "0 %"
    value = p * 100
    digits = max(1, 2 - math.floor(math.log10(value))) if value < 10 else 1
    return f"{value:.{min(digits, 6)}f} %"
