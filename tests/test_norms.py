"""Normalisation as projection onto a constraint set (docs/continuous.md E5–E10)."""

import numpy as np
import pytest

from engine import (
    EngineError,
    compare_norms,
    layernorm_miss,
    ops,
    project_to_layernorm_set,
    rmsnorm_radial_projection,
)
from engine.norms import VectorStats, layernorm_affine_gap, stationarity_residual

rng = np.random.default_rng(20251003)


def _vector(d, mean=0.7, scale=2.0, seed=0):
    return mean + scale * np.random.default_rng(seed).standard_normal(d)


def _points_of_s(d, sigma1, sigma2, n=3000, seed=1):
    """Random points of S(σ₁, σ₂): mean σ₁, variance σ₂²."""
    w = np.random.default_rng(seed).standard_normal((n, d))
    w -= w.mean(axis=1, keepdims=True)
    w /= np.sqrt(np.mean(w * w, axis=1, keepdims=True))
    return sigma1 + sigma2 * w


def _points_of_sphere(d, n=3000, seed=2):
    w = np.random.default_rng(seed).standard_normal((n, d))
    return np.sqrt(d) * w / np.linalg.norm(w, axis=1, keepdims=True)


CASES = [(16, 0.0, 1.0, 0), (16, 0.3, 1.7, 1), (5, -1.2, 0.4, 2), (64, 2.0, 3.0, 3),
         (2, 0.0, 1.0, 4)]


# --- E5: LayerNorm is the nearest point of S ---------------------------------------------------

@pytest.mark.parametrize("d, sigma1, sigma2, seed", CASES)
def test_layernorm_is_the_nearest_point_of_s_E5(d, sigma1, sigma2, seed):
    v = _vector(d, seed=seed)
    proj = project_to_layernorm_set(v, sigma1, sigma2)
    assert proj.unique
    # the point is LayerNorm (ε = 0) with scalar γ = σ₂, β = σ₁, and it lies on S
    m, s = v.mean(), v.std()
    np.testing.assert_allclose(proj.point, sigma1 + sigma2 * (v - m) / s, rtol=0, atol=1e-14)
    assert np.array_equal(proj.point, ops.layer_norm(v, 0.0, sigma2, sigma1))
    assert abs(proj.point.mean() - sigma1) < 1e-13
    assert abs(proj.point.std() - sigma2) < 1e-13
    # the closed form d[(σ₂ − s)² + (σ₁ − m)²] is the measured squared distance
    closed = d * ((sigma2 - s) ** 2 + (sigma1 - m) ** 2)
    assert abs(proj.closed_form_squared_distance - closed) <= 1e-12 * closed
    assert abs(proj.squared_distance - closed) <= 1e-12 * max(closed, 1.0)
    # no sampled point of S is closer
    samples = _points_of_s(d, sigma1, sigma2, seed=seed + 10)
    sampled = np.sum((samples - v) ** 2, axis=1)
    assert sampled.min() >= proj.squared_distance - 1e-12
    # and moving along S away from the projection, even slightly, increases the distance
    if d > 2:  # for d = 2, S is just two points
        w = (v - m) / s  # on S(0, 1): mean 0, |w|² = d
        tangent = np.random.default_rng(seed + 100).standard_normal(d)
        tangent -= tangent.mean()
        tangent -= np.dot(tangent, w) / d * w
        tangent *= np.sqrt(d) / np.linalg.norm(tangent)
        for angle in (1e-3, 1e-1, 1.0):
            moved = np.cos(angle) * w + np.sin(angle) * tangent  # still on S(0, 1)
            assert abs(moved.std() - 1.0) < 1e-13
            assert np.sum((sigma1 + sigma2 * moved - v) ** 2) > proj.squared_distance


def test_compare_norms_layernorm_gap_is_zero_at_eps_zero_E5():
    v = _vector(16)
    comparison = compare_norms(v)
    assert comparison.layer_norm_gap < 1e-14
    assert comparison.rms_norm_gap < 1e-14
    assert comparison.layer_norm_defined and comparison.rms_norm_defined
    projection = comparison.layer_norm_projection
    assert abs(comparison.distance_to_layer_norm - projection.distance) < 1e-13
    assert abs(comparison.layer_norm_stats.mean) < 1e-15
    assert abs(comparison.layer_norm_stats.std - 1.0) < 1e-14
    assert abs(comparison.rms_norm_stats.rms - 1.0) < 1e-14
    assert abs(comparison.input_stats.mean - v.mean()) < 1e-15
    assert abs(comparison.input_stats.rms - np.sqrt(np.mean(v * v))) < 1e-15
    assert not comparison.layer_norm.flags.writeable


