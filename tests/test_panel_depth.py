"""The depth-time panel: u(t) is the exact partial Euler state, true states bit for bit, the
animation never recomputes, and the convergence plot shows the sub-stepped layer."""

from itertools import pairwise

import numpy as np
import pytest
from conftest import wait_stable
from PySide6.QtCore import QPointF, Qt

import app.bridge
from app.compute import CONVERGENCE_BUDGET_TOKENS
from app.widgets.arrangement import SIDE_BY_SIDE_AT, STACKED_BELOW
from engine import EngineError, LayerWeights, Qwen3Config


def _depth(window):
    return window.panels["depthDock"]


def _count_results(window):
    computed = []
    window.bridge.result_ready.connect(computed.append)
    return computed


@pytest.mark.parametrize("t, step", [(0.0, "embed"), (0.5, "resid_attn"), (1.0, "resid_mlp")])
def test_true_states_are_shown_bit_for_bit(make_window, t, step):
    window = make_window(sync=True, text="the cat sat on the mat")
    panel = _depth(window)
    window.state.set_depth_t(0.3)  # move away first, so each case really moves the slider
    window.state.set_depth_t(t)
    trace = window.state.result.trace
    assert np.array_equal(panel.source, trace[step])
    if t == 1.0:
        assert np.array_equal(panel.source, trace.output)
    np.testing.assert_array_equal(panel.view.data, trace[step].astype(np.float32))
    assert panel.slider.t == t
    assert ("true state" in panel.caption.text()) and (step in panel.caption.text() or t == 0)


@pytest.mark.parametrize("t, base, update, s", [
    (0.25, "embed", "o_proj", 0.5),
    (0.1, "embed", "o_proj", 0.2),
    (0.75, "resid_attn", "down_proj", 0.5),
    (0.9, "resid_attn", "down_proj", 0.8),
])
def test_in_between_states_are_exact_partial_euler_steps(make_window, t, base, update, s):
    window = make_window(sync=True, text="我爱北京天安门")
    panel = _depth(window)
    window.state.set_depth_t(t)
    trace = window.state.result.trace
    expected = trace[base] + s * trace[update]  # x + s·F(x), not (1 − s)·x + s·(x + F)
    assert np.array_equal(panel.source, expected)
    assert not np.array_equal(panel.source, trace[base])
    assert panel.t_label.text() == f"t = {t:.3f} · s = {s:.3f}"
    caption = panel.caption.text()
    assert "exact" in caption and "not a cosmetic blend" in caption
    assert ("Attention sub-step" if t < 0.5 else "MLP sub-step") in caption
    assert panel.badge.text() == "EXACT · E14"


def test_slider_marks_and_dragging_move_t_without_recomputing(make_window, qtbot):
    window = make_window(sync=True, text="a b c d")
    panel = _depth(window)
    computed = _count_results(window)
    levels = panel.levels
    panel.slider.slider.setValue(70)
    assert window.state.depth_t == pytest.approx(0.35)
    assert np.array_equal(panel.source, window.state.result.depth.at(0.35))
    assert panel.t_line.value() == pytest.approx(0.35)
    assert panel.t_label.text() == "t = 0.350 · s = 0.700"
    qtbot.mouseClick(panel.slider.marks[1], Qt.MouseButton.LeftButton)
    assert window.state.depth_t == 0.5
    assert panel.slider.t == 0.5
    qtbot.mouseClick(panel.slider.marks[0], Qt.MouseButton.LeftButton)
    assert window.state.depth_t == 0.0
    panel.t_line.setValue(0.8)
    panel.t_line.sigDragged.emit(panel.t_line)  # what a mouse drag of the red line emits
    assert window.state.depth_t == 0.8 and panel.slider.t == 0.8
    assert computed == []
    assert panel.levels == levels


def test_levels_are_fixed_over_the_whole_animation(make_window):
    window = make_window(sync=True, text="The cat sat on the mat.")
    panel = _depth(window)
    states = window.state.result.depth.states
    m = np.abs(states).max()
    seen = set()
    for t in np.linspace(0, 1, 21):
        window.state.set_depth_t(float(t))
        seen.add(panel.view.levels)
        assert np.abs(panel.source).max() <= m * (1 + 1e-12)  # x + s·F lies between its ends
    assert len(seen) == 1
    lo, hi = next(iter(seen))
    assert lo == pytest.approx(-m) and hi == pytest.approx(m)


