"""The LayerNorm vs RMSNorm panel: its numbers are engine.norms' numbers for the selected
token, and the layer's own RMSNorm·γ equals the trace row."""

import math

import numpy as np
import pytest
from PySide6.QtGui import QTextDocumentFragment

from app.widgets.norm_parts import format_number
from engine.norms import compare_norms

TEXT = "我爱北京天安门"


def full(label):
    """A reading line as a teacher can read it: shown, or (the compact arrangement's short
    line) in full in its tooltip."""
    return label.text() + "\n" + label.toolTip()


def table(panel):
    return [[panel.table.item(r, c).text() for c in range(panel.table.columnCount())]
            for r in range(panel.table.rowCount())]


def test_numbers_equal_engine_norms_for_the_selected_token(make_window):
    window = make_window(sync=True, text=TEXT)
    panel = window.panels["normDock"]
    assert panel.point == "embed"  # the default: the layer input, read by input_layernorm
    window.state.set_query(2)
    trace, config = window.state.result.trace, window.state.config
    v = trace["embed"][2]
    expected = compare_norms(v, eps=config.rms_norm_eps)

    np.testing.assert_array_equal(panel.comparison.vector, v)
    np.testing.assert_array_equal(panel.comparison.layer_norm, expected.layer_norm)
    np.testing.assert_array_equal(panel.comparison.rms_norm, expected.rms_norm)
    # the bars drawn are those vectors, side by side per feature
    np.testing.assert_array_equal(panel.bars["v"].opts["height"], v)
    np.testing.assert_array_equal(panel.bars["ln"].opts["height"], expected.layer_norm)
    np.testing.assert_array_equal(panel.bars["rms"].opts["height"], expected.rms_norm)
    x_v, x_ln = panel.bars["v"].opts["x"], panel.bars["ln"].opts["x"]
    assert (x_v < x_ln).all() and np.allclose(np.round(x_ln), np.arange(v.size))

    rows = table(panel)
    for row, stats in zip(rows[:3], (expected.input_stats, expected.layer_norm_stats,
                                     expected.rms_norm_stats), strict=True):
        assert row == [format_number(stats.mean), format_number(stats.std),
                       format_number(stats.rms)]
    assert abs(expected.layer_norm_stats.mean) < 1e-15  # LN removes the mean …
    assert abs(expected.rms_norm_stats.mean) > 1e-3  # … RMSNorm does not

    ln, rms = expected.layer_norm_projection, expected.rms_projection
    assert format_number(ln.distance) in full(panel.ln_text)
    assert format_number(math.sqrt(ln.closed_form_squared_distance)) in full(panel.ln_text)
    assert format_number(rms.distance) in full(panel.rms_text)
    assert panel.ln_badge.text() == "EXACT · E5"
    assert panel.rms_badge.text() == "EXACT · E10"
    assert panel.centred_badge.text() == "EXACT · E10"
    assert f"{expected.centred_gap:.1e}" in full(panel.centred_text)
    # RMSNorm does not keep mean v: it scales it by 1/rms, and the line says so with both means
    mean_in, mean_out = expected.input_stats.mean, expected.rms_norm_stats.mean
    assert mean_out == pytest.approx(mean_in / math.sqrt(expected.input_stats.rms**2
                                                         + config.rms_norm_eps), rel=1e-12)
    assert format_number(mean_in) in full(panel.centred_text)
    assert format_number(mean_out) in full(panel.centred_text)
    assert "keeps" not in full(panel.centred_text)


def test_the_layers_rmsnorm_with_gamma_equals_the_trace_row(make_window):
    window = make_window(sync=True, text=TEXT)
    panel = window.panels["normDock"]
    window.state.set_query(4)
    trace = window.state.result.trace
    np.testing.assert_array_equal(panel.layer_rms, trace["input_layernorm"][4])
    assert "input_layernorm" in panel.match_text.text()
    assert "max |Δ| = 0 (bitwise)" in panel.match_text.text()

    panel.set_point("resid_attn")  # the input of the second RMSNorm
    v = trace["resid_attn"][4]
    np.testing.assert_array_equal(panel.comparison.vector, v)
    np.testing.assert_array_equal(panel.layer_rms, trace["post_attention_layernorm"][4])
    assert "post_attention_layernorm" in panel.match_text.text()
    expected = compare_norms(v, eps=window.state.config.rms_norm_eps)
    assert table(panel)[1][0] == format_number(expected.layer_norm_stats.mean)

    assert len(panel.bars["layer"].opts["height"]) == 0  # off by default
    panel.show_layer.setChecked(True)
    np.testing.assert_array_equal(panel.bars["layer"].opts["height"],
                                  trace["post_attention_layernorm"][4])


