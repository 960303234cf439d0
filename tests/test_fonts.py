"""The test session draws text with the fonts the app bundles, installed as the app installs
them (conftest's qapp fixture calls app.fonts.install_app_font, as app/__main__.py does)."""

from PySide6.QtGui import QFontDatabase, QTextLayout
from PySide6.QtWidgets import QApplication, QLabel

from app.fonts import CJK_FAMILY, EMOJI_FAMILY, SYMBOL_FAMILY


def drawn_with(text, font):
    """The family of the font that draws the first glyph of ``text`` in ``font``."""
    layout = QTextLayout(text, font)
    layout.beginLayout()
    layout.createLine()
    layout.endLayout()
    return layout.glyphRuns()[0].rawFont().familyName()


def test_chinese_is_drawn_with_the_bundled_font(qtbot):
    label = QLabel("我爱北京天安门")
    qtbot.addWidget(label)
    font = label.font()
    chain = font.families()
    assert chain == QApplication.font().families()  # widgets inherit the application font
    assert {CJK_FAMILY, SYMBOL_FAMILY, EMOJI_FAMILY} <= set(chain)
    first = chain[0]
    first_has_chinese = QFontDatabase.WritingSystem.SimplifiedChinese in \
        QFontDatabase.writingSystems(first)
    # the system's own UI font stays first (when it can draw Chinese, it does); else ours does
    assert drawn_with("我", font) == (first if first_has_chinese else CJK_FAMILY)
    assert drawn_with("🚀", font) in (EMOJI_FAMILY, first)
