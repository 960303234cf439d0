"""Presentation mode, text size, line width, palettes and themes, on the real window."""

import os
import subprocess
import sys
from types import SimpleNamespace

import pyqtgraph as pg
import pytest
from conftest import wait_for_text
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QFontMetrics, QImage, QPalette
from PySide6.QtWidgets import QApplication, QPushButton, QStyle, QStyleOptionTab, QTabBar

from app import palettes, presentation
from app.docking import ARRANGEMENTS, arrangement_for
from app.docks import LAYOUT_VERSION

# English, light theme, normal text size again after each test (app-wide settings)
pytestmark = pytest.mark.usefixtures("restore_view")


def axes(widget):
    return [item for view in widget.findChildren(pg.GraphicsView) if view.scene()
            for item in view.scene().items() if isinstance(item, pg.AxisItem)]


def test_presentation_mode_is_full_screen_with_larger_text_and_thicker_lines(make_window,
                                                                            qtbot, monkeypatch):
    monkeypatch.setattr(presentation, "compact_screen", lambda _w, _h: False)  # a big screen
    window = make_window(sync=True, text="我爱北京天安门")
    base_pt = QApplication.font().pointSizeF()
    heat_axis = window.panels["heatmapDock"].view.plot.getAxis("left")
    depth = window.panels["depthDock"]
    width_before = depth.query_curve.opts["pen"].widthF()
    window.presentation_action.trigger()
    assert window.isFullScreen() and window.state.presentation
    assert QApplication.font().pointSizeF() == pytest.approx(
        base_pt * presentation.PRESENTATION_SCALE)
    qtbot.waitUntil(lambda: window.editor.line.font().pointSizeF() == pytest.approx(
        base_pt * presentation.PRESENTATION_SCALE))  # widgets follow the application font
    assert heat_axis.style["tickFont"].pointSizeF() == pytest.approx(
        presentation.BASE_TICK_PT * presentation.PRESENTATION_SCALE)
    qtbot.waitUntil(lambda: all(  # the depth slider's t = 0, ½, 1 marks, bold, follow too
        mark.font().bold() and mark.font().pointSizeF() == pytest.approx(
            base_pt * presentation.PRESENTATION_SCALE) for mark in depth.slider.marks))
    assert heat_axis.labelStyle["font-size"] == "15.0pt"
    assert all(a.style["tickFont"] is not None for a in axes(window))  # every axis
    assert depth.query_curve.opts["pen"].widthF() == pytest.approx(
        width_before * presentation.PRESENTATION_LINE_FACTOR)
    # what a panel draws afterwards is sized the same way
    window.editor.set_text("the cat sat on the mat")
    assert depth.query_curve.opts["pen"].widthF() == pytest.approx(
        width_before * presentation.PRESENTATION_LINE_FACTOR)
    assert all(c.opts["pen"].widthF() >= 2 for c in depth.curves)
    window.presentation_action.trigger()
    assert not window.isFullScreen()
    assert QApplication.font().pointSizeF() == pytest.approx(base_pt)
    assert depth.query_curve.opts["pen"].widthF() == pytest.approx(width_before)
    assert heat_axis.style["tickFont"].pointSizeF() == pytest.approx(presentation.BASE_TICK_PT)



