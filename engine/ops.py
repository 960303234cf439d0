"""The small numeric pieces of a Qwen3 layer, each exactly as Hugging Face computes it.

Everything is float64. Stock HF runs RMSNorm, RoPE tables and softmax in float32; we keep
HF's math at full precision (see DESIGN.md).
"""

from __future__ import annotations

import numpy as np


def rms_norm(x: np.ndarray, weight: np.ndarray, eps: float) -> np.ndarray:
    """``weight * x / sqrt(mean(x^2) + eps)`` over the last axis (eps inside the root)."""
    variance = np.add.reduce(x * x, axis=-1, keepdims=True) / x.shape[-1]  # np.mean, bit for bit
    return weight * (x * (1.0 / np.sqrt(variance + eps)))


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


def apply_rope(x: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    """Rotate ``x [..., T, d]`` by position: ``x*cos + rotate_half(x)*sin``, C-ordered.

    Computed half by half in place; ``a + (-b)`` is ``a - b`` exactly, so the numbers are those
    of the formula.
    """
    half = x.shape[-1] // 2
    out = np.multiply(x, cos, order="C")
    out[..., :half] -= x[..., half:] * sin[..., :half]
    out[..., half:] += x[..., :half] * sin[..., half:]
    return out


def softmax(scores: np.ndarray) -> np.ndarray:
    """Row softmax over the last axis; ``-inf`` entries get exactly 0."""
    weights = scores - np.max(scores, axis=-1, keepdims=True)
    if weights.dtype.kind != "f":
        weights = weights.astype(np.float64)
    np.exp(weights, out=weights)  # in place: every fresh big temporary costs page faults
    weights /= np.sum(weights, axis=-1, keepdims=True)
    return weights


def silu(x: np.ndarray) -> np.ndarray:
    """``x * sigmoid(x)``, written as ``x / (1 + exp(-x))`` like torch."""
    with np.errstate(over="ignore"):  # exp(-x) -> inf for very negative x gives the right 0
        if np.ndim(x) == 0:
            return x / (1.0 + np.exp(-x))
        denominator = np.negative(x, dtype=np.result_type(x, 1.0))
        np.exp(denominator, out=denominator)  # in place, as in softmax
        denominator += 1.0
        return np.divide(x, denominator, out=denominator)


def causal_mask(t: int) -> np.ndarray:
    """``[T, T]`` booleans, True where key j is in the future of query i (j > i)."""
    return np.triu(np.ones((t, t), dtype=bool), k=1)
