"""The attention flow panel: arcs into one query for one head, read from the result only."""

import math
import re
from itertools import pairwise

import numpy as np
import pytest
from conftest import wait_stable
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QColor

from app import theme
from app.panels.attention_graph import (
    GRAPH_FLOOR_HEIGHT,
    GRAPH_MIN_HEIGHT,
    LOOP_PX,
    MASKED_RGB,
    MAX_ARCS,
    MAX_LABELS,
)
from app.widgets.attention_arcs import (
    N_BUCKETS,
    bucket_of,
    bucket_opacity,
    format_weight,
    link_rgb,
)

TEXT = "我爱北京天安门"


def arc_data(panel):
    """Every bucket curve's (x, y) data, concatenated: what is drawn."""
    xs = [c.getData()[0] for c in panel.bucket_curves]
    ys = [c.getData()[1] for c in panel.bucket_curves]
    return np.concatenate([x for x in xs if x is not None]), \
        np.concatenate([y for y in ys if y is not None])


def arc_start_keys(curve):
    """The key token each drawn arc starts from: with connect='pairs' every arc is a run of
    segments whose first point sits on its key node at y = 0."""
    x, y = curve.getData()
    if x is None or len(x) == 0:
        return np.zeros(0, dtype=np.int64)
    starts = [0] + [i for i in range(2, len(x), 2) if (x[i], y[i]) != (x[i - 1], y[i - 1])]
    return np.array([round(x[i]) for i in starts], dtype=np.int64)


def node_pos(panel, index):
    """Widget coordinates of token ``index``'s node in the graph view."""
    vb = panel.plot.getViewBox()
    scene = vb.mapViewToScene(QPointF(index, 0.0))
    return panel.graph.mapFromScene(scene)


def test_selecting_a_query_redraws_the_arcs_without_a_recompute(make_window):
    window = make_window(sync=True, text=TEXT)
    panel = window.panels["attentionDock"]
    window.state.set_query(2)
    before = arc_data(panel)
    computed = []
    window.bridge.result_ready.connect(computed.append)
    result = window.state.result

    panel.query_box.setCurrentIndex(5)  # the panel's own picker drives the shared selection
    assert window.state.query == 5 and panel.shown_query == 5
    after = arc_data(panel)
    assert after[0].shape != before[0].shape or not np.array_equal(after[0], before[0])
    # every arc now ends on the new query's node (x = 5, y = 0)
    ends = np.flatnonzero(np.abs(after[1][1::2]) < 1e-9)
    assert ends.size >= 6 and np.allclose(after[0][1::2][ends], 5.0)
    # six visible keys now (0..5), each arc ending on the query node
    assert sorted(np.concatenate(panel.edge_keys).tolist()) == [0, 1, 2, 3, 4, 5]

    panel.head_box.setValue(3)  # the head is shared with the step heatmap
    assert window.state.head == 3 and panel.shown_head == 3
    assert window.panels["heatmapDock"].head_box.value() == 3
    assert computed == []  # selection never recomputes
    assert window.state.result is result


def test_a_query_on_the_last_token_follows_it_as_the_sentence_changes(make_window):
    window = make_window(sync=True, text="Hi there")
    panel = window.panels["attentionDock"]
    assert window.state.query == 1  # the last token reads the whole sentence
    window.editor.set_text("Hi there, how are you")
    assert window.state.query == 5 and panel.shown_query == 5
    assert panel.query_box.currentIndex() == 5
    window.editor.set_text("Hi there, how")
    assert window.state.query == 3 and panel.shown_query == 3
    window.state.set_query(1)  # a token picked earlier in the sentence stays picked
    window.editor.set_text("Hi there, how are you")
    assert window.state.query == 1 and panel.shown_query == 1


