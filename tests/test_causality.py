"""What the causal mask guarantees, row by row (docs/continuous.md E11, E12)."""

import numpy as np
import pytest

from engine import (
    STEP_INFO,
    STEP_NAMES,
    EngineError,
    LayerWeights,
    Qwen3Config,
    compare_traces,
    embed,
    run_layer,
    tokenize,
)

CONFIGS = {
    "toy": Qwen3Config(),
    # Qwen3-0.6B's head shape (16 heads, 8 kv heads, head_dim 128) at a small hidden size
    "0.6B-heads": Qwen3Config(hidden_size=64, intermediate_size=96, num_attention_heads=16,
                              num_key_value_heads=8, head_dim=128, rope_theta=1e6),
    "mqa-g3": Qwen3Config(hidden_size=24, intermediate_size=40, num_attention_heads=3,
                          num_key_value_heads=1, head_dim=8),
}
LONG = ("Once upon a time , in a small village by the sea , there lived an old fisherman who "
        "went out every morning before dawn and came back only when the sun was low")
TEXTS = [
    "hi there",  # T = 2
    "the cat sat on the mat .",
    "我爱北京天安门，也爱长城！",
    "Hi 你好 👋 world, 模型 layer",
    LONG,  # T = 34
    LONG + " 。 完 结 束 了",  # T = 40
]
# steps computed token by token, before any token looks at another
PER_TOKEN_STEPS = STEP_NAMES[:STEP_NAMES.index("kv_repeat") + 1]


def _traces(config, tokens_before, tokens_after, causal=True, seed=0):
    weights = LayerWeights.random(config, seed)
    d = config.hidden_size
    return (run_layer(embed(tokens_before, d), weights, config, causal=causal),
            run_layer(embed(tokens_after, d), weights, config, causal=causal))


def _edited(tokens, index):
    replacement = "改" if tokens[index] != "改" else "换"
    return [*tokens[:index], replacement, *tokens[index + 1:]]


def _earlier_rows(trace, name, first):
    info = STEP_INFO[STEP_NAMES.index(name)]
    return np.moveaxis(trace[name], info.token_axis, 0)[:first]


def _assert_earlier_rows_bitwise(before, after, first, report):
    """Independent of the report: np.array_equal on every step's rows before ``first``."""
    for name in STEP_NAMES:
        equal = np.array_equal(_earlier_rows(before, name, first),
                               _earlier_rows(after, name, first))
        assert report.earlier_rows_bitwise_equal[name] == equal, name
        if name != "attn_scores":
            assert equal, f"{name}: an earlier row changed"
            assert report.earlier_max_abs_diff[name] == 0.0
    assert report.exact
    assert report.max_earlier_diff == 0.0


def _assert_scores_change_only_in_column(before, after, first, report):
    """Earlier rows of the raw scores differ exactly in the edited key's column."""
    changed = before["attn_scores"] != after["attn_scores"]  # [H, T, T]
    assert np.array_equal(report.scores_changed, changed)
    heads = changed.shape[0]
    expected = np.zeros((heads, first, changed.shape[2]), dtype=bool)
    expected[:, :, first] = True  # q_i · k_f for every head and every earlier query i
    assert np.array_equal(changed[:, :first], expected)
    assert report.scores_changed_count == heads * first
    assert report.scores_changed_future_only
    # causal_mask removes exactly those entries: after it, earlier rows are bitwise equal
    assert np.array_equal(_earlier_rows(before, "causal_mask", first),
                          _earlier_rows(after, "causal_mask", first))
    assert np.all(np.isneginf(after["causal_mask"][:, :first, first]))


@pytest.mark.parametrize("config_name", list(CONFIGS))
@pytest.mark.parametrize("text", TEXTS)
def test_editing_the_last_token_leaves_earlier_rows_bitwise_E11(config_name, text):
    config = CONFIGS[config_name]
    tokens = tokenize(text)
    t = len(tokens)
    assert 2 <= t <= 40
    before, after = _traces(config, tokens, _edited(tokens, t - 1))
    report = compare_traces(before, after)
    assert report.first_changed == t - 1
    assert report.changed
    _assert_earlier_rows_bitwise(before, after, t - 1, report)
    _assert_scores_change_only_in_column(before, after, t - 1, report)
    assert not report.earlier_rows_bitwise_equal["attn_scores"]
    # the edited row itself does change, all the way to the output
    for name in ("embed", "q_rope", "attn_probs", "o_proj", "resid_mlp"):
        assert report.per_position[name][t - 1] > 0
        assert np.all(report.per_position[name][: t - 1] == 0.0)


@pytest.mark.parametrize("config_name", list(CONFIGS))
@pytest.mark.parametrize("text", [TEXTS[1], TEXTS[2], TEXTS[4]])
def test_editing_a_middle_token_leaves_rows_before_it_bitwise(config_name, text):
    config = CONFIGS[config_name]
    tokens = tokenize(text)
    f = len(tokens) // 2
    before, after = _traces(config, tokens, _edited(tokens, f), seed=3)
    report = compare_traces(before, after)
    assert report.first_changed == f
    _assert_earlier_rows_bitwise(before, after, f, report)
    _assert_scores_change_only_in_column(before, after, f, report)
    # later tokens read the edited one: their rows change after attention
    for name in ("attn_probs", "attn_context", "resid_mlp"):
        assert np.all(report.per_position[name][f:] > 0), name
    # ... but per-token steps of later tokens do not
    for name in ("input_layernorm", "q_rope", "k_rope"):
        assert np.all(report.per_position[name][f + 1:] == 0.0), name


