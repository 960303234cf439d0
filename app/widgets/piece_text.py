"""One model token shown on its own, readable: what a next-token list or a logit-lens row draws.

A byte-level token is shown as the text its bytes are (``Ġthe`` is "␣the": a visible space, so
a word and the same word after a space read apart); a token that is only part of a character
(a Chinese character split over two byte tokens) shows its bytes, ``‹e6 88›``; a special token
its own text; a padding row (an id past the tokenizer's vocabulary) ``#id``.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.model import Piece, Qwen3Model

#: Shown for characters that would be invisible or break the line.
_VISIBLE = str.maketrans({" ": "␣", "\n": "↵", "\t": "⇥", "\r": "␍"})


@dataclass(frozen=True)
class ShownPiece:
    """``text`` to draw, ``special`` (styled apart), and ``tip``: the id and the raw token."""

    token_id: int
    text: str
    special: bool
    raw: str


def piece_text(piece: Piece, token_id: int) -> str:
    """The readable text of one token seen alone."""
    if piece.special:
        return piece.raw
    if not piece.data:
        return f"#{token_id}"
    try:
        text = piece.data.decode("utf-8")
    except UnicodeDecodeError:  # part of a character: its bytes
        return "‹" + " ".join(f"{b:02x}" for b in piece.data) + "›"
    shown = text.translate(_VISIBLE)
    if not shown.isprintable():  # a control character (U+0007) draws as an empty box
        return "‹" + " ".join(f"{b:02x}" for b in piece.data) + "›"
    return shown


def shown_pieces(model: Qwen3Model, ids: list[int]) -> list[ShownPiece]:
    """Each id as a token on its own (never completed by its neighbours in the list)."""
    shown = []
    for token_id in ids:
        (piece,) = model.pieces([token_id])
        shown.append(ShownPiece(int(token_id), piece_text(piece, int(token_id)),
                                piece.special, piece.raw))
    return shown
