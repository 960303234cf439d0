"""sync_combo: the box ends up holding exactly the texts given, renamed in place; set_tooltip
sends no event for the tooltip the widget has already."""

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QComboBox, QLabel

from app.widgets.controls import set_tooltip, sync_combo


def items(box):
    return [box.itemText(i) for i in range(box.count())]


def test_sync_combo_renames_grows_and_shrinks(qtbot):
    box = QComboBox()
    qtbot.addWidget(box)
    fired = []
    box.currentIndexChanged.connect(fired.append)
    sync_combo(box, ["0 a", "1 b", "2 c"], 2)
    assert items(box) == ["0 a", "1 b", "2 c"] and box.currentIndex() == 2
    sync_combo(box, ["0 a", "1 b", "2 edited"], 2)  # the classroom edit: one item renamed
    assert items(box) == ["0 a", "1 b", "2 edited"]
    sync_combo(box, ["0 a", "1 x", "2 edited", "3 d"], 3)
    assert items(box) == ["0 a", "1 x", "2 edited", "3 d"] and box.currentIndex() == 3
    sync_combo(box, ["0 z"], 0)
    assert items(box) == ["0 z"] and box.currentIndex() == 0
    assert fired == []  # silently


def test_sync_combo_reads_the_box_when_someone_else_changed_it(qtbot):
    box = QComboBox()
    qtbot.addWidget(box)
    sync_combo(box, ["0 a", "1 b"], 0)
    box.addItem("stray")  # not through sync_combo: the remembered texts no longer apply
    box.setItemText(0, "changed")
    sync_combo(box, ["0 a", "1 b"], 1)
    assert items(box) == ["0 a", "1 b"] and box.currentIndex() == 1


def test_set_tooltip_changes_only_what_differs(qtbot):
    label = QLabel()
    qtbot.addWidget(label)
    changes = []

    class Count(QObject):
        def eventFilter(self, _obj, event):
            if event.type() == QEvent.Type.ToolTipChange:
                changes.append(label.toolTip())
            return False

    counter = Count()
    label.installEventFilter(counter)
    set_tooltip(label, "max |Δ| = 0")
    set_tooltip(label, "max |Δ| = 0")  # a redraw with the same words: nothing sent
    set_tooltip(label, "")
    set_tooltip(label, "")
    assert changes == ["max |Δ| = 0", ""] and label.toolTip() == ""