def test_arc_weights_are_the_attention_row_of_the_head_and_query(make_window):
    window = make_window(sync=True, text=TEXT)
    panel = window.panels["attentionDock"]
    window.state.set_head(3)
    window.state.set_query(5)
    probs = window.state.result.trace["attn_probs"]
    np.testing.assert_array_equal(panel.weights, probs[3, 5])
    buckets = bucket_of(probs[3, 5])
    for b in range(N_BUCKETS):
        expected = [k for k in range(6) if buckets[k] == b]  # keys 6.. are masked
        assert panel.edge_keys[b].tolist() == expected
        assert arc_start_keys(panel.bucket_curves[b]).tolist() == expected
    # heavier buckets are drawn wider and stronger (further from the white plot)
    widths = [c.opts["pen"].widthF() for c in panel.bucket_curves]
    strength = [255 - c.opts["pen"].color().lightness() for c in panel.bucket_curves]
    assert widths == sorted(widths) and widths[0] < widths[-1]
    assert strength == sorted(strength) and strength[0] < strength[-1]
    # the numbers on hover: at least four significant digits
    top = int(np.argmax(probs[3, 5]))
    text = panel.hover_text(top)
    shown = re.search(r"weight ([0-9.e+-]+)", text).group(1)
    assert shown == format_weight(probs[3, 5, top])
    assert abs(float(shown) - probs[3, 5, top]) <= 5e-5 * probs[3, 5, top]  # ≥ 4 digits
    tiny = format_weight(3.14159e-7)
    assert abs(float(tiny) - 3.14159e-7) <= 5e-5 * 3.14159e-7
    assert "北京"[0] in panel.hover_text(2)


@pytest.mark.usefixtures("restore_view")
def test_link_pens_are_opaque_blends_of_the_weight_drawn_light_to_heavy(make_window, qtbot,
                                                                       monkeypatch):
    """Qt strokes an antialiased translucent pen ~10× slower than an opaque one: each weight
    bucket's opacity is pre-blended toward the theme's plot background instead (the same
    colour on the plain plot), the heavier buckets above the lighter, in both themes and in
    presentation mode (wider lines, same colours)."""
    from app import presentation

    monkeypatch.setattr(presentation, "compact_screen", lambda _w, _h: False)
    window = make_window(sync=True, text="Attention never reads the future tokens")
    window.state.set_query(2)  # masked links too
    panel = window.panels["attentionDock"]

    def check(key):
        background = QColor(theme.PLOT_COLOURS[key][0])
        assert panel.graph.backgroundBrush().color() == background
        rgb = QColor(*link_rgb(key))
        for b, curve in enumerate(panel.bucket_curves):
            pen = curve.opts["pen"]
            expected = theme.blend(background, rgb, bucket_opacity(b))
            assert pen.color().alpha() == 255, (key, b)
            # arcs turn a few degrees per point: bevel joins are as round, and faster
            assert pen.joinStyle() == Qt.PenJoinStyle.BevelJoin
            assert max(abs(pen.color().red() - expected.red()),
                       abs(pen.color().green() - expected.green()),
                       abs(pen.color().blue() - expected.blue())) <= 1, (key, b)
        zs = [curve.zValue() for curve in panel.bucket_curves]
        assert zs == sorted(zs) and len(set(zs)) == N_BUCKETS  # heavy arcs on top
        assert panel.masked_curve.zValue() < zs[0]
        masked = panel.masked_curve.opts["pen"].color()
        assert masked.alpha() == 255
        assert theme.contrast_ratio(masked, background) > 1.5  # still seen
        grey = QColor(*MASKED_RGB)
        assert abs(masked.lightness() - grey.lightness()) < abs(
            background.lightness() - grey.lightness())  # toward the grey

    check("light")
    for key in ("dark", "light", "dark"):
        window.theme_actions[key].trigger()
        qtbot.waitUntil(lambda: panel.is_current, timeout=5000)
        check(key)
    widths = [c.opts["pen"].widthF() for c in panel.bucket_curves]
    window.presentation_action.trigger()
    qtbot.waitUntil(lambda: panel.is_current, timeout=5000)
    assert panel.bucket_curves[-1].opts["pen"].widthF() > widths[-1]
    check("dark")
    window.presentation_action.trigger()