def test_changing_the_token_follows_the_shared_selection_without_a_recompute(make_window):
    window = make_window(sync=True, text=TEXT)
    panel = window.panels["normDock"]
    computed = []
    window.bridge.result_ready.connect(computed.append)
    panel.token_box.setCurrentIndex(6)
    assert window.state.query == 6 and panel.shown_query == 6
    np.testing.assert_array_equal(panel.comparison.vector, window.state.result.trace["embed"][6])
    window.state.set_query(1)
    assert panel.token_box.currentIndex() == 1
    np.testing.assert_array_equal(panel.comparison.vector, window.state.result.trace["embed"][1])
    assert window.panels["attentionDock"].query_box.currentIndex() == 1
    assert computed == []


def test_chinese_tokens_and_the_explanation_in_both_languages(make_window):
    window = make_window(sync=True, text=TEXT)
    panel = window.panels["normDock"]
    assert [panel.token_box.itemText(i).split()[1] for i in range(7)] == list(TEXT)
    assert "LN(v) = RMSNorm(v − mean v)" in panel.identity.text()
    assert "centred" in panel.identity.text()
    window.state.set_language("zh")
    assert "去均值" in panel.identity.text()
    assert "LN(v) = RMSNorm(v − mean v)" in panel.identity.text()
    window.state.set_language("en")
    assert "centred" in panel.identity.text()


def test_a_constant_vector_has_no_unique_projection(make_window):
    window = make_window(sync=True, text=TEXT)
    panel = window.panels["normDock"]
    eps = window.state.config.rms_norm_eps
    panel._fill_projection(compare_norms(np.full(16, 0.5), eps=eps), eps)  # docs/continuous.md E7
    assert panel.ln_badge.text() == "NOT UNIQUE · E5"
    assert "equally near" in full(panel.ln_text)
    assert panel.rms_badge.text() == "EXACT · E10"  # a nonzero constant still has one
    panel._fill_projection(compare_norms(np.zeros(16), eps=eps), eps)
    assert panel.rms_badge.text() == "NOT UNIQUE · E10"


def test_an_edit_after_the_shown_token_is_not_drawn_again_and_a_change_is(make_window,
                                                                          monkeypatch):
    """The shown row is unchanged by an edit after it (the causal mask): the panel keeps what
    it drew; a changed row, another layer point or a new model is drawn again."""
    import app.panels.norm_compare as norm_compare

    window = make_window(sync=True, text="我爱北京天安门")
    panel = window.panels["normDock"]
    window.state.set_query(2)
    calls = []
    original = norm_compare.compare_norms
    monkeypatch.setattr(norm_compare, "compare_norms",
                        lambda *a, **k: calls.append(1) or original(*a, **k))
    shown = panel.comparison

    window.editor.set_text("我爱北京天安")  # rows 0..5 read the same
    assert window.panels["normDock"].is_current and calls == []
    assert panel.comparison is shown and panel.shown_query == 2

    window.editor.set_text("我爱你京天安")  # token 2 itself changed
    assert calls == [1]
    np.testing.assert_array_equal(panel.comparison.vector,
                                  window.state.result.trace["embed"][2])
    np.testing.assert_array_equal(panel.layer_rms,
                                  window.state.result.trace["input_layernorm"][2])

    panel.set_point("resid_attn")  # a redraw asked for by the panel itself: drawn
    assert calls == [1, 1]
    np.testing.assert_array_equal(panel.layer_rms,
                                  window.state.result.trace["post_attention_layernorm"][2])
    window.state.set_model(window.state.config, seed=1)  # new weights, same text
    assert calls == [1, 1, 1]
    np.testing.assert_array_equal(panel.layer_rms,
                                  window.state.result.trace["post_attention_layernorm"][2])


def ranges_generated(axis):
    """The list, growing, of the ranges ``axis`` generates its ticks and labels for."""
    ranges = []
    real = axis.generateDrawSpecs
    axis.generateDrawSpecs = lambda p: (ranges.append(list(axis.range)), real(p))[1]
    return ranges


