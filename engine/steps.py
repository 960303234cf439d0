"""What the layer records: the 22 named steps (plus step 0, the input) and a trace of them.

The names are Hugging Face's (``modeling_qwen3.py``) where HF has one; docs/steps.md describes
each step.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

from engine.config import Qwen3Config

if TYPE_CHECKING:
    from engine.intervention import Intervention

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

    def _described(self, step_text: str, mask_off_text: str) -> str:
        """The step's own text, or ``mask_off_text`` when this is the mask step of a layer
        run without the mask."""
        mask_off = not self.causal and self.info.name == "causal_mask"
        return mask_off_text if mask_off else step_text

    @property
    def formula(self) -> str:
        return self._described(self.info.formula, MASK_OFF_FORMULA)

    @property
    def formula_zh(self) -> str:
        return self._described(self.info.formula_zh, MASK_OFF_FORMULA)

    @property
    def meaning(self) -> str:
        return self._described(self.info.meaning, MASK_OFF_MEANING[0])

    @property
    def meaning_zh(self) -> str:
        return self._described(self.info.meaning_zh, MASK_OFF_MEANING[1])

    @property
    def kind(self) -> Kind:
        return self.info.kind


@dataclass(frozen=True)
class LayerTrace:
    """Every step of one forward pass, in order. ``trace[name]`` is that step's array."""

    config: Qwen3Config
    causal: bool
    steps: tuple[Step, ...]
    #: what was switched off (``engine.Intervention``), or None for the plain layer
    intervention: Intervention | None = None

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