def test_hovering_and_clicking_a_node(make_window, qtbot):
    window = make_window(sync=True, text=TEXT)
    panel = window.panels["attentionDock"]
    window.state.set_query(4)
    # the nodes' positions once the view has laid out (a click maps them to the widget)
    one, six = wait_stable(qtbot, lambda: (node_pos(panel, 1), node_pos(panel, 6)))
    probs = window.state.result.trace["attn_probs"][window.state.head, 4]
    qtbot.mouseMove(panel.graph.viewport(), one)
    qtbot.waitUntil(lambda: format_weight(probs[1]) in panel.readout.text())
    assert "爱" in panel.readout.text()
    qtbot.mouseClick(panel.graph.viewport(), Qt.MouseButton.LeftButton,
                     pos=QPoint(six))
    assert window.state.query == 6


def test_masked_tokens_with_causal_on_and_future_links_with_it_off(make_window):
    window = make_window(sync=True, text=TEXT)
    panel = window.panels["attentionDock"]
    window.state.set_query(2)
    assert panel.masked.tolist() == [False, False, False, True, True, True, True]
    assert panel.masked_keys.tolist() == [3, 4, 5, 6]
    assert arc_start_keys(panel.masked_curve).tolist() == [3, 4, 5, 6]
    assert panel.masked_text.isVisible() and "masked" in panel.masked_text.toPlainText()
    assert sum(k.size for k in panel.edge_keys) == 3
    assert all("masked" in t for t in panel.label_texts[3:])
    assert not any("masked" in t for t in panel.label_texts[:3])

    window.causal_action.setChecked(False)  # View ▸ Causal mask (M): recomputes
    trace = window.state.result.trace
    assert trace.causal is False
    assert window.state.query == 2
    assert not panel.masked.any()
    assert panel.masked_keys.size == 0 and not panel.masked_text.isVisible()
    assert sorted(np.concatenate(panel.edge_keys).tolist()) == list(range(7))
    np.testing.assert_array_equal(panel.weights, trace["attn_probs"][window.state.head, 2])
    assert (panel.weights[3:] > 0).all()
    assert "Causal mask off" in panel.caption.text()

    window.causal_action.setChecked(True)
    assert panel.masked.tolist() == [False, False, False, True, True, True, True]


def test_gqa_note_entropy_and_causal_bound(make_window):
    window = make_window(sync=True, text=TEXT)
    panel = window.panels["attentionDock"]
    window.state.set_head(3)  # toy: 4 query heads, 2 kv heads, group size 2
    window.state.set_query(5)
    note = panel.gqa_note.text()
    assert "query head 3" in note and "kv head 1" in note and "query head(s) 2" in note
    entropy = window.state.result.entropy[3, 5]
    caption = panel.caption.text()
    assert f"{entropy:.4f}" in caption
    assert f"{math.log(6):.4f}" in caption and "log(5 + 1)" in caption
    assert entropy <= math.log(6) + 1e-12


def test_chinese_token_labels(make_window):
    window = make_window(sync=True, text=TEXT)
    panel = window.panels["attentionDock"]
    assert [t.split("\n")[1] for t in panel.label_texts] == list(TEXT)
    assert panel.query_box.itemText(3) == "3  京"


def test_long_input_draws_a_capped_subset(make_window):
    text = " ".join(f"w{i}" for i in range(700))
    window = make_window(sync=True, text=text)
    panel = window.panels["attentionDock"]
    window.state.set_query(650)
    drawn = np.concatenate(panel.edge_keys)
    assert drawn.size == MAX_ARCS
    weights = window.state.result.trace["attn_probs"][window.state.head, 650]
    heaviest = np.argsort(weights[:651])[::-1][:MAX_ARCS]
    assert set(drawn.tolist()) == set(heaviest.tolist())
    assert len(panel.label_texts) <= MAX_LABELS + 1
    assert any(t.startswith("650 ") for t in panel.label_texts)
    assert "heaviest" in panel.caption.text()


