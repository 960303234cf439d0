"""Moving a widget to another place in a panel's layouts at run time, keeping its layout item.

``QLayout.removeWidget`` throws the widget's layout item away and PySide hands the widget's
Python ownership around on the way; a panel that moved widgets that way as its dock resized
was later found holding a freed widget inside ``QApplication.allWidgets()``. Here the item
itself is taken out with ``takeAt`` and put straight into its new place: the widget never
changes parent and is in exactly one layout before and after.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QBoxLayout, QGridLayout, QLayout, QLayoutItem, QWidget

#: No alignment: the item fills its cell.
FILL = Qt.AlignmentFlag(0)


def take_item(layout: QLayout, widget: QWidget) -> QLayoutItem:
    """Take ``widget``'s item out of ``layout`` (it must be there) without deleting it."""
    index = layout.indexOf(widget)
    if index < 0:
        raise ValueError(f"{widget.objectName() or type(widget).__name__} is not in this layout")
    item = layout.takeAt(index)
    assert item is not None and item.widget() is widget
    return item


def move_in_grid(grid: QGridLayout, widget: QWidget, row: int, column: int,
                 row_span: int = 1, column_span: int = 1,
                 alignment: Qt.AlignmentFlag = FILL) -> None:
    """Put ``widget``, already in ``grid``, at another cell (a no-op where it already is)."""
    index = grid.indexOf(widget)
    if index >= 0 and grid.getItemPosition(index) == (row, column, row_span, column_span):
        grid.setAlignment(widget, alignment)
        return
    grid.addItem(take_item(grid, widget), row, column, row_span, column_span, alignment)


def move_to_box(source: QLayout, widget: QWidget, box: QBoxLayout, index: int,
                stretch: int = 0) -> None:
    """Move ``widget`` from ``source`` to position ``index`` of ``box`` (``-1``: the end)."""
    box.insertItem(index, take_item(source, widget))
    box.setStretch(box.indexOf(widget), stretch)
