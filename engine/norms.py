"""Normalisation read as projection onto a constraint set (docs/continuous.md, E5–E10).

LayerNorm with ε = 0 is the nearest point of S(σ₁, σ₂) = {u : mean u = σ₁, variance u = σ₂²},
a sphere of radius √d·σ₂ in the hyperplane mean u = σ₁; RMSNorm with ε = 0 and γ = 1 is the
radial projection onto the sphere ‖u‖ = √d. These functions compute both readings side by side,
with closed-form distances, so the app can show where the reading is exact and where it breaks
(ε > 0, per-feature γ and β, constant vectors). Everything is float64 numpy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from engine import ops
from engine._checks import as_array
from engine._checks import frozen as _readonly  # our own float64 copy
from engine._checks import real as _real
from engine.errors import EngineError

#: The norms square their input without rescaling (as the layer does), so a vector is taken
#: only where its squares stay normal float64: largest |entry| 0 or in [1e-150, 1e150]. Beyond
#: 1e150 the squares overflow (run_layer's limit too); below 1e-150 they underflow to 0 and the
#: division by the RMS or the standard deviation gives Inf or NaN.
_HUGE, _TINY = 1e150, 1e-150


def _vector(v: object, min_size: int, name: str = "v") -> np.ndarray:
    array = as_array(v, name)
    if array.dtype.kind not in "fiu" or array.dtype == np.bool_:
        raise EngineError("dtype_not_real", name=name, dtype=array.dtype)
    if array.ndim != 1:
        raise EngineError("vector_1d", name=name, shape=array.shape)
    if array.size < min_size:
        raise EngineError("min_entries", name=name, min_size=min_size, size=array.size)
    array = np.array(array, dtype=np.float64)
    if not np.isfinite(array).all():
        raise EngineError("nan_inf", name=name)
    largest = float(np.max(np.abs(array), initial=0.0))
    if largest > _HUGE:
        raise EngineError("entry_too_large", name=name, largest=largest)
    if 0.0 < largest < _TINY:
        raise EngineError("entry_too_small", name=name, largest=largest)
    return array


def _mean(v: np.ndarray) -> float:
    """``np.mean(v)`` of a float64 array, the same bits (its sum divided by the count, as
    np.mean does) without np.mean's wrapper: one norm comparison takes ~20 means of a short
    row, and the worker derives two every edit (app/derive.py)."""
    return float(np.add.reduce(v, axis=None) / v.size)


def _check_spread(vec: np.ndarray, name: str = "v") -> None:
    """LayerNorm divides by the standard deviation: a non-constant vector whose entries all lie
    within 1e-150 of their mean has a variance that underflows to 0."""
    spread = float(np.max(np.abs(vec - _mean(vec))))
    if not _is_constant(vec) and spread < _TINY:
        raise EngineError("spread_too_small", name=name, spread=spread)


def _bounded(value: float, name: str) -> float:
    """σ₁, σ₂ are squared in the distances: the same limit as the vectors' entries."""
    if abs(value) > _HUGE:
        raise EngineError("value_too_large", name=name, value=value)
    return value


def _is_constant(v: np.ndarray) -> bool:
    """Exactly constant. (The computed mean of a constant vector may be off by an ulp, so
    ``std == 0`` is not a reliable test.)"""
    return bool(np.all(v == v[0]))


def _sq(x: np.ndarray) -> float:
    return float(np.dot(x, x))


def _unit_direction(d: int) -> np.ndarray:
    """A fixed point of S(0, 1) (mean 0, variance 1): a representative when every point of S
    is equally near."""
    w = np.arange(d, dtype=np.float64) - (d - 1) / 2.0
    return w / np.sqrt(np.mean(w * w))


@dataclass(frozen=True)
class VectorStats:
    """Mean, population standard deviation (1/d, as LayerNorm uses), RMS and length."""

    mean: float
    std: float
    rms: float
    norm: float

    @classmethod
    def of(cls, v: np.ndarray) -> VectorStats:
        v = np.asarray(v, dtype=np.float64)
        mean = _mean(v)
        return cls(mean=mean, std=math.sqrt(_mean((v - mean) ** 2)),
                   rms=math.sqrt(_mean(v * v)), norm=float(np.linalg.norm(v)))


