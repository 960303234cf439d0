"""Tests that kill mutants of app/verdict.py the other tests let live (docs/testing.md).

Every case of :func:`app.verdict.decide` is checked as a whole :class:`Verdict` (colour, claim,
words, hint, big page, dashed line, baseline named, |Δ| quoted, whether the report shows), so
no field can change unseen. Where a case needs numbers a real pair of inputs cannot give on
purpose (a nonzero difference under the mask, a step just above E12's rounding floor), the
real report of an edit is copied with those fields replaced: ``decide`` only reads them.
"""

from dataclasses import replace
from types import MappingProxyType

import pytest

import engine
from app.compute import Baseline
from app.verdict import (
    E12_ATOL,
    MAX_QUOTED_TOKENS,
    Message,
    Quote,
    Token,
    Verdict,
    decide,
    fmt_diff,
    quote,
    token_spans,
)
from engine import STEP_NAMES, LayerWeights, Qwen3Config
from engine.causality import compare_traces

TOY = Qwen3Config.toy()
WEIGHTS = LayerWeights.random(TOY, 0)
STEPS = len(STEP_NAMES) - 1  # 22: the report holds embed too


def run(text, causal=True):
    tokens = tuple(engine.tokenize(text))
    return tokens, engine.run_layer(engine.embed(list(tokens), TOY.hidden_size), WEIGHTS, TOY,
                                    causal=causal)


def pair(before, after, causal=True, kind="previous"):
    """(tokens after, baseline, report) of ``after`` compared with ``before``."""
    before_tokens, before_trace = run(before, causal)
    tokens, trace = run(after, causal)
    baseline = Baseline(kind, before, before_tokens, before_trace, 7)
    return tokens, baseline, compare_traces(before_trace, trace)


def before(q, kind="previous", count=None):
    return Message("before", (q, Message(f"source_{kind}"), count))


def diffs(**nonzero):
    """An ``earlier_max_abs_diff`` with every step 0 but those named."""
    return MappingProxyType({name: float(nonzero.get(name, 0.0)) for name in STEP_NAMES})


# ----- the pin, and nothing compared -----

@pytest.mark.parametrize("causal, hint", [(True, "suggest_on"), (False, "suggest_off")])
def test_just_pinned_is_the_whole_quiet_page(causal, hint):
    tokens, _trace = run("我爱北京")
    detail = Message("pinned_detail", (Quote("我爱北京"), 4))
    assert decide(tokens, "我爱北京", causal, None, None, just_pinned=True) == Verdict(
        "quiet", "E11", Message("pinned_title"), (detail,), Message(hint), page=detail)


@pytest.mark.parametrize("causal", [True, False])
def test_the_first_input_compares_nothing(causal):
    tokens, _trace = run("a b c")
    hint = Message("suggest_on" if causal else "suggest_off")
    assert decide(tokens, "a b c", causal, None, None) == Verdict(
        "quiet", "E11", Message("none_title"), (Message("first_input"),), hint,
        page=Message("big_hint"))


@pytest.mark.parametrize("causal", [True, False])
def test_a_pin_under_the_other_mask_blocks_every_comparison(causal):
    tokens, other = run("a b c", causal=not causal)
    pin = Baseline("pinned", "a b c", tokens, other, 1)
    on_off = Message("on" if not causal else "off")  # the pin's mask is named
    reason = Message("pin_blocks", (on_off,))
    hint = Message("suggest_on" if causal else "suggest_off")
    assert decide(tokens, "a b c", causal, None, pin) == Verdict(
        "quiet", "E11", Message("none_title"), (reason,), hint, page=reason, baseline=pin)


@pytest.mark.parametrize("causal", [True, False])
def test_the_mask_switched_names_the_new_mask_and_no_baseline(causal):
    tokens, other = run("a b c", causal=not causal)
    previous = Baseline("previous", "a b c", tokens, other, 1)
    reason = Message("mask_switched", (Message("on" if causal else "off"),))
    hint = Message("suggest_on" if causal else "suggest_off")
    assert decide(tokens, "a b c", causal, None, previous) == Verdict(
        "quiet", "E11", Message("none_title"), (reason,), hint, page=Message("big_hint"))


