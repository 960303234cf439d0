"""Exact facts about Qwen3's attention that hold for any weights (E19, E22, E23, E24).

- E19: each output coordinate is a convex combination of that column of V over the keys a row
  may see, so it lies between their min and max.
- E22: q/k-norm bounds every logit: ``|q·k|/√d ≤ √d·max|γ_q|·max|γ_k|`` (RMSNorm gives
  ‖x̂‖ ≤ √d before γ, RoPE is a rotation, then Cauchy–Schwarz).
- E23: the multi-head output is the sum of per-head contributions ``head_h W_O,h``.
- E24: without mask and RoPE attention is permutation-equivariant; with RoPE the logits depend
  only on relative position. :func:`qwen3_attention` re-runs steps 1–14 of the layer with RoPE
  and the mask switchable and positions shifted, which ``engine.run_layer`` does not offer.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine import ops, parallel
from engine.blocking import attend
from engine.config import Qwen3Config
from engine.errors import EngineError
from engine.fastpath import kv_groups, project_group, project_heads_out, project_qkv
from engine.layer import LayerTrace, check_flag, check_input, check_weights
from engine.lenses._arrays import frozen, real_array, whole
from engine.weights import LayerWeights


@dataclass(frozen=True)
class AttentionTrace:
    """Steps 1–14 of the layer, under switchable mask and RoPE and shifted positions.

    ``query_states``, ``key_states``, ``value_states`` are ``[H, T, d]`` (after q/k-norm and,
    if on, RoPE; K and V repeated for GQA); ``scores [H, T, T]`` are ``q kᵀ/√d`` before the
    mask; ``context [T, H·d]``; ``output [T, hidden]`` is o_proj.
    """

    causal: bool
    rope: bool
    positions: np.ndarray
    query_states: np.ndarray
    key_states: np.ndarray
    value_states: np.ndarray
    scores: np.ndarray
    probs: np.ndarray
    context: np.ndarray
    output: np.ndarray


@dataclass(frozen=True)
class AttentionFacts:
    """E19, E22 and E23 measured on one ``run_layer`` trace.

    ``head_contributions [H, T, hidden]`` sum to o_proj up to ``head_sum_error``.
    ``value_lo``, ``value_hi``, ``context [H, T, d]``: the min/max of V over the keys each row
    sees, and the output; ``convex_excess`` is how far any output coordinate lies outside
    (≤ 0 means strictly inside; a few ulps of max|V| is rounding). ``max_abs_logit`` against
    ``logit_bound`` for E22.
    """

    head_contributions: np.ndarray
    head_sum_error: float
    context: np.ndarray
    value_lo: np.ndarray
    value_hi: np.ndarray
    convex_excess: float
    max_abs_logit: float
    logit_bound: float


#: Positions offset … offset + T − 1 stay exact float64 integers (below 2**53) for any T.
_MAX_OFFSET = 2**52


def qwen3_attention(x: object, weights: LayerWeights, config: Qwen3Config, *,
                    causal: bool = True, rope: bool = True,
                    position_offset: int = 0) -> AttentionTrace:
    """The layer's attention on ``x [T, hidden]`` with positions ``offset … offset + T − 1``.

    With ``rope=True, position_offset=0`` it is the same arithmetic as ``run_layer`` (bitwise
    equal ``o_proj``).
    """
    hidden_states = check_input(x, config)
    if not isinstance(weights, LayerWeights) or weights.config != config:
        raise EngineError("weights_for_config")
    if isinstance(position_offset, bool) or not isinstance(position_offset, (int, np.integer)):
        raise EngineError("whole_number", name="position_offset", value=position_offset)
    if abs(int(position_offset)) > _MAX_OFFSET:
        raise EngineError("offset_range", value=position_offset)
    causal, rope = check_flag(causal, "causal"), check_flag(rope, "rope")
    w = weights
    t = hidden_states.shape[0]
    n_heads, n_kv, d = config.num_attention_heads, config.num_key_value_heads, config.head_dim
    eps = config.rms_norm_eps
    positions = np.arange(t) + int(position_offset)

    normed = ops.rms_norm(hidden_states, w["input_layernorm.weight"], eps)  # [T, D]
    groups = kv_groups(normed, config)
    if len(groups) == 1:
        query_proj, key_proj, value_proj = project_qkv(normed, w, config)  # as run_layer does
    else:  # the products of run_layer's thread shares, BLAS on one thread as there (BLAS may
        # round a product of another shape, or one it splits over its own threads, otherwise)
        projections = tuple(np.empty((t, n * d)) for n in (n_heads, n_kv, n_kv))
        parallel.run([lambda kv=kv: project_group(normed, w, config, kv, projections)
                      for kv in groups])
        query_proj, key_proj, value_proj = projections
    query_normed = ops.rms_norm(query_proj.reshape(t, n_heads, d),
                                w["self_attn.q_norm.weight"], eps)  # [T, H, d]
    key_normed = ops.rms_norm(key_proj.reshape(t, n_kv, d),
                              w["self_attn.k_norm.weight"], eps)  # [T, Hkv, d]
    query_states = query_normed.transpose(1, 0, 2)  # [H, T, d]
    key_states = key_normed.transpose(1, 0, 2)  # [Hkv, T, d]
    if rope:
        cos, sin = ops.rope_tables(positions, d, config.rope_theta)  # [T, d]
        query_states = ops.apply_rope(query_states, cos, sin)
        key_states = ops.apply_rope(key_states, cos, sin)
    value_states = value_proj.reshape(t, n_kv, d).transpose(1, 0, 2)  # [Hkv, T, d]
    scores, probs, context = _attend_by_group(query_states, key_states, value_states,
                                              groups, config, causal)
    key_rep = np.repeat(key_states, config.group_size, axis=0)  # [H, T, d], for display
    value_rep = np.repeat(value_states, config.group_size, axis=0)  # [H, T, d]
    output = project_heads_out(context, w["self_attn.o_proj.weight"], groups,
                               config)  # [T, D], summed over head groups as run_layer sums it
    return AttentionTrace(
        causal=bool(causal), rope=bool(rope), positions=frozen(positions),
        query_states=frozen(query_states), key_states=frozen(key_rep),
        value_states=frozen(value_rep), scores=frozen(scores), probs=frozen(probs),
        context=frozen(context), output=frozen(output))


def _attend_by_group(query_states: np.ndarray, key_states: np.ndarray,
                     value_states: np.ndarray, groups: list[slice], config: Qwen3Config,
                     causal: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``scores, probs [H, T, T]`` and ``context [T, H*d]`` computed as ``run_layer`` computes
    them: ``attend`` on each kv-head group (``kv_groups``), in threads when there are several,
    so each group's products are blocked the same way and give the same bits."""
    parts: list[tuple[np.ndarray, ...]] = [()] * len(groups)
    group = config.group_size

    def share(i: int) -> None:
        kv = groups[i]
        heads = slice(kv.start * group, kv.stop * group)
        parts[i] = attend(query_states[heads], key_states[kv], value_states[kv], config, causal)

    parallel.run([lambda i=i: share(i) for i in range(len(groups))])
    if len(parts) == 1:
        scores, _, probs, context = parts[0]
        return scores, probs, context
    return (np.concatenate([p[0] for p in parts]), np.concatenate([p[2] for p in parts]),
            np.concatenate([p[3] for p in parts], axis=1))


