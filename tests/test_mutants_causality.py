"""Tests that kill mutants of engine/causality.py the other fast tests let live
(docs/testing.md): the entry-by-entry definition of a row's largest |difference|, which decides
the causality figure's masked rows (−∞ against −∞ is no difference, a NaN shows)."""

import numpy as np
import pytest

from engine.causality import _exact_row_max, _row_max_abs_diff

INF = np.inf


def test_the_definition_row_by_row():
    a = np.array([[1.0, -INF, 3.0], [np.nan, 2.0, 2.0], [0.0, 0.0, 0.0]])
    b = np.array([[1.0, -INF, 5.0], [1.0, 2.0, 2.0], [0.0, 0.0, 0.0]])
    out = _exact_row_max(a, b, 0)
    assert out[0] == 2.0  # |3 − 5|, the −∞ pair counting 0 (not NaN)
    assert np.isnan(out[1])  # a NaN is shown, never hidden
    assert out[2] == 0.0
    assert list(_exact_row_max(b, a, 0)[[0, 2]]) == [2.0, 0.0]  # |·|: the order is no matter


def test_the_definition_along_a_middle_axis_and_for_empty_rows():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 3, 4))
    b = a.copy()
    b[1, 2, 3] -= 0.5
    b[0, 0, 1] += 0.25
    assert list(_exact_row_max(a, b, 1)) == [0.25, 0.0, 0.5]
    assert list(_exact_row_max(np.zeros((2, 0)), np.zeros((2, 0)), 0)) == [0.0, 0.0]


def test_masked_rows_compare_the_minus_infinities_as_equal():
    """A causal_mask block: row k is query k, keys after it −∞ in both traces."""
    t = 5
    a = np.triu(np.full((2, t, t), -INF), 1) + np.tril(np.ones((2, t, t)))
    b = a.copy()
    b[1, 3, 2] = 4.0  # query 3, an earlier key: a real difference of 3
    out = _row_max_abs_diff(a, b, 1, masked_from=0)
    assert list(out) == [0.0, 0.0, 0.0, 3.0, 0.0]


def test_the_fast_path_falls_back_to_the_definition_for_nan_and_infinities():
    a = np.array([[1.0, np.nan], [2.0, 3.0], [-INF, 1.0]])
    b = np.array([[1.0, np.nan], [2.0, 4.0], [-INF, 2.0]])
    out = _row_max_abs_diff(a, b, 0)
    assert np.isnan(out[0]) and list(out[1:]) == [1.0, 1.0]


def test_masked_rows_right_of_the_diagonal_and_in_later_blocks():
    # rows are queries 2 and 3 of a causal_mask step (keys on the last axis)
    a = np.array([[0.0, 1.0, 2.0, -INF, -INF], [0.0, 1.0, 2.0, 3.0, -INF]])
    b = a.copy()
    b[0, 1] += 0.5  # left of the diagonal
    b[1, 4] = 7.0  # right of the block's square: not −∞ in one trace
    out = _row_max_abs_diff(a, b, 0, masked_from=2)
    assert out[0] == 0.5 and out[1] == INF
    # rows in two blocks (4 rows × 65536 keys: two rows a block), masked and not
    t, keys = 4, 1 << 16
    a = np.zeros((t, keys))
    for i in range(t):
        a[i, i + 1:] = -INF
    b = a.copy()
    b[2, 0] = 0.5
    b[3, 1] = 0.25
    assert list(_row_max_abs_diff(a, b, 0, masked_from=0)) == [0.0, 0.0, 0.5, 0.25]
    finite_a, finite_b = np.zeros((t, keys)), np.zeros((t, keys))
    finite_b[3, 7] = 2.0
    assert list(_row_max_abs_diff(finite_a, finite_b, 0)) == [0.0, 0.0, 0.0, 2.0]


def test_a_non_trace_is_named_in_the_refusal():
    import pytest

    from engine import LayerWeights, Qwen3Config, embed, run_layer
    from engine.causality import compare_traces
    from engine.errors import EngineError

    toy = Qwen3Config.toy()
    trace = run_layer(embed(["a"], toy.hidden_size), LayerWeights.random(toy, 0), toy)
    with pytest.raises(EngineError) as before:
        compare_traces("x", trace)
    assert before.value.code == "trace_type" and before.value.params == {"name": "before",
                                                                         "got": "str"}
    with pytest.raises(EngineError) as after:
        compare_traces(trace, 3)
    assert after.value.params == {"name": "after", "got": "int"}


def _traces(words_before, words_after):
    from engine import LayerWeights, Qwen3Config, embed, run_layer

    config = Qwen3Config.toy()
    weights = LayerWeights.random(config, seed=5)
    return tuple(run_layer(embed(words, config.hidden_size), weights, config)
                 for words in (words_before, words_after))


