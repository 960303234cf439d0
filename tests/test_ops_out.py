"""The engine's pieces that can write into given arrays (a thread's share writes straight into
the layer's steps) give the same bits as when they allocate."""

import numpy as np
import pytest

from engine import Qwen3Config, ops
from engine.blocking import attend
from engine.fastpath import _rope_tables, rope

RNG = np.random.default_rng(11)


def test_rms_norm_into_a_strided_view_is_the_same_bits():
    x = RNG.standard_normal((9, 4, 16))
    weight = RNG.standard_normal(16)
    whole = np.full((9, 8, 16), np.nan)
    out = whole[:, 2:6]  # a strided view, as a thread's heads are in the step
    result = ops.rms_norm(x, weight, 1e-6, out=out)
    assert result is out
    assert np.array_equal(out, ops.rms_norm(x, weight, 1e-6))
    assert np.isnan(whole[:, :2]).all() and np.isnan(whole[:, 6:]).all()  # nothing else


def test_rms_norm_refuses_out_where_it_would_not_write_it():
    with pytest.raises(ValueError, match="float64"):
        ops.rms_norm(np.ones((2, 4), dtype=np.float32), np.ones(4), 1e-6, out=np.empty((2, 4)))


@pytest.mark.parametrize("head_dim", [8, 64])  # the gathered and the half-slice RoPE
def test_rope_into_given_arrays_is_the_same_bits(head_dim):
    tables = _rope_tables(7, head_dim, 1e4)
    x = RNG.standard_normal((7, 3, head_dim)).transpose(1, 0, 2)  # [H, T, d], strided
    out = np.empty((3, 7, head_dim))
    assert rope(x, tables, out=out) is out
    assert np.array_equal(out, rope(x, tables))
    cos, sin, _ = tables
    out2 = np.empty_like(out)
    assert np.array_equal(ops.apply_rope(x, cos, sin, out=out2), ops.apply_rope(x, cos, sin))


@pytest.mark.parametrize("causal", [True, False])
def test_attend_into_given_arrays_is_the_same_bits(causal):
    config = Qwen3Config(hidden_size=64, intermediate_size=96, num_attention_heads=6,
                         num_key_value_heads=2, head_dim=16)
    t = 11
    query = RNG.standard_normal((6, t, 16))
    keys, values = RNG.standard_normal((2, t, 16)), RNG.standard_normal((2, t, 16))
    scores, masked, probs, context = attend(query, keys, values, config, causal)
    out = tuple(np.full((6, t, t), np.nan) for _ in range(3))
    s, m, p, c = attend(query, keys, values, config, causal, out=out)
    assert np.shares_memory(s, out[0]) and np.shares_memory(p, out[2])
    assert np.array_equal(out[0], scores) and np.array_equal(out[2], probs)
    assert np.array_equal(c, context)
    if causal:
        assert np.array_equal(out[1], masked)
    else:
        assert np.isnan(out[1]).all()  # left alone, as documented: masked is the scores
        assert np.shares_memory(m, out[0])


def test_attend_refuses_an_array_it_could_not_write_into():
    config = Qwen3Config(hidden_size=64, intermediate_size=96, num_attention_heads=6,
                         num_key_value_heads=2, head_dim=16)
    query = RNG.standard_normal((6, 5, 16))
    keys = values = RNG.standard_normal((2, 5, 16))
    strided = np.empty((6, 5, 10))[..., :5]
    with pytest.raises(ValueError, match="C-ordered"):
        attend(query, keys, values, config, True, out=(strided, strided, strided))
