"""One Qwen3 decoder layer: input checks, the readable forward, and ``run_layer``.

:func:`forward` is the layer as Hugging Face's ``Qwen3DecoderLayer`` (``modeling_qwen3.py``)
reads, under HF's names, returning every intermediate as a named step (docs/steps.md).
:func:`run_layer` computes the same steps with the fast path (``engine.fastpath``: thread
sharing, row blocking, softmax reuse and overflow bounds) and returns them as a
:class:`LayerTrace`. Tests hold the two to the same bits (``tests/test_readable_forward.py``).
"""

from __future__ import annotations

import numpy as np

from engine import ops
from engine._checks import as_array, check_config
from engine.config import MAX_TOKENS, Qwen3Config
from engine.errors import EngineError
from engine.fastpath import fast_forward
from engine.intervention import Intervention, check_intervention
from engine.reuse import reusable
from engine.steps import (  # noqa: F401  (re-exported: engine.layer was their home)
    FORMULA_ZH,
    MASK_OFF_FORMULA,
    MASK_OFF_MEANING,
    STEP_INFO,
    STEP_NAMES,
    Kind,
    LayerTrace,
    Step,
    StepInfo,
)
from engine.weights import LayerWeights


def check_input(x: object, config: Qwen3Config) -> np.ndarray:
    """Return ``x`` as a float64 ``[T, hidden]`` array or raise a message a person can act on."""
    config = check_config(config)
    array = as_array(x, "input")
    if array.dtype.kind not in "fiu" or array.dtype == np.bool_:
        raise EngineError("dtype_not_real", name="input", dtype=array.dtype)
    if array.ndim != 2:
        raise EngineError("input_shape", shape=array.shape)
    t, d = array.shape
    if t == 0:
        raise EngineError("no_tokens")
    if t > MAX_TOKENS:
        raise EngineError("token_cap", count=t, limit=MAX_TOKENS)
    if d != config.hidden_size:
        raise EngineError("hidden_mismatch", d=d, hidden_size=config.hidden_size)
    array = np.array(array, dtype=np.float64, order="C")  # our own copy: we freeze it later
    if not np.isfinite(array).all():
        raise EngineError("nan_inf", name="input")
    return array


def check_flag(value: object, name: str) -> bool:
    """A real bool (numpy's too): ``causal=None`` or ``"yes"`` would run and be stored as given,
    so a later comparison of traces would read it differently from how the layer ran."""
    if not isinstance(value, (bool, np.bool_)):
        raise EngineError("flag_type", name=name, value=value)
    return bool(value)


def check_weights(weights: object, config: Qwen3Config) -> LayerWeights:
    """``weights`` if they are LayerWeights made for ``config``, else a message saying so."""
    check_config(config)
    if not isinstance(weights, LayerWeights):
        raise EngineError("weights_type", got=type(weights).__name__)
    if weights.config != config:
        raise EngineError("weights_config", made_for=weights.config, config=config)
    return weights


def run_layer(x: object, weights: LayerWeights, config: Qwen3Config, *,
              causal: bool = True, reuse: LayerTrace | None = None,
              intervention: Intervention | None = None) -> LayerTrace:
    """Run one decoder layer on ``x [T, hidden]`` and record all 22 steps.

    ``causal=False`` gives full (encoder) attention; the ``causal_mask`` step is then a copy of
    the scores. ``intervention``: heads, neurons or a branch switched off
    (``engine.Intervention``; None or an empty one is the plain layer, bit for bit).

    ``reuse``: an earlier trace (say the previous keystroke's). With the mask on, as many
    tokens and the same intervention, attention rows whose masked scores kept every bit take
    their probabilities from it instead of computing the softmax again (``engine.reuse``).
    The result is the same bits either way.
    """
    hidden_states = check_input(x, config)
    check_weights(weights, config)
    causal = check_flag(causal, "causal")
    iv = check_intervention(intervention, config)
    known = reusable(reuse, causal, hidden_states.shape[0], iv)
    with np.errstate(all="ignore"):  # overflow is reported once, in words (engine.bounds)
        arrays = fast_forward(hidden_states, weights, config, causal, known, iv)
    steps = []
    for info, array in zip(STEP_INFO, arrays, strict=True):
        array.setflags(write=False)
        steps.append(Step(info, array, causal))
    return LayerTrace(config=config, causal=causal, steps=tuple(steps), intervention=iv)


# --------------------------------------------------------------------------------------------
# The readable forward: HF's Qwen3DecoderLayer.forward, step by step, with nothing for speed.


