"""The small numeric pieces of a Qwen3 layer, each exactly as Hugging Face computes it.

Everything is float64. Stock HF runs RMSNorm, RoPE tables and softmax in float32; we keep
HF's math at full precision (docs/architecture.md).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np


def rms_norm(x: np.ndarray, weight: np.ndarray, eps: float,
             out: np.ndarray | None = None) -> np.ndarray:
    """``weight * x / sqrt(mean(x^2) + eps)`` over the last axis (eps inside the root).
    ``out``: a float64 array of ``x``'s shape to write into (not ``x`` itself), for a float64
    ``x`` and a weight of at most one axis or of ``x``'s last axes' shape (one row per head)."""
    if not (isinstance(x, np.ndarray) and x.dtype == np.float64
            and (np.ndim(weight) <= 1 or np.shape(weight) == x.shape[x.ndim - np.ndim(weight):])):
        if out is not None:
            raise ValueError("rms_norm writes into out only for a float64 array and a weight "
                             "of at most x's shape")
        variance = np.add.reduce(x * x, axis=-1, keepdims=True) / np.shape(x)[-1]  # np.mean's
        return weight * (x * (1.0 / np.sqrt(variance + eps)))
    # The same operations as above (x*x and the reduction as np.mean does them, bit for bit),
    # with one full-size buffer instead of three: the squares are reduced, then overwritten by
    # the result (a float64 array of x's shape, as above for a weight of at most one axis).
    # a*b == b*a exactly.
    out = np.multiply(x, x, out=out)
    variance = np.add.reduce(out, axis=-1, keepdims=True)
    variance /= x.shape[-1]
    variance += eps
    np.sqrt(variance, out=variance)
    np.divide(1.0, variance, out=variance)
    np.multiply(x, variance, out=out)
    return np.multiply(out, weight, out=out)


def layer_norm(x: np.ndarray, eps: float, weight: np.ndarray | float = 1.0,
               bias: np.ndarray | float = 0.0) -> np.ndarray:
    """Classic LayerNorm over the last axis (population variance, eps inside the root)."""
    mean = np.mean(x, axis=-1, keepdims=True)
    centred = x - mean
    variance = np.mean(centred * centred, axis=-1, keepdims=True)
    return weight * (centred / np.sqrt(variance + eps)) + bias


def rope_tables(positions: np.ndarray, head_dim: int,
                theta: float) -> tuple[np.ndarray, np.ndarray]:
    """``cos, sin`` of shape ``[T, head_dim]``: ``inv_freq[i] = theta^(-2i/d)``, tables
    ``concat(f, f)`` (HF's half-split convention)."""
    inv_freq = 1.0 / (theta ** (np.arange(0, head_dim, 2, dtype=np.int64).astype(np.float64)
                                / head_dim))
    freqs = np.outer(np.asarray(positions, dtype=np.float64), inv_freq)  # [T, d/2]
    emb = np.concatenate([freqs, freqs], axis=-1)  # [T, d]
    return np.cos(emb), np.sin(emb)


def rotate_half(x: np.ndarray) -> np.ndarray:
    """``concat(-x[d/2:], x[:d/2])`` on the last axis."""
    half = x.shape[-1] // 2
    return np.concatenate([-x[..., half:], x[..., :half]], axis=-1)


def apply_rope(x: np.ndarray, cos: np.ndarray, sin: np.ndarray,
               out: np.ndarray | None = None) -> np.ndarray:
    """Rotate ``x [..., T, d]`` by position: ``x*cos + rotate_half(x)*sin``, C-ordered (or into
    ``out``, an array of ``x``'s shape that is not ``x``).

    Computed half by half in place; ``a + (-b)`` is ``a - b`` exactly, so the numbers are those
    of the formula.
    """
    half = x.shape[-1] // 2
    out = np.multiply(x, cos, order="C", out=out)
    out[..., :half] -= x[..., half:] * sin[..., :half]
    out[..., half:] += x[..., :half] * sin[..., half:]
    return out


def signed_sin(sin: np.ndarray) -> np.ndarray:
    """``concat(-sin[:d/2], sin[d/2:])``: ``rotate_half(x) * sin`` is ``x[perm] * signed_sin(sin)``
    with ``perm`` the half swap (``x*(-s)`` is ``-(x*s)`` exactly)."""
    half = sin.shape[-1] // 2
    return np.concatenate([-sin[..., :half], sin[..., half:]], axis=-1)


@lru_cache(maxsize=8)
def _half_swap(d: int) -> np.ndarray:
    perm = np.concatenate([np.arange(d // 2, d), np.arange(d // 2)])
    perm.setflags(write=False)
    return perm


def apply_rope_signed(x: np.ndarray, cos: np.ndarray, sin_signed: np.ndarray,
                      out: np.ndarray | None = None) -> np.ndarray:
    """:func:`apply_rope` with ``sin_signed = signed_sin(sin)``: the same numbers, bit for bit
    (each entry is ``x·cos ± x'·sin`` rounded the same way), C-ordered (or into ``out``).

    Four array calls instead of five, for small ``head_dim`` where numpy's per-call overhead is
    the cost (the toy layer, swept ~1000 times by the continuous view); the gather it uses is
    slower than :func:`apply_rope`'s half slices for a large ``head_dim``.
    """
    out = np.take(x, _half_swap(x.shape[-1]), axis=-1, out=out)  # rotate_half(x) up to signs
    out *= sin_signed
    out += x * cos  # b + a is a + b exactly
    return out


def softmax(scores: np.ndarray) -> np.ndarray:
    """Row softmax over the last axis; ``-inf`` entries get exactly 0."""
    # the ufuncs' own reduce: what np.max / np.sum call, without their wrappers' overhead (the
    # continuous view's convergence sweep calls this about a thousand times on small arrays)
    weights = scores - np.maximum.reduce(scores, axis=-1, keepdims=True)
    if weights.dtype.kind != "f":
        weights = weights.astype(np.float64)
    np.exp(weights, out=weights)  # in place: every fresh big temporary costs page faults
    weights /= np.add.reduce(weights, axis=-1, keepdims=True)
    return weights


#: Query rows per block in :func:`causal_softmax`: big enough that numpy's per-call overhead
#: stays small, small enough that the masked triangle inside the diagonal blocks (≈ T·block/2
#: entries per head) is little work next to the T²/2 skipped.
_CAUSAL_BLOCK = 64


#: ``masked, probs`` of an earlier :func:`causal_softmax` of the same shape (see
#: :func:`causal_softmax_rows`).
Known = tuple[np.ndarray, np.ndarray]


def causal_softmax(scores: np.ndarray, known: Known | None = None,
                   ) -> tuple[np.ndarray, np.ndarray]:
    """``masked, probs`` for ``scores [..., T, T]``: ``where(causal_mask(T), -inf, scores)`` and
    its row ``softmax``, bit for bit as those two functions compute them (see
    :func:`causal_softmax_rows`, which this runs on blocks of query rows, with ``known``)."""
    t = scores.shape[-1]
    if t <= _CAUSAL_BLOCK:
        masked = np.where(frozen_causal_mask(t), -np.inf, scores)
        return masked, softmax(masked)
    masked = np.empty_like(scores, dtype=np.float64)
    probs = np.empty_like(masked)
    for r0 in range(0, t, _CAUSAL_BLOCK):
        rows = slice(r0, r0 + _CAUSAL_BLOCK)
        causal_softmax_rows(scores[..., rows, :], r0, masked[..., rows, :], probs[..., rows, :],
                            None if known is None else (known[0][..., rows, :],
                                                        known[1][..., rows, :]))
    return masked, probs


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two float64 arrays of one shape hold the same bits (−0.0 is not 0.0)."""
    return bool(np.array_equal(a.view(np.int64), b.view(np.int64)))


def causal_softmax_rows(scores: np.ndarray, first: int, masked: np.ndarray,
                        probs: np.ndarray, known: Known | None = None) -> None:
    """Query rows ``first .. first + b - 1`` of :func:`causal_softmax`: ``scores [..., b, T]``
    in, ``masked`` and ``probs [..., b, T]`` written.

    These rows see keys up to the last of them only, so ``exp`` (the costly part: libm, one
    element at a time) runs on that triangle-and-a-bit; the masked entries right of it are
    exactly ``-inf`` and ``0`` as ``exp(-inf)`` would give. Row maxima are exact whatever the
    order; each row sum runs over the whole row as :func:`softmax` sums it, so the
    probabilities are the same bits.

    ``known``: these rows' ``masked, probs [..., b, T]`` from an earlier call of this function
    on rows of the same length (T). A row's probabilities are a function of its masked row
    alone, so when every masked row has the bits it had then, the earlier probabilities are
    the ones this computes and are copied instead (an edit of token k leaves every row before
    k so: the exp of those rows is most of a long input's layer).
    """
    b, t = scores.shape[-2:]
    end = first + b  # keys [0, end) are seen by some row of the block
    seen, weights = masked[..., :end], probs[..., :end]
    np.copyto(seen, scores[..., :end])
    np.copyto(seen[..., first:], -np.inf, where=frozen_causal_mask(b))  # the diagonal square
    if end < t:
        masked[..., end:] = -np.inf
        probs[..., end:] = 0.0
    if (known is not None and known[0].shape == masked.shape and known[1].shape == probs.shape
            and known[0].dtype == known[1].dtype == np.float64
            and same_bits(seen, known[0][..., :end])):
        np.copyto(weights, known[1][..., :end])
        return
    np.subtract(seen, np.maximum.reduce(seen, axis=-1, keepdims=True), out=weights)
    np.exp(weights, out=weights)
    probs /= np.add.reduce(probs, axis=-1, keepdims=True)


def softmax_rows(scores: np.ndarray, probs: np.ndarray) -> None:
    """:func:`softmax` of ``scores`` written into ``probs`` (same shape), the same bits."""
    np.subtract(scores, np.maximum.reduce(scores, axis=-1, keepdims=True), out=probs)
    np.exp(probs, out=probs)
    probs /= np.add.reduce(probs, axis=-1, keepdims=True)


def silu(x: np.ndarray) -> np.ndarray:
    """``x * sigmoid(x)``, written as ``x / (1 + exp(-x))`` like torch."""
    with np.errstate(over="ignore"):  # exp(-x) -> inf for very negative x gives the right 0
        if np.ndim(x) == 0:
            return x / (1.0 + np.exp(-x))
        return silu_array(x)


def silu_array(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """:func:`silu` of an array, for callers that already hold ``np.errstate(over="ignore")``
    (the layer's forward does): entering an errstate costs more than the SiLU of a toy row.
    ``out``: a float array of ``x``'s shape to write into (not ``x`` itself)."""
    denominator = np.negative(x, dtype=np.result_type(x, 1.0), out=out)
    np.exp(denominator, out=denominator)  # in place, as in softmax
    denominator += 1.0
    return np.divide(x, denominator, out=denominator)


def causal_mask(t: int) -> np.ndarray:
    """``[T, T]`` booleans, True where key j is in the future of query i (j > i)."""
    return np.triu(np.ones((t, t), dtype=bool), k=1)


@lru_cache(maxsize=16)
def frozen_causal_mask(t: int) -> np.ndarray:
    """:func:`causal_mask`, read-only and kept per length: every keystroke needs the same one."""
    mask = causal_mask(t)
    mask.setflags(write=False)
    return mask
