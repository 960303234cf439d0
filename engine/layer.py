"""One Qwen3 decoder layer as 22 named matrix steps (plus step 0, the input).

The forward mirrors ``Qwen3DecoderLayer`` in transformers' ``modeling_qwen3.py`` and records
every intermediate under the names of ``DESIGN.md``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np

from engine import ops
from engine.config import MAX_TOKENS, Qwen3Config
from engine.errors import EngineError
from engine.weights import LayerWeights

Kind = Literal["signed", "probability"]


@dataclass(frozen=True)
class StepInfo:
    """What a step is, independent of any input."""

    index: int
    name: str
    axes: tuple[str, ...]
    formula: str
    meaning: str
    meaning_zh: str
    kind: Kind = "signed"

    @property
    def token_axis(self) -> int:
        """The axis that runs over (query) tokens: rows of the heatmap, the causal axis."""
        return self.axes.index("query token") if "query token" in self.axes else self.axes.index(_T)


_T, _F = "token", "feature"
_HEAD_T_F = ("head", _T, _F)
_HEAD_QK = ("head", "query token", "key token")

STEP_INFO: tuple[StepInfo, ...] = (
    StepInfo(0, "embed", (_T, _F), "X = E[token ids]",
             "Each token becomes a row vector: the input state u(t = 0).",
             "每个词元变成一行向量：输入状态 u(t = 0)。"),
    StepInfo(1, "input_layernorm", (_T, _F), "X̂ = X / rms(X) · γ₁",
             "Each row is scaled to root-mean-square 1, then weighted by γ₁.",
             "每一行缩放到均方根为 1，再乘以权重 γ₁。"),
    StepInfo(2, "q_proj", (_T, _F), "Q = X̂ W_qᵀ",
             "Queries: what each token is looking for, for every head.",
             "查询 Q：每个词元在每个头里要找什么。"),
    StepInfo(3, "k_proj", (_T, _F), "K = X̂ W_kᵀ",
             "Keys: what each token offers to be found by (fewer heads under GQA).",
             "键 K：每个词元用来被查找的标签（GQA 下头数更少）。"),
    StepInfo(4, "v_proj", (_T, _F), "V = X̂ W_vᵀ",
             "Values: the content a token hands over when it is read.",
             "值 V：词元被读取时交出的内容。"),
    StepInfo(5, "q_norm", (_T, "head", _F), "q ← RMSNorm_d(q) · γ_q  (per head)",
             "Each query head vector is RMS-normalised, which bounds the attention logits.",
             "每个查询头向量做 RMSNorm，使注意力分数有界。"),
    StepInfo(6, "k_norm", (_T, "head", _F), "k ← RMSNorm_d(k) · γ_k  (per head)",
             "The same normalisation for every key head; values are never normalised.",
             "对每个键头做同样的归一化；V 从不归一化。"),
    StepInfo(7, "q_rope", _HEAD_T_F, "q ← q·cos(pθ) + rotate_half(q)·sin(pθ)",
             "RoPE turns pairs of query features by an angle that grows with position.",
             "RoPE 按位置把查询特征成对旋转一个角度。"),
    StepInfo(8, "k_rope", _HEAD_T_F, "k ← k·cos(pθ) + rotate_half(k)·sin(pθ)",
             "Keys rotated the same way, so q·k depends only on the distance between tokens.",
             "键按同样方式旋转，于是 q·k 只依赖两个词元的相对距离。"),
    StepInfo(9, "kv_repeat", ("head", _T, "feature (K | V)"),
             "K_h, V_h = K, V of kv head ⌊h / G⌋",
             "Grouped-query attention: query heads share a key/value head (K left, V right).",
             "分组查询注意力：每个查询头共享一个键/值头（左 K，右 V）。"),
    StepInfo(10, "attn_scores", _HEAD_QK, "S = q kᵀ / √d",
             "Raw similarity of every query with every key, before the mask.",
             "每个查询与每个键的原始相似度，尚未掩码。"),
    StepInfo(11, "causal_mask", _HEAD_QK, "S_ij = −∞ for j > i",
             "A token may not read the future: those scores are set to −∞.",
             "词元不能读取未来：这些分数被设为 −∞。"),
    StepInfo(12, "attn_probs", _HEAD_QK, "P = softmax_row(S)",
             "Each row becomes weights that are ≥ 0 and sum to 1.",
             "每一行变成非负且和为 1 的权重。", "probability"),
    StepInfo(13, "attn_context", (_T, _F), "C = P V  (heads concatenated)",
             "Each token takes a weighted average of the values it may see.",
             "每个词元对它能看到的值做加权平均。"),
    StepInfo(14, "o_proj", (_T, _F), "A = C W_oᵀ",
             "The heads' results are mixed back into the model width.",
             "把各头的结果混合回模型宽度。"),
    StepInfo(15, "resid_attn", (_T, _F), "h = X + A",
             "First residual: an explicit Euler step u(½) = u(0) + A.",
             "第一次残差：一次显式欧拉步 u(½) = u(0) + A。"),
    StepInfo(16, "post_attention_layernorm", (_T, _F), "ĥ = h / rms(h) · γ₂",
             "RMSNorm again, before the feed-forward network.",
             "进入前馈网络前再做一次 RMSNorm。"),
    StepInfo(17, "gate_proj", (_T, _F), "G = ĥ W_gᵀ",
             "The gate branch of the SwiGLU MLP.",
             "SwiGLU 前馈网络的门控分支。"),
    StepInfo(18, "up_proj", (_T, _F), "U = ĥ W_uᵀ",
             "The up branch: a wider copy of each token's features.",
             "上投影分支：每个词元特征的更宽表示。"),
    StepInfo(19, "silu_gate", (_T, _F), "σ(G) = G · sigmoid(G)",
             "SiLU opens or closes each gate smoothly (it is not monotone).",
             "SiLU 平滑地打开或关闭每个门（它不是单调的）。"),
    StepInfo(20, "gated", (_T, _F), "Z = SiLU(G) ⊙ U",
             "The gate multiplies the up branch feature by feature.",
             "门控与上投影逐元素相乘。"),
    StepInfo(21, "down_proj", (_T, _F), "M = Z W_dᵀ",
             "Back down to the model width: the MLP's contribution for each token alone.",
             "投影回模型宽度：前馈网络对每个词元单独的贡献。"),
    StepInfo(22, "resid_mlp", (_T, _F), "out = h + M",
             "Second residual, the layer output: u(1) = u(½) + M.",
             "第二次残差，即本层输出：u(1) = u(½) + M。"),
)

_OVERFLOW = 1e150
STEP_NAMES: tuple[str, ...] = tuple(info.name for info in STEP_INFO)
_INFO_BY_NAME = {info.name: info for info in STEP_INFO}


@dataclass(frozen=True)
class Step:
    """One recorded step: its description and its read-only array."""

    info: StepInfo
    array: np.ndarray

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def index(self) -> int:
        return self.info.index

    @property
    def axes(self) -> tuple[str, ...]:
        return self.info.axes

    @property
    def formula(self) -> str:
        return self.info.formula

    @property
    def meaning(self) -> str:
        return self.info.meaning

    @property
    def meaning_zh(self) -> str:
        return self.info.meaning_zh

    @property
    def kind(self) -> Kind:
        return self.info.kind


@dataclass(frozen=True)
class LayerTrace:
    """Every step of one forward pass, in order. ``trace[name]`` is that step's array."""

    config: Qwen3Config
    causal: bool
    steps: tuple[Step, ...]

    def __getitem__(self, name: str) -> np.ndarray:
        return self.steps[_INFO_BY_NAME[name].index].array

    def __iter__(self) -> Iterator[Step]:
        return iter(self.steps)

    def __len__(self) -> int:
        return len(self.steps)

    def step(self, name: str) -> Step:
        return self.steps[_INFO_BY_NAME[name].index]

    @property
    def output(self) -> np.ndarray:
        return self.steps[-1].array

    @property
    def num_tokens(self) -> int:
        return self.steps[0].array.shape[0]


