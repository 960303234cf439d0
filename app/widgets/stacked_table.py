"""A small table shown one row under another, for a panel too narrow for its columns.

:class:`StackedTable` mirrors a ``QTableWidget`` (its headers and cells, bold where the cell is
bold): each row's name on a line of its own, then one line per column, the column's name
beside the number. It is as wide as a name and a number, where the table needs all its
columns side by side; the table stays the one place the panel writes its numbers.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QTableWidget


class StackedTable(QLabel):
    """The cells of ``table``, a row's columns under its name (rich text, selectable)."""

    def __init__(self, table: QTableWidget) -> None:
        super().__init__()
        self.table = table
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        model = table.model()
        model.dataChanged.connect(self.refresh)
        model.headerDataChanged.connect(self.refresh)
        self.refresh()

    def _header(self, orientation: Qt.Orientation, index: int) -> str:
        item = (self.table.horizontalHeaderItem(index) if orientation == Qt.Orientation.Horizontal
                else self.table.verticalHeaderItem(index))
        return item.text().replace("\n", "") if item is not None else ""

    def refresh(self, *_args: object) -> None:
        """Copy the table's texts (only while shown: hidden, at the next show)."""
        if self.isHidden():
            return
        table = self.table
        rows = []
        for r in range(table.rowCount()):
            rows.append(f"<tr><td colspan='2'><b>{escape(self._header(Qt.Orientation.Vertical, r))}"
                        "</b></td></tr>")
            for c in range(table.columnCount()):
                item = table.item(r, c)
                text = escape(item.text()) if item is not None else ""
                if item is not None and item.font().bold():
                    text = f"<b>{text}</b>"
                name = escape(self._header(Qt.Orientation.Horizontal, c))
                rows.append(f"<tr><td>&nbsp;&nbsp;{name}</td>"
                            f"<td align='right'>&nbsp;{text}</td></tr>")
        html = f"<table cellspacing='0' cellpadding='1'>{''.join(rows)}</table>"
        if html != self.text():
            self.setText(html)

    def setVisible(self, visible: bool) -> None:
        super().setVisible(visible)
        if visible:
            self.refresh()
