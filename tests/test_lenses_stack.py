"""docs/continuous.md E15, E20, E21 on a stack of N ≤ 64 seeded random layers in three variants."""

import numpy as np
import pytest

from engine import EngineError, ops
from engine.lenses import MAX_LAYERS, VARIANTS, energy_sweep, run_stack


def stream(seed=0, t=8, d=16):
    return np.random.default_rng([seed, 3]).standard_normal((t, d))


@pytest.mark.parametrize("causal", [False, True])
def test_e20_post_norm_energy_is_exactly_the_line(causal):
    """Post-norm (LayerNorm, scalar γ = σ₂, β = σ₁, ε = 0): mean(u²) = σ₁² + σ₂² after every
    layer, to rounding. Pre-norm grows and no norm explodes (measured, not exact):
    seen at γ = 1.7, β = 0.3, N = 64, non-causal: pre-norm 0.98 → 86 (N = 16) → 291, no norm
    0.98 → 2.3e6 (N = 16) → 2.3e26; causal: 384 and 1.3e27. Post-norm line: off by ≤ 1.3e-15."""
    sweep = energy_sweep(stream(), n_layers=64, gamma=1.7, beta=0.3, causal=causal)
    line = 1.7**2 + 0.3**2
    assert sweep.post_norm_energy == line
    post, pre, none = sweep["post-norm"], sweep["pre-norm"], sweep["no-norm"]
    assert abs(post.energy[0] - line) > 0.1  # the input is not on the line
    assert np.max(np.abs(post.energy[1:] - line)) <= 1e-13 * line  # seen: 1.3e-15
    assert pre.energy[-1] > 1.5 * pre.energy[32] > 50 * pre.energy[0]  # ~linear, not monotone
    assert pre.energy[-1] > 20 * post.energy[-1]
    assert none.energy[-1] > 1e6 * pre.energy[-1]
    assert [t.norm for t in sweep.traces] == ["LayerNorm", "RMSNorm", "none"]
    assert all(t.overflow_layer is None for t in sweep.traces)


def test_e20_line_needs_eps_zero():
    """With ε > 0 LayerNorm lands just inside S, so the line is no longer exact."""
    post = run_stack(stream(), "post-norm", gamma=1.7, beta=0.3, eps=1e-5)
    gap = np.max(np.abs(post.energy[1:] - (1.7**2 + 0.3**2)))
    assert 1e-9 < gap < 1e-3


def test_e21_pre_norm_sublayer_inputs_have_rms_gamma():
    """Pre-norm RMSNorm, ε = 0: each sublayer reads rows of rms exactly |γ|; the stream grows."""
    for gamma in (1.0, 1.7, -0.6):
        pre = run_stack(stream(1), "pre-norm", gamma=gamma, n_layers=64)
        assert pre.sublayer_input_rms.shape == (64, 2)
        assert np.max(np.abs(pre.sublayer_input_rms - abs(gamma))) <= 1e-13  # seen: ≤ 4.4e-16
        # the stream itself is not normalised and grows: seen 0.81 → 127, 323, 20.5 at N = 64
        assert pre.energy[-1] > 20 * pre.energy[0]
    # with ε > 0 the rms falls just short of |γ|; without any norm the inputs grow
    soft = run_stack(stream(1), "pre-norm", gamma=1.7, eps=1e-3)
    assert np.all(soft.sublayer_input_rms < 1.7)
    assert np.max(1.7 - soft.sublayer_input_rms) > 1e-8
    none = run_stack(stream(1), "no-norm")
    assert none.sublayer_input_rms[-1, 1] > 1e3 * none.sublayer_input_rms[0, 0]


def test_e15_alpha_zero_is_the_identity_bitwise():
    x = stream(2)
    for variant in ("pre-norm", "no-norm"):
        trace = run_stack(x, variant, alpha=0.0, init_scale=3.0)
        assert np.array_equal(trace.output, x)
        assert np.all(trace.energy == trace.energy[0])
    # post-norm keeps its norm on the stream: α = 0 leaves LN(x), a projection (idempotent)
    post = run_stack(x, "post-norm", alpha=0.0, gamma=1.3, beta=0.2)
    assert not np.array_equal(post.output, x)
    assert np.max(np.abs(post.output - ops.layer_norm(x, 0.0, 1.3, 0.2))) <= 1e-13


@pytest.mark.parametrize("variant", ["pre-norm", "no-norm"])
def test_e15_small_alpha_response_is_linear(variant):
    """‖out(α) − x‖/α tends to a constant. Seen (pre-norm): 84.19 at α = 0.1, 78.597364 at 1e-5,
    78.597355 at 1e-6 (no norm: 97.36, 80.0133, 80.0130)."""
    x = stream(0)
    ratio = [np.linalg.norm(run_stack(x, variant, alpha=a).output - x) / a
             for a in (1e-1, 1e-5, 1e-6)]
    assert abs(ratio[2] / ratio[1] - 1) < 1e-4
    assert abs(ratio[0] / ratio[2] - 1) > 1e-2  # at α = 0.1 the non-linearity shows


