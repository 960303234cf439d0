"""engine.Intervention: heads, neurons and branches switched off, each fact exact."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from engine import (
    STEP_INFO,
    STEP_NAMES,
    EngineError,
    Intervention,
    LayerTrace,
    LayerWeights,
    Qwen3Config,
    Step,
    attention_branch,
    convergence,
    depth_states,
    mlp_branch,
    parallel,
    rezero_layer,
    run_layer,
    substep_layer,
)

TOY = Qwen3Config()  # 4 heads of 4 features, 2 kv heads, 32 MLP neurons
MEDIUM = Qwen3Config(hidden_size=64, intermediate_size=192, num_attention_heads=4,
                     num_key_value_heads=2, head_dim=32, rms_norm_eps=1e-6, rope_theta=1e6)


def same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and bool(np.array_equal(a.view(np.int64), b.view(np.int64)))


def state(t: int, config: Qwen3Config = TOY) -> np.ndarray:
    x = np.random.default_rng(t).standard_normal((t, config.hidden_size))
    x[0, :4] = -0.0  # x + 0.0 is not x here: a skipped branch must copy, not add a zero
    return x


@pytest.fixture(params=["one_thread", "split"])
def setting(request, monkeypatch):
    """Every fact in the toy layer on one thread, and in a layer shared over two threads (head
    groups and MLP columns: the interventions act inside each thread's share)."""
    before = parallel.workers()
    if request.param == "split":
        monkeypatch.setattr(parallel, "MIN_WORK", 0)
        parallel.set_workers(2)
        assert parallel.workers() == 2
        config = MEDIUM
    else:
        parallel.set_workers(1)
        config = TOY
    yield config, LayerWeights.random(config, seed=7), state(70, config)
    parallel.set_workers(before)


def test_no_intervention_is_the_plain_layer_bit_for_bit(setting):
    config, weights, x = setting
    plain = run_layer(x, weights, config)
    for intervention in (None, Intervention(), Intervention(zero_heads=[], skip=[])):
        trace = run_layer(x, weights, config, intervention=intervention)
        assert trace.intervention is None
        assert all(same(a.array, b.array) for a, b in zip(plain, trace, strict=True))


@pytest.mark.parametrize("head", [0, 1, 3])
def test_zeroing_a_head_zeroes_its_context_columns_and_nothing_before(setting, head):
    config, weights, x = setting
    d = config.head_dim
    plain = run_layer(x, weights, config)
    trace = run_layer(x, weights, config, intervention=Intervention(zero_heads=(head,)))
    for name in STEP_NAMES[:STEP_NAMES.index("attn_context")]:
        assert same(trace[name], plain[name]), name
    columns = np.zeros(config.num_attention_heads * d, dtype=bool)
    columns[head * d:(head + 1) * d] = True
    assert same(trace["attn_context"][:, columns], np.zeros((len(x), d)))
    assert same(trace["attn_context"][:, ~columns], plain["attn_context"][:, ~columns])
    assert not np.allclose(trace["o_proj"], plain["o_proj"])  # o_proj saw the zeros


def test_scaling_a_head_multiplies_its_columns_only(setting):
    config, weights, x = setting
    d = config.head_dim
    plain = run_layer(x, weights, config)
    trace = run_layer(x, weights, config, intervention=Intervention(head_scale={2: 0.5}))
    cols = slice(2 * d, 3 * d)
    assert same(trace["attn_context"][:, cols], plain["attn_context"][:, cols] * 0.5)
    rest = np.ones(trace["attn_context"].shape[1], dtype=bool)
    rest[cols] = False
    assert same(trace["attn_context"][:, rest], plain["attn_context"][:, rest])


def test_skipping_attention_keeps_the_input(setting):
    config, weights, x = setting
    plain = run_layer(x, weights, config)
    trace = run_layer(x, weights, config, intervention=Intervention(skip=("attention",)))
    assert same(trace["resid_attn"], x) and same(trace["resid_attn"], trace["embed"])
    assert same(trace["o_proj"], plain["o_proj"])  # the branch is still shown, only cut off


def test_skipping_the_mlp_keeps_resid_attn(setting):
    config, weights, x = setting
    trace = run_layer(x, weights, config, intervention=Intervention(skip=("mlp",)))
    assert same(trace["resid_mlp"], trace["resid_attn"])
    assert same(trace.output, run_layer(x, weights, config)["resid_attn"])
    both = run_layer(x, weights, config, intervention=Intervention(skip=("mlp", "attention")))
    assert same(both.output, x)


def test_zeroing_neurons_zeroes_their_gated_columns(setting):
    config, weights, x = setting
    plain = run_layer(x, weights, config)
    neurons = (3, 7, config.intermediate_size - 1)
    trace = run_layer(x, weights, config, intervention=Intervention(zero_neurons=neurons))
    for name in STEP_NAMES[:STEP_NAMES.index("gated")]:
        assert same(trace[name], plain[name]), name
    off = np.zeros(config.intermediate_size, dtype=bool)
    off[list(neurons)] = True
    assert same(trace["gated"][:, off], np.zeros((len(x), len(neurons))))
    assert same(trace["gated"][:, ~off], plain["gated"][:, ~off])
    assert not np.allclose(trace["down_proj"], plain["down_proj"])


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"zero_heads": (4,)}, "zero_heads: there is no 4; valid indices are 0 to 3"),
    ({"head_scale": {9: 2.0}}, "head_scale: there is no 9; valid indices are 0 to 3"),
    ({"zero_neurons": (32,)}, "zero_neurons: there is no 32; valid indices are 0 to 31"),
])
def test_out_of_range_names_the_valid_range(kwargs, message):
    weights = LayerWeights.random(TOY)
    with pytest.raises(EngineError, match=message) as caught:
        run_layer(state(3), weights, TOY, intervention=Intervention(**kwargs))
    assert caught.value.code == "intervention_range"