def test_the_axis_follows_a_new_range_without_a_forced_repaint(make_window, qtbot):
    # FastAxisItem kept the picture of the old range when the label text stayed the same:
    # after an edit that doubled the range the bars read as half their value
    window = make_window(sync=True, text="The cat sat on the mat")
    panel = window.panels["normDock"]
    axis = panel.graph.getAxis("left")
    drawn = ranges_generated(axis)
    panel.graph.grab()  # the axis has a picture of this range
    before = list(axis.range)
    window.editor.set_text("我爱北京天安门 and a much longer sentence with many more tokens")
    qtbot.waitUntil(lambda: list(axis.range) != before)
    panel.graph.grab()  # paints what is on screen
    assert drawn and drawn[-1] == list(axis.range)


def test_a_layer_the_comparison_refuses_is_said_in_the_panel(make_window):
    from engine import Qwen3Config

    window = make_window(sync=True, text="a b")
    panel = window.panels["normDock"]
    # a session may hold a one-feature layer: it computes, but a 1-entry vector has no
    # LayerNorm (compare_norms refuses it); the EngineError escaped from every redraw and the
    # panel never caught up with the result
    window.state.set_model(Qwen3Config(hidden_size=1, intermediate_size=1,
                                       num_attention_heads=1, num_key_value_heads=1,
                                       head_dim=2))
    assert window.state.result.trace.config.hidden_size == 1
    assert panel.is_current and window.all_panels_current()
    assert panel._stack.currentIndex() == 0
    assert "cannot show" in panel._empty.text() and "at least 2 entries" in panel._empty.text()
    window.state.set_model(Qwen3Config.toy())
    assert panel._stack.currentIndex() == 1 and panel.is_current
    assert panel.comparison.vector.size == 16


def _cut_cells(panel):
    """Cells whose number does not fit its column (the view would elide it: '0.99999…')."""
    t = panel.table
    return [(r, c, t.item(r, c).text()) for r in range(t.rowCount())
            for c in range(t.columnCount()) if t.columnWidth(c) < t.sizeHintForColumn(c)]


@pytest.mark.parametrize("language", ["en", "zh"])
def test_every_number_of_the_table_is_shown_whole_at_1366_by_768(make_window, qtbot, language):
    """The columns were stretched to equal widths: at 1366 x 768 '0.9999997' was elided to
    '0.99999…', which reads as 1 (only the tooltip had the number)."""
    window = make_window(sync=True, text=TEXT, language=language)
    window.resize(1366, 768)
    window.apply_default_layout()
    panel = window.panels["normDock"]
    qtbot.waitUntil(lambda: abs(window.docks["normDock"].width() - 0.26 * 1366) < 20)

    def whole():
        assert "0.9999997" in [text for row in table(panel) for text in row]
        assert _cut_cells(panel) == []
        # ... and without scrolling: the columns fit the table at this size
        t = panel.table
        assert t.verticalHeader().width() + sum(t.columnWidth(c) for c in range(3)) \
            <= t.width() - 2 * t.frameWidth()
        assert t.horizontalScrollBar().maximum() == 0

    qtbot.waitUntil(whole, timeout=10_000)


def _panel_in_default_layout(make_window, qtbot, size, language):
    """The norm panel of a window of ``size`` in ``language``, laid out as on first launch
    (in front: a window up to 1366 x 768 has it as a tab behind the steps)."""
    window = make_window(sync=True, text=TEXT, language=language)
    window.resize(*size)
    window.apply_default_layout()
    dock = window.docks["normDock"]
    dock.raise_()
    qtbot.waitUntil(lambda: not dock.visibleRegion().isEmpty()
                    and abs(dock.width() - window.docks["stepListDock"].width()) < 20)
    return window.panels["normDock"]


@pytest.mark.parametrize(("size", "language"), [((1366, 768), "zh"), ((1280, 720), "en")])
def test_the_colour_key_reads_on_one_line_in_a_classroom_window(make_window, qtbot, size,
                                                                language, restore_view):
    """The key wrapped beside the layer's box, leaving the blue swatch at the end of one line
    and 'RMSNorm(v)' at the start of the next: the box now goes under a key that would wrap,
    and a swatch is tied to its name."""
    panel = _panel_in_default_layout(make_window, qtbot, size, language)

    def one_line():
        line = panel.legend.fontMetrics().lineSpacing()
        assert panel.legend.height() < 2 * line
        assert panel.show_layer.geometry().top() >= panel.legend.geometry().bottom()
        assert panel.legend.text().count("■</span>&nbsp;") == 3

    qtbot.waitUntil(one_line, timeout=10_000)


