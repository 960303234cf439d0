"""The readable forward (engine.layer.forward, HF's Qwen3DecoderLayer step by step) and
run_layer's fast path compute the same layer: bit for bit where they run the same products
(the engine and BLAS on one thread, up to a few attention blocks), to 1e-13 where the fast path
or a multithreaded BLAS computes a product in pieces.

Where and why they may differ in the last bits: the fast path splits some matrix products that
the readable forward takes whole — attention in blocks of query rows (a long input), a big
input's q/k/v, gate/up and attention shared over threads by columns and head groups — and
stacks others that it takes apart (q/k/v_proj in one product). OpenBLAS picks its kernel by
the shape it is given (a small product goes to another kernel that sums the inner axis in
another order; a multithreaded BLAS splits a big product itself), and o_proj / down_proj under
thread sharing are sums of the threads' partial products. Each entry is still the same sum of
the same terms (~1e-16 apart).

Which shapes round alike depends on the kernels OpenBLAS picks for the CPU. The toy config
and the MHA config below give the same bits on both kinds this project runs on (Haswell's,
and the AVX-512 "SkylakeX" kernels of a current x86 server); the MQA config's narrow k/v
products (32 columns beside 256) and its blocked attention at T = 130 do not on the AVX-512
kernels, so it is held to 1e-13 (``test_mqa_agrees_to_1e_13``).
"""

from __future__ import annotations

import numpy as np
import pytest

from engine import (
    STEP_NAMES,
    EngineError,
    Intervention,
    LayerWeights,
    Qwen3Config,
    parallel,
    run_layer,
)
from engine.layer import forward

MHA = Qwen3Config(hidden_size=32, intermediate_size=48, num_attention_heads=4,
                  num_key_value_heads=4, head_dim=8)
MQA = Qwen3Config(hidden_size=64, intermediate_size=96, num_attention_heads=8,
                  num_key_value_heads=1, head_dim=32, rope_theta=1e6)
#: bit for bit on every OpenBLAS kernel tried (see the module's docstring)
CONFIGS = {"toy_gqa": Qwen3Config(), "mha": MHA}
MEDIUM = Qwen3Config(hidden_size=256, intermediate_size=1024, num_attention_heads=8,
                     num_key_value_heads=2, head_dim=32, rms_norm_eps=1e-6, rope_theta=1e6)
SOME = Intervention(zero_heads=(1,), head_scale={0: 0.5, 3: -2.0}, zero_neurons=(3, 7))
SKIPS = [Intervention(skip=("attention",), zero_heads=(2,)), Intervention(skip=("mlp",))]


@pytest.fixture
def one_thread():
    """The engine and BLAS on one thread each: a multithreaded BLAS splits a big product (the
    fast path's stacked q/k/v) into pieces, which may go to another kernel (see the module)."""
    before = parallel.workers()
    parallel.set_workers(1)
    with parallel.single_threaded_blas():
        yield
    parallel.set_workers(before)


@pytest.fixture
def split_everything(monkeypatch):
    before = parallel.workers()
    monkeypatch.setattr(parallel, "MIN_WORK", 0)
    parallel.set_workers(2)
    assert parallel.workers() == 2, "numpy's OpenBLAS was not found: nothing is shared out"
    yield
    parallel.set_workers(before)


def state(t: int, config: Qwen3Config, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed + t).standard_normal((t, config.hidden_size))


def assert_same_bits(fast, readable) -> None:
    assert list(readable) == list(STEP_NAMES)
    for name in STEP_NAMES:
        a, b = fast[name], readable[name]
        assert a.shape == b.shape and a.dtype == b.dtype == np.float64, name
        assert np.array_equal(a.view(np.int64), b.view(np.int64)), name


def assert_close(fast, readable, rtol: float = 1e-13) -> None:
    assert list(readable) == list(STEP_NAMES)
    for name in STEP_NAMES:
        a, b = fast[name], readable[name]
        assert a.shape == b.shape, name
        finite = np.isfinite(b)
        assert np.array_equal(finite, np.isfinite(a)) and np.array_equal(a[~finite], b[~finite])
        scale = max(1.0, float(np.abs(b[finite]).max(initial=0.0)))
        assert np.abs(a[finite] - b[finite]).max(initial=0.0) <= rtol * scale, name


@pytest.mark.parametrize("intervention", [None, SOME, *SKIPS],
                         ids=["plain", "intervention", "skip_attention", "skip_mlp"])
@pytest.mark.parametrize("causal", [True, False], ids=["mask", "no_mask"])
@pytest.mark.parametrize("t", [1, 7, 65, 130])
@pytest.mark.parametrize("name", list(CONFIGS))
def test_run_layer_is_the_readable_forward_bit_for_bit(one_thread, name, t, causal,
                                                       intervention):
    config = CONFIGS[name]
    weights = LayerWeights.random(config, seed=2)
    x = state(t, config)
    trace = run_layer(x, weights, config, causal=causal, intervention=intervention)
    assert_same_bits(trace, forward(x, weights, config, causal=causal,
                                    intervention=intervention))


@pytest.mark.parametrize("intervention", [None, SOME, *SKIPS],
                         ids=["plain", "intervention", "skip_attention", "skip_mlp"])
@pytest.mark.parametrize("causal", [True, False], ids=["mask", "no_mask"])
@pytest.mark.parametrize("t", [1, 7, 65, 130])
def test_mqa_agrees_to_1e_13(one_thread, t, causal, intervention):
    weights = LayerWeights.random(MQA, seed=2)
    x = state(t, MQA)
    trace = run_layer(x, weights, MQA, causal=causal, intervention=intervention)
    assert_close(trace, forward(x, weights, MQA, causal=causal, intervention=intervention))


@pytest.mark.parametrize("intervention", [None, SOME], ids=["plain", "intervention"])
@pytest.mark.parametrize("causal", [True, False], ids=["mask", "no_mask"])
@pytest.mark.parametrize(("config", "t"), [(Qwen3Config(), 40), (MQA, 65), (MEDIUM, 90)],
                         ids=["toy", "mqa", "medium"])
def test_thread_sharing_agrees_to_1e_13(split_everything, config, t, causal, intervention):
    weights = LayerWeights.random(config, seed=4)
    x = state(t, config)
    trace = run_layer(x, weights, config, causal=causal, intervention=intervention)
    assert_close(trace, forward(x, weights, config, causal=causal, intervention=intervention))


def test_row_blocking_of_a_long_input_agrees_to_1e_13(one_thread):
    weights = LayerWeights.random(MEDIUM, seed=5)
    x = state(601, MEDIUM)  # attention in blocks of query rows, BLAS picking other kernels
    assert_close(run_layer(x, weights, MEDIUM), forward(x, weights, MEDIUM))


def test_the_readable_forward_checks_its_input():
    config = Qwen3Config()
    weights = LayerWeights.random(config)
    with pytest.raises(EngineError, match="hidden_size"):
        forward(np.ones((3, 5)), weights, config)
    with pytest.raises(EngineError, match="zero_heads: there is no 4; valid indices are 0 to 3"):
        forward(np.ones((3, 16)), weights, config, intervention=Intervention(zero_heads=(4,)))