@pytest.mark.parametrize(("kwargs", "code"), [
    ({"skip": ("attn",)}, "intervention_skip"),
    ({"skip": "mlp"}, "intervention_skip"),
    ({"skip": ("mlp", "mlp")}, "intervention_skip"),
    ({"head_scale": {1: float("nan")}}, "intervention_scale"),
    ({"head_scale": {1: float("inf")}}, "intervention_scale"),
    ({"head_scale": {1: True}}, "intervention_scale"),
    ({"head_scale": [1, 2]}, "intervention_scale_type"),
    ({"zero_heads": (-1,)}, "intervention_negative"),
    ({"zero_heads": (1.0,)}, "intervention_indices"),
    ({"zero_heads": (True,)}, "intervention_indices"),
    ({"zero_heads": 1}, "intervention_indices"),
    ({"zero_neurons": (2, 2)}, "intervention_repeat"),
    ({"zero_heads": (1,), "head_scale": {1: 0.5}}, "intervention_zero_and_scale"),
])
def test_nonsense_is_refused_in_words(kwargs, code):
    with pytest.raises(EngineError) as caught:
        Intervention(**kwargs)
    assert caught.value.code == code


def test_only_an_intervention_is_taken():
    with pytest.raises(EngineError, match=r"engine\.Intervention or None"):
        run_layer(state(3), LayerWeights.random(TOY), TOY, intervention={"skip": ("mlp",)})


def test_frozen_hashable_and_normalised():
    a = Intervention(zero_heads=[3, 1], head_scale={2: 0.5, 0: 2}, zero_neurons=(7, 3),
                     skip=("mlp", "attention"))
    b = Intervention(zero_heads=(1, 3), head_scale=((0, 2.0), (2, 0.5)), zero_neurons=[3, 7],
                     skip=["attention", "mlp"])
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a.zero_heads == (1, 3) and a.head_scale == ((0, 2.0), (2, 0.5))
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.zero_heads = ()  # type: ignore[misc]
    assert Intervention() != a and Intervention().is_empty


def test_it_says_what_is_off():
    iv = Intervention(zero_heads=(1,), head_scale={2: 0.5}, zero_neurons=(3, 7),
                      skip=("attention",))
    assert iv.describe() == ("attention branch skipped; head 1 zeroed; head 2 scaled by 0.5; "
                             "MLP neurons 3, 7 zeroed")
    assert Intervention().describe() == "nothing"
    assert (Intervention(skip=("mlp", "attention")).describe()
            == "attention branch skipped and MLP branch skipped")
    kinds = [(p.kind, p.index, p.branch, p.factor) for p in iv.parts()]
    assert kinds == [("skip", None, "attention", None), ("zero_head", 1, None, None),
                     ("scale_head", 2, None, 0.5), ("zero_neuron", 3, None, None),
                     ("zero_neuron", 7, None, None)]


