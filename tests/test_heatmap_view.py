"""HeatmapView relabels an axis only when the ticks it shows change."""

from itertools import pairwise

import numpy as np
from PySide6.QtGui import QFontMetrics

from app.widgets.heatmap import MAX_TICKS, HeatmapView


def test_axes_keep_their_ticks_when_only_an_unshown_label_changes(qtbot, monkeypatch):
    view = HeatmapView()
    qtbot.addWidget(view)
    calls = []
    left = view.plot.getAxis("left")
    original = left.setTicks
    monkeypatch.setattr(left, "setTicks", lambda ticks: (calls.append(ticks), original(ticks)))
    n = 4 * MAX_TICKS  # a stride of 4: the last row (the classroom edit) has no tick
    labels = [f"{i} w{i}" for i in range(n)]
    data = np.zeros((n, 3))
    view.set_matrix(data, (-1.0, 1.0), "CET-D1", labels)
    assert len(calls) == 1
    view.set_matrix(data, (-1.0, 1.0), "CET-D1", [*labels[:-1], f"{n - 1} edited"])
    assert len(calls) == 1  # the axis picture is not regenerated for nothing
    assert view.row_labels[-1] == f"{n - 1} edited"  # hover still reads the new label
    view.set_matrix(data, (-1.0, 1.0), "CET-D1", ["0 first", *labels[1:]])
    assert len(calls) == 2 and calls[-1][0][0] == (0.5, "0 first")


def assert_no_two_labels_touch(view, labels, shown):
    """The column labels shown stand at least their widest's width apart on screen."""
    positions = [pos for pos, _text in view._col_ticks[0]]
    axis = view.plot.getAxis("bottom")
    metrics = QFontMetrics(axis.style["tickFont"] or axis.font())
    column = view.plot.getViewBox().width() / len(labels)
    widest = max(metrics.horizontalAdvance(t) for t in shown)
    assert min(b - a for a, b in pairwise(positions)) * column >= widest


def _shown(view):
    return [text for _pos, text in view._col_ticks[0]]


def test_key_token_labels_thin_out_instead_of_overlapping(qtbot):
    view = HeatmapView()
    qtbot.addWidget(view)
    labels = [f"{i} token{i}" for i in range(8)]
    view.set_matrix(np.zeros((8, 8)), (0.0, 1.0), "dv-blues", labels, labels)
    view.resize(1200, 400)
    view.show()
    qtbot.waitExposed(view)
    qtbot.waitUntil(lambda: _shown(view) == labels)  # room for every label
    view.resize(260, 400)  # a narrow dock: ~20 px per column for ~60 px labels
    qtbot.waitUntil(lambda: len(_shown(view)) < len(labels))
    shown = _shown(view)
    assert shown[0] == "0 token0"  # the first stays (it may reach past the plot's left end)
    assert_no_two_labels_touch(view, labels, shown)
    # labels a caller blanked every 3rd keep that grid (every 3rd or a multiple of it)
    sparse = [t if i % 3 == 0 else "" for i, t in enumerate(labels)]
    view.set_matrix(np.zeros((8, 8)), (0.0, 1.0), "dv-blues", labels, sparse)
    assert all(text for text in _shown(view))
    view.resize(1200, 400)
    qtbot.waitUntil(lambda: [t for t in _shown(view) if t] == [t for t in sparse if t])


def test_row_labels_thin_out_in_a_short_plot(qtbot):
    view = HeatmapView()
    qtbot.addWidget(view)
    labels = [f"{i} w{i}" for i in range(30)]
    view.set_matrix(np.zeros((30, 4)), (0.0, 1.0), "dv-blues", labels)
    view.resize(400, 1200)
    view.show()
    qtbot.waitExposed(view)
    qtbot.waitUntil(lambda: len(view._row_ticks[0]) == 30)  # room for all
    view.resize(400, 220)  # ~5 px a row for ~14 px of text
    qtbot.waitUntil(lambda: len(view._row_ticks[0]) < 30)
    axis = view.plot.getAxis("left")
    line = QFontMetrics(axis.style["tickFont"] or axis.font()).height()
    row = view.plot.getViewBox().height() / 30
    positions = [pos for pos, _text in view._row_ticks[0]]
    assert min(b - a for a, b in pairwise(positions)) * row >= line
    assert view._row_ticks[0][0][1] == "0 w0"


