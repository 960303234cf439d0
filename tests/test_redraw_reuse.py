"""What the panels' redraws reuse or skip from one edit to the next (issue #20's T = 512 redraw)
never leaves a stale picture: after each edit the widgets hold what the new result says."""

from itertools import pairwise

import numpy as np
import pytest
from conftest import wait_for_text
from PySide6.QtGui import QColor, QFontMetrics

from app.widgets.diff_bars import (
    ZERO_COLOUR,
    DiffBars,
    abs_diff,
    abs_diff_changed,
    sparse_index_labels,
    sparse_labels,
)
from app.widgets.diff_heatmap import DiffHeatmapView
from app.widgets.heatmap import MAX_TICKS, HeatmapView, _label_widths


def _reference_stride(view: HeatmapView, labels: tuple[str, ...], side: str) -> int:
    """The stride as it was computed one label at a time (the definition the C-speed
    version must keep)."""
    box = view.plot.getViewBox()
    length = box.width() if side == "bottom" else box.height()
    shown = [i for i, text in enumerate(labels) if text]
    if length <= 0 or not shown:
        return 1
    axis = view.plot.getAxis(side)
    metrics = QFontMetrics(axis.style["tickFont"] or axis.font())
    if side == "bottom":
        widest = max(metrics.horizontalAdvance(labels[i]) for i in shown)
        needed = widest + 2 * metrics.horizontalAdvance(" ")
    else:
        needed = metrics.height()
    cells = int(np.ceil(needed / (length / len(labels))))
    spacing = min((b - a for a, b in pairwise(shown)), default=1)
    return 1 if spacing >= cells else spacing * int(np.ceil(cells / spacing))


@pytest.mark.parametrize("n", [1, 7, 40, 41, 300, 512])
def test_label_strides_are_the_one_label_at_a_time_strides(shown_heatmap, n):
    view = shown_heatmap(520, 300)
    rng = np.random.default_rng(n)
    words = [f"{i} {'w' * int(rng.integers(1, 12))}" for i in range(n)]
    cases = [tuple(words), tuple(sparse_labels(words, 12)), tuple(sparse_labels(words, 3)),
             tuple("" for _ in words), tuple(w if i % 7 == 3 else "" for i, w in enumerate(words))]
    for labels in cases:
        for side in ("left", "bottom"):
            assert view._stride(labels, side) == _reference_stride(view, labels, side)
    # a label measured once is remembered under its font: a new text is measured, not missed
    long = (*words[:-1], "x" * 80)
    assert view._stride(long, "bottom") == _reference_stride(view, long, "bottom")
    axis = view.plot.getAxis("bottom")
    assert "x" * 80 in _label_widths[(axis.style["tickFont"] or axis.font()).key()]


def test_label_strides_follow_edits_of_the_labels_a_view_shows(shown_heatmap):
    """The strides' memory of the labels (blanks, widths) follows every kind of change: one
    label, several, a blanked or unblanked one, another length, another font."""
    view = shown_heatmap(520, 300)
    rng = np.random.default_rng(3)
    labels = [f"{i} w{i % 97}" for i in range(300)]
    data = np.zeros((300, 300))
    for step in range(40):
        k = int(rng.integers(0, len(labels)))
        if step % 5 == 1:
            labels[k] = "W" * int(rng.integers(1, 30))  # wider or narrower than the rest
        elif step % 5 == 2:
            labels = sparse_labels(labels, 12) if step % 10 == 2 else [f"{i} x{i}" for i in
                                                                        range(len(labels))]
        elif step % 5 == 3:
            labels = [*labels, f"{len(labels)} more"]  # another length
            data = np.zeros((len(labels), len(labels)))
        else:
            labels[k] = f"{k} edit{step}"
        view.set_matrix(data, (0.0, 1.0), "CET-L17", labels, labels)
        for side, shown in (("left", view.row_labels), ("bottom", view.col_labels)):
            assert shown == tuple(labels)
            assert view._stride(shown, side) == _reference_stride(view, shown, side)
        if step == 20:  # a larger font: every label measured again
            axis = view.plot.getAxis("bottom")
            font = axis.font()
            font.setPointSizeF(font.pointSizeF() * 1.5)
            axis.setStyle(tickFont=font)
            assert view._stride(view.col_labels, "bottom") == _reference_stride(
                view, view.col_labels, "bottom")


