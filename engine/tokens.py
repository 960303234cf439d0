"""A toy offline tokenizer and deterministic embeddings, so a teacher can type anything.

Not a real Qwen tokenizer (that needs a 150k vocabulary); it keeps what a class can read:
Latin words and numbers whole, one token per Han character, punctuation and emoji as their
own tokens. Each token's embedding comes from SHAKE-256 of its text, so the same token has
the same vector on every run, platform and numpy version.

The rules of :func:`tokenize`, in full (the text is NFC-normalised first):

1. Whitespace (``str.isspace``) separates tokens and is dropped: no token holds any.
2. An *invisible* character (:func:`_is_invisible`: controls, format characters, variation
   selectors and the other default-ignorable code points) never starts a token; where one
   would, it is dropped. So every token starts with a visible character: none is empty or
   made only of invisible characters (a joiner, a direction mark, a soft hyphen ...).
3. A *word* starts at a word character (``str.isalnum``, ``_``, ``'`` or ``’``; not Han or
   kana) and runs on over word characters and *attachments* (:func:`_is_attachment`:
   combining marks, variation selectors, skin tones, tag characters); apostrophes at its end
   are given back (each is then a token of its own), all but its first character.
4. Two regional indicators in a row are one token (a flag).
5. Any other visible character (Han, kana, punctuation, symbols, emoji) is one token, with the
   attachments after it and, after a zero-width joiner, the visible character it joins (an
   emoji family), repeatedly.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

import numpy as np

from engine.config import MAX_TOKENS
from engine.errors import EngineError

_ZWJ = "\u200d"


def _is_han(ch: str) -> bool:
    cp = ord(ch)
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0xF900 <= cp <= 0xFAFF
            or 0x20000 <= cp <= 0x3FFFF or 0x3040 <= cp <= 0x30FF)  # kana too: one each


def _is_word(ch: str) -> bool:
    return (ch.isalnum() or ch in "_'’") and not _is_han(ch)


def _is_attachment(ch: str) -> bool:
    """Characters that belong to the glyph before them (accents, emoji modifiers)."""
    cp = ord(ch)
    return (unicodedata.category(ch) in ("Mn", "Mc", "Me")
            or 0xFE00 <= cp <= 0xFE0F or 0x1F3FB <= cp <= 0x1F3FF or 0xE0020 <= cp <= 0xE007F)


#: Default-ignorable code points (Unicode's DerivedCoreProperties) that are neither a format
#: character (Cf) nor unassigned: the combining grapheme joiner (Mn), the Hangul fillers
#: (Lo: letters to ``str.isalnum``, drawn as nothing) and Khmer's inherent vowels (Mn), plus
#: the variation selectors (Mn: Mongolian, the basic 16 and the 240 of the supplement).
_IGNORABLE_RANGES: tuple[tuple[int, int], ...] = (
    (0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180D),
    (0x180F, 0x180F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFFA0, 0xFFA0),
    (0xE0100, 0xE01EF),
)


def _is_invisible(ch: str) -> bool:
    """Whether ``ch`` is drawn as nothing on its own: the one place that decides it.

    A control character (Cc), any format character (Cf: zero-width space, joiner and
    non-joiner, the direction marks and every bidi embedding, override and isolate, soft
    hyphen, word joiner and invisible operators, U+FEFF, tags, ...), a line or paragraph
    separator (Zl, Zp), or one of :data:`_IGNORABLE_RANGES`. With the unassigned
    default-ignorables (U+2065, U+FFF0-FFF8, U+E0000-E0FFF), this is Unicode's
    Default_Ignorable_Code_Point and more. A combining mark that is not ignorable (an accent)
    is visible: alone it is drawn on a dotted circle.
    """
    category = unicodedata.category(ch)
    if category in ("Cc", "Cf", "Zl", "Zp"):
        return True
    cp = ord(ch)
    if category == "Cn":
        return cp == 0x2065 or 0xFFF0 <= cp <= 0xFFF8 or 0xE0000 <= cp <= 0xE0FFF
    return any(low <= cp <= high for low, high in _IGNORABLE_RANGES)


def _is_visible(ch: str) -> bool:
    return not ch.isspace() and not _is_invisible(ch)


def _is_regional(ch: str) -> bool:
    return 0x1F1E6 <= ord(ch) <= 0x1F1FF


#: An ASCII word (letters, digits, "_" and inner apostrophes; a trailing apostrophe is
#: punctuation) or one other printable ASCII character: :func:`_scan`'s rules for such text.
_ASCII_TOKEN = re.compile(r"[\w']*\w|.", re.ASCII)


def tokenize(text: str) -> list[str]:
    """Split ``text`` into display tokens. Whitespace separates and is dropped.

    >>> tokenize("Hello, world!")
    ['Hello', ',', 'world', '!']
    >>> tokenize("我爱AI")
    ['我', '爱', 'AI']
    """
    if not isinstance(text, str):
        raise EngineError("text_type", got=type(text).__name__)
    text = unicodedata.normalize("NFC", text)
    # No token holds whitespace (str.split splits where str.isspace is true), so each
    # whitespace-separated piece is scanned alone; a plain ASCII piece skips the character
    # loop (~5 µs a word: 512 words took 2-4 ms, and the window tokenizes each edit thrice).
    tokens: list[str] = []
    for piece in text.split():
        if piece.isascii() and piece.isprintable():
            if piece.isalnum():
                tokens.append(piece)
            else:
                tokens += _ASCII_TOKEN.findall(piece)
        else:
            tokens += _scan(piece)
    return tokens


def _scan(text: str) -> list[str]:
    """The tokens of NFC ``text``, character by character (the rules in the module's doc)."""
    tokens: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if not _is_visible(ch):
            i += 1  # spaces and invisible characters carry no token and start none
            continue
        j = i + 1
        if _is_word(ch):
            while j < n and (_is_word(text[j]) or _is_attachment(text[j])):
                j += 1
            # a trailing apostrophe is punctuation, not part of the word
            while j - 1 > i and text[j - 1] in "'’":
                j -= 1
        elif _is_regional(ch) and j < n and _is_regional(text[j]):
            j += 1  # a flag is a pair of regional indicators
        else:
            # one glyph: the character, its modifiers, and any ZWJ-joined emoji after it
            while j < n:
                if _is_attachment(text[j]):
                    j += 1
                elif text[j] == _ZWJ and j + 1 < n and _is_visible(text[j + 1]):
                    j += 2
                else:
                    break
        tokens.append(text[i:j])  # starts with a visible character: never empty or unseen
        i = j
    return tokens


def embed(tokens: list[str], hidden_size: int) -> np.ndarray:
    """``[T, hidden_size]`` float64 rows, one per token, N(0, 1) from a stable hash.

    The vector of a token depends only on its text (not its position: Qwen3 puts position in
    through RoPE), and its first ``k`` entries do not depend on ``hidden_size``.
    """
    if isinstance(tokens, str):
        raise EngineError("tokens_is_text")
    try:
        tokens = list(tokens)  # a tuple or a numpy array of strings will do too
    except TypeError:
        raise EngineError("tokens_type", got=type(tokens).__name__) from None
    for token in tokens:
        if not isinstance(token, str):
            raise EngineError("token_type", token=token)
    if not tokens:
        raise EngineError("no_tokens")
    if len(tokens) > MAX_TOKENS:
        raise EngineError("token_cap", count=len(tokens), limit=MAX_TOKENS)
    if isinstance(hidden_size, bool) or not isinstance(hidden_size, (int, np.integer)):
        raise EngineError("whole_number", name="hidden_size", value=hidden_size)
    if hidden_size < 1:
        raise EngineError("at_least_one", name="hidden_size", value=hidden_size)
    half = (hidden_size + 1) // 2
    rows = np.empty((len(tokens), hidden_size), dtype=np.float64)
    for t, token in enumerate(tokens):
        raw = hashlib.shake_256(b"dualview/embed/v1\0" + token.encode("utf-8", "surrogatepass"))
        bits = np.frombuffer(raw.digest(16 * half), dtype="<u8").reshape(half, 2)
        # 53 random bits -> uniform in (0, 1], then Box-Muller: deterministic, portable
        u1 = ((bits[:, 0] >> np.uint64(11)).astype(np.float64) + 1.0) * 2.0**-53
        u2 = (bits[:, 1] >> np.uint64(11)).astype(np.float64) * 2.0**-53
        radius = np.sqrt(-2.0 * np.log(u1))
        pairs = np.stack([radius * np.cos(2 * np.pi * u2), radius * np.sin(2 * np.pi * u2)], 1)
        rows[t] = pairs.ravel()[:hidden_size]
    return rows