# --- E6: the antipode also meets the first-order condition, but is the farthest point ----------

@pytest.mark.parametrize("d, sigma1, sigma2, seed", CASES)
def test_antipode_is_stationary_and_farthest_E6(d, sigma1, sigma2, seed):
    v = _vector(d, seed=seed)
    proj = project_to_layernorm_set(v, sigma1, sigma2)
    scale = np.linalg.norm(v) + np.sqrt(d) * (abs(sigma1) + sigma2)
    assert stationarity_residual(v, proj.point, sigma1) < 1e-13 * scale
    assert stationarity_residual(v, proj.antipode, sigma1) < 1e-13 * scale
    assert abs(proj.antipode.mean() - sigma1) < 1e-13 and abs(proj.antipode.std() - sigma2) < 1e-13
    m, s = v.mean(), v.std()
    closed = d * ((sigma2 + s) ** 2 + (sigma1 - m) ** 2)
    assert abs(proj.antipode_squared_distance - closed) <= 1e-12 * closed
    assert abs(proj.closed_form_antipode_squared_distance - closed) <= 1e-12 * closed
    assert proj.antipode_squared_distance > proj.squared_distance + 1e-3  # distances differ
    samples = _points_of_s(d, sigma1, sigma2, seed=seed + 20)
    assert np.sum((samples - v) ** 2, axis=1).max() <= proj.antipode_squared_distance + 1e-12
    if d > 2:  # a generic point of S is not stationary (for d = 2, S is just the two points)
        assert stationarity_residual(v, samples[0], sigma1) > 1e-3


# --- E7: a constant token has no unique projection ---------------------------------------------

@pytest.mark.parametrize("c, d", [(0.5, 16), (0.1, 16), (-3.0, 7), (0.0, 4)])
def test_constant_vector_has_no_unique_projection_E7(c, d):
    v = np.full(d, c)
    proj = project_to_layernorm_set(v, 0.25, 1.5)
    assert not proj.unique
    closed = d * (1.5 ** 2 + (0.25 - c) ** 2)
    assert abs(proj.closed_form_squared_distance - closed) <= 1e-12 * closed
    # point and antipode are both on S and equally far; so is every sampled point of S
    for u in (proj.point, proj.antipode):
        assert abs(u.mean() - 0.25) < 1e-14 and abs(u.std() - 1.5) < 1e-14
    assert abs(proj.squared_distance - closed) <= 1e-12 * closed
    assert abs(proj.antipode_squared_distance - closed) <= 1e-12 * closed
    sampled = np.sum((_points_of_s(d, 0.25, 1.5) - v) ** 2, axis=1)
    np.testing.assert_allclose(sampled, closed, rtol=1e-12)


def test_layernorm_with_eps_returns_beta_for_a_constant_token_E7():
    gamma, beta = 1.0 + 0.3 * rng.standard_normal(16), rng.standard_normal(16)
    assert np.array_equal(ops.layer_norm(np.full(16, 0.5), 1e-5, gamma, beta), beta)
    np.testing.assert_allclose(ops.layer_norm(np.full(16, 0.1), 1e-5, gamma, beta), beta,
                               rtol=0, atol=1e-9)
    undefined = compare_norms(np.full(16, 0.1))
    assert not undefined.layer_norm_defined and undefined.rms_norm_defined
    assert np.array_equal(undefined.layer_norm, np.zeros(16))  # the ε → 0⁺ limit: β = 0
    assert not undefined.layer_norm_projection.unique
    with_eps = compare_norms(np.full(16, 0.5), eps=1e-5)
    assert with_eps.layer_norm_defined and np.array_equal(with_eps.layer_norm, np.zeros(16))


# --- E8: with ε > 0 LayerNorm misses S ---------------------------------------------------------

