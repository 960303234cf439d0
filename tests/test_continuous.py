"""The continuous view: branches, depth-time states, sub-stepping, ReZero
(docs/continuous.md E13–E15)."""

import numpy as np
import pytest

from engine import (
    EngineError,
    LayerWeights,
    Qwen3Config,
    attention_branch,
    convergence,
    depth_states,
    embed,
    mlp_branch,
    rezero_layer,
    run_layer,
    substep_layer,
    tokenize,
)
from engine import continuous as cont

CONFIGS = {
    "toy": Qwen3Config(),
    # Qwen3-0.6B's head shape (16 heads, 8 kv heads, head_dim 128) at a small hidden size
    "0.6B-heads": Qwen3Config(hidden_size=64, intermediate_size=96, num_attention_heads=16,
                              num_key_value_heads=8, head_dim=128, rope_theta=1e6),
    "mha": Qwen3Config(hidden_size=12, intermediate_size=20, num_attention_heads=3,
                       num_key_value_heads=3, head_dim=6),
    "mqa-g3": Qwen3Config(hidden_size=24, intermediate_size=40, num_attention_heads=3,
                          num_key_value_heads=1, head_dim=8),
}
TEXTS = ["the cat sat on the mat .", "我爱北京天安门，也爱长城！", "a", "Hi 你好 👋 world"]


def _setup(config_name="toy", text=TEXTS[0], seed=1):
    config = CONFIGS[config_name]
    return config, LayerWeights.random(config, seed), embed(tokenize(text), config.hidden_size)


def _max_ulps_close(actual, expected, factor=1.0):
    """|actual - expected| <= factor * 1e-15 * max|expected| (a few ulps at the largest value)."""
    scale = max(1.0, float(np.max(np.abs(expected))))
    diff = float(np.max(np.abs(np.asarray(actual) - np.asarray(expected))))
    assert diff <= factor * 1e-15 * scale, f"max diff {diff:.3e} > {factor}e-15 x {scale:.3g}"


# --- the two branches --------------------------------------------------------------------------

@pytest.mark.parametrize("config_name", list(CONFIGS))
@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("causal", [True, False])
def test_branches_reproduce_run_layer(config_name, text, causal):
    config, weights, x = _setup(config_name, text)
    trace = run_layer(x, weights, config, causal=causal)
    attn = attention_branch(x, weights, config, causal)
    _max_ulps_close(attn, trace["o_proj"])
    _max_ulps_close(x + attn, trace["resid_attn"])
    h = trace["resid_attn"]
    mlp = mlp_branch(h, weights, config)
    _max_ulps_close(mlp, trace["down_proj"])
    _max_ulps_close(h + mlp, trace.output)
    assert not attn.flags.writeable and not mlp.flags.writeable


def test_branches_are_bitwise_the_layers_today():
    """Stronger than the tolerance above: the branches are the same floating-point operations
    as run_layer, so today they agree bit for bit."""
    config, weights, x = _setup("0.6B-heads", TEXTS[1])
    trace = run_layer(x, weights, config)
    assert np.array_equal(x + attention_branch(x, weights, config), trace["resid_attn"])
    assert np.array_equal(trace["resid_attn"] + mlp_branch(trace["resid_attn"], weights, config),
                          trace.output)


def test_attention_branch_depends_on_causality_and_mlp_acts_per_token():
    config, weights, x = _setup(text=TEXTS[0])
    causal = attention_branch(x, weights, config, causal=True)
    full = attention_branch(x, weights, config, causal=False)
    assert np.array_equal(causal[-1], full[-1])  # the last token sees everything either way
    assert not np.array_equal(causal[0], full[0])
    mlp = mlp_branch(x, weights, config)
    np.testing.assert_allclose(mlp_branch(x[2:5], weights, config), mlp[2:5], rtol=0, atol=1e-15)


def test_branches_are_a_function_of_any_state():
    config, weights, x = _setup()
    u = 3.0 * x + 0.5  # not an embedding: the branches are a vector field on all states
    a = attention_branch(u, weights, config)
    assert a.shape == u.shape and np.all(np.isfinite(a))
    assert not np.allclose(a, attention_branch(x, weights, config))