def test_a_step_of_tiny_values_paints_without_overflow(make_window):
    import warnings

    from engine import Qwen3Config

    window = make_window(sync=True, text="a b c")
    # rms_norm_eps 1e300 scales the normed steps to ~1e-150: the colour scale 255 / 2m
    # overflowed float32 in pyqtgraph at every paint ("overflow encountered in cast" on stderr)
    window.state.set_model(Qwen3Config(rms_norm_eps=1e300))
    window.state.set_step("input_layernorm")
    panel = window.panels["heatmapDock"]
    assert 0 < np.abs(panel.source).max() < 1e-100
    lo, hi = panel.view.levels
    assert lo == -hi and hi >= 1e-30
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        panel.view.grab()
    assert [str(w.message) for w in caught] == []


def test_numbered_columns_are_whole_numbers_under_their_cells(shown_heatmap, qtbot):
    """Feature numbers stand under cell centres: at the cell edges pyqtgraph's own ticks read
    0, 0.5, 1, ... 4 for a head's 4 features (no feature 0.5, no feature 4)."""
    view = shown_heatmap(900, 300)
    for n in (4, 16, 32, 1024):
        view.set_matrix(np.zeros((3, n)), (-1.0, 1.0), "CET-D1", ["a", "b", "c"])
        qtbot.waitUntil(lambda n=n: view._col_ticks is not None
                        and int(view._col_ticks[0][-1][1]) <= n - 1)
        ticks = view._col_ticks[0]
        assert [pos for pos, _ in ticks] == [int(text) + 0.5 for _, text in ticks]
        assert ticks[0][1] == "0" and int(ticks[-1][1]) <= n - 1
        column = view.plot.getViewBox().width() / n
        axis = view.plot.getAxis("bottom")
        widest = QFontMetrics(axis.style["tickFont"] or axis.font()).horizontalAdvance(
            str(n - 1))
        assert min((b - a for (a, _), (b, _) in pairwise(ticks)), default=n) * column > widest
    view.resize(200, 300)  # narrower: fewer numbers, still whole and centred
    qtbot.waitUntil(lambda: len(view._col_ticks[0]) <= 5)
    assert all(pos == int(text) + 0.5 for pos, text in view._col_ticks[0])


def test_column_labels_thin_within_each_block_so_every_block_shows_its_first(qtbot):
    """All heads side by side: labels thinned over the whole row skipped a head's first
    column (h0:the, h0:mat, h1:sat, …), so a head block could show no label of its own."""
    view = HeatmapView()
    qtbot.addWidget(view)
    heads, keys = 4, 7
    labels = [label for h in range(heads)
              for label in [*(f"h{h}:key{k}" for k in range(keys)), ""]][:-1]
    starts = tuple(h * (keys + 1) for h in range(heads))
    view.set_matrix(np.zeros((keys, len(labels))), (0.0, 1.0), "dv-blues", labels[:keys],
                    labels, col_blocks=starts)
    view.resize(560, 300)  # the default dock at 1366 x 768: room for about every 4th label
    view.show()
    qtbot.waitExposed(view)
    qtbot.waitUntil(lambda: 1 < len(_shown(view)) < len([t for t in labels if t]))
    shown = _shown(view)
    assert [f"h{h}:key0" for h in range(heads)] == [t for t in shown if t.endswith(":key0")]
    assert_no_two_labels_touch(view, labels, shown)  # still none touch
    view.resize(300, 300)  # narrower than one label per block: every other block's first
    qtbot.waitUntil(lambda: 2 <= len(_shown(view)) < heads)
    assert all(text.endswith(":key0") for text in _shown(view))
    assert_no_two_labels_touch(view, labels, _shown(view))


def _pixels(image):
    """A QImage's pixels as premultiplied ARGB32 words, row by row."""
    from PySide6.QtGui import QImage

    image = image.convertToFormat(QImage.Format.Format_ARGB32_Premultiplied)
    return [[image.pixel(x, y) for x in range(image.width())] for y in range(image.height())]


