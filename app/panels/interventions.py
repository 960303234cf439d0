"""Interventions: what is switched off in the layer, each part with its own undo, and the
controls to switch more off (a head zeroed or scaled, an MLP neuron, a whole branch).

The panel reads and changes only the state's input (``AppState.intervention`` through its
methods): every change is one request, one undo step (Ctrl+Z), and every panel shows the
intervened result with its INTERVENED badge. The head picker of the attention panel and the
step heatmap's ``gated`` columns call the same state methods.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.compute import Result
from app.panels.base import Panel, part_text
from app.state import AppState
from engine import Intervention
from engine.intervention import Part


class InterventionsPanel(Panel):
    def __init__(self, state: AppState) -> None:
        super().__init__(state)
        body = QWidget()
        self.active_title = QLabel()
        self.active_title.setObjectName("interventionsActiveTitle")
        self.none_label = QLabel()
        self.none_label.setObjectName("interventionsNone")
        self.none_label.setWordWrap(True)
        #: one row per active part: its words and a remove button
        self.rows_box = QWidget()
        self.rows = QVBoxLayout(self.rows_box)
        self.rows.setContentsMargins(0, 0, 0, 0)
        self.rows.setSpacing(2)
        #: (part, remove button) of each row shown, in order (tests press them)
        self.part_buttons: list[tuple[Part, QToolButton]] = []
        self.clear_button = QPushButton()
        self.clear_button.setObjectName("interventionsClear")

        self.head_label = QLabel()
        self.head_box = QSpinBox()
        self.head_box.setObjectName("interventionsHead")
        self.head_off = QPushButton()
        self.head_off.setObjectName("interventionsHeadOff")
        self.factor_box = QDoubleSpinBox()
        self.factor_box.setObjectName("interventionsFactor")
        self.factor_box.setRange(-10.0, 10.0)
        self.factor_box.setDecimals(2)
        self.factor_box.setSingleStep(0.1)
        self.factor_box.setValue(0.5)
        self.head_scale = QPushButton()
        self.head_scale.setObjectName("interventionsHeadScale")
        self.neuron_label = QLabel()
        self.neuron_box = QSpinBox()
        self.neuron_box.setObjectName("interventionsNeuron")
        self.neuron_off = QPushButton()
        self.neuron_off.setObjectName("interventionsNeuronOff")
        self.skip_attention = QCheckBox()
        self.skip_attention.setObjectName("interventionsSkipAttention")
        self.skip_mlp = QCheckBox()
        self.skip_mlp.setObjectName("interventionsSkipMlp")
        #: with a real model: in the shown layer (0) or in every layer (1)
        self.scope_label = QLabel()
        self.scope_box = QComboBox()
        self.scope_box.setObjectName("interventionsScope")
        self.scope_box.addItems(["", ""])
        self.note = QLabel()
        self.note.setObjectName("interventionsNote")
        self.note.setWordWrap(True)

        # three narrow rows: the dock never widens the column it is tabbed in
        controls = QGridLayout()
        controls.addWidget(self.head_label, 0, 0)
        controls.addWidget(self.head_box, 0, 1)
        controls.addWidget(self.head_off, 0, 2)
        controls.addWidget(self.factor_box, 1, 1)
        controls.addWidget(self.head_scale, 1, 2)
        controls.addWidget(self.neuron_label, 2, 0)
        controls.addWidget(self.neuron_box, 2, 1)
        controls.addWidget(self.neuron_off, 2, 2)
        skips = QHBoxLayout()
        skips.addWidget(self.skip_attention)
        skips.addWidget(self.skip_mlp)
        skips.addStretch(1)
        scope = QHBoxLayout()
        scope.addWidget(self.scope_label)
        scope.addWidget(self.scope_box, 1)
        header = QHBoxLayout()
        header.addWidget(self.active_title, 1)
        header.addWidget(self.clear_button)
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 22, 4, 4)  # room for the badge over the top edge
        layout.addLayout(header)
        layout.addWidget(self.none_label)
        layout.addWidget(self.rows_box)
        layout.addLayout(controls)
        layout.addLayout(skips)
        layout.addLayout(scope)
        layout.addWidget(self.note)
        layout.addStretch(1)
        self.set_body(body)

        self.clear_button.clicked.connect(state.clear_intervention)
        self.head_off.clicked.connect(lambda: state.toggle_head(self.head_box.value()))
        self.head_scale.clicked.connect(
            lambda: state.scale_head(self.head_box.value(), self.factor_box.value()))
        self.neuron_off.clicked.connect(lambda: state.toggle_neuron(self.neuron_box.value()))
        self.skip_attention.clicked.connect(lambda on: state.skip_branch("attention", on))
        self.skip_mlp.clicked.connect(lambda on: state.skip_branch("mlp", on))
        self.scope_box.activated.connect(lambda index: state.set_intervene_all(index == 1))
        state.intervention_changed.connect(self._on_intervention_changed)
        state.model_changed.connect(self._sync_ranges)
        self._sync_ranges()
        self.retranslate()
        self._sync_list()

    # the controls work before any result (the intervention is an input): never the empty page
    def _redraw(self) -> None:
        super()._redraw()
        if self._stack.count() > 1:
            self._stack.setCurrentIndex(1)

    def redraw(self, result: Result) -> None:
        self._sync_ranges()

    @property
    def every_layer(self) -> bool:
        """The intervention runs in every layer of the open model (never on the toy)."""
        return self.state.model is not None and self.state.intervene_layers == "all"

    def retranslate(self) -> None:
        self.active_title.setTextFormat(Qt.TextFormat.RichText)
        self.none_label.setText(self.tr("Nothing: every panel shows the plain layer."))
        self.clear_button.setText(self.tr("Clear all"))
        self.clear_button.setToolTip(self.tr("Back to the plain layer (Ctrl+Z undoes it)"))
        self.head_label.setText(self.tr("Head:"))
        self.head_off.setText(self.tr("Switch off / on"))
        self.head_off.setToolTip(self.tr(
            "The head's attention output is zero before o_proj (its pattern is still computed)"))
        self.head_scale.setText(self.tr("Scale by factor"))
        self.head_scale.setToolTip(self.tr(
            "The head's attention output times the factor before o_proj"))
        self.neuron_label.setText(self.tr("MLP neuron:"))
        self.neuron_off.setText(self.tr("Switch off / on"))
        self.neuron_off.setToolTip(self.tr(
            "That column of gated = act(gate) × up is zero before down_proj"))
        self.skip_attention.setText(self.tr("skip attention"))
        self.skip_attention.setToolTip(self.tr(
            "The attention branch adds nothing to the residual: resid_attn = x"))
        self.skip_mlp.setText(self.tr("skip MLP"))
        self.skip_mlp.setToolTip(self.tr(
            "The MLP branch adds nothing to the residual: resid_mlp = resid_attn"))
        self.note.setText(self.tr(
            "Every change is one undo step (Ctrl+Z). The causality panel compares the "
            "intervened layer with the plain one; every panel carries a red INTERVENED badge."))
        self.scope_label.setText(self.tr("Where:"))
        self.scope_box.setToolTip(self.tr(
            "With a model: switch the same parts off in the layer on show only, or in every "
            "layer at once (one head index in all layers, say)"))
        self._sync_scope()
        self._sync_list()

    def _sync_ranges(self) -> None:
        config = self.state.config
        self.head_box.setRange(0, config.num_attention_heads - 1)
        self.neuron_box.setRange(0, config.intermediate_size - 1)
        self._sync_scope()

    def _sync_scope(self) -> None:
        """The layer choice: only with a model (the toy is one layer)."""
        model = self.state.model
        self.scope_label.setVisible(model is not None)
        self.scope_box.setVisible(model is not None)
        self.scope_box.setItemText(0, self.tr("this layer (%1)").replace(
            "%1", str(self.state.model_layer)) if model is not None else self.tr("this layer"))
        self.scope_box.setItemText(1, self.tr("every layer (%1 layers)").replace(
            "%1", str(model.num_layers)) if model is not None else self.tr("every layer"))
        self.scope_box.setCurrentIndex(1 if self.every_layer else 0)
        self.active_title.setText(self.tr("<b>Switched off in every layer</b>")
                                  if self.every_layer
                                  else self.tr("<b>Switched off in this layer</b>"))

    def _on_intervention_changed(self, _iv: Intervention | None) -> None:
        self._sync_scope()
        self._sync_list()

    def _sync_list(self) -> None:
        iv = self.state.intervention
        parts = iv.parts() if iv is not None else ()
        while self.rows.count():
            item = self.rows.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        self.part_buttons = []
        for part in parts:
            row = QWidget()
            line = QHBoxLayout(row)
            line.setContentsMargins(0, 0, 0, 0)
            words = QLabel(part_text(part))
            remove = QToolButton()
            remove.setText(self.tr("Undo"))
            remove.setToolTip(self.tr("Switch this back on"))
            remove.clicked.connect(lambda _c=False, p=part: self.state.remove_part(p))
            line.addWidget(words, 1)
            line.addWidget(remove)
            self.rows.addWidget(row)
            self.part_buttons.append((part, remove))
        self.none_label.setVisible(not parts)
        self.clear_button.setEnabled(bool(parts))
        skipped = iv.skip if iv is not None else ()
        for box, branch in ((self.skip_attention, "attention"), (self.skip_mlp, "mlp")):
            box.blockSignals(True)
            box.setChecked(branch in skipped)
            box.blockSignals(False)