# --- depth-time states (E14) -------------------------------------------------------------------

def test_depth_states_are_the_trace_states():
    config, weights, x = _setup(text=TEXTS[1])
    trace = run_layer(x, weights, config)
    depth = depth_states(trace)
    assert depth.times == (0.0, 0.5, 1.0)
    assert depth.states.shape == (3, *x.shape)
    for k, name in enumerate(("embed", "resid_attn", "resid_mlp")):
        assert np.array_equal(depth.states[k], trace[name])
    assert np.array_equal(depth.attn_update, trace["o_proj"])
    assert np.array_equal(depth.mlp_update, trace["down_proj"])
    for array in (depth.states, depth.attn_update, depth.mlp_update):
        assert not array.flags.writeable
    assert depth.num_tokens == x.shape[0]


@pytest.mark.parametrize("causal", [True, False])
def test_depth_time_hits_the_true_states_bitwise(causal):
    config, weights, x = _setup("0.6B-heads", TEXTS[3])
    trace = run_layer(x, weights, config, causal=causal)
    depth = depth_states(trace)
    assert np.array_equal(depth.at(0.0), trace["embed"])
    assert np.array_equal(depth.at(0.5), trace["resid_attn"])
    assert np.array_equal(depth.at(1.0), trace.output)
    assert not depth.at(0.25).flags.writeable


def test_partial_state_is_an_exact_euler_step_E14():
    config, weights, x = _setup(text=TEXTS[0])
    trace = run_layer(x, weights, config)
    depth = depth_states(trace)
    h, out = trace["resid_attn"], trace.output
    for t in np.linspace(0.0, 1.0, 41):
        phase, s = depth.sub_step(t)
        start, end = (x, h) if phase == "attention" else (h, out)
        blend = (1.0 - s) * start + s * end  # the "cosmetic" blend of the two true states
        np.testing.assert_allclose(depth.at(t), blend, rtol=0, atol=1e-13)
    # and it is a real Euler step of size s of the branch, evaluated afresh
    for s in (0.1, 0.37, 0.8):
        step = x + s * attention_branch(x, weights, config)
        np.testing.assert_allclose(depth.at(s / 2), step, rtol=0, atol=1e-15)
        step = h + s * mlp_branch(h, weights, config)
        np.testing.assert_allclose(depth.at(0.5 + s / 2), step, rtol=0, atol=1e-14)


def test_sub_step_phases():
    config, weights, x = _setup()
    depth = depth_states(run_layer(x, weights, config))
    assert depth.sub_step(0.0) == ("attention", 0.0)
    assert depth.sub_step(0.25) == ("attention", 0.5)
    assert depth.sub_step(0.5) == ("attention", 1.0)
    assert depth.sub_step(0.75) == ("mlp", 0.5)
    assert depth.sub_step(1) == ("mlp", 1.0)
    phase, s = depth.sub_step(np.nextafter(0.5, 1.0))
    assert phase == "mlp" and 0.0 < s < 1e-15


@pytest.mark.parametrize("t", [-0.01, 1.0000001, float("nan"), float("inf"), "0.5", None, True])
def test_depth_time_out_of_range_is_an_error(t):
    config, weights, x = _setup()
    depth = depth_states(run_layer(x, weights, config))
    with pytest.raises(EngineError, match="depth time"):
        depth.at(t)


def test_norm_curves():
    config, weights, x = _setup(text=TEXTS[1])
    depth = depth_states(run_layer(x, weights, config))
    times, norms = depth.norm_curves(65)
    assert times.shape == (65,) and norms.shape == (65, x.shape[0])
    assert times[0] == 0.0 and times[32] == 0.5 and times[-1] == 1.0
    assert np.array_equal(norms[0], np.linalg.norm(x, axis=-1))
    assert np.array_equal(norms[32], depth.per_token_norms(0.5))
    # every point is exactly ‖at(t)‖, computed in blocks of t or one t at a time
    expected = np.stack([depth.per_token_norms(float(t)) for t in times])
    assert np.array_equal(norms, expected)
    assert not norms.flags.writeable
    for bad in (64, 1, 0, 2.0):
        with pytest.raises(EngineError, match="odd"):
            depth.norm_curves(bad)


