"""Rare Han characters (CJK Extension B: 𠀀 U+20000, 𪚥 U+2A6A5, 𠮷 U+20BB7) are not in the
bundled fonts (a font with them does not fit the bundle's size budget: app/glyphs.py), so the
window says so in the status bar, once, instead of showing silent boxes."""

import pytest
from PySide6.QtGui import QFont

from app import glyphs
from app.fonts import CJK_FONT, EMOJI_FONT, SYMBOL_FONT, family_chain, load_font

EXT_B = "𠀀𪚥𠮷"


@pytest.fixture
def chain_font(qapp):
    """The app's font chain as a machine with no fonts of its own gets it (app/fonts.py); the
    bundled fonts are registered, as in the app, so any font falls back to them."""
    loaded = set(load_font(CJK_FONT)) | set(load_font(SYMBOL_FONT)) | set(load_font(EMOJI_FONT))
    font = QFont()
    font.setFamilies(family_chain(None, loaded))
    return font


@pytest.fixture
def fresh_warning(monkeypatch):
    monkeypatch.setattr(glyphs, "_warned", False)


def test_extension_b_is_missing_from_the_chain_and_the_rest_is_drawn(chain_font):
    drawn = "我爱A x̂ Wᵀ 🚀👍\u2068שלום\u2069"  # Chinese, Latin, symbols, emoji, Hebrew, isolates
    assert glyphs.missing_glyphs(drawn, chain_font) == []
    assert glyphs.missing_glyphs(drawn + EXT_B, chain_font) == sorted(EXT_B, key=ord)
    assert all(ord(c) in glyphs.RARE_HAN for c in EXT_B)


@pytest.mark.usefixtures("fresh_warning")
def test_the_status_bar_says_so_once(make_window, chain_font):
    window = make_window(sync=True, text="我爱北京")
    said = []
    notify = window.notify
    window.notify = lambda text, **kw: (said.append(text), notify(text, **kw))[1]
    watch = window.glyph_watch  # every window watches its text field (MainWindow)
    window.editor.set_text("我爱北京 hello 🚀")  # every character drawn: nothing said
    assert said == [] and watch.message == ""
    window.editor.set_text("我爱北京" + EXT_B)
    assert len(said) == 1 and said[0] == watch.message
    assert all(c in said[0] for c in EXT_B) and "Extension B" in said[0]
    assert "𠀀" in window.statusBar().currentMessage()
    window.editor.set_text("𠀀𠀁𠀂 again")  # once per run: not again
    assert len(said) == 1


@pytest.mark.usefixtures("fresh_warning", "restore_view")
def test_the_message_is_in_chinese_in_a_chinese_interface(make_window, chain_font):
    window = make_window(sync=True, text="我")
    window.set_language("zh")
    watch = window.glyph_watch  # every window watches its text field (MainWindow)
    window.editor.set_text("𠮷")
    assert "𠮷" in watch.message and "方框" in watch.message