def test_empty_text_shows_the_empty_state(make_window):
    window = make_window(sync=True, text="a b")
    panel = window.panels["attentionDock"]
    window.editor.set_text("")
    assert panel._stack.currentIndex() == 0
    window.editor.set_text("c d e")
    assert panel._stack.currentIndex() == 1 and panel.weights.size == 3


def test_token_label_boxes_match_text_items(qtbot):
    """The labels are painted by one item, sized as the TextItems they replace (so the row of
    nodes keeps its place): a CJK line is a pixel taller, margins of 4 px around."""
    from PySide6.QtGui import QFont
    from PySide6.QtWidgets import QGraphicsTextItem

    from app.widgets.plotting import TokenLabelsItem

    font = QFont()
    font.setPointSizeF(11.0)
    item = TokenLabelsItem()
    item.setFont(font)
    for text in ("0\n我\n0.240", "5 安", "masked", "12\nword\nmasked"):
        reference = QGraphicsTextItem()
        reference.setFont(font)
        reference.setPlainText(text)
        doc = reference.document()
        doc.setTextWidth(doc.idealWidth())
        rect = reference.boundingRect()
        assert item.box(text) == (rect.width(), rect.height()), text


def test_labels_follow_the_font_scale_and_the_weights(make_window, restore_view):
    window = make_window(sync=True, text=TEXT)
    panel = window.panels["attentionDock"]
    base = panel.labels_item.font().pointSizeF()
    px = panel._label_px
    assert panel.labels_item.texts() == panel.label_texts
    window.state.set_font_scale(1.5)
    assert panel.labels_item.font().pointSizeF() == base * 1.5
    assert panel._label_px > px  # the room below the nodes grows with the text
    window.state.set_head(1)  # other weights: the labels' numbers follow, no recompute
    weights = window.state.result.trace["attn_probs"][1, window.state.query]
    assert [t.split("\n")[2] for t in panel.label_texts] == [f"{w:.3f}" for w in weights]


def test_an_edit_after_the_query_keeps_the_links_and_a_changed_row_redraws_them(make_window):
    """The query's row is unchanged by an edit after it (the causal mask): its arcs and nodes
    are not set again, its labels follow the new tokens; a changed row, a new head or the
    mask toggled draws them again."""
    window = make_window(sync=True, text=TEXT)
    panel = window.panels["attentionDock"]
    window.state.set_query(3)
    sets = []
    for item in [*panel.bucket_curves, panel.masked_curve, panel.nodes]:
        original = item.setData
        item.setData = lambda *a, _o=original, **k: sets.append(1) or _o(*a, **k)
    before = arc_data(panel)

    window.editor.set_text("我爱北京天安们")  # the last token: row 3 reads the same
    assert panel.is_current and sets == []
    np.testing.assert_array_equal(arc_data(panel)[0], before[0])
    np.testing.assert_array_equal(panel.weights, window.state.result.trace["attn_probs"][0, 3])
    assert panel.label_texts[-1].split("\n")[1] == "们"  # the labels follow the new tokens

    window.editor.set_text("我爱你京天安们")  # token 2: row 3 reads it
    assert sets and panel.is_current
    np.testing.assert_array_equal(panel.weights, window.state.result.trace["attn_probs"][0, 3])
    sets.clear()
    window.state.set_head(1)
    assert sets
    sets.clear()
    window.state.set_causal(False)
    assert sets and panel.masked_keys.size == 0