@pytest.mark.parametrize("edited", [11, 1])
def test_the_scores_per_position_are_the_definition_when_earlier_columns_are_gathered(edited):
    """12 tokens, one edited: one changed key column (< 12 // 4), so the earlier rows' scores
    are compared on the gathered column only; every row is still max |a - b|. (Edited at 1:
    one earlier row, whose index is not the changed column's.)"""
    from engine import compare_traces

    words = [f"w{i}" for i in range(12)]
    after_words = [*words[:edited], "dog", *words[edited + 1:]]
    before, after = _traces(words, after_words)
    report = compare_traces(before, after)
    assert report.first_changed == edited
    definition = np.abs(before["attn_scores"] - after["attn_scores"]).max(axis=(0, 2))
    np.testing.assert_array_equal(report.per_position["attn_scores"], definition)
    assert definition[:edited].min() > 0  # the edited key changes every earlier query's scores


def test_an_earlier_row_that_differs_is_seen_even_when_the_last_earlier_row_is_equal():
    from dataclasses import replace

    from engine import compare_traces
    from engine.steps import Step

    before, after = _traces(["a", "b", "c"], ["a", "b", "d"])
    steps = list(after.steps)
    i = next(k for k, s in enumerate(steps) if s.name == "q_proj")
    moved = steps[i].array.copy()
    moved[0, 0] += 1.0  # row 0 differs, row 1 (the last earlier row) does not
    steps[i] = Step(steps[i].info, moved, steps[i].causal)
    report = compare_traces(before, replace(after, steps=tuple(steps)))
    assert report.first_changed == 2
    assert report.earlier_rows_bitwise_equal["q_proj"] is False and not report.exact
    assert report.earlier_max_abs_diff["q_proj"] == abs(moved[0, 0] - before["q_proj"][0, 0])


def test_a_big_steps_earlier_rows_are_np_array_equal():
    """At 200 tokens the T × T steps take the big steps' comparison (the equality of the earlier
    rows, then the later rows' differences): an earlier row changed in one trace, or a NaN in
    both, is reported as np.array_equal of the earlier rows says, and every row's largest
    |difference| is its definition."""
    from dataclasses import replace

    from engine import compare_traces
    from engine.causality import _SMALL
    from engine.steps import Step

    words = [f"w{i}" for i in range(200)]
    before, after = _traces(words, [*words[:-1], "dog"])
    # the T × T steps take the big steps' branch, the [T, 16] ones the small steps'
    assert before["attn_probs"].size > _SMALL >= before["q_proj"].size

    def changed(trace, name, where, value):
        steps = list(trace.steps)
        i = next(k for k, s in enumerate(steps) if s.name == name)
        array = steps[i].array.copy()
        array[where] = value
        steps[i] = Step(steps[i].info, array, steps[i].causal)
        return replace(trace, steps=tuple(steps))

    def definition(x, y):  # max |x − y| per query row, equal entries (−∞ too) counting 0
        with np.errstate(invalid="ignore"):
            gaps = np.where(x != y, np.abs(x - y), 0.0)
        return gaps.max(axis=(0, 2))

    def per_position_is_the_definition(report, pair):
        for name in ("attn_scores", "causal_mask", "attn_probs"):
            np.testing.assert_array_equal(report.per_position[name],
                                          definition(pair[0][name], pair[1][name]), name)

    report = compare_traces(before, after)
    assert report.exact and not report.earlier_rows_bitwise_equal["attn_scores"]  # the new key
    per_position_is_the_definition(report, (before, after))
    assert report.per_position["attn_probs"][-1] > 0  # the edited row, compared in full
    cases = [("attn_probs", (1, 60, 3), 0.5), ("causal_mask", (3, 5, 2), 1.0),
             ("causal_mask", (0, 100, 150), 0.0), ("attn_scores", (2, 7, 3), 9.0)]
    for name, where, value in cases:
        for pair in [(before, changed(after, name, where, value)),
                     (changed(before, name, where, np.nan), changed(after, name, where, np.nan))]:
            report = compare_traces(*pair)
            earlier = [trace[name][:, :199] for trace in pair]
            assert report.earlier_rows_bitwise_equal[name] is False
            per_position_is_the_definition(report, pair)
            assert report.earlier_rows_bitwise_equal[name] == np.array_equal(*earlier)
            assert not report.exact or name == "attn_scores"
    # the scores' counts against their definition when an earlier column before the edit moved
    report = compare_traces(before, changed(after, "attn_scores", (2, 7, 3), 9.0))
    differs = before["attn_scores"] != changed(after, "attn_scores", (2, 7, 3), 9.0)["attn_scores"]
    assert report.scores_changed_count == np.count_nonzero(differs[:, :199]) == 4 * 199 + 1
    assert report.scores_changed_future_only is False
    assert compare_traces(before, after).scores_changed_future_only is True
