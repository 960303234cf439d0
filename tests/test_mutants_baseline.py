"""Tests that kill mutants of app/baseline.py the other tests let live (docs/testing.md): the
baseline the causality verdict names and compares with, in each branch of the rule."""

import itertools

import pytest

import engine
from app.baseline import KEEP, BaselineChooser, baseline_of
from app.compute import Baseline, Request, Result, compute
from engine import LayerWeights, Qwen3Config

TOY = Qwen3Config.toy()
WEIGHTS = LayerWeights.random(TOY, 0)
OTHER = LayerWeights.random(TOY, 1)
_ids = itertools.count(1000)


def result(text, causal=True, weights=WEIGHTS):
    return compute(Request(next(_ids), text, TOY, weights, causal=causal))


def tokens(text):
    return tuple(engine.tokenize(text))


def test_baseline_of_copies_what_the_comparison_needs():
    r = result("a b c")
    assert baseline_of(r) == Baseline("previous", "a b c", ("a", "b", "c"), r.trace,
                                      r.request_id)
    assert baseline_of(r, "pinned").kind == "pinned"


def test_keep_must_be_at_least_one_and_one_keeps_one():
    with pytest.raises(ValueError, match="keep must be at least 1, got 0"):
        BaselineChooser(0)
    chooser = BaselineChooser(1)
    a, b = result("a b c"), result("a b d")
    chooser.accept(a)
    chooser.accept(b)
    assert [x.request_id for x in chooser.recent] == [b.request_id]
    assert KEEP == 6 and BaselineChooser().recent == ()


def test_nothing_accepted_chooses_nothing():
    assert BaselineChooser().choose(tokens("a b"), WEIGHTS, True) is None
    assert BaselineChooser().pinned is None


def test_an_error_result_is_not_remembered():
    chooser = BaselineChooser()
    good = result("a b c")
    chooser.accept(good)
    chooser.accept(Result(next(_ids), "bad", error="refused"))
    assert [b.request_id for b in chooser.recent] == [good.request_id]
    assert chooser.choose(tokens("a b"), WEIGHTS, True).request_id == good.request_id


def test_the_most_recent_sentence_of_as_many_tokens_is_chosen():
    chooser = BaselineChooser()
    old, recent, last = result("a b c"), result("a b d"), result("a b")
    for r in (old, recent, last):
        chooser.accept(r)
    chosen = chooser.choose(tokens("a b e"), WEIGHTS, True)
    assert chosen == Baseline("earlier", "a b d", recent.tokens, recent.trace,
                              recent.request_id)
    # the input just before, of as many tokens: the same baseline, named "previous"
    chooser.accept(r4 := result("a b f"))
    assert chooser.choose(tokens("a b g"), WEIGHTS, True) == baseline_of(r4)


def test_the_empty_input_has_no_candidate_but_the_previous():
    chooser = BaselineChooser()
    chooser.accept(r := result("a b"))
    assert chooser.choose((), WEIGHTS, True) == baseline_of(r)


def test_a_new_length_or_first_token_falls_back_to_the_previous():
    chooser = BaselineChooser()
    first, last = result("a b c"), result("x y")
    chooser.accept(first)
    chooser.accept(last)
    assert chooser.choose(tokens("a b"), WEIGHTS, True) == baseline_of(last)  # other length
    assert chooser.choose(tokens("q b c"), WEIGHTS, True) == baseline_of(last)  # other start


def test_the_other_mask_chooses_the_previous_even_with_a_matching_sentence():
    chooser = BaselineChooser()
    first, last = result("a b c"), result("a b")
    chooser.accept(first)
    chooser.accept(last)
    assert chooser.choose(tokens("a b d"), WEIGHTS, False) == baseline_of(last)


def test_a_result_under_the_other_mask_or_weights_restarts_the_list():
    chooser = BaselineChooser()
    chooser.accept(result("a b c"))
    chooser.accept(off := result("a b d", causal=False))
    assert [b.request_id for b in chooser.recent] == [off.request_id]
    chooser.accept(other := result("a b e", causal=False, weights=OTHER))
    assert [b.request_id for b in chooser.recent] == [other.request_id]
    chooser.accept(same := result("a b f", causal=False, weights=OTHER))
    assert [b.request_id for b in chooser.recent] == [other.request_id, same.request_id]


def test_the_previous_input_under_other_weights_is_named_without_its_trace():
    chooser = BaselineChooser()
    chooser.accept(r := result("a b c"))
    assert chooser.choose(tokens("a b d"), OTHER, True) == Baseline(
        "previous", "a b c", r.tokens, None, r.request_id)
    assert chooser.choose(tokens("a b d"), WEIGHTS, True).trace is r.trace


def test_the_pin_under_the_same_or_other_weights_and_its_release():
    chooser = BaselineChooser()
    pinned = result("a b c")
    chooser.accept(pinned)
    chooser.accept(last := result("a b d"))
    chooser.pin(pinned)
    assert chooser.pinned == baseline_of(pinned, "pinned")
    assert chooser.choose(tokens("x"), WEIGHTS, False) == baseline_of(pinned, "pinned")
    assert chooser.choose(tokens("x"), OTHER, True) == Baseline(
        "pinned", "a b c", pinned.tokens, None, pinned.request_id)
    chooser.pin(pinned)  # pinning it again changes nothing
    assert chooser.pinned == baseline_of(pinned, "pinned")
    chooser.pin(Result(next(_ids), "bad", error="refused"))  # an error result releases
    assert chooser.pinned is None
    chooser.pin(pinned)
    chooser.pin(other := result("z"))  # another result replaces the pin
    assert chooser.pinned == baseline_of(other, "pinned")
    chooser.pin(None)
    assert chooser.pinned is None
    assert chooser.choose(tokens("a b e"), WEIGHTS, True) == baseline_of(last)


def test_the_empty_text_forgets_the_previous_and_the_weights():
    chooser = BaselineChooser()
    chooser.accept(result("a b c", causal=False))
    chooser.accept(None)
    assert chooser.choose(tokens("a b c"), WEIGHTS, True) is None
    chooser.accept(r := result("a b c"))
    chooser.accept(result("a b"))
    # the list started again under the new key: "a b c" is a candidate
    assert chooser.choose(tokens("a b d"), WEIGHTS, True).request_id == r.request_id