def test_a_pin_under_other_weights_or_the_same_mask_is_a_changed_layer():
    tokens, same = run("a b c")
    expected = Verdict("quiet", "E11", Message("none_title"), (Message("layer_changed"),),
                       Message("suggest_on"), page=Message("big_hint"))
    for baseline in (Baseline("pinned", "a b c", tokens, None, 1),
                     Baseline("pinned", "a b c", tokens, same, 1),
                     Baseline("previous", "a b c", tokens, same, 1),
                     Baseline("earlier", "a b c", tokens, None, 1)):
        assert decide(tokens, "a b c", True, None, baseline) == expected


# ----- compared -----

@pytest.mark.parametrize("kind", ["previous", "earlier", "pinned"])
def test_the_same_tokens_say_so_and_name_the_baseline(kind):
    tokens, baseline, report = pair("a b c", "a  b c", kind=kind)
    assert decide(tokens, "a  b c", True, report, baseline) == Verdict(
        "quiet", "E11", Message("same_tokens"), (before(Quote("a b c"), kind, 3),),
        Message("suggest_on"), page=Message("big_hint"), baseline=baseline)


def test_a_missing_baseline_with_a_report_is_named_previous_and_quotes_its_tokens():
    tokens, _baseline, report = pair("a b c", "a b c")
    assert decide(tokens, "a b c", False, report, None) == Verdict(
        "quiet", "E11", Message("same_tokens"), (before(Quote(""), "previous", 3),),
        Message("suggest_off"), page=Message("big_hint"))
    # the token changed, no baseline to quote: its tokens are (), the report's k stands
    tokens, _baseline, report = pair("a b c", "a b d")
    v = decide(tokens, "a b d", True, report, None)
    assert v.detail[-1] == before(Quote(""), "previous", 3) and v.baseline is None


def test_the_first_token_changed_has_nothing_earlier_to_check():
    tokens, baseline, report = pair("a b c", "z b c")
    assert decide(tokens, "z b c", True, report, baseline) == Verdict(
        "quiet", "E11", Message("first_changed"), (before(Quote("", "a", " b c"), count=3),),
        Message("edit_later"), edited=None, baseline=baseline, earlier_max=0.0, compared=True)


def test_an_edit_under_the_mask_is_good_with_the_scores_of_its_key_alone():
    tokens, baseline, report = pair("我爱北京天安门", "我爱北京天安广")
    # each head's 6 earlier query rows meet the edited key once, before the mask
    assert report.scores_changed_count == TOY.num_attention_heads * 6
    scores = Message("scores_future", (STEPS,), count=TOY.num_attention_heads * 6)
    assert decide(tokens, "我爱北京天安广", True, report, baseline) == Verdict(
        "good", "E11", Message("bitwise", (Message("token_k", (6, Token("广"))),)),
        (scores, before(Quote("我爱北京天安", "门", ""), count=7)), Message("next_mask_off"),
        edited=6, baseline=baseline, earlier_max=0.0, compared=True)


def test_the_scores_sentence_of_each_kind_of_exact_report():
    tokens, baseline, report = pair("a b c d", "a b X d")
    title = Message("bitwise", (Message("token_k", (2, Token("X"))),))
    quoted = before(Quote("a b ", "c", " d"), count=4)
    none_changed = replace(report, scores_changed_count=0)
    assert decide(tokens, "a b X d", True, none_changed, baseline) == Verdict(
        "good", "E11", title, (Message("scores_all", (STEPS,)), quoted),
        Message("next_mask_off"), edited=2, baseline=baseline, earlier_max=0.0, compared=True)
    unmasked = replace(report, scores_changed_future_only=False)
    v = decide(tokens, "a b X d", True, unmasked, baseline)
    assert v.level == "good" and v.detail == (Message("scores_unexpected"), quoted)


