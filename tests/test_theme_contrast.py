"""Every label of every panel (lens panels too) is readable in the light and the dark theme,
also after switching themes while the app runs: WCAG contrast ≥ 3 between the colour a label's
text is drawn in and what it is drawn on, and the same for coloured spans inside rich text."""

import re

import pytest
from conftest import wait_for_text
from PySide6.QtGui import QColor, QPalette, QTextFormat
from PySide6.QtWidgets import QApplication, QLabel, QTextBrowser, QToolButton

from app import theme
from app.docks import DOCKS
from app.panels.base import Panel

pytestmark = pytest.mark.usefixtures("restore_view")

#: WCAG's minimum for large text and user-interface parts; quiet text sits near 4.5
MIN_CONTRAST = 3.0
#: an element with a style attribute, its style, and what it wraps (no nesting of the same tag)
STYLED = re.compile(r"<(\w+)[^>]*?style\s*=\s*(['\"])(.*?)\2[^>]*>(.*?)</\1>", re.S | re.I)
COLOUR = re.compile(r"(?<![-\w])color\s*:\s*([^;'\"]+)", re.I)
BACKGROUND = re.compile(r"background(?:-color)?\s*:\s*([^;'\"]+)", re.I)
RGB = re.compile(r"rgb\s*\(?\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)?", re.I)


def parse_colour(text):
    text = text.strip()
    match = RGB.fullmatch(text)
    return QColor(*map(int, match.groups())) if match else QColor(text)


def over(colour, background):
    """``colour`` painted on ``background`` (alpha composited), opaque."""
    return theme.blend(background, QColor(colour.rgb()), colour.alphaF())


def painted_background(label):
    """The colour behind the label's text: its own when it fills its background (a style
    sheet background lands in its palette), else that of the nearest ancestor that paints.
    (A style-sheeted label keeps the palette of when it was polished: its window colour may
    be the other theme's, so it is not read unless the label paints it.)"""
    widget = label
    while widget is not None:
        own_sheet = widget is label and "background" in widget.styleSheet()
        if own_sheet or widget.autoFillBackground() or widget.isWindow():
            return widget.palette().color(widget.backgroundRole())
        widget = widget.parentWidget()
    return QApplication.palette().color(QPalette.ColorRole.Window)


def problems(label):
    """What in ``label`` (or a flat button) is hard to read: (text, colour, background,
    ratio) for each part."""
    label.ensurePolished()  # style sheet colours land in the palette
    palette = label.palette()
    background = painted_background(label)
    found = []
    fg = over(palette.color(label.foregroundRole()), background)
    text = label.text()
    if text.strip() and theme.contrast_ratio(fg, background) < MIN_CONTRAST:
        found.append((text[:60], fg.name(), background.name(),
                      theme.contrast_ratio(fg, background)))
    for _tag, _q, style, inner in STYLED.findall(text):
        colour = COLOUR.search(style)
        plain = re.sub(r"<[^>]+>|&\w+;", "", inner)
        if colour is None or not re.search(r"\w", plain):
            continue  # no colour of its own, or a colour key (■, - -) matching a plot
        back = BACKGROUND.search(style)
        span_bg = parse_colour(back.group(1)) if back else background
        span_fg = parse_colour(colour.group(1))
        ratio = theme.contrast_ratio(span_fg, span_bg)
        if ratio < MIN_CONTRAST:
            found.append((plain[:60], span_fg.name(), span_bg.name(), ratio))
    return found


def document_problems(view):
    """Coloured runs (links, spans) of a text browser's page against its background."""
    viewport = view.viewport()
    background = viewport.palette().color(viewport.backgroundRole())
    found = []
    block = view.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            fmt = fragment.charFormat()
            if re.search(r"\w", fragment.text()) and fmt.hasProperty(
                    QTextFormat.Property.ForegroundBrush):
                back = (fmt.background().color() if fmt.hasProperty(
                    QTextFormat.Property.BackgroundBrush) else background)
                ratio = theme.contrast_ratio(fmt.foreground().color(), back)
                if ratio < MIN_CONTRAST:
                    found.append((fragment.text()[:60], fmt.foreground().color().name(),
                                  back.name(), ratio))
            it += 1
        block = block.next()
    return found


def where(label):
    """The label's panel (or window part) and its name, for the failure message."""
    owner = label.parentWidget()
    while owner is not None and not isinstance(owner, Panel):
        owner = owner.parentWidget()
    return f"{type(owner).__name__ if owner else 'window'}.{label.objectName() or '?'}"


def visible_label_problems(window):
    QApplication.processEvents()  # palette and style changes reach widgets through events
    # flat tool buttons (the depth slider's t = 0, ½, 1 marks) show their text on the panel too
    texts = [w for w in window.findChildren(QLabel)] + [
        b for b in window.findChildren(QToolButton) if b.autoRaise() and b.text()]
    found = {where(w): bad for w in texts if w.isVisible() and (bad := problems(w))}
    found.update({where(w): bad for w in window.findChildren(QTextBrowser)
                  if w.isVisible() and (bad := document_problems(w))})
    return found


def check_every_panel(window, qtbot):
    """Raise each panel's dock in turn (lens docks are tabs behind Depth time) and collect
    the unreadable labels of the whole window each time."""
    bad = {}
    for spec in DOCKS:
        dock, panel = window.docks[spec.object_name], window.panels.get(spec.object_name)
        if panel is None:
            continue
        dock.show()
        dock.raise_()
        qtbot.waitUntil(lambda p=panel: p.isVisible() and p.is_current, timeout=5000)
        bad.update(visible_label_problems(window))
    return bad