def test_the_image_is_made_in_the_format_qt_draws_fastest_with_pyqtgraphs_colours(qtbot):
    import pyqtgraph as pg
    from PySide6.QtGui import QImage

    from app import palettes

    view = HeatmapView()
    qtbot.addWidget(view)
    # below, inside and above the levels, both ends exactly, NaN (masked)
    data = np.array([[-3.0, -1.0, -0.999, -0.2], [0.0, 0.4999, 1.0, 7.0],
                     [np.nan, 0.25, np.nan, -0.75]])
    view.set_matrix(data, (-1.0, 1.0), "CET-D1", ["a", "b", "c"])
    view.image.render()
    # a scaled draw of Indexed8 (or RGBA8888 where NaN) converts the image on every paint
    assert view.image.qimage.format() == QImage.Format.Format_ARGB32_Premultiplied
    reference = pg.ImageItem(axisOrder="row-major")
    reference.setLookupTable(palettes.lut("CET-D1"))
    reference.setImage(data.astype(np.float32), autoLevels=False, levels=(-1.0, 1.0))
    reference.render()
    assert _pixels(view.image.qimage) == _pixels(reference.qimage)
    assert view.image.qimage.pixel(0, 2) == 0  # masked: transparent, the grey shows through


def test_an_edit_renders_only_the_rows_it_changed_to_the_same_pixels(qtbot, monkeypatch):
    """Editing the last token changes the last row of a T × T map: the other rows keep their
    pixels, and the picture is the one a fresh render makes (NaN rows, −0.0, new levels,
    a new palette and an array changed in place included)."""
    from app.widgets.heatmap import FastImageItem

    view = HeatmapView()
    qtbot.addWidget(view)
    rendered_rows = []
    counting = [True]  # (not the fresh views' renders)
    real = FastImageItem._pixels_of

    def counted(image, low, high, table):
        if counting[0]:
            rendered_rows.append(image.shape[0])
        return real(image, low, high, table)

    monkeypatch.setattr(FastImageItem, "_pixels_of", staticmethod(counted))

    def fresh(data, levels, map_name):
        other = HeatmapView()
        qtbot.addWidget(other)
        other.set_matrix(data, levels, map_name, [str(i) for i in range(len(data))])
        counting[0] = False
        other.image.render()
        counting[0] = True
        return _pixels(other.image.qimage)

    rng = np.random.default_rng(0)
    data = rng.normal(size=(6, 5))
    data[2, 1] = np.nan
    labels = [str(i) for i in range(6)]
    view.set_matrix(data, (-1.0, 1.0), "CET-D1", labels)
    view.image.render()
    assert rendered_rows == [6]
    data = data.copy()
    data[5] = rng.normal(size=5)  # the edited token's row
    data[3, 0] = -0.0 if data[3, 0] == 0.0 else 0.0  # other bits: drawn again
    view.set_matrix(data, (-1.0, 1.0), "CET-D1", labels)
    view.image.render()
    assert rendered_rows[1:] == [2]  # rows 3 and 5; the NaN row keeps its pixels
    assert _pixels(view.image.qimage) == fresh(data, (-1.0, 1.0), "CET-D1")
    view.set_matrix(data, (-2.0, 2.0), "CET-D1", labels)  # new levels: every row
    view.image.render()
    assert rendered_rows[2:] == [6]
    assert _pixels(view.image.qimage) == fresh(data, (-2.0, 2.0), "CET-D1")
    view.set_matrix(data, (-2.0, 2.0), "CET-L2", labels)  # a new palette: every row
    view.image.render()
    assert rendered_rows[3:] == [6]
    shown = view.image.image
    shown[0, 0] = 1.5  # the same array changed in place and set again: its row is redrawn
    view.image.setImage(shown, autoLevels=False, levels=(-2.0, 2.0))
    view.image.render()
    assert rendered_rows[4:] == [1]
    expected = data.copy()
    expected[0, 0] = 1.5
    assert _pixels(view.image.qimage) == fresh(expected, (-2.0, 2.0), "CET-L2")


def _specs(generate, axis):
    """An axis's draw specs as plain values (as FastAxisItem.paint asks for them)."""
    from PySide6.QtGui import QPainter, QPicture

    picture = QPicture()
    painter = QPainter(picture)
    try:
        if axis.style["tickFont"]:
            painter.setFont(axis.style["tickFont"])
        (pen, a, b), ticks, texts = generate(axis, painter)
    finally:
        painter.end()
    return ((pen.color().rgba(), pen.widthF(), a.x(), a.y(), b.x(), b.y()),
            [(p.color().rgba(), p.widthF(), s.x(), s.y(), e.x(), e.y()) for p, s, e in ticks],
            [(r.getRect(), int(flags), text) for r, flags, text in texts]), axis.textWidth, \
        axis.textHeight