def _unit_std(d, seed):
    v = np.random.default_rng(seed).standard_normal(d)
    return (v - v.mean()) / v.std()


@pytest.mark.parametrize("d", [16, 1024])
def test_layernorm_with_eps_misses_s_E8(d):
    eps = 1e-5
    base = _unit_std(d, seed=d)
    near = layernorm_miss(3.0 + base, eps)  # s = 1: a tiny miss
    far = layernorm_miss(3.0 + 0.01 * base, eps)  # s = 0.01: a large miss
    for miss, s in ((near, 1.0), (far, 0.01)):
        expected = np.sqrt(d) * (1.0 - s / np.sqrt(s * s + eps))
        assert abs(miss.closed_form - expected) <= 1e-9 * expected
        assert abs(miss.distance - expected) <= 1e-9 * expected  # measured = closed form
        assert abs(miss.output_std - s / np.sqrt(s * s + eps)) < 1e-12
    assert near.distance < 1e-4 * np.sqrt(d)
    assert 0.95 < far.output_std < 0.96  # "output std ≈ 0.95"
    assert far.distance > 0.04 * np.sqrt(d)
    comparison = compare_norms(3.0 + 0.01 * base, eps=eps)
    assert abs(comparison.layer_norm_gap - far.distance) <= 1e-9 * far.distance
    assert layernorm_miss(3.0 + base, 0.0).distance < 1e-13


def test_layernorm_miss_rejects_a_constant_vector_at_eps_zero():
    with pytest.raises(EngineError, match="0/0"):
        layernorm_miss(np.full(8, 2.0), 0.0)
    assert abs(layernorm_miss(np.full(8, 2.0), 1e-5).distance - np.sqrt(8)) < 1e-9


# --- E9: per-feature γ, β break the nearest-point reading --------------------------------------

@pytest.mark.parametrize("seed", [0, 1, 2])
def test_per_feature_affine_is_not_a_nearest_point_map_E9(seed):
    r = np.random.default_rng(seed)
    v = _vector(16, seed=seed)
    gamma, beta = 1.0 + 0.5 * r.standard_normal(16), 0.3 * r.standard_normal(16)
    gap = layernorm_affine_gap(v, gamma, beta)
    np.testing.assert_allclose(gap.layer_norm, ops.layer_norm(v, 0.0, gamma, beta), atol=1e-14)
    assert gap.improvement > 1e-3  # a closer point of the image set exists
    # ... and it is in the image set: β + γ ⊙ w with w ∈ S(0, 1)
    assert abs(gap.closer_w.mean()) < 1e-13 and abs(gap.closer_w.std() - 1.0) < 1e-13
    np.testing.assert_allclose(gap.closer_point, beta + gamma * gap.closer_w, atol=1e-15)
    assert abs(np.linalg.norm(v - gap.closer_point) - gap.closer_distance) < 1e-13


def test_scalar_affine_stays_a_nearest_point_map_E9_control():
    v = _vector(16, seed=5)
    gap = layernorm_affine_gap(v, np.full(16, 1.3), np.full(16, -0.2))
    assert gap.improvement < 1e-12  # the same search finds nothing: S(−0.2, 1.3) projection
    proj = project_to_layernorm_set(v, -0.2, 1.3)
    assert abs(gap.layer_norm_distance - proj.distance) < 1e-12


# --- E10: RMSNorm is the radial projection onto ‖u‖ = √d ---------------------------------------

@pytest.mark.parametrize("d, seed", [(1, 0), (3, 1), (16, 2), (1024, 3)])
def test_rmsnorm_is_the_radial_projection_E10(d, seed):
    v = _vector(d, mean=0.7, seed=seed)
    proj = rmsnorm_radial_projection(v)
    assert proj.unique
    assert np.array_equal(proj.point, ops.rms_norm(v, 1.0, 0.0))
    assert abs(np.linalg.norm(proj.point) - np.sqrt(d)) < 1e-13 * np.sqrt(d)
    assert np.all(proj.point * v > 0)  # radial: same direction
    rms = np.sqrt(np.mean(v * v))
    closed = d * (rms - 1.0) ** 2
    assert abs(proj.closed_form_squared_distance - closed) <= 1e-12 * closed
    assert abs(proj.squared_distance - closed) <= 1e-12 * max(closed, 1.0)
    assert abs(proj.antipode_squared_distance - d * (rms + 1.0) ** 2) <= 1e-12 * d * (rms + 1) ** 2
    sampled = np.sum((_points_of_sphere(d, seed=seed) - v) ** 2, axis=1)
    assert sampled.min() >= proj.squared_distance - 1e-12
    assert sampled.max() <= proj.antipode_squared_distance + 1e-12