def check_input(x: object, config: Qwen3Config) -> np.ndarray:
    """Return ``x`` as a float64 ``[T, hidden]`` array or raise a message a person can act on."""
    array = np.asarray(x)
    if array.dtype.kind not in "fiu" or array.dtype == np.bool_:
        raise EngineError(f"input must be real numbers, got dtype {array.dtype}")
    if array.ndim != 2:
        raise EngineError(f"input must be [tokens, hidden_size], got shape {array.shape}")
    t, d = array.shape
    if t == 0:
        raise EngineError("no tokens: type at least one word or character")
    if t > MAX_TOKENS:
        raise EngineError(f"{t} tokens is more than the {MAX_TOKENS} the engine takes; "
                          "shorten the text")
    if d != config.hidden_size:
        raise EngineError(f"input has {d} features but the layer's hidden_size is "
                          f"{config.hidden_size}")
    array = np.array(array, dtype=np.float64, order="C")  # our own copy: we freeze it later
    if not np.isfinite(array).all():
        raise EngineError("input contains NaN or Inf")
    return array


def _check_weights(weights: LayerWeights, config: Qwen3Config) -> None:
    if not isinstance(weights, LayerWeights):
        raise EngineError(f"weights must be LayerWeights, got {type(weights).__name__}")
    if weights.config != config:
        raise EngineError(f"weights were made for {weights.config}, not {config}")


