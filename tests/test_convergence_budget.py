"""The convergence sweep (the layer run ~640 times) is skipped by the work it would take, not
by the token count alone: the toy layer sweeps short inputs, the Qwen3-0.6B shape never does,
and the boundary is the budget (the toy layer at 256 tokens)."""

import pytest

import app.compute
from app.compute import (
    CONVERGENCE_BUDGET,
    CONVERGENCE_BUDGET_TOKENS,
    SWEEP_LAYER_RUNS,
    Request,
    Result,
    compute,
    compute_convergence,
    convergence_max_tokens,
    convergence_skipped,
    layer_work,
    sweeps_convergence,
)
from engine import MAX_TOKENS, LayerWeights, Qwen3Config
from engine.continuous import Convergence

TOY = Qwen3Config.toy()
BIG = Qwen3Config.qwen3_0_6b()
#: between the two: sweeps some tokens, not 256
MID = Qwen3Config(hidden_size=64, intermediate_size=128, num_attention_heads=4,
                  num_key_value_heads=2, head_dim=16)


def test_layer_work_counts_the_matrix_products():
    # toy, T = 2: q 16, k 8, v 8, o 16 (each × hidden 16), MLP 3 × 16 × 32, attention 2·4·T²·4
    assert layer_work(TOY, 2) == 2 * (16 * (16 + 8 + 8 + 16) + 3 * 16 * 32) + 2 * 4 * 4 * 4
    assert CONVERGENCE_BUDGET == layer_work(TOY, CONVERGENCE_BUDGET_TOKENS)
    assert layer_work(BIG, 1) > CONVERGENCE_BUDGET  # one token of 0.6B outweighs 256 toy ones


def test_the_boundary_is_the_budget():
    assert sweeps_convergence(TOY, 1) and sweeps_convergence(TOY, CONVERGENCE_BUDGET_TOKENS)
    assert not sweeps_convergence(TOY, CONVERGENCE_BUDGET_TOKENS + 1)
    assert convergence_max_tokens(TOY) == CONVERGENCE_BUDGET_TOKENS
    assert convergence_max_tokens(BIG) == 0 and not sweeps_convergence(BIG, 1)
    tiny = Qwen3Config(hidden_size=2, intermediate_size=2, num_attention_heads=1,
                       num_key_value_heads=1, head_dim=2)
    for config, low, high in ((MID, 2, CONVERGENCE_BUDGET_TOKENS), (tiny, 256, MAX_TOKENS)):
        limit = convergence_max_tokens(config)
        assert low < limit < high
        assert layer_work(config, limit) <= CONVERGENCE_BUDGET < layer_work(config, limit + 1)
        assert sweeps_convergence(config, limit) and not sweeps_convergence(config, limit + 1)


def _computed(config, n_tokens, weights):
    request = Request(1, " ".join(f"w{i}" for i in range(n_tokens)), config, weights)
    return request, compute(request)


def test_the_toy_layer_sweeps_a_short_sentence():
    request, result = _computed(TOY, 4, LayerWeights.random(TOY, 0))
    assert not convergence_skipped(result)
    assert isinstance(compute_convergence(request, result), Convergence)


def test_the_real_qwen3_shape_skips_the_sweep_for_sixteen_tokens(monkeypatch):
    request, result = _computed(BIG, 16, LayerWeights.random(BIG, 0))
    assert result.ok and len(result.tokens) == 16
    assert convergence_skipped(result)

    def never(*_args, **_kwargs):
        raise AssertionError("the sweep must not start")

    monkeypatch.setattr(app.compute, "convergence", never)
    assert compute_convergence(request, result) is None


@pytest.mark.parametrize("result", [None, Result(1, "x", error="bad input")])
def test_nothing_computed_is_not_reported_as_skipped(result):
    assert not convergence_skipped(result)


def test_the_quoted_number_of_layer_runs_is_what_the_sweep_costs(monkeypatch):
    """The panels say the sweep runs the layer ~SWEEP_LAYER_RUNS times (they said ~130, the
    Euler runs alone): count the rows of the [..., T, D] states the attention branch is
    evaluated on over one sweep."""
    from engine import continuous, embed, tokenize

    runs = []
    attention = continuous._Branches.attention

    def counted(self, u):
        runs.append(1 if u.ndim == 2 else u.shape[0])
        return attention(self, u)

    monkeypatch.setattr(continuous._Branches, "attention", counted)
    weights = LayerWeights.random(TOY, seed=0)
    continuous.convergence(embed(tokenize("one two three"), TOY.hidden_size), weights, TOY)
    assert sum(runs) == SWEEP_LAYER_RUNS
