"""What the worker's compute hands the panels, and that it does no work nobody asked for."""

import pytest

import app.compute
from app.compute import Baseline, Request, compute, symmetric_levels
from engine import LayerWeights, Qwen3Config

TOY = Qwen3Config.toy()


def _result(text: str = "Attention never reads the future tokens", causal: bool = True):
    return compute(Request(1, text, TOY, LayerWeights.random(TOY, 0), causal=causal))


@pytest.mark.parametrize("causal", [True, False])
def test_colour_levels_are_found_per_step_when_first_read_and_then_kept(monkeypatch, causal):
    calls = []
    real = app.compute.symmetric_levels

    def counted(array):
        calls.append(array)
        return real(array)

    monkeypatch.setattr(app.compute, "symmetric_levels", counted)
    result = _result(causal=causal)
    assert calls == []  # the worker found none: only the shown step's heatmap reads them
    assert result.levels["causal_mask"] == symmetric_levels(result.trace["causal_mask"])
    assert result.levels["causal_mask"] == symmetric_levels(result.trace["causal_mask"])
    assert len(calls) == 1  # kept for the result: its colours never jump
    assert len(result.levels) == len(result.trace.steps)
    assert list(result.levels) == [step.name for step in result.trace.steps]
    for step in result.trace.steps:
        expected = ((0.0, 1.0) if step.kind == "probability"
                    else symmetric_levels(step.array))
        assert result.levels[step.name] == expected
    with pytest.raises(KeyError):
        result.levels["no_such_step"]
    assert "no_such_step" not in result.levels and "attn_probs" in result.levels


def test_the_baseline_trace_is_reused_and_the_trace_is_the_same_bits(monkeypatch):
    """The worker hands the baseline (the last keystroke's trace) to ``run_layer(reuse=)``:
    an edit of the last token recomputes the softmax of its row only, same numbers."""
    import numpy as np

    import engine

    weights = LayerWeights.random(TOY, 0)
    text = " ".join(f"w{i}" for i in range(199))
    first = compute(Request(1, text + " a", TOY, weights))
    given = []
    real = engine.run_layer

    def run_layer(*args, **kwargs):
        given.append(kwargs.get("reuse"))
        return real(*args, **kwargs)

    monkeypatch.setattr(app.compute.engine, "run_layer", run_layer)
    baseline = Baseline("previous", first.text, first.tokens, first.trace, first.request_id)
    edited = compute(Request(2, text + " b", TOY, weights, baseline=baseline))
    assert given == [first.trace]
    fresh = real(edited.trace["embed"], weights, TOY)
    for a, b in zip(fresh.steps, edited.trace.steps, strict=True):
        assert np.array_equal(a.array.view(np.int64), b.array.view(np.int64)), a.name
    assert edited.causality.exact
    assert edited.baseline is baseline and edited.baseline_tokens == first.tokens