def test_playing_advances_loops_and_stops_on_the_true_states(make_window, qtbot):
    window = make_window(sync=True, text="a b c")
    panel = _depth(window)
    computed = _count_results(window)
    panel.speed_box.setCurrentIndex(2)  # 1×: one sweep in 4 s
    window.state.set_depth_t(0.4)
    panel.play()
    assert panel.playing and "Pause" in panel.play_button.text()
    panel.advance(1.0)  # 0.4 + 0.25 would pass ½: the frame shows u(½) exactly
    assert window.state.depth_t == 0.5
    panel.advance(0.5)
    assert window.state.depth_t == 0.625
    panel.advance(10.0)
    assert window.state.depth_t == 1.0
    panel.advance(0.01)  # after u(1), the loop starts again at u(0)
    assert window.state.depth_t == 0.0
    window.state.set_depth_t(0.2)  # by hand while playing: the player continues from there
    panel.speed_box.setCurrentIndex(4)  # 4×: one sweep a second
    qtbot.waitUntil(lambda: 0.25 < window.state.depth_t < 1.0, timeout=10000)  # the real timer
    panel.play(False)
    assert not panel.playing and "Play" in panel.play_button.text()
    assert computed == []
    assert np.array_equal(panel.source, window.state.result.depth.at(window.state.depth_t))


def test_norm_curves_follow_the_query_token_and_mark_t(make_window, qtbot):
    window = make_window(sync=True, text="one two three four")
    panel = _depth(window)
    depth = window.state.result.depth
    _times, norms = depth.norm_curves()
    assert len(panel.curves) == 4
    for i, curve in enumerate(panel.curves):
        _xs, ys = curve.getData()
        np.testing.assert_array_equal(ys, norms[:, i])
    window.state.set_query(2)
    _xs, ys = panel.query_curve.getData()
    np.testing.assert_array_equal(ys, norms[:, 2])
    assert "three" in panel.norm_plot.getPlotItem().titleLabel.text
    window.state.set_depth_t(0.5)
    dx, dy = panel.query_dot.getData()
    assert dx[0] == 0.5 and dy[0] == pytest.approx(np.linalg.norm(depth.states[1][2]))
    assert panel.t_line.value() == 0.5


def test_convergence_plot_receives_the_sweep(make_window):
    window = make_window(sync=True, text="我爱北京天安门")
    panel = _depth(window)
    conv = window.state.convergence
    assert conv is not None
    assert panel.conv_stack.currentWidget() is panel.conv_plot
    # the data given to the curves (getData() would return its log10 for the log-log axes)
    np.testing.assert_array_equal(panel.conv_euler.xData, conv.ns)
    np.testing.assert_array_equal(panel.conv_euler.yData, conv.errors_euler)
    np.testing.assert_array_equal(panel.conv_second.yData, conv.errors_second_order)
    _xs, ys = panel.conv_euler.getData()
    np.testing.assert_allclose(ys, np.log10(conv.errors_euler))
    caption = panel.conv_caption.text()
    assert f"{conv.orders_euler[-1]:.2f}" in caption and "n = 1" in caption
    # the order between the last two n, named so: the convergence lens's "least-squares
    # order" over a range of n is another number, and both read "slope" before
    assert "Order from n = 32 to 64 (log₂ of the error ratio)" in caption
    assert "slope" not in caption.lower()
    assert 0.8 < conv.orders_euler[-1] < 1.2 and 1.7 < conv.orders_second_order[-1] < 2.3


def test_convergence_shows_computing_until_it_arrives(make_window, monkeypatch):
    monkeypatch.setattr(app.bridge, "compute_convergence", lambda request, result: None)
    window = make_window(sync=True, text="a b c")
    panel = _depth(window)
    assert panel.conv_stack.currentWidget() is panel.conv_waiting
    assert "computing" in panel.conv_waiting.text()
    assert panel.conv_euler.xData is None or len(panel.conv_euler.xData) == 0