@pytest.mark.parametrize("compact", [True, False])
def test_a_small_screen_shows_one_dock_per_column_in_presentation(make_window, qtbot,
                                                                  monkeypatch, compact):
    monkeypatch.setattr(presentation, "compact_screen", lambda _w, _h: compact)
    window = make_window(sync=True, text="the cat sat")
    lower = [window.docks[n] for n in ("normDock", "depthDock", "causalityDock")]
    upper = [window.docks[n] for n in ("stepListDock", "heatmapDock", "attentionDock")]
    before = window.saveState(LAYOUT_VERSION)
    window.presentation_action.trigger()
    # one dock per column on every screen (six at presentation text squeezed the plots even
    # at 1920 × 1080: tests/test_layout_matrix.py); a small screen gets smaller text
    qtbot.waitUntil(lambda: all(dock.visibleRegion().isEmpty() for dock in lower))
    assert window.state.font_scale == (presentation.COMPACT_PRESENTATION_SCALE if compact
                                       else presentation.PRESENTATION_SCALE)
    if compact:  # the lower dock of each column is a tab behind the upper one
        for top, tab in zip(upper, lower, strict=True):
            assert window.tabifiedDockWidgets(top) == [tab]
            assert not top.visibleRegion().isEmpty()
        window.docks["causalityDock"].raise_()
        window.editor.set_text("the cat ran")  # a comparison on screen: its widest content
        wait_for_text(qtbot, window, "the cat ran")
        window.docks["depthDock"].raise_()
        qtbot.waitUntil(lambda: not window.docks["depthDock"].visibleRegion().isEmpty())
        assert window.minimumSizeHint().width() <= 1280  # fits a 1280 × 800 projector
        window.state.set_font_scale(presentation.PRESENTATION_SCALE)  # Ctrl++ after all
        title = window.panels["depthDock"].title
        qtbot.waitUntil(lambda: title.font().pointSizeF() == QApplication.font().pointSizeF())
        QApplication.processEvents()
        assert window.minimumSizeHint().width() <= 1280  # long captions wrap
        window.save_layout()  # closing now keeps the layout presentation mode leaves to
        from app.mainwindow import open_settings

        assert open_settings().value("window/state") == before
    else:
        for top, tab in zip(upper, lower, strict=True):
            assert window.tabifiedDockWidgets(top) == [tab]
    window.start_tour(2)  # a tour running when presentation mode ends goes on
    window.presentation_action.trigger()
    # the layout from before, as the automatic layout arranges it for the room the tour's
    # column leaves (1600 - 360 px: the first two columns one dock each, the third two)
    assert window.docking.automatic

    def tabs(top):
        return [dock for dock in window.tabifiedDockWidgets(top) if not dock.isHidden()]

    def restored():
        stacked = ARRANGEMENTS[window.docking.arrangement][0]
        assert window.docking.arrangement == arrangement_for(
            *window.docking.room_lines(), now=window.docking.arrangement)
        for i, (top, low) in enumerate(zip(upper, lower, strict=True)):
            assert not top.visibleRegion().isEmpty()
            assert tabs(top) == ([low] if i in stacked else [])
            assert low.visibleRegion().isEmpty() == (i in stacked)

    qtbot.waitUntil(restored)

    def no_stale_bar():
        assert window.tour.running and window.tour_dock.isVisible()
        shown_tabs = [{bar.tabText(i) for i in range(bar.count())}
                      for bar in window.findChildren(QTabBar)
                      if bar.isVisible() and window.rect().intersects(bar.geometry())]
        for top in upper:  # no tab bar of a column that is not stacked is over the panels
            if not tabs(top):
                assert not any(top.windowTitle() in tabs for tabs in shown_tabs), shown_tabs

    qtbot.waitUntil(no_stale_bar, timeout=10_000)



def test_no_stale_tab_bar_is_drawn_over_the_panels_on_a_compact_screen(make_window, qtbot):
    """Stacking the columns before the larger presentation font reached the dock layout left a
    second, stale tab bar (laid out for the old font) drawn over the attention panel."""
    window = make_window(sync=True, text="the cat sat")
    window.resize(1280, 720)
    QApplication.processEvents()
    upper = [window.docks[n] for n in ("stepListDock", "heatmapDock", "attentionDock")]
    window.presentation_action.trigger()  # the offscreen test screen counts as compact
    qtbot.waitUntil(lambda: all(len(window.tabifiedDockWidgets(top)) == 1 for top in upper))
    for _ in range(5):
        QApplication.processEvents()
    shown = [bar for bar in window.findChildren(QTabBar)
             if bar.isVisible() and bar.count() and window.rect().intersects(bar.geometry())]
    assert len(shown) == len(upper), [(bar.tabText(0), bar.geometry()) for bar in shown]
    panels = [dock.geometry() for dock in window.docks.values()
              if dock.isVisible() and not dock.visibleRegion().isEmpty()]
    assert not [(bar.tabText(0), bar.geometry()) for bar in shown
                if any(bar.geometry().intersects(panel) for panel in panels)]


