"""Presentation mode: text size for every widget, axis and label, and thicker plot lines.

Widgets follow the application font, so scaling it scales every label, menu, tree and button
that does not pin its own size. pyqtgraph draws its own text (tick labels, axis titles, text
items) and lines, so :func:`style_plots` walks the scene of every plot under a widget and sets
them from the *unscaled* size each item had when first seen (remembered on the item), so applying
twice never compounds. The main window calls it when the scale changes and after every panel
redraw (panels may create new items when they redraw); an item already styled for this scale
and untouched since is skipped, so a redraw restyles only what it made or changed.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtGui import QColor, QFont, QPen
from PySide6.QtWidgets import QApplication, QWidget

#: Tick labels and axis titles at scale 1 (points), like pyqtgraph's defaults on most systems.
BASE_TICK_PT = 9.0
BASE_LABEL_PT = 10.0
#: Presentation mode: the text scale it starts at, and how much thicker lines get.
PRESENTATION_SCALE = 1.5
PRESENTATION_LINE_FACTOR = 2.0

#: Below this much screen (logical pixels, width or height) presentation mode shows one dock
#: per column, the others as tabs behind it: at 1.5× text, six docks on a 1280 × 800 projector
#: or a 1366 × 768 laptop overlapped their own text and squeezed plots into strips.
COMPACT_BELOW = (1600, 900)
#: ... and its text scale there: at 1.5× three columns of panels still squeezed their plots.
COMPACT_PRESENTATION_SCALE = 1.25

_BASE_FONT_PROPERTY = "dualview_base_font"


def compact_screen(width: int, height: int) -> bool:
    """Whether a screen of this available size gets presentation mode's one-dock columns."""
    return width < COMPACT_BELOW[0] or height < COMPACT_BELOW[1]


def base_app_font() -> QFont:
    """The application font before any scaling (remembered the first time it is asked)."""
    app = QApplication.instance()
    stored = app.property(_BASE_FONT_PROPERTY)
    if isinstance(stored, QFont):
        return QFont(stored)
    base = QFont(app.font())
    app.setProperty(_BASE_FONT_PROPERTY, base)
    return QFont(base)


def scaled_font(scale: float, base_pt: float | None = None) -> QFont:
    font = base_app_font()
    size = base_pt if base_pt is not None else (font.pointSizeF() if font.pointSizeF() > 0
                                                else 10.0)
    font.setPointSizeF(max(size * scale, 4.0))
    return font


def apply_app_font(scale: float) -> None:
    """Scale the application font (every widget that does not pin its own size follows)."""
    app = QApplication.instance()
    font = scaled_font(scale)
    if app.font() != font:  # setting an equal font still re-lays-out every widget
        app.setFont(font)


def _remember(item: object, name: str, current: object) -> object:
    """The value ``item`` had before we first touched ``name`` (stored on the item)."""
    key = f"_dv_base_{name}"
    if not hasattr(item, key):
        setattr(item, key, current)
    return getattr(item, key)


def _scale_pen(item: object, pen: QPen, factor: float) -> QPen | None:
    """A copy of ``pen`` with its remembered base width times ``factor`` (None: unchanged)."""
    applied = getattr(item, "_dv_applied_width", None)
    width = pen.widthF()
    if applied is not None and abs(width - applied) > 1e-9:
        # the panel set a new pen since: that is the new base
        item._dv_base_width = width  # type: ignore[attr-defined]
    base = _remember(item, "width", width)
    target = max(float(base), 1.0) * factor if factor != 1.0 else float(base)
    if abs(target - width) < 1e-9:
        item._dv_applied_width = width  # type: ignore[attr-defined]
        return None
    new = QPen(pen)
    new.setWidthF(target)
    item._dv_applied_width = target  # type: ignore[attr-defined]
    return new


def _axis_current(axis: pg.AxisItem, key: tuple[object, ...]) -> bool:
    """``axis`` carries the style ``key`` asks for, untouched since it was applied (a panel
    that set another font, label style or size since gets it applied again)."""
    done = getattr(axis, "_dv_done", None)
    return (done is not None and done[0] == key
            and done[1:] == (axis.style.get("tickFont"), axis.labelStyle.get("font-size"),
                             axis.fixedWidth, axis.fixedHeight))


def style_axis(axis: pg.AxisItem, scale: float, foreground: QColor | None = None) -> None:
    tick_font = scaled_font(scale, BASE_TICK_PT)
    axis.setTickFont(tick_font)
    axis.labelStyle["font-size"] = f"{BASE_LABEL_PT * scale:.1f}pt"
    if foreground is not None:
        axis.setPen(foreground)
        axis.setTextPen(foreground)
        axis.labelStyle["font-size"] = f"{BASE_LABEL_PT * scale:.1f}pt"  # setPen resets style
    axis._updateLabel()
    base_width = _remember(axis, "fixed_width", axis.fixedWidth)
    base_height = _remember(axis, "fixed_height", axis.fixedHeight)
    if base_width is not None:
        axis.setWidth(int(base_width * max(scale, 1.0)))
    if base_height is not None:
        axis.setHeight(int(base_height * max(scale, 1.0)))
    key = (scale, None if foreground is None else foreground.rgba())
    axis._dv_done = (key, axis.style.get("tickFont"),  # type: ignore[attr-defined]
                     axis.labelStyle.get("font-size"), axis.fixedWidth, axis.fixedHeight)


def style_plots(root: QWidget, scale: float, line_factor: float = 1.0,
                foreground: QColor | None = None) -> int:
    """Apply the text scale (and line factor, and foreground colour if given) to every
    pyqtgraph item under ``root``. Returns how many items were touched."""
    touched = 0
    axis_key = (scale, None if foreground is None else foreground.rgba())
    for view in root.findChildren(pg.GraphicsView):
        scene = view.scene()
        if scene is None:
            continue
        for item in scene.items():
            # an item already styled so and untouched since is skipped: panels are restyled
            # after every redraw (for the items they made anew), and setting an axis's font
            # again re-laid it out, on every edit at a text size other than 1
            if isinstance(item, pg.AxisItem):
                if _axis_current(item, axis_key):
                    continue
                style_axis(item, scale, foreground)
            elif isinstance(item, pg.TextItem):
                if getattr(item, "_dv_done", None) == (scale, item.textItem.font()):
                    continue
                base = _remember(item, "font", QFont(item.textItem.font()))
                font = QFont(base)  # type: ignore[arg-type]
                size = font.pointSizeF() if font.pointSizeF() > 0 else BASE_TICK_PT
                font.setPointSizeF(size * scale)
                item.setFont(font)
                item._dv_done = (scale, item.textItem.font())  # type: ignore[attr-defined]
            elif isinstance(item, pg.LabelItem):
                base = _remember(item, "size", item.opts.get("size"))
                pt = float(str(base).removesuffix("pt")) if base else BASE_LABEL_PT
                size = f"{pt * scale:.1f}pt"
                if item.opts.get("size") == size and getattr(item, "_dv_done", None) == (
                        scale, item.text):
                    continue
                item.setText(item.text, size=size)
                item._dv_done = (scale, item.text)  # type: ignore[attr-defined]
            elif isinstance(item, pg.PlotCurveItem):
                pen = _scale_pen(item, QPen(item.opts["pen"]), line_factor)
                if pen is not None:
                    item.setPen(pen)
            elif isinstance(item, pg.InfiniteLine):
                pen = _scale_pen(item, QPen(item.pen), line_factor)
                if pen is not None:
                    item.setPen(pen)
            else:
                continue
            touched += 1
    return touched
