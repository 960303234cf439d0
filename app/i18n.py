"""Interface language: Qt translators for English / Simplified Chinese, switched at run time.

Every user-visible string in ``app/`` goes through ``tr()`` (or ``QCoreApplication.translate``
with a context); ``resources/i18n/dualview_zh_CN.ts`` holds the Chinese translations and the
compiled ``.qm`` beside it is what the app loads, so no Qt tool is needed at run time.

Switching installs or removes the translator. Qt then sends ``LanguageChange`` to every
widget, and each panel calls its ``retranslate()``; :func:`switch_language` also tells the
state, so step explanations (``StepInfo.meaning`` / ``meaning_zh``) follow.

``python -m app.i18n`` re-runs ``pyside6-lupdate`` over the sources (new strings appear in the
``.ts`` as unfinished) and ``pyside6-lrelease`` (rewrites the ``.qm``).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QCoreApplication,
    QEvent,
    QLibraryInfo,
    QLocale,
    QTranslator,
)
from PySide6.QtGui import QFontDatabase

from app.resources import resource_path

#: Language code -> its own name (menus show each language in itself).
LANGUAGES: dict[str, str] = {"en": "English", "zh": "简体中文"}
#: The translation catalogue base name and the locale of each non-English language.
CATALOGUE = "dualview"
LOCALES: dict[str, str] = {"zh": "zh_CN"}

# Strings ``tr()`` receives at run time from data (lupdate cannot see them): listed here so
# they reach the catalogue under the context that looks them up.
_DYNAMIC = (
    QT_TRANSLATE_NOOP("StepHeatmapPanel", "token"),
    QT_TRANSLATE_NOOP("StepHeatmapPanel", "feature"),
    QT_TRANSLATE_NOOP("StepHeatmapPanel", "key token"),
    QT_TRANSLATE_NOOP("StepHeatmapPanel", "feature (K | V)"),
    QT_TRANSLATE_NOOP("CausalityPanel", "feature"),
    QT_TRANSLATE_NOOP("CausalityPanel", "key token"),
    QT_TRANSLATE_NOOP("CausalityPanel", "feature (K | V)"),
)
# ``lens_temperature.badge_tip(widget, kind)`` calls ``widget.tr`` from a function, so the
# context at run time is the calling panel's class, while lupdate files the strings under
# "widget": list them under each caller too.
_BADGE_TIPS = (
    QT_TRANSLATE_NOOP("TemperaturePanel", "Exact: a test asserts this statement in float64."),
    QT_TRANSLATE_NOOP("TemperaturePanel", "Analogy: shown with its caveat, never asserted."),
    QT_TRANSLATE_NOOP("EnergyPanel", "Exact: a test asserts this statement in float64."),
    QT_TRANSLATE_NOOP("EnergyPanel", "Analogy: shown with its caveat, never asserted."),
    QT_TRANSLATE_NOOP("SplittingPanel", "Exact: a test asserts this statement in float64."),
    QT_TRANSLATE_NOOP("SplittingPanel", "Analogy: shown with its caveat, never asserted."),
    QT_TRANSLATE_NOOP("ProjectionPanel", "Exact: a test asserts this statement in float64."),
    QT_TRANSLATE_NOOP("ProjectionPanel", "Analogy: shown with its caveat, never asserted."),
    QT_TRANSLATE_NOOP("ConvergencePanel", "Exact: a test asserts this statement in float64."),
    QT_TRANSLATE_NOOP("ConvergencePanel", "Analogy: shown with its caveat, never asserted."),
    QT_TRANSLATE_NOOP("AnalogiesPanel", "Exact: a test asserts this statement in float64."),
    QT_TRANSLATE_NOOP("AnalogiesPanel", "Analogy: shown with its caveat, never asserted."),
)



def ts_path(language: str = "zh") -> Path:
    return resource_path("i18n", f"{CATALOGUE}_{LOCALES[language]}.ts")


def qm_path(language: str = "zh") -> Path:
    return resource_path("i18n", f"{CATALOGUE}_{LOCALES[language]}.qm")


def system_language(locale: QLocale | None = None) -> str:
    """"zh" when the (system) locale is Chinese, any script or region, else "en"."""
    locale = QLocale.system() if locale is None else locale
    return "zh" if locale.language() == QLocale.Language.Chinese else "en"


class Translations:
    """Owns the installed translators; one per application."""

    def __init__(self) -> None:
        self.language = "en"
        self._installed: list[QTranslator] = []
        #: Counts the calls of :meth:`apply` (each may change every translated string).
        self.generation = 0

    def apply(self, language: str) -> bool:
        """Install the catalogue for ``language`` ("en" removes every translator).

        Returns False when the catalogue could not be loaded (the UI stays in English)."""
        if language not in LANGUAGES:
            raise ValueError(f"unsupported language {language!r}")
        app = QCoreApplication.instance()
        if app is None:
            raise RuntimeError("create the QApplication before switching language")
        self.generation += 1
        for translator in self._installed:
            QCoreApplication.removeTranslator(translator)
        self._installed = []
        self.language = language
        if language == "en":
            return True
        ours = QTranslator(app)
        if not ours.load(str(qm_path(language))):
            print(f"dualview: could not load {qm_path(language)}", file=sys.stderr)
            self.language = "en"
            return False
        # Qt's own strings (standard buttons of message boxes and file dialogs), when shipped
        qt = QTranslator(app)
        qt_dir = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
        if qt.load(f"qtbase_{LOCALES[language]}", qt_dir):
            QCoreApplication.installTranslator(qt)
            self._installed.append(qt)
        QCoreApplication.installTranslator(ours)
        self._installed.append(ours)
        return True


_translations = Translations()


def translations() -> Translations:
    return _translations


def switch_language(state: object, language: str) -> bool:
    """Switch the whole interface: Qt strings (LanguageChange) and the state's explanations."""
    ok = _translations.apply(language)
    # the state first: panels set their texts once on its signal, the translator already in
    # place, and skip the LanguageChange that follows (app.panels.base.Panel)
    state.set_language(_translations.language)  # type: ignore[attr-defined]
    # Qt posts LanguageChange to every window: deliver it now, so the switch is done on return
    QCoreApplication.sendPostedEvents(None, QEvent.Type.LanguageChange)
    return ok