def run_layer(x: object, weights: LayerWeights, config: Qwen3Config, *,
              causal: bool = True) -> LayerTrace:
    """Run one decoder layer on ``x [T, hidden]`` and record all 22 steps.

    ``causal=False`` gives full (encoder) attention; the ``causal_mask`` step is then a copy of
    the scores.
    """
    hidden_states = check_input(x, config)
    _check_weights(weights, config)
    with np.errstate(all="ignore"):  # overflow is reported once, below, in words
        arrays = _forward(hidden_states, weights, config, causal)
    for info, array in zip(STEP_INFO, arrays, strict=True):
        # causal_mask holds -inf by design. Elsewhere a value past 1e150 would overflow when an
        # RMSNorm squares it and quietly give 0, so it counts as overflow too (NaN fails as well).
        # The sum of squares (one BLAS pass) is below 1e300 unless some value is past 1e150 or
        # NaN/Inf; only then is the exact test run. max and -min: no abs() copy, NaN propagates.
        if (info.name != "causal_mask" and not np.vdot(array, array) < _OVERFLOW**2
                and not (array.max() < _OVERFLOW and -array.min() < _OVERFLOW)):
            raise EngineError(f"the layer overflowed at step {info.index} ({info.name}); "
                              "use smaller inputs or weights")
    steps = []
    for info, array in zip(STEP_INFO, arrays, strict=True):
        array = np.ascontiguousarray(array)  # display code wants C order; views stay internal
        array.setflags(write=False)
        steps.append(Step(info, array))
    return LayerTrace(config=config, causal=causal, steps=tuple(steps))


@lru_cache(maxsize=16)
def _rope_tables(t: int, head_dim: int, theta: float) -> tuple[np.ndarray, np.ndarray]:
    """``ops.rope_tables`` for positions 0..t-1, kept read-only for the next keystroke."""
    cos, sin = ops.rope_tables(np.arange(t), head_dim, theta)
    cos.setflags(write=False)
    sin.setflags(write=False)
    return cos, sin


@lru_cache(maxsize=16)
def _causal_mask(t: int) -> np.ndarray:
    mask = ops.causal_mask(t)
    mask.setflags(write=False)
    return mask


