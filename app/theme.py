"""Light and dark themes: the Qt palette and pyqtgraph's colours.

No application style sheet: restyling every widget through one costs most of a second per
switch, and the palette already says everything a theme needs.

pyqtgraph reads its background and foreground when a plot is created, so :func:`apply_theme`
sets the config for future plots and repaints the ones that exist (background of every view,
pen and text of every axis). Heatmap colours come from the palette (``app.palettes``), not
the theme: a colour map means the same thing on either background.
"""

from __future__ import annotations

import gc

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QLabel, QStyleFactory, QWidget

#: theme -> colour of error text in the status bar
ERROR_COLOURS: dict[str, str] = {"light": "#b00020", "dark": "#ff6b6b"}
#: theme -> (plot background, plot foreground)
PLOT_COLOURS: dict[str, tuple[str, str]] = {
    "light": ("#ffffff", "#000000"),
    "dark": ("#1e1f22", "#d8d8d8"),
}
#: how far quiet text (captions, legends, "not yet" notes) sits from the text colour toward
#: the window colour: about WCAG 4.5:1 against the window in both themes
QUIET_MIX = 0.45
#: contrast (WCAG ratio) that :func:`ink` guarantees for coloured text against the window
INK_CONTRAST = 4.5
#: theme -> background of a highlighted note (text stays the palette's text colour)
NOTE_BACKGROUNDS: dict[str, str] = {"light": "#fff4e0", "dark": "#4a3a1c"}
#: caveat text under an analogy (brown on the light theme; :func:`ink` lightens it on dark)
CAVEAT = "#7a4a00"
#: widget property holding the colour given to :func:`set_ink`, made again on a theme switch
INK_PROPERTY = "dualview_ink"


def dark_palette() -> QPalette:
    p = QPalette()
    window, base, text = QColor("#2b2d31"), QColor("#1e1f22"), QColor("#e6e6e6")
    disabled = QColor("#7a7a7a")
    roles = {
        QPalette.ColorRole.Window: window,
        QPalette.ColorRole.WindowText: text,
        QPalette.ColorRole.Base: base,
        QPalette.ColorRole.AlternateBase: QColor("#26282c"),
        QPalette.ColorRole.ToolTipBase: QColor("#3a3d42"),
        QPalette.ColorRole.ToolTipText: text,
        QPalette.ColorRole.Text: text,
        QPalette.ColorRole.Button: QColor("#33363b"),
        QPalette.ColorRole.ButtonText: text,
        QPalette.ColorRole.BrightText: QColor("#ff6b6b"),
        QPalette.ColorRole.Link: QColor("#6cb4ff"),
        QPalette.ColorRole.Highlight: QColor("#2f6fb3"),
        QPalette.ColorRole.HighlightedText: QColor("#ffffff"),
        QPalette.ColorRole.Light: QColor("#45484e"),
        QPalette.ColorRole.Midlight: QColor("#3a3d42"),
        QPalette.ColorRole.Mid: QColor("#2f3236"),
        QPalette.ColorRole.Dark: QColor("#18191b"),
        QPalette.ColorRole.Shadow: QColor("#000000"),
    }
    for role, colour in roles.items():
        p.setColor(role, colour)
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText,
                 QPalette.ColorRole.WindowText):
        p.setColor(QPalette.ColorGroup.Disabled, role, disabled)
    return _with_quiet_placeholder(p)


def current_theme() -> str:
    """The theme the application shows now ("light" until :func:`apply_theme` says otherwise)."""
    app = QApplication.instance()
    theme = app.property("dualview_theme") if app is not None else None
    return str(theme) if theme else "light"


def luminance(colour: QColor) -> float:
    """WCAG relative luminance of an opaque colour."""
    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    return (0.2126 * channel(colour.redF()) + 0.7152 * channel(colour.greenF())
            + 0.0722 * channel(colour.blueF()))


def contrast_ratio(a: QColor, b: QColor) -> float:
    """WCAG contrast ratio of two opaque colours, 1 (same) to 21 (black on white)."""
    la, lb = luminance(a), luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def blend(a: QColor, b: QColor, t: float) -> QColor:
    """``a`` moved a fraction ``t`` of the way to ``b`` (opaque)."""
    return QColor.fromRgbF(a.redF() + (b.redF() - a.redF()) * t,
                           a.greenF() + (b.greenF() - a.greenF()) * t,
                           a.blueF() + (b.blueF() - a.blueF()) * t)