def test_while_the_next_sweep_computes_the_last_one_stays_dimmed(make_window, monkeypatch):
    window = make_window(sync=True, text="a b c")
    panel = _depth(window)
    first = window.state.convergence
    real = app.bridge.compute_convergence
    monkeypatch.setattr(app.bridge, "compute_convergence", lambda request, result: None)
    window.editor.set_text("a b d")  # typing: the new sweep has not arrived yet
    assert panel.conv_stack.currentWidget() is panel.conv_plot  # no flicker to a blank page
    assert panel.conv_euler.opacity() == pytest.approx(0.3)
    assert "computing" in panel.conv_caption.text()
    np.testing.assert_array_equal(panel.conv_euler.yData, first.errors_euler)
    monkeypatch.setattr(app.bridge, "compute_convergence", real)
    window.editor.set_text("a b e")
    assert panel.conv_euler.opacity() == 1.0
    np.testing.assert_array_equal(panel.conv_euler.yData, window.state.convergence.errors_euler)


def test_long_input_draws_and_animates_without_the_sweep(make_window):
    text = " ".join(f"w{i}" for i in range(2048))
    window = make_window(sync=True, text=text)
    panel = _depth(window)
    assert panel.view.data.shape == (2048, 16)
    assert len(panel.curves) == 1  # one item draws every token's curve
    for t in (0.1, 0.5, 0.9):
        window.state.set_depth_t(t)
    assert np.array_equal(panel.source, window.state.result.depth.at(0.9))
    assert window.state.convergence is None
    assert panel.conv_stack.currentWidget() is panel.conv_waiting
    assert str(CONVERGENCE_BUDGET_TOKENS) in panel.conv_waiting.text()  # the toy's limit


def test_a_large_layer_skips_the_sweep_even_for_a_short_sentence(make_window, qtbot,
                                                                   restore_view):
    """The Qwen3-0.6B shape costs more on one token than the toy on 256: no sweep, and the
    depth panel and the convergence lens both say why, in either language."""
    window = make_window(sync=True, text=None)
    config = Qwen3Config.qwen3_0_6b()
    window.state.set_model(config, weights=LayerWeights.random(config, 0))
    text = " ".join(f"w{i}" for i in range(16))
    window.editor.set_text(text)
    qtbot.waitUntil(lambda: window.state.result is not None and window.state.result.ok
                    and window.state.result.text == text and window.all_panels_current())
    panel = _depth(window)
    assert window.state.convergence is None
    assert panel.conv_stack.currentWidget() is panel.conv_waiting
    assert "layer this large" in panel.conv_waiting.text()
    lens = window.panels["lensConvergenceDock"]
    window.docks["lensConvergenceDock"].show()
    window.docks["lensConvergenceDock"].raise_()
    qtbot.waitUntil(lambda: lens.is_current)
    assert "Not computed" in lens.readout.text() and "layer this large" in lens.readout.text()
    window.language_actions["zh"].trigger()
    qtbot.waitUntil(lambda: "这么大的层" in panel.conv_waiting.text()
                    and "未计算" in lens.readout.text())


def test_norm_curves_survive_going_from_a_long_input_to_a_short_one(make_window):
    window = make_window(sync=True, text=" ".join(f"w{i}" for i in range(40)))
    panel = _depth(window)
    assert len(panel.curves) == 1  # one item, pen lifted between tokens
    window.editor.set_text("a b c")
    assert len(panel.curves) == 3
    for curve in panel.curves:
        assert isinstance(curve.opts["connect"], str) and curve.opts["connect"] == "all"
        assert len(curve.getData()[0]) == len(window.state.result.depth.norm_curves()[0])
    panel.grab()  # paints every curve


def test_hidden_dock_catches_up_on_depth_time(make_window, qtbot):
    window = make_window(sync=True, text="a b c")
    panel = _depth(window)
    window.docks["depthDock"].hide()
    window.state.set_depth_t(0.25)
    window.editor.set_text("a b c d")
    window.docks["depthDock"].show()
    qtbot.waitUntil(lambda: panel.is_current)
    assert panel.source.shape[0] == 4
    assert np.array_equal(panel.source, window.state.result.depth.at(0.25))
    assert panel.slider.t == 0.25