@pytest.mark.parametrize("eps, with_gamma", [(0.0, False), (1e-5, False), (1e-5, True)])
def test_layernorm_is_rmsnorm_of_the_centred_vector_E10(eps, with_gamma):
    v = _vector(16, seed=7)
    gamma = 1.0 + 0.2 * rng.standard_normal(16) if with_gamma else None
    comparison = compare_norms(v, eps=eps, gamma=gamma)
    weight = np.ones(16) if gamma is None else gamma
    np.testing.assert_allclose(ops.layer_norm(v, eps, weight),
                               ops.rms_norm(v - v.mean(), weight, eps), rtol=0, atol=1e-15)
    assert comparison.centred_gap < 1e-14
    # unlike LayerNorm, RMSNorm keeps the mean: its output mean is not 0 in general
    assert abs(comparison.rms_norm_stats.mean) > 0.1
    if gamma is None:
        assert abs(comparison.layer_norm_stats.mean) < 1e-14


def test_gamma_or_eps_moves_the_output_off_the_sets():
    v = _vector(16, seed=8)
    gamma = 1.0 + 0.4 * rng.standard_normal(16)
    assert compare_norms(v, gamma=gamma).layer_norm_gap > 1e-2
    assert compare_norms(v, gamma=gamma).rms_norm_gap > 1e-2
    assert compare_norms(v, eps=1e-3).rms_norm_gap > 1e-6


def test_zero_vector_has_no_unique_radial_projection():
    proj = rmsnorm_radial_projection(np.zeros(9))
    assert not proj.unique
    assert proj.squared_distance == proj.antipode_squared_distance == 9.0
    sampled = np.sum(_points_of_sphere(9) ** 2, axis=1)
    np.testing.assert_allclose(sampled, 9.0, rtol=1e-12)
    comparison = compare_norms(np.zeros(9))
    assert not comparison.rms_norm_defined and not comparison.layer_norm_defined
    assert np.array_equal(comparison.rms_norm, np.zeros(9))


def test_vector_stats():
    stats = VectorStats.of(np.array([1.0, 2.0, 3.0, 6.0]))
    assert stats.mean == 3.0
    assert abs(stats.std - np.sqrt(3.5)) < 1e-15  # population std: 1/d
    assert abs(stats.rms - np.sqrt(12.5)) < 1e-15
    assert abs(stats.norm - np.sqrt(50.0)) < 1e-15


@pytest.mark.parametrize("call, fragment", [
    (lambda: compare_norms(np.zeros((2, 3))), "1-D"),
    (lambda: compare_norms(np.array([1.0])), "at least 2"),
    (lambda: compare_norms(np.array([1.0, np.nan])), "NaN or Inf"),
    (lambda: compare_norms(np.array(["a", "b"])), "real numbers"),
    (lambda: compare_norms(np.ones(3), eps=-1.0), "eps must be >= 0"),
    (lambda: compare_norms(np.ones(3), gamma=np.ones(4)), "gamma must have 3"),
    (lambda: project_to_layernorm_set(np.arange(3.0), 0.0, 0.0), "sigma2 must be > 0"),
    (lambda: project_to_layernorm_set(np.arange(3.0), float("inf")), "sigma1 must be finite"),
    (lambda: rmsnorm_radial_projection(np.zeros(0)), "at least 1"),
    (lambda: layernorm_affine_gap(np.arange(3.0), np.zeros(3), np.zeros(3)), "all zeros"),
    (lambda: stationarity_residual(np.arange(3.0), np.arange(4.0)), "same length"),
    (lambda: compare_norms([[1.0, 2.0], [1.0]]), "rows of equal length"),
])
def test_bad_input_is_an_engine_error(call, fragment):
    with pytest.raises(EngineError, match=fragment):
        call()


