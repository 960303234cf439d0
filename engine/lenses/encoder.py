"""The paper's own object: a 2017 post-norm encoder block and the Lie splitting step equal to it.

Tai, Liu, Li and Chan read one classic encoder block as one time step of
``u_t = A[u] + N[u] + F[u]`` split into six sub-steps (docs/continuous.md). This module computes
both sides so a panel can put them next to each other and show the max |difference| live.

Layout is the paper's: row vectors times matrices (``x @ W``, ``W`` is ``[in, out]``), not HF's
``[out, in]``; tokens are rows of ``u`` (``[T, d]``).

**The block** (Vaswani et al. 2017, no dropout, full attention)::

    h   = LN₁(x + concat_h(softmax(x W_Q,h (x W_K,h)ᵀ / √d_k) x W_V,h) W_O)
    out = LN₂(α·h + FFN(h)),   FFN(h) = ReLU(h W₁ + b₁) W₂ + b₂

with ``α = 1`` for the 2017 block (``α ≠ 1`` is the DeepNorm-style re-weighted skip of E4).

**The scheme** with step Δt, relaxation ω and LayerNorm ε::

    u₁ = u₀ + Δt·Σ_h softmax(u₀ W_Q,h (u₀ W_K,h)ᵀ / √d_k) u₀ V_h     explicit Euler
    u₂ = LN₁(u₁)                                                     projection onto S
    u₃ = ReLU(u₂ (I + Δt W₁) + Δt b₁)                                Euler, then ReLU = Proj_{u≥0}
    u₄ = u₃ (I + Δt W₂) + Δt b₂                                      explicit Euler
    u₅ = (1 − ω) u₄ + ω u₂                                           relaxation
    u₆ = LN₂(u₅)                                                     projection onto S

**The exact mapping** block ⇄ scheme at step Δt (:func:`scheme_from_block`,
:func:`block_from_scheme`)::

    W_Q,h, W_K,h          unchanged (the softmax does not see Δt)
    W_V,h W_O,h = Δt V_h  (W_O,h = rows h·d_v … (h+1)·d_v − 1 of W_O: concat(heads) W_O is
                           Σ_h head_h W_O,h, so only the product per head is determined)
    W₁' = I + Δt W₁,  b₁' = Δt b₁,  W₂' = I + Δt W₂,  b₂' = Δt b₂   (needs d_ff = d)
    LN₁, LN₂ γ/β         unchanged (scalar γ = σ₂, β = σ₁ make them projections onto
                           S(σ₁, σ₂) = {mean σ₁, variance σ₂²}; per-feature γ, β keep the equality
                           but the step is then no nearest-point map, E9)
    α = ω / (1 − ω),  ε_closing = ε (1 − ω)²

Why the last line: u₅ = (1 − ω)(u₄ + α u₂) and LN_ε(c·w) = LN_{ε/c²}(w) for c > 0 (γ multiplies
after the division), so ``LN_{ε(1−ω)²}(u₅) = LN_ε(u₄ + α u₂)``. At ω = ½ that is ε/4; with
ε = 0 the scale drops out and the block is recovered exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from engine import ops
from engine.bounds import OVERFLOW
from engine.errors import EngineError, Phrase
from engine.lenses._arrays import finite, frozen, non_negative, positive, real_array, whole

SubStepKind = Literal["explicit Euler", "projection", "explicit Euler + projection",
                      "relaxation"]


@dataclass(frozen=True)
class EncoderBlock:
    """Weights of a 2017 post-norm encoder block, ``[in, out]`` layout.

    Shapes: ``w_q, w_k [H, d, d_k]``, ``w_v [H, d, d_v]``, ``w_o [H·d_v, d]``,
    ``w_1 [d, d_ff]``, ``b_1 [d_ff]``, ``w_2 [d_ff, d]``, ``b_2 [d]``; each LayerNorm ``gamma``
    and ``beta`` is a 0-d array (scalar, as the paper needs) or ``[d]`` (per feature).
    """

    w_q: np.ndarray
    w_k: np.ndarray
    w_v: np.ndarray
    w_o: np.ndarray
    w_1: np.ndarray
    b_1: np.ndarray
    w_2: np.ndarray
    b_2: np.ndarray
    ln1_gamma: np.ndarray
    ln1_beta: np.ndarray
    ln2_gamma: np.ndarray
    ln2_beta: np.ndarray

    def __post_init__(self) -> None:
        h, d, d_k = _dims("w_q", self.w_q, 3)
        d_v = _dims("w_v", self.w_v, 3)[2]
        d_ff = _dims("w_1", self.w_1, 2)[1]
        _check_shapes(self, {
            "w_q": (h, d, d_k), "w_k": (h, d, d_k), "w_v": (h, d, d_v), "w_o": (h * d_v, d),
            "w_1": (d, d_ff), "b_1": (d_ff,), "w_2": (d_ff, d), "b_2": (d,),
        }, d)

    @property
    def d_model(self) -> int:
        return self.w_q.shape[1]

    @property
    def n_heads(self) -> int:
        return self.w_q.shape[0]

    @property
    def d_ff(self) -> int:
        return self.w_1.shape[1]

    @property
    def scalar_norms(self) -> bool:
        """True when both LayerNorms have scalar γ, β: then they are projections onto S."""
        return _scalar_norms(self)


@dataclass(frozen=True)
class SplittingScheme:
    """Controls of one splitting step: ``w_q, w_k [H, d, d_k]``, folded ``v [H, d, d]``,
    square ``w_1, w_2 [d, d]`` read as ``I + Δt W``, ``b_1, b_2 [d]``, LayerNorm γ/β as in
    :class:`EncoderBlock`."""

    w_q: np.ndarray
    w_k: np.ndarray
    v: np.ndarray
    w_1: np.ndarray
    b_1: np.ndarray
    w_2: np.ndarray
    b_2: np.ndarray
    ln1_gamma: np.ndarray
    ln1_beta: np.ndarray
    ln2_gamma: np.ndarray
    ln2_beta: np.ndarray

    def __post_init__(self) -> None:
        h, d, d_k = _dims("w_q", self.w_q, 3)
        _check_shapes(self, {
            "w_q": (h, d, d_k), "w_k": (h, d, d_k), "v": (h, d, d),
            "w_1": (d, d), "b_1": (d,), "w_2": (d, d), "b_2": (d,),
        }, d)

    @property
    def d_model(self) -> int:
        return self.w_q.shape[1]

    @property
    def n_heads(self) -> int:
        return self.w_q.shape[0]

    @property
    def scalar_norms(self) -> bool:
        return _scalar_norms(self)


@dataclass(frozen=True)
class SubStep:
    """One sub-step of the scheme: what kind of step it is, and its state ``[T, d]``."""

    index: int
    name: str
    kind: SubStepKind
    kind_zh: str
    formula: str
    meaning: str
    meaning_zh: str
    note: str
    array: np.ndarray


@dataclass(frozen=True)
class SplittingResult:
    """The six sub-steps next to the block they reproduce.

    ``block_output`` is the 2017 block (skip weight 1) with LayerNorm ε; ``reweighted_output``
    the block with skip weight ``skip = ω/(1 − ω)`` (E4). ``gap_block`` and ``gap_reweighted``
    are max |u₆ − that block|: both ≈ 1e-16 at ω = ½, ε = 0 (E1); ``gap_reweighted`` stays at
    rounding for any ω once ``closing_eps = ε(1 − ω)²`` (E3, E4).
    """

    dt: float
    omega: float
    eps: float
    closing_eps: float
    skip: float
    block: EncoderBlock
    scheme: SplittingScheme
    u0: np.ndarray
    substeps: tuple[SubStep, ...]
    block_output: np.ndarray
    reweighted_output: np.ndarray
    gap_block: float
    gap_reweighted: float

    @property
    def output(self) -> np.ndarray:
        """u₆, the scheme's end state."""
        return self.substeps[-1].array