def apply_rotary_pos_emb(q: np.ndarray, k: np.ndarray, cos: np.ndarray,
                         sin: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """RoPE: turn each half-split pair of features by its position's angle (HF's function)."""
    return q * cos + ops.rotate_half(q) * sin, k * cos + ops.rotate_half(k) * sin


def repeat_kv(hidden_states: np.ndarray, n_rep: int) -> np.ndarray:
    """``[Hkv, T, d]`` -> ``[Hkv·n_rep, T, d]``: query head h reads kv head h // n_rep (GQA)."""
    return np.repeat(hidden_states, n_rep, axis=0)


def forward(x: object, weights: LayerWeights, config: Qwen3Config, *, causal: bool = True,
            intervention: Intervention | None = None) -> dict[str, np.ndarray]:
    """The layer on ``x [T, hidden]`` as HF writes it; every step by name (``STEP_NAMES``).

    The same numbers as :func:`run_layer` (see the module); overflow is not checked here.
    """
    hidden_states = check_input(x, config)
    w = check_weights(weights, config)
    causal = check_flag(causal, "causal")
    iv = check_intervention(intervention, config) or Intervention()
    t, eps = hidden_states.shape[0], config.rms_norm_eps
    n_heads, n_kv, d = config.num_attention_heads, config.num_key_value_heads, config.head_dim
    act_fn = ops.silu

    def linear(inputs: np.ndarray, name: str) -> np.ndarray:  # nn.Linear without bias
        return inputs @ w[name].T

    step = {"embed": hidden_states}
    with np.errstate(all="ignore"):
        # --- self-attention block ---
        residual = hidden_states
        hidden_states = step["input_layernorm"] = ops.rms_norm(
            hidden_states, w["input_layernorm.weight"], eps)
        q = step["q_proj"] = linear(hidden_states, "self_attn.q_proj.weight")
        k = step["k_proj"] = linear(hidden_states, "self_attn.k_proj.weight")
        v = step["v_proj"] = linear(hidden_states, "self_attn.v_proj.weight")
        q = step["q_norm"] = ops.rms_norm(q.reshape(t, n_heads, d), w["self_attn.q_norm.weight"],
                                          eps)
        k = step["k_norm"] = ops.rms_norm(k.reshape(t, n_kv, d), w["self_attn.k_norm.weight"],
                                          eps)
        query_states, key_states = q.transpose(1, 0, 2), k.transpose(1, 0, 2)  # [heads, T, d]
        value_states = v.reshape(t, n_kv, d).transpose(1, 0, 2)
        cos, sin = ops.rope_tables(np.arange(t), d, config.rope_theta)
        query_states, key_states = apply_rotary_pos_emb(query_states, key_states, cos, sin)
        step["q_rope"], step["k_rope"] = query_states, key_states
        key_states = repeat_kv(key_states, config.group_size)
        value_states = repeat_kv(value_states, config.group_size)
        step["kv_repeat"] = np.concatenate([key_states, value_states], axis=-1)
        # eager_attention_forward
        attn_weights = step["attn_scores"] = (query_states @ key_states.swapaxes(-1, -2)
                                              * d**-0.5)
        attn_weights = step["causal_mask"] = (
            np.where(ops.causal_mask(t), -np.inf, attn_weights) if causal
            else attn_weights.copy())
        attn_weights = step["attn_probs"] = ops.softmax(attn_weights)
        attn_output = (attn_weights @ value_states).transpose(1, 0, 2)  # [T, H, d]
        for head in iv.zero_heads:  # interventions act on a head's output before o_proj
            attn_output[:, head] = 0.0
        for head, factor in iv.scales:
            attn_output[:, head] = 0.0 if factor == 0 else attn_output[:, head] * factor
        attn_output = step["attn_context"] = attn_output.reshape(t, n_heads * d)
        attn_output = step["o_proj"] = linear(attn_output, "self_attn.o_proj.weight")
        hidden_states = step["resid_attn"] = (
            residual.copy() if iv.skips("attention") else residual + attn_output)
        # --- MLP block ---
        residual = hidden_states
        hidden_states = step["post_attention_layernorm"] = ops.rms_norm(
            hidden_states, w["post_attention_layernorm.weight"], eps)
        gate = step["gate_proj"] = linear(hidden_states, "mlp.gate_proj.weight")
        up = step["up_proj"] = linear(hidden_states, "mlp.up_proj.weight")
        gate = step["silu_gate"] = act_fn(gate)
        gated = step["gated"] = gate * up
        gated[:, list(iv.zero_neurons)] = 0.0
        down = step["down_proj"] = linear(gated, "mlp.down_proj.weight")
        step["resid_mlp"] = residual.copy() if iv.skips("mlp") else residual + down
    return {name: np.ascontiguousarray(step[name]) for name in STEP_NAMES}