def cjk_font_available() -> bool:
    """Whether any installed or bundled font covers Simplified Chinese (else glyphs are boxes)."""
    return bool(QFontDatabase.families(QFontDatabase.WritingSystem.SimplifiedChinese))


# ----- maintenance: python -m app.i18n -----
def _tool(name: str) -> str:
    found = shutil.which(name)
    if found:
        return found
    beside = Path(sys.executable).with_name(name)
    if beside.exists():
        return str(beside)
    raise SystemExit(f"{name} not found: pip install PySide6-Essentials (it ships the tool)")


def source_files() -> list[Path]:
    """Every Python file of the app that may hold a translatable string."""
    root = Path(__file__).resolve().parent
    return sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)


def run_lupdate(ts: Path) -> str:
    """Merge the current source strings into ``ts`` (kept translations stay, new ones are
    marked unfinished, removed ones vanish)."""
    from app.engine_text import catalogue_source

    with tempfile.TemporaryDirectory() as tmp:
        # the engine's error templates live in engine/ (no Qt): lupdate reads them from here
        engine_messages = Path(tmp, "engine_messages.py")
        engine_messages.write_text(catalogue_source(), encoding="utf-8")
        cmd = [_tool("pyside6-lupdate"), *map(str, source_files()), str(engine_messages),
               "-no-obsolete", "-locations", "none", "-ts", str(ts)]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
    # lupdate reads the "#:" doc comments of our modules as translator comments: drop them,
    # so the catalogue changes only when a string does
    text = ts.read_text(encoding="utf-8")
    ts.write_text(re.sub(r"\n\s*<extracomment>.*?</extracomment>", "", text, flags=re.S),
                  encoding="utf-8")
    return proc.stdout + proc.stderr


def run_lrelease(ts: Path, qm: Path) -> str:
    cmd = [_tool("pyside6-lrelease"), str(ts), "-qm", str(qm)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return proc.stdout + proc.stderr


def main() -> int:
    for language in LOCALES:
        print(run_lupdate(ts_path(language)).strip())
        print(run_lrelease(ts_path(language), qm_path(language)).strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
