"""The "energy" mean(u²) through N random layers: where the norm sits decides if it stays put.

The same seeded random layers (full multi-head attention and a ReLU FFN, biases zero as at
initialisation) are run three ways, each branch scaled by a ReZero-style α:

- **post-norm** (2017):  u ← LN(u + α·Att(u)),   u ← LN(u + α·FFN(u))
- **pre-norm** (Qwen3):  u ← u + α·Att(RMS(u)),  u ← u + α·FFN(RMS(u))
- **no norm** (ReZero):  u ← u + α·Att(u),       u ← u + α·FFN(u)

Post-norm uses LayerNorm with scalar γ = σ₂, β = σ₁: with ε = 0 every row then has mean σ₁
and variance σ₂², so mean(u²) = σ₁² + σ₂² exactly after every layer (E20). Pre-norm uses
RMSNorm with scalar γ, as Qwen3 does: with ε = 0 each sublayer input row has rms exactly |γ|
(E21) while the residual stream itself is never normalised and grows. No norm compounds the
growth layer after layer. α = 0 makes pre-norm and no-norm stacks the identity bitwise (E15);
post-norm cannot be, since its norm sits on the stream itself (α = 0 leaves u ← LN(u)).

Weights are drawn once per (seed, shape) for 64 layers at unit scale and cached; ``init_scale``
multiplies them, so moving N, α or the scale never redraws the random numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np

from engine import ops
from engine.errors import EngineError
from engine.lenses._arrays import frozen, non_negative, real_array

Variant = Literal["post-norm", "pre-norm", "no-norm"]
VARIANTS: tuple[Variant, ...] = ("post-norm", "pre-norm", "no-norm")
MAX_LAYERS = 64
_NORM_OF: dict[str, str] = {"post-norm": "LayerNorm", "pre-norm": "RMSNorm", "no-norm": "none"}


@dataclass(frozen=True)
class StackTrace:
    """One variant through ``n_layers`` layers.

    ``energy[l]`` is mean(u²) of the residual stream after layer l (``energy[0]`` the input);
    ``sublayer_input_rms[l, 0 | 1]`` the rms of what attention | FFN read in layer l + 1.
    After an overflow (``overflow_layer``, else ``None``) the remaining entries are ``inf``.
    """

    variant: Variant
    norm: str
    energy: np.ndarray
    sublayer_input_rms: np.ndarray
    output: np.ndarray
    overflow_layer: int | None


@dataclass(frozen=True)
class EnergySweep:
    """The three variants on the same input and weights; ``post_norm_energy = β² + γ²`` is
    the exact post-norm line when ``eps = 0``."""

    n_layers: int
    alpha: float
    init_scale: float
    gamma: float
    beta: float
    eps: float
    seed: int
    traces: tuple[StackTrace, ...]
    post_norm_energy: float

    def __getitem__(self, variant: str) -> StackTrace:
        return self.traces[VARIANTS.index(variant)]


@dataclass(frozen=True)
class _Weights:
    w_qkv: np.ndarray  # [L, d, 3·H·d_k]: W_Q, W_K, W_V of every head side by side
    w_o: np.ndarray  # [L, H·d_k, d]
    w_1: np.ndarray  # [L, d, d_ff]
    w_2: np.ndarray  # [L, d_ff, d]


@lru_cache(maxsize=8)
def _unit_weights(seed: int, d_model: int, n_heads: int, d_ff: int) -> _Weights:
    """Unit-scale N(0, 1/fan_in) weights for all 64 layers (layer l is the same for any N)."""
    rng = np.random.default_rng(seed)
    d_k = d_model // n_heads
    big = MAX_LAYERS

    def gauss(*shape: int) -> np.ndarray:
        return frozen(rng.standard_normal((big, *shape)) / np.sqrt(shape[-2]))

    # one [d, 3·H·d_k] matrix per layer: one matmul gives q, k and v of every head
    return _Weights(gauss(d_model, 3 * n_heads * d_k), gauss(n_heads * d_k, d_model),
                    gauss(d_model, d_ff), gauss(d_ff, d_model))


def _attention(u: np.ndarray, w_qkv: np.ndarray, w_o: np.ndarray, n_heads: int,
               mask: np.ndarray | None) -> np.ndarray:
    """Multi-head attention of a batch of states ``u [V, T, d]`` (one per variant)."""
    n, t = u.shape[0], u.shape[1]
    qkv = (u @ w_qkv).reshape(n, t, 3, n_heads, -1).transpose(2, 0, 3, 1, 4)  # [3,V,H,T,d_k]
    q, k, v = qkv[0], qkv[1], qkv[2]  # [V, H, T, d_k] each
    scores = (q @ k.transpose(0, 1, 3, 2)) * q.shape[3] ** -0.5  # [V, H, T, T]
    if mask is not None:
        scores = np.where(mask, -np.inf, scores)
    heads = ops.softmax(scores) @ v  # [V, H, T, d_k]
    return heads.transpose(0, 2, 1, 3).reshape(n, t, -1) @ w_o  # [V, T, d]


def _mean_square(u: np.ndarray) -> np.ndarray:
    """mean(u²) of each state of the batch ``[V, T, d]``."""
    return np.einsum("vtd,vtd->v", u, u) / (u.shape[1] * u.shape[2])


def _check_layers(n_layers: int) -> int:
    if isinstance(n_layers, bool) or not isinstance(n_layers, (int, np.integer)) \
            or not 1 <= n_layers <= MAX_LAYERS:
        raise EngineError(f"n_layers must be a whole number from 1 to {MAX_LAYERS}, "
                          f"got {n_layers!r}")
    return int(n_layers)


def _run(x: object, variants: tuple[Variant, ...], *, n_layers: int, alpha: float,
         init_scale: float, gamma: float, beta: float, eps: float, seed: int, n_heads: int,
         d_ff: int | None, causal: bool) -> tuple[StackTrace, ...]:
    """All ``variants`` at once on a batch ``[V, T, d]``: one numpy call serves every variant,
    which keeps a 64-layer sweep of the three well under 100 ms."""
    for variant in variants:
        if variant not in VARIANTS:
            raise EngineError(f"variant must be one of {', '.join(VARIANTS)}, got {variant!r}")
    x_arr = real_array("input", x, 2)
    t, d = x_arr.shape
    if t < 1 or d < 1:
        raise EngineError(f"input must be [tokens ≥ 1, features ≥ 1], got shape {x_arr.shape}")
    n_layers = _check_layers(n_layers)
    if n_heads < 1 or d % n_heads:
        raise EngineError(f"n_heads ({n_heads}) must divide the feature count ({d})")
    scale = non_negative("init_scale", init_scale)
    eps = non_negative("eps", eps)
    alpha, gamma, beta = float(alpha), float(gamma), float(beta)
    unit = _unit_weights(int(seed), d, n_heads, d_ff if d_ff is not None else 4 * d)
    w_qkv, w_o, w_1, w_2 = (scale * a[:n_layers] for a in (
        unit.w_qkv, unit.w_o, unit.w_1, unit.w_2))
    mask = ops.causal_mask(t) if causal else None
    # variants are distinct, so each norm applies to at most one slice (a view, not a copy)
    post = [slice(i, i + 1) for i, v in enumerate(variants) if v == "post-norm"]
    pre = [slice(i, i + 1) for i, v in enumerate(variants) if v == "pre-norm"]

    u = np.repeat(x_arr[None], len(variants), axis=0)  # [V, T, d]
    energy = np.empty((len(variants), n_layers + 1))
    ms_in = np.empty((len(variants), n_layers, 2))  # mean square of each sublayer's input
    energy[:, 0] = _mean_square(u)
    with np.errstate(all="ignore"):  # overflow is reported as overflow_layer, not a warning
        for layer in range(n_layers):
            a_in = u.copy()
            for i in pre:
                a_in[i] = ops.rms_norm(u[i], gamma, eps)
            ms_in[:, layer, 0] = _mean_square(a_in)
            u = u + alpha * _attention(a_in, w_qkv[layer], w_o[layer], n_heads, mask)
            for i in post:
                u[i] = ops.layer_norm(u[i], eps, gamma, beta)
            f_in = u.copy()
            for i in pre:
                f_in[i] = ops.rms_norm(u[i], gamma, eps)
            ms_in[:, layer, 1] = _mean_square(f_in)
            u = u + alpha * (np.maximum(f_in @ w_1[layer], 0.0) @ w_2[layer])
            for i in post:
                u[i] = ops.layer_norm(u[i], eps, gamma, beta)
            energy[:, layer + 1] = _mean_square(u)
        rms = np.sqrt(ms_in)

    traces = []
    for i, variant in enumerate(variants):
        bad = ~(np.isfinite(energy[i, 1:]) & np.isfinite(rms[i]).all(axis=1))
        overflow = int(np.argmax(bad)) + 1 if bad.any() else None
        if overflow is not None:
            energy[i, overflow:] = np.inf
            rms[i, overflow - 1:] = np.inf
        traces.append(StackTrace(variant=variant, norm=_NORM_OF[variant],
                                 energy=frozen(energy[i]), sublayer_input_rms=frozen(rms[i]),
                                 output=frozen(u[i]), overflow_layer=overflow))
    return tuple(traces)


def run_stack(x: object, variant: Variant, *, n_layers: int = MAX_LAYERS, alpha: float = 1.0,
              init_scale: float = 1.0, gamma: float = 1.0, beta: float = 0.0,
              eps: float = 0.0, seed: int = 0, n_heads: int = 4, d_ff: int | None = None,
              causal: bool = False) -> StackTrace:
    """Run ``x [T, d]`` through ``n_layers`` (≤ 64) seeded random layers of one variant.

    ``gamma``, ``beta`` are the norms' scalar γ = σ₂, β = σ₁ (RMSNorm has no β); ``d_ff``
    defaults to 4·d; ``causal`` masks future tokens in every attention.
    """
    return _run(x, (variant,), n_layers=n_layers, alpha=alpha, init_scale=init_scale,
                gamma=gamma, beta=beta, eps=eps, seed=seed, n_heads=n_heads, d_ff=d_ff,
                causal=causal)[0]


def energy_sweep(x: object | None = None, *, n_layers: int = MAX_LAYERS, alpha: float = 1.0,
                 init_scale: float = 1.0, gamma: float = 1.0, beta: float = 0.0,
                 eps: float = 0.0, seed: int = 0, n_tokens: int = 8, d_model: int = 16,
                 n_heads: int = 4, causal: bool = False) -> EnergySweep:
    """All three variants on one input (default: seeded N(0, 1) ``[n_tokens, d_model]``)."""
    if x is None:
        x = np.random.default_rng([int(seed), 1]).standard_normal((n_tokens, d_model))
    traces = _run(x, VARIANTS, n_layers=n_layers, alpha=alpha, init_scale=init_scale,
                  gamma=gamma, beta=beta, eps=eps, seed=seed, n_heads=n_heads, d_ff=None,
                  causal=causal)
    return EnergySweep(n_layers=n_layers, alpha=float(alpha), init_scale=float(init_scale),
                       gamma=float(gamma), beta=float(beta), eps=float(eps), seed=int(seed),
                       traces=traces, post_norm_energy=float(beta) ** 2 + float(gamma) ** 2)
