"""Attention in blocks of query rows: the T x T steps computed while a block is in cache.

Rows of attention are independent, so :func:`attend` runs them in blocks (``_block_rows``):
each block's scores, mask, softmax and context are computed while the block is in the cache,
every BLAS call stays on one thread, and a big input's blocks are shared over the engine's
threads (``engine.parallel``). A block's rows are the same numbers whichever thread computes
them; softmax rows an earlier trace already holds are copied instead (``known``, see
``engine.reuse``).
"""

from __future__ import annotations

import numpy as np

from engine import ops, parallel
from engine.config import Qwen3Config

#: OpenBLAS runs a matrix product on one thread when M·N·K <= 65536 · 4 (its
#: GEMM_MULTITHREAD_THRESHOLD). Attention's per-head products lie a little above that (Qwen3-0.6B
#: at T = 64: 1M), where a second thread gains little and, on a busy machine, each product waits
#: for it: on two cores with other work running, 16 such calls took ~10 ms instead of ~1.5 ms.
_ONE_THREAD_MNK = 65536 * 4

#: Bytes of one block of query rows' ``[H, rows, T]`` scores, masked and probabilities together:
#: about what a core's L2 cache holds, so a block is scaled, masked, normalised and multiplied
#: by V while it is still there (the T x T steps dominate a long toy input).
_ATTENTION_BLOCK_BYTES = 1 << 20


def _block_rows(t: int, head_dim: int, n_heads: int, *, blas_threaded: bool = True) -> int:
    """Query rows per block of :func:`attend`: fits the cache and, while BLAS may use several
    threads (``blas_threaded``), keeps each product on one. Never depends on batch axes, so a
    batch computes what single calls do. BLAS may round a row's products differently in a
    block of another height (~1e-16), so code that must give ``run_layer``'s bits calls
    :func:`attend` under the same conditions (``engine.lenses.attention_facts``)."""
    in_cache = _ATTENTION_BLOCK_BYTES // (3 * 8 * n_heads * t)
    if not blas_threaded:  # inside a thread's share: fewer, bigger blocks, fewer numpy calls
        return max(1, min(t, in_cache))
    one_thread = _ONE_THREAD_MNK // (t * head_dim)
    return max(1, min(t, one_thread, in_cache))


def _view_as(array: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``array`` reshaped without a copy (a copy would not be written back to the caller)."""
    if not array.flags.c_contiguous:
        raise ValueError("attend writes only into C-ordered arrays")
    return array.reshape(shape)


def attend(query_states: np.ndarray, key_states: np.ndarray, value_states: np.ndarray,
           config: Qwen3Config, causal: bool,
           out: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
           known: ops.Known | None = None,
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``scores, masked, probs [..., H, T, T]`` and ``context [..., T, H*d]``.

    ``query_states [..., H, T, d]`` (C-ordered), ``key_states``/``value_states [..., Hkv, T, d]``
    (every head of the layer, or whole kv-head groups of them). GQA: query head ``h = kv·G + g``
    reads kv head ``kv`` (a broadcast, no copy). Rows of
    attention are independent, so it runs in blocks of query rows (``_block_rows``): each
    block's scores, mask, softmax and context are computed while the block is in cache, and
    every BLAS call stays on one thread (see ``_block_rows`` on what the blocking changes).
    ``masked`` is ``scores`` itself when ``causal`` is false (the caller copies it if it keeps
    both). ``out``: C-ordered ``scores, masked, probs`` arrays to write into (``masked`` is
    left alone when ``causal`` is false). ``known``: ``masked, probs [..., H, T, T]`` of an
    earlier causal call on as many tokens (C-ordered): the probabilities of query rows whose
    masked rows kept their bits are copied from it (:func:`ops.causal_softmax_rows`). Callers
    hold ``np.errstate`` if the scores may overflow.
    """
    lead = query_states.shape[:-3]
    # the heads given (all of the layer's, or one thread's kv-head groups: attention_sublayer)
    n_heads, n_kv, d = query_states.shape[-3], key_states.shape[-3], config.head_dim
    t, scale = query_states.shape[-2], d**-0.5
    by_group = (*lead, n_kv, n_heads // n_kv)  # the head axis as (kv head, head in group)
    query = query_states.reshape(*by_group, t, d)
    keys = key_states.swapaxes(-1, -2)[..., None, :, :]  # [..., Hkv, 1, d, T]
    values = value_states[..., None, :, :]  # [..., Hkv, 1, T, d]
    step = _block_rows(t, d, n_heads, blas_threaded=not parallel.in_share())
    if known is not None and (not causal or any(
            array.shape != (*lead, n_heads, t, t) or not array.flags.c_contiguous
            for array in known)):
        known = None  # (not of this call's shape: nothing to reuse)
    if known is not None:
        known = (known[0].reshape(*by_group, t, t), known[1].reshape(*by_group, t, t))
    if step >= t and out is None:  # one block: numpy allocates, the fewest calls (toy input)
        scores = np.matmul(query, keys)
        scores *= scale  # in place: the same numbers as (q kᵀ)·scale
        if causal:
            masked, probs = ops.causal_softmax(scores, known)
        else:
            masked, probs = scores, ops.softmax(scores)
        context = np.matmul(probs, values)
    else:
        if out is None:
            scores = np.empty((*by_group, t, t))
            masked = np.empty_like(scores) if causal else scores
            probs = np.empty_like(scores)
        else:
            scores, masked, probs = (_view_as(array, (*by_group, t, t)) for array in out)
            if not causal:
                masked = scores
        context = np.empty((*by_group, t, d))
        def blocks(first: int, stride: int) -> None:
            for r0 in range(first * step, t, stride * step):
                rows = slice(r0, r0 + step)
                block = scores[..., rows, :]
                np.matmul(query[..., rows, :], keys, out=block)
                block *= scale
                if causal:
                    ops.causal_softmax_rows(block, r0, masked[..., rows, :], probs[..., rows, :],
                                            None if known is None else (
                                                known[0][..., rows, :], known[1][..., rows, :]))
                else:
                    ops.softmax_rows(block, probs[..., rows, :])
                np.matmul(probs[..., rows, :], values, out=context[..., rows, :])

        # a big [H, T, d] input is shared out: the threads take blocks in turn (a block is the
        # same numbers whichever thread computes it)
        threads = 1
        if not lead and 2 * query.size * t >= parallel.MIN_WORK:  # q kᵀ and P V: 2·H·T·T·d
            threads = min(parallel.workers(), -(-t // step))
        parallel.run([lambda i=i: blocks(i, threads) for i in range(threads)])
    heads = (*lead, n_heads, t)
    context = context.reshape(*heads, d).swapaxes(-3, -2)  # [..., T, H, d]
    return (scores.reshape(*heads, t), masked.reshape(*heads, t), probs.reshape(*heads, t),
            context.reshape(*lead, t, n_heads * d))