def exercise(window, qtbot):
    """Put the panels in the states that colour their text: a causality verdict, the
    temperature note at τ = 1, the attention warning with the mask off."""
    window.editor.set_text("Attention never reads the future words")
    wait_for_text(qtbot, window, "Attention never reads the future words")
    temperature = window.panels["lensTemperatureDock"]
    window.docks["lensTemperatureDock"].show()
    window.docks["lensTemperatureDock"].raise_()
    qtbot.waitUntil(lambda: temperature.is_current, timeout=5000)
    temperature.preset_one.click()


@pytest.mark.parametrize("order", [("dark", "light"), ("light", "dark")])
def test_every_label_is_readable_in_both_themes_after_a_switch(make_window, qtbot, order):
    window = make_window(sync=True, text="Attention never reads the future tokens")
    exercise(window, qtbot)
    for key in order:
        window.theme_actions[key].trigger()
        assert theme.current_theme() == key
        bad = check_every_panel(window, qtbot)
        assert bad == {}, f"{key}: " + "\n".join(f"{k}: {v}" for k, v in bad.items())
    window.state.set_causal(False)  # attention flow warns in its own colour
    wait_for_text(qtbot, window, window.state.result.text)
    assert check_every_panel(window, qtbot) == {}, order[-1]


def test_quiet_and_ink_colours_read_on_both_windows(qapp):
    for key in ("light", "dark"):
        theme.apply_theme(key)
        palette = qapp.palette()
        window = palette.color(QPalette.ColorRole.Window)
        quiet = theme.quiet_colour()
        assert palette.color(QPalette.ColorRole.PlaceholderText) == quiet  # opaque, the same
        assert 4.0 <= theme.contrast_ratio(quiet, window) < theme.contrast_ratio(
            palette.color(QPalette.ColorRole.WindowText), window)
        for accent in ("#7a4a00", "#1b7f3b", "#1f5fbf", "#8a2be2", "#ff7f0e", "#444444"):
            made = QColor(theme.ink(accent))
            assert theme.contrast_ratio(made, window) >= theme.INK_CONTRAST
            if theme.contrast_ratio(QColor(accent), window) >= theme.INK_CONTRAST:
                assert made == QColor(accent)  # readable colours are left alone
            else:  # same hue, only lightness moved
                assert made.hslHue() == pytest.approx(QColor(accent).hslHue(), abs=3)


@pytest.mark.parametrize("key", ["dark", "light"])
def test_boxed_plot_text_reads_on_its_box(make_window, qtbot, key):
    """A plot caption drawn in a box (the attention panel's "masked (future)") reads on the
    box in both themes: on the dark theme its text turned light and the box stayed white."""
    import pyqtgraph as pg
    from PySide6.QtCore import Qt

    window = make_window(sync=True, text="Attention never reads the future tokens")
    window.state.set_query(2)  # future tokens: the "masked" caption shows
    window.theme_actions[key].trigger()
    qtbot.waitUntil(lambda: window.panels["attentionDock"].is_current, timeout=5000)
    boxed = []
    for view in window.findChildren(pg.GraphicsView):
        background = view.backgroundBrush().color()
        for item in view.scene().items():
            if (isinstance(item, pg.TextItem) and item.isVisible()
                    and item.fill.style() != Qt.BrushStyle.NoBrush and item.fill.color().alpha()):
                box = over(item.fill.color(), background)
                boxed.append((item.textItem.toPlainText(), theme.contrast_ratio(
                    over(QColor(item.color), box), box)))
    assert any("masked" in text for text, _ in boxed)
    assert all(ratio >= MIN_CONTRAST for _, ratio in boxed), boxed


def test_attention_links_stand_out_from_the_plot_in_both_themes(make_window, qtbot):
    """The navy links had a contrast of ~2.4 with the dark plot at full opacity: the faint
    arcs of the light weights vanished when projected."""
    window = make_window(sync=True, text="Attention never reads the future tokens")
    panel = window.panels["attentionDock"]
    for key in ("dark", "light", "dark"):
        window.theme_actions[key].trigger()
        qtbot.waitUntil(lambda: panel.is_current, timeout=5000)
        background = QColor(theme.PLOT_COLOURS[key][0])
        strongest = QColor(panel.bucket_curves[-1].opts["pen"].color())
        assert theme.contrast_ratio(over(strongest, background), background) >= 4.5, key
        node = QColor(panel.nodes.data["brush"][0].color())  # token 0's node fill
        assert theme.contrast_ratio(over(node, background), background) >= 1.5, key


def test_temperature_layer_diamonds_stand_out_in_both_themes(make_window, qtbot):
    """The layer's entropy (τ = √d) was drawn as near-black diamonds: on the dark plot they
    could not be seen. They now take the theme's plot ink."""
    window = make_window(sync=True, text="Attention never reads the future tokens")
    dock = window.docks["lensTemperatureDock"]
    dock.show()
    dock.raise_()
    panel = window.panels["lensTemperatureDock"]
    qtbot.waitUntil(lambda: panel.is_current, timeout=5000)
    for key in ("dark", "light", "dark"):
        window.theme_actions[key].trigger()
        qtbot.waitUntil(lambda: panel.is_current, timeout=5000)
        background = QColor(theme.PLOT_COLOURS[key][0])
        diamond = QColor(panel.layer_dots.opts["brush"].color())
        assert theme.contrast_ratio(over(diamond, background), background) >= 3.0, key
