"""The automatic dock layout follows the window's size (issue 21): three columns of two docks
where there is room, fewer side by side below a threshold (with hysteresis), the tour a band
over the columns in a narrow window; a layout the person arranged or restored is left alone.
(tests/test_layout_matrix.py checks that every text then fits.)"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QApplication

from app.docking import (
    FULL_HEIGHT,
    FULL_WIDTH,
    STACKED_HEIGHT,
    STACKED_WIDTH,
    arrangement_for,
)

SIX = ("stepListDock", "heatmapDock", "attentionDock", "normDock", "depthDock",
       "causalityDock")


def test_the_arrangement_follows_the_room_with_hysteresis():
    # the matrix sizes' room in text lines (1× text): width, height
    assert arrangement_for(114, 55, "full") == "full"  # 1600 x 900
    assert arrangement_for(137, 68, "compact") == "full"  # 1920 x 1080
    assert arrangement_for(98, 46, "full") == "compact"  # 1366 x 768
    assert arrangement_for(91, 42, "full") == "compact"  # 1280 x 720
    assert arrangement_for(89, 55, "full") == "compact"  # 1600 x 900, the tour's column
    assert arrangement_for(91, 33, "compact") == "stacked"  # 1280 x 720, the tour's band
    assert arrangement_for(70, 60, "full") == "stacked"
    # between enter and leave the arrangement on screen stays
    for rule, room, arrangements in (
            (FULL_WIDTH, lambda r: (r, 60), ("full", "compact")),
            (FULL_HEIGHT, lambda r: (120, r), ("full", "compact")),
            (STACKED_WIDTH, lambda r: (r, 60), ("stacked", "compact")),
            (STACKED_HEIGHT, lambda r: (120, r), ("stacked", "compact"))):
        middle = room((rule.enter + rule.leave) / 2)
        for now in arrangements:
            assert arrangement_for(*middle, now) == now, (rule, now)


def _on_screen(window, monkeypatch, size):
    class Screen:
        def availableGeometry(self):
            return QRect(0, 0, *size)

        def geometry(self):
            return QRect(0, 0, *size)

    monkeypatch.setattr(window, "screen", lambda: Screen())


def _on_screen_now(window, name):
    dock = window.docks[name]
    return dock.isVisible() and not dock.visibleRegion().isEmpty()


def _behind(window, name, front):
    """``name`` is a tab behind ``front``."""
    dock = window.docks[name]
    return (dock in window.tabifiedDockWidgets(window.docks[front])
            and dock.visibleRegion().isEmpty())


def _resize(window, qtbot, monkeypatch, size):
    _on_screen(window, monkeypatch, size)
    window.resize(*size)
    for _ in range(3):
        qtbot.wait(30)
        QApplication.processEvents()


def test_a_smaller_window_stacks_columns_and_a_larger_one_spreads_them_again(
        make_window, qtbot, monkeypatch):
    window = make_window(sync=True, text="the cat sat")
    _resize(window, qtbot, monkeypatch, (1600, 1000))
    qtbot.waitUntil(lambda: all(_on_screen_now(window, n) for n in SIX))
    assert window.docking.arrangement == "full" and window.docking.automatic

    _resize(window, qtbot, monkeypatch, (1366, 768))
    # the norm panel behind the steps, Depth time behind the step heatmap; the third column
    # keeps its two docks
    qtbot.waitUntil(lambda: window.docking.arrangement == "compact"
                    and _behind(window, "normDock", "stepListDock")
                    and _behind(window, "depthDock", "heatmapDock"))
    for name in ("stepListDock", "heatmapDock", "attentionDock", "causalityDock"):
        assert _on_screen_now(window, name), name
    window.docks["depthDock"].raise_()  # a tab a click away
    qtbot.waitUntil(lambda: _on_screen_now(window, "depthDock"))

    _resize(window, qtbot, monkeypatch, (1920, 1080))
    qtbot.waitUntil(lambda: window.docking.arrangement == "full"
                    and all(_on_screen_now(window, n) for n in SIX))
    assert window.docking.automatic


def test_a_layout_the_person_arranged_is_not_rearranged(make_window, qtbot, monkeypatch):
    window = make_window(sync=True, text="the cat sat")
    _resize(window, qtbot, monkeypatch, (1600, 1000))
    qtbot.waitUntil(lambda: all(_on_screen_now(window, n) for n in SIX))
    # the person drags the norm panel out and drops it as a tab behind the causality panel
    norm = window.docks["normDock"]
    norm.setFloating(True)
    window.tabifyDockWidget(window.docks["causalityDock"], norm)
    assert not window.docking.automatic
    theirs = {name: window.tabifiedDockWidgets(window.docks[name]) for name in SIX}
    _resize(window, qtbot, monkeypatch, (1280, 720))
    qtbot.wait(100)
    assert window.docking.arrangement == "full"
    assert {name: window.tabifiedDockWidgets(window.docks[name]) for name in SIX} == theirs
    assert not _behind(window, "normDock", "stepListDock")
    assert _on_screen_now(window, "depthDock")  # not tabbed behind the step heatmap
    # View ▸ Reset layout: the automatic layout again, for this size
    window.reset_layout_action.trigger()
    assert window.docking.automatic
    qtbot.waitUntil(lambda: window.docking.arrangement == "compact"
                    and _behind(window, "normDock", "stepListDock"))


@pytest.mark.parametrize("automatic", [True, False])
def test_a_restored_layout_adapts_only_if_it_was_the_automatic_one(make_window, qtbot,
                                                                    monkeypatch, automatic):
    window = make_window(sync=True, text="the cat sat", persist_layout=True)
    _resize(window, qtbot, monkeypatch, (1600, 1000))
    qtbot.waitUntil(lambda: all(_on_screen_now(window, n) for n in SIX))
    if not automatic:  # a dock floated and docked again by hand: the layout is the person's
        window.docks["normDock"].setFloating(True)
        window.docks["normDock"].setFloating(False)
        assert not window.docking.automatic
    window.save_layout()
    again = make_window(sync=True, text="the cat sat", persist_layout=True)
    assert again.docking.automatic == automatic
    _resize(again, qtbot, monkeypatch, (1280, 720))
    if automatic:
        qtbot.waitUntil(lambda: again.docking.arrangement == "compact"
                        and _behind(again, "normDock", "stepListDock"))
    else:
        qtbot.wait(100)
        assert again.docking.arrangement == "full"
        assert not _behind(again, "normDock", "stepListDock")


def test_the_tour_is_a_band_in_a_narrow_window_and_a_column_in_a_wide_one(
        make_window, qtbot, monkeypatch):
    window = make_window(sync=True, text="the cat sat")
    _resize(window, qtbot, monkeypatch, (1280, 720))
    window.start_tour(0)
    top, right = Qt.DockWidgetArea.TopDockWidgetArea, Qt.DockWidgetArea.RightDockWidgetArea
    # beside the columns it took 360 of 1280 px: the causality overview a 15-px sliver
    qtbot.waitUntil(lambda: window.dockWidgetArea(window.tour_dock) == top
                    and window.tour_panel.band)
    qtbot.waitUntil(lambda: window.tour_dock.height() < 0.45 * window.height())
    # the band came in above the columns: the window grew by it, then back onto the screen
    qtbot.waitUntil(lambda: window.size().toTuple() == (1280, 720))
    _resize(window, qtbot, monkeypatch, (1920, 1080))
    qtbot.waitUntil(lambda: window.dockWidgetArea(window.tour_dock) == right
                    and not window.tour_panel.band)
    assert window.tour.running and window.tour_dock.isVisible()
    assert all(_on_screen_now(window, n) for n in SIX)  # 1920 - 360 px: room for all six


def test_showing_raising_or_closing_a_dock_keeps_the_layout_automatic(make_window, qtbot):
    """A tour stop or an opened model shows and raises docks, the person closes one: the
    docks stay where the automatic layout put them, so it goes on adapting."""
    window = make_window(sync=True, text="the cat sat")
    lens = window.docks["lensConvergenceDock"]
    lens.show()
    lens.raise_()
    window.docks["normDock"].close()
    window.docks["normDock"].toggleViewAction().trigger()  # the View menu shows it again
    window.docks["depthDock"].raise_()
    QApplication.processEvents()
    assert window.docking.automatic