INTERVENTIONS = [Intervention(zero_heads=(1,), head_scale={3: 1.5}),
                 Intervention(zero_neurons=(0, 5, 31)),
                 Intervention(skip=("attention",)), Intervention(skip=("mlp",)),
                 Intervention(skip=("attention",), zero_neurons=(4,))]


@pytest.mark.parametrize("iv", INTERVENTIONS, ids=lambda iv: iv.describe())
def test_the_continuous_view_takes_the_same_intervention(iv):
    weights, x = LayerWeights.random(TOY, seed=3), state(9)
    trace = run_layer(x, weights, TOY, intervention=iv)
    a = attention_branch(x, weights, TOY, intervention=iv)
    if iv.skips("attention"):
        assert not a.any()  # a pure MLP step
    else:
        assert same(x + a, trace["resid_attn"])
    h = trace["resid_attn"]
    m = mlp_branch(h, weights, TOY, intervention=iv)
    if iv.skips("mlp"):
        assert not m.any()
    else:
        assert same(h + m, trace.output)
    assert same(substep_layer(x, weights, TOY, 1, intervention=iv), trace.output)
    assert same(rezero_layer(x, weights, TOY, 1.0, intervention=iv), trace.output)
    assert same(convergence(x, weights, TOY, (1, 2), intervention=iv).layer_output,
                trace.output)
    states = depth_states(trace)
    assert same(states.at(0.5), trace["resid_attn"]) and same(states.at(1.0), trace.output)
    if iv.skips("attention"):
        assert same(states.at(0.25), x) and not states.attn_update.any()
    _times, norms = states.norm_curves(5)
    assert np.allclose(norms[2], np.linalg.norm(trace["resid_attn"], axis=-1), rtol=0,
                       atol=1e-12)


def test_skipping_attention_in_the_flow_is_a_pure_mlp_flow():
    weights, x = LayerWeights.random(TOY, seed=3), state(6)
    iv = Intervention(skip=("attention",))
    u = x.copy()
    for _ in range(4):  # u <- u + M(u)/4, the MLP alone
        u = u + 0.25 * mlp_branch(u, weights, TOY)
    assert same(substep_layer(x, weights, TOY, 4, intervention=iv), u)


def fake_probs_trace(trace: LayerTrace, intervention: Intervention | None) -> LayerTrace:
    """``trace`` with attn_probs replaced by a marker: a run that reuses its rows shows it."""
    steps = list(trace.steps)
    marker = np.full_like(trace["attn_probs"], 0.125)
    marker.setflags(write=False)
    steps[STEP_NAMES.index("attn_probs")] = Step(STEP_INFO[12], marker, True)
    return dataclasses.replace(trace, steps=tuple(steps), intervention=intervention)


def test_softmax_rows_are_never_reused_across_interventions():
    weights, x = LayerWeights.random(TOY, seed=5), state(100)  # > 64 tokens: rows in blocks
    a, b = Intervention(zero_heads=(1,)), Intervention(zero_neurons=(2,))
    plain = run_layer(x, weights, TOY, intervention=a)["attn_probs"]
    # the same intervention reuses every row (the marker comes through): the test can see it
    marked = fake_probs_trace(run_layer(x, weights, TOY, intervention=a), a)
    # (key 0 is seen by every query row: each reused row holds the marker there)
    assert (run_layer(x, weights, TOY, intervention=a, reuse=marked)["attn_probs"][..., 0]
            == 0.125).all()
    # None and an empty Intervention are the same plain layer
    marked_plain = fake_probs_trace(run_layer(x, weights, TOY), None)
    assert (run_layer(x, weights, TOY, intervention=Intervention(), reuse=marked_plain)
            ["attn_probs"][..., 0] == 0.125).all()
    # another intervention, or none, never takes them
    for iv, reuse in ((b, marked), (None, marked), (a, marked_plain)):
        probs = run_layer(x, weights, TOY, intervention=iv, reuse=reuse)["attn_probs"]
        assert same(probs, plain), iv
