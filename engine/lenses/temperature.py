"""Softmax as a Boltzmann distribution: attention recomputed at temperature τ = multiplier·√d.

``log p_ij = s_ij/τ − log Z_i`` with logit ``s_ij = q_i·k_j`` (E16), so τ = √d is the layer's
own attention, τ → 0 freezes each row onto its largest logit, τ → ∞ spreads it evenly over the
keys it may see (entropy → log(i + 1) for causal row i, E17), and τ = 1 (dropping 1/√d) is
sharper but not one-hot (E18). Log-probabilities are computed directly (log-sum-exp), never as
the log of an underflowed 0, so the slope and the entropy stay finite at any τ > 0 for which
s/τ is a float64; a τ so small that it is not (below ~1e-300 for unit q, k) is an EngineError.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine import ops
from engine.errors import EngineError
from engine.layer import LayerTrace, check_flag
from engine.lenses._arrays import frozen, positive, real_array, whole


@dataclass(frozen=True)
class TemperatureResult:
    """Attention of ``q, k [H, T, d]`` at one temperature.

    ``logits [H, T, T]`` are the raw ``q·k`` (future entries kept; the mask acts on
    ``log_probs``, which are ``−inf`` there and ``probs`` exactly 0). ``entropy [H, T]`` in nats;
    ``entropy_bound [T]`` is log(number of visible keys): log(i + 1) causal, log T full.
    ``slope [H]`` is the least-squares slope of log p against the logit within rows (one
    intercept per row, visible keys only); it equals 1/τ. ``NaN`` only when no row has two
    distinct visible logits (a single token).
    """

    multiplier: float
    tau: float
    causal: bool
    logits: np.ndarray
    log_probs: np.ndarray
    probs: np.ndarray
    entropy: np.ndarray
    entropy_bound: np.ndarray
    max_weight: np.ndarray
    slope: np.ndarray


def _check_qk(q: object, k: object) -> tuple[np.ndarray, np.ndarray]:
    q_arr = real_array("q", q, 3)
    k_arr = real_array("k", k, 3)
    if q_arr.shape != k_arr.shape or 0 in q_arr.shape:
        raise EngineError("qk_shape", q_shape=q_arr.shape, k_shape=k_arr.shape)
    return q_arr, k_arr


def _logits(q: np.ndarray, k: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):  # reported below, in words
        logits = q @ k.transpose(0, 2, 1)  # [H, T, T]
    if not np.isfinite(logits).all():
        raise EngineError("qk_overflow")
    return logits


def _too_cold(multiplier: float, logits: np.ndarray, d: int) -> EngineError:
    """s/τ, or what is computed from it, overflowed: name the smallest multiplier that is safe
    (|s|/τ ≤ 1e150, run_layer's limit, leaves room for the row sums and the slope's products)."""
    safe = float(np.max(np.abs(logits))) / (1e150 * np.sqrt(d))
    return EngineError("too_cold", multiplier=multiplier, safe=safe)


def _boltzmann(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``log_probs, probs`` of ``z`` over the last axis with one ``exp``; ``−inf`` stays ``−inf``.

    Shifted values below −746 are set to ``−inf`` first: ``exp`` gives exactly 0 for both, but
    the underflowing path is several times slower, and small τ sends most entries there.
    """
    shifted = z - np.max(z, axis=-1, keepdims=True)
    weights = np.exp(np.where(shifted < -746.0, -np.inf, shifted))
    total = np.sum(weights, axis=-1, keepdims=True)
    return shifted - np.log(total), weights / total


def _entropy(log_probs: np.ndarray, probs: np.ndarray, visible: np.ndarray) -> np.ndarray:
    return -np.sum(np.where(visible, probs * np.where(visible, log_probs, 0.0), 0.0), axis=-1)