def test_token_axes_lay_out_their_labels_as_pyqtgraph_does(shown_heatmap, qtbot, monkeypatch):
    import pyqtgraph as pg

    from app.widgets.token_axis import TokenAxisItem

    pyqtgraphs = pg.AxisItem.generateDrawSpecs

    def same_as_pyqtgraph(axis):
        expected = _specs(pyqtgraphs, axis)
        assert expected[0][2]  # labels are drawn
        with monkeypatch.context() as m:  # without falling back to pyqtgraph's
            m.setattr(pg.AxisItem, "generateDrawSpecs", None)
            assert _specs(TokenAxisItem.generateDrawSpecs, axis) == expected

    view = shown_heatmap(500, 320)
    tokens = ["我", "爱", "北京", "天安门", " ", "第", "12", "a much longer token", "x", ""]
    labels = [f"{i} {t}" for i, t in enumerate(tokens)]
    for edit in ("12", "13", "一个很长的词"):
        labels[-1] = f"9 {edit}"
        view.set_matrix(np.zeros((10, 10)), (-1.0, 1.0), "CET-D1", labels, labels)

        def both_axes():
            for side in ("left", "bottom"):
                axis = view.plot.getAxis(side)
                assert isinstance(axis, TokenAxisItem)
                same_as_pyqtgraph(axis)

        qtbot.waitUntil(both_axes, timeout=10_000)
    # numbered columns, some ticks outside the range shown
    view.set_matrix(np.zeros((3, 40)), (-1.0, 1.0), "CET-D1", ["a", "b", "c"])
    view.plot.getViewBox().setRange(xRange=(5, 30), padding=0)
    qtbot.waitUntil(lambda: same_as_pyqtgraph(view.plot.getAxis("bottom")), timeout=10_000)


