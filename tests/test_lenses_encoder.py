"""docs/continuous.md E1–E4: the 2017 post-norm encoder block is one six-sub-step Lie
splitting step."""

import dataclasses

import numpy as np
import pytest

from engine import EngineError, ops
from engine.lenses import (
    EncoderBlock,
    block_from_scheme,
    encoder_block,
    lie_splitting,
    matched_closing_eps,
    random_block,
    random_scheme,
    scheme_from_block,
    skip_weight,
    splitting_lens,
)


def tokens(seed, t=8, d=16):
    return np.random.default_rng([seed, 7]).standard_normal((t, d))


@pytest.mark.parametrize("seed", range(4))
def test_e1_six_substeps_equal_the_block(seed):
    """Δt = 1, ω = ½, ε = 0: u₆ equals a genuine block (separate W_V, W_O) to ≤ 1e-13."""
    block = random_block(16, 4, seed=seed)
    u0 = tokens(seed)
    result = splitting_lens(u0, block)
    assert result.gap_block <= 1e-13  # seen: ≤ 1.4e-15
    assert result.gap_reweighted <= 1e-13  # ω = ½: skip weight 1, the same block
    assert result.skip == 1.0
    # not trivially equal: the block moves the tokens by O(1)
    assert np.max(np.abs(result.output - u0)) > 0.5
    kinds = [s.kind for s in result.substeps]
    assert kinds == ["explicit Euler", "projection", "explicit Euler + projection",
                     "explicit Euler", "relaxation", "projection"]
    assert [s.name for s in result.substeps] == ["u1", "u2", "u3", "u4", "u5", "u6"]
    assert all(s.kind_zh and s.formula and s.meaning and s.meaning_zh for s in result.substeps)
    # u₂ is the block's first LayerNorm output h, and a true projection: mean σ₁, std σ₂
    u2 = result.substeps[1].array
    assert np.allclose(u2.mean(axis=1), block.ln1_beta, rtol=0, atol=1e-14)
    assert np.allclose(u2.std(axis=1), block.ln1_gamma, rtol=0, atol=1e-14)
    assert "exact nearest point" in result.substeps[1].note


def test_e1_folding_is_per_head_product():
    """V_h = W_V,h W_O,h with W_O,h the rows of W_O for head h; the transpose does not work."""
    block = random_block(16, 4, seed=3)
    scheme = scheme_from_block(block)
    d_v = block.w_v.shape[2]
    for h in range(4):
        expected = block.w_v[h] @ block.w_o[h * d_v:(h + 1) * d_v]
        assert np.array_equal(scheme.v[h], expected)
    assert np.allclose(np.eye(16) + scheme.w_1, block.w_1, rtol=0, atol=1e-15)  # I + ΔtW₁
    # a wrong fold (heads' W_O rows swapped) breaks the equality: the test can fail
    swapped = dataclasses.replace(scheme, v=scheme.v[::-1].copy())
    u0 = tokens(3)
    wrong = lie_splitting(u0, swapped)[-1].array
    assert np.max(np.abs(wrong - encoder_block(u0, block))) > 1e-3


def test_e1_per_feature_norm_keeps_equality_but_is_no_projection():
    block = random_block(16, 4, seed=5, per_feature_norm=True)
    assert not block.scalar_norms
    result = splitting_lens(tokens(5), block)
    assert result.gap_block <= 1e-13
    assert "not a nearest-point map" in result.substeps[1].note