def test_an_edit_lays_the_caption_out_once(make_window, monkeypatch):
    """The caption (rich text, new numbers every edit) was laid out twice per edit: once in a
    hidden label measuring it with its colour key, once in the caption itself. The caption
    now measures itself as its text is set."""
    from PySide6.QtWidgets import QLabel

    window = make_window(sync=True, text="我爱北京天安门 第1")
    panel = window.panels["attentionDock"]
    window.state.set_query(len(window.state.result.tokens) - 1)  # its row changes per edit
    measured = []
    original = QLabel.heightForWidth

    def height_for_width(label, width):
        if "H = " in label.text():
            measured.append(label.text())
        return original(label, width)

    monkeypatch.setattr(QLabel, "heightForWidth", height_for_width)
    for k in range(2, 6):
        measured.clear()
        window.editor.set_text(f"我爱北京天安门 第{k}")
        assert panel.is_current and panel.caption_key_shown
        assert len(measured) == 1 and measured[0] == panel.caption.text(), k


def test_links_and_nodes_whose_buckets_did_not_change_are_not_set_again(make_window):
    """Arcs and nodes show the weights' buckets, not the weights: a row whose weights move
    within their buckets (most edits of the token under the query) left every curve and the
    nodes as they were yet set them all again — new paths, the view's bounds, a repaint.
    Only what changed is set now."""
    window = make_window(sync=True, text=TEXT)
    panel = window.panels["attentionDock"]
    window.state.set_query(4)
    result = window.state.result
    sets = []
    for item in [*panel.bucket_curves, panel.masked_curve, panel.nodes]:
        original = item.setData
        item.setData = lambda *a, _o=original, _i=item, **k: sets.append(_i) or _o(*a, **k)
    before = arc_data(panel), panel.nodes.data["brush"].tolist()

    panel.redraw_epoch += 1  # drawn again from the start: the same row, the same buckets
    panel.redraw(result)
    assert sets == []
    np.testing.assert_array_equal(arc_data(panel)[0], before[0][0])
    assert panel.nodes.data["brush"].tolist() == before[1]

    sets.clear()
    old = bucket_of(result.trace["attn_probs"][0, 4][:4])
    window.state.set_head(1)  # new weights, the same nodes: restyled in place, not set again
    assert panel.nodes not in sets
    probs = window.state.result.trace["attn_probs"][1, 4]
    assert bucket_of(probs[:4]).tolist() != old.tolist()  # (the fills do change)
    fills = [panel._brushes[k] for k in bucket_of(probs[:4]).tolist()]
    assert [b.color().rgba() for b in panel.nodes.data["brush"][:4]] == [
        b.color().rgba() for b in fills]
    assert panel.nodes.data["brush"][4].color() == QColor(230, 120, 20)  # the query
    assert all(int(i) == k for k, i in enumerate(panel.nodes.data["data"]))  # clicks still

    window.state.set_query(5)  # a new row: every arc moves to the new query, the nodes too
    assert panel.nodes in sets and any(c in sets for c in panel.bucket_curves)
    assert sorted(np.concatenate(panel.edge_keys).tolist()) == [0, 1, 2, 3, 4, 5]
    assert arc_start_keys(panel.masked_curve).tolist() == [6]