def test_a_token_axis_draws_each_label_once_laid_out_with_pyqtgraphs_pixels(shown_heatmap, qtbot):
    """Each label is a QStaticText made once per text, drawn where drawText puts it: the
    pixels of pyqtgraph's recorded picture (Chinese, a space, fractional positions, and a
    label of two lines, which drawText aligns line by line)."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QImage, QPicture

    from app.widgets import token_axis
    from app.widgets.plotting import FastAxisItem

    view = shown_heatmap(503, 317)
    labels = [f"{i} {t}" for i, t in enumerate(["我", "爱", "北京", "天安门", " ", "第", "a\nb",
                                                "12"])]
    view.set_matrix(np.zeros((8, 8)), (-1.0, 1.0), "CET-D1", labels, labels)

    def drawn():
        for side in ("left", "bottom"):
            axis = view.plot.getAxis(side)
            fast = axis.make_picture()
            # (recording the labels' drawText into a QPicture cost as much as drawing them)
            assert not isinstance(fast, QPicture)
            images = []
            for picture in (fast, FastAxisItem.make_picture(axis)):
                images.append(_played(axis, picture))
            assert images[0] == images[1]
            blank = QImage(images[0])
            blank.fill(Qt.GlobalColor.white)
            assert images[0] != blank  # the labels are there

    qtbot.waitUntil(drawn, timeout=10_000)
    # an edit of the last label lays out that label only, on each axis's picture
    made = len(token_axis._static_texts)
    view.set_matrix(np.zeros((8, 8)), (-1.0, 1.0), "CET-D1", [*labels[:-1], "7 13"],
                    [*labels[:-1], "7 13"])
    for side in ("left", "bottom"):
        view.plot.getAxis(side).make_picture()
    assert len(token_axis._static_texts) == made + 1


def _played(axis, picture):
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QImage, QPainter

    image = QImage(600, 400, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.white)
    painter = QPainter(image)
    painter.setTransform(axis.sceneTransform())
    picture.play(painter)
    painter.end()
    return image


def test_an_edited_label_repaints_a_box_that_holds_every_pixel_it_changed(shown_heatmap, qtbot):
    """Where only some labels change, a token axis repaints only their boxes (not its whole
    length, its title and what its box reaches into); every pixel that differs between the
    window before and after lies in those boxes."""
    import numpy as np
    from PySide6.QtCore import QRectF

    view = shown_heatmap(503, 317)
    data = np.zeros((6, 6))
    labels = [f"{i} {t}" for i, t in enumerate(["我", "爱", "北京", "天安门", "第", "1"])]
    view.set_matrix(data, (-1.0, 1.0), "CET-D1", labels, labels, x_title="key token",
                    y_title="token")
    qtbot.wait(50)
    repainted: list[QRectF] = []
    for side in ("left", "bottom"):
        axis = view.plot.getAxis(side)
        real = axis.update

        def update(*rect, axis=axis, real=real):
            whole = axis.boundingRect() if not rect else rect[0]
            repainted.append(axis.mapRectToScene(whole))
            real(*rect)

        axis.update = update
    # (a label that widens the axis's text, or thins the labels shown, repaints the axis)
    for edit, boxes_only in (("5 12", True), ("5 13", True), ("5 一个很长的词", False),
                             ("5 x", False), ("5 y", True)):
        before = view.grab().toImage()
        repainted.clear()
        view.set_matrix(data, (-1.0, 1.0), "CET-D1", [*labels[:-1], edit],
                        [*labels[:-1], edit], x_title="key token", y_title="token")
        after = view.grab().toImage()
        assert len(repainted) == 2
        assert boxes_only == all(r.width() < 100 and r.height() < 40 for r in repainted)
        for side in ("left", "bottom"):  # the picture kept draws what a new one draws
            axis = view.plot.getAxis(side)
            assert _played(axis, axis.picture) == _played(axis, axis.make_picture())
        changed = [(x, y) for y in range(after.height()) for x in range(after.width())
                   if before.pixel(x, y) != after.pixel(x, y)]
        assert changed  # the label did change
        boxes = [view.mapFromScene(r).boundingRect() for r in repainted]
        assert all(any(box.contains(x, y) for box in boxes) for x, y in changed)


def test_an_edit_repaints_only_the_rows_it_changed_and_every_pixel_they_changed(shown_heatmap,
                                                                                  qtbot):
    """An edit of the last token changes the last row: only its rows are repainted (not the
    whole view box), and every pixel that differs lies in them; new levels repaint it all."""
    from PySide6.QtCore import QRectF

    view = shown_heatmap(503, 317)
    rng = np.random.default_rng(1)
    data = rng.normal(size=(7, 9))
    labels = [str(i) for i in range(7)]
    view.set_matrix(data, (-2.0, 2.0), "CET-D1", labels)
    qtbot.wait(50)
    image = view.image
    repainted: list[QRectF] = []
    real = type(image).__mro__[2].update  # (pg.ImageItem's: what Qt is asked to repaint)

    def update(self, *rect):
        repainted.append(self.mapRectToScene(rect[0] if rect else self.boundingRect()))
        real(self, *rect)

    import pyqtgraph as pg

    pg.ImageItem.update = update
    try:
        for rows, levels in (([6], (-2.0, 2.0)), ([2, 4], (-2.0, 2.0)), ([], (-2.0, 2.0)),
                             ([6], (-3.0, 3.0))):
            before = view.grab().toImage()
            repainted.clear()
            data = data.copy()
            data[rows] = rng.normal(size=(len(rows), 9))
            view.set_matrix(data, levels, "CET-D1", labels)
            after = view.grab().toImage()
            whole = image.mapRectToScene(image.boundingRect())
            if not rows:
                assert repainted == []  # nothing changed: nothing repainted
                continue
            assert len(repainted) == 1
            box = repainted[0]
            if levels == (-3.0, 3.0):
                assert box == whole  # (and the colour bar repaints its own labels)
                continue
            # the rows from the first to the last changed
            assert box.height() == whole.height() * (rows[-1] - rows[0] + 1) / 7
            changed = [(x, y) for y in range(after.height()) for x in range(after.width())
                       if before.pixel(x, y) != after.pixel(x, y)]
            assert changed
            # (what Qt repaints: the box on screen, out to whole pixels)
            device = view.viewportTransform().mapRect(box).toAlignedRect()
            assert all(device.contains(x, y) for x, y in changed)
    finally:
        pg.ImageItem.update = real
