"""The 22 steps in order: name, shape, formula, meaning. Selecting one selects it everywhere."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTreeWidget, QTreeWidgetItem

from app.compute import Result
from app.panels.base import Panel
from app.state import AppState
from engine import STEP_INFO, STEP_NAMES

#: The columns that share the width left beside the number and the name (shape, formula,
#: meaning); each gets at least MIN_SECTION px, else they are hidden (see _fit_columns).
SHARED_COLUMNS = (2, 3, 4)
MIN_SECTION = 24

#: The only two steps that move depth time; the other 20 evaluate the right-hand side.
DEPTH_MOVES = {"embed": "t = 0", "resid_attn": "0 → ½", "resid_mlp": "½ → 1"}


class StepListPanel(Panel):
    def __init__(self, state: AppState) -> None:
        super().__init__(state)
        self.tree = QTreeWidget()
        self.tree.setObjectName("stepTree")
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.tree.setColumnCount(5)
        self._mask_off = False
        for info in STEP_INFO:
            item = QTreeWidgetItem([str(info.index), info.name, "", info.formula, ""])
            item.setData(0, Qt.ItemDataRole.UserRole, info.name)
            item.setTextAlignment(0, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.tree.addTopLevelItem(item)
        header = self.tree.header()
        header.setStretchLastSection(False)  # (the last three stretch)
        # number and name at their width; shape, formula and meaning share what is left,
        # elided, the whole text in each cell's tooltip: at every dock width the table fits
        # with no horizontal scroll bar (a class cannot scroll it)
        for col in range(2):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        for col in (2, 3, 4):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.Stretch)
        header.setMinimumSectionSize(MIN_SECTION)
        self.set_body(self.tree)
        #: True while shape, formula and meaning are hidden: a narrow dock (the tour open at
        #: 1280 x 720) left them no width, and the list scrolled sideways; each row's tooltip
        #: still tells it all
        self.narrow = False
        self.tree.viewport().installEventFilter(self)

        self.tree.currentItemChanged.connect(self._on_current_item_changed)
        self.retranslate()
        self._sync_current()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize and watched is self.tree.viewport():
            self._fit_columns()
        return super().eventFilter(watched, event)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange and hasattr(self, "narrow"):
            self._fit_columns()

    def _fit_columns(self) -> None:
        """Number and name always whole, so the list is never narrower than they are; shape,
        formula and meaning beside them while each gets MIN_SECTION px, else hidden."""
        tree, header = self.tree, self.tree.header()
        named = sum(max(tree.sizeHintForColumn(c), header.sectionSizeHint(c)) for c in (0, 1))
        tree.setMinimumWidth(named + 2 * tree.frameWidth()
                             + tree.verticalScrollBar().sizeHint().width())
        narrow = tree.viewport().width() < named + len(SHARED_COLUMNS) * MIN_SECTION
        if narrow != self.narrow:
            self.narrow = narrow
            for col in SHARED_COLUMNS:
                tree.setColumnHidden(col, narrow)

    def retranslate(self) -> None:
        self.tree.setHeaderLabels(["#", self.tr("step"), self.tr("shape"), self.tr("formula"),
                                   self.tr("what it does")])
        result = self.state.result
        mask_off = result is not None and result.trace is not None and not result.trace.causal
        for info in STEP_INFO:
            item = self.tree.topLevelItem(info.index)
            # as the layer ran: without the mask causal_mask is a copy of the scores
            shown = result.trace.step(info.name) if mask_off else info
            formula, meaning = self.state.formula(shown), self.state.meaning(shown)
            if info.name in DEPTH_MOVES:
                meaning = f"[{DEPTH_MOVES[info.name]}] {meaning}"
            item.setText(3, formula)
            item.setText(4, meaning)
            item.setToolTip(4, meaning)
            # the formula column is cut at the dock's default width: any cell tells it all
            for col in range(4):
                item.setToolTip(col, f"{info.index}. {info.name}: {formula}\n{meaning}")
        self._mask_off = mask_off
        if hasattr(self, "narrow"):
            self._fit_columns()  # the header's words have their own widths in each language

    def redraw(self, result: Result) -> None:
        for step in result.trace.steps:
            shape = " × ".join(str(n) for n in step.array.shape)
            self.tree.topLevelItem(step.index).setText(2, shape)
        if (not result.trace.causal) != self._mask_off:
            self.retranslate()

    def _sync_current(self) -> None:
        item = self.tree.topLevelItem(STEP_NAMES.index(self.state.step))
        if self.tree.currentItem() is not item:
            self.tree.setCurrentItem(item)
        self.tree.scrollToItem(item)

    def _on_current_item_changed(self, current: QTreeWidgetItem | None, _prev: object) -> None:
        if current is not None:
            self.state.set_step(current.data(0, Qt.ItemDataRole.UserRole))

    def _on_selection_changed(self, field: str) -> None:
        if field == "step":
            self._sync_current()
