"""The causality baseline's rule (app.baseline), without a window: BackSpace then a new last
character is compared with the sentence before the edit began, not the shorter one between."""

import gc
import itertools
import weakref
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from app.baseline import KEEP, BaselineChooser
from app.compute import Request, compute
from engine import LayerWeights, Qwen3Config

TOY = Qwen3Config.toy()
WEIGHTS = LayerWeights.random(TOY, 0)
_ids = itertools.count(1)


def result(text, causal=True, weights=WEIGHTS):
    return compute(Request(next(_ids), text, TOY, weights, causal=causal))


def tokens(text):
    return tuple(engine.tokenize(text))


def typed(chooser, *texts, causal=True, weights=WEIGHTS):
    """Accept each text's result in turn (as the state does when each is shown)."""
    results = [result(t, causal, weights) for t in texts]
    for r in results:
        chooser.accept(r)
    return results


def test_backspace_then_a_new_last_character_compares_with_the_sentence_before():
    chooser = BaselineChooser()
    full, _shorter = typed(chooser, "我爱北京天安门", "我爱北京天安")
    chosen = chooser.choose(tokens("我爱北京天安广"), WEIGHTS, True)
    assert chosen.kind == "earlier" and chosen.request_id == full.request_id
    assert chosen.text == "我爱北京天安门" and chosen.trace is full.trace


def test_two_backspaces_and_two_new_characters():
    chooser = BaselineChooser()
    full, *_between = typed(chooser, "我爱北京天安门", "我爱北京天安", "我爱北京天",
                            "我爱北京天东")
    assert chooser.choose(tokens("我爱北京天东西"), WEIGHTS, True).request_id == full.request_id


def test_the_input_just_before_of_as_many_tokens_is_the_previous_one():
    chooser = BaselineChooser()
    _old, last = typed(chooser, "a b c", "a b d")
    chosen = chooser.choose(tokens("a b e"), WEIGHTS, True)
    assert chosen.kind == "previous" and chosen.request_id == last.request_id


def test_a_new_length_with_no_earlier_sentence_of_it_is_compared_with_the_previous():
    chooser = BaselineChooser()
    _a, last = typed(chooser, "a b", "a b c")
    chosen = chooser.choose(tokens("a b c d"), WEIGHTS, True)
    assert chosen.kind == "previous" and chosen.request_id == last.request_id


def test_a_sentence_that_shares_no_first_token_is_not_the_one_before_the_edit():
    """Retyping a whole new sentence: the old one of as many tokens is another sentence."""
    chooser = BaselineChooser()
    _old, _x, last = typed(chooser, "a b c", "z", "z y")
    assert chooser.choose(tokens("z y x"), WEIGHTS, True).request_id == last.request_id


def test_the_pin_wins_and_is_named():
    chooser = BaselineChooser()
    pinned, _x = typed(chooser, "a b c", "a b")
    chooser.pin(pinned)
    chosen = chooser.choose(tokens("a b d"), WEIGHTS, True)
    assert chosen.kind == "pinned" and chosen.request_id == pinned.request_id
    chooser.pin(None)
    assert chooser.choose(tokens("a b d"), WEIGHTS, True).kind == "earlier"


def test_other_weights_are_never_compared_and_the_list_starts_again():
    chooser = BaselineChooser()
    typed(chooser, "a b c", "a b")
    other = LayerWeights.random(TOY, 1)
    chosen = chooser.choose(tokens("a b d"), other, True)
    assert chosen.kind == "previous" and chosen.trace is None  # named: "the layer changed"
    new, _ = typed(chooser, "a b e", "a b", weights=other)
    chosen = chooser.choose(tokens("a b f"), other, True)
    assert chosen.request_id == new.request_id and chosen.trace is new.trace
    assert all(b.request_id != 1 for b in chooser.recent)


def test_the_other_mask_is_never_the_sentence_before_and_restarts_the_list():
    chooser = BaselineChooser()
    typed(chooser, "a b c", "a b")
    (off,) = typed(chooser, "a b", causal=False)
    # under the mask off: the masked "a b c" is no candidate
    chosen = chooser.choose(tokens("a b d"), WEIGHTS, False)
    assert chosen.request_id == off.request_id and chosen.kind == "previous"
    assert [b.request_id for b in chooser.recent] == [off.request_id]
    # switching the mask back: the previous input is named (it cannot be compared)
    chosen = chooser.choose(tokens("a b"), WEIGHTS, True)
    assert chosen.request_id == off.request_id and not chosen.trace.causal


def test_the_empty_text_forgets_and_the_list_is_bounded():
    chooser = BaselineChooser()
    typed(chooser, *(f"a {'b ' * i}" for i in range(KEEP + 4)))
    assert len(chooser.recent) == KEEP
    chooser.accept(None)
    assert chooser.recent == () and chooser.choose(tokens("a"), WEIGHTS, True) is None


def test_the_same_result_told_twice_is_kept_once():
    chooser = BaselineChooser()
    (r,) = typed(chooser, "a b")
    chooser.accept(r)
    assert len(chooser.recent) == 1


_POOL = {text: result(text) for text in
         ("a", "b", "a b", "a c", "b b", "a b c", "a c c", "b c a", "a a a")}


def fresh(text):
    """A result of ``text`` with an id and a trace object of its own (cheaper than computing
    the toy layer again: the chooser compares identities, not numbers)."""
    r = _POOL[text]
    return replace(r, request_id=next(_ids), trace=replace(r.trace))


def rule(history, new_tokens):
    """The rule's second and third steps written from the docstring alone: among the last
    KEEP accepted inputs, the most recent with as many tokens and the same first token, else
    the input just before."""
    last = history[-1]
    for r in reversed(history[-KEEP:]):
        if len(r.tokens) == len(new_tokens) and r.tokens[0] == new_tokens[0]:
            return r, "previous" if r is last else "earlier"
    return last, "previous"


@settings(max_examples=150, deadline=None, database=None)
@given(st.lists(st.sampled_from(sorted(_POOL)), min_size=1, max_size=14),
       st.sampled_from(sorted(_POOL)))
def test_letting_superseded_traces_go_changes_no_choice(texts, new_text):
    chooser = BaselineChooser()
    history = [fresh(t) for t in texts]
    for r in history:
        chooser.accept(r)
    expected, kind = rule(history, tokens(new_text))
    chosen = chooser.choose(tokens(new_text), WEIGHTS, True)
    assert (chosen.request_id, chosen.kind) == (expected.request_id, kind)
    assert chosen.trace is expected.trace
    # one trace held per (length, first token): the newest of each
    held = [(len(b.tokens), b.tokens[0]) for b in chooser.recent if b.trace is not None]
    assert len(held) == len(set(held))
    assert [b.request_id for b in chooser.recent] == [r.request_id for r in history[-KEEP:]]


def test_replacing_the_last_word_again_and_again_holds_one_trace():
    chooser = BaselineChooser()
    results = [fresh(t) for t in ("a b", "a c", "a b", "a c", "a b")]
    alive = [weakref.ref(r.trace) for r in results]
    for r in results:
        chooser.accept(r)
    del results
    gc.collect()
    assert [ref() is not None for ref in alive] == [False, False, False, False, True]
