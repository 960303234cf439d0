"""Light and dark themes: the Qt palette and pyqtgraph's colours.

No application style sheet: restyling every widget through one costs most of a second per
switch, and the palette already says everything a theme needs.

pyqtgraph reads its background and foreground when a plot is created, so :func:`apply_theme`
sets the config for future plots and repaints the ones that exist (background of every view,
pen and text of every axis). Heatmap colours come from the palette (``app.palettes``), not
the theme: a colour map means the same thing on either background.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QStyleFactory, QWidget

#: theme -> colour of error text in the status bar
ERROR_COLOURS: dict[str, str] = {"light": "#b00020", "dark": "#ff6b6b"}
#: theme -> (plot background, plot foreground)
PLOT_COLOURS: dict[str, tuple[str, str]] = {
    "light": ("#ffffff", "#000000"),
    "dark": ("#1e1f22", "#d8d8d8"),
}


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
        QPalette.ColorRole.PlaceholderText: QColor("#9a9a9a"),
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
    return p


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
        app.setStyle(QStyleFactory.create("Fusion"))
        app.setPalette(dark_palette())
    else:
        app.setStyle(QStyleFactory.create(str(app.property("dualview_default_style")))
                     or QStyleFactory.create("Fusion"))
        app.setPalette(app.style().standardPalette())
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
            target = _for_dark(own) if theme == "dark" else QColor(own)
            if target.rgba() != current.rgba():
                item.setColor(target)
                changed += 1
            item._dv_applied_colour = target.rgba()  # type: ignore[attr-defined]
    return changed