def test_clicking_a_heatmap_row_picks_the_query_token(make_window):
    window = make_window(sync=True, text="a b c")
    panel = _depth(window)
    panel.view.clicked.emit(1, 3, 0.0)
    assert window.state.query == 1


def test_plots_stand_side_by_side_when_the_panel_is_wide_and_short(make_window, qtbot):
    window = make_window(sync=True, text="the cat sat on the mat")
    panel = _depth(window)
    dock = window.docks["depthDock"]
    dock.setFloating(True)
    split = panel._split

    def arranged(side_by_side):
        holder = split if side_by_side else panel._right
        return (panel.side_by_side == side_by_side and panel.norm_plot.parent() is holder
                and panel.conv_box.parent() is holder)

    dock.resize(900, 900)  # tall: u(t) left, the norm curves over the convergence plot
    qtbot.waitUntil(lambda: arranged(False))
    assert panel._right.isVisible() and min(panel._right.sizes()) > 50
    dock.resize(1500, 560)  # a 16:9 screen's bottom row: three plots side by side
    qtbot.waitUntil(lambda: arranged(True))
    assert not panel._right.isVisible()
    widths = [split.sizes()[split.indexOf(w)] for w in (panel.view.parentWidget(),
                                                         panel.norm_plot, panel.conv_box)]
    assert min(widths) > 300, widths
    assert panel.conv_plot.height() > 150  # no longer a strip
    assert split.width() / split.height() > SIDE_BY_SIDE_AT
    dock.resize(900, 900)
    qtbot.waitUntil(lambda: arranged(False))
    assert panel._right.isVisible()