@pytest.mark.parametrize("n_points", [3, 7, 99, 197])
def test_norm_curves_hold_the_kink_at_one_half_for_any_odd_count(n_points):
    config, weights, x = _setup(text=TEXTS[1])
    depth = depth_states(run_layer(x, weights, config))
    times, norms = depth.norm_curves(n_points)
    assert times[0] == 0.0 and times[n_points // 2] == 0.5 and times[-1] == 1.0
    assert np.all(np.diff(times) > 0)
    assert np.array_equal(norms, np.stack([depth.per_token_norms(float(t)) for t in times]))


def test_norm_curves_blocks_give_the_same_bits(monkeypatch):
    import engine.continuous as continuous

    config, weights, x = _setup(text=TEXTS[1])
    depth = depth_states(run_layer(x, weights, config))
    whole = depth.norm_curves(17)[1]
    monkeypatch.setattr(continuous, "_NORM_CURVE_BLOCK", 1)  # one t per block
    assert np.array_equal(depth.norm_curves(17)[1], whole)
    monkeypatch.setattr(continuous, "_NORM_CURVE_BLOCK", 3 * x.size)  # blocks of 3
    assert np.array_equal(depth.norm_curves(17)[1], whole)


def test_depth_states_rejects_non_traces():
    with pytest.raises(EngineError, match="LayerTrace"):
        depth_states(np.zeros((3, 16)))


# --- sub-stepping (E13) ------------------------------------------------------------------------

@pytest.mark.parametrize("config_name", list(CONFIGS))
@pytest.mark.parametrize("causal", [True, False])
def test_one_euler_substep_is_the_layer(config_name, causal):
    config, weights, x = _setup(config_name, TEXTS[1])
    out = substep_layer(x, weights, config, 1, causal=causal)
    _max_ulps_close(out, run_layer(x, weights, config, causal=causal).output)
    assert not out.flags.writeable


def test_more_substeps_change_the_result():
    config, weights, x = _setup()
    layer = run_layer(x, weights, config).output
    assert np.linalg.norm(substep_layer(x, weights, config, 2) - layer) > 0.1
    # the second-order schemes are different maps from the layer even at n = 1
    for scheme in ("heun", "strang"):
        assert np.linalg.norm(substep_layer(x, weights, config, 1, scheme=scheme) - layer) > 0.1


def _check_orders(conv):
    """docs/continuous.md E13: ratio ~2 (Euler) and ~4 (second order) as n doubles, once n is
    past 4."""
    assert conv.ns == (1, 2, 4, 8, 16, 32, 64)
    assert np.all(np.diff(conv.errors_euler[2:]) < 0)
    assert np.all(np.diff(conv.errors_second_order) < 0)
    assert np.all((conv.orders_euler[-3:] > 0.85) & (conv.orders_euler[-3:] < 1.15))
    assert np.all((conv.orders_second_order[-3:] > 1.8) & (conv.orders_second_order[-3:] < 2.2))
    assert 1.9 < conv.ratios_euler[-1] < 2.1
    assert 3.7 < conv.ratios_second_order[-1] < 4.3
    np.testing.assert_allclose(conv.ratios_euler, 2.0 ** conv.orders_euler, rtol=1e-12)
    # the reference flow is far more accurate than anything it measures
    assert conv.reference_error < 1e-2 * conv.errors_second_order[-1]


@pytest.mark.parametrize("config_name, text, causal, seed", [
    ("toy", TEXTS[0], True, 1),
    ("toy", TEXTS[1], True, 2),
    ("toy", TEXTS[2], True, 0),
    ("toy", TEXTS[0], False, 0),
    ("0.6B-heads", TEXTS[3], True, 0),
    ("mqa-g3", TEXTS[1], True, 3),
])
def test_substepping_converges_at_first_order_E13(config_name, text, causal, seed):
    config, weights, x = _setup(config_name, text, seed)
    conv = convergence(x, weights, config, causal=causal)
    _check_orders(conv)
    assert conv.second_order_scheme == "heun"
    assert set(conv.orders) == {"euler", "heun"}
    # n = 1 is the real layer, and "the network solves the PDE" is only an analogy: at
    # Δt = 1 the layer is far from its own flow
    layer = run_layer(x, weights, config, causal=causal).output
    _max_ulps_close(conv.layer_output, layer)
    assert conv.distance_to_layer[0] == 0.0
    assert np.all(conv.distance_to_layer[1:] > 0.1)
    assert conv.errors_euler[0] > 20 * conv.errors_euler[-1]
    np.testing.assert_allclose(conv.distance_to_layer,
                               np.linalg.norm(conv.euler_outputs - layer, axis=(1, 2)),
                               rtol=1e-12, atol=1e-15)


def test_strang_is_second_order_too_E13():
    config, weights, x = _setup(text=TEXTS[1])
    conv = convergence(x, weights, config, second_order="strang")
    _check_orders(conv)
    assert set(conv.orders) == {"euler", "strang"}


def test_batched_sweep_matches_single_runs():
    """The lanes of the sweep are the same computation as substep_layer, one n at a time."""
    config, weights, x = _setup(text=TEXTS[3])
    conv = convergence(x, weights, config, ns=(1, 3, 4, 8))
    for i, n in enumerate(conv.ns):
        single = substep_layer(x, weights, config, n)
        np.testing.assert_allclose(conv.euler_outputs[i], single, rtol=0, atol=1e-13)
        heun = substep_layer(x, weights, config, n, scheme="heun")
        assert abs(np.linalg.norm(heun - conv.flow) - conv.errors_second_order[i]) < 1e-12
    # non-doubling steps: the observed order divides by log2(n ratio)
    expected = np.log2(conv.errors_euler[:-1] / conv.errors_euler[1:]) / np.log2([3, 4 / 3, 2])
    np.testing.assert_allclose(conv.orders_euler, expected, rtol=1e-12)


def test_zero_errors_give_nan_ratios_without_a_warning():
    # with o_proj and down_proj zero both branches vanish: every run hits the flow exactly, so
    # each ratio is 0/0 (the panel reads ratios_euler[-1]; warnings are errors under pytest)
    config, weights, x = _setup()
    zero = {k: np.zeros(v.shape) if k in ("self_attn.o_proj.weight", "mlp.down_proj.weight")
            else v for k, v in weights.items()}
    conv = convergence(x, LayerWeights(zero, config), config, ns=(1, 2, 4))
    assert not conv.errors_euler.any() and not conv.errors_second_order.any()
    for ratios in (conv.ratios_euler, conv.ratios_second_order):
        assert ratios.shape == (2,) and np.isnan(ratios).all()


def test_reference_flow_is_accurate():
    config, weights, x = _setup(text=TEXTS[0])
    conv = convergence(x, weights, config, ns=(1, 2))
    branches = cont._Branches(weights, config, x.shape[0], True)
    finer = cont._integrate(branches, x, 8 * conv.reference_steps, "rk4")
    true_error = np.linalg.norm(conv.flow - finer)
    assert true_error < 1e-5
    assert 0.5 * true_error < conv.reference_error < 2.0 * true_error  # the estimate is honest


def test_pack_lanes():
    assert cont._pack_lanes((1, 2, 4, 8, 16, 32, 64)) == [[6], [5, 4, 3, 2, 1, 0]]
    lanes = cont._pack_lanes((1, 3, 4, 8))
    assert sorted(i for lane in lanes for i in lane) == [0, 1, 2, 3]
    ns = (1, 3, 4, 8)
    assert all(sum(ns[i] for i in lane) <= 8 for lane in lanes)


@pytest.mark.parametrize("kwargs, fragment", [
    ({"n": 0}, "whole number >= 1"),
    ({"n": 2.0}, "whole number >= 1"),
    ({"n": True}, "whole number >= 1"),
    ({"n": 2, "scheme": "rk5"}, "scheme must be one of"),
])
def test_substep_layer_rejects_bad_arguments(kwargs, fragment):
    config, weights, x = _setup()
    with pytest.raises(EngineError, match=fragment):
        substep_layer(x, weights, config, **kwargs)


@pytest.mark.parametrize("kwargs, fragment", [
    ({"ns": ()}, "at least one"),
    ({"ns": (4, 2)}, "strictly increasing"),
    ({"ns": (1, 0)}, "whole number"),
    ({"ns": (1, 10_000)}, "max 4096"),
    ({"second_order": "euler"}, "second-order scheme"),
    ({"second_order": "rk4"}, "scheme must be one of"),
])
def test_convergence_rejects_bad_arguments(kwargs, fragment):
    config, weights, x = _setup()
    with pytest.raises(EngineError, match=fragment):
        convergence(x, weights, config, **kwargs)


def test_bad_states_and_weights_are_errors():
    config, weights, x = _setup()
    other = Qwen3Config(hidden_size=16, intermediate_size=64)
    with pytest.raises(EngineError, match="weights were made for"):
        substep_layer(x, LayerWeights.random(other, 0), config, 2)
    with pytest.raises(EngineError, match="NaN or Inf"):
        attention_branch(np.full_like(x, np.nan), weights, config)
    with pytest.raises(EngineError, match="hidden_size is 16"):
        mlp_branch(np.zeros((2, 5)), weights, config)
    with pytest.raises(EngineError, match="no tokens"):
        convergence(np.zeros((0, 16)), weights, config)


def test_overflow_is_an_error_not_a_silent_nan():
    config, weights, x = _setup()
    huge = {k: np.asarray(v) * (1e200 if k == "mlp.down_proj.weight" else 1.0)
            for k, v in weights.items()}
    with pytest.raises(EngineError, match="overflowed"):
        substep_layer(x, LayerWeights(huge, config), config, 4)


def test_an_input_past_1e150_is_an_error_not_a_quiet_zero_norm():
    # RMSNorm squares it to Inf and divides it to 0: M(u) came back finite, and wrong
    config, weights, x = _setup()
    for call in (lambda u: mlp_branch(u, weights, config),
                 lambda u: attention_branch(u, weights, config),
                 lambda u: rezero_layer(u, weights, config, 0.0)):
        with pytest.raises(EngineError, match="past 1e150"):
            call(1e200 * x)


# --- ReZero (E15) ------------------------------------------------------------------------------

@pytest.mark.parametrize("config_name", list(CONFIGS))
def test_rezero_zero_is_the_identity_bitwise_E15(config_name):
    config, weights, x = _setup(config_name, TEXTS[1])
    out = rezero_layer(x, weights, config, 0.0)
    assert np.array_equal(out, x)
    assert np.array_equal(rezero_layer(x, weights, config, 0.0, causal=False), x)


def test_rezero_one_is_the_layer():
    config, weights, x = _setup(text=TEXTS[3])
    _max_ulps_close(rezero_layer(x, weights, config, 1.0), run_layer(x, weights, config).output)


@pytest.mark.parametrize("config_name, text", [("toy", TEXTS[0]), ("0.6B-heads", TEXTS[1]),
                                               ("mqa-g3", TEXTS[3])])
def test_rezero_response_is_linear_for_small_alpha_E15(config_name, text):
    config, weights, x = _setup(config_name, text)
    velocity = attention_branch(x, weights, config) + mlp_branch(x, weights, config)
    speed = np.linalg.norm(velocity)
    ratios = []
    for alpha in (1e-4, 1e-5, 1e-6):
        out = rezero_layer(x, weights, config, alpha)
        ratios.append(np.linalg.norm(out - x) / alpha)
        np.testing.assert_allclose((out - x) / alpha, velocity, rtol=0,
                                   atol=2e-4 * np.abs(velocity).max())
    ratios = np.array(ratios)
    assert np.max(np.abs(ratios / ratios[-1] - 1.0)) < 1e-4  # ‖Δ‖/α constant
    assert abs(ratios[-1] / speed - 1.0) < 1e-6
    # ... and only for small α: at α = 1 the response is no longer linear
    big = np.linalg.norm(rezero_layer(x, weights, config, 1.0) - x)
    assert abs(big / speed - 1.0) > 1e-2


def test_rezero_rejects_bad_alpha():
    config, weights, x = _setup()
    for alpha in (float("nan"), float("inf"), "1", None):
        with pytest.raises(EngineError, match="alpha"):
            rezero_layer(x, weights, config, alpha)
