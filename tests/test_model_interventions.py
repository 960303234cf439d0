"""Interventions on the whole model (engine.model.Qwen3Model.forward with ``intervention``):
which layers they run in, the facts they must keep bit for bit, recomputing only what changes
from the plain run (``base``), and the KV cache with an intervention.

The checkpoints are the tiny ones of tests/test_model.py (3 and 2 layers).
"""

import numpy as np
import pytest

from engine import EngineError, Intervention, run_layer
from engine.model import Qwen3Model
from tests.test_model import NAMES, golden, max_diff

_MODELS = {}


def model(name):
    if name not in _MODELS:
        _MODELS[name] = Qwen3Model.load(NAMES[name])
    return _MODELS[name]


def ids_of(name):
    return golden(name)["ids"].tolist()


def same_run(a, b):
    """Every array of two runs bit for bit (states, final norm, logits, keys, values, trace)."""
    assert np.array_equal(a.residual, b.residual)
    assert np.array_equal(a.final_normed, b.final_normed)
    assert np.array_equal(a.logits, b.logits)
    for x, y in zip(a.keys + a.values, b.keys + b.values, strict=True):
        assert np.array_equal(x, y)
    for step_a, step_b in zip(a.trace.steps, b.trace.steps, strict=True):
        assert np.array_equal(step_a.array, step_b.array)


# --- which layers ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(NAMES))
def test_the_intervention_runs_in_the_shown_layer_by_default_and_is_recorded(name):
    m, ids = model(name), ids_of(name)
    iv = Intervention(zero_heads=(1,))
    plain = m.forward(ids, layer=1)
    assert plain.intervention is None and plain.intervened_layers == ()
    run = m.forward(ids, layer=1, intervention=iv)
    assert run.intervention == iv and run.intervened_layers == (1,) and run.is_intervened
    assert run.trace.intervention == iv
    # layer 1 is the layer of its input under the intervention, every other the plain layer
    for index in range(m.num_layers):
        expected = run_layer(run.residual[index], m.layers[index], m.layer_config,
                             intervention=iv if index == 1 else None)
        assert np.array_equal(expected.output, run.residual[index + 1]), index
    assert np.array_equal(run.trace.output, run.residual[2])


@pytest.mark.parametrize("name", sorted(NAMES))
def test_all_layers_or_a_tuple_of_layers(name):
    m, ids = model(name), ids_of(name)
    iv = Intervention(zero_heads=(0,), zero_neurons=(2,))
    every = m.forward(ids, layer=0, intervention=iv, intervene_layers="all")
    assert every.intervened_layers == tuple(range(m.num_layers))
    listed = m.forward(ids, layer=0, intervention=iv,
                       intervene_layers=list(range(m.num_layers))[::-1])
    assert listed.intervened_layers == every.intervened_layers
    same_run(every, listed)
    for index in range(m.num_layers):
        expected = run_layer(every.residual[index], m.layers[index], m.layer_config,
                             intervention=iv)
        assert np.array_equal(expected.output, every.residual[index + 1]), index
    last = m.num_layers - 1
    one = m.forward(ids, layer=0, intervention=iv, intervene_layers=last)
    assert one.intervened_layers == (last,)
    assert np.array_equal(one.residual[:last + 1], m.forward(ids).residual[:last + 1])
    assert not np.array_equal(one.residual[-1], every.residual[-1])


def test_bad_layers_heads_and_neurons_name_the_valid_range():
    m, ids = model("bf16_sharded"), ids_of("bf16_sharded")
    iv = Intervention(zero_heads=(0,))
    for bad in (3, (0, 3), -1, [1, -2]):
        with pytest.raises(EngineError, match="valid layers are 0 to 2") as info:
            m.forward(ids, intervention=iv, intervene_layers=bad)
        assert info.value.code == "model_intervene_layer"
    for bad in ("every", (), (1, 1), 1.0, True, (0, True), b"all", {0: 1}):
        with pytest.raises(EngineError, match="from 0 to 2") as info:
            m.forward(ids, intervention=iv, intervene_layers=bad)
        assert info.value.code == "model_intervene_layers"
    heads, width = m.layer_config.num_attention_heads, m.layer_config.intermediate_size
    with pytest.raises(EngineError, match=f"valid indices are 0 to {heads - 1}"):
        m.forward(ids, intervention=Intervention(zero_heads=(heads,)), intervene_layers="all")
    with pytest.raises(EngineError, match=f"valid indices are 0 to {width - 1}"):
        m.forward(ids, intervention=Intervention(zero_neurons=(width,)))
    with pytest.raises(EngineError, match=r"engine\.Intervention"):
        m.forward(ids, intervention={"zero_heads": (0,)})