@pytest.mark.parametrize("dt", [0.05, 0.5, 1.0, 2.0, 3.7])
def test_e2_dt_is_not_identifiable(dt):
    """Any Δt equals a block with weights ΔtV, I + ΔtW_j, Δt b_j; and a rescaled scheme."""
    scheme = random_scheme(16, 4, seed=11)
    u0 = tokens(11)
    u6 = lie_splitting(u0, scheme, dt=dt)[-1].array
    block = block_from_scheme(scheme, dt)
    assert np.max(np.abs(u6 - encoder_block(u0, block))) <= 1e-13  # seen: ≤ 1.8e-15
    # (weights, Δt) and (weights rescaled to Δt' = 1.3, Δt') give the same states
    other = scheme_from_block(block, 1.3)
    u6_other = lie_splitting(u0, other, dt=1.3)[-1].array
    assert np.max(np.abs(u6 - u6_other)) <= 1e-13
    # with the weights held fixed Δt does change the output (unless it is 1)
    if dt != 1.0:
        assert np.max(np.abs(u6 - lie_splitting(u0, scheme, dt=1.0)[-1].array)) > 0.1


def test_e2_block_given_dt_moves_no_state():
    block = random_block(16, 4, seed=2)
    u0 = tokens(2)
    base = splitting_lens(u0, block, dt=1.0)
    for dt in (0.1, 0.5, 4.0):
        moved = splitting_lens(u0, block, dt=dt)
        assert moved.gap_block <= 1e-13
        for a, b in zip(base.substeps, moved.substeps, strict=True):
            assert np.max(np.abs(a.array - b.array)) <= 1e-13
        assert np.max(np.abs(moved.scheme.w_1 - base.scheme.w_1)) > 0.1  # controls rescaled


@pytest.mark.parametrize("seed", range(4))
def test_e3_eps_gap_is_first_order_and_eps_over_4_removes_it(seed):
    """With ε in both LayerNorms the gap is LN_ε(w) − LN_4ε(w), w = u₄ + u₂, i.e. to first order
    (3/2)·ε·|γ(w − m)|/s³; ε/4 in the closing LayerNorm removes it.

    Seen at ε = 1e-5 (T = 8, d = 16, random scheme, seeds 0–3): max gap 2.0e-5, 1.7e-5, 2.0e-5,
    5.3e-6, mean |gap| 1.5e-6 … 4.7e-6 — docs/continuous.md E3's "~6e-6"; the figure scales as
    1/s² of w.
    """
    eps = 1e-5
    scheme = random_scheme(16, 4, seed=seed)
    u0 = tokens(seed)
    result = splitting_lens(u0, scheme, eps=eps)
    gap = result.gap_block
    u2, u4 = result.substeps[1].array, result.substeps[3].array
    w = u4 + u2
    centred = w - w.mean(axis=1, keepdims=True)
    s = np.sqrt(np.mean(centred**2, axis=1, keepdims=True))
    first_order = np.max(np.abs(scheme.ln2_gamma * centred) * 1.5 * eps / s**3)
    assert 1e-6 < gap < 1e-4
    assert abs(gap / first_order - 1) < 1e-3
    half = splitting_lens(u0, scheme, eps=eps / 2).gap_block
    assert abs(gap / half - 2) < 1e-3  # O(ε): halving ε halves the gap
    # the scheme's u₆ is exactly LN_{4ε}(w)
    assert np.max(np.abs(result.output - ops.layer_norm(w, 4 * eps, scheme.ln2_gamma,
                                                        scheme.ln2_beta))) <= 1e-13
    fixed = splitting_lens(u0, scheme, eps=eps, closing_eps=eps / 4)
    assert matched_closing_eps(eps, 0.5) == eps / 4
    assert fixed.gap_block <= 1e-13


@pytest.mark.parametrize("omega", [0.0, 0.2, 0.7, 0.9])
def test_e4_omega_is_a_reweighted_skip(omega):
    """u₆ = LN(u₄ + ω/(1−ω)·u₂) for any ω (DeepNorm-style α); ε needs ε(1−ω)² at the close."""
    block = random_block(16, 4, seed=4)
    u0 = tokens(4)
    result = splitting_lens(u0, block, omega=omega)
    assert result.skip == skip_weight(omega) == omega / (1 - omega)
    assert result.gap_reweighted <= 1e-13  # seen: ≤ 1.3e-15
    # an O(1) change against ω = ½ (the 2017 block): seen 0.97 … 1.3 at ω = 0.7
    assert result.gap_block > 0.1
    eps = 1e-5
    matched = splitting_lens(u0, block, omega=omega, eps=eps,
                             closing_eps=matched_closing_eps(eps, omega))
    assert matched.gap_reweighted <= 1e-13
    # ε/4 is the ω = ½ special case, not the general fix
    quarter = splitting_lens(u0, block, omega=omega, eps=eps, closing_eps=eps / 4)
    assert quarter.gap_reweighted > 1e-8