@pytest.mark.parametrize("config_name", list(CONFIGS))
@pytest.mark.parametrize("text", [TEXTS[0], TEXTS[2], TEXTS[5]])
def test_without_the_mask_earlier_rows_change(config_name, text):
    config = CONFIGS[config_name]
    tokens = tokenize(text)
    t = len(tokens)
    before, after = _traces(config, tokens, _edited(tokens, t - 1), causal=False)
    report = compare_traces(before, after)
    assert report.first_changed == t - 1
    assert not report.exact
    for name in STEP_NAMES:
        rows_equal = np.array_equal(_earlier_rows(before, name, t - 1),
                                    _earlier_rows(after, name, t - 1))
        assert report.earlier_rows_bitwise_equal[name] == rows_equal
        assert rows_equal == (name in PER_TOKEN_STEPS), name
    # every earlier token now reads the future: its output row moves
    assert np.all(report.per_position["resid_mlp"][: t - 1] > 0)
    assert report.max_earlier_diff > 1e-6


@pytest.mark.parametrize("config_name", list(CONFIGS))
@pytest.mark.parametrize("text", TEXTS[1:])
def test_appending_a_token_keeps_earlier_rows_to_rounding_E12(config_name, text):
    config = CONFIGS[config_name]
    tokens = tokenize(text)
    t = len(tokens)
    before, after = _traces(config, tokens, [*tokens, "新"])
    report = compare_traces(before, after)
    assert (report.num_tokens_before, report.num_tokens_after, report.common) == (t, t + 1, t)
    assert report.first_changed == t
    assert report.changed
    assert report.max_earlier_diff <= 1e-12
    # a new shape may change BLAS blocking, so even raw scores of earlier rows may move by
    # rounding (not bitwise: the report counts them), but only by rounding
    assert report.earlier_max_abs_diff["attn_scores"] <= 1e-12
    moved = before["attn_scores"] != after["attn_scores"][:, :t, :t]
    assert report.scores_changed_count == int(moved.sum())
    assert report.scores_changed_future_only == (not moved.any())  # no future column in common
    for step in before.steps:
        info = step.info
        index = tuple(slice(0, t) if "token" in axis else slice(None) for axis in info.axes)
        old, new = before[step.name], after[step.name][index]
        assert old.shape == new.shape
        finite = np.isfinite(old)
        assert np.array_equal(finite, np.isfinite(new))
        np.testing.assert_allclose(new[finite], old[finite], rtol=0, atol=1e-12,
                                   err_msg=step.name)
        assert report.per_position[step.name].shape == (t,)
    # the reverse comparison (dropping the last token) reads the same way
    back = compare_traces(after, before)
    assert back.first_changed == t and back.max_earlier_diff <= 1e-12


def test_same_input_reports_nothing_changed():
    config = CONFIGS["toy"]
    tokens = tokenize(TEXTS[2])
    before, after = _traces(config, tokens, list(tokens))
    report = compare_traces(before, after)
    t = len(tokens)
    assert report.first_changed == t
    assert not report.changed
    assert report.exact and report.scores_changed_count == 0
    assert not report.scores_changed.any()
    assert report.per_position_array.shape == (len(STEP_NAMES), t)
    assert not report.per_position_array.any()


def test_single_token_edit_and_prepend():
    config = CONFIGS["toy"]
    before, after = _traces(config, ["猫"], ["狗"])
    report = compare_traces(before, after)
    assert report.first_changed == 0 and report.exact  # no earlier rows: vacuously exact
    assert report.per_position["resid_mlp"][0] > 0
    tokens = tokenize(TEXTS[1])
    before, after = _traces(config, tokens, ["新", *tokens])
    report = compare_traces(before, after)
    assert report.first_changed == 0
    assert np.all(report.per_position["resid_mlp"] > 0)


def test_report_is_read_only_and_ordered():
    config = CONFIGS["toy"]
    tokens = tokenize(TEXTS[1])
    report = compare_traces(*_traces(config, tokens, _edited(tokens, 2)))
    assert report.step_names == STEP_NAMES
    assert list(report.per_position) == list(STEP_NAMES)
    assert not report.scores_changed.flags.writeable
    assert not report.per_position["embed"].flags.writeable
    with pytest.raises(TypeError):
        report.per_position["embed"] = np.zeros(3)  # type: ignore[index]
    np.testing.assert_array_equal(report.per_position_array[STEP_NAMES.index("o_proj")],
                                  report.per_position["o_proj"])


def test_mismatched_traces_are_an_error():
    tokens = tokenize(TEXTS[1])
    toy = CONFIGS["toy"]
    causal, _ = _traces(toy, tokens, tokens)
    full, _ = _traces(toy, tokens, tokens, causal=False)
    with pytest.raises(EngineError, match="causal"):
        compare_traces(causal, full)
    other_config = Qwen3Config(hidden_size=16, intermediate_size=64)
    other, _ = _traces(other_config, tokens, tokens)
    with pytest.raises(EngineError, match="different layer configs"):
        compare_traces(causal, other)
    with pytest.raises(EngineError, match="LayerTrace"):
        compare_traces(causal, np.zeros((3, 16)))
