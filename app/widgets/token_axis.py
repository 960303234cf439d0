"""The token axis of a heatmap: given labels laid out as pyqtgraph lays them out, each drawn
from a QStaticText made once per text, and an edit of a label repainting only that label.
"""

from __future__ import annotations

from collections.abc import Callable

from pyqtgraph import debug
from PySide6.QtCore import QLineF, QPointF, QRect, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPen, QPicture, QStaticText, QTransform

from app.widgets.plotting import FastAxisItem

#: Labels remembered (sizes, static texts) before the memory is emptied (long sessions).
_LABELS_MAX = 1 << 14

#: (font key, label) -> the label's box (width, height) as QPainter.boundingRect gives it
_text_sizes: dict[tuple[str, str], tuple[float, float]] = {}
#: (font key, label) -> the label laid out once (None: a label of several lines, which
#: drawText aligns line by line and a QStaticText does not)
_static_texts: dict[tuple[str, str], QStaticText | None] = {}

_LEFT_TEXT = (Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
              | Qt.TextFlag.TextDontClip)
_BOTTOM_TEXT = (Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop
                | Qt.TextFlag.TextDontClip)


def _text_size(p: QPainter, font_key: str, text: str) -> tuple[float, float]:
    """A label's box in ``p``'s font, as pyqtgraph's AxisItem measures it (before it takes
    80 % of the height), remembered: an edit changes one label of a token axis."""
    size = _text_sizes.get((font_key, text))
    if size is None:
        if len(_text_sizes) > _LABELS_MAX:
            _text_sizes.clear()
        box = p.boundingRect(QRectF(0, 0, 100, 100), Qt.AlignmentFlag.AlignCenter, text)
        size = _text_sizes[(font_key, text)] = (box.width(), box.height())
    return size


def _static_text(font: QFont, font_key: str, text: str) -> QStaticText | None:
    """``text`` laid out once in ``font``, drawn as drawText draws it from the top left of the
    box drawText puts it in (tests/test_heatmap_view.py compares the pixels)."""
    key = (font_key, text)
    if key in _static_texts:
        return _static_texts[key]
    if len(_static_texts) > _LABELS_MAX:
        _static_texts.clear()
    static = None
    if len(text.splitlines()) <= 1:
        static = QStaticText(text)
        static.setTextFormat(Qt.TextFormat.PlainText)
        static.prepare(QTransform(), font)
    _static_texts[key] = static
    return static


def _measurer(font: QFont, font_key: str) -> tuple[Callable[[str], tuple[float, float]],
                                                    Callable[[], None]]:
    """A label measurer for ``font`` (remembered sizes; a new label measured as pyqtgraph
    measures it, on a QPicture painter made once needed) and what ends that painter."""
    measuring: list = []

    def measure(text: str) -> tuple[float, float]:
        size = _text_sizes.get((font_key, text))
        if size is not None:
            return size
        if not measuring:
            measuring.append(QPicture())
            measuring.append(QPainter(measuring[0]))
            measuring[1].setFont(font)
        return _text_size(measuring[1], font_key, text)

    def done() -> None:
        if measuring:
            measuring[1].end()

    return measure, done


class _LabelsPicture:
    """A token axis as plain values, drawn straight onto the painter it is played on: the
    axis line, the ticks in one drawLines, each label a QStaticText made once per text, at
    the spot drawText would put it. Recording labels into a QPicture cost as much as drawing
    them, and drawText lays each label out again on every paint."""

    def __init__(self, font: QFont, axis_pen: QPen, axis_line: QLineF, tick_pen: QPen,
                 ticks: list[QLineF], text_pen: QPen, clip: QRect,
                 labels: list[tuple[QPointF, QStaticText | None, QRectF, int, str]]) -> None:
        self.font, self.axis_pen, self.axis_line = font, axis_pen, axis_line
        self.tick_pen, self.ticks, self.text_pen = tick_pen, ticks, text_pen
        self.clip, self.labels = clip, labels
        #: what TokenAxisItem needs to put other labels at the same ticks (see _relabelled)
        self.context: tuple | None = None

    def play(self, p: QPainter) -> None:
        p.save()
        try:  # (what pyqtgraph's AxisItem.drawPicture does, in its order)
            p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
            p.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
            p.setPen(self.axis_pen)
            p.drawLine(self.axis_line)
            if self.ticks:
                p.setPen(self.tick_pen)
                p.drawLines(self.ticks)
            p.setFont(self.font)
            p.setPen(self.text_pen)
            p.setClipRect(self.clip)
            for at, static, rect, flags, text in self.labels:
                if static is not None:
                    p.drawStaticText(at, static)
                else:
                    p.drawText(rect, flags, text)
        finally:
            p.restore()


