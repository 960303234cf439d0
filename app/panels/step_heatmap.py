"""Discrete view: the selected step as a token × feature (or query × key) heatmap."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QCursor
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QMenu,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app import palettes, theme
from app.compute import Result
from app.panels.base import Panel
from app.state import AppState
from app.widgets.controls import sync_spin
from app.widgets.heatmap import HeatmapView
from engine import Step

#: Steps whose columns are the MLP's neurons (``intermediate_size`` of them): a click on one
#: offers to switch that neuron off (a column of ``gated`` zero before down_proj).
NEURON_STEPS = ("gate_proj", "up_proj", "silu_gate", "gated")


def token_labels(tokens: tuple[str, ...]) -> list[str]:
    return [f"{i} {t}" for i, t in enumerate(tokens)]


def format_value(value: float, masked: str = "−∞ (masked)") -> str:
    """Every digit a float64 has (repr is the shortest exact round-trip form); ``masked`` is
    what a masked score (−∞) reads as, in the interface language."""
    if value == -np.inf:
        return masked
    return repr(float(value))


class StepHeatmapPanel(Panel):
    def __init__(self, state: AppState) -> None:
        super().__init__(state)
        body = QWidget()
        self.title = QLabel()
        self.title.setObjectName("heatmapTitle")
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.title.setWordWrap(True)
        self.head_label = QLabel()
        self.head_box = QSpinBox()
        self.head_box.setObjectName("headBox")
        self.all_heads = QCheckBox()
        self.all_heads.setObjectName("allHeads")
        self.kv_note = QLabel()
        self.view = HeatmapView()
        self.readout = QLabel(" ")
        self.readout.setObjectName("heatmapReadout")
        self.readout.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        controls = QHBoxLayout()
        controls.addWidget(self.head_label)
        controls.addWidget(self.head_box)
        controls.addWidget(self.all_heads)
        controls.addWidget(self.kv_note, 1)
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.title)
        layout.addLayout(controls)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.readout)
        self.set_body(body)

        #: float64 matrix on screen, so hover shows exact values, not the float32 display copy
        self.source: np.ndarray | None = None
        self._col_kind = "feature"
        self._row_labels: list[str] = []
        self._col_labels: list[str] | None = None

        self.head_box.valueChanged.connect(self.state.set_head)
        self.all_heads.toggled.connect(lambda _on: self.request_redraw())
        self.view.hovered.connect(self._on_hovered)
        self.view.clicked.connect(self._on_clicked)
        #: the neuron menu last opened (tests trigger its action)
        self.neuron_menu_shown: QMenu | None = None
        self.retranslate()

    def retranslate(self) -> None:
        self.head_label.setText(self.tr("Head:"))
        self.all_heads.setText(self.tr("all heads side by side"))
        self.head_box.setToolTip(self.tr("Query head to show (arrow keys walk the steps)"))

    def _on_selection_changed(self, field: str) -> None:
        if field in ("step", "head"):
            self.request_redraw()

    # ----- what to show -----
    def matrix_for(self, step: Step, tokens: tuple[str, ...]) -> tuple[np.ndarray, list[str] | None,
                                                                        str]:
        """The 2-D float64 matrix for the selected head (or all heads), its column labels and
        what the columns are."""
        # the layer the step was computed with: after a new layer is set (a session opening)
        # the old result stays on screen until the new one arrives, and the new layer's group
        # size indexed the old key/value heads out of range (IndexError)
        result = self.state.result
        config = result.trace.config if result is not None else self.state.config
        axes, array = step.axes, step.array
        if array.ndim == 2:
            return array, None, axes[1]
        head_axis = axes.index("head")
        n_heads = array.shape[head_axis]
        per_head = np.moveaxis(array, head_axis, 0)  # [heads, T, cols]
        cols_are_keys = axes[-1] == "key token"
        if self.all_heads.isChecked():
            gap = np.full((per_head.shape[1], 1), np.nan)
            blocks = []
            for h in range(n_heads):
                blocks += [per_head[h], gap]
            matrix = np.concatenate(blocks[:-1], axis=1)
            # head:column under every block, nothing under the gaps: numbered as one matrix
            # the columns read 0 … 18 for four heads of 4 features, gaps counted
            names = tokens if cols_are_keys else [str(i) for i in range(per_head.shape[2])]
            labels = [label for h in range(n_heads)
                      for label in [*(f"h{h}:{name}" for name in names), ""]][:-1]
            return matrix, labels, axes[-1]
        head = self.state.head
        if n_heads != config.num_attention_heads:  # a kv step: show the kv head this query reads
            head = head // config.group_size
        labels = None
        if cols_are_keys:  # the result's row labels are these: not 512 f-strings again
            labels = (result.labels if result is not None and tokens is result.shown_tokens
                      else token_labels(tokens))
        return per_head[head], labels, axes[-1]

    def redraw(self, result: Result) -> None:
        step = result.trace.step(self.state.step)
        config = result.trace.config
        has_heads = "head" in step.axes
        sync_spin(self.head_box, config.num_attention_heads - 1, self.state.head)
        self.all_heads.setEnabled(has_heads)
        # with every head shown the picker changed nothing in this panel (the attention and
        # causality panels have pickers of their own)
        for w in (self.head_label, self.head_box):
            w.setEnabled(has_heads and not self.all_heads.isChecked())
        kv_step = has_heads and step.array.shape[step.axes.index("head")] != \
            config.num_attention_heads
        if kv_step and not self.all_heads.isChecked():
            kv_head = self.state.head // config.group_size
            self.kv_note.setText(self.tr("GQA: query head %1 reads kv head %2").replace(
                "%1", str(self.state.head)).replace("%2", str(kv_head)))
        else:
            self.kv_note.setText("")

        matrix, col_labels, col_kind = self.matrix_for(step, result.shown_tokens)
        # all heads: the column labels thin within each head, so every head shows its first
        blocks: tuple[int, ...] = ()
        if has_heads and self.all_heads.isChecked():
            n_heads, n_cols = step.array.shape[step.axes.index("head")], step.array.shape[-1]
            blocks = tuple(h * (n_cols + 1) for h in range(n_heads))
        self.source = matrix
        self._col_kind = col_kind
        self._row_labels = result.labels
        self._col_labels = col_labels
        shape = " × ".join(str(n) for n in step.array.shape)
        # (as the layer ran: without the mask causal_mask says it is a copy of the scores)
        self.title.setText(
            f"<b>{step.index}. {step.name}</b> &nbsp; "
            f"<code>{self.state.formula(step)}</code> &nbsp; "
            f"<span style='color:{theme.quiet_css()}'>[{shape}] — "
            f"{self.state.meaning(step)}</span>")
        levels = result.levels[step.name]
        map_name = palettes.map_for(step.kind, getattr(self.state, "palette", "classic"),
                                    getattr(self.state, "theme", "light"))
        self.view.set_matrix(matrix, levels, map_name, self._row_labels, col_labels,
                             x_title=self.tr(col_kind), y_title=self.tr("token"),
                             col_blocks=blocks)

    def neuron_menu(self, neuron: int) -> QMenu:
        """The menu a click on an MLP column opens: switch neuron ``neuron`` off (or on)."""
        iv = self.state.intervention
        off = iv is not None and neuron in iv.zero_neurons
        menu = QMenu(self)
        menu.setObjectName("neuronMenu")
        text = (self.tr("Switch neuron %1 back on") if off
                else self.tr("Switch neuron %1 off (its column of gated is zero)"))
        action = menu.addAction(text.replace("%1", str(neuron)))
        action.setObjectName("neuronToggle")
        action.triggered.connect(lambda: self.state.toggle_neuron(neuron))
        return menu

    def _on_clicked(self, row: int, col: int, _value: float) -> None:
        if (row < 0 or col < 0 or self.state.step not in NEURON_STEPS
                or self.state.result is None):
            return
        menu = self.neuron_menu(col)
        self.neuron_menu_shown = menu
        menu.popup(QCursor.pos())

    def _on_hovered(self, row: int, col: int, _shown: float) -> None:
        if row < 0 or self.source is None or np.isnan(self.source[row, col]):
            self.readout.setText(" ")
            return
        column = (self._col_labels[col] if self._col_labels
                  else f"{self.tr(self._col_kind)} {col}")
        self.readout.setText(self.tr("row %1 · column %2 · value %3").replace(
            "%1", self._row_labels[row]).replace("%2", column).replace(
            "%3", format_value(self.source[row, col], self.tr("−∞ (masked)"))))