@pytest.mark.parametrize(("size", "language"), [((1366, 768), "en"), ((1366, 768), "zh"),
                                               ((1600, 1000), "en"), ((1920, 1080), "zh")])
def test_the_projection_reading_shows_without_scrolling(make_window, qtbot, size, language,
                                                         restore_view):
    """At 1366 x 768 the reading (the distances to LayerNorm's and RMSNorm's sets) sat under
    the chart, the table and a badge column that made it wrap to twice the lines: the class
    saw it only after scrolling the panel. Now it shows whole with the panel scrolled to the
    top, and the chart still starts on screen."""
    panel = _panel_in_default_layout(make_window, qtbot, size, language)

    def shown():
        viewport = panel._scroll.viewport()
        assert panel._scroll.verticalScrollBar().value() == 0
        top = panel.proj_title.mapTo(viewport, panel.proj_title.rect().topLeft()).y()
        bottom = panel.centred_text.mapTo(viewport, panel.centred_text.rect().bottomLeft()).y()
        assert panel.centred_text.text() and panel.proj_title.isVisible()
        assert 0 <= top < bottom < viewport.height(), (top, bottom, viewport.height())
        chart = panel.graph.mapTo(viewport, panel.graph.rect().topLeft()).y()
        assert 0 <= chart < viewport.height() - 40

    qtbot.waitUntil(shown, timeout=10_000)


def test_a_narrow_dock_stacks_the_table_instead_of_scrolling_or_cutting_a_number(
        make_window, qtbot):
    """Narrower than the table (the tour open at 1366 x 768, presentation mode at 1280 x 720):
    the table scrolled sideways, which a class cannot do. Now its rows stand one under another
    (each name, then its three statistics), every number whole, and nothing scrolls
    sideways; with room again the table is back, every column whole."""
    window = make_window(sync=True, text=TEXT)
    panel = window.panels["normDock"]
    dock = window.docks["normDock"]
    dock.setFloating(True)
    dock.resize(200, 600)
    qtbot.waitUntil(lambda: dock.width() < 240)
    t = panel.table

    def stacked():
        assert t.isHidden() and panel.stacked_table.isVisible()
        shown = QTextDocumentFragment.fromHtml(panel.stacked_table.text()).toPlainText()
        for row in table(panel):
            for text in row:
                assert text in shown, (text, shown)
        assert "0.9999997" in shown
        assert not panel._scroll.horizontalScrollBar().isVisible()
        assert panel.stacked_table.width() <= panel._scroll.viewport().width()

    qtbot.waitUntil(stacked, timeout=10_000)
    dock.resize(700, 600)  # room again: the table, no scroll bar, every column whole
    qtbot.waitUntil(lambda: t.isVisible() and panel.stacked_table.isHidden()
                    and t.horizontalScrollBar().maximum() == 0
                    and not panel._scroll.horizontalScrollBar().isVisible())
    assert _cut_cells(panel) == []


def test_the_fitted_table_follows_a_larger_text_size(make_window, qtbot, restore_view):
    """The table's text, made a little smaller to fit, still grows with the app's text."""
    window = make_window(sync=True, text=TEXT)
    window.resize(1366, 768)
    window.apply_default_layout()
    window.start_tour(0)  # a dock narrower than the table at the full text size
    panel = window.panels["normDock"]
    qtbot.waitUntil(lambda: panel.table.font().pointSizeF() < panel.font().pointSizeF())
    before = panel.table.font().pointSizeF()
    window.scale_text(1.25)
    qtbot.waitUntil(lambda: panel.table.font().pointSizeF() > before)
    qtbot.waitUntil(lambda: _cut_cells(panel) == [], timeout=10_000)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_controls_wrap_before_the_panel_scrolls_with_the_tour_open(make_window, qtbot,
                                                                       language, restore_view):
    """At 1366 x 768 (the tour open or not) the Token / Vector row and the key's row were
    wider than the ~250 px dock: the panel scrolled sideways and the explanation under them was cut
    at the right. Vector now stands under Token, and the layer's box under the key."""
    window = make_window(sync=True, text=TEXT, language=language)
    window.resize(1366, 768)
    window.apply_default_layout()
    window.start_tour(0)
    panel = window.panels["normDock"]
    viewport = panel._scroll.viewport()
    # (the window now shows the tour as a band there, and the panel is wider: the dock as
    # narrow as the tour's column left it)
    dock = window.docks["normDock"]
    dock.setFloating(True)
    dock.resize(250, 500)
    qtbot.waitUntil(lambda: window.tour_dock.isVisible() and viewport.width() < 300)
    qtbot.waitUntil(lambda: panel._content.width() <= viewport.width())

    def fits():
        assert not panel._scroll.horizontalScrollBar().isVisible()
        for widget in (panel.identity, panel.point_box, panel.show_layer, panel.token_box):
            assert widget.isVisible(), widget.objectName()
            right = widget.mapTo(viewport, widget.rect().topRight()).x()
            assert right <= viewport.width(), widget.objectName()
        assert panel.point_box.geometry().top() >= panel.token_box.geometry().bottom()

    # a short dock folds the identity and the layer's box behind Details: shown, they fit too
    if panel.folding.compact:
        panel.details_button.setChecked(True)
    qtbot.waitUntil(fits, timeout=10_000)
    dock.resize(700, 700)  # wide: one row each
    qtbot.waitUntil(lambda: not panel.controls_stacked and not panel.legend_stacked)
    assert abs(panel.point_box.geometry().top() - panel.token_box.geometry().top()) < 4