def elided_tab_titles(window):
    """The titles of tabs on screen that Qt draws elided: its text rectangle (the style's,
    as QTabBar::initStyleOption elides it) narrower than the title."""
    elided = []
    for bar in window.findChildren(QTabBar):
        if not (bar.isVisible() and bar.count() > 1
                and window.rect().intersects(bar.geometry())):
            continue  # Qt draws a group's bar only with two tabs or more
        metrics = QFontMetrics(bar.font())
        for i in range(bar.count()):
            option = QStyleOptionTab()
            option.initFrom(bar)
            option.shape = bar.shape()
            option.text = bar.tabText(i)
            option.rect = bar.tabRect(i)
            room = bar.style().subElementRect(QStyle.SubElement.SE_TabBarTabText, option, bar)
            if room.width() < metrics.horizontalAdvance(bar.tabText(i)):
                elided.append((bar.tabText(i), room.width()))
    return elided


def on_projector(window, monkeypatch, size):
    """``window`` on a screen of ``size``, full screen there (the offscreen test screen is
    another size): the window's own screen and its full-screen call both say so."""
    projector = SimpleNamespace(availableGeometry=lambda: QRect(0, 0, *size),
                                geometry=lambda: QRect(0, 0, *size))
    monkeypatch.setattr(window, "screen", lambda: projector)
    monkeypatch.setattr(window, "showFullScreen", lambda: window.resize(*size))


@pytest.mark.parametrize(("size", "tour"), [((1280, 720), False), ((1024, 768), False),
                                            ((1366, 768), False), ((1280, 720), True),
                                            ((1366, 768), True)])
def test_tab_titles_are_readable_in_presentation_on_a_small_screen(make_window, qtbot,
                                                                    monkeypatch, size, tour):
    """On a 1024 × 768 projector the stacked left column elided "Steps" and "LayerNorm vs
    RMSNorm" to "St…" and "LayerNorm vs RMSNo…"; with the tour open beside the columns, on a
    1280 × 720 one, to "S…" and "Lay…". (The tour at 1024 × 768 is not here: the panels'
    and the tour's minimum widths add up to more than 1024 px.)"""
    window = make_window(sync=True, text="the cat sat")
    if tour:
        window.start_tour(2)
    on_projector(window, monkeypatch, size)
    upper = [window.docks[n] for n in ("stepListDock", "heatmapDock", "attentionDock")]
    window.presentation_action.trigger()  # both sizes count as compact
    qtbot.waitUntil(lambda: all(len(window.tabifiedDockWidgets(top)) == 1 for top in upper))
    # (the tour band comes in above the columns on the next pass, and the window, grown
    # past the screen meanwhile, goes back onto it)
    qtbot.waitUntil(lambda: window.size().toTuple() == size)
    for language in ("en", "zh", "en"):  # switched in presentation mode: new titles
        window.set_language(language)

        def whole(language=language):  # the titles, the tab bars' layout, then the columns' widths
            assert not elided_tab_titles(window), (language, elided_tab_titles(window))
            assert window.size().toTuple() == size

        qtbot.waitUntil(whole, timeout=10_000)