def _forward(hidden_states: np.ndarray, w: LayerWeights, config: Qwen3Config,
             causal: bool) -> list[np.ndarray]:
    """The forward itself, one line per tensor, returning the 23 arrays in step order."""
    t = hidden_states.shape[0]
    n_heads, n_kv, d = config.num_attention_heads, config.num_key_value_heads, config.head_dim
    eps = config.rms_norm_eps

    # --- attention sub-step: h = x + A(RMSNorm1(x)) ---
    normed = ops.rms_norm(hidden_states, w["input_layernorm.weight"], eps)  # [T, D]
    query_proj = normed @ w["self_attn.q_proj.weight"].T  # [T, H*d]
    key_proj = normed @ w["self_attn.k_proj.weight"].T  # [T, Hkv*d]
    value_proj = normed @ w["self_attn.v_proj.weight"].T  # [T, Hkv*d]
    query_normed = ops.rms_norm(query_proj.reshape(t, n_heads, d),
                                w["self_attn.q_norm.weight"], eps)  # [T, H, d]
    key_normed = ops.rms_norm(key_proj.reshape(t, n_kv, d),
                              w["self_attn.k_norm.weight"], eps)  # [T, Hkv, d]
    cos, sin = _rope_tables(t, d, config.rope_theta)  # [T, d]
    query_states = ops.apply_rope(query_normed.transpose(1, 0, 2), cos, sin)  # [H, T, d]
    key_states = ops.apply_rope(key_normed.transpose(1, 0, 2), cos, sin)  # [Hkv, T, d]
    value_states = value_proj.reshape(t, n_kv, d).transpose(1, 0, 2)  # [Hkv, T, d]
    # GQA: query head h reads kv head h // G. K and V are written once, side by side, into the
    # kv_repeat step itself; key_rep and value_rep are views of its two halves.
    kv_repeat = np.empty((n_heads, t, 2 * d))  # [H, T, 2d]
    kv_groups = kv_repeat.reshape(n_kv, config.group_size, t, 2 * d)  # a view: [Hkv, G, T, 2d]
    kv_groups[..., :d] = key_states[:, None]
    kv_groups[..., d:] = value_states[:, None]
    key_rep, value_rep = kv_repeat[..., :d], kv_repeat[..., d:]  # [H, T, d] each
    scores = query_states @ key_rep.transpose(0, 2, 1)  # [H, T, T]
    scores *= d**-0.5  # in place: the same numbers without another [H, T, T] temporary
    if causal:
        masked = np.where(_causal_mask(t), -np.inf, scores)  # [H, T, T]
    else:
        masked = scores.copy()
    probs = ops.softmax(masked)  # [H, T, T]
    context = (probs @ value_rep).transpose(1, 0, 2).reshape(t, n_heads * d)  # [T, H*d]
    attn_output = context @ w["self_attn.o_proj.weight"].T  # [T, D]
    residual_attn = hidden_states + attn_output  # [T, D]

    # --- MLP sub-step: out = h + M(RMSNorm2(h)) ---
    normed2 = ops.rms_norm(residual_attn, w["post_attention_layernorm.weight"], eps)  # [T, D]
    gate = normed2 @ w["mlp.gate_proj.weight"].T  # [T, F]
    up = normed2 @ w["mlp.up_proj.weight"].T  # [T, F]
    gate_act = ops.silu(gate)  # [T, F]
    gated = gate_act * up  # [T, F]
    mlp_output = gated @ w["mlp.down_proj.weight"].T  # [T, D]
    output = residual_attn + mlp_output  # [T, D]

    return [hidden_states, normed, query_proj, key_proj, value_proj, query_normed, key_normed,
            query_states, key_states, kv_repeat,
            scores, masked, probs, context, attn_output, residual_attn, normed2, gate, up,
            gate_act, gated, mlp_output, output]