@pytest.mark.parametrize("before_text, after_text, what, quoted", [
    ("a b c", "a b c d", "appended", Quote("a b c")),  # k past the old end: nothing marked
    ("a b c d", "a b c", "removed", Quote("a b c ", "d", ""))])
def test_a_change_of_length_at_the_end_is_e12_info(before_text, after_text, what, quoted):
    tokens, baseline, report = pair(before_text, after_text)
    n0, n1 = len(baseline.tokens), len(tokens)
    for earlier, tail in ((0.0, (Message("here_zero"),)), (3e-16, ())):
        forged = replace(report, earlier_max_abs_diff=diffs(resid_mlp=earlier))
        assert decide(tokens, after_text, True, forged, baseline) == Verdict(
            "info", "E12", Message("length_end", (n0, n1, Message(what), fmt_diff(earlier))),
            (before(quoted, count=n0), Message("e12_detail"), *tail),
            Message("keep_count"), edited=None, baseline=baseline, earlier_max=earlier,
            compared=True)


def test_a_change_of_length_with_an_edit_inside_names_the_edited_token():
    tokens, baseline, report = pair("a b c d", "a X c d e")
    forged = replace(report, earlier_max_abs_diff=diffs(q_proj=2.5))
    assert decide(tokens, "a X c d e", True, forged, baseline) == Verdict(
        "info", "E12",
        Message("length_mid", (4, 5, Message("token_k", (1, Token("X"))), "2.5")),
        (before(Quote("a ", "b", " c d"), count=4), Message("e12_detail")),
        Message("keep_count"), edited=1, baseline=baseline, earlier_max=2.5, compared=True)


def test_an_inexact_report_under_the_mask_is_a_warning_naming_the_first_changed_step():
    tokens, baseline, report = pair("a b c d", "a b X d")
    # attn_scores is left out under the mask (its future columns change by design)
    forged = replace(report, exact=False, earlier_max_abs_diff=diffs(
        attn_scores=9.0, attn_probs=1e-13, o_proj=0.5))
    steps = Message("steps_changed", (2, STEPS, str(STEP_NAMES.index("attn_probs")),
                                      "attn_probs"))
    assert decide(tokens, "a b X d", True, forged, baseline) == Verdict(
        "warn", "E11", Message("unexpected_on", ("0.5",)),
        (steps, before(Quote("a b ", "c", " d"), count=4)), Message("mask_back_on"),
        edited=2, baseline=baseline, earlier_max=0.5, compared=True)
    nothing = replace(report, exact=False, earlier_max_abs_diff=diffs())
    v = decide(tokens, "a b X d", True, nothing, baseline)
    assert v.detail[0] == Message("steps_changed", (0, STEPS, "–", ""))
    assert v.title == Message("unexpected_on", ("0",))


def test_the_mask_off_warns_with_the_larger_of_the_scores_and_the_rest():
    tokens, baseline, report = pair("a b c d", "a b c e", causal=False)
    token = Message("token_k", (3, Token("e")))
    quoted = before(Quote("a b c ", "d", ""), count=4)
    for scores, rest, shown in ((0.25, 0.125, 0.25), (0.125, 0.25, 0.25)):
        forged = replace(report, earlier_max_abs_diff=diffs(attn_scores=scores,
                                                            resid_mlp=rest))
        steps = Message("steps_changed", (2, STEPS, str(STEP_NAMES.index("attn_scores")),
                                          "attn_scores"))
        assert decide(tokens, "a b c e", False, forged, baseline) == Verdict(
            "warn", "E11", Message("mask_off_changed", (fmt_diff(shown), token)),
            (steps, quoted), Message("mask_back_on"), edited=3, baseline=baseline,
            earlier_max=shown, compared=True)