def _shown_after(window, qtbot, text):
    from tests.conftest import wait_for_text

    window.editor.set_text(text)
    wait_for_text(qtbot, window, text)
    panel = window.panels["normDock"]
    return panel._view, panel.graph.grab().toImage()


def test_a_range_shown_before_replays_its_axis_picture(make_window, qtbot):
    """Typing moves the chart's range between a few nice values; the value axis (ticks,
    labels, grid) was generated again at every move (~2-3 ms). Back at a range it showed, it
    replays that range's picture — the same pixels — and a new theme is drawn anew."""
    window = make_window(sync=True, text="我爱北京天安门 第0")
    panel = window.panels["normDock"]
    axis = panel.graph.getAxis("left")
    generated = ranges_generated(axis)
    seen = {}
    for k in range(12):  # two texts whose ranges differ
        text = f"我爱北京天安门 第{k}"
        view, image = _shown_after(window, qtbot, text)
        seen.setdefault(view, (text, image))
        if len(seen) == 2:
            break
    assert len(seen) == 2
    (first, first_image), (second, _image) = seen.values()
    for text in (first, second):  # each range drawn once more at the axis's settled width
        _shown_after(window, qtbot, text)
    count = len(generated)
    view, image = _shown_after(window, qtbot, first)  # back to the first range
    assert view == next(iter(seen))
    assert len(generated) == count  # replayed, not generated
    assert image == first_image  # the same picture
    window.state.set_theme("dark")
    panel.graph.grab()
    assert len(generated) == count + 1  # the dark theme's pens: drawn anew


@pytest.mark.parametrize(("size", "language"), [((1366, 768), "en"), ((1366, 768), "zh"),
                                               ((1600, 1000), "en"), ((1600, 1000), "zh"),
                                               ((1920, 1080), "en"), ((1920, 1080), "zh")])
def test_the_reading_chart_and_table_show_without_vertical_scrolling(make_window, qtbot, size,
                                                                      language, restore_view):
    """At 1366 x 768 the panel's content (591 px in English) was nearly twice its 319 px
    viewport: a teacher scrolled to reach the table. Now the reading, the chart and the table
    fit with no vertical scrolling; a larger window still shows the identity and the match
    line as well."""
    panel = _panel_in_default_layout(make_window, qtbot, size, language)
    viewport = panel._scroll.viewport()

    def fits():
        assert panel._scroll.verticalScrollBar().maximum() == 0
        assert panel._content.height() <= viewport.height()
        for widget in (panel.ln_text, panel.rms_text, panel.centred_text, panel.graph,
                       panel.legend, panel.table):
            assert widget.isVisible(), widget
            top = widget.mapTo(viewport, widget.rect().topLeft()).y()
            bottom = widget.mapTo(viewport, widget.rect().bottomLeft()).y()
            assert 0 <= top < bottom < viewport.height(), (widget, top, bottom)
        assert panel.graph.height() >= 80
        for label, badge in ((panel.ln_text, panel.ln_badge), (panel.rms_text, panel.rms_badge),
                             (panel.centred_text, panel.centred_badge)):
            assert badge.text().startswith("EXACT") and label.text().startswith(badge.html())
        assert format_number(panel.comparison.layer_norm_projection.distance) \
            in panel.ln_text.text()
        assert format_number(panel.comparison.rms_projection.distance) in panel.rms_text.text()
        if size == (1920, 1080):  # room: everything shown as before
            assert panel.identity.isVisible() and panel.match_text.isVisible()
        if size != (1366, 768):  # the reading's full lines, formulas and all
            assert not panel.shortening.compact and "√d·|rms − 1|" in panel.rms_text.text()

    qtbot.waitUntil(fits, timeout=10_000)