def test_side_by_side_holds_between_the_two_ratios(make_window):
    window = make_window(sync=True, text="the cat sat on the mat")
    panel = _depth(window)
    panel._split.resize(1400, 1400 // (SIDE_BY_SIDE_AT + 0.3))
    panel._arrange()
    assert panel.side_by_side
    between = (SIDE_BY_SIDE_AT + STACKED_BELOW) / 2
    panel._split.resize(1400, int(1400 / between))
    panel._arrange()
    assert panel.side_by_side  # no flip to and fro near the line
    panel._split.resize(1400, int(1400 / (STACKED_BELOW - 0.3)))
    panel._arrange()
    assert not panel.side_by_side
    panel._split.resize(1400, int(1400 / between))
    panel._arrange()
    assert not panel.side_by_side


@pytest.mark.parametrize("t", [0.25, 0.75])
def test_the_partial_step_is_described_as_what_it_is(make_window, t):
    """x + s·A is resid_attn of the layer with its attention branch scaled by s, not that
    layer's output (the caption said 'the layer's output with this branch scaled by s' for
    both sub-steps); h + s·M is the output with the MLP branch scaled by s."""
    from engine import run_layer
    from engine.weights import LayerWeights as Weights

    window = make_window(sync=True, text="我爱北京天安门")
    panel = _depth(window)
    window.state.set_depth_t(t)
    state, trace = window.state, window.state.result.trace
    s = 2 * t if t < 0.5 else 2 * t - 1
    branch = "self_attn.o_proj.weight" if t < 0.5 else "mlp.down_proj.weight"
    tensors = {name: state.weights[name] for name in state.weights}
    tensors[branch] = s * tensors[branch]  # the branch's output scaled by s
    scaled = run_layer(trace["embed"], Weights.from_state_dict(tensors, state.config),
                       state.config)
    caption = panel.caption.text()
    if t < 0.5:
        np.testing.assert_allclose(panel.source, scaled["resid_attn"], rtol=0, atol=1e-14)
        assert not np.allclose(panel.source, scaled.output)
        assert "resid_attn" in caption and "layer's output" not in caption
    else:
        np.testing.assert_allclose(panel.source, scaled.output, rtol=0, atol=1e-14)
        assert "layer's output with the MLP branch" in caption


def test_the_convergence_plot_is_as_tall_as_the_norm_plot(make_window, qtbot):
    """Its caption runs under all the plots at the panel's width: wrapped under the plot
    alone (4-8 lines in a third of the width) it left the plot a strip whose axis title was
    cut (1366 x 768, presentation mode, the tour open)."""
    window = make_window(sync=True, text="the cat sat on the mat")
    panel = _depth(window)
    dock = window.docks["depthDock"]
    dock.setFloating(True)
    caption = panel.conv_caption_box

    def even():
        norm, conv = panel.norm_plot.height(), panel.conv_plot.height()
        return (conv >= 0.85 * norm and conv > 100 and caption.isVisible()
                and caption.geometry().top() >= panel._split.geometry().bottom())

    dock.resize(700, 700)  # stacked
    qtbot.waitUntil(lambda: not panel.side_by_side and panel.conv_plot.isVisible())
    qtbot.waitUntil(even)
    dock.resize(1000, 430)  # side by side in a short dock
    qtbot.waitUntil(lambda: panel.side_by_side)
    qtbot.waitUntil(even)


def test_a_sweep_the_engine_refuses_says_why_instead_of_computing_for_ever(make_window, qtbot,
                                                                            monkeypatch):
    # the sweep evaluates states the layer itself never saw; if the engine refuses one, the
    # depth panel and the convergence lens said "computing…" for ever and the window never
    # counted its first result as settled (a self-test waited out its timeout)
    from app import bridge as bridge_module

    def refuse(_request, _result):
        raise EngineError("layer_overflow", index=17, step="gate_proj")

    monkeypatch.setattr(bridge_module, "compute_convergence", refuse)
    window = make_window(sync=True, text="a b c")
    panel = _depth(window)
    assert window.state.convergence is None
    assert isinstance(window.state.convergence_error, EngineError)
    assert window.first_result_settled()
    assert panel.conv_stack.currentWidget() is panel.conv_waiting
    assert "could not run" in panel.conv_waiting.text()
    assert "overflowed at step 17 (gate_proj)" in panel.conv_waiting.text()
    lens = window.panels["lensConvergenceDock"]
    window.docks["lensConvergenceDock"].show()
    window.docks["lensConvergenceDock"].raise_()
    qtbot.waitUntil(lambda: lens.is_current)
    assert "could not run" in lens.readout.text()
    window.language_actions["zh"].trigger()
    qtbot.waitUntil(lambda: "扫描无法运行" in lens.readout.text()
                    and "溢出" in lens.readout.text())
    window.editor.set_text("a b c d")  # a new result forgets the old refusal
    qtbot.waitUntil(lambda: window.state.result.text == "a b c d")
    assert isinstance(window.state.convergence_error, EngineError)  # refused again, afresh
    monkeypatch.setattr(bridge_module, "compute_convergence", lambda _q, _r: None)
    window.editor.set_text("a b")
    qtbot.waitUntil(lambda: window.state.result.text == "a b")
    assert window.state.convergence_error is None


def _disjoint(rects):
    return all(not a.intersects(b) for i, a in enumerate(rects) for b in rects[i + 1:])


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_short_narrow_panel_shows_one_readable_small_plot_beside_u_t(make_window, qtbot,
                                                                      language, restore_view):
    """The tour open at 1366 x 768 left the dock ~415 x 338: the norm curves and the
    convergence plot stacked at ~50 px each beside u(t), neither readable. Now one of them
    stands beside u(t) at a readable height, with a switch; the convergence caption shows
    with its plot only."""
    window = make_window(sync=True, text="我爱北京天安门", language=language)
    panel = _depth(window)
    dock = window.docks["depthDock"]
    dock.setFloating(True)
    dock.resize(415, 318)  # (a floating dock has no title bar: the docked one's 338 - 20)
    qtbot.waitUntil(lambda: panel.compact)
    readable = 100  # px: a title, a few gridlines of data, tick labels and the axis title
    qtbot.waitUntil(lambda: panel.norm_plot.isVisible() and not panel.conv_box.isVisible())
    qtbot.waitUntil(lambda: panel.norm_plot.height() >= readable)
    assert not panel.conv_caption_box.isVisible()  # its plot is not shown
    assert panel.show_norm_button.isVisible() and panel.show_conv_button.isVisible()
    assert panel.view.height() >= readable
    panel.show_conv_button.click()
    qtbot.waitUntil(lambda: panel.conv_box.isVisible() and not panel.norm_plot.isVisible())
    qtbot.waitUntil(lambda: panel.conv_caption_box.isVisible())
    qtbot.waitUntil(lambda: panel.conv_plot.height() >= readable)
    # once the layout has settled, showing its caption did not flip the mode back
    wait_stable(qtbot, lambda: (panel.compact, panel.size(), panel.conv_plot.size()))
    assert panel.compact
    dock.resize(700, 700)  # tall: both stacked again, each readable, and the caption
    qtbot.waitUntil(lambda: not panel.compact and panel.norm_plot.isVisible()
                    and panel.conv_box.isVisible() and panel.conv_caption_box.isVisible())
    qtbot.waitUntil(lambda: min(panel.norm_plot.height(), panel.conv_plot.height()) >= readable)


def test_every_small_plot_stands_readable_at_1366_by_768_with_the_tour(make_window, qtbot):
    """The window at the classroom size with the tour open: whatever the depth panel shows
    is readable, and the tour's convergence stop shows the convergence plot."""
    from app.tour import STOPS

    window = make_window(sync=True, text="我爱北京天安门")
    window.resize(1366, 768)
    window.apply_default_layout()
    window.start_tour(0)
    panel = _depth(window)
    qtbot.waitUntil(lambda: window.tour_dock.isVisible() and panel.isVisible())

    def readable():
        for plot in (panel.norm_plot, panel.conv_plot):
            if plot.isVisible():
                assert plot.height() >= 100, (plot.objectName(), plot.height())

    qtbot.waitUntil(readable, timeout=10_000)
    window.start_tour(next(i for i, s in enumerate(STOPS) if s.key == "convergence"))
    qtbot.waitUntil(lambda: panel.conv_plot.isVisible() and panel.conv_caption_box.isVisible())
    window.start_tour(next(i for i, s in enumerate(STOPS) if s.key == "norm-curves"))
    qtbot.waitUntil(lambda: panel.norm_plot.isVisible())


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_slider_keeps_a_readable_width_in_a_narrow_panel(make_window, qtbot, language,
                                                              restore_view):
    """With the tour open the fixed-width t readout and the speed box left the slider ~70 px
    and its t = 0, ½, 1 marks piled up as "u(0|½|1)". A narrow panel now gives the slider a
    row of its own; a wide one keeps it in the row with Play."""
    window = make_window(sync=True, text="我爱北京天安门", language=language)
    panel = _depth(window)
    dock = window.docks["depthDock"]
    dock.setFloating(True)
    slider = panel.slider

    def marks_apart():
        rects = [m.geometry() for m in slider.marks]
        return (_disjoint(rects) and all(slider.rect().contains(r) for r in rects)
                and slider.width() >= slider.min_readable_width())

    dock.resize(415, 318)
    qtbot.waitUntil(lambda: panel.slider_alone)
    qtbot.waitUntil(marks_apart)
    # its own row: under Play, t and speed, not beside them
    assert slider.geometry().top() >= panel.speed_box.geometry().bottom()
    assert slider.width() > 300
    dock.resize(900, 600)
    qtbot.waitUntil(lambda: not panel.slider_alone and abs(
        slider.geometry().top() - panel.play_button.geometry().top()) < 10)  # back in the row
    qtbot.waitUntil(marks_apart)


def test_token_curves_are_stroked_opaque_in_their_colour_over_the_background(make_window):
    """Qt strokes an antialiased translucent pen several times slower than an opaque one:
    each token's curve keeps its translucent colour as its pen but is stroked with that colour
    pre-blended over the plot's background — which follows the theme."""
    from PySide6.QtGui import QColor

    from app.theme import PLOT_COLOURS

    window = make_window(sync=True, text="the cat sat on the mat")
    panel = _depth(window)
    for theme in ("light", "dark", "light"):
        window.state.set_theme(theme)
        panel.norm_plot.grab()  # paints every curve
        background = QColor(PLOT_COLOURS[theme][0])
        for curve in panel.curves:
            colour = curve.opts["pen"].color()
            assert colour.alpha() < 255  # the curve's own colour, as before
            stroke = curve.stroke_pen().color()
            assert stroke.alpha() == 255
            a = colour.alphaF()
            for channel in ("red", "green", "blue"):
                expected = (a * getattr(colour, channel)()
                            + (1 - a) * getattr(background, channel)())
                assert abs(getattr(stroke, channel)() - expected) <= 1
            assert curve.stroke_pen().widthF() == curve.opts["pen"].widthF()


def _pixels(image) -> np.ndarray:
    from PySide6.QtGui import QImage

    image = image.convertToFormat(QImage.Format.Format_ARGB32)
    rows = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), -1)
    return rows[:, :image.width() * 4].reshape(image.height(), image.width(), 4).copy()


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_u_t_is_drawn_from_a_premultiplied_image_with_the_same_pixels(make_window, theme):
    """Qt scales pyqtgraph's 8-bit indexed image ~8× slower than a premultiplied ARGB32 one,
    on every edit and every animation frame: u(t) is converted once after rendering. The
    picture is the same: each pixel is pyqtgraph's, or, on a cell edge that falls between two
    pixels, the neighbouring one's (the two scale a fractional edge to either side)."""
    import pyqtgraph as pg
    from PySide6.QtGui import QImage

    window = make_window(sync=True, text="the cat sat on the mat")
    window.state.set_theme(theme)
    panel = _depth(window)
    window.state.set_depth_t(0.3)  # an animation frame: new pixels
    fast = _pixels(panel.view.grab().toImage())
    image = panel.view.image
    assert image.qimage.format() == QImage.Format.Format_ARGB32_Premultiplied
    pg.ImageItem.render(image)  # pyqtgraph's own image of the same frame
    assert image.qimage.format() != QImage.Format.Format_ARGB32_Premultiplied
    slow = _pixels(panel.view.grab().toImage())
    same = (fast == slow).all(axis=2)
    for axis in (0, 1):  # a cell edge one pixel over
        for shift in (-1, 1):
            same |= (fast == np.roll(slow, shift, axis=axis)).all(axis=2)
    assert same.all()
    assert (fast == slow).all(axis=2).mean() > 0.98