def test_after_a_change_of_length_rounding_below_e12s_floor_is_no_changed_step():
    tokens, baseline, report = pair("a b c d", "a b c", causal=False)
    forged = replace(report, earlier_max_abs_diff=diffs(
        q_proj=E12_ATOL, k_proj=2 * E12_ATOL, v_proj=E12_ATOL / 2))
    v = decide(tokens, "a b c", False, forged, baseline)
    assert v.level == "warn"
    assert v.detail[0] == Message("steps_changed", (1, STEPS, str(STEP_NAMES.index("k_proj")),
                                                    "k_proj"))
    # the token removed is named as it was before
    assert v.title.params[1] == Message("removed_token_k", (3, Token("d")))
    # at the same length every nonzero difference counts
    tokens, baseline, report = pair("a b c d", "a b c e", causal=False)
    forged = replace(report, earlier_max_abs_diff=diffs(q_proj=E12_ATOL / 2))
    v = decide(tokens, "a b c e", False, forged, baseline)
    assert v.detail[0].params[:2] == (1, STEPS)


def test_the_dashed_line_needs_an_earlier_row_and_a_later_common_one():
    assert decide(*_args("a b c d", "a X c d")).edited == 1  # k = 1: first possible
    assert decide(*_args("a b c d", "a b c X")).edited == 3  # k = common − 1: last possible
    assert decide(*_args("a b c d", "a b c d e")).edited is None  # k = common


def _args(before_text, after_text):
    tokens, baseline, report = pair(before_text, after_text)
    return tokens, after_text, True, report, baseline


# ----- the words' parts -----

def test_fmt_diff():
    assert [fmt_diff(v) for v in (0.0, -0.0, 2.5, 0.031, 8.9e-16, 0.123456)] == \
        ["0", "0", "2.5", "0.031", "8.9e-16", "0.12"]


def test_quote_plain_marks_the_edit_and_the_cuts():
    assert Quote("a ", "b", " c").plain == "a [b] c"
    assert Quote("a b").plain == "a b"
    assert Quote("x ", "y", "", cut_start=True, cut_end=True).plain == "… x [y] …"
    assert Quote("x", cut_end=True).plain == "x …"


def test_token_spans_in_order_or_none():
    assert token_spans("a b a", ["a", "b", "a"]) == [(0, 1), (2, 3), (4, 5)]
    assert token_spans("ab", ["b", "a"]) is None
    assert token_spans("abc", []) == []


def test_quote_edges():
    text = " ".join(f"w{i}" for i in range(40))
    tokens = engine.tokenize(text)
    # not this text's tokens: the tokens themselves, space-separated, cut after `most`
    assert quote("zzz", ["a", "b"]) == Quote("a b")
    assert quote("zzz", tokens) == Quote(" ".join(tokens[:12]), cut_end=True)
    assert quote("zzz", tokens[:12]) == Quote(" ".join(tokens[:12]))  # exactly `most`: no cut
    assert quote("", ()) == Quote("")
    # unmarked: the first `most` tokens as typed
    assert quote(text, tokens) == Quote(text[:text.index(" w12")], cut_end=True)
    assert quote(text, tokens, 40) == quote(text, tokens, -1) == quote(text, tokens)
    # the window moves only once the mark nears its right end
    assert quote(text, tokens, 9).cut_start is False
    q = quote(text, tokens, 10)
    assert q.cut_start and q.head.startswith("w1 ") and q.marked == "w10"
    q = quote(text, tokens, 39)
    assert q == Quote(text[text.index("w28"):text.index("w39")], "w39", "", cut_start=True)
    q = quote(text, tokens, 5, most=4)
    assert (q.head, q.marked, q.tail) == ("w4 ", "w5", " w6 w7") and q.cut_start and q.cut_end
    assert MAX_QUOTED_TOKENS == 12
    # as the tokenizer reads it: NFC
    assert quote("cafe\u0301 x", ("café", "x"), 0) == Quote("", "café", " x")
