"""Right-to-left tokens (Hebrew, Arabic) stay in token order: on the chips and in the attention
readout, token i is drawn left of token i + 1 whatever the script. The causality panel quotes a
sentence as it was typed (it reads right to left, as typed), isolated so that it neither turns
the interface's left-to-right line around nor is reordered with it.

Positions are read from the layout Qt paints with (the label's own text document, its glyph
runs), not from the markup."""

import pytest
from PySide6.QtGui import QTextDocument

import engine
from app.compute import FSI, LRM, PDI

HEBREW = "שלום עולם"
ARABIC = "مرحبا بالعالم الجميل"


def painted_left(label, fragments: list[str]) -> list[float]:
    """The leftmost painted x of each fragment, found in order in the label's text."""
    label.grab()  # a label fills its document from its text lazily, when it paints
    doc = label.findChild(QTextDocument)
    assert doc is not None, "the label has no text document (not rich or selectable text)"
    plain = doc.toPlainText()
    xs, start = [], 0
    for fragment in fragments:
        at = plain.find(fragment, start)
        assert at >= 0, f"{fragment!r} not in {plain!r}"
        start = at + len(fragment)
        block = doc.findBlock(at)
        runs = block.layout().glyphRuns(at - block.position(), len(fragment))
        assert runs, f"{fragment!r} is not painted"
        xs.append(min(run.boundingRect().left() for run in runs))
    return xs


@pytest.mark.parametrize("text", [HEBREW, ARABIC, "hello " + HEBREW + " world"])
def test_chips_run_left_to_right_in_token_order(make_window, text):
    window = make_window(sync=True, text=text)
    tokens = engine.tokenize(text)
    assert len(tokens) >= 2
    chips = window.editor.chips
    # each chip is "index token": its index and its text, in the order of the tokens
    fragments = [piece for i, token in enumerate(tokens) for piece in (str(i), token.strip())]
    xs = painted_left(chips, fragments)
    assert xs == sorted(xs) and len(set(xs)) == len(xs), list(zip(fragments, xs, strict=True))


@pytest.mark.parametrize("text", [HEBREW, ARABIC])
def test_readouts_quote_tokens_in_token_order(make_window, qtbot, text):
    window = make_window(sync=True, text=text)
    tokens = [t.strip() for t in engine.tokenize(text)]
    causality = window.panels["causalityDock"]
    causality.pin_button.click()  # the baseline quoted as typed: “…” (n tokens) is the baseline
    qtbot.waitUntil(lambda: causality.is_current)
    label = causality.nothing
    assert LRM + FSI + text + PDI in label.text()
    xs = painted_left(label, tokens)
    assert xs == sorted(xs, reverse=True), list(zip(tokens, xs, strict=True))  # as typed
    # the line stays left to right: the quote first, then the interface's words after it
    _, after = painted_left(label, [tokens[0], "baseline"])
    assert max(xs) < after, (xs, after)

    attention = window.panels["attentionDock"]
    window.state.set_query(len(tokens) - 1)
    qtbot.waitUntil(lambda: attention.is_current and attention.shown_query == len(tokens) - 1)
    attention._show_hover(0, tooltip=False)  # "key 0 “…” → query n “…”"
    readout = attention.readout
    text_shown = readout.text()
    assert text_shown.index(FSI + tokens[0] + PDI) < text_shown.index(FSI + tokens[-1] + PDI)
    xs = painted_left(readout, [tokens[0], tokens[-1]])
    assert xs[0] < xs[1], (tokens, xs)