@pytest.mark.parametrize("size", [(1280, 720), (1600, 1000)])
def test_the_convergence_plot_labels_stand_apart_and_inside(make_window, qtbot, size):
    """In the narrow convergence plot of a 1280 x 720 window "16" and "32" ran together as
    "1632" and "the real layer (n = 1)" was cut at the plot's edge: the n labels thin to
    every other doubling, and the layer's label shortens to "n = 1", when there is no room."""
    from PySide6.QtGui import QFontMetrics

    window = make_window(sync=True, text="我爱北京天安门")
    window.resize(*size)
    window.apply_default_layout()
    panel = _depth(window)
    qtbot.waitUntil(lambda: panel.conv_plot.isVisible() and panel.layer_marker.data.size)

    def apart():
        plot = panel.conv_plot
        axis = plot.getAxis("bottom")
        box = plot.getViewBox()
        # mapping through a view whose transform is out of date updates it, and the panel
        # sets new ticks on that signal: bring it up to date before reading the ticks
        box.childTransform()
        levels = list(axis._tickLevels[0])
        ticks = [value for value, _text in levels]
        font = QFontMetrics(axis.style.get("tickFont") or axis.font())
        xs = [box.mapViewToScene(QPointF(value, 0)).x() for value in ticks]
        widths = [font.horizontalAdvance(text) for _value, text in levels]
        for (x0, w0), (x1, w1) in pairwise(zip(xs, widths, strict=True)):
            assert x1 - x0 >= (w0 + w1) / 2 + 4, (levels, x0, x1)
        if size == (1600, 1000):
            assert len(ticks) == 7 and panel.layer_text.textItem.toPlainText().startswith("the")
        label = panel.layer_text.mapRectToScene(panel.layer_text.boundingRect())
        assert box.sceneBoundingRect().contains(label.topRight()), (label, box.sceneBoundingRect())

    qtbot.waitUntil(apart, timeout=10_000)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_convergence_axis_titles_fit_their_axes(make_window, qtbot, language, restore_view):
    """pyqtgraph cuts a title longer than its axis ("sub-steps n (Δt = 1/r" at 1366 x 768, the
    lens's "‖uₙ − u(1)‖ (log)" at 1280 x 720): each axis shows the longest title that fits,
    and the full one again when there is room."""
    from PySide6.QtGui import QFontMetrics

    window = make_window(sync=True, text="我爱北京天安门", language=language)
    panel = _depth(window)
    lens = window.panels["lensConvergenceDock"]
    window.docks["lensConvergenceDock"].show()

    def title(plot, side):
        return plot.getAxis(side).labelText

    def fits(plot, side):
        axis = plot.getAxis(side)
        rect = axis.sceneBoundingRect()
        room = rect.width() if side == "bottom" else rect.height()
        return QFontMetrics(axis.label.font()).horizontalAdvance(axis.labelText) < room

    full_depth, full_lens = panel.conv_plot.titles[0], lens._left_titles[0]
    for dock_name in ("depthDock", "lensConvergenceDock"):
        window.docks[dock_name].setFloating(True)
    window.docks["depthDock"].resize(1500, 900)
    window.docks["lensConvergenceDock"].resize(900, 900)
    qtbot.waitUntil(lambda: title(panel.conv_plot, "bottom") == full_depth
                    and title(lens.plot, "left") == full_lens)
    window.docks["depthDock"].resize(420, 380)
    window.docks["lensConvergenceDock"].resize(530, 330)
    # (that short a panel shows one small plot at a time beside u(t): this one)
    panel.show_small_plot("convergence")
    qtbot.waitUntil(lambda: title(panel.conv_plot, "bottom") != full_depth
                    and title(lens.plot, "left") != full_lens)
    qtbot.waitUntil(lambda: fits(panel.conv_plot, "bottom") and fits(lens.plot, "left")
                    and fits(lens.plot, "bottom"))