# --- exact facts ----------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(NAMES))
def test_an_empty_intervention_gives_todays_bits(name):
    m, ids = model(name), ids_of(name)
    for layer in range(m.num_layers):
        plain = m.forward(ids, layer=layer)
        for where in (None, "all"):
            empty = m.forward(ids, layer=layer, intervention=Intervention(),
                              intervene_layers=where)
            assert empty.intervention is None and empty.intervened_layers == ()
            same_run(empty, plain)
        same_run(m.forward(ids, layer=layer, intervention=Intervention(), base=plain), plain)


@pytest.mark.parametrize("name", sorted(NAMES))
def test_zeroing_a_head_leaves_every_earlier_state_and_the_heads_elsewhere(name):
    m, ids = model(name), ids_of(name)
    d = m.layer_config.head_dim
    plain = m.forward(ids)
    for j in range(m.num_layers):
        for head in range(m.layer_config.num_attention_heads):
            run = m.forward(ids, layer=j, intervention=Intervention(zero_heads=(head,)))
            assert np.array_equal(run.residual[:j + 1], plain.residual[:j + 1]), (j, head)
            for index in range(j):
                assert np.array_equal(run.keys[index], plain.keys[index])
                assert np.array_equal(run.values[index], plain.values[index])
            context = run.trace["attn_context"]
            plain_context = run_layer(plain.residual[j], m.layers[j],
                                      m.layer_config)["attn_context"]
            cols = slice(head * d, (head + 1) * d)
            assert not context[:, cols].any()
            assert np.array_equal(np.delete(context, np.s_[cols], axis=1),
                                  np.delete(plain_context, np.s_[cols], axis=1))
            assert not np.array_equal(run.residual[j + 1], plain.residual[j + 1])
            assert not np.array_equal(run.logits, plain.logits)


@pytest.mark.parametrize("name", sorted(NAMES))
def test_skipping_the_mlp_everywhere_makes_each_state_the_layers_resid_attn(name):
    m, ids = model(name), ids_of(name)
    plain = m.forward(ids)
    run = m.forward(ids, intervention=Intervention(skip=("mlp",)), intervene_layers="all")
    for index in range(m.num_layers):
        trace = run_layer(run.residual[index], m.layers[index], m.layer_config)
        assert np.array_equal(run.residual[index + 1], trace["resid_attn"]), index
    assert np.array_equal(run.residual[1], run_layer(plain.residual[0], m.layers[0],
                                                     m.layer_config)["resid_attn"])
    assert np.array_equal(run.trace["resid_mlp"], run.trace["resid_attn"])
    assert not np.array_equal(run.logits, plain.logits)
    assert max_diff(run.logits, plain.logits) > 1e-6


@pytest.mark.parametrize("name", sorted(NAMES))
def test_skipping_attention_everywhere_leaves_each_layer_a_pure_mlp_step(name):
    m, ids = model(name), ids_of(name)
    run = m.forward(ids, intervention=Intervention(skip=("attention",)), intervene_layers="all")
    for index in range(m.num_layers):
        trace = run_layer(run.residual[index], m.layers[index], m.layer_config,
                          intervention=Intervention(skip=("attention",)))
        assert np.array_equal(trace["resid_attn"], run.residual[index])
        assert np.array_equal(trace.output, run.residual[index + 1])
    # without attention no token reads another: a token's states are its own prefix-free
    # computation, so the first token's row is the same with or without the rest of the text
    alone = m.forward(ids[:1], intervention=Intervention(skip=("attention",)),
                      intervene_layers="all")
    assert max_diff(alone.residual[:, 0], run.residual[:, 0]) < 1e-12


# --- recomputing only what changes (base=) -------------------------------------------------

