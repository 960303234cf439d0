"""Panels that re-arrange their controls as their dock is resized (the causality verdict,
the depth-time slider, the norm panel's Vector box and layer box) move each widget by its own
layout item: after many narrow / wide round trips every moved widget keeps its parent, sits in
exactly one layout, and every widget the application knows of is still alive."""

import shiboken6
from conftest import wait_for_text
from PySide6.QtWidgets import QApplication, QLayout, QWidget

ROUND_TRIPS = 12


def layouts_holding(panel: QWidget, widget: QWidget) -> list[QLayout]:
    return [layout for layout in panel.findChildren(QLayout) if layout.indexOf(widget) >= 0]


def drive(qtbot, window, dock_name, narrow, wide, flag, moved):
    """Float the dock, resize it narrow and wide ROUND_TRIPS times (``flag`` says which
    arrangement the panel took), then check the moved widgets and their layout items."""
    panel = window.panels[dock_name]
    dock = window.docks[dock_name]
    dock.setFloating(True)
    dock.resize(*wide)
    qtbot.waitUntil(lambda: not flag(panel))
    parents = {name: getattr(panel, name).parentWidget() for name in moved}
    items = {}
    for name in moved:
        widget = getattr(panel, name)
        (layout,) = layouts_holding(panel, widget)
        items[name] = layout.itemAt(layout.indexOf(widget))
    for _ in range(ROUND_TRIPS):
        dock.resize(*narrow)
        qtbot.waitUntil(lambda: flag(panel))
        dock.resize(*wide)
        qtbot.waitUntil(lambda: not flag(panel))
    QApplication.processEvents()
    for widget in QApplication.allWidgets():  # a freed widget here crashed a later test
        assert shiboken6.isValid(widget)
        widget.objectName()
    for name in moved:
        widget = getattr(panel, name)
        assert shiboken6.isValid(widget), name
        assert widget.parentWidget() is parents[name], name
        held = layouts_holding(panel, widget)
        assert len(held) == 1, (name, held)
        # the same layout item throughout: none thrown away and made again
        assert held[0].itemAt(held[0].indexOf(widget)) is items[name], name
        assert widget.isVisible(), name
    return panel


def test_the_causality_verdict_moves_under_and_back_beside_the_badge(make_window, qtbot):
    window = make_window(sync=True, text="the cat sat")
    window.editor.set_text("the cat ran")  # a comparison on screen: its verdict
    wait_for_text(qtbot, window, "the cat ran")
    panel = drive(qtbot, window, "causalityDock", (330, 700), (900, 700),
                  lambda p: p.verdict_below, ("_verdict_guard", "badge", "pin_button"))
    assert panel.verdict.isVisible()


def test_the_depth_slider_moves_to_its_own_row_and_back(make_window, qtbot):
    window = make_window(sync=True, text="我爱北京天安门")
    panel = drive(qtbot, window, "depthDock", (415, 318), (900, 600),
                  lambda p: p.slider_alone, ("slider", "play_button", "t_label"))
    # back in the row with Play, and the gap left for it takes no room
    assert abs(panel.slider.geometry().top() - panel.play_button.geometry().top()) < 10
    assert panel._gap.geometry().width() == 0


def test_the_norm_controls_stack_and_unstack(make_window, qtbot):
    window = make_window(sync=True, text="the cat sat")
    drive(qtbot, window, "normDock", (260, 700), (700, 700),
          lambda p: p.controls_stacked and p.legend_stacked,
          ("point_label", "point_box", "show_layer", "token_box", "legend"))
