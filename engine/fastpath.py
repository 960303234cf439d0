"""The fast forward: the same layer as ``engine.layer.forward``, organised for speed.

It computes what the readable forward computes, in the same order of operations per entry,
but with the machinery that makes a keystroke cheap:

- one matrix product for q/k/v and one for gate/up (row-stacked weights; each entry is the
  dot product a separate product would take);
- a big input shared over threads by whole GQA head groups and whole MLP columns
  (``engine.parallel``), meeting once per sub-step to add the o_proj / down_proj shares;
- attention in blocks of query rows (``engine.blocking``), with softmax rows reused from an
  earlier trace (``engine.reuse``);
- overflow checked with proven bounds instead of reading every step (``engine.bounds``).

Bits: everything is the readable forward's bits, except o_proj and down_proj when a big input
is shared over threads: a sum of per-thread shares of the inner axis rounds differently from one
product (~1e-16 relative; rows never mix, so the causal statements hold bit for bit).
``run_layer`` and the continuous view's branches (``engine.continuous``) both call
:func:`attention_sublayer` and :func:`mlp_sublayer`, so they agree bit for bit by construction;
the attention lens (``engine.lenses.attention_facts``) re-runs the same pieces with positions
and RoPE of its own.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np

from engine import ops, parallel
from engine.blocking import attend
from engine.bounds import Recorder
from engine.config import Qwen3Config
from engine.errors import Phrase
from engine.intervention import Intervention
from engine.weights import LayerWeights

RopeTables = tuple[np.ndarray, np.ndarray, np.ndarray]


@lru_cache(maxsize=16)
def _rope_tables(t: int, head_dim: int, theta: float) -> RopeTables:
    """``cos, sin, signed_sin(sin)`` for positions 0..t-1, kept read-only for the next keystroke
    (``ops.rope_tables``)."""
    cos, sin = ops.rope_tables(np.arange(t), head_dim, theta)
    tables = (cos, sin, ops.signed_sin(sin))
    for table in tables:
        table.setflags(write=False)
    return tables


#: Up to this head_dim RoPE gathers the rotated half (``ops.apply_rope_signed``: fewer calls,
#: which is what a toy-sized head costs); above it, ``ops.apply_rope``'s half slices are faster.
#: Both give the same bits.
_GATHER_ROPE_MAX_DIM = 16


def rope(x: np.ndarray, tables: RopeTables, out: np.ndarray | None = None) -> np.ndarray:
    """``x [..., T, d]`` rotated by position with ``tables = _rope_tables(T, d, theta)``,
    C-ordered (or into ``out``): ``ops.apply_rope``'s numbers."""
    cos, sin, sin_signed = tables
    if x.shape[-1] <= _GATHER_ROPE_MAX_DIM:
        return ops.apply_rope_signed(x, cos, sin_signed, out=out)
    return ops.apply_rope(x, cos, sin, out=out)


# --------------------------------------------------------------------------------------------
# The pieces of the forward. Each takes arrays with any leading batch axes ``[..., T, ...]``.


def project_qkv(normed: np.ndarray, weights: LayerWeights,
                config: Qwen3Config) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``q_proj [..., T, H*d], k_proj, v_proj [..., T, Hkv*d]`` of ``normed [..., T, D]``.

    One matrix product with the row-stacked ``[W_q; W_k; W_v]``; the three are column views of
    its result (each entry is the same dot product a separate product would take, summed in an
    order BLAS picks by the product's shape: OpenBLAS's AVX-512 kernels may round a narrow
    k_proj taken alone differently, ~1e-16). A big ``[T, D]`` input is instead shared out by
    columns over threads (``engine.parallel``).
    """
    q_width = config.num_attention_heads * config.head_dim
    kv_width = config.num_key_value_heads * config.head_dim
    parts = parallel.shares(normed, q_width + 2 * kv_width)
    if parts > 1:  # big: each thread its share of the columns, three C-ordered results
        query, key, value = parallel.linear_many(normed, [
            weights[f"self_attn.{name}_proj.weight"] for name in "qkv"], parts)
        return query, key, value
    qkv = normed @ weights.stacked("qkv").T  # [..., T, (H + 2 Hkv) d]
    return (qkv[..., :q_width], qkv[..., q_width:q_width + kv_width],
            qkv[..., q_width + kv_width:])



def mlp_hidden(normed: np.ndarray, weights: LayerWeights,
               config: Qwen3Config) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``gate, up, SiLU(gate), SiLU(gate) ⊙ up``, each ``[..., T, F]``, of ``normed``, in the
    calling thread: one matrix product with the row-stacked ``[W_gate; W_up]`` (column views of
    its result). Callers hold ``np.errstate(over="ignore")`` (or ``all``)."""
    width = config.intermediate_size
    gate_up = normed @ weights.stacked("gate_up").T  # [..., T, 2F]
    gate, up = gate_up[..., :width], gate_up[..., width:]
    gate_act = ops.silu_array(gate)  # callers hold np.errstate: exp(-x) may overflow to inf
    return gate, up, gate_act, gate_act * up