@pytest.mark.parametrize("size", [(1600, 1000), (1280, 720), (1920, 1080)])
def test_the_sub_step_labels_sit_above_every_curve(make_window, qtbot, size):
    """A fixed 15 % headroom let the top curve run through "MLP" in a 100 px plot ("MI P")."""
    window = make_window(sync=True, text="我爱北京天安门")
    window.resize(*size)

    def above():
        panel = _depth(window)
        view = panel.norm_plot.getViewBox()
        top = float(np.max(panel._norms))
        for t in (0.25, 0.75):  # where the two labels stand
            highest = view.mapViewToScene(QPointF(t, top)).y()
            for label in (panel.attn_text, panel.mlp_text):
                assert label.sceneBoundingRect().bottom() <= highest, (label.toPlainText(), size)

    qtbot.waitUntil(above, timeout=10_000)


def test_a_new_title_that_fits_is_put_in_as_pyqtgraph_puts_it_without_a_layout_pass(qtbot):
    """set_title (the norm plot's "bold: token k" title, new at every edit of the last token):
    the same HTML, position and pixels as pyqtgraph's setTitle, without setting a new minimum
    size (which lays the plot out again); a title too wide for its box goes through
    pyqtgraph."""
    import pyqtgraph as pg

    from app.widgets.plotting import set_title

    plots = []
    for _ in range(2):
        plot = pg.PlotWidget()
        qtbot.addWidget(plot)
        plot.resize(400, 250)
        plot.show()
        qtbot.waitExposed(plot)
        plot.setTitle("bold: token 9 “第1”", size="8pt")
        plots.append(plot)
    qtbot.wait(20)  # (laid out: the title has its box)
    ours, theirs = plots
    label = ours.getPlotItem().titleLabel
    resized = []
    real = label.updateMin
    label.updateMin = lambda: (resized.append(label.text), real())
    for title in ("bold: token 9 “第12”", "bold: token 3 “w”", "bold: token 10 “天安门”"):
        set_title(ours, title, size="8pt")
        assert resized == []
        theirs.setTitle(title, size="8pt")
        qtbot.wait(20)  # (pyqtgraph's layout pass runs)
        mine, pyqtgraphs = label.item, theirs.getPlotItem().titleLabel.item
        assert label.text == title
        assert mine.toHtml() == pyqtgraphs.toHtml()
        assert mine.pos() == pyqtgraphs.pos()
        assert ours.grab().toImage() == theirs.grab().toImage()
        resized.clear()  # (a layout pass the grab ran may resize it, as pyqtgraph's)
    long = "bold: token 10 " + "“天安门”" * 40
    set_title(ours, long, size="8pt")
    assert resized and label.text == long  # (pyqtgraph's: the box grows to it)
    assert label.minimumWidth() > 400