@dataclass(frozen=True)
class Projection:
    """The nearest point of a constraint set to ``vector``, and the farthest (the antipode).

    ``squared_distance`` is measured, ``closed_form_squared_distance`` comes from the formula;
    they agree to rounding. When ``unique`` is False (a constant vector for LayerNorm, the zero
    vector for RMSNorm) *every* point of the set is equally near: ``point`` and ``antipode`` are
    then just two of them, at the same distance.
    """

    constraint: str
    vector: np.ndarray
    point: np.ndarray
    squared_distance: float
    closed_form_squared_distance: float
    antipode: np.ndarray
    antipode_squared_distance: float
    closed_form_antipode_squared_distance: float
    unique: bool

    @property
    def distance(self) -> float:
        return math.sqrt(self.squared_distance)

    @property
    def antipode_distance(self) -> float:
        return math.sqrt(self.antipode_squared_distance)


def project_to_layernorm_set(v: object, sigma1: float = 0.0, sigma2: float = 1.0) -> Projection:
    """Nearest point of S(σ₁, σ₂) = {mean σ₁, variance σ₂²} to v (docs/continuous.md, E5–E7).

    For non-constant v it is ``σ₁ + σ₂(v − m)/s`` — LayerNorm with ε = 0 and scalar γ = σ₂,
    β = σ₁ — at squared distance ``d[(σ₂ − s)² + (σ₁ − m)²]``. The antipode ``σ₁ − σ₂(v − m)/s``
    meets the same first-order condition but is the farthest point (S is a sphere, not convex),
    at ``d[(σ₂ + s)² + (σ₁ − m)²]``. A constant v has no unique projection (E7).
    """
    vec = _vector(v, 2)
    _check_spread(vec)
    sigma1 = _bounded(_real(sigma1, "sigma1"), "sigma1")
    sigma2 = _bounded(_real(sigma2, "sigma2", low=0.0, strict=True), "sigma2")
    d = vec.size
    constraint = (f"S(σ₁={sigma1:g}, σ₂={sigma2:g}): mean {sigma1:g}, variance {sigma2 ** 2:g} "
                  f"— a sphere of radius √d·σ₂ = {math.sqrt(d) * sigma2:.4g} in the plane "
                  f"mean = {sigma1:g}")
    if _is_constant(vec):
        mean, std = float(vec[0]), 0.0
        point = sigma1 + sigma2 * _unit_direction(d)
        antipode = sigma1 - sigma2 * _unit_direction(d)
    else:
        stats = VectorStats.of(vec)
        mean, std = stats.mean, stats.std
        point = ops.layer_norm(vec, 0.0, weight=sigma2, bias=sigma1)
        antipode = ops.layer_norm(vec, 0.0, weight=-sigma2, bias=sigma1)
    return Projection(
        constraint=constraint, vector=_readonly(vec), point=_readonly(point),
        squared_distance=_sq(vec - point),
        closed_form_squared_distance=d * ((sigma2 - std) ** 2 + (sigma1 - mean) ** 2),
        antipode=_readonly(antipode), antipode_squared_distance=_sq(vec - antipode),
        closed_form_antipode_squared_distance=d * ((sigma2 + std) ** 2 + (sigma1 - mean) ** 2),
        unique=not _is_constant(vec),
    )


def rmsnorm_radial_projection(v: object) -> Projection:
    """RMSNorm (ε = 0, γ = 1) as the radial projection onto the sphere ‖u‖ = √d
    (docs/continuous.md, E10).

    The point is ``v / rms(v)`` at squared distance ``d(rms − 1)²``; the antipode ``−v / rms(v)``
    is the farthest point, at ``d(rms + 1)²``. Unlike LayerNorm the output keeps v's mean
    direction: its mean is not 0 in general. The zero vector has no unique projection.
    """
    vec = _vector(v, 1)
    d = vec.size
    constraint = f"sphere ‖u‖ = √d = {math.sqrt(d):.4g} (rms u = 1)"
    unique = bool(np.any(vec != 0.0))
    if unique:
        point = ops.rms_norm(vec, 1.0, 0.0)
        rms = VectorStats.of(vec).rms
    else:
        point, rms = np.ones(d), 0.0
    return Projection(
        constraint=constraint, vector=_readonly(vec), point=_readonly(point),
        squared_distance=_sq(vec - point), closed_form_squared_distance=d * (rms - 1.0) ** 2,
        antipode=_readonly(-point), antipode_squared_distance=_sq(vec + point),
        closed_form_antipode_squared_distance=d * (rms + 1.0) ** 2, unique=unique,
    )