class AttentionParts(NamedTuple):
    """What :func:`attention_sublayer` computes, in the layer's step shapes."""

    query_proj: np.ndarray  # [..., T, H*d]
    key_proj: np.ndarray  # [..., T, Hkv*d]
    value_proj: np.ndarray  # [..., T, Hkv*d]
    query_normed: np.ndarray  # [..., T, H, d]
    key_normed: np.ndarray  # [..., T, Hkv, d]
    query_states: np.ndarray  # [..., H, T, d], RoPE applied
    key_states: np.ndarray  # [..., Hkv, T, d], RoPE applied
    value_states: np.ndarray  # [..., Hkv, T, d]
    kv_repeat: np.ndarray | None  # [H, T, 2d] (K left, V right), when asked for
    scores: np.ndarray  # [..., H, T, T]
    masked: np.ndarray  # [..., H, T, T]: its own array, a copy of scores without the mask
    probs: np.ndarray  # [..., H, T, T]
    context: np.ndarray  # [..., T, H*d]
    output: np.ndarray  # [..., T, D]: o_proj


class MlpParts(NamedTuple):
    """What :func:`mlp_sublayer` computes, each ``[..., T, F]`` but ``output [..., T, D]``."""

    gate: np.ndarray
    up: np.ndarray
    gate_act: np.ndarray
    gated: np.ndarray
    output: np.ndarray  # down_proj


def kv_groups(normed: np.ndarray, config: Qwen3Config) -> list[slice]:
    """The kv-head ranges :func:`attention_sublayer` shares out over threads, one per thread
    (one range: not shared). Depends on the input's shape and the thread count only."""
    n_kv = config.num_key_value_heads
    columns = (config.num_attention_heads + 2 * n_kv) * config.head_dim
    parts = parallel.shares(normed, columns)
    return [slice(0, n_kv)] if parts == 1 else parallel.even_slices(n_kv, min(parts, n_kv))


