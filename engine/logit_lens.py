"""The logit lens: the last position's state after each layer, read out through the model's
final RMSNorm and LM head, in float64.

Every number is exact arithmetic on the model's own states (``run.residual``). Reading an
intermediate layer through the *final* norm and head is an interpretation: the head was trained
on the last layer's output only, so an early layer's "prediction" says what that state would
mean if the model stopped there, not what the layer computes for.

All states go through the head at once (one ``[states, hidden] @ head.T`` per block of head
rows, each block widened once): Qwen3-0.6B's head is 151936 x 1024, and 29 separate passes
would widen it 29 times.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine import ops
from engine.model import ModelRun, Qwen3Model
from engine.model_files import widen

#: Head rows widened to float64 at a time (engine.model's block size: 4 MB at hidden 1024).
_BLOCK_ROWS = 512


@dataclass(frozen=True)
class LogitLens:
    """The logit lens of one run at its last position.

    Row ``s`` is state ``s`` of ``run.residual``: 0 the embeddings, ``k + 1`` the output of
    layer ``k``; the last row is the model's own prediction.
    ``ids [S, top]`` / ``probs [S, top]``: the most probable next tokens, most probable first
    (softmax at temperature 1, float64); ``logits [S, vocab]``: the full readouts;
    ``final_id``: the model's own top token; ``final_prob [S]``: its probability at each state.
    """

    ids: np.ndarray
    probs: np.ndarray
    logits: np.ndarray
    final_id: int
    final_prob: np.ndarray

    @property
    def num_states(self) -> int:
        return int(self.ids.shape[0])


def head_rows(model: Qwen3Model, hidden: np.ndarray) -> np.ndarray:
    """``[n, vocab]`` LM-head logits of ``n`` normed ``hidden [n, D]`` rows, block by block."""
    head, dtype = model._head, model._head_dtype  # the model's own stored head (or embedding)
    if dtype == "F64":
        return hidden @ head.T
    vocab = head.shape[0]
    out = np.empty((hidden.shape[0], vocab))
    for start in range(0, vocab, _BLOCK_ROWS):
        block = widen(head[start:start + _BLOCK_ROWS], dtype)
        out[:, start:start + block.shape[0]] = hidden @ block.T
    return out


def softmax(logits: np.ndarray) -> np.ndarray:
    """Softmax over the last axis in float64 (max subtracted first: no overflow)."""
    shifted = logits - logits.max(axis=-1, keepdims=True)
    weights = np.exp(shifted)
    return weights / weights.sum(axis=-1, keepdims=True)


def top_tokens(probs: np.ndarray, top: int) -> np.ndarray:
    """Indices of the ``top`` largest entries of each row, largest first (ties: lower id)."""
    top = min(top, probs.shape[-1])
    # argpartition finds the top set in O(vocab); a stable sort of -p orders it with ties by id
    part = np.argpartition(-probs, top - 1, axis=-1)[..., :top]
    part.sort(axis=-1)
    order = np.argsort(-np.take_along_axis(probs, part, axis=-1), axis=-1, kind="stable")
    return np.take_along_axis(part, order, axis=-1)


def logit_lens(model: Qwen3Model, run: ModelRun, top: int = 5) -> LogitLens:
    """The logit lens of ``run`` (a forward of ``model``) at its last position: each state of
    ``run.residual`` through the final RMSNorm and the LM head."""
    if top < 1:
        raise ValueError(f"logit_lens: top must be at least 1, got {top}")
    states = np.ascontiguousarray(run.residual[:, -1])  # [L + 1, D]
    normed = ops.rms_norm(states, model.norm_weight, model.layer_config.rms_norm_eps)
    logits = head_rows(model, normed)
    probs = softmax(logits)
    ids = top_tokens(probs, top)
    final_id = int(np.argmax(run.logits))
    return LogitLens(ids=ids, probs=np.take_along_axis(probs, ids, axis=-1), logits=logits,
                     final_id=final_id, final_prob=probs[:, final_id])


__all__ = ["LogitLens", "head_rows", "logit_lens", "softmax", "top_tokens"]