def quiet_colour(palette: QPalette | None = None) -> QColor:
    """Secondary text: the palette's text colour blended toward its window colour. Opaque, so
    it reads the same wherever it is painted (Qt's light placeholder is half-transparent black)."""
    palette = palette or QApplication.palette()
    return blend(palette.color(QPalette.ColorRole.WindowText),
                 palette.color(QPalette.ColorRole.Window), QUIET_MIX)


def quiet_css() -> str:
    """:func:`quiet_colour` of the current palette, for rich text and style sheets."""
    return quiet_colour().name()


def make_quiet(label: QLabel) -> None:
    """Draw ``label`` in quiet text. The palette's placeholder role holds the quiet colour in
    both themes (see :func:`apply_theme`), so the label follows a theme switch by itself."""
    label.setForegroundRole(QPalette.ColorRole.PlaceholderText)


def ink(colour: str, background: QColor | None = None) -> str:
    """A text colour picked for a white page (dark green, brown, blue), made readable on
    ``background`` (default: the current window colour): unchanged when it already has
    :data:`INK_CONTRAST`, else the same hue made just light or dark enough."""
    base = QColor(colour)
    background = background or QApplication.palette().color(QPalette.ColorRole.Window)
    if contrast_ratio(base, background) >= INK_CONTRAST:
        return base.name()
    lighter = contrast_ratio(QColor("white"), background) > contrast_ratio(QColor("black"),
                                                                           background)
    h, s, lightness, _a = base.getHslF()
    h = max(h, 0.0)  # grey has hue -1
    candidate = base
    for _ in range(50):
        lightness = min(1.0, lightness + 0.02) if lighter else max(0.0, lightness - 0.02)
        candidate = QColor.fromHslF(h, s, lightness)
        if contrast_ratio(candidate, background) >= INK_CONTRAST or lightness in (0.0, 1.0):
            break
    return candidate.name()


def set_ink(widget: QWidget, colour: str) -> None:
    """Draw ``widget``'s text in ``colour`` (picked for a white page) made readable on the
    current theme; :func:`apply_theme` makes it again for the new window colour."""
    widget.setProperty(INK_PROPERTY, colour)
    _apply_ink(widget)


def make_caveat(label: QLabel) -> None:
    """Draw ``label`` as a caveat (the analogy's fine print) in either theme."""
    set_ink(label, CAVEAT)


def _apply_ink(widget: QWidget) -> None:
    palette = widget.palette()
    palette.setColor(widget.foregroundRole(), QColor(ink(str(widget.property(INK_PROPERTY)))))
    widget.setPalette(palette)


def _refresh_widgets() -> None:
    """After a palette switch: inked widgets get their colour for the new window, and widgets
    with their own style sheet are polished again. (A style sheet freezes the palette of when
    the widget was polished: a bold caption made in the light theme stayed black on dark.)"""
    # no garbage collection while walking the list: collecting a window closed earlier (its
    # Python wrapper owning it) deleted widgets still in the list, and the walk segfaulted
    collecting = gc.isenabled()
    gc.disable()
    try:
        _refresh_each(QApplication.allWidgets())
    finally:
        if collecting:
            gc.enable()


def _refresh_each(widgets: list[QWidget]) -> None:
    for widget in widgets:
        if widget.property(INK_PROPERTY):
            _apply_ink(widget)
        sheet = widget.styleSheet()
        if sheet:
            widget.setStyleSheet(sheet)


def plot_ink(colour: str) -> str:
    """:func:`ink` against the plot background (text drawn inside a plot)."""
    return ink(colour, QColor(PLOT_COLOURS[current_theme()][0]))


def note_background() -> str:
    """Background of a highlighted note in the current theme."""
    return NOTE_BACKGROUNDS[current_theme()]


def error_colour() -> str:
    """Colour of error and warning text in the current theme."""
    return ERROR_COLOURS[current_theme()]


def _with_quiet_placeholder(palette: QPalette) -> QPalette:
    for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive):
        palette.setColor(group, QPalette.ColorRole.PlaceholderText, quiet_colour(palette))
    return palette


def _use_style(app: QApplication, name: str) -> None:
    """Make ``name`` the application's style, unless it is already: a new QStyle re-polishes
    every widget (slow), and doing so while a closed window's widgets await deletion crashed
    the process (a segfault inside QApplication.setStyle, seen in the tests in random order).
    Where the platform's own style is Fusion (Linux), a theme switch changes the palette only."""
    if app.style().name().lower() != name.lower():
        app.setStyle(QStyleFactory.create(name) or QStyleFactory.create("Fusion"))