def stationarity_residual(v: object, u: object, sigma1: float = 0.0) -> float:
    """How far ``u ∈ S(σ₁, ·)`` is from meeting the first-order condition for the nearest
    point to v: the part of ``v − u`` outside the normal space of S at u, span{1, u − σ₁}.

    Zero (to rounding) for both the projection and its antipode (E6): the condition alone
    cannot tell the nearest point from the farthest.
    """
    vec, point = _vector(v, 2), _vector(u, 2, "u")
    if vec.size != point.size:
        raise EngineError("lengths_differ", v=vec.size, u=point.size)
    sigma1 = _bounded(_real(sigma1, "sigma1"), "sigma1")
    r = vec - point
    ones = np.ones_like(point) / math.sqrt(point.size)
    radial = point - sigma1
    radial = radial - np.dot(radial, ones) * ones  # exactly orthogonal to 1 on S; make it so
    r = r - np.dot(r, ones) * ones
    length = np.linalg.norm(radial)
    if length > 0:
        r = r - np.dot(r, radial / length) * (radial / length)
    return float(np.linalg.norm(r))


@dataclass(frozen=True)
class NormComparison:
    """LayerNorm and RMSNorm of the same vector, with the projection reading of each.

    ``layer_norm_gap`` is ‖LN(v) − Proj_S(0,1)(v)‖: 0 when ε = 0 and γ = 1 (E5), growing with ε
    (E8) or a non-uniform γ (E9). ``rms_norm_gap`` is the same for RMSNorm and the sphere
    (E10). ``centred_gap`` is ‖LN(v) − RMSNorm(v − mean v)‖, 0 to rounding for any ε and γ.
    When ε = 0 and v is constant (LayerNorm) or zero (RMSNorm) the norm is 0/0; it is then
    reported as its ε → 0⁺ limit, the zero vector (= β), with ``*_defined`` False.
    """

    vector: np.ndarray
    eps: float
    gamma: np.ndarray
    input_stats: VectorStats
    layer_norm: np.ndarray
    layer_norm_stats: VectorStats
    layer_norm_defined: bool
    rms_norm: np.ndarray
    rms_norm_stats: VectorStats
    rms_norm_defined: bool
    layer_norm_projection: Projection
    rms_projection: Projection
    layer_norm_gap: float
    rms_norm_gap: float
    centred_gap: float

    @property
    def distance_to_layer_norm(self) -> float:
        """‖v − LN(v)‖: how far LayerNorm moved the vector."""
        return float(np.linalg.norm(self.vector - self.layer_norm))

    @property
    def distance_to_rms_norm(self) -> float:
        """‖v − RMSNorm(v)‖."""
        return float(np.linalg.norm(self.vector - self.rms_norm))


def weighted_rms_norm(vec: np.ndarray, weight: np.ndarray, eps: float) -> np.ndarray:
    """``RMSNorm(vec)·weight``; zeros where it is undefined (``eps = 0`` and ``vec = 0``)."""
    if eps > 0 or bool(np.any(vec != 0.0)):
        return ops.rms_norm(vec, weight, eps)
    return np.zeros(vec.shape)


def compare_norms(v: object, *, eps: float = 0.0,
                  gamma: np.ndarray | None = None) -> NormComparison:
    """LayerNorm(v)·γ and RMSNorm(v)·γ side by side, each with its projection reading."""
    vec = _vector(v, 2)
    _check_spread(vec)
    eps = _real(eps, "eps", low=0.0)
    d = vec.size
    weight = np.ones(d) if gamma is None else _vector(gamma, d, "gamma")
    if weight.size != d:
        raise EngineError("gamma_entries", d=d, size=weight.size)
    ln_defined = eps > 0 or not _is_constant(vec)
    rms_defined = eps > 0 or bool(np.any(vec != 0.0))
    layer_norm = ops.layer_norm(vec, eps, weight=weight) if ln_defined else np.zeros(d)
    rms_norm = weighted_rms_norm(vec, weight, eps)
    ln_proj = project_to_layernorm_set(vec)
    rms_proj = rmsnorm_radial_projection(vec)
    # at ε = 0 a constant v's LayerNorm is reported as its limit 0, and so is RMSNorm of
    # v − mean v, exactly 0: the computed mean can be an ulp off, and RMSNorm would blow that
    # rounding up to a unit vector (or to Inf near 1e-150)
    centred = vec - _mean(vec) if ln_defined else np.zeros(d)
    centred_rms = weighted_rms_norm(centred, weight, eps)
    return NormComparison(
        vector=_readonly(vec), eps=eps, gamma=_readonly(weight),
        input_stats=VectorStats.of(vec),
        layer_norm=_readonly(layer_norm), layer_norm_stats=VectorStats.of(layer_norm),
        layer_norm_defined=ln_defined,
        rms_norm=_readonly(rms_norm), rms_norm_stats=VectorStats.of(rms_norm),
        rms_norm_defined=rms_defined,
        layer_norm_projection=ln_proj, rms_projection=rms_proj,
        layer_norm_gap=float(np.linalg.norm(layer_norm - ln_proj.point)),
        rms_norm_gap=float(np.linalg.norm(rms_norm - rms_proj.point)),
        centred_gap=float(np.linalg.norm(layer_norm - centred_rms)),
    )