def test_the_self_loop_keeps_its_pixel_size_after_a_long_input(make_window):
    """The loop is sized in pixels through the view: after 300 tokens a short input's loop
    was drawn at the long row's scale, a flat ellipse reaching half-way along the row."""
    window = make_window(sync=True, text=" ".join(f"w{i}" for i in range(300)))
    panel = window.panels["attentionDock"]
    window.state.set_query(0)
    window.editor.set_text("我爱 Beijing 天安门 and the Great Wall")
    assert window.state.query == 0 and panel.weights.size == 10
    loop = panel._hover_pts[list(panel._hover_keys).index(0)]  # [S, 2] view units
    vb = panel.plot.getViewBox()
    (x0, x1), _ = vb.viewRange()
    loop_px = (loop[:, 0].max() - loop[:, 0].min()) * vb.width() / (x1 - x0)
    assert loop_px <= 2.5 * LOOP_PX[0]


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("tour", [False, True])
def test_the_caption_stays_clear_of_the_graph_at_1366_by_768(make_window, qtbot, language, tour,
                                                             restore_view):
    """At 1366 x 768 (worse with the tour open) the texts and the graph's least height did
    not fit the dock: the entropy caption was laid over the graph's node labels. The colour
    key now moves to the caption's tooltip when short, so nothing overlaps."""
    window = make_window(sync=True, text="我爱北京天安门", language=language)
    window.resize(1366, 768)
    window.apply_default_layout()
    if tour:
        window.start_tour(0)
    panel = window.panels["attentionDock"]
    qtbot.waitUntil(lambda: panel.isVisible() and panel.is_current)

    def clear():
        def rect(widget):
            return widget.geometry().translated(widget.parentWidget().mapTo(panel, QPoint(0, 0)))

        graph, caption, readout = rect(panel.graph), rect(panel.caption), rect(panel.readout)
        assert graph.height() >= panel.graph.minimumHeight() >= 160
        assert not graph.intersects(caption) and not caption.intersects(readout)
        assert caption.height() >= panel.caption.heightForWidth(caption.width())  # all of it

    qtbot.waitUntil(clear, timeout=10_000)
    assert "H = 1.5332" in panel.caption.text().replace("熵 ", "")
    if not panel.caption_key_shown:
        assert "√" in panel.caption.toolTip()  # the colour key, a hover away
    dock = window.docks["attentionDock"]
    dock.setFloating(True)
    dock.resize(500, 700)  # room: the key stands under the numbers again
    qtbot.waitUntil(lambda: panel.caption_key_shown and "√" in panel.caption.text())
    assert panel.caption.toolTip() == ""


@pytest.mark.parametrize("language", ["en", "zh"])
def test_nothing_is_laid_over_the_graph_at_1280_by_720_with_the_tour_and_the_mask_off(
        make_window, qtbot, language, restore_view):
    """At 1280 x 720 with the tour open, the mask-off stop's red line made the caption five
    lines: even without the colour key the texts and the graph's least height did not fit,
    and the entropy caption was laid over the rotated token labels. The GQA note then goes
    to the head box's tooltip and the graph takes the height that is left."""
    from app.tour import STOPS

    window = make_window(sync=True, text="Attention never reads the future words",
                         language=language)
    window.resize(1280, 720)
    window.apply_default_layout()
    window.start_tour([s.key for s in STOPS].index("causal-off"))
    panel = window.panels["attentionDock"]
    qtbot.waitUntil(lambda: not window.state.causal and panel.isVisible() and panel.is_current
                    and window.state.result.text == STOPS[window.tour.index].text)

    def rect(widget):
        return widget.geometry().translated(widget.parentWidget().mapTo(panel, QPoint(0, 0)))

    # (the tour dock opens and the caption changes under the new mask: let the layout settle)
    qtbot.waitUntil(lambda: rect(panel.caption).height()
                    >= panel.caption.heightForWidth(panel.caption.width()))
    graph, caption, readout = rect(panel.graph), rect(panel.caption), rect(panel.readout)
    assert not graph.intersects(caption) and not caption.intersects(readout)
    assert caption.height() >= panel.caption.heightForWidth(caption.width())  # all of it
    assert graph.height() >= panel.graph.minimumHeight() >= GRAPH_FLOOR_HEIGHT
    if panel.gqa_note.isHidden():  # folded: a hover away on the head box
        assert panel.gqa_note.text() in panel.head_box.toolTip()
    else:
        assert not rect(panel.gqa_note).intersects(graph)
    dock = window.docks["attentionDock"]
    dock.setFloating(True)
    dock.resize(500, 700)  # room: the note and the graph's least height return
    qtbot.waitUntil(lambda: panel.gqa_note.isVisible())
    assert panel.graph.minimumHeight() == GRAPH_MIN_HEIGHT
    assert "GQA" not in panel.head_box.toolTip()


