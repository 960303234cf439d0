"""A toy offline tokenizer and deterministic embeddings, so a teacher can type anything.

Not a real Qwen tokenizer (that needs a 150k vocabulary); it keeps what a class can read:
Latin words and numbers whole, one token per Han character, punctuation and emoji as their
own tokens. Each token's embedding comes from SHAKE-256 of its text, so the same token has
the same vector on every run, platform and numpy version.
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
    """The tokens of NFC ``text``, character by character (what :func:`tokenize` does)."""
    tokens: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace() or (unicodedata.category(ch) in ("Cc", "Cf") and ch != _ZWJ):
            i += 1  # spaces, control and invisible format characters carry no token
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
                elif text[j] == _ZWJ and j + 1 < n and not text[j + 1].isspace():
                    j += 2
                else:
                    break
        piece = text[i:j]
        if not all(map(_is_invisible, piece)):  # a joiner or selector with nothing to join
            tokens.append(piece)
        i = j
    return tokens


def _is_invisible(ch: str) -> bool:
    """Zero-width joiner, variation selectors, tag characters: drawn as nothing alone."""
    cp = ord(ch)
    return (ch == _ZWJ or 0xFE00 <= cp <= 0xFE0F or 0xE0000 <= cp <= 0xE007F
            or 0xE0100 <= cp <= 0xE01EF)


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
