"""One Qwen3 decoder layer as 22 named matrix steps (plus step 0, the input).

The forward mirrors ``Qwen3DecoderLayer`` in transformers' ``modeling_qwen3.py`` and records
every intermediate under the names of ``DESIGN.md``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, NamedTuple

import numpy as np

from engine import ops, parallel
from engine._checks import as_array, check_config
from engine.config import MAX_TOKENS, Qwen3Config
from engine.errors import EngineError, Phrase
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
    def formula_zh(self) -> str:
        """The formula with its words in Chinese (most formulas are symbols only)."""
        return FORMULA_ZH.get(self.name, self.formula)

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
    StepInfo(1, "input_layernorm", (_T, _F), "X̂ = γ₁ ⊙ X / √(mean(X²) + ε)  (per row)",
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
             "Keys rotated the same way, so q·k depends on position only through the offset i − j.",
             "键按同样方式旋转，于是 q·k 对位置的依赖只通过相对位置 i − j。"),
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
    StepInfo(16, "post_attention_layernorm", (_T, _F), "ĥ = γ₂ ⊙ h / √(mean(h²) + ε)  (per row)",
             "RMSNorm again, before the feed-forward network.",
             "进入前馈网络前再做一次 RMSNorm。"),
    StepInfo(17, "gate_proj", (_T, _F), "G = ĥ W_gᵀ",
             "The gate branch of the SwiGLU MLP.",
             "SwiGLU 前馈网络的门控分支。"),
    StepInfo(18, "up_proj", (_T, _F), "U = ĥ W_uᵀ",
             "The up branch: a wider copy of each token's features.",
             "上投影分支：每个词元特征的更宽表示。"),
    StepInfo(19, "silu_gate", (_T, _F), "SiLU(G) = G · sigmoid(G)",
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

#: The formulas above that carry words, as the Chinese interface shows them.
FORMULA_ZH: dict[str, str] = {
    "input_layernorm": "X̂ = γ₁ ⊙ X / √(mean(X²) + ε)  （逐行）",
    "q_norm": "q ← RMSNorm_d(q) · γ_q  （逐头）",
    "k_norm": "k ← RMSNorm_d(k) · γ_k  （逐头）",
    "kv_repeat": "K_h, V_h = 键值头 ⌊h / G⌋ 的 K, V",
    "causal_mask": "j > i 时 S_ij = −∞",
    "attn_context": "C = P V  （各头拼接）",
    "post_attention_layernorm": "ĥ = γ₂ ⊙ h / √(mean(h²) + ε)  （逐行）",
}

_OVERFLOW = 1e150
STEP_NAMES: tuple[str, ...] = tuple(info.name for info in STEP_INFO)
_INFO_BY_NAME = {info.name: info for info in STEP_INFO}


#: What step 11 (causal_mask) is in a layer run with ``causal=False``: the scores, unchanged.
MASK_OFF_FORMULA = "S"
MASK_OFF_MEANING = ("Causal mask off: this step is a copy of the scores; no score is set to −∞.",
                    "因果掩码已关闭：这一步就是分数的副本，没有分数被设为 −∞。")


@dataclass(frozen=True)
class Step:
    """One recorded step: its description and its read-only array. ``causal`` is how the layer
    ran; without the mask ``causal_mask`` describes itself as the copy of the scores it is."""

    info: StepInfo
    array: np.ndarray
    causal: bool = True

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
    def _mask_off(self) -> bool:
        return not self.causal and self.info.name == "causal_mask"

    @property
    def formula(self) -> str:
        return MASK_OFF_FORMULA if self._mask_off else self.info.formula

    @property
    def formula_zh(self) -> str:
        return MASK_OFF_FORMULA if self._mask_off else self.info.formula_zh

    @property
    def meaning(self) -> str:
        return MASK_OFF_MEANING[0] if self._mask_off else self.info.meaning

    @property
    def meaning_zh(self) -> str:
        return MASK_OFF_MEANING[1] if self._mask_off else self.info.meaning_zh

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


def _check_weights(weights: LayerWeights, config: Qwen3Config) -> None:
    if not isinstance(weights, LayerWeights):
        raise EngineError("weights_type", got=type(weights).__name__)
    if weights.config != config:
        raise EngineError("weights_config", made_for=weights.config, config=config)


def run_layer(x: object, weights: LayerWeights, config: Qwen3Config, *,
              causal: bool = True, reuse: LayerTrace | None = None) -> LayerTrace:
    """Run one decoder layer on ``x [T, hidden]`` and record all 22 steps.

    ``causal=False`` gives full (encoder) attention; the ``causal_mask`` step is then a copy of
    the scores.

    ``reuse``: an earlier trace (say the previous keystroke's). With the mask on and as many
    tokens, attention rows whose masked scores kept every bit take their probabilities from
    it instead of computing the softmax again (an edit of the last of 512 tokens: 511 of 512
    rows, ~a third of the layer). The result is the same bits either way.
    """
    hidden_states = check_input(x, config)
    _check_weights(weights, config)
    causal = check_flag(causal, "causal")
    known = None
    if reuse is not None:
        if not isinstance(reuse, LayerTrace):
            raise EngineError("trace_type", name="reuse", got=type(reuse).__name__)
        if reuse.causal and causal and reuse.num_tokens == hidden_states.shape[0]:
            known = (reuse["causal_mask"], reuse["attn_probs"])
    with np.errstate(all="ignore"):  # overflow is reported once, in words (see _forward)
        arrays = _forward(hidden_states, weights, config, causal, known)
    steps = []
    for info, array in zip(STEP_INFO, arrays, strict=True):
        array.setflags(write=False)
        steps.append(Step(info, array, causal))
    return LayerTrace(config=config, causal=causal, steps=tuple(steps))


#: Steps never read for overflow, because they cannot be the first to overflow: causal_mask
#: (holds -inf by design, else the scores), kv_repeat (copies of k_rope and v_proj), attn_probs
#: (in [0, 1] once attn_scores passed: each row's largest entry gives exp(0) = 1, so the sum is
#: >= 1) and silu_gate (|g / (1 + exp(-g))| <= |g|, and gate_proj passed).
_NOT_CHECKED = frozenset({"causal_mask", "kv_repeat", "attn_probs", "silu_gate"})

#: A bound on a step's max |value| proven from earlier steps spares reading the step when it is
#: below this: half the overflow limit, a margin far wider than the rounding of the sums and
#: products the bound stands for (relative K·2⁻⁵³ for a K-term sum).
_PROVEN = _OVERFLOW / 2


#: Up to this many entries OpenBLAS computes a dot product on one thread (its ddot threshold).
_ONE_THREAD_DOT = 10_000


def _magnitude(array: np.ndarray) -> float:
    """An upper bound on ``max |array|`` that is >= 1e150 exactly when some value is past 1e150
    (an RMSNorm squaring it would overflow and quietly give 0, so that counts as overflow too),
    and NaN or Inf for NaN or Inf.

    A small array is pre-screened by one dot product: a sum of squares below 1e300 bounds every
    value by its square root, the cheapest single call. Otherwise max and min decide (two SIMD
    reductions, NaN propagates): for a big array a multithreaded BLAS dot would wait for a
    second core, which on a busy machine costs more than it saves.
    """
    if array.size <= _ONE_THREAD_DOT:
        squares = np.vdot(array, array)
        if squares < _OVERFLOW**2:
            return math.sqrt(squares)
    return float(np.maximum(np.maximum.reduce(array, axis=None),
                            -np.minimum.reduce(array, axis=None)))


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
# The pieces of the forward. run_layer and the continuous view's branches (engine.continuous)
# both call attention_sublayer and mlp_sublayer, so they agree bit for bit by construction; the
# attention lens (engine.lenses.attention_facts) re-runs the same pieces with positions and RoPE
# of its own and sums o_proj over the same head groups (tests hold it to run_layer's bits).
# Each takes arrays with any leading batch axes ``[..., T, ...]``.


def project_qkv(normed: np.ndarray, weights: LayerWeights,
                config: Qwen3Config) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``q_proj [..., T, H*d], k_proj, v_proj [..., T, Hkv*d]`` of ``normed [..., T, D]``.

    One matrix product with the row-stacked ``[W_q; W_k; W_v]``; the three are column views of
    its result (each entry is the same dot product a separate product would take). A big
    ``[T, D]`` input is instead shared out by columns over threads (``engine.parallel``).
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


def attention_sublayer(normed: np.ndarray, weights: LayerWeights, config: Qwen3Config,
                       causal: bool, *, kv_repeat: bool = False,
                       known: ops.Known | None = None) -> AttentionParts:
    """The attention branch of ``normed [..., T, D]`` (RMSNorm₁'s output), every intermediate.

    A big ``[T, D]`` input is shared out by kv heads (:func:`kv_groups`): each thread takes whole
    GQA groups — their columns of q/k/v_proj, their q/k-norm, RoPE and attention, and their
    heads' share of o_proj — so the threads meet once, to add the o_proj shares. Every entry up
    to the context is the same bits as in one thread (a dot product over the same inner axis, a
    row's own norm and softmax); o_proj is the sum of the groups' products, which differs from
    one product over all heads only in rounding (~1e-16), and rows never mix, so the causal
    statements hold bit for bit. ``known``: see :func:`attend` (``[H, T, T]`` each). Callers
    hold ``np.errstate(all="ignore")``.
    """
    groups = kv_groups(normed, config)
    if len(groups) == 1:
        return _attention_whole(normed, weights, config, causal, kv_repeat, known)
    t = normed.shape[0]
    n_heads, n_kv, d = config.num_attention_heads, config.num_key_value_heads, config.head_dim
    eps, group = config.rms_norm_eps, config.group_size
    tables = _rope_tables(t, d, config.rope_theta)
    w_q, w_k, w_v, w_o = (weights[f"self_attn.{name}_proj.weight"] for name in "qkvo")
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
        np.matmul(normed, w_q[cols].T, out=query_proj[:, cols])
        np.matmul(normed, w_k[kv_cols].T, out=key_proj[:, kv_cols])
        np.matmul(normed, w_v[kv_cols].T, out=value_proj[:, kv_cols])
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
                     causal: bool, kv_repeat: bool,
                     known: ops.Known | None = None) -> AttentionParts:
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
    output = parallel.linear(context, weights["self_attn.o_proj.weight"])  # [..., T, D]
    return AttentionParts(query_proj, key_proj, value_proj, query_normed, key_normed,
                          query_states, key_states, value_states, repeat, scores, masked, probs,
                          context, output)


def mlp_sublayer(normed: np.ndarray, weights: LayerWeights, config: Qwen3Config) -> MlpParts:
    """The MLP branch of ``normed [..., T, D]`` (RMSNorm₂'s output), every intermediate.

    A big ``[T, D]`` input is shared out by the MLP's columns: each thread takes its columns of
    gate and up, their SiLU and gating, and their share of down_proj's inner axis, so the
    threads meet once, to add the down_proj shares (rounding as in o_proj: see
    :func:`attention_sublayer`). Callers hold ``np.errstate(over="ignore")`` (or ``all``).
    """
    width = config.intermediate_size
    w_down = weights["mlp.down_proj.weight"]
    parts = parallel.shares(normed, 2 * width)
    if parts == 1:
        gate, up, gate_act, gated = mlp_hidden(normed, weights, config)
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
        shares[i] = gated[:, cols] @ w_down[:, cols].T

    parallel.run([lambda i=i: share(i) for i in range(len(columns))])
    return MlpParts(gate, up, gate_act, gated, _sum_in_order(shares))


#: What each RMSNorm divides by the root mean square of, for the message at ε = 0 (made once:
#: the forward runs per keystroke, and most of a toy layer's time is small calls like these).
_ROW_OF_EMBED, _HEAD_OF_Q, _HEAD_OF_K, _ROW_OF_RESID = (Phrase(text) for text in (
    "a row of embed", "a head's slice of q_proj", "a head's slice of k_proj",
    "a row of resid_attn"))


def _forward(hidden_states: np.ndarray, w: LayerWeights, config: Qwen3Config,
             causal: bool, known: ops.Known | None = None) -> list[np.ndarray]:
    """The forward itself, one line per tensor, returning the 23 arrays in step order.

    Each sub-step (attention, MLP) is computed whole, then its steps are recorded in order:
    made C-contiguous (display code wants C order; the q/k/v and gate/up views stay internal)
    and checked for overflow, so the error names the first step that overflowed, and the MLP is
    not computed after an overflow in attention.
    Most steps need no reading for that: a bound on their max |value| follows from the bounds
    of the steps they are made of and the weights' (a product of K terms is at most K times the
    largest factors, a convex combination at most its largest term). Only when such a bound is
    not small enough (or there is none: the input, and the RMSNorms at ε = 0) is the step itself
    read.
    """
    t, d_model = hidden_states.shape
    n_heads, n_kv, d = config.num_attention_heads, config.num_key_value_heads, config.head_dim
    eps = config.rms_norm_eps
    steps: list[np.ndarray] = []
    bound: dict[str, float] = {}  # step -> an upper bound on its max |value|, below 1e150

    def record(array: np.ndarray, proven: float | None = None, *,
               norm_of: str | None = None, norm_input: np.ndarray | None = None) -> None:
        info = STEP_INFO[len(steps)]
        array = np.ascontiguousarray(array)
        if proven is not None and proven < _PROVEN:
            bound[info.name] = proven
        elif info.name not in _NOT_CHECKED:
            bound[info.name] = magnitude = _magnitude(array)
            if not magnitude < _OVERFLOW:
                # an RMSNorm's input is below 1e150 (checked), so its squares cannot overflow:
                # at ε = 0 a zero sum of squares is 0/0 (or x/0 after underflow), not overflow
                if (norm_input is not None and eps == 0
                        and not np.all(np.add.reduce(norm_input * norm_input, axis=-1))):
                    fix = Phrase("a non-zero input" if info.index == 1
                                 else "inputs and weights that keep it non-zero")
                    raise EngineError("layer_zero_rms", index=info.index, step=info.name,
                                      norm_of=norm_of, fix=fix)
                raise EngineError("layer_overflow", index=info.index, step=info.name)
        steps.append(array)

    def product_bound(step: str, weight: str, terms: int) -> float:
        return terms * bound[step] * w.max_abs(weight)

    def norm_bound(weight: str, width: int) -> float | None:
        # |x_i| <= sqrt(width · mean(x²)), so |w_i x_i / sqrt(mean(x²) + ε)| <= max|w|·√width;
        # at ε = 0 a zero row gives 0/0, which only reading the step finds
        return math.sqrt(width) * w.max_abs(weight) if eps > 0 else None

    record(hidden_states)
    # --- attention sub-step: h = x + A(RMSNorm1(x)) ---
    normed = ops.rms_norm(hidden_states, w["input_layernorm.weight"], eps)  # [T, D]
    record(normed, norm_bound("input_layernorm.weight", d_model),
           norm_of=_ROW_OF_EMBED, norm_input=hidden_states)
    attn = attention_sublayer(normed, w, config, causal, kv_repeat=True, known=known)
    for proj, weight in ((attn.query_proj, "self_attn.q_proj.weight"),
                         (attn.key_proj, "self_attn.k_proj.weight"),
                         (attn.value_proj, "self_attn.v_proj.weight")):
        record(proj, product_bound("input_layernorm", weight, d_model))
    record(attn.query_normed, norm_bound("self_attn.q_norm.weight", d),
           norm_of=_HEAD_OF_Q,
           norm_input=steps[2].reshape(t, n_heads, d))
    record(attn.key_normed, norm_bound("self_attn.k_norm.weight", d),
           norm_of=_HEAD_OF_K,
           norm_input=steps[3].reshape(t, n_kv, d))
    record(attn.query_states, 2 * bound["q_norm"])  # x·cos ± x'·sin
    record(attn.key_states, 2 * bound["k_norm"])
    record(attn.kv_repeat)  # GQA, for display: query head h reads kv head h // G
    record(attn.scores, d * bound["q_rope"] * bound["k_rope"] * d**-0.5)
    record(attn.masked)
    record(attn.probs)
    record(attn.context, bound["v_proj"])  # each row a convex combination of V's rows
    record(attn.output, product_bound("attn_context", "self_attn.o_proj.weight", n_heads * d))
    residual_attn = hidden_states + attn.output  # [T, D]
    record(residual_attn, bound["embed"] + bound["o_proj"])

    # --- MLP sub-step: out = h + M(RMSNorm2(h)) ---
    normed2 = ops.rms_norm(residual_attn, w["post_attention_layernorm.weight"], eps)  # [T, D]
    record(normed2, norm_bound("post_attention_layernorm.weight", d_model),
           norm_of=_ROW_OF_RESID, norm_input=residual_attn)
    mlp = mlp_sublayer(normed2, w, config)  # [T, F] each, down [T, D]
    record(mlp.gate, product_bound("post_attention_layernorm", "mlp.gate_proj.weight", d_model))
    record(mlp.up, product_bound("post_attention_layernorm", "mlp.up_proj.weight", d_model))
    record(mlp.gate_act)
    record(mlp.gated, bound["gate_proj"] * bound["up_proj"])  # |SiLU(g)| <= |g|
    record(mlp.output, product_bound("gated", "mlp.down_proj.weight", config.intermediate_size))
    output = residual_attn + mlp.output  # [T, D]
    record(output, bound["resid_attn"] + bound["down_proj"])
    return steps