def _label_spans(panel):
    """(left, right) in scene pixels of each token label's text, left to right."""
    item, vb = panel.labels_item, panel.plot.getViewBox()
    spans = []
    for x, y, text, _rgb, rotated in item._labels:
        width, height = item.box(text)
        across = (height if rotated else width) - 2 * item.MARGIN  # the text, not its margins
        at = vb.mapViewToScene(QPointF(x, y)).x()
        spans.append((at - across / 2, at + across / 2))
    return sorted(spans)


@pytest.mark.parametrize("text", [TEXT, "Attention never reads the future tokens"])
def test_token_labels_never_overlap_at_twice_the_text_size(make_window, qtbot, text,
                                                           restore_view):
    """At 2× text on 1366 x 768 the upright labels ("0 / 我 / 0.240") were placed by a fixed
    52 px per token and ran into each other; they stand upright only while the widest fits
    between its neighbours, and rotated labels keep a text line apart."""
    window = make_window(sync=True, text=text)
    window.resize(1366, 768)
    window.apply_default_layout()
    panel = window.panels["attentionDock"]
    for scale in (1.0, 2.0):
        window.state.set_font_scale(scale)
        qtbot.waitUntil(lambda: panel.is_current)
        qtbot.wait(50)
        spans = _label_spans(panel)
        assert len(spans) > 1
        overlaps = [(a, b) for a, b in pairwise(spans) if a[1] > b[0]]
        assert overlaps == [], (scale, overlaps)


def test_arc_memo_returns_arc_points_bitwise_and_reuses_them():
    from app.widgets.attention_arcs import ArcMemo, arc_points

    memo = ArcMemo()
    keys = np.arange(9)
    first = memo.points(keys, 8, 9, 40, (0.2, 0.15))
    assert np.array_equal(first, arc_points(keys, 8, 9, 40, (0.2, 0.15)))
    assert not first.flags.writeable  # shared between redraws: nobody may change it
    assert memo.points(np.arange(9), 8, 9, 40, (0.2, 0.15)) is first  # the next edit's arcs
    # any input of the shape is part of the key: another loop size, query or count is new
    for args in ((keys, 8, 9, 40, (0.3, 0.15)), (keys, 7, 9, 40, (0.2, 0.15)),
                 (keys, 8, 10, 40, (0.2, 0.15)), (keys[:-1], 8, 9, 40, (0.2, 0.15))):
        got = memo.points(*args)
        assert got is not first and np.array_equal(got, arc_points(*args))


def test_every_arc_lies_within_its_curves_bounds_and_follows_the_query(make_window):
    """The arc curves' bounds are the view's range (not measured from their data each edit):
    every drawn point must lie inside them, after a longer and a shorter input too, or Qt
    would not repaint all of an arc. A bucket whose keys stay the same gets new arcs when
    their shape changes: text added after the query leaves its row (and buckets) as they
    were, but the arcs' heights follow the row's new length."""
    from app.widgets.attention_arcs import arc_points, pairs

    window = make_window(sync=True, text=TEXT)
    panel = window.panels["attentionDock"]
    for text, query in ((TEXT, 3), (TEXT + " and more words", 3),
                        (" ".join(f"w{i}" for i in range(40)), 39), (TEXT, 6), (TEXT, 5)):
        window.editor.set_text(text)
        window.state.set_query(query)
        assert panel.is_current
        n = len(window.state.result.tokens)
        samples = 40 if n <= 64 else 24
        for b, curve in enumerate([*panel.bucket_curves, panel.masked_curve]):
            keys = panel.edge_keys[b] if b < N_BUCKETS else panel.masked_keys
            want = pairs(arc_points(keys, query, n, samples, panel._loop))
            x, y = curve.getData()
            np.testing.assert_array_equal(x, want[0], err_msg=f"{text} {query} {b}")
            np.testing.assert_array_equal(y, want[1])
            rect = curve.boundingRect()
            if len(x) == 0:
                assert rect.isEmpty()  # (Qt skips an empty bucket)
                continue
            assert rect.left() <= x.min() and x.max() <= rect.right(), (text, query)
            assert rect.top() <= y.min() and y.max() <= rect.bottom(), (text, query)
