"""A model's own tokenizer (its ``tokenizer.json`` through Hugging Face's ``tokenizers``) and
the readable pieces of its ids.

Byte-level BPE (Qwen's, GPT-2's) stores each token as characters that stand for bytes
(``Ġ`` is the byte of a space, so ``Ġthe`` is " the"); a Chinese character is three UTF-8
bytes and may be split over several tokens, none of which is text on its own.
:func:`token_pieces` turns raw token strings into their bytes and the text they complete.
"""

from __future__ import annotations

import codecs
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from engine.errors import EngineError
from engine.model_files import file_size

#: Qwen3's tokenizer.json is ~11 MB.
MAX_TOKENIZER_BYTES = 64 << 20


@lru_cache(maxsize=1)
def _byte_of_char() -> dict[str, int]:
    """GPT-2's byte-to-character table, inverted: printable bytes stand for themselves, the
    others (space, control bytes, 127-160, 173) are shifted to characters from U+0100 on."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1),
                 *range(ord("®"), ord("ÿ") + 1)]
    chars = list(printable)
    shift = 0
    for byte in range(256):
        if byte not in printable:
            printable.append(byte)
            chars.append(256 + shift)
            shift += 1
    return {chr(c): b for b, c in zip(printable, chars, strict=True)}


@dataclass(frozen=True)
class Piece:
    """One token for display: ``raw`` as tokenizer.json stores it, ``data`` its bytes,
    ``text`` the characters these bytes complete (with the bytes of earlier tokens still
    waiting; "" while a character is incomplete, U+FFFD for bytes that are no UTF-8), and
    whether it is a special token (``<|im_start|>``)."""

    raw: str
    data: bytes
    text: str
    special: bool


def token_pieces(raw_tokens: Sequence[str], *, added: Collection[str] = (),
                 special: Collection[str] = ()) -> tuple[Piece, ...]:
    """Readable pieces of consecutive tokens. ``added``: tokens stored as their own text
    (tokenizer.json's ``added_tokens``, special or not); ``special``: those marked special.
    An added token ends any character left incomplete before it (shown as U+FFFD)."""
    table = _byte_of_char()
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    pieces = []
    for raw in raw_tokens:
        if raw in added or raw in special:
            pending = decoder.decode(b"", final=True)
            decoder.reset()
            data = raw.encode("utf-8")
            pieces.append(Piece(raw, data, pending + raw, raw in special))
            continue
        # a character outside the table is not a byte-level token: kept as its own UTF-8
        data = b"".join(bytes([table[c]]) if c in table else c.encode("utf-8") for c in raw)
        pieces.append(Piece(raw, data, decoder.decode(data), False))
    return tuple(pieces)


class ModelTokenizer:
    """``tokenizer.json`` read with ``tokenizers``: HF's ids exactly, no special tokens
    added, special tokens typed in the text recognised (as ``AutoTokenizer`` does)."""

    def __init__(self, path: Path, vocab_size: int) -> None:
        from tokenizers import Tokenizer  # (imported when a model is opened)

        size = file_size(path)
        if size > MAX_TOKENIZER_BYTES:
            raise EngineError("model_file_too_large", path=path, size=size,
                              limit=MAX_TOKENIZER_BYTES)
        try:
            text = path.read_bytes().decode("utf-8")
            self._tokenizer = Tokenizer.from_str(text)
        except OSError as exc:
            raise EngineError("model_unreadable", path=path, reason=exc.strerror or exc) from None
        except Exception as exc:  # tokenizers raises its own Exception for a bad file
            raise EngineError("model_tokenizer", path=path, reason=exc) from None
        vocab = self._tokenizer.get_vocab(with_added_tokens=True)
        token, top = max(vocab.items(), key=lambda item: item[1], default=("", -1))
        if top >= vocab_size:
            raise EngineError("model_tokenizer_vocab", path=path, token=token, id=top,
                              vocab_size=vocab_size)
        decoder = self._tokenizer.get_added_tokens_decoder()
        self._added = frozenset(t.content for t in decoder.values())
        self._special = frozenset(t.content for t in decoder.values() if t.special)
        self.path = path

    def encode(self, text: str) -> list[int]:
        if not isinstance(text, str):
            raise EngineError("text_type", got=type(text).__name__)
        return list(self._tokenizer.encode(text, add_special_tokens=False).ids)

    def raw_tokens(self, ids: Sequence[int]) -> list[str]:
        """Each id's token string as tokenizer.json stores it ("" for a padding row's id)."""
        return [self._tokenizer.id_to_token(i) or "" for i in ids]

    def pieces(self, ids: Sequence[int]) -> tuple[Piece, ...]:
        return token_pieces(self.raw_tokens(ids), added=self._added, special=self._special)