#: Pixels around a label's text box that its glyphs may reach (overhangs, antialiasing).
_GLYPH_REACH = 3.0


def _changed_box(before: _LabelsPicture, after: _LabelsPicture) -> QRectF | None:
    """The box (item coordinates) holding every label that differs between two pictures of
    one axis, before and after; None unless everything else (lines, ticks, pens, font, the
    number of labels) is the same, or where a label is drawn by drawText."""
    if (before.font != after.font or before.axis_line != after.axis_line
            or before.ticks != after.ticks or before.clip != after.clip
            or before.axis_pen != after.axis_pen or before.tick_pen != after.tick_pen
            or before.text_pen != after.text_pen or len(before.labels) != len(after.labels)):
        return None
    box = QRectF()
    for old, new in zip(before.labels, after.labels, strict=True):
        if old[0] == new[0] and old[4] == new[4]:
            continue
        for at, static, rect, _flags, _text in (old, new):
            if static is None:
                return None
            box |= (QRectF(at, static.size()) | rect).adjusted(
                -_GLYPH_REACH, -_GLYPH_REACH, _GLYPH_REACH, _GLYPH_REACH)
    return box


class TokenAxisItem(FastAxisItem):
    """The left or bottom axis of a heatmap, whose ticks are always given (token labels,
    column numbers). Each change of a label drops the axis picture, and pyqtgraph's general
    ``generateDrawSpecs`` (automatic ticks, grids, several levels, text-fill limits) spent
    ~1.3 ms of Python per picture on ten labels, measuring every label again, and drawText
    laid every label out again. This one lays out given ticks of one level as pyqtgraph does
    (the same positions, boxes and flags: tests/test_heatmap_view.py compares them) from
    remembered label sizes, remembers each label's place until the axis's size, range or
    font change (an edit places the one label it changed), and draws each label from a
    QStaticText made once per text (the same pixels); any other case is pyqtgraph's."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        #: what the remembered places hold for (size, range, font, offsets)
        self._places_key: tuple | None = None
        #: (tick value, label) -> (tick start, tick end, the label's size across the axis,
        #: (box, text, full height, top left of the text) or None where the box sticks out)
        self._places: dict[tuple[float, str], tuple] = {}
        super().__init__(*args, **kwargs)

    def setTicks(self, ticks: list | None) -> None:
        """pyqtgraph's, but where only some labels change (an edit's last token), only their
        boxes are repainted: a repaint of the whole axis also repainted its title and
        whatever its box reaches into (~0.4 ms per edit for a heatmap's two axes)."""
        before = self.picture
        sizes = (self.textWidth, self.textHeight, self.minimumSize(), self.maximumSize())
        self._tickLevels = ticks
        self.picture = None
        if (isinstance(before, _LabelsPicture) and self.scene() is not None
                and self.isVisible()):  # (a hidden axis makes its picture when shown)
            relabelled = self._relabelled(before, ticks)
            if relabelled is not None:
                self.picture, changed = relabelled
                self._picture_version += 1
                if not changed.isEmpty():
                    self.update(changed)
                return
            after = self.make_picture()
            sized = (self.textWidth, self.textHeight, self.minimumSize(), self.maximumSize())
            changed = (_changed_box(before, after) if isinstance(after, _LabelsPicture)
                       and sized == sizes else None)
            if changed is not None:
                self.picture = after
                self._picture_version += 1
                if not changed.isEmpty():
                    self.update(changed)
                return
        self.update()

    @debug.warnOnException  # an exception escaping a paint() takes Qt down
    def paint(self, p: QPainter, opt: object, widget: object) -> None:
        if self.picture is None:
            self.picture = self.make_picture()
            self._picture_version += 1
        if isinstance(self.picture, _LabelsPicture):
            # the labels' static texts draw in less time than a raster of them is made or
            # its key checked: an edit's changed axis is painted once or twice
            self.picture.play(p)
        else:
            super().paint(p, opt, widget)

    def make_picture(self) -> _LabelsPicture | QPicture:
        # (no tick font: pyqtgraph measures and draws in the painter's, the application's)
        font = QFont(self.style["tickFont"] or QFont())
        font_key = font.key()
        measure, done = _measurer(font, font_key)
        try:
            layout = self._lay_out(font_key, measure)
        finally:
            done()
        if layout is None:
            return QPicture()
        if layout is NotImplemented:
            return super().make_picture()
        (pen, start, end), tick_pen, ticks, texts, left, context = layout
        flags = int(_LEFT_TEXT if left else _BOTTOM_TEXT)
        labels = [(at, _static_text(font, font_key, text), rect, flags, text)
                  for rect, text, _h, at in texts]
        picture = _LabelsPicture(font, pen, QLineF(start, end), tick_pen,
                                 [QLineF(a, b) for a, b in ticks], self.textPen(),
                                 self.boundingRect().toAlignedRect(), labels)
        picture.context = (font, font_key, *context)
        return picture

    def _relabelled(self, before: _LabelsPicture,
                    ticks: list | None) -> tuple[_LabelsPicture, QRectF] | None:
        """``before`` with the labels ``ticks`` gives at the same tick values (an edit of a
        token), and the box holding every label that changed; None where anything else
        changes (the values, the longest label's size, a label drawText draws), or the
        remembered places were dropped: then the picture is made again."""
        if before.context is None or not ticks or any(ticks[1:]):
            return None
        font, font_key, key, values, texts, places, params, longest = before.context
        new = ticks[0]
        if (key != self._places_key or len(new) != len(values)
                or len(self._places) > 4 * len(values) + 64
                or any(v != w for (v, _t), w in zip(new, values, strict=True))):
            return None
        scale, offset, axis, tick_stop, tick_reach, text_offset, left, frame = params
        measure, done = _measurer(font, font_key)
        new_places, box = list(places), QRectF()
        try:
            for i, (value, text) in enumerate(new):
                old = places[i]
                if text == texts[i] or not old:  # (a tick out of range stays out)
                    continue
                place = self._places.get((value, text))
                if place is None:
                    place = self._places[(value, text)] = self._place(
                        value * scale - offset, text, axis, tick_stop, tick_reach,
                        text_offset, left, frame, measure)
                new_places[i] = place
                for spec in (old[3], place[3]):
                    if spec is None:
                        continue
                    static = _static_text(font, font_key, spec[1])
                    if static is None:
                        return None
                    box |= (QRectF(spec[3], static.size()) | spec[0]).adjusted(
                        -_GLYPH_REACH, -_GLYPH_REACH, _GLYPH_REACH, _GLYPH_REACH)
        finally:
            done()
        if max((place[2] for place in new_places if place), default=0) != longest:
            return None  # (the axis may take another size)
        flags = int(_LEFT_TEXT if left else _BOTTOM_TEXT)
        after = _LabelsPicture(font, before.axis_pen, before.axis_line, before.tick_pen,
                               before.ticks, before.text_pen, before.clip,
                               [(spec[3], _static_text(font, font_key, spec[1]), spec[0],
                                 flags, spec[1])
                                for place in new_places if place and place[3] is not None
                                for spec in (place[3],)])
        after.context = (font, font_key, key, values, tuple(t for _v, t in new),
                         tuple(new_places), params, longest)
        return after, box

    def generateDrawSpecs(self, p: QPainter) -> tuple | None:
        if self.style["tickFont"] is not None:
            p.setFont(self.style["tickFont"])
        font_key = p.font().key()
        layout = self._lay_out(font_key, lambda text: _text_size(p, font_key, text))
        if layout is NotImplemented:
            return super().generateDrawSpecs(p)
        if layout is None:
            return None
        axis_spec, tick_pen, ticks, texts, left, _context = layout
        flags = _LEFT_TEXT if left else _BOTTOM_TEXT
        return (axis_spec, [(tick_pen, a, b) for a, b in ticks],
                [(rect, flags, text) for rect, text, _h, _at in texts])

    def _lay_out(self, font_key: str,
                 measure: Callable[[str], tuple[float, float]]) -> tuple | None:
        """The axis line (pen, start, end), the ticks' pen, the ticks (start, end), the labels
        (box, text, the text's full height, the text's top left) and whether this is a left
        axis; None where pyqtgraph draws nothing, NotImplemented for any case but given ticks
        of one level on a left or bottom axis."""
        levels, style = self._tickLevels, self.style
        if (levels is None or not levels or any(levels[1:]) or self.grid is not False
                or self.orientation not in ("left", "bottom") or not style["showValues"]
                or style["maxTextLevel"] < 0 or style["tickAlpha"] is not None
                or tuple(style["stopAxisAtTick"]) != (False, False)):
            return NotImplemented
        bounds = self.mapRectFromParent(self.geometry())
        left = self.orientation == "left"
        if left:
            span = (bounds.topRight() + QPointF(-1.0, -1.0),
                    bounds.bottomRight() + QPointF(-1.0, 1.0))
            tick_stop, tick_dir, axis = bounds.right(), -1, 0
        else:
            span = (bounds.topLeft() + QPointF(-1.0, 1.0),
                    bounds.topRight() + QPointF(1.0, 1.0))
            tick_stop, tick_dir, axis = bounds.top(), 1, 1
        to_device = self.deviceTransform_()  # (as mapToDevice does, once)
        if to_device is None or to_device.map(span[0]) == to_device.map(span[1]):
            return None
        low, high = self.range
        dif = high - low
        if dif == 0:
            scale, offset = 1, 0
        elif left:
            scale = -bounds.height() / dif
            offset = low * scale - bounds.height()
        else:
            scale = bounds.width() / dif
            offset = low * scale
        ends = [x * scale - offset for x in self.range]
        x_min, x_max = min(ends), max(ends)
        tick_length = style["tickLength"]
        tick_pen = self.tickPen()
        if tick_pen.brush().style() == Qt.BrushStyle.SolidPattern:
            tick_pen = QPen(tick_pen)
            colour = QColor(tick_pen.color())
            colour.setAlpha(255)
            tick_pen.setColor(colour)
        frame = self.boundingRect()
        text_offset = max(0, tick_length) + style["tickTextOffset"][axis]
        key = (bounds.getRect(), frame.getRect(), low, high, font_key, tick_length,
               text_offset, left)
        if key != self._places_key or len(self._places) > 4 * len(levels[0]) + 64:
            self._places_key = key
            self._places = {}
        places = self._places
        ticks, texts, sizes, placed = [], [], [], []
        for value, text in levels[0]:
            place = places.get((value, text))
            if place is None:
                x = value * scale - offset
                if x < x_min or x > x_max:
                    place = places[(value, text)] = ()
                else:
                    place = places[(value, text)] = self._place(
                        x, text, axis, tick_stop, tick_length * tick_dir, text_offset, left,
                        frame, measure)
            placed.append(place)
            if place:
                start, end, size, spec = place
                ticks.append((start, end))
                sizes.append(size)
                if spec is not None:
                    texts.append(spec)
        longest = max(sizes, default=0)
        self._updateMaxTextSize(longest)
        context = (key, tuple(v for v, _t in levels[0]), tuple(t for _v, t in levels[0]),
                   tuple(placed), (scale, offset, axis, tick_stop, tick_length * tick_dir,
                                   text_offset, left, frame), longest)
        return (self.pen(), span[0], span[1]), tick_pen, ticks, texts, left, context

    @staticmethod
    def _place(x: float, text: str, axis: int, tick_stop: float, tick_reach: float,
               text_offset: float, left: bool, frame: QRectF,
               measure: Callable[[str], tuple[float, float]]) -> tuple:
        """One label's tick (start, end), its size across the axis, and its (box, text, full
        height, the text's top left), or None where pyqtgraph leaves it out."""
        start, end = [x, x], [x, x]
        start[axis] = end[axis] = tick_stop
        end[axis] += tick_reach
        width, full_height = measure(text)
        height = full_height * 0.8  # (pyqtgraph: "boundingRect is usually a bit too large")
        if left:
            rect = QRectF(tick_stop - text_offset - width, x - height / 2, width, height)
            # (drawText centres the text's full height on the box)
            at = QPointF(rect.x(), rect.y() + (rect.height() - full_height) / 2)
        else:
            rect = QRectF(x - width / 2, tick_stop + text_offset, width, height)
            at = rect.topLeft()
        # (pyqtgraph's test: contains() rounds differently)
        spec = (rect, text, full_height, at) if frame & rect == rect else None
        return QPointF(*start), QPointF(*end), height if axis else width, spec


def token_axes() -> dict[str, TokenAxisItem]:
    """``axisItems`` for a heatmap's plot (see :func:`app.widgets.plotting.fast_axes`)."""
    return {name: TokenAxisItem(name) for name in ("left", "bottom", "right", "top")}
