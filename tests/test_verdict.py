"""What the causality inspector says, decided without a window (app.verdict): the colour of
each case, the baseline it names, and where the dashed line at the edited token goes."""

import pytest

import engine
from app.compute import Baseline
from app.verdict import Message, Quote, Token, decide, quote
from engine import LayerWeights, Qwen3Config
from engine.causality import compare_traces

TOY = Qwen3Config.toy()
WEIGHTS = LayerWeights.random(TOY, 0)


def run(text, causal=True):
    tokens = tuple(engine.tokenize(text))
    return tokens, engine.run_layer(engine.embed(list(tokens), TOY.hidden_size), WEIGHTS, TOY,
                                    causal=causal)


def verdict(before, after, causal=True, kind="previous"):
    """The verdict on ``after`` compared with ``before`` (both typed texts)."""
    before_tokens, before_trace = run(before, causal)
    tokens, trace = run(after, causal)
    baseline = Baseline(kind, before, before_tokens, before_trace, 1)
    return decide(tokens, after, causal, compare_traces(before_trace, trace), baseline)


def test_an_edit_of_the_last_token_is_good_and_bitwise_under_the_mask():
    v = verdict("我爱北京天安门", "我爱北京天安广")
    assert (v.level, v.claim) == ("good", "E11")
    assert v.title == Message("bitwise", (Message("token_k", (6, Token("广"))),))
    assert v.earlier_max == 0.0
    assert v.edited == 6  # the dashed line at the edited token
    assert v.compared and v.page is None


def test_the_dashed_line_stands_at_a_middle_edit_too():
    v = verdict("one two three four five", "one two THREE four five")
    assert v.level == "good" and v.edited == 2


@pytest.mark.parametrize("before, after, level, claim, title", [
    ("a b c d", "a b c e", "warn", "E11", "mask_off_changed"),  # the mask off
    ("a b c", "a b c d", "info", "E12", "length_end"),  # appended: allclose only
    ("a b c d", "a b c", "info", "E12", "length_end"),  # removed
    ("a b c d", "a X c d e", "info", "E12", "length_mid"),  # another length, edit inside
    ("a b c", "z b c", "quiet", "E11", "first_changed"),  # nothing earlier to check
    ("a b c", "a  b c", "quiet", "E11", "same_tokens"),  # the same tokens
])
def test_each_case_has_its_colour_and_claim(before, after, level, claim, title):
    causal = title != "mask_off_changed"
    v = verdict(before, after, causal=causal)
    assert (v.level, v.claim, v.title.id) == (level, claim, title)


def test_the_line_is_not_drawn_where_there_is_no_earlier_row_or_no_change():
    assert verdict("a b c", "z b c").edited is None  # k = 0
    assert verdict("a b c", "a b c d").edited is None  # k = common: nothing changed in it
    assert verdict("a b c", "a b c").edited is None


def test_the_baseline_named_is_the_one_compared_and_its_sentence_is_quoted_as_typed():
    v = verdict("我爱北京天安门", "我爱北京天安广", kind="earlier")
    assert v.baseline.kind == "earlier" and v.baseline.text == "我爱北京天安门"
    before = next(m for m in v.detail if m.id == "before")
    sentence, source, count = before.params
    assert source == Message("source_earlier") and count == 7
    # as typed (no spaces between the characters), the edited token marked
    assert sentence == Quote("我爱北京天安", "门", "")
    assert sentence.plain == "我爱北京天安[门]"


def test_nothing_compared_says_why():
    tokens, _trace = run("a b c")
    _t, other_mask = run("a b c", causal=False)
    first = decide(tokens, "a b c", True, None, None)
    assert first.level == "quiet" and first.detail == (Message("first_input"),)
    switched = decide(tokens, "a b c", True, None,
                      Baseline("previous", "a b c", tokens, other_mask, 1))
    assert switched.detail == (Message("mask_switched", (Message("on"),)),)
    layer = decide(tokens, "a b c", True, None, Baseline("previous", "a b c", tokens, None, 1))
    assert layer.detail == (Message("layer_changed"),)
    pin = decide(tokens, "a b c", True, None, Baseline("pinned", "a b c", tokens, other_mask, 1))
    assert pin.detail == (Message("pin_blocks", (Message("off"),)),) and pin.page == pin.detail[0]
    assert not any(v.compared for v in (first, switched, layer, pin))


def test_just_pinned_names_the_pin_as_typed():
    tokens, _trace = run("我爱北京")
    v = decide(tokens, "我爱北京", True, None, None, just_pinned=True)
    assert v.title == Message("pinned_title") and not v.compared
    assert v.detail[0].params == (Quote("我爱北京"), 4)


def test_a_long_sentence_is_quoted_around_its_edited_token():
    text = " ".join(f"w{i}" for i in range(40))
    tokens = engine.tokenize(text)
    q = quote(text, tokens, 30)
    assert q.marked == "w30" and q.cut_start and q.cut_end
    assert len(engine.tokenize(q.head + q.marked + q.tail)) == 12
    assert quote(text, tokens, 2).cut_start is False