def test_the_compact_reading_keeps_every_number_a_hover_or_a_click_away(make_window, qtbot,
                                                                         restore_view):
    """In a short dock (about the one the six-dock layout gave it at 1366 x 768; with the
    chart's data at least 62 px, a little taller) the reading is one short line per distance:
    the full line (formulas, closed forms, both means) is its tooltip, and Details shows the
    identity, the layer's RMSNorm·γ box and its match line."""
    panel = _panel_in_default_layout(make_window, qtbot, (1366, 768), "en")
    dock = panel.window().docks["normDock"]
    dock.setFloating(True)
    dock.resize(358, 350)
    qtbot.waitUntil(lambda: panel.folding.compact and panel.shortening.compact)
    cmp = panel.comparison
    assert not panel.identity.isVisible() and not panel.match_text.isVisible()
    assert not panel.show_layer.isVisible() and panel.details_button.isVisible()
    ln_tip = panel.ln_text.toolTip()
    assert format_number(math.sqrt(cmp.layer_norm_projection.closed_form_squared_distance)) \
        in ln_tip and "√(d[(1 − s)² + m²])" in ln_tip
    assert "√d·|rms − 1|" in panel.rms_text.toolTip()
    assert format_number(cmp.rms_norm_stats.mean) in panel.centred_text.toolTip()
    assert "normalisation as projection" in panel.proj_title.toolTip()
    panel.details_button.setChecked(True)
    qtbot.waitUntil(lambda: panel.identity.isVisible() and panel.match_text.isVisible()
                    and panel.show_layer.isVisible())
    assert "max |Δ| = 0 (bitwise)" in panel.match_text.text()
    panel.details_button.setChecked(False)
    qtbot.waitUntil(lambda: not panel.identity.isVisible())
    qtbot.waitUntil(lambda: panel._scroll.verticalScrollBar().maximum() == 0)


def test_the_lines_of_a_long_vector_are_drawn_with_a_thin_pen(make_window):
    """A real model's 1024 features are drawn as lines (bars up to 64): Qt strokes a 1.5 px
    antialiased pen ~8x slower than a 1 px one, which held the window ~0.5 s per repaint
    with Qwen3-0.6B open (benchmarks/model_gui_bench.py)."""
    import pyqtgraph as pg

    window = make_window(sync=True, text=TEXT)
    panel = window.panels["normDock"]
    for key, line in panel.lines.items():
        assert pg.mkPen(line.opts["pen"]).widthF() <= 1.0, key


def test_an_edit_does_not_move_columns_that_still_hold_their_numbers(make_window, qapp):
    """Each edit's numbers are a digit or a sign wider or narrower. Columns that still hold
    them keep their widths: moving them made QTableView repaint the table a second time, on
    a timer of its own after the edit's paint. A number that outgrows its column still
    widens it (nothing is ever cut: the test above)."""
    from PySide6.QtCore import QEvent, QObject

    window = make_window(sync=True, text=None)
    panel, t = window.panels["normDock"], window.panels["normDock"].table
    texts = [f"我爱北京天安门 第{k}" for k in range(12)]
    for text in texts[:3]:  # (the window's first layout passes settle the room)
        window.editor.set_text(text)
        qapp.processEvents()

    class Paints(QObject):
        count = 0

        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.Paint:
                Paints.count += 1
            return False

    paints = Paints()
    t.viewport().installEventFilter(paints)
    moved = kept = 0
    for text in texts[3:]:
        before = [t.columnWidth(c) for c in range(3)]
        Paints.count = 0
        window.editor.set_text(text)
        qapp.processEvents()
        qapp.processEvents()  # (QTableView's column-resize timer, when a column moved)
        assert _cut_cells(panel) == []
        after = [t.columnWidth(c) for c in range(3)]
        needs = [t.sizeHintForColumn(c) for c in range(3)]
        if all(width >= need for width, need in zip(before, needs, strict=True)):
            assert after == before, (text, before, after, needs)
            assert Paints.count <= 1, (text, Paints.count)
            kept += 1
        else:
            moved += 1
    assert kept >= 4, (kept, moved)  # the case this test is about did happen
