"""docs/continuous.md E16–E18: softmax is a Boltzmann distribution with temperature
τ = multiplier·√d."""

import numpy as np
import pytest

from engine import EngineError, LayerWeights, Qwen3Config, embed, run_layer, tokenize
from engine.lenses import entropy_curve, qk_from_trace, random_qk, temperature_lens

SENTENCE = "The cat sat on the mat because it was warm 我爱 AI"


@pytest.fixture(scope="module")
def trace():
    config = Qwen3Config.toy()
    weights = LayerWeights.random(config, seed=1)
    return run_layer(embed(tokenize(SENTENCE), config.hidden_size), weights, config)


def test_multiplier_one_is_the_layers_own_attention(trace):
    q, k = qk_from_trace(trace)
    result = temperature_lens(q, k, multiplier=1.0, causal=trace.causal)
    assert result.tau == np.sqrt(trace.config.head_dim)
    assert np.max(np.abs(result.probs - trace["attn_probs"])) <= 1e-15  # seen: 1.1e-16
    assert np.max(np.abs(result.logits / result.tau - trace["attn_scores"])) <= 1e-14


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("multiplier", [1e-3, 0.05, 1 / np.sqrt(128), 1.0, 10.0, 100.0])
def test_e16_log_p_has_slope_one_over_tau(multiplier, causal):
    """log p = s/τ − log Z: the within-row slope is 1/τ to 1e-12 (relative; seen ≤ 2.2e-16).

    Beyond τ ~ 1e5 the spread of s/τ nears the rounding of log p itself (|log p| ≈ log T with
    ulp ~4e-16), so the fitted slope can only be as good as that: 1.3e-11 at τ = 1.1e7."""
    q, k = random_qk(4, 16, 128, seed=2)
    result = temperature_lens(q, k, multiplier=multiplier, causal=causal)
    assert np.max(np.abs(result.slope * result.tau - 1.0)) <= 1e-12
    # and the intercept is per row: log p − s/τ is constant over the keys a row sees
    visible = np.isfinite(result.log_probs)
    offset = np.where(visible, result.log_probs - result.logits / result.tau, np.nan)
    spread = np.nanmax(offset, axis=-1) - np.nanmin(offset, axis=-1)
    assert np.max(spread) <= 1e-12 * max(1.0, np.max(np.abs(result.logits)) / result.tau)


def test_e16_on_the_layers_own_q_k(trace):
    q, k = qk_from_trace(trace)
    for multiplier in (0.1, 1.0, 7.0):
        result = temperature_lens(q, k, multiplier=multiplier, causal=True)
        assert np.max(np.abs(result.slope * result.tau - 1.0)) <= 1e-12


@pytest.mark.parametrize("causal", [True, False])
def test_e17_entropy_grows_with_tau_between_0_and_the_bound(causal, trace):
    for q, k in (random_qk(4, 16, 128, seed=3), qk_from_trace(trace)):
        t = q.shape[1]
        multipliers = np.geomspace(1e-4, 1e4, 300)
        curve = entropy_curve(q, k, multipliers, causal=causal)  # [M, H, T]
        assert np.min(np.diff(curve, axis=0)) >= -1e-14  # nondecreasing (seen: min diff 0.0)
        assert np.max(np.diff(curve, axis=0)) > 0.01
        single = temperature_lens(q, k, multiplier=multipliers[150], causal=causal)
        assert np.max(np.abs(curve[150] - single.entropy)) <= 1e-14
        bound = np.log(np.arange(1, t + 1)) if causal else np.full(t, np.log(t))
        assert np.array_equal(single.entropy_bound, bound)
        assert np.all(curve <= bound + 1e-14)
        cold = temperature_lens(q, k, multiplier=1e-6, causal=causal)  # τ → 0
        assert np.max(cold.entropy) <= 1e-12
        assert np.min(cold.max_weight) >= 1 - 1e-12
        hot = temperature_lens(q, k, multiplier=1e8, causal=causal)  # τ → ∞
        assert np.max(np.abs(hot.entropy - bound)) <= 1e-9
        assert np.max(np.abs(hot.probs.sum(-1) - 1)) <= 1e-14