# --- extreme scales: squares that would over/underflow are refused, never Inf/NaN -------------

_NEXT = np.nextafter(1e-140, 1.0)


@pytest.mark.parametrize("call, fragment", [
    (lambda: rmsnorm_radial_projection(np.array([1e160, -1e160])), "past 1e150"),
    (lambda: project_to_layernorm_set(np.array([1e160, -1e160])), "past 1e150"),
    (lambda: rmsnorm_radial_projection(np.array([3e-170, -3e-170])), "below 1e-150"),
    (lambda: project_to_layernorm_set(np.array([3e-170, -3e-170])), "below 1e-150"),
    (lambda: compare_norms(np.array([5e-324, 0.0, 1e-323]), eps=1e-6), "scale v up"),
    (lambda: compare_norms(np.array([1e-140, _NEXT])), "spread them further apart"),
    (lambda: layernorm_miss(np.array([1e160, -1e160, 0.0]), 1e-5), "past 1e150"),
    (lambda: layernorm_miss(np.array([1e-140, 2e-140]), 1e300), "use a smaller ε"),
    (lambda: project_to_layernorm_set(np.array([1.0, 2.0, 4.0]), 0.0, 1e160),
     "sigma2 must be at most 1e150"),
    (lambda: project_to_layernorm_set(np.array([1.0, 2.0, 4.0]), 10**400), "too large"),
    (lambda: stationarity_residual(np.array([1e160, 0.0]), np.array([1.0, -1.0])), "past 1e150"),
    (lambda: layernorm_affine_gap(np.array([1.0, 2.0, 4.0, -1.0]), np.array([1e-200, 0, 0, 0]),
                                  np.zeros(4)), "gamma's largest entry"),
])
def test_extreme_scales_are_refused_in_words(call, fragment):
    with pytest.raises(EngineError, match=fragment):
        call()


def test_scales_inside_the_limits_keep_the_scale_invariant_answer():
    # [c, −c] projects onto [1, −1] on both sets for every c the limits let through
    for c in (1e150, 1e100, 1e-100, 1e-150):
        v = np.array([c, -c])
        assert np.array_equal(rmsnorm_radial_projection(v).point, [1.0, -1.0])
        assert np.array_equal(project_to_layernorm_set(v).point, [1.0, -1.0])
    # a tiny entry beside a normal one is fine: only the largest entry sets the scale
    proj = project_to_layernorm_set(np.array([1.0, 1e-200, -3.0]))
    assert np.isfinite(proj.point).all() and proj.unique


@pytest.mark.parametrize("c, d", [(0.1, 3), (1.1973949700550631e-148, 6)])
def test_centred_gap_of_a_constant_vector_is_zero(c, d):
    # mean([c]*d) is an ulp off c here: that rounding must not become RMSNorm's unit vector
    # (or, near 1e-150, an Inf with a RuntimeWarning)
    v = np.full(d, c)
    assert np.mean(v) != c
    comparison = compare_norms(v)
    assert not comparison.layer_norm_defined
    assert comparison.centred_gap == 0.0
    assert compare_norms(v, eps=1e-6).centred_gap < 1e-13  # defined: rounding


def test_the_stats_are_numpys_means_bit_for_bit():
    """VectorStats (and so every norm comparison the worker derives) takes its means without
    np.mean's wrapper: the same sum and division, so the same bits, for any length (numpy's
    pairwise sum changes its grouping past 8 and 128 entries) and scale."""
    from engine.norms import _mean

    rng = np.random.default_rng(7)
    for d in (1, 2, 7, 8, 9, 16, 100, 128, 129, 1000):
        for _ in range(40):
            v = rng.standard_normal(d) * 10.0 ** rng.uniform(-140, 140)
            stats = VectorStats.of(v)
            mean = np.mean(v)
            expected = (mean, np.sqrt(np.mean((v - float(mean)) ** 2)), np.sqrt(np.mean(v * v)))
            for got, want in zip((_mean(v), stats.mean, stats.std, stats.rms),
                                 (mean, *expected), strict=False):
                assert np.float64(got).tobytes() == np.float64(want).tobytes(), (d, got, want)