def _dims(name: str, value: object, ndim: int) -> tuple[int, ...]:
    shape = np.shape(value)
    if len(shape) != ndim:
        raise EngineError("ndim", name=name, ndim=ndim, shape=shape)
    return shape


def _check_shapes(obj: object, shapes: dict[str, tuple[int, ...]], d: int) -> None:
    for name, shape in shapes.items():
        array = real_array(name, getattr(obj, name), len(shape))
        if array.shape != shape:
            raise EngineError("shape_expected", name=name, expected=shape, shape=array.shape)
        object.__setattr__(obj, name, frozen(array))
    for name in ("ln1_gamma", "ln1_beta", "ln2_gamma", "ln2_beta"):
        array = np.asarray(getattr(obj, name), dtype=np.float64)
        if array.shape not in ((), (d,)):
            raise EngineError("norm_param_shape", name=name, d=d, shape=array.shape)
        object.__setattr__(obj, name, frozen(real_array(name, array, array.ndim)))


def _scalar_norms(obj: EncoderBlock | SplittingScheme) -> bool:
    return all(getattr(obj, n).ndim == 0
               for n in ("ln1_gamma", "ln1_beta", "ln2_gamma", "ln2_beta"))


def random_block(d_model: int = 16, n_heads: int = 4, d_k: int | None = None, *,
                 d_ff: int | None = None, seed: int = 0,
                 per_feature_norm: bool = False) -> EncoderBlock:
    """A seeded block at a sensible scale. ``d_ff`` defaults to ``d_model`` (the paper's square
    FFN); γ, β are scalars unless ``per_feature_norm``, and never exactly 1 and 0, so no step is
    trivially the identity."""
    d_model, n_heads = whole("d_model", d_model, 1), whole("n_heads", n_heads, 1)
    d_k = whole("d_k", d_k, 1) if d_k is not None else max(1, d_model // n_heads)
    d_ff = whole("d_ff", d_ff, 1) if d_ff is not None else d_model
    rng = np.random.default_rng(whole("seed", seed))
    norm_shape: tuple[int, ...] = (d_model,) if per_feature_norm else ()

    def gauss(*shape: int, fan_in: int) -> np.ndarray:
        return rng.standard_normal(shape) / np.sqrt(fan_in)

    return EncoderBlock(
        w_q=gauss(n_heads, d_model, d_k, fan_in=d_model),
        w_k=gauss(n_heads, d_model, d_k, fan_in=d_model),
        w_v=gauss(n_heads, d_model, d_k, fan_in=d_model),
        w_o=gauss(n_heads * d_k, d_model, fan_in=n_heads * d_k),
        w_1=gauss(d_model, d_ff, fan_in=d_model),
        b_1=0.1 * rng.standard_normal(d_ff),
        w_2=gauss(d_ff, d_model, fan_in=d_ff),
        b_2=0.1 * rng.standard_normal(d_model),
        ln1_gamma=1.0 + 0.2 * rng.standard_normal(norm_shape),
        ln1_beta=0.1 * rng.standard_normal(norm_shape),
        ln2_gamma=1.0 + 0.2 * rng.standard_normal(norm_shape),
        ln2_beta=0.1 * rng.standard_normal(norm_shape),
    )


def random_scheme(d_model: int = 16, n_heads: int = 4, d_k: int | None = None, *,
                  seed: int = 0, per_feature_norm: bool = False) -> SplittingScheme:
    """Seeded random *controls* of the scheme: ``V_h``, ``W_j`` ~ N(0, 1/fan_in), so the
    equal block at Δt = 1 has near-identity FFN weights ``I + W_j`` — the paper's reading of
    an FFN. γ, β as in :func:`random_block`."""
    d_model, n_heads = whole("d_model", d_model, 1), whole("n_heads", n_heads, 1)
    d_k = whole("d_k", d_k, 1) if d_k is not None else max(1, d_model // n_heads)
    rng = np.random.default_rng(whole("seed", seed))
    norm_shape: tuple[int, ...] = (d_model,) if per_feature_norm else ()

    def gauss(*shape: int, fan_in: int) -> np.ndarray:
        return rng.standard_normal(shape) / np.sqrt(fan_in)

    return SplittingScheme(
        w_q=gauss(n_heads, d_model, d_k, fan_in=d_model),
        w_k=gauss(n_heads, d_model, d_k, fan_in=d_model),
        v=gauss(n_heads, d_model, d_model, fan_in=n_heads * d_model),
        w_1=gauss(d_model, d_model, fan_in=d_model),
        b_1=0.1 * rng.standard_normal(d_model),
        w_2=gauss(d_model, d_model, fan_in=d_model),
        b_2=0.1 * rng.standard_normal(d_model),
        ln1_gamma=1.0 + 0.2 * rng.standard_normal(norm_shape),
        ln1_beta=0.1 * rng.standard_normal(norm_shape),
        ln2_gamma=1.0 + 0.2 * rng.standard_normal(norm_shape),
        ln2_beta=0.1 * rng.standard_normal(norm_shape),
    )


def scheme_from_block(block: EncoderBlock, dt: float = 1.0) -> SplittingScheme:
    """The scheme weights that reproduce ``block`` at step ``dt``: ``V_h = W_V,h W_O,h / Δt``,
    ``W_j = (W_j' − I)/Δt``, ``b_j = b_j'/Δt``. Needs a square FFN (d_ff = d)."""
    _check_model(block, EncoderBlock, "block")
    dt = positive("dt", dt)
    d, h = block.d_model, block.n_heads
    if block.d_ff != d:
        raise EngineError("splitting_d_ff", d_ff=block.d_ff, d=d)
    d_v = block.w_v.shape[2]
    w_o = block.w_o.reshape(h, d_v, d)  # W_O,h: the rows that multiply head h
    eye = np.eye(d)
    return SplittingScheme(
        w_q=block.w_q, w_k=block.w_k, v=(block.w_v @ w_o) / dt,
        w_1=(block.w_1 - eye) / dt, b_1=block.b_1 / dt,
        w_2=(block.w_2 - eye) / dt, b_2=block.b_2 / dt,
        ln1_gamma=block.ln1_gamma, ln1_beta=block.ln1_beta,
        ln2_gamma=block.ln2_gamma, ln2_beta=block.ln2_beta,
    )


def block_from_scheme(scheme: SplittingScheme, dt: float = 1.0) -> EncoderBlock:
    """A block equal to ``scheme`` at step ``dt`` (E2): ``W_V,h = Δt V_h`` with ``W_O,h = I``
    (d_v = d; any factorisation of ``Δt V_h`` works), ``I + Δt W_j``, ``Δt b_j``."""
    _check_model(scheme, SplittingScheme, "scheme")
    dt = positive("dt", dt)
    d, h = scheme.d_model, scheme.n_heads
    eye = np.eye(d)
    return EncoderBlock(
        w_q=scheme.w_q, w_k=scheme.w_k, w_v=dt * scheme.v, w_o=np.tile(eye, (h, 1)),
        w_1=eye + dt * scheme.w_1, b_1=dt * scheme.b_1,
        w_2=eye + dt * scheme.w_2, b_2=dt * scheme.b_2,
        ln1_gamma=scheme.ln1_gamma, ln1_beta=scheme.ln1_beta,
        ln2_gamma=scheme.ln2_gamma, ln2_beta=scheme.ln2_beta,
    )


def skip_weight(omega: float) -> float:
    """The skip weight ``α = ω/(1 − ω)`` of the block equal to relaxation ω (E4)."""
    omega = _check_omega(omega)
    return omega / (1.0 - omega)


def matched_closing_eps(eps: float, omega: float = 0.5) -> float:
    """``ε(1 − ω)²``: the closing LayerNorm ε that makes the scheme equal the block with ε."""
    return non_negative("eps", eps) * (1.0 - _check_omega(omega)) ** 2


def _check_omega(omega: float) -> float:
    omega = finite("relaxation ω", omega)
    if not 0.0 <= omega < 1.0:
        raise EngineError("omega_range", omega=omega)
    return omega


def _softmax_weights(u: np.ndarray, w_q: np.ndarray, w_k: np.ndarray) -> np.ndarray:
    """``[H, T, T]`` full-attention weights ``softmax(u W_Q,h (u W_K,h)ᵀ / √d_k)``."""
    q = u @ w_q  # [H, T, d_k]
    k = u @ w_k  # [H, T, d_k]
    return ops.softmax((q @ k.transpose(0, 2, 1)) * w_q.shape[2] ** -0.5)  # [H, T, T]


def encoder_block(x: object, block: EncoderBlock, *, eps: float = 0.0,
                  skip: float = 1.0) -> np.ndarray:
    """The 2017 post-norm block on ``x [T, d]``; ``skip`` weights the second residual's skip
    (1 for the 2017 block, ``ω/(1−ω)`` for the block equal to relaxation ω)."""
    x = _check_input(x, _check_model(block, EncoderBlock, "block").d_model)
    eps = non_negative("eps", eps)
    skip = finite("skip", skip)
    t = x.shape[0]
    with np.errstate(all="ignore"):  # overflow and 0/0 are reported in words (_layer_norm)
        probs = _softmax_weights(x, block.w_q, block.w_k)  # [H, T, T]
        heads = probs @ (x @ block.w_v)  # [H, T, d_v]
        concat = heads.transpose(1, 0, 2).reshape(t, -1)  # [T, H·d_v]
        h = _layer_norm(x + concat @ block.w_o, eps, block.ln1_gamma, block.ln1_beta,
                        Phrase("the block's first LayerNorm"))  # [T, d]
        ffn = np.maximum(h @ block.w_1 + block.b_1, 0.0) @ block.w_2 + block.b_2  # [T, d]
        return _layer_norm(skip * h + ffn, eps, block.ln2_gamma, block.ln2_beta,
                           Phrase("the block's second LayerNorm"))


def _layer_norm(x: np.ndarray, eps: float, gamma: np.ndarray, beta: np.ndarray,
                what: str) -> np.ndarray:
    """``ops.layer_norm`` (the same bits) for callers holding ``np.errstate(all="ignore")``,
    with an EngineError instead of Inf or NaN: overflow before it, or 0/0 at ε = 0 on a row
    whose variance is 0 (all features equal, or so close that their squares underflow)."""
    if not np.abs(x).max(initial=0.0) < OVERFLOW:  # as in run_layer
        raise EngineError("overflow_before", what=what)
    out = ops.layer_norm(x, eps, gamma, beta)
    if np.isfinite(out).all():
        return out
    centred = x - np.mean(x, axis=-1, keepdims=True)
    if eps == 0 and not np.all(np.mean(centred * centred, axis=-1)):
        raise EngineError("layernorm_zero_variance", what=what)
    raise EngineError("overflow_gamma", what=what)


def _check_model(model: object, kind: type, name: str) -> object:
    if not isinstance(model, kind):
        raise EngineError("model_type", name=name, kind=kind.__name__, got=type(model).__name__)
    return model


def _check_input(x: object, d: int) -> np.ndarray:
    array = real_array("input", x, 2)
    if array.shape[0] < 1 or array.shape[1] != d:
        raise EngineError("encoder_input_shape", d=d, shape=array.shape)
    return array


def lie_splitting(u0: object, scheme: SplittingScheme, *, dt: float = 1.0,
                  omega: float = 0.5, eps: float = 0.0,
                  closing_eps: float | None = None) -> tuple[SubStep, ...]:
    """The six sub-steps u₁ … u₆ of one splitting step from ``u0 [T, d]``.

    ``eps`` is the first LayerNorm's ε; ``closing_eps`` the last one's (default: the same ε,
    which leaves the O(ε) gap of E3; :func:`matched_closing_eps` removes it).
    """
    u0 = _check_input(u0, _check_model(scheme, SplittingScheme, "scheme").d_model)
    dt = positive("dt", dt)
    omega = _check_omega(omega)
    eps = non_negative("eps", eps)
    closing_eps = eps if closing_eps is None else non_negative("closing_eps", closing_eps)
    s = scheme
    eye = np.eye(s.d_model)

    with np.errstate(all="ignore"):  # overflow and 0/0 are reported in words (_layer_norm)
        probs = _softmax_weights(u0, s.w_q, s.w_k)  # [H, T, T]
        attention = (probs @ (u0 @ s.v)).sum(axis=0)  # [T, d]: Σ_h P_h u₀ V_h
        u1 = u0 + dt * attention
        u2 = _layer_norm(u1, eps, s.ln1_gamma, s.ln1_beta, "u₂ = LN(u₁)")
        u3 = np.maximum(u2 @ (eye + dt * s.w_1) + dt * s.b_1, 0.0)
        u4 = u3 @ (eye + dt * s.w_2) + dt * s.b_2
        u5 = (1.0 - omega) * u4 + omega * u2
        u6 = _layer_norm(u5, closing_eps, s.ln2_gamma, s.ln2_beta, "u₆ = LN(u₅)")

    def norm_note(e: float) -> str:
        if not s.scalar_norms:
            return "per-feature γ, β: a normalisation, but not a nearest-point map (E9)"
        if e > 0:
            return f"ε = {e:g} > 0: lands just off S, not exactly on it (E8)"
        return "exact nearest point of S(σ₁, σ₂) (E5)"

    rows = (
        (u1, "explicit Euler", "显式欧拉", "u₁ = u₀ + Δt·A(u₀)",
         "Attention and the first residual: one explicit Euler step of the attention flow.",
         "注意力加第一次残差：注意力流的一次显式欧拉步。", ""),
        (u2, "projection", "投影", "u₂ = Proj_S(u₁) = LN(u₁)",
         "LayerNorm: an implicit step onto the constraint set S; it does not depend on Δt.",
         "LayerNorm：投到约束集 S 上的隐式步，与 Δt 无关。", norm_note(eps)),
        (u3, "explicit Euler + projection", "显式欧拉 + 投影",
         "u₃ = ReLU(u₂(I + ΔtW₁) + Δt b₁)",
         "FFN layer 1: an Euler step, then ReLU as the projection onto u ≥ 0.",
         "前馈第一层：一次欧拉步，再由 ReLU 投影到 u ≥ 0。", ""),
        (u4, "explicit Euler", "显式欧拉", "u₄ = u₃(I + ΔtW₂) + Δt b₂",
         "FFN layer 2: an explicit Euler step.", "前馈第二层：一次显式欧拉步。", ""),
        (u5, "relaxation", "松弛", "u₅ = (1 − ω)·u₄ + ω·u₂",
         "Relaxation: the second residual comes from this averaging, not from Euler.",
         "松弛：第二次残差来自这次加权平均，而不是欧拉步。",
         f"equals (1 − ω)(u₄ + α·u₂), skip weight α = ω/(1 − ω) = {omega / (1 - omega):.4g}"),
        (u6, "projection", "投影", "u₆ = Proj_S(u₅) = LN(u₅)",
         "The second LayerNorm: the block's output.", "第二次 LayerNorm：即块的输出。",
         norm_note(closing_eps)),
    )
    return tuple(
        SubStep(index=i, name=f"u{i}", kind=kind, kind_zh=kind_zh, formula=formula,
                meaning=meaning, meaning_zh=meaning_zh, note=note, array=frozen(array))
        for i, (array, kind, kind_zh, formula, meaning, meaning_zh, note) in enumerate(rows, 1)
    )


def splitting_lens(u0: object, model: EncoderBlock | SplittingScheme, *, dt: float = 1.0,
                   omega: float = 0.5, eps: float = 0.0,
                   closing_eps: float | None = None) -> SplittingResult:
    """Scheme and block side by side, for the "Splitting = block" panel.

    Given a block, the scheme is :func:`scheme_from_block` at ``dt`` (then Δt changes no state:
    it is not identifiable, E2); given a scheme, the block is :func:`block_from_scheme` at
    ``dt`` (then Δt changes the states and the block's weights together).
    """
    if isinstance(model, EncoderBlock):
        block, scheme = model, scheme_from_block(model, dt)
    elif isinstance(model, SplittingScheme):
        block, scheme = block_from_scheme(model, dt), model
    else:
        raise EngineError("model_kind", got=type(model).__name__)
    substeps = lie_splitting(u0, scheme, dt=dt, omega=omega, eps=eps, closing_eps=closing_eps)
    u0_array = _check_input(u0, block.d_model)
    plain = encoder_block(u0_array, block, eps=eps)
    alpha = skip_weight(omega)
    reweighted = encoder_block(u0_array, block, eps=eps, skip=alpha)
    u6 = substeps[-1].array
    return SplittingResult(
        dt=float(dt), omega=float(omega), eps=float(eps),
        closing_eps=float(eps if closing_eps is None else closing_eps), skip=alpha,
        block=block, scheme=scheme, u0=frozen(u0_array), substeps=substeps,
        block_output=frozen(plain), reweighted_output=frozen(reweighted),
        gap_block=float(np.max(np.abs(u6 - plain))),
        gap_reweighted=float(np.max(np.abs(u6 - reweighted))),
    )