def test_sparse_labels_keep_every_stride_th_label_and_blank_the_rest():
    for n in (0, 1, 5, 16, 17, 100, 512):
        labels = [f"{i} t{i}" for i in range(n)]
        for most in (1, 5, 12, 16):
            got = sparse_labels(labels, most)
            kept = [i for i, text in enumerate(got) if text]
            assert len(got) == n and all(got[i] == labels[i] for i in kept)
            if n:
                stride = kept[1] - kept[0] if len(kept) > 1 else n
                assert kept == list(range(0, n, stride))
                assert len(kept) <= max(most, -(-n // max(1, -(-n // MAX_TICKS))))
            assert sparse_labels(tuple(labels), most) == got  # a tuple reads the same
            numbers = [str(i) for i in range(n)]
            assert sparse_index_labels(n, most) == tuple(sparse_labels(numbers, most))


def test_the_log_image_of_the_changed_entries_is_the_log_image_of_all(qtbot):
    view = DiffHeatmapView(map_name="CET-L17", floor=-16.0, zero_colour=QColor(ZERO_COLOUR))
    qtbot.addWidget(view)
    rng = np.random.default_rng(7)
    before = rng.standard_normal((64, 48))
    after = before.copy()
    after[-1] = rng.standard_normal(48)  # an edit of the last token
    after[3, 5], before[3, 5] = 0.0, -0.0  # bits differ, |Δ| is 0: stays at the sentinel
    after[4, :3] = -np.inf
    before[4, :2] = -np.inf  # −∞ against −∞: equal bits; against a number: ∞
    after[5, 7] = before[5, 7] * (1 + 2 ** -52)  # rounding: a tiny non-zero |Δ|
    diff, changed = abs_diff_changed(before, after)
    assert np.array_equal(diff, abs_diff(before, after))
    full, hinted = view.log_image(diff), view.log_image(diff, changed)
    assert hinted.dtype == np.float32 and np.array_equal(full.view(np.uint32),
                                                        hinted.view(np.uint32))
    assert full[3, 5] == view.sentinel and view.floor <= full[5, 7] < -15  # 0 and rounding


def test_zero_bars_follow_the_rows_that_are_zero_and_the_scale(qtbot):
    bars = DiffBars()
    qtbot.addWidget(bars)
    view = DiffHeatmapView(map_name="CET-L17", floor=-16.0, zero_colour=QColor(ZERO_COLOUR))
    qtbot.addWidget(view)
    none = np.zeros(40, dtype=bool)

    def zero_rows():
        return list(bars.zero_item.opts["y"] - 0.5)

    values = np.zeros(40)
    values[-1] = 0.25
    bars.draw(values, (-17.0, 1.0), view.colours_of, none)
    assert zero_rows() == list(range(39))
    values = np.zeros(40)
    values[-1] = 0.5  # another edit of the last token: the same zero rows
    bars.draw(values, (-17.0, 1.0), view.colours_of, none)
    assert zero_rows() == list(range(39))
    values[10] = 1e-16  # a row that is no longer zero
    bars.draw(values, (-17.0, 1.0), view.colours_of, none)
    assert zero_rows() == [r for r in range(39) if r != 10]
    bars.draw(values, (-17.0, 3.0), view.colours_of, none)  # a new scale: a new bar width
    assert np.all(bars.zero_item.opts["width"] == pytest.approx(0.04 * 20.0))
    assert np.all(bars.zero_item.opts["x0"] == -17.0)


def _type(qtbot, window, text):
    window.editor.set_text(text)
    wait_for_text(qtbot, window, text)


def test_an_edit_shows_the_new_tokens_in_the_key_labels_and_the_token_menu(make_window, qtbot):
    window = make_window(sync=True, text="one two three four")
    heatmap, norm = window.panels["heatmapDock"], window.panels["normDock"]
    window.state.set_step("attn_probs")
    for text in ("one two three five", "one six three five", "one six three", "seven six"):
        _type(qtbot, window, text)
        labels = [f"{i} {t}" for i, t in enumerate(window.state.result.shown_tokens)]
        assert list(heatmap.view.col_labels) == labels
        assert list(heatmap.view.row_labels) == labels
        box = norm.token_box
        assert [box.itemText(i) for i in range(box.count())] == [
            f"{i}  {t}" for i, t in enumerate(window.state.result.shown_tokens)]


def test_an_edit_moves_the_depth_panels_dot_and_shows_the_new_states(make_window, qtbot):
    window = make_window(sync=True, text="one two three four")
    depth = window.panels["depthDock"]
    for text in ("one two three five", "one two three five six", "one two"):
        _type(qtbot, window, text)
        result, t = window.state.result, window.state.depth_t
        states = result.depth.at(t)
        assert np.array_equal(depth.view.data, states.astype(np.float32))
        q = min(window.state.query, len(result.tokens) - 1)
        xs, ys = depth.query_dot.getData()
        assert list(xs) == [t] and list(ys) == [float(np.linalg.norm(states[q]))]
    window.state.set_depth_t(0.25)
    xs, ys = depth.query_dot.getData()
    assert list(xs) == [0.25] and ys[0] == float(np.linalg.norm(depth.source[q]))


def test_the_moved_dot_paints_as_a_dot_set_anew(make_window, qtbot):
    window = make_window(sync=True, text="one two three four")
    depth = window.panels["depthDock"]
    _type(qtbot, window, "one two three five")  # the dot moved in place
    moved = depth.norm_plot.grab().toImage()
    xs, ys = depth.query_dot.getData()
    depth.query_dot.setData([float(xs[0])], [float(ys[0])])  # pyqtgraph's own way
    assert depth.norm_plot.grab().toImage() == moved


def test_causality_sentences_follow_the_language(make_window):
    from PySide6.QtCore import QCoreApplication

    from app.verdict import Message

    window = make_window(sync=True)
    words = window.panels["causalityDock"].words
    english = "This is the first input: there is nothing to compare it with yet."
    assert words.render(Message("first_input")) == english
    window.set_language("zh")
    chinese = QCoreApplication.translate("CausalityWords", english)
    assert chinese != english and words.render(Message("first_input")) == chinese
    window.set_language("en")
    assert words.render(Message("first_input")) == english


def _image_pixels(qimage):
    from PySide6.QtGui import QImage

    image = qimage.convertToFormat(QImage.Format.Format_ARGB32_Premultiplied)
    return [[image.pixel(x, y) for x in range(image.width())] for y in range(image.height())]


def test_a_render_renders_the_rows_changed_since_the_last_render(qtbot, monkeypatch):
    """render renders only the rows setImage found changed since the last render; with two
    setImage calls before one render (hidden, or one paint for two edits) the rows of both,
    so no row changed by the first stays stale."""
    from app.widgets.heatmap import FastImageItem

    view = HeatmapView()
    qtbot.addWidget(view)
    rendered: list[int] = []
    real = FastImageItem._pixels_of

    def counted(image, low, high, table):
        rendered.append(image.shape[0])
        return real(image, low, high, table)

    monkeypatch.setattr(FastImageItem, "_pixels_of", staticmethod(counted))

    def fresh(data):
        other = HeatmapView()
        qtbot.addWidget(other)
        other.set_matrix(data, (-1.0, 1.0), "CET-D1", labels)
        other.image.render()
        return _image_pixels(other.image.qimage)

    rng = np.random.default_rng(5)
    data = rng.normal(size=(8, 6))
    labels = [str(i) for i in range(8)]
    view.set_matrix(data, (-1.0, 1.0), "CET-D1", labels)
    view.image.render()
    for edits in ([7], [3], [7, 1]):  # one row, another, two rows at once
        data = data.copy()
        data[edits] = rng.normal(size=(len(edits), 6))
        view.set_matrix(data, (-1.0, 1.0), "CET-D1", labels)
        rendered.clear()
        view.image.render()
        assert rendered == [len(edits)]
        assert _image_pixels(view.image.qimage) == fresh(data)
    data = data.copy()
    data[5] = rng.normal(size=6)
    view.set_matrix(data, (-1.0, 1.0), "CET-D1", labels)  # not rendered ...
    data = data.copy()
    data[2] = rng.normal(size=6)
    view.set_matrix(data, (-1.0, 1.0), "CET-D1", labels)  # ... before this one
    rendered.clear()
    view.image.render()
    assert rendered == [2]  # rows 2 and 5
    assert _image_pixels(view.image.qimage) == fresh(data)
    view.image.render()  # rendered again with nothing set: the same picture
    assert _image_pixels(view.image.qimage) == fresh(data)