def test_results_are_frozen_and_inputs_checked():
    block = random_block(seed=0)
    result = splitting_lens(tokens(0), block)
    for array in (result.u0, result.block_output, result.reweighted_output,
                  *(s.array for s in result.substeps), block.w_q, result.scheme.v):
        assert array.dtype == np.float64 and not array.flags.writeable
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.dt = 2.0
    with pytest.raises(EngineError, match="d_ff = d_model"):
        scheme_from_block(random_block(16, 4, d_ff=32))
    with pytest.raises(EngineError, match=r"\[0, 1\)"):
        splitting_lens(tokens(0), block, omega=1.0)
    with pytest.raises(EngineError, match="dt"):
        splitting_lens(tokens(0), block, dt=0.0)
    with pytest.raises(EngineError, match="input"):
        encoder_block(np.zeros((3, 5)), block)
    with pytest.raises(EngineError, match="w_k"):
        EncoderBlock(**{**{f.name: getattr(block, f.name) for f in dataclasses.fields(block)},
                        "w_k": np.zeros((4, 16, 3))})
    with pytest.raises(EngineError, match="w_q must have 3 dimensions"):
        EncoderBlock(**{**{f.name: getattr(block, f.name) for f in dataclasses.fields(block)},
                        "w_q": np.zeros((16, 4))})


@pytest.mark.parametrize("scale", [0.0, 1e-200])
def test_a_constant_or_underflowing_input_at_eps_zero_is_an_engine_error(scale):
    # u₁ = 0 + Δt·A(0) has equal features in every row: LayerNorm at ε = 0 is 0/0
    block, x = random_block(seed=0), scale * tokens(0)
    with pytest.raises(EngineError, match=r"0/0 at ε = 0.*use ε > 0"):
        encoder_block(x, block)
    with pytest.raises(EngineError, match=r"0/0 at ε = 0.*use ε > 0"):
        splitting_lens(x, block)
    # with ε > 0 the same input has a finite answer
    assert np.isfinite(splitting_lens(x, block, eps=1e-5).gap_block)


def test_an_overflowing_input_or_a_bad_skip_is_an_engine_error():
    block = random_block(seed=0)
    with pytest.raises(EngineError, match="overflowed"):
        encoder_block(1e200 * tokens(0), block)
    with pytest.raises(EngineError, match="overflowed"):
        splitting_lens(1e200 * tokens(0), block)
    for skip, fragment in ((float("nan"), "skip must be finite"),
                           (None, "skip must be a real number")):
        with pytest.raises(EngineError, match=fragment):
            encoder_block(tokens(0), block, skip=skip)


@pytest.mark.parametrize("call, fragment", [
    (lambda: random_block(d_model=2.5), "d_model must be a whole number"),
    (lambda: random_scheme(seed=-1), "seed must be a whole number >= 0"),
    (lambda: splitting_lens(tokens(0), random_block(), dt=None), "dt must be a real number"),
    (lambda: lie_splitting(tokens(0), random_scheme(), eps="a"), "eps must be a real number"),
    (lambda: skip_weight("a"), "ω must be a real number"),
    (lambda: encoder_block(tokens(0), None), "block must be of type EncoderBlock"),
    (lambda: lie_splitting(tokens(0), None), "scheme must be of type SplittingScheme"),
    (lambda: scheme_from_block(None), "block must be of type EncoderBlock"),
])
def test_wrong_argument_types_are_engine_errors(call, fragment):
    with pytest.raises(EngineError, match=fragment):
        call()
