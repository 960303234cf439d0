"""The bundled fonts: loaded at start-up so Chinese, Latin and the formulas' symbols render on any
machine, even one with no fonts installed.

Dual View shows Chinese tokens and labels and formulas with symbols such as ``X̂`` and ``Wᵀ``. A
classroom machine may have no CJK font (a bare Linux install has none: every Chinese glyph is a
box), or no fonts at all. So the app carries, in ``resources/fonts/`` with their licences:

- WenQuanYi Micro Hei (Apache-2.0 or GPLv3 with the font exception): Chinese and Latin;
- DejaVu Sans (Bitstream Vera licence): Latin plus the symbols WenQuanYi lacks (combining hat
  U+0302, superscript T U+1D40);
- Symbola (free for any use): emoji and pictographs, in black and white, last of all: a student
  who types 🚀 or 👍 sees it on the token chip and every axis, not an empty box.

The system's own UI font stays first where there is one, so Latin text looks native; the
bundled families follow it in the application font and as substitutes of the system family, so
any glyph the system font lacks is drawn from them. With no usable system font, DejaVu Sans
leads and WenQuanYi fills in Chinese. Call :func:`install_app_font` after the QApplication
exists and before the first widget: widgets and pyqtgraph items (tick labels, text items)
created afterwards inherit the application font.
"""

from __future__ import annotations

import sys

from PySide6.QtGui import QFont, QFontDatabase, QFontInfo
from PySide6.QtWidgets import QApplication

from app.resources import resource_path

CJK_FONT = ("fonts", "wqy-microhei.ttc")
CJK_FAMILY = "WenQuanYi Micro Hei"
SYMBOL_FONT = ("fonts", "DejaVuSans.ttf")
#: its bold face: without it Qt emboldens the regular one, wider than the bold the layouts
#: were measured with on a machine that has DejaVu (bold numbers, captions, titles)
SYMBOL_BOLD_FONT = ("fonts", "DejaVuSans-Bold.ttf")
SYMBOL_FAMILY = "DejaVu Sans"
EMOJI_FONT = ("fonts", "Symbola_hint.ttf")
EMOJI_FAMILY = "Symbola"


def load_font(parts: tuple[str, ...]) -> list[str]:
    """Register one bundled font file with Qt; return its family names ([] if it failed)."""
    path = resource_path(*parts)
    font_id = QFontDatabase.addApplicationFont(str(path))
    if font_id < 0:
        print(f"dualview: could not load the bundled font {path}", file=sys.stderr)
        return []
    return list(QFontDatabase.applicationFontFamilies(font_id))


def family_chain(system_family: str | None, loaded: set[str]) -> list[str]:
    """The application font's families, first choice first."""
    if system_family:
        chain = [system_family, CJK_FAMILY, SYMBOL_FAMILY, EMOJI_FAMILY]
    else:
        chain = [SYMBOL_FAMILY, CJK_FAMILY, EMOJI_FAMILY]
    out: list[str] = []
    for name in chain:
        if name not in out and (name == system_family or name in loaded):
            out.append(name)
    return out


def install_app_font(app: QApplication) -> QFont:
    """Load the bundled fonts and make them the application's fallback (or default) families.

    Returns the font set. A missing font file is reported on stderr and never stops the app.
    """
    system_families = set(QFontDatabase.families())  # before ours are added
    base = app.font()
    resolved = QFontInfo(base).family()  # what the default font actually resolves to
    system_family = resolved if resolved in system_families else None
    loaded = {family for parts in (CJK_FONT, SYMBOL_FONT, SYMBOL_BOLD_FONT, EMOJI_FONT)
              for family in load_font(parts)}
    font = QFont(base)
    chain = family_chain(system_family, loaded)
    if not loaded or not chain:
        return font
    font.setFamilies(chain)
    if system_family:
        # a QFont() made later with the system family's name falls back to ours too
        fallbacks = [name for name in chain if name != system_family]
        for name in {system_family, base.family()}:
            QFont.insertSubstitutions(name, fallbacks)
    app.setFont(font)
    return font
