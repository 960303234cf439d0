"""The keyboard shortcuts sheet (F1): every action that has a key, read from the actions
themselves, so the sheet can never disagree with what the keys do."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)


def action_keys(action: QAction) -> str:
    """The action's shortcuts as the user reads them ("Ctrl+Z", "→ / ↓")."""
    parts = [s.toString(QKeySequence.SequenceFormat.NativeText) for s in action.shortcuts()]
    return "  /  ".join(p for p in parts if p)


class ShortcutsSheet(QDialog):
    """Non-modal: it can stay open beside the window while you try the keys."""

    def __init__(self, rows_provider: object, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("shortcutsSheet")
        self.setModal(False)
        self._rows_provider = rows_provider
        self.intro = QLabel()
        self.intro.setWordWrap(True)
        self.table = QTableWidget(0, 2)
        self.table.setObjectName("shortcutsTable")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(
            0, QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.intro)
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)
        self.resize(560, 640)
        self.retranslate()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("Keyboard shortcuts"))
        self.intro.setText(self.tr(
            "Keys without Ctrl work whenever the text field does not have the focus: press Esc "
            "in the text field to hand the keys back to the window."))
        self.table.setHorizontalHeaderLabels([self.tr("Keys"), self.tr("Action")])
        self.refresh()

    def refresh(self) -> None:
        rows: list[tuple[str, str]] = list(self._rows_provider())  # type: ignore[operator]
        self.table.setRowCount(len(rows))
        for r, (keys, what) in enumerate(rows):
            key_item = QTableWidgetItem(keys)
            font = key_item.font()
            font.setBold(True)
            key_item.setFont(font)
            self.table.setItem(r, 0, key_item)
            self.table.setItem(r, 1, QTableWidgetItem(what))

    def rows(self) -> list[tuple[str, str]]:
        return [(self.table.item(r, 0).text(), self.table.item(r, 1).text())
                for r in range(self.table.rowCount())]