def test_stack_is_seeded_and_prefix_stable():
    x = stream(4)
    a = energy_sweep(x, n_layers=64, seed=5)
    b = energy_sweep(x, n_layers=10, seed=5)
    c = energy_sweep(x, n_layers=64, seed=6)
    for variant in VARIANTS:
        assert np.array_equal(a[variant].energy[:11], b[variant].energy)  # N only cuts the curve
        assert not np.array_equal(a[variant].energy[2:], c[variant].energy[2:])
    scaled = energy_sweep(x, init_scale=0.5, seed=5)
    assert scaled["pre-norm"].energy[-1] < a["pre-norm"].energy[-1]


def test_a_variant_alone_is_the_same_as_in_the_batch():
    """The three variants run as one batch (reordered inside); each run alone is the same
    trace. Seen: bitwise equal (no row of the batch reads another's)."""
    x = stream(5)
    kw = dict(n_layers=24, gamma=1.3, beta=0.4, causal=True)
    sweep = energy_sweep(x, **kw)
    for variant in VARIANTS:
        alone = run_stack(x, variant, **kw)
        np.testing.assert_allclose(alone.energy, sweep[variant].energy, rtol=1e-12)
        np.testing.assert_allclose(alone.sublayer_input_rms, sweep[variant].sublayer_input_rms,
                                   rtol=1e-12)
        np.testing.assert_allclose(alone.output, sweep[variant].output, rtol=1e-12)
        assert alone.variant == variant


def test_overflow_is_reported_not_warned():
    sweep = energy_sweep(init_scale=8.0)  # no norm overflows (seen at layer 46)
    none = sweep["no-norm"]
    assert none.overflow_layer is not None
    assert np.all(np.isinf(none.energy[none.overflow_layer:]))
    assert np.all(np.isfinite(none.energy[:none.overflow_layer]))
    assert sweep["post-norm"].overflow_layer is None
    assert sweep["pre-norm"].overflow_layer is None


def test_stack_results_frozen_and_inputs_checked():
    trace = run_stack(stream(), "pre-norm", n_layers=3)
    assert trace.energy.shape == (4,) and not trace.energy.flags.writeable
    assert not trace.output.flags.writeable
    with pytest.raises(EngineError, match="n_layers"):
        run_stack(stream(), "pre-norm", n_layers=MAX_LAYERS + 1)
    with pytest.raises(EngineError, match="variant"):
        run_stack(stream(), "sandwich")
    with pytest.raises(EngineError, match="n_heads"):
        run_stack(stream(), "pre-norm", n_heads=3)
    with pytest.raises(EngineError, match="init_scale"):
        run_stack(stream(), "pre-norm", init_scale=-1.0)


def test_causal_must_be_a_bool():
    with pytest.raises(EngineError, match="causal must be True or False"):
        run_stack(stream(), "pre-norm", causal=None)
    with pytest.raises(EngineError, match="causal must be True or False"):
        energy_sweep(causal="yes")


@pytest.mark.parametrize("kwargs, fragment", [
    ({"alpha": float("nan")}, "alpha must be finite"),
    ({"gamma": float("inf")}, "gamma must be finite"),
    ({"beta": float("nan")}, "beta must be finite"),
    ({"alpha": "a"}, "alpha must be a real number"),
    ({"seed": -1}, "seed must be a whole number >= 0"),
    ({"d_ff": -1}, "d_ff must be a whole number >= 1"),
    ({"n_heads": 2.0}, "n_heads must be a whole number"),
])
def test_non_finite_or_mistyped_parameters_are_engine_errors(kwargs, fragment):
    # these ran and came back as NaN labelled an overflow (or a numpy error from inside)
    with pytest.raises(EngineError, match=fragment):
        run_stack(stream(), "pre-norm", **kwargs)
    if "d_ff" not in kwargs:  # energy_sweep has no d_ff
        with pytest.raises(EngineError, match=fragment):
            energy_sweep(**kwargs)


@pytest.mark.parametrize("variant", ["post-norm", "pre-norm"])
def test_a_zero_row_at_eps_zero_is_0_over_0_not_an_overflow(variant):
    x = stream()
    x[2] = 0.0
    with pytest.raises(EngineError, match="0/0; use eps > 0"):
        run_stack(x, variant)
    assert run_stack(x, variant, eps=1e-6).overflow_layer is None
    assert run_stack(x, "no-norm", n_layers=2).overflow_layer is None  # no norm, no 0/0