def temperature_lens(q: object, k: object, *, multiplier: float = 1.0,
                     causal: bool = True) -> TemperatureResult:
    """Attention of ``q, k [H, T, d]`` at ``τ = multiplier·√d`` (multiplier 1: the layer's own).

    Take ``q, k`` from :func:`qk_from_trace` (after q/k-norm and RoPE, K repeated for GQA) or
    from :func:`random_qk`.
    """
    q_arr, k_arr = _check_qk(q, k)
    multiplier = positive("multiplier", multiplier)
    causal = check_flag(causal, "causal")
    t, d = q_arr.shape[1], q_arr.shape[2]
    tau = multiplier * np.sqrt(d)
    logits = _logits(q_arr, k_arr)  # [H, T, T]
    visible = ~ops.causal_mask(t) if causal else np.ones((t, t), dtype=bool)
    with np.errstate(all="ignore"):  # |s|/τ past 1e308 (a τ no slider reaches): checked below
        z = np.where(visible, logits / tau, -np.inf)  # [H, T, T]
        log_probs, probs = _boltzmann(z)
        entropy = _entropy(log_probs, probs, visible)
    n_visible = visible.sum(axis=1)  # [T]
    # slope of log p on s within rows: centre both per row over visible keys, then pool
    s_c = np.where(visible, logits - np.sum(np.where(visible, logits, 0.0), -1,
                                            keepdims=True) / n_visible[:, None], 0.0)
    lp_vis = np.where(visible, log_probs, 0.0)
    lp_c = np.where(visible, lp_vis - lp_vis.sum(-1, keepdims=True) / n_visible[:, None], 0.0)
    sxx = np.sum(s_c * s_c, axis=(1, 2))
    sxy = np.sum(s_c * lp_c, axis=(1, 2))
    with np.errstate(all="ignore"):
        slope = np.where(sxx > 0, sxy / np.where(sxx > 0, sxx, 1.0), np.nan)
    if not (np.isfinite(np.where(visible, log_probs, 0.0)).all() and np.isfinite(entropy).all()
            and np.isfinite(slope[sxx > 0]).all()):
        raise _too_cold(multiplier, logits, d)
    return TemperatureResult(
        multiplier=multiplier, tau=float(tau), causal=bool(causal), logits=frozen(logits),
        log_probs=frozen(log_probs), probs=frozen(probs), entropy=frozen(entropy),
        entropy_bound=frozen(np.log(n_visible.astype(np.float64))),
        max_weight=frozen(probs.max(axis=-1)), slope=frozen(slope))


def entropy_curve(q: object, k: object, multipliers: object, *, causal: bool = True,
                  rows: object = None) -> np.ndarray:
    """``[M, H, R]`` entropies at each multiplier, for an entropy-vs-τ plot.

    ``rows``: the query rows to compute (default every row, R = T). All rows cost M·T² ``exp``
    (121 multipliers at 2048 tokens: half a billion, and 4 GB per temporary); a plot of a long
    text draws some rows. Multipliers are done a block at a time, so memory stays ~64 MB; a
    row's entropies are the same numbers whichever rows are computed with it.
    """
    q_arr, k_arr = _check_qk(q, k)
    mult = real_array("multipliers", multipliers, 1)
    causal = check_flag(causal, "causal")
    if mult.size == 0 or not np.all(mult > 0):
        raise EngineError("multipliers")
    t, d = q_arr.shape[1], q_arr.shape[2]
    if rows is None:
        picked = np.arange(t)
    else:
        picked = np.asarray(rows)
        if (picked.ndim != 1 or picked.size == 0 or picked.dtype.kind not in "iu"
                or picked.min() < 0 or picked.max() >= t):
            raise EngineError("rows_range", last=t - 1)
    keys = np.arange(t)
    visible = (keys[None, :] <= picked[:, None]) if causal else np.ones((picked.size, t), bool)
    # every row's logits, then the rows asked for: a product of fewer rows may round
    # differently, and a row's entropies stay the numbers the full curve has
    logits = _logits(q_arr, k_arr)[:, picked]  # [H, R, T]
    taus = mult * np.sqrt(d)
    block = max(1, _CURVE_BLOCK_ENTRIES // logits.size)
    entropy = np.empty((mult.size, *logits.shape[:2]))
    with np.errstate(all="ignore"):  # checked below
        for m0 in range(0, mult.size, block):
            scale = taus[m0:m0 + block, None, None, None]
            z = np.where(visible, logits[None] / scale, -np.inf)  # [m, H, R, T]
            log_probs, probs = _boltzmann(z)
            entropy[m0:m0 + block] = _entropy(log_probs, probs, visible)
    if not np.isfinite(entropy).all():
        raise _too_cold(float(mult.min()), logits, d)
    return frozen(entropy)


#: Entries of one block of :func:`entropy_curve` (8 M float64: 64 MB per temporary).
_CURVE_BLOCK_ENTRIES = 1 << 23


def random_qk(n_heads: int = 4, n_tokens: int = 16, head_dim: int = 128,
              seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Seeded ``q, k [H, T, d]`` with unit-normal entries (the E18 setting)."""
    shape = (whole("n_heads", n_heads, 1), whole("n_tokens", n_tokens, 1),
             whole("head_dim", head_dim, 1))
    rng = np.random.default_rng(whole("seed", seed))
    return frozen(rng.standard_normal(shape)), frozen(rng.standard_normal(shape))


def qk_from_trace(trace: LayerTrace) -> tuple[np.ndarray, np.ndarray]:
    """The layer's own ``q, k [H, T, d]``: after q/k-norm and RoPE, K repeated per query head.

    Pass ``causal=trace.causal`` to :func:`temperature_lens` with them.
    """
    if not isinstance(trace, LayerTrace):
        raise EngineError("layer_trace_type", got=type(trace).__name__)
    d = trace.config.head_dim
    return trace["q_rope"], trace["kv_repeat"][..., :d]