def head_contributions(context: object, o_proj_weight: object, n_heads: int) -> np.ndarray:
    """``[H, T, hidden]``: ``head_h W_O,h``, head h's slice of the context times its columns of
    ``o_proj.weight [hidden, H·d]`` (HF layout). Their sum over h is o_proj (E23)."""
    c = real_array("context", context, 2)
    w_o = real_array("o_proj_weight", o_proj_weight, 2)
    n_heads = whole("n_heads", n_heads, 1)
    t, width = c.shape
    if width % n_heads or w_o.shape[1] != width:
        raise EngineError("heads_split", width=width, shape=w_o.shape, n_heads=n_heads)
    d = width // n_heads
    heads = c.reshape(t, n_heads, d).transpose(1, 0, 2)  # [H, T, d]
    w_heads = w_o.reshape(-1, n_heads, d).transpose(1, 2, 0)  # [H, d, hidden]
    return frozen(heads @ w_heads)


def visible_value_range(values: object, causal: bool) -> tuple[np.ndarray, np.ndarray]:
    """``lo, hi [H, T, d]``: min and max of each column of ``values [H, T, d]`` over the keys
    row i may see (j ≤ i when causal, all keys otherwise)."""
    v = real_array("values", values, 3)
    if 0 in v.shape:
        raise EngineError("values_shape", shape=v.shape)
    if check_flag(causal, "causal"):
        lo = np.minimum.accumulate(v, axis=1)
        hi = np.maximum.accumulate(v, axis=1)
    else:
        lo = np.broadcast_to(v.min(axis=1, keepdims=True), v.shape)
        hi = np.broadcast_to(v.max(axis=1, keepdims=True), v.shape)
    return frozen(lo), frozen(hi)


def logit_bound(weights: LayerWeights, config: Qwen3Config) -> float:
    """``√d·max|γ_q|·max|γ_k|``: no scaled logit ``q·k/√d`` can exceed it in size (E22)."""
    check_weights(weights, config)
    return float(np.sqrt(config.head_dim)
                 * np.max(np.abs(weights["self_attn.q_norm.weight"]))
                 * np.max(np.abs(weights["self_attn.k_norm.weight"])))


def attention_facts(trace: LayerTrace, weights: LayerWeights) -> AttentionFacts:
    """E19, E22, E23 on a ``run_layer`` trace, ready for a panel."""
    if not isinstance(trace, LayerTrace):
        raise EngineError("layer_trace_type", got=type(trace).__name__)
    config = trace.config
    # weights of another shape with the same o_proj would pass head_contributions and show
    # E23 "violated": they must be made for the trace's config, as run_layer checks
    check_weights(weights, config)
    h, d = config.num_attention_heads, config.head_dim
    contributions = head_contributions(trace["attn_context"],
                                       weights["self_attn.o_proj.weight"], h)
    values = trace["kv_repeat"][..., d:]  # [H, T, d]
    lo, hi = visible_value_range(values, trace.causal)
    context = trace["attn_context"].reshape(trace.num_tokens, h, d).transpose(1, 0, 2)
    excess = np.maximum(context - hi, lo - context)
    return AttentionFacts(
        head_contributions=contributions,
        head_sum_error=float(np.max(np.abs(contributions.sum(axis=0) - trace["o_proj"]))),
        context=frozen(context), value_lo=lo, value_hi=hi,
        convex_excess=float(excess.max()),
        max_abs_logit=float(np.max(np.abs(trace["attn_scores"]))),
        logit_bound=logit_bound(weights, config))