def test_e18_dropping_sqrt_d_sharpens_but_is_not_one_hot():
    """τ = 1 with d = 128, q, k unit normal, 8 heads × 16 tokens, full attention, seed 0:
    mean max weight 0.906 (seeds 1, 2: 0.864, 0.894); 27 % of rows reach 0.999. At τ = √d it
    is 0.247."""
    q, k = random_qk(8, 16, 128, seed=0)
    cold = temperature_lens(q, k, multiplier=1 / np.sqrt(128), causal=False)
    assert abs(cold.tau - 1.0) <= 1e-15
    mean_max = float(cold.max_weight.mean())
    assert 0.5 < mean_max < 0.97
    assert np.min(cold.max_weight) < 0.6  # some rows stay clearly split
    own = temperature_lens(q, k, multiplier=1.0, causal=False)
    assert own.max_weight.mean() < 0.5 < mean_max  # sharper than the layer's own τ = √d


def test_temperature_results_frozen_and_inputs_checked():
    q, k = random_qk(2, 4, 8, seed=0)
    result = temperature_lens(q, k)
    for array in (result.probs, result.entropy, result.slope, result.logits):
        assert not array.flags.writeable
    single = temperature_lens(q[:, :1], k[:, :1])
    assert np.all(np.isnan(single.slope)) and np.all(single.entropy == 0)  # one key: no slope
    with pytest.raises(EngineError, match="multiplier"):
        temperature_lens(q, k, multiplier=0.0)
    with pytest.raises(EngineError, match="q and k"):
        temperature_lens(q, k[:, :3])
    with pytest.raises(EngineError, match="multipliers"):
        entropy_curve(q, k, [1.0, -1.0])


def test_causal_must_be_a_bool():
    q, k = random_qk(n_heads=1, n_tokens=4, head_dim=8)
    with pytest.raises(EngineError, match="causal must be True or False"):
        temperature_lens(q, k, causal=None)
    with pytest.raises(EngineError, match="causal must be True or False"):
        entropy_curve(q, k, [1.0], causal="yes")


def test_a_tau_too_small_for_float64_is_an_engine_error_not_nan():
    # 5e-324 passes "finite and > 0", but s/τ overflows: inf − inf gave NaN and a RuntimeWarning
    q, k = random_qk(n_heads=1, n_tokens=4, head_dim=8)
    for causal in (True, False):
        with pytest.raises(EngineError, match="use a multiplier of at least"):
            temperature_lens(q, k, multiplier=5e-324, causal=causal)
    with pytest.raises(EngineError, match="use a multiplier of at least"):
        entropy_curve(q, k, [5e-324, 1.0])
    with pytest.raises(EngineError, match="q·k overflows"):
        temperature_lens(1e160 * q, 1e160 * k)
    # as cold as float64 allows is still the frozen, finite limit
    cold = temperature_lens(q, k, multiplier=1e-300)
    assert np.all(np.abs(cold.entropy) <= 1e-12) and np.isfinite(cold.slope).all()


@pytest.mark.parametrize("call, fragment", [
    (lambda: temperature_lens(*random_qk(1, 3, 4), multiplier=None),
     "multiplier must be a real number"),
    (lambda: temperature_lens(*random_qk(1, 3, 4), multiplier="a"),
     "multiplier must be a real number"),
    (lambda: random_qk(n_tokens=-1), "n_tokens must be a whole number >= 1"),
    (lambda: random_qk(seed=-1), "seed must be a whole number >= 0"),
    (lambda: qk_from_trace(None), "trace must be a LayerTrace"),
])
def test_wrong_argument_types_are_engine_errors(call, fragment):
    with pytest.raises(EngineError, match=fragment):
        call()


@pytest.mark.parametrize("causal", [True, False])
def test_entropy_curve_of_some_rows_is_those_rows_of_the_full_curve(causal):
    q, k = random_qk(n_heads=2, n_tokens=90, head_dim=16, seed=3)
    mults = np.logspace(-3, 3, 41)
    full = entropy_curve(q, k, mults, causal=causal)
    rows = np.array([0, 7, 45, 89])
    np.testing.assert_array_equal(entropy_curve(q, k, mults, causal=causal, rows=rows),
                                  full[:, :, rows])  # bit for bit
    with pytest.raises(EngineError, match="rows must be"):
        entropy_curve(q, k, mults, rows=[90])
    with pytest.raises(EngineError, match="rows must be"):
        entropy_curve(q, k, mults, rows=[])
