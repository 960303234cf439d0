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
multiplies them, so moving N, α or the scale never redraws the random numbers. A sweep makes
~30 numpy calls a layer for all three variants at once: ~4 ms for 64 layers (issue 6 asks for
under 100 ms; the energy panel recomputes it inside a slider move).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np

from engine import ops
from engine.errors import EngineError
from engine.layer import check_flag
from engine.lenses._arrays import finite, frozen, non_negative, real_array, whole

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


def _check_layers(n_layers: int) -> int:
    if isinstance(n_layers, bool) or not isinstance(n_layers, (int, np.integer)) \
            or not 1 <= n_layers <= MAX_LAYERS:
        raise EngineError("n_layers_range", limit=MAX_LAYERS, value=n_layers)
    return int(n_layers)


def _mean_squares(states: np.ndarray) -> np.ndarray:
    """mean(u²) of every ``[T, d]`` state in ``states [..., T, d]`` (squares in place)."""
    np.multiply(states, states, out=states)
    flat = states.reshape(*states.shape[:-2], -1)
    return np.add.reduce(flat, axis=-1) / flat.shape[-1]


def _run(x: object, variants: tuple[Variant, ...], *, n_layers: int, alpha: float,
         init_scale: float, gamma: float, beta: float, eps: float, seed: int, n_heads: int,
         d_ff: int | None, causal: bool) -> tuple[StackTrace, ...]:
    """All ``variants`` at once on a batch ``[V, T, d]``.

    The arrays are tiny (a few hundred numbers each), so the time is numpy's per-call
    overhead, not arithmetic: every call serves all variants, and a layer makes ~30 calls.
    Each sublayer reads ``B = norm(S)``, one batched norm for the normed rows (post-norm's
    LayerNorm, pre-norm's RMSNorm) while no norm reads ``S`` as it is, and adds ``α·F(B)`` to
    ``S``, where post-norm's ``S`` is ``B`` itself: its LN after a sublayer is the next
    sublayer's input (the first sublayer reads the input as it is). States go into two buffers
    whose mean squares are taken in one pass at the end.
    """
    for variant in variants:
        if variant not in VARIANTS:
            raise EngineError("one_of", name="variant", choices=", ".join(VARIANTS),
                              value=variant)
    x_arr = real_array("input", x, 2)
    causal = check_flag(causal, "causal")
    t, d = x_arr.shape
    if t < 1 or d < 1:
        raise EngineError("stack_input_shape", shape=x_arr.shape)
    n = _check_layers(n_layers)
    n_heads = whole("n_heads", n_heads, 1)
    if d % n_heads:
        raise EngineError("heads_divide", n_heads=n_heads, d=d)
    d_ff = 4 * d if d_ff is None else whole("d_ff", d_ff, 1)
    scale = non_negative("init_scale", init_scale)
    eps = non_negative("eps", eps)
    alpha, gamma, beta = finite("alpha", alpha), finite("gamma", gamma), finite("beta", beta)
    if eps == 0 and any(v != "no-norm" for v in variants):
        # a zero row's first norm is 0/0 (post-norm's LN(0 + α·Att(0)) too), not an overflow
        with np.errstate(over="ignore"):  # a square past 1e308 is Inf, not zero
            squares = np.add.reduce(x_arr * x_arr, axis=-1)
        if not np.all(squares):
            raise EngineError("stack_zero_row")
    unit = _unit_weights(whole("seed", seed), d, n_heads, d_ff)
    # rows in VARIANTS order, so the normed ones lead and post-norm (if any) is row 0
    order = sorted(set(variants), key=VARIANTS.index)
    n_var, d_k = len(order), d // n_heads
    n_normed = sum(v != "no-norm" for v in order)
    has_post = order[0] == "post-norm"
    # The cached unit weights are used as they are (a scaled copy of all 64 layers took ~1 ms,
    # a fifth of the sweep). Every matrix is scale × unit, so q, k, v carry a factor s each and
    # each branch's last matmul one more; ReLU commutes with s ≥ 0. Hence: logits × s²/√d_k,
    # and each branch's output × α·s² (α = 0 gives exact zeros, so pre-norm and no norm stay
    # the identity bitwise: E15).
    w_qkv, w_o, w_1, w_2 = unit.w_qkv, unit.w_o, unit.w_1, unit.w_2
    logit_scale = scale * scale * d_k ** -0.5
    branch_scale = alpha * scale * scale
    # added to the attention logits, laid out [key, 1, 1, query] like them (below)
    mask = np.where(ops.causal_mask(t).T, -np.inf, 0.0)[:, None, None] if causal else None
    # LayerNorm's row mean is subtracted by one matmul with I − 1/d (a 2-D ``dot`` is a far
    # cheaper call than a ufunc reduction); then γ/rms of the centred row (LayerNorm) or of
    # the row itself (RMSNorm) scales the normed rows together.
    centring = np.eye(d) - 1.0 / d
    gain = gamma if eps else gamma * math.sqrt(d)

    def norm(s: np.ndarray, b: np.ndarray) -> None:
        """``b = norm(s)`` for every row; post-norm's row of ``s`` is left to the caller."""
        if has_post:
            np.dot(s[0], centring, b[0])
            b[1:] = s[1:]
        else:
            b[...] = s
        if n_normed:
            normed = b[:n_normed]
            spread = np.vecdot(normed, normed)  # Σ (x − mean)² of each row: [V', T]
            if eps:
                spread /= d
                spread += eps
            np.sqrt(spread, out=spread)
            normed *= (gain / spread)[..., None]
            if has_post and beta:
                b[0] += beta

    # the stream at each layer boundary (streams[0] stays the input for every row); every
    # sublayer's input, and post-norm's last LN
    streams = np.empty((n + 1, n_var, t, d))
    inputs = np.empty((2 * n + 1, n_var, t, d))
    # Scratch for one layer, with every view of it made once here: a layer then only calls
    # numpy on them (each view or fresh array is a call too, at ~50 per layer).
    mid = np.empty((n_var, t, d))
    qkv = np.empty((n_var * t, 3 * n_heads * d_k))
    q, k, v = qkv.reshape(n_var, t, 3, n_heads, d_k).transpose(2, 0, 3, 1, 4)  # [V, H, T, d_k]
    q_t = q.transpose(0, 1, 3, 2)
    # Attention weights laid out [key, V, H, query]: the softmax over keys then reduces the
    # leading axis, a few whole-array passes, where the last axis (as long as the sentence)
    # would cost numpy an inner loop per row.
    weights = np.empty((t, n_var, n_heads, t))
    logits_out, weights_in = weights.transpose(1, 2, 0, 3), weights.transpose(1, 2, 3, 0)
    weights_2d, ones = weights.reshape(t, -1), np.ones(t)
    totals = np.empty(n_var * n_heads * t)
    totals_3d = totals.reshape(n_var, n_heads, t)
    heads = np.empty((n_var, t, n_heads, d_k))  # written head by head, read as [V·T, H·d_k]
    heads_out, heads_in = heads.transpose(0, 2, 1, 3), heads.reshape(n_var * t, -1)
    branch = np.empty((n_var * t, d))  # a sublayer's output before the residual add
    branch_3d = branch.reshape(n_var, t, d)
    hidden = np.empty((n_var * t, w_1.shape[-1]))
    inputs_2d = inputs.reshape(2 * n + 1, n_var * t, d)
    streams[0] = x_arr
    with np.errstate(all="ignore"):  # overflow is reported as overflow_layer, not a warning
        for layer in range(n):
            s, b = streams[layer], inputs[2 * layer]
            norm(s, b)
            if has_post:
                if layer:
                    s[0] = b[0]
                else:  # post-norm's first sublayer reads the input itself
                    b[0] = s[0]
            np.dot(inputs_2d[2 * layer], w_qkv[layer], qkv)
            # logits k·q, then the softmax over keys, in place
            np.matmul(k, q_t, logits_out)
            weights *= logit_scale
            if mask is not None:
                weights += mask
            weights -= np.maximum.reduce(weights, axis=0)
            np.exp(weights, weights)
            np.dot(ones, weights_2d, totals)  # the sum over keys, as a cheap 2-D dot
            weights /= totals_3d
            np.matmul(weights_in, v, heads_out)
            np.dot(heads_in, w_o[layer], branch)
            if branch_scale != 1.0:
                branch *= branch_scale
            np.add(s, branch_3d, mid)

            b = inputs[2 * layer + 1]
            norm(mid, b)
            if has_post:
                mid[0] = b[0]
            np.dot(inputs_2d[2 * layer + 1], w_1[layer], hidden)
            np.maximum(hidden, 0.0, out=hidden)
            np.dot(hidden, w_2[layer], branch)
            if branch_scale != 1.0:
                branch *= branch_scale
            np.add(mid, branch_3d, streams[layer + 1])
        norm(streams[n], inputs[2 * n])
        outputs = [frozen(inputs[2 * n, 0] if has_post and i == 0 else streams[n, i])
                   for i in range(n_var)]
        energy = np.ascontiguousarray(_mean_squares(streams).T)  # [V, n + 1]
        ms_in = _mean_squares(inputs)  # [2n + 1, V]
        if has_post:  # post-norm's stream after layer l is the input of layer l + 1
            energy[0, 1:] = ms_in[2::2, 0]
        rms = np.sqrt(ms_in[:2 * n].reshape(n, 2, n_var).transpose(2, 0, 1))  # [V, n, 2]

    traces = {}
    for i, variant in enumerate(order):
        bad = ~(np.isfinite(energy[i, 1:]) & np.isfinite(rms[i]).all(axis=1))
        overflow = int(np.argmax(bad)) + 1 if bad.any() else None
        if overflow is not None:
            energy[i, overflow:] = np.inf
            rms[i, overflow - 1:] = np.inf
        traces[variant] = StackTrace(variant=variant, norm=_NORM_OF[variant],
                                     energy=frozen(energy[i]),
                                     sublayer_input_rms=frozen(rms[i]), output=outputs[i],
                                     overflow_layer=overflow)
    return tuple(traces[v] for v in variants)


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
        shape = (whole("n_tokens", n_tokens, 1), whole("d_model", d_model, 1))
        x = np.random.default_rng([whole("seed", seed), 1]).standard_normal(shape)
    traces = _run(x, VARIANTS, n_layers=n_layers, alpha=alpha, init_scale=init_scale,
                  gamma=gamma, beta=beta, eps=eps, seed=seed, n_heads=n_heads, d_ff=None,
                  causal=causal)
    return EnergySweep(n_layers=n_layers, alpha=float(alpha), init_scale=float(init_scale),
                       gamma=float(gamma), beta=float(beta), eps=float(eps), seed=int(seed),
                       traces=traces, post_norm_energy=float(beta) ** 2 + float(gamma) ** 2)