@dataclass(frozen=True)
class LayerNormMiss:
    """How far LayerNorm with ε > 0 lands from S(0, 1) (docs/continuous.md, E8).

    LN_ε(v) = (v − m)/√(s² + ε) has standard deviation s/√(s² + ε) < 1, so it lies inside the
    sphere, at distance √d(1 − s/√(s² + ε)) from it: negligible for s ≈ 1, large for small s.
    """

    eps: float
    input_std: float
    output_std: float
    distance: float  # measured: from LN_ε(v) to its nearest point of S(0, 1)
    closed_form: float  # √d (1 − s/√(s² + ε))


def layernorm_miss(v: object, eps: float) -> LayerNormMiss:
    """Distance from LayerNorm_ε(v) to the set it is meant to land on (docs/continuous.md, E8)."""
    vec = _vector(v, 2)
    eps = _real(eps, "eps", low=0.0)
    if eps == 0 and _is_constant(vec):
        raise EngineError("ln_constant_eps")
    _check_spread(vec)
    out = ops.layer_norm(vec, eps)
    shrunk = float(np.max(np.abs(out)))
    if 0.0 < shrunk < _TINY:  # the projection of LN_ε(v) would divide by an underflowed variance
        raise EngineError("eps_shrinks", eps=eps, shrunk=shrunk)
    s = VectorStats.of(vec).std
    return LayerNormMiss(
        eps=eps, input_std=s, output_std=VectorStats.of(out).std,
        distance=project_to_layernorm_set(out).distance,
        closed_form=math.sqrt(vec.size) * (1.0 - s / math.sqrt(s * s + eps)),
    )


@dataclass(frozen=True)
class AffineGap:
    """Per-feature γ, β: LayerNorm's output versus a point of its own image set that is closer
    to v (docs/continuous.md, E9). The image set is {β + γ ⊙ w : w ∈ S(0, 1)}; with a
    non-uniform γ the LayerNorm output ``β + γ ⊙ (v − m)/s`` is in it but is no longer the
    nearest point."""

    layer_norm: np.ndarray
    layer_norm_distance: float
    closer_point: np.ndarray
    closer_distance: float
    closer_w: np.ndarray  # the w ∈ S(0, 1) with closer_point = β + γ ⊙ w

    @property
    def improvement(self) -> float:
        """How much closer the found point is than LayerNorm's output (≥ 0)."""
        return self.layer_norm_distance - self.closer_distance


def layernorm_affine_gap(v: object, gamma: object, beta: object, *,
                         iterations: int = 300) -> AffineGap:
    """Search the image set of LayerNorm-with-γ,β for a point nearer to v than LN(v) (E9).

    Projected gradient descent on w ∈ S(0, 1) from LayerNorm's own w, with step 1/max γ² and
    the exact projection onto S (LayerNorm itself, ε = 0); that step size never increases the
    distance, so the result is at least as near as LN(v). With a scalar γ > 0 nothing nearer
    exists (E5) and the search finds nothing.
    """
    vec = _vector(v, 2)
    d = vec.size
    g = _vector(gamma, d, "gamma")
    b = _vector(beta, d, "beta")
    if g.size != d or b.size != d:
        raise EngineError("gamma_beta_entries", d=d)
    if not np.any(g != 0.0):
        raise EngineError("gamma_zero")
    if _is_constant(vec):
        raise EngineError("ln_constant")
    _check_spread(vec)
    if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 0:
        raise EngineError("whole_at_least", name="iterations", low=0, value=iterations)
    w0 = ops.layer_norm(vec, 0.0)  # LayerNorm's own choice on S(0, 1)
    target = vec - b
    step = 1.0 / float(np.max(g * g))

    def distance(w: np.ndarray) -> float:
        return float(np.linalg.norm(target - g * w))

    w, best_w, best = w0, w0, distance(w0)
    for _ in range(iterations):
        moved = w + step * g * (target - g * w)  # gradient step on ½‖v − β − γ⊙w‖²
        if _is_constant(moved):
            break
        w = ops.layer_norm(moved, 0.0)  # back onto S(0, 1): the exact projection (E5)
        dist = distance(w)
        if dist < best:
            best_w, best = w, dist
    return AffineGap(
        layer_norm=_readonly(b + g * w0), layer_norm_distance=distance(w0),
        closer_point=_readonly(b + g * best_w), closer_distance=best, closer_w=_readonly(best_w),
    )
