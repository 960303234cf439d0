"""Engine errors in the interface language.

The engine (no Qt) speaks English, and gives every :class:`engine.EngineError` a stable
``code`` and the ``params`` of its message (``engine.errors.MESSAGES``). The English template
is the source text of a translation in the context :data:`CONTEXT`; the translation keeps the
template's ``{fields}``, and is filled with the same parameters here (an English phrase among
them, an ``engine.errors.Phrase``, is translated too). ``python -m app.i18n`` puts every
template and phrase into the catalogue (:func:`catalogue_source`), so a new kind of error shows
up there as unfinished. Anything without a code, or without a usable translation, is shown in
the engine's English: never less informative than before.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from PySide6.QtCore import QCoreApplication

from app.os_text import translate_strerror
from engine.errors import MESSAGES, PHRASES, Phrase

#: Translation context of the engine's templates and phrases.
CONTEXT = "EngineError"


def engine_text(message: str, code: str = "",
                params: Mapping[str, object] | None = None) -> str:
    """``message`` (the engine's English for an error of kind ``code``) in the interface
    language."""
    template = MESSAGES.get(code)
    if template is None:
        return message
    translated = QCoreApplication.translate(CONTEXT, template)
    if translated == template:  # the English interface (or a kind not translated yet)
        return message
    values = {key: _translated(value) for key, value in (params or {}).items()}
    try:
        return translated.format(**values)
    except (KeyError, IndexError, ValueError):  # a translation that lost a field: say it all
        return message


def _translated(value: object) -> object:
    """A parameter in the interface language: an engine phrase, or the system's words for why
    a file could not be read (the engine passes ``OSError.strerror`` on); else as it is."""
    if isinstance(value, Phrase):
        return QCoreApplication.translate(CONTEXT, value)
    return translate_strerror(value) if isinstance(value, str) else value


def exception_text(exc: BaseException) -> str:
    """An exception's message in the interface language (EngineError's kinds translated)."""
    return engine_text(str(exc), getattr(exc, "code", ""), getattr(exc, "params", None))


def catalogue_source() -> str:
    """Python source lupdate reads: one ``QT_TRANSLATE_NOOP`` per template and phrase."""
    lines = ["from PySide6.QtCore import QT_TRANSLATE_NOOP", ""]
    for text in [*MESSAGES.values(), *sorted(PHRASES)]:
        lines.append(f"QT_TRANSLATE_NOOP({json.dumps(CONTEXT)}, "
                     f"{json.dumps(text, ensure_ascii=False)})")
    return "\n".join(lines) + "\n"