@pytest.mark.parametrize("tour_first", [False, True])
def test_the_tour_stays_on_a_1024_by_768_projector_in_presentation(make_window, qtbot,
                                                                   monkeypatch, tour_first):
    """Beside the three stacked columns the tour made the window 1109 px wide on a 1024 px
    screen, its Next button past the edge. In presentation mode it is a band across the window
    instead, and back beside the columns when presentation mode ends."""
    size = (1024, 768)
    window = make_window(sync=True, text="the cat sat")
    on_projector(window, monkeypatch, size)
    upper = [window.docks[n] for n in ("stepListDock", "heatmapDock", "attentionDock")]
    if tour_first:
        window.start_tour(2)
    window.presentation_action.trigger()
    qtbot.waitUntil(lambda: all(len(window.tabifiedDockWidgets(top)) == 1 for top in upper))
    if not tour_first:
        window.start_tour(2)
    band = Qt.DockWidgetArea.TopDockWidgetArea  # a band across the window, not beside
    qtbot.waitUntil(lambda: window.dockWidgetArea(window.tour_dock) == band)

    def on_screen():
        assert window.size().toTuple() == size
        next_button = window.tour_panel.findChild(QPushButton, "tourNext")
        corner = next_button.mapTo(window, next_button.rect().bottomRight())
        assert next_button.isVisible() and window.rect().contains(corner), corner
        assert not elided_tab_titles(window)

    qtbot.waitUntil(on_screen, timeout=10_000)
    monkeypatch.setattr(window, "showNormal", lambda: window.resize(1600, 1000))
    window.presentation_action.trigger()
    beside = Qt.DockWidgetArea.RightDockWidgetArea
    qtbot.waitUntil(lambda: window.dockWidgetArea(window.tour_dock) == beside)
    assert window.tour_dock.isVisible()


def test_f11_pressed_quickly_still_returns_to_the_layout_before(make_window, qtbot, monkeypatch):
    monkeypatch.setattr(presentation, "compact_screen", lambda _w, _h: True)
    window = make_window(sync=True, text="the cat sat")
    upper = [window.docks[n] for n in ("stepListDock", "heatmapDock", "attentionDock")]
    for _ in range(3):  # on, off, on: no event-loop pass between them
        window.presentation_action.trigger()
    QApplication.processEvents()
    assert window.state.presentation
    assert all(len(window.tabifiedDockWidgets(top)) == 1 for top in upper)
    window.presentation_action.trigger()
    qtbot.waitUntil(lambda: all(window.tabifiedDockWidgets(top) == [] for top in upper))


def test_text_size_steps_are_clamped(make_window):
    window = make_window(sync=True, text="a")
    for _ in range(30):
        window.zoom_in_action.trigger()
    assert window.state.font_scale == 3.0
    for _ in range(30):
        window.zoom_out_action.trigger()
    assert window.state.font_scale == 0.7
    window.zoom_reset_action.trigger()
    assert window.state.font_scale == 1.0


def test_the_colour_blind_palette_redraws_the_heatmaps(make_window):
    window = make_window(sync=True, text="a b c")
    window.state.set_step("q_proj")
    view = window.panels["heatmapDock"].view
    assert view._map == palettes.PALETTES["classic"].diverging
    drawn = []
    for panel in window.panels.values():
        panel.drawn.connect(lambda p=panel: drawn.append(p))
    window.palette_actions["colorblind"].trigger()
    assert window.state.palette == "colorblind"
    assert view._map == palettes.PALETTES["colorblind"].diverging
    window.state.set_step("attn_probs")
    assert view._map == palettes.PALETTES["colorblind"].sequential
    assert len(drawn) >= 2  # every visible panel redrew, not only the heatmap
    with pytest.raises(ValueError):
        window.state.set_palette("rainbow")


def test_probabilities_fade_into_the_plot_background_on_either_theme(make_window):
    """A zero weight (every masked future key) is drawn in the plot's background colour: white
    on the light theme, the dark background on the dark one; weight grows toward contrast."""
    from PySide6.QtGui import QColor

    from app.theme import PLOT_COLOURS

    window = make_window(sync=True, text="a b c")
    window.state.set_step("attn_probs")
    view = window.panels["heatmapDock"].view
    for name in ("dark", "light", "dark"):
        window.theme_actions[name].trigger()
        table = palettes.lut(view._map)
        background = QColor(PLOT_COLOURS[name][0])
        assert tuple(table[0, :3]) == (background.red(), background.green(), background.blue())
        zero, one = (QColor(*map(int, table[i, :3])).lightness() for i in (0, -1))
        assert (one < zero) if name == "light" else (one > zero)
    # the colour-blind map (cividis) is dark at 0 already: the same on both themes
    window.state.set_palette("colorblind")
    assert view._map == palettes.PALETTES["colorblind"].sequential
    window.theme_actions["light"].trigger()
    assert view._map == palettes.PALETTES["colorblind"].sequential

