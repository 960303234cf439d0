"""app/derive.py: the numbers derived on the worker are the panels' own functions of the same
rows, bit for bit, and the norm panel draws the derived object itself (no second computation
on the main thread)."""

import numpy as np

from app.compute import Request, compute
from app.derive import NORM_POINTS, derive
from engine import LayerWeights, Qwen3Config
from engine.norms import compare_norms

TOY = Qwen3Config.toy()


def _result(text="我爱北京天安门", config=TOY):
    return compute(Request(1, text, config, LayerWeights.random(config, 0)))


def test_derived_norms_are_compare_norms_of_the_last_token_bitwise():
    result = _result()
    trace = result.trace
    last = len(result.tokens) - 1
    assert set(result.derived.norms) == {(p, last) for p in NORM_POINTS}
    for point in NORM_POINTS:
        got = result.derived.norm_comparison(point, last)
        want = compare_norms(trace[point][last], eps=TOY.rms_norm_eps)
        for name in ("vector", "layer_norm", "rms_norm", "gamma"):
            assert np.array_equal(getattr(got, name), getattr(want, name)), name
        assert got.input_stats == want.input_stats
        assert got.layer_norm_stats == want.layer_norm_stats
        assert got.rms_norm_stats == want.rms_norm_stats
        assert (got.layer_norm_gap, got.rms_norm_gap, got.centred_gap) == (
            want.layer_norm_gap, want.rms_norm_gap, want.centred_gap)
        assert got.layer_norm_projection.distance == want.layer_norm_projection.distance
        assert got.rms_projection.distance == want.rms_projection.distance
    # any other row is not derived: the panel computes it
    assert result.derived.norm_comparison("embed", 0) is None
    assert derive(trace).norms.keys() == result.derived.norms.keys()


def test_a_row_the_comparison_refuses_is_not_derived():
    # a one-feature layer computes, but compare_norms needs two entries: nothing is derived
    # and the layer's result is still whole (the norm panel says why it cannot draw)
    config = Qwen3Config(hidden_size=1, intermediate_size=1, num_attention_heads=1,
                         num_key_value_heads=1, head_dim=2)
    result = _result("a b", config)
    assert result.ok and result.derived is not None
    assert dict(result.derived.norms) == {}


def test_error_results_derive_nothing():
    result = _result("")
    assert not result.ok and result.derived is None


def test_norm_panel_draws_the_derived_comparison(make_window):
    window = make_window(sync=True, text="我爱北京天安门")
    panel = window.panels["normDock"]
    result = window.state.result
    last = len(result.tokens) - 1
    assert window.state.query == last
    assert panel.comparison is result.derived.norm_comparison(panel.point, last)
    panel.set_point("resid_attn")
    assert panel.comparison is result.derived.norm_comparison("resid_attn", last)
    window.state.set_query(1)  # not derived: computed by the panel, the same function
    assert panel.comparison is not None and panel.shown_query == 1
    np.testing.assert_array_equal(
        panel.comparison.layer_norm,
        compare_norms(result.trace["resid_attn"][1], eps=TOY.rms_norm_eps).layer_norm)