@pytest.mark.parametrize("name", sorted(NAMES))
def test_from_the_plain_run_only_the_intervened_layer_and_later_ones_are_computed(name):
    m, ids = model(name), ids_of(name)
    t = len(ids)
    iv = Intervention(head_scale={1: 0.5}, zero_neurons=(0, 5), skip=("attention",))
    for shown in range(m.num_layers):
        plain = m.forward(ids, layer=shown)
        for j in range(m.num_layers):
            for where in (j, tuple(range(j, m.num_layers))):
                fast = m.forward(ids, layer=shown, intervention=iv, intervene_layers=where,
                                 base=plain)
                scratch = m.forward(ids, layer=shown, intervention=iv, intervene_layers=where)
                same_run(fast, scratch)
                assert fast.intervened_layers == scratch.intervened_layers
                assert np.array_equal(fast.residual[:j + 1], plain.residual[:j + 1])
                assert fast.exact_rows == t
                # the reused states are the plain run's numbers; only layers j .. are new
                # (and the shown layer's trace if it lies before j and base shows another)
                assert fast.rows_recomputed == (m.num_layers - j) * t
                if shown < j:
                    assert fast.trace is plain.trace
                else:
                    assert fast.trace.intervention == (iv if shown in fast.intervened_layers
                                                       else None)


def test_the_shown_layer_before_the_intervention_is_recomputed_when_base_shows_another():
    m, ids = model("bf16_sharded"), ids_of("bf16_sharded")
    plain = m.forward(ids, layer=2)
    iv = Intervention(zero_heads=(3,))
    fast = m.forward(ids, layer=0, intervention=iv, intervene_layers=2, base=plain)
    assert fast.rows_recomputed == 2 * len(ids)  # layer 2, and layer 0's trace
    same_run(fast, m.forward(ids, layer=0, intervention=iv, intervene_layers=2))
    no_iv = m.forward(ids, layer=1, base=plain)
    same_run(no_iv, m.forward(ids, layer=1))
    assert no_iv.rows_recomputed == len(ids)


def test_a_wrong_base_is_refused():
    m, ids = model("bf16_sharded"), ids_of("bf16_sharded")
    iv = Intervention(zero_heads=(0,))
    intervened = m.forward(ids, intervention=iv)
    other_ids = m.forward(ids[:-1])
    other_model = model("f32_untied").forward(ids)
    for bad, what in ((intervened, "with an intervention"), (other_ids, "other ids"),
                      (other_model, "another model"), ("run", "str")):
        with pytest.raises(EngineError, match=f"plain run .* got .*{what}") as info:
            m.forward(ids, intervention=iv, base=bad)
        assert info.value.code == "model_base"
    plain = m.forward(ids)
    with pytest.raises(EngineError, match="not both"):
        m.forward(ids, intervention=iv, base=plain, cache=plain)


# --- the KV cache with an intervention ------------------------------------------------------

@pytest.mark.parametrize("name", sorted(NAMES))
def test_an_edit_under_an_intervention_reuses_the_cache_of_that_intervention(name):
    m, ids = model(name), ids_of(name)
    edited = [*ids[:-1], (ids[-1] + 7) % 280]
    iv = Intervention(zero_heads=(1,), zero_neurons=(3,), skip=("mlp",))
    before = m.forward(ids, layer=0, intervention=iv, intervene_layers="all")
    cached = m.forward(edited, layer=0, cache=before, intervention=iv, intervene_layers="all")
    full = m.forward(edited, layer=0, intervention=iv, intervene_layers="all")
    assert cached.reused_rows == len(ids) - 1
    assert cached.intervened_layers == full.intervened_layers
    assert np.array_equal(cached.residual[:, :-1], full.residual[:, :-1])
    assert max_diff(cached.residual, full.residual) < 1e-12
    assert max_diff(cached.logits, full.logits) < 1e-12
    # a cache of another intervention (or none) holds other numbers: the run starts afresh
    plain_cache = m.forward(ids, layer=0)
    fresh = m.forward(edited, layer=0, cache=plain_cache, intervention=iv,
                      intervene_layers="all")
    assert fresh.reused_rows == 0
    same_run(fresh, full)
    back = m.forward(edited, layer=0, cache=before)
    assert back.reused_rows == 0 and back.intervention is None
    same_run(back, m.forward(edited, layer=0))