def apply_theme(theme: str, root: QWidget | None = None) -> None:
    """Switch the application to ``theme`` ("light" or "dark") and repaint plots under root."""
    app = QApplication.instance()
    if app.property("dualview_theme") == theme:
        # nothing to do app-wide (restyling every widget is slow); plots may still need it
        if root is not None:
            repaint_plots(root, theme)
        return
    app.setProperty("dualview_theme", theme)
    if app.property("dualview_default_style") is None:
        app.setProperty("dualview_default_style", app.style().name())
    if theme == "dark":
        _use_style(app, "Fusion")
        app.setPalette(dark_palette())
    else:
        _use_style(app, str(app.property("dualview_default_style")))
        app.setPalette(_with_quiet_placeholder(app.style().standardPalette()))
    _refresh_widgets()
    background, foreground = PLOT_COLOURS[theme]
    pg.setConfigOptions(background=background, foreground=foreground)
    if root is not None:
        repaint_plots(root, theme)


def repaint_plots(root: QWidget, theme: str) -> None:
    background, foreground = PLOT_COLOURS[theme]
    fg = QColor(foreground)
    adapt_text_colours(root, theme)
    for view in root.findChildren(pg.GraphicsView):
        view.setBackground(background)
        scene = view.scene()
        if scene is None:
            continue
        for item in scene.items():
            if isinstance(item, pg.AxisItem):
                size = item.labelStyle.get("font-size")
                item.setPen(fg)
                item.setTextPen(fg)
                if size:
                    item.labelStyle["font-size"] = size
                item._updateLabel()
            elif isinstance(item, pg.LabelItem):
                item.setAttr("color", foreground)
                item.setText(item.text)


def plot_foreground(theme: str) -> QColor:
    return QColor(PLOT_COLOURS[theme][1])


def _for_dark(colour: QColor) -> QColor:
    """A dark text colour made readable on a dark background: same hue, lightness mirrored."""
    h, s, lightness, a = colour.getHslF()
    if lightness >= 0.45:
        return QColor(colour)
    return QColor.fromHslF(max(h, 0.0), s, 1.0 - lightness * 0.8, a)


def text_colour_for(colour: QColor, theme: str) -> QColor:
    """A plot text colour chosen for a white background, as shown in ``theme`` (what
    :func:`adapt_text_colours` does to TextItems, for items that paint text themselves)."""
    return _for_dark(colour) if theme == "dark" else QColor(colour)


def adapt_text_colours(root: QWidget, theme: str) -> int:
    """Panels colour some plot text for a white background (dark grey labels, black titles).
    In the dark theme such text gets its lightness mirrored (hue kept); in the light theme the
    panel's own colour comes back. Returns how many items changed."""
    changed = 0
    for view in root.findChildren(pg.GraphicsView):
        scene = view.scene()
        if scene is None:
            continue
        for item in scene.items():
            if not isinstance(item, pg.TextItem):
                continue
            current = QColor(item.color)
            applied = getattr(item, "_dv_applied_colour", None)
            if applied is None or current.rgba() != applied:
                item._dv_own_colour = QColor(current)  # type: ignore[attr-defined]
            own = item._dv_own_colour  # type: ignore[attr-defined]
            target = text_colour_for(own, theme)
            if target.rgba() != current.rgba():
                item.setColor(target)
                changed += 1
            item._dv_applied_colour = target.rgba()  # type: ignore[attr-defined]
            changed += _adapt_fill(item, theme)
    return changed


def _adapt_fill(item: pg.TextItem, theme: str) -> int:
    """A text box filled for a white plot (the attention panel's "masked" caption) gets its
    lightness mirrored on the dark theme: its text is made light there, and light text on the
    white box was unreadable. Returns 1 if the fill changed."""
    current = item.fill.color()
    if item.fill.style() == Qt.BrushStyle.NoBrush or current.alpha() == 0:
        return 0
    applied = getattr(item, "_dv_applied_fill", None)
    if applied is None or current.rgba() != applied:
        item._dv_own_fill = QColor(current)  # type: ignore[attr-defined]
    own = item._dv_own_fill  # type: ignore[attr-defined]
    target = QColor(own)
    if theme == "dark" and own.lightnessF() > 0.55:
        h, s, lightness, a = own.getHslF()
        target = QColor.fromHslF(max(h, 0.0), s, 1.0 - lightness * 0.85, a)
    item._dv_applied_fill = target.rgba()  # type: ignore[attr-defined]
    if target.rgba() == current.rgba():
        return 0
    item.fill = pg.mkBrush(target)
    item.update()
    return 1