def test_dark_and_light_themes(make_window):
    window = make_window(sync=True, text="a b")
    view = window.panels["heatmapDock"].view
    window.theme_actions["dark"].trigger()
    assert window.state.theme == "dark"
    assert QApplication.palette().color(QPalette.ColorRole.Window).lightness() < 80
    assert view.backgroundBrush().color().lightness() < 80
    axis = view.plot.getAxis("bottom")
    assert axis.textPen().color().lightness() > 150
    window.theme_actions["light"].trigger()
    assert QApplication.palette().color(QPalette.ColorRole.Window).lightness() > 180
    assert view.backgroundBrush().color().lightness() > 200
    assert axis.textPen().color().lightness() < 100


@pytest.mark.parametrize("flags", [["--lang", "zh", "--theme", "dark"],
                                   ["--presentation", "--palette", "colorblind", "--tour", "16"]])
def test_the_selftest_screenshots_every_view(tmp_path, flags):
    shot = tmp_path / "shot.png"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run([sys.executable, "-m", "app", "--selftest", "--screenshot", str(shot),
                           *flags], capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    image = QImage(str(shot))
    assert image.width() >= 600 and image.height() >= 400
    if "dark" in flags:  # mostly dark pixels
        dark = sum(image.pixelColor(x, y).lightness() < 90
                   for x in range(0, image.width(), 23) for y in range(0, image.height(), 23))
        total = len(range(0, image.width(), 23)) * len(range(0, image.height(), 23))
        assert dark > total / 2


def test_no_axis_puts_an_si_prefix_on_its_numbers(make_window):
    # pyqtgraph's automatic prefix wrote "query token i (x0.001)" under a one-token axis
    from app.docks import DOCKS

    window = make_window(sync=True, text="a")
    for spec in DOCKS:
        window.panels.get(spec.object_name)  # every panel, the lenses' too
    found = [a for a in axes(window) if a.labelText]  # (a prefix shows in the label)
    assert len(found) > 10 and not [a.labelText for a in found if a.autoSIPrefix]


def test_masked_cells_read_as_no_weight_on_either_theme(make_window, qtbot):
    """Masked (NaN) cells show a grey near the plot's background, like a zero weight: the
    light grey of the light theme, on the dark one, stood beside the light end of the
    probability map there (a heavy weight)."""
    import numpy as np

    from app.palettes import lut

    window = make_window(sync=True, text="a b c d")
    dock = window.docks["lensTemperatureDock"]
    dock.show()
    dock.raise_()
    panel = window.panels["lensTemperatureDock"]
    for name in ("light", "dark"):
        window.theme_actions[name].trigger()
        qtbot.waitUntil(lambda: panel.is_current, timeout=5000)
        view = panel.view
        assert np.isnan(view.data).any()  # the future keys are masked
        masked = view.plot.getViewBox().background.brush().color()
        table = lut(view._map)[:, :3].astype(float)
        grey = np.array([masked.red(), masked.green(), masked.blue()], dtype=float)
        dist = np.linalg.norm(table - grey, axis=1)
        assert dist[0] < dist[-1], name  # nearer to "no weight" than to "all the weight"
        assert dist.min() > 30, name  # and told apart from every weight
    causality = window.panels["causalityDock"]
    assert causality.grid_view.plot.getViewBox().background.brush().color() == \
        causality.grid_view.zero_colour  # the diff views keep their zero colour


def test_presentation_mode_restyles_the_plots_once(make_window, monkeypatch):
    """The font-scale change restyled every plot, and the mode change did it again."""
    window = make_window(sync=True, text="a b")
    styled = []
    original = presentation.style_plots

    def counting(root, *args, **kwargs):
        if root is window:
            styled.append(args)
        return original(root, *args, **kwargs)

    monkeypatch.setattr(presentation, "style_plots", counting)
    window.set_presentation(True)
    assert len(styled) == 1 and styled[0][1] == presentation.PRESENTATION_LINE_FACTOR
    styled.clear()
    window.set_presentation(False)
    assert len(styled) == 1 and styled[0][1] == 1.0