def project_group(normed: np.ndarray, weights: LayerWeights, config: Qwen3Config, kv: slice,
                  out: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
    """The q/k/v_proj columns of the kv heads ``kv`` (and of the query heads reading them) of
    ``normed [T, D]``, written into ``out = (q_proj [T, H*d], k_proj, v_proj [T, Hkv*d])``: the
    products one thread's share of :func:`attention_sublayer` takes. BLAS may sum a product's
    inner axis in an order that depends on the product's shape, so code that must give the
    shared-out layer's bits (``engine.lenses.attention_facts``) takes these same products."""
    d = config.head_dim
    cols, kv_cols = _head_columns(kv, config), slice(kv.start * d, kv.stop * d)
    for name, columns, result in zip("qkv", (cols, kv_cols, kv_cols), out, strict=True):
        np.matmul(normed, weights[f"self_attn.{name}_proj.weight"][columns].T,
                  out=result[:, columns])


def _head_columns(kv: slice, config: Qwen3Config) -> slice:
    """The columns of q_proj (and of the context, and of o_proj's inner axis) that belong to
    the query heads reading the kv heads ``kv``."""
    width = config.group_size * config.head_dim
    return slice(kv.start * width, kv.stop * width)


def _sum_in_order(parts: list[np.ndarray]) -> np.ndarray:
    """``((p0 + p1) + p2) + …`` of two or more parts: the same bits whichever thread made
    each part."""
    total = parts[0] + parts[1]
    for part in parts[2:]:
        total += part
    return total


def project_heads_out(context: np.ndarray, weight: np.ndarray, groups: list[slice],
                      config: Qwen3Config) -> np.ndarray:
    """o_proj, ``context [T, H*d] @ weight.T``, summed over the head groups ``groups`` (from
    :func:`kv_groups`) as :func:`attention_sublayer` sums it: one product per group over its
    heads' columns, each in a thread's share as there (BLAS on one thread, the same bits),
    added in order. One group: one product."""
    if len(groups) == 1:
        return parallel.linear(context, weight)
    columns = [_head_columns(kv, config) for kv in groups]
    parts: list[np.ndarray] = [context] * len(columns)

    def share(i: int) -> None:
        parts[i] = context[:, columns[i]] @ weight[:, columns[i]].T

    parallel.run([lambda i=i: share(i) for i in range(len(columns))])
    return _sum_in_order(parts)


def scale_heads(context: np.ndarray, factors: np.ndarray | None, head_dim: int,
                heads: slice = slice(None)) -> None:
    """Multiply each head's columns of ``context [..., T, n·d]`` (the heads ``heads`` of the
    layer) by its factor in place: 0 writes zeros, 1 leaves the columns alone (an
    ``Intervention``'s ``head_factors``; None: nothing)."""
    if factors is None:
        return
    for i, factor in enumerate(factors[heads]):
        columns = context[..., i * head_dim:(i + 1) * head_dim]
        if factor == 0.0:
            columns[...] = 0.0
        elif factor != 1.0:
            columns *= factor


def zero_neurons(gated: np.ndarray, neurons: np.ndarray | None, first: int = 0) -> None:
    """Zero the columns ``neurons`` of ``gated [..., T, F]`` (whose first column is the layer's
    column ``first``) in place; None: nothing."""
    if neurons is not None:
        own = neurons[(neurons >= first) & (neurons < first + gated.shape[-1])]
        gated[..., own - first] = 0.0


def attention_sublayer(normed: np.ndarray, weights: LayerWeights, config: Qwen3Config,
                       causal: bool, *, kv_repeat: bool = False,
                       known: ops.Known | None = None,
                       heads: np.ndarray | None = None) -> AttentionParts:
    """The attention branch of ``normed [..., T, D]`` (RMSNorm₁'s output), every intermediate.

    A big ``[T, D]`` input is shared out by kv heads (:func:`kv_groups`): each thread takes whole
    GQA groups — their columns of q/k/v_proj, their q/k-norm, RoPE and attention, and their
    heads' share of o_proj — so the threads meet once, to add the o_proj shares. Every entry up
    to the context is the same bits as in one thread (a dot product over the same inner axis, a
    row's own norm and softmax); o_proj is the sum of the groups' products, which differs from
    one product over all heads only in rounding (~1e-16), and rows never mix, so the causal
    statements hold bit for bit. ``known``: see :func:`attend` (``[H, T, T]`` each).
    ``heads``: each head's factor before o_proj (:func:`scale_heads`). Callers hold
    ``np.errstate(all="ignore")``.
    """
    groups = kv_groups(normed, config)
    if len(groups) == 1:
        return _attention_whole(normed, weights, config, causal, kv_repeat, known, heads)
    t = normed.shape[0]
    n_heads, n_kv, d = config.num_attention_heads, config.num_key_value_heads, config.head_dim
    eps, group, factors = config.rms_norm_eps, config.group_size, heads
    tables = _rope_tables(t, d, config.rope_theta)
    w_o = weights["self_attn.o_proj.weight"]
    w_qn, w_kn = weights["self_attn.q_norm.weight"], weights["self_attn.k_norm.weight"]
    query_proj, key_proj, value_proj = (np.empty((t, n * d)) for n in (n_heads, n_kv, n_kv))
    query_normed, key_normed = np.empty((t, n_heads, d)), np.empty((t, n_kv, d))
    query_states, key_states = np.empty((n_heads, t, d)), np.empty((n_kv, t, d))
    repeat = np.empty((n_heads, t, 2 * d)) if kv_repeat else None
    scores, masked, probs = (np.empty((n_heads, t, t)) for _ in range(3))
    context = np.empty((t, n_heads * d))
    shares: list[np.ndarray] = [context] * len(groups)  # each thread's o_proj share

    def share(i: int) -> None:
        kv = groups[i]
        heads, cols = slice(kv.start * group, kv.stop * group), _head_columns(kv, config)
        kv_cols = slice(kv.start * d, kv.stop * d)
        project_group(normed, weights, config, kv, (query_proj, key_proj, value_proj))
        # written where the steps keep them (no result to copy over)
        ops.rms_norm(query_proj[:, cols].reshape(t, -1, d), w_qn, eps, out=query_normed[:, heads])
        ops.rms_norm(key_proj[:, kv_cols].reshape(t, -1, d), w_kn, eps, out=key_normed[:, kv])
        rope(query_normed[:, heads].transpose(1, 0, 2), tables, out=query_states[heads])
        rope(key_normed[:, kv].transpose(1, 0, 2), tables, out=key_states[kv])
        values = value_proj[:, kv_cols].reshape(t, -1, d).transpose(1, 0, 2)  # [kv, T, d]
        if repeat is not None:
            _fill_kv_repeat(repeat[heads], key_states[kv], values)
        context[:, cols] = attend(query_states[heads], key_states[kv], values, config, causal,
                                  out=(scores[heads], masked[heads], probs[heads]),
                                  known=None if known is None else (known[0][heads],
                                                                    known[1][heads]))[3]
        if not causal:
            masked[heads] = scores[heads]
        scale_heads(context[:, cols], factors, d, heads)
        shares[i] = context[:, cols] @ w_o[:, cols].T

    parallel.run([lambda i=i: share(i) for i in range(len(groups))])
    value_states = value_proj.reshape(t, n_kv, d).transpose(1, 0, 2)
    return AttentionParts(query_proj, key_proj, value_proj, query_normed, key_normed,
                          query_states, key_states, value_states, repeat, scores, masked, probs,
                          context, _sum_in_order(shares))


def _fill_kv_repeat(out: np.ndarray, key_states: np.ndarray, value_states: np.ndarray) -> None:
    """``out [Hkv·G, T, 2d]``: query head h's kv head's K (left) and V (right), for display."""
    n_kv, t, d = key_states.shape
    by_group = out.reshape(n_kv, -1, t, 2 * d)  # a view: [Hkv, G, T, 2d]
    by_group[..., :d] = key_states[:, None]
    by_group[..., d:] = value_states[:, None]


def _attention_whole(normed: np.ndarray, weights: LayerWeights, config: Qwen3Config,
                     causal: bool, kv_repeat: bool, known: ops.Known | None = None,
                     heads: np.ndarray | None = None) -> AttentionParts:
    """:func:`attention_sublayer` with no head groups: any batch axes, the big products still
    shared out by columns (``project_qkv``, ``attend``, ``parallel.linear``)."""
    lead, t = normed.shape[:-2], normed.shape[-2]
    n_heads, n_kv, d = config.num_attention_heads, config.num_key_value_heads, config.head_dim
    eps = config.rms_norm_eps
    query_proj, key_proj, value_proj = project_qkv(normed, weights, config)
    tables = _rope_tables(t, d, config.rope_theta)
    qkv = query_proj.base  # project_qkv's one product when it ran unshared (a small input)
    if qkv is not None and qkv is key_proj.base:
        # q and k are neighbouring columns of it: their heads side by side [..., T, H + Hkv, d]
        # take q/k-norm and RoPE in one call each, the same numbers per head as a call each
        # (a toy layer's time is mostly numpy's per-call overhead)
        both = qkv[..., :(n_heads + n_kv) * d].reshape(*lead, t, n_heads + n_kv, d)
        normed_both = ops.rms_norm(both, weights.head_norms(), eps)
        rotated = rope(normed_both.swapaxes(-3, -2), tables)  # [..., H + Hkv, T, d]
        query_normed, key_normed = normed_both[..., :n_heads, :], normed_both[..., n_heads:, :]
        query_states, key_states = rotated[..., :n_heads, :, :], rotated[..., n_heads:, :, :]
    else:
        query_normed = ops.rms_norm(query_proj.reshape(*lead, t, n_heads, d),
                                    weights["self_attn.q_norm.weight"], eps)  # [..., T, H, d]
        key_normed = ops.rms_norm(key_proj.reshape(*lead, t, n_kv, d),
                                  weights["self_attn.k_norm.weight"], eps)  # [..., T, Hkv, d]
        query_states = rope(query_normed.swapaxes(-3, -2), tables)  # [..., H, T, d]
        key_states = rope(key_normed.swapaxes(-3, -2), tables)  # [..., Hkv, T, d]
    value_states = value_proj.reshape(*lead, t, n_kv, d).swapaxes(-3, -2)  # [..., Hkv, T, d]
    repeat = None
    if kv_repeat:
        repeat = np.empty((n_heads, t, 2 * d))
        _fill_kv_repeat(repeat, key_states, value_states)
    scores, masked, probs, context = attend(query_states, key_states, value_states, config,
                                            causal, known=known)
    if not causal:
        masked = scores.copy()  # its own step, equal to the scores
    scale_heads(context, heads, d)
    output = parallel.linear(context, weights["self_attn.o_proj.weight"])  # [..., T, D]
    return AttentionParts(query_proj, key_proj, value_proj, query_normed, key_normed,
                          query_states, key_states, value_states, repeat, scores, masked, probs,
                          context, output)


def mlp_sublayer(normed: np.ndarray, weights: LayerWeights, config: Qwen3Config,
                 neurons: np.ndarray | None = None) -> MlpParts:
    """The MLP branch of ``normed [..., T, D]`` (RMSNorm₂'s output), every intermediate.

    A big ``[T, D]`` input is shared out by the MLP's columns: each thread takes its columns of
    gate and up, their SiLU and gating, and their share of down_proj's inner axis, so the
    threads meet once, to add the down_proj shares (rounding as in o_proj: see
    :func:`attention_sublayer`). ``neurons``: columns of the gated product to zero before
    down_proj (:func:`zero_neurons`). Callers hold ``np.errstate(over="ignore")`` (or ``all``).
    """
    width = config.intermediate_size
    w_down = weights["mlp.down_proj.weight"]
    parts = parallel.shares(normed, 2 * width)
    if parts == 1:
        gate, up, gate_act, gated = mlp_hidden(normed, weights, config)
        zero_neurons(gated, neurons)
        return MlpParts(gate, up, gate_act, gated, parallel.linear(gated, w_down))
    w_gate, w_up = weights["mlp.gate_proj.weight"], weights["mlp.up_proj.weight"]
    gate, up, gate_act, gated = (np.empty((normed.shape[0], width)) for _ in range(4))
    columns = parallel.even_slices(width, parts)
    shares: list[np.ndarray] = [gate] * len(columns)

    def share(i: int) -> None:
        cols = columns[i]
        # SiLU (libm's exp, one element at a time) runs faster on a contiguous block than on
        # the strided columns of the step; copying it in after costs less than that saves
        own_gate = normed @ w_gate[cols].T
        own_act = ops.silu_array(own_gate)
        gate[:, cols], gate_act[:, cols] = own_gate, own_act
        np.matmul(normed, w_up[cols].T, out=up[:, cols])
        np.multiply(own_act, up[:, cols], out=gated[:, cols])
        zero_neurons(gated[:, cols], neurons, cols.start)
        shares[i] = gated[:, cols] @ w_down[:, cols].T

    parallel.run([lambda i=i: share(i) for i in range(len(columns))])
    return MlpParts(gate, up, gate_act, gated, _sum_in_order(shares))




#: What each RMSNorm divides by the root mean square of, for the message at ε = 0 (made once:
#: the forward runs per keystroke, and most of a toy layer's time is small calls like these).
_ROW_OF_EMBED, _HEAD_OF_Q, _HEAD_OF_K, _ROW_OF_RESID = (Phrase(text) for text in (
    "a row of embed", "a head's slice of q_proj", "a head's slice of k_proj",
    "a row of resid_attn"))


def fast_forward(hidden_states: np.ndarray, w: LayerWeights, config: Qwen3Config,
                 causal: bool, known: ops.Known | None = None,
                 intervention: Intervention | None = None) -> list[np.ndarray]:
    """``engine.layer.forward``'s 23 arrays in step order, computed fast (see the module).

    Each sub-step (attention, MLP) is computed whole, then its steps are recorded in order and
    checked for overflow (``engine.bounds.Recorder``), so the error names the first step that
    overflowed, and the MLP is not computed after an overflow in attention. Callers hold
    ``np.errstate(all="ignore")``.
    """
    t, d_model = hidden_states.shape
    n_heads, n_kv, d = config.num_attention_heads, config.num_key_value_heads, config.head_dim
    eps = config.rms_norm_eps
    iv = intervention
    rec = Recorder(w, eps)
    record, bound, norm_bound, product_bound = rec.record, rec.bound, rec.norm, rec.product

    record(hidden_states)
    # --- attention sub-step: h = x + A(RMSNorm1(x)) ---
    normed = ops.rms_norm(hidden_states, w["input_layernorm.weight"], eps)  # [T, D]
    record(normed, norm_bound("input_layernorm.weight", d_model),
           norm_of=_ROW_OF_EMBED, norm_input=hidden_states)
    factors = None if iv is None else iv.head_factors(n_heads)
    attn = attention_sublayer(normed, w, config, causal, kv_repeat=True, known=known,
                              heads=factors)
    for proj, weight in ((attn.query_proj, "self_attn.q_proj.weight"),
                         (attn.key_proj, "self_attn.k_proj.weight"),
                         (attn.value_proj, "self_attn.v_proj.weight")):
        record(proj, product_bound("input_layernorm", weight, d_model))
    record(attn.query_normed, norm_bound("self_attn.q_norm.weight", d),
           norm_of=_HEAD_OF_Q, norm_input=rec.steps[2].reshape(t, n_heads, d))
    record(attn.key_normed, norm_bound("self_attn.k_norm.weight", d),
           norm_of=_HEAD_OF_K, norm_input=rec.steps[3].reshape(t, n_kv, d))
    record(attn.query_states, 2 * bound["q_norm"])  # x·cos ± x'·sin
    record(attn.key_states, 2 * bound["k_norm"])
    record(attn.kv_repeat)  # GQA, for display: query head h reads kv head h // G
    record(attn.scores, d * bound["q_rope"] * bound["k_rope"] * d**-0.5)
    record(attn.masked)
    record(attn.probs)
    # each row a convex combination of V's rows (times a head's factor, if any)
    record(attn.context, bound["v_proj"] * head_gain(iv, n_heads))
    record(attn.output, product_bound("attn_context", "self_attn.o_proj.weight", n_heads * d))
    if iv is not None and iv.skips("attention"):
        residual_attn = hidden_states.copy()  # the branch adds nothing (x + 0 is not x for -0.0)
    else:
        residual_attn = hidden_states + attn.output  # [T, D]
    record(residual_attn, bound["embed"] + bound["o_proj"])

    # --- MLP sub-step: out = h + M(RMSNorm2(h)) ---
    normed2 = ops.rms_norm(residual_attn, w["post_attention_layernorm.weight"], eps)  # [T, D]
    record(normed2, norm_bound("post_attention_layernorm.weight", d_model),
           norm_of=_ROW_OF_RESID, norm_input=residual_attn)
    mlp = mlp_sublayer(normed2, w, config, None if iv is None else iv.neurons())
    record(mlp.gate, product_bound("post_attention_layernorm", "mlp.gate_proj.weight", d_model))
    record(mlp.up, product_bound("post_attention_layernorm", "mlp.up_proj.weight", d_model))
    record(mlp.gate_act)
    record(mlp.gated, bound["gate_proj"] * bound["up_proj"])  # |SiLU(g)| <= |g|
    record(mlp.output, product_bound("gated", "mlp.down_proj.weight", config.intermediate_size))
    if iv is not None and iv.skips("mlp"):
        output = residual_attn.copy()
    else:
        output = residual_attn + mlp.output  # [T, D]
    record(output, bound["resid_attn"] + bound["down_proj"])
    return rec.steps


def head_gain(intervention: Intervention | None, n_heads: int) -> float:
    """The largest |factor| ``intervention`` puts on a head's output, at least 1 (the overflow
    bound of attn_context is V's times this)."""
    factors = None if intervention is None else intervention.head_factors(n_heads)
    return 1.0 if factors is None else max(1.0, float(np.max(np.abs(factors))))


def layer_output(hidden_states: np.ndarray, w: LayerWeights, config: Qwen3Config,
                 intervention: Intervention | None = None, *,
                 out: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The causal layer's output on ``hidden_states [T, D]`` written into ``out [T, D]``, and
    its keys (after q/k-norm and RoPE) and values ``[Hkv, T, d]`` (views into the layer's
    buffers): what :func:`fast_forward` computes, by the same calls in the same order (so the
    same bits), without recording the steps — no copies made for display, no kv_repeat, no
    overflow reads. For a layer whose trace nobody keeps (the whole model's other layers),
    and only where ``engine.bounds.proven_layer`` shows that ``fast_forward`` would not read
    a step either. Callers hold ``np.errstate(all="ignore")``.
    """
    iv, eps = intervention, config.rms_norm_eps
    normed = ops.rms_norm(hidden_states, w["input_layernorm.weight"], eps)
    factors = None if iv is None else iv.head_factors(config.num_attention_heads)
    attn = attention_sublayer(normed, w, config, True, heads=factors)
    if iv is not None and iv.skips("attention"):
        residual_attn = hidden_states.copy()
    else:
        residual_attn = hidden_states + attn.output
    normed2 = ops.rms_norm(residual_attn, w["post_attention_layernorm.weight"], eps)
    mlp = mlp_sublayer(normed2, w, config, None if iv is None else iv.neurons())
    if iv is not None and iv.skips("mlp"):
        out[...] = residual_attn
    else:
        np.add(residual_attn, mlp.output, out=out)
    return attn.key_states, attn.value_states
