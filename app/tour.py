"""The guided tour: one lesson through the layer — the 22 steps, the continuous view, then the
causality demo — with a short explanation per stop in English and Chinese.

Each stop selects its step (and depth time, text or causal mask when it needs them) and names
the dock to highlight. A stop that states a fact of the continuous view carries its badge from
``PAPER.md``: EXACT (asserted by a test, with its id), ANALOGY (a reading with a caveat, never
asserted) or INTERPOLATION (a drawing aid). The texts are this app's own words; the content
follows the two source articles in ``shared/seeds`` and ``PAPER.md``.

:class:`TourController` holds the position (Qt-free apart from its signal); the main window
reacts to ``stop_changed`` by applying the stop and highlighting its dock; :class:`TourPanel` is
the dock's widget: the text, the badge and Back / Next.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtWidgets import (
    QBoxLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app import i18n
from engine import LayerTrace

BADGES = ("EXACT", "ANALOGY", "INTERPOLATION")
#: badge -> (background, text); the same colours as the panels' claim badges.
BADGE_COLOURS: dict[str, tuple[str, str]] = {
    "EXACT": ("#1b7f3b", "#ffffff"),
    "ANALOGY": ("#b26a00", "#ffffff"),
    "INTERPOLATION": ("#5b6b7f", "#ffffff"),
}
BADGE_NAMES_ZH = {"EXACT": "精确", "ANALOGY": "类比", "INTERPOLATION": "插值"}

#: The texts the causality stops type (the last word changes, then a word is appended).
CAUSAL_TEXT = "Attention never reads the future tokens"
CAUSAL_EDITED = "Attention never reads the future words"
#: the stop before it leaves CAUSAL_TEXT in the field (mask off), so only a word is appended
CAUSAL_APPENDED = CAUSAL_TEXT + " again"
#: The same demo in Chinese, one token per character: "attention cannot see the future 词
#: (words)"; the edit changes the last character (词 -> 字), the append makes 词 into 词语.
CAUSAL_TEXT_ZH = "注意力看不见未来的词"
CAUSAL_EDITED_ZH = "注意力看不见未来的字"
CAUSAL_APPENDED_ZH = CAUSAL_TEXT_ZH + "语"


@dataclass(frozen=True)
class TourStop:
    key: str
    #: "discrete", "continuous" or "causality"
    section: str
    #: Docks to highlight, first one present wins.
    docks: tuple[str, ...]
    title_en: str
    title_zh: str
    body_en: str
    body_zh: str
    step: str | None = None
    badge: str | None = None
    paper_id: str = ""
    depth_t: float | None = None
    #: Text to put in the editor on arrival (None: leave what the learner typed), in English
    #: and in Chinese: :attr:`text` picks the interface language's when the stop runs.
    text_en: str | None = None
    text_zh: str | None = None
    #: The sentence the stop's edit starts from: typed (and computed) first when the field
    #: holds another, so the stop compares the same pair whether reached by Next or by Back.
    before_text_en: str | None = None
    before_text_zh: str | None = None
    causal: bool | None = None
    #: The depth panel's small plot the stop talks about ("norm" or "convergence"): shown
    #: when a short panel has room for only one of them beside u(t).
    depth_plot: str | None = None
    #: The causality panel's baseline: "pin" pins the stop's sentence once computed, "keep"
    #: keeps the pin the tour made; any other stop releases it.
    baseline: Literal["", "pin", "keep"] = ""
    #: "loudest-head": once the stop's sentence is computed, switch off the head the last
    #: token reads most (:func:`loudest_head`); the tour switches it back on when it moves on
    intervene: Literal["", "loudest-head"] = ""

    def title(self, language: str) -> str:
        return self.title_zh if language == "zh" else self.title_en

    def body(self, language: str) -> str:
        return self.body_zh if language == "zh" else self.body_en

    def text_for(self, language: str) -> str | None:
        """The sentence the stop types in ``language`` (a Chinese class sees a Chinese one)."""
        return self.text_zh if language == "zh" else self.text_en

    def before_text_for(self, language: str) -> str | None:
        return self.before_text_zh if language == "zh" else self.before_text_en

    @property
    def text(self) -> str | None:
        """:meth:`text_for` the interface language now: read when the stop runs, so a tour
        switched to Chinese types the Chinese sentences from its next stop on."""
        return self.text_for(i18n.translations().language)

    @property
    def before_text(self) -> str | None:
        return self.before_text_for(i18n.translations().language)


def loudest_head(trace: LayerTrace) -> int:
    """The query head the last token reads most: the one whose part of ``attn_context`` on the
    last token's row (the head's weighted sum of values, what switching it off removes) has
    the largest norm; the lowest index on a tie."""
    config = trace.config
    row = trace["attn_context"][-1].reshape(config.num_attention_heads, config.head_dim)
    return int(np.argmax(np.linalg.norm(row, axis=1)))


_H = ("heatmapDock",)
_ATT = ("attentionDock", "heatmapDock")
_NORM = ("normDock", "heatmapDock")
_DEPTH = ("depthDock",)
_CAUSAL = ("causalityDock",)


def _s(step: str, docks: tuple[str, ...], title_en: str, title_zh: str, body_en: str,
       body_zh: str, **kw: object) -> TourStop:
    return TourStop(f"step:{step}", "discrete", docks, title_en, title_zh, body_en, body_zh,
                    step=step, **kw)  # type: ignore[arg-type]


STOPS: tuple[TourStop, ...] = (
    TourStop(
        "welcome", "discrete", ("stepListDock",),
        "One layer, two views", "一层网络，两种视角",
        "This tour walks through one real Qwen3 decoder layer computed live on the sentence "
        "above. First the <b>discrete view</b>: 22 named matrix steps you can check number by "
        "number. Then the <b>continuous view</b>: the same numbers read as one time step of an "
        "equation. Last, the <b>causality demo</b>. Use Next / Back (or PageDown / PageUp) — "
        "you can type a new sentence at any stop.",
        "本导览带你走完一个真实的 Qwen3 解码层，它正对上方的句子实时计算。先看<b>离散视角</b>："
        "22 个有名字的矩阵步骤，每个数都能核对。再看<b>连续视角</b>：把同样的数读成一条方程的一个"
        "时间步。最后是<b>因果性演示</b>。用“下一步 / 上一步”（或 PageDown / PageUp）翻页，"
        "任何时候都可以在上方输入新的句子。",
        step="embed"),
    _s("embed", _H, "0 · embed: tokens become rows", "0 · embed：词元变成行",
       "Each token is looked up in an embedding table and becomes one row of the matrix X "
       "(tokens × features). Rows are tokens, columns are features — keep that picture: every "
       "later step is again a matrix with one row per token.",
       "每个词元在嵌入表中查到一行向量，合起来就是矩阵 X（词元 × 特征）。行是词元，列是特征——"
       "记住这个画面：后面每一步仍然是“每个词元一行”的矩阵。"),
    _s("input_layernorm", _NORM, "1 · input_layernorm (RMSNorm)", "1 · input_layernorm（RMSNorm）",
       "Before attention each row is divided by its root mean square and multiplied by the "
       "weight γ₁. With ε = 0 and γ = 1 this is exactly the nearest point on the sphere "
       "‖u‖ = √d: a radial projection. Unlike LayerNorm it does not subtract the mean.",
       "进入注意力之前，每一行除以自己的均方根，再乘以权重 γ₁。当 ε = 0、γ = 1 时，它恰好是"
       "球面 ‖u‖ = √d 上离原向量最近的点：一次径向投影。与 LayerNorm 不同，它不减均值。",
       badge="EXACT", paper_id="E10"),
    _s("q_proj", _H, "2 · q_proj: queries", "2 · q_proj：查询 Q",
       "A matrix product with W_q gives every token a query for every head: what this token "
       "is looking for. The columns are heads × head_dim laid side by side.",
       "与 W_q 做一次矩阵乘法，为每个词元、每个头得到一个查询：这个词元想找什么。"
       "列是并排摆放的“头数 × 每头维度”。"),
    _s("k_proj", _H, "3 · k_proj: keys", "3 · k_proj：键 K",
       "Keys are what a token can be found by. Under grouped-query attention there are fewer "
       "key heads than query heads, so this matrix is narrower than Q.",
       "键是词元“被找到”时所凭的标签。在分组查询注意力（GQA）下，键头比查询头少，"
       "所以这个矩阵比 Q 窄。"),
    _s("v_proj", _H, "4 · v_proj: values", "4 · v_proj：值 V",
       "Values are the content a token hands over when another token reads it. V is never "
       "normalised and never rotated.",
       "值是一个词元被别的词元读取时交出去的内容。V 既不做归一化，也不做旋转。"),
    _s("q_norm", _H, "5 · q_norm", "5 · q_norm",
       "Qwen3 RMS-normalises each query head vector with one shared weight of length d, "
       "before RoPE. Together with k_norm this bounds every attention logit: "
       "|q·k|/√d ≤ √d · max|γ_q| · max|γ_k|.",
       "Qwen3 在 RoPE 之前，用一组长度为 d 的共享权重对每个查询头向量做 RMSNorm。"
       "它与 k_norm 一起给每个注意力分数设了上界：|q·k|/√d ≤ √d · max|γ_q| · max|γ_k|。",
       badge="EXACT", paper_id="E22"),
    _s("k_norm", _H, "6 · k_norm", "6 · k_norm",
       "The same normalisation for every key head. Without it a single large key could make "
       "one score dominate; with it, the scores stay in a known range.",
       "对每个键头做同样的归一化。没有它，一个很大的键就可能让某个分数独占；有了它，"
       "分数始终落在已知范围内。"),
    _s("q_rope", _H, "7 · q_rope: rotary positions", "7 · q_rope：旋转位置编码",
       "RoPE turns each pair of query features by an angle proportional to the token's "
       "position. Position is not added to the vector; it is a rotation.",
       "RoPE 把查询的每一对特征旋转一个与词元位置成正比的角度。位置不是加到向量上，"
       "而是一次旋转。"),
    _s("k_rope", _H, "8 · k_rope", "8 · k_rope",
       "Keys turn the same way. Because both sides rotate, the score q·k depends on position "
       "only through how far apart the two tokens are (i − j): shift every position by the "
       "same amount and every score stays the same. In the continuous view the kernel "
       "depends on position only through x − x̃.",
       "键也按同样方式旋转。两边都转，于是分数 q·k 对位置的依赖只通过两个词元的相对位置（i − j）："
       "所有位置平移同一个量，每个分数都不变。在连续视角里，这意味着核函数只通过 x − x̃ 依赖位置。",
       badge="EXACT", paper_id="E24"),
    _s("kv_repeat", _H, "9 · kv_repeat: grouped-query attention", "9 · kv_repeat：分组查询注意力",
       "Query head h reads key/value head ⌊h / G⌋ (G query heads per kv head). Change the "
       "head above and watch which kv head is shown: K on the left, V on the right.",
       "查询头 h 读取第 ⌊h / G⌋ 个键/值头（每个键值头对应 G 个查询头）。在上方切换头，"
       "看看显示的是哪个键值头：左边是 K，右边是 V。"),
    # the next two frame the heatmap: they point at its cells (upper right, grey), which the
    # attention flow of the last token does not show
    _s("attn_scores", _H, "10 · attn_scores", "10 · attn_scores：注意力分数",
       "Every query meets every key: S = q kᵀ / √d, a token × token matrix per head. The "
       "future (upper right) is still here — the mask comes next.",
       "每个查询与每个键相遇：S = q kᵀ / √d，每个头一张“词元 × 词元”的矩阵。"
       "未来的位置（右上角）此时还在——掩码在下一步。"),
    _s("causal_mask", _H, "11 · causal_mask", "11 · causal_mask：因果掩码",
       "A token may not read the future: every score with key j > query i becomes −∞ (grey "
       "cells). In the continuous view the attention integral only runs over x̃ ≤ x.",
       "词元不能读取未来：所有键 j > 查询 i 的分数都变成 −∞（灰色格子）。在连续视角里，"
       "注意力积分只在 x̃ ≤ x 上进行。"),
    _s("attn_probs", _ATT, "12 · attn_probs: softmax", "12 · attn_probs：softmax",
       "Softmax turns each row into weights ≥ 0 that sum to 1. It is a Boltzmann distribution "
       "over the raw logits q·k_j with temperature τ = √d: log p_j = q·k_j/τ − log Z, "
       "exactly (step 10's S already holds q·k/τ).",
       "softmax 把每一行变成非负且和为 1 的权重。它正是原始分数 q·k_j 上"
       "温度 τ = √d 的玻尔兹曼分布：log p_j = q·k_j/τ − log Z，严格成立"
       "（第 10 步的 S 已经是 q·k/τ）。",
       badge="EXACT", paper_id="E16"),
    _s("attn_context", _ATT, "13 · attn_context: weighted sum", "13 · attn_context：加权求和",
       "Each token averages the values it may see, with the weights of step 12. A weighted "
       "average never leaves the range of what it averages: every output coordinate lies "
       "between the smallest and largest value in that column of V.",
       "每个词元用第 12 步的权重，对它能看到的值做加权平均。加权平均不会跑出被平均者的范围："
       "输出的每个坐标都夹在 V 对应列的最小值与最大值之间。",
       badge="EXACT", paper_id="E19"),
    _s("o_proj", _H, "14 · o_proj", "14 · o_proj：输出投影",
       "The heads are concatenated and mixed back to the model width by W_o. The result A is "
       "the attention branch's whole contribution — the same as the sum over heads of "
       "head_h W_O,h.",
       "把各头结果拼接起来，再用 W_o 混合回模型宽度。结果 A 就是注意力分支的全部贡献——"
       "等于各头 head_h W_O,h 之和。",
       badge="EXACT", paper_id="E23"),
    _s("resid_attn", _DEPTH, "15 · resid_attn: the first residual",
       "15 · resid_attn：第一次残差",
       "h = X + A. Keep the old state, add the change: this is one explicit Euler step of "
       "size 1, taking depth time from t = 0 to t = ½. It is the first of only two steps that "
       "move time; the other twenty evaluate the right-hand side.",
       "h = X + A。保留旧状态，加上变化量：这就是一次步长为 1 的显式欧拉步，把深度时间从 t = 0 "
       "推到 t = ½。22 步中只有两步推动时间，这是第一步；其余二十步都在计算方程右端。",
       badge="EXACT", paper_id="E14", depth_t=0.5),
    _s("post_attention_layernorm", _NORM, "16 · post_attention_layernorm",
       "16 · post_attention_layernorm",
       "RMSNorm again, now on h, before the feed-forward network. In Qwen3 the norm sits "
       "inside the vector field (pre-norm); the residual stream itself is never normalised.",
       "再做一次 RMSNorm，这次作用在 h 上，位于前馈网络之前。Qwen3 是前归一化（pre-norm）："
       "归一化在向量场内部，残差流本身从不被归一化。"),
    _s("gate_proj", _H, "17 · gate_proj", "17 · gate_proj：门控分支",
       "The MLP works on each token alone. First a wide gate branch G = ĥ W_gᵀ: its width F "
       "is a few times the model width D (2× in the toy layer, 3× in Qwen3-0.6B).",
       "前馈网络对每个词元单独工作。先是一个较宽的门控分支 G = ĥ W_gᵀ：它的宽度 F 是模型宽度 D "
       "的几倍（玩具层为 2 倍，Qwen3-0.6B 为 3 倍）。"),
    _s("up_proj", _H, "18 · up_proj", "18 · up_proj：上投影",
       "In parallel, the up branch U = ĥ W_uᵀ: a second wide view of the same token.",
       "同时计算上投影分支 U = ĥ W_uᵀ：同一个词元的第二个宽表示。"),
    _s("silu_gate", _H, "19 · silu_gate", "19 · silu_gate：SiLU",
       "SiLU(G) = G · sigmoid(G) opens or closes each gate smoothly. It dips below zero "
       "(to about −0.28 at G ≈ −1.28) and rises back to 0 as G → −∞, so it is not monotone: "
       "the paper's reading of ReLU as a projection onto u ≥ 0 does not carry over to SwiGLU.",
       "SiLU(G) = G · sigmoid(G) 平滑地打开或关闭每个门。它会略低于零（在 G ≈ −1.28 处约为 "
       "−0.28），G → −∞ 时又回升到 0，因此不是单调的：论文把 ReLU 读作“投影到 u ≥ 0”的说法，"
       "不能照搬到 SwiGLU。",
       badge="ANALOGY"),
    _s("gated", _H, "20 · gated", "20 · gated：门控相乘",
       "The gate multiplies the up branch feature by feature: Z = SiLU(G) ⊙ U.",
       "门控与上投影逐元素相乘：Z = SiLU(G) ⊙ U。"),
    _s("down_proj", _H, "21 · down_proj", "21 · down_proj：下投影",
       "Back to the model width: M is the MLP's contribution, computed for each token from "
       "that token's row only — local in x, where attention was non-local.",
       "投影回模型宽度：M 是前馈网络的贡献，每个词元只由自己那一行算出——在 x 方向上是局部的，"
       "而注意力是非局部的。"),
    _s("resid_mlp", _DEPTH, "22 · resid_mlp: the layer output", "22 · resid_mlp：本层输出",
       "out = h + M: the second explicit Euler step, from t = ½ to t = 1. That is the whole "
       "layer: two Euler sub-steps, u(½) = u(0) + A and u(1) = u(½) + M.",
       "out = h + M：第二次显式欧拉步，从 t = ½ 到 t = 1。整层就是两次欧拉子步："
       "u(½) = u(0) + A，u(1) = u(½) + M。",
       badge="EXACT", paper_id="E14", depth_t=1.0),
    # ----- the continuous view -----
    TourStop(
        "depth-time", "continuous", _DEPTH,
        "Continuous view: depth is time", "连续视角：深度就是时间",
        "Read the matrix U as samples of a function u(x, y, t): x the token position, y the "
        "feature, t depth time. A layer moves u from t = 0 to t = 1; stacking layers is "
        "taking more time steps. The true states at t = 0, ½ and 1 are steps 0, 15 and 22, "
        "bit for bit. Press Space to play t from 0 to 1.",
        "把矩阵 U 看成函数 u(x, y, t) 的采样：x 是词元位置，y 是特征，t 是深度时间。"
        "一层把 u 从 t = 0 推到 t = 1；堆叠更多层，就是走更多时间步。t = 0、½、1 处的真实状态"
        "逐位等于第 0、15、22 步。按空格键让 t 从 0 播放到 1。",
        step="embed", badge="EXACT", paper_id="E14", depth_t=0.0),
    TourStop(
        "partial-step", "continuous", _DEPTH,
        "In between: a true partial step", "中间状态：真实的部分步",
        "At t = ¼ the picture is not a blend of two frames. Inside a sub-step "
        "(1 − s)·x + s·(x + A) = x + s·A exactly: the state the layer would reach at t = ½ "
        "(its first residual, step 15) with its attention branch scaled by s = ½.",
        "t = ¼ 处的画面不是两帧的混合。在一个子步内，(1 − s)·x + s·(x + A) 恰好等于 x + s·A："
        "也就是把注意力分支乘以 s = ½ 时，这一层在 t = ½ 真正会到达的状态"
        "（第一次残差，第 15 步）。",
        step="resid_attn", badge="EXACT", paper_id="E14", depth_t=0.25),
    TourStop(
        "norm-curves", "continuous", _DEPTH,
        "The curves are drawn, the dots are computed", "曲线是画出来的，点是算出来的",
        "The norm curves ‖u(t)‖ are sampled at a grid of times and joined by straight "
        "segments. Each sample is an exact state; the segments between them are only a drawing "
        "aid.",
        "范数曲线 ‖u(t)‖ 是在一组时间点上采样、再用直线段连起来的。每个采样点都是精确状态；"
        "点与点之间的线段只是绘图辅助。",
        badge="INTERPOLATION", depth_t=0.75, depth_plot="norm"),
    TourStop(
        "convergence", "continuous", _DEPTH,
        "The layer's continuous limit", "这一层的连续极限",
        "Split the layer into n smaller steps with Δt = 1/n and it approaches the flow "
        "u′ = A(u) + M(u). The error halves each time n doubles: first order, as Euler should "
        "be; a second-order scheme quarters it.",
        "把这一层拆成 n 个 Δt = 1/n 的小步，它就逼近流 u′ = A(u) + M(u)。n 每翻一倍，误差减半："
        "正是欧拉法应有的一阶收敛；二阶格式则每次减为四分之一。",
        badge="EXACT", paper_id="E13", depth_t=1.0, depth_plot="convergence"),
    TourStop(
        "not-the-pde", "continuous", _DEPTH,
        "…but the network does not solve the equation", "……但网络并没有在解这条方程",
        "At n = 1 — the real layer — the distance to the flow is large. The equation explains "
        "the structure (why residuals, why this order); it does not claim that a trained "
        "network is an accurate solver, and the equation's well-posedness is still open.",
        "在 n = 1，也就是真实的这一层，它离连续流还很远。方程解释的是结构（为什么有残差、"
        "为什么是这个顺序）；它并不声称训练好的网络是精确的求解器，方程本身的适定性也仍是开放问题。",
        badge="ANALOGY", depth_plot="convergence"),
    TourStop(
        "attention-integral", "continuous", _ATT,
        "Attention: a non-local integral", "注意力：非局部积分",
        "Σⱼ αᵢⱼ vⱼ is the grid version of ∫ γ(x, x̃) V(x̃) dx̃: the new state at x depends on "
        "other positions x̃. The weights are ≥ 0 and sum to 1, so the output is a convex "
        "combination of the values it reads.",
        "Σⱼ αᵢⱼ vⱼ 是积分 ∫ γ(x, x̃) V(x̃) dx̃ 在网格上的样子：位置 x 的新状态依赖其他位置 x̃。"
        "权重非负且和为 1，所以输出是被读取的值的凸组合。",
        step="attn_probs", badge="EXACT", paper_id="E19"),
    TourStop(
        "norm-projection", "continuous", _NORM,
        "Normalisation as a projection", "归一化是一次投影",
        "LayerNorm (ε = 0) returns the nearest point of the set {mean σ₁, variance σ₂²}. "
        "RMSNorm is the radial projection onto a sphere; it does not remove the mean, so the "
        "paper's LayerNorm picture does not transfer to RMSNorm without this caveat. Compare "
        "them in this panel.",
        "LayerNorm（ε = 0）返回集合 {均值 σ₁，方差 σ₂²} 中最近的点。RMSNorm 是到球面的径向投影，"
        "它不去掉均值，所以论文里 LayerNorm 的图景不能不加说明地套到 RMSNorm 上。"
        "在这个面板里对比两者。",
        step="input_layernorm", badge="EXACT", paper_id="E5, E10"),
    TourStop(
        "temperature", "continuous", _ATT,
        "Softmax has a temperature", "softmax 有温度",
        "The scale 1/√d is an inverse temperature: attention entropy never decreases as the "
        "temperature rises, goes to 0 as it falls, and tends to log(i + 1) for causal row i "
        "at infinite temperature.",
        "缩放因子 1/√d 就是温度的倒数：温度升高时注意力熵不会减小；温度趋于 0 时熵趋于 0；"
        "温度趋于无穷时，因果第 i 行的熵趋于 log(i + 1)。",
        step="attn_probs", badge="EXACT", paper_id="E17"),
    TourStop(
        "no-condensate", "continuous", _ATT,
        "“Drop √d and softmax freezes”?", "“去掉 √d，softmax 就冻结”？",
        "A popular story says removing 1/√d freezes attention into a one-hot “condensate”. "
        "It sharpens attention, but it does not make it one-hot: with d = 128 and random q, k "
        "the largest weight averages about 0.9, not 1. Treat the physics picture as an "
        "analogy.",
        "一种流行说法是：去掉 1/√d，注意力就会冻结成独热的“凝聚态”。它确实让注意力更尖锐，"
        "但并不会变成独热：d = 128、q 和 k 随机时，最大权重平均约 0.9，而不是 1。"
        "物理图景只能当作类比。",
        badge="ANALOGY", paper_id="E18"),
    TourStop(
        "least-action", "continuous", _DEPTH,
        "“Training follows least action”?", "“训练遵循最小作用量”？",
        "Training minimises a terminal loss over the weights — an optimal-control problem, "
        "where backpropagation is the discrete adjoint. Gradient descent runs in training "
        "time, not depth time, so calling the loss an “action” is an analogy, not an "
        "equation the app can test.",
        "训练是在权重上最小化终点损失——一个最优控制问题，反向传播是它的离散伴随。"
        "梯度下降沿着训练时间进行，而不是深度时间；所以把损失叫作“作用量”只是类比，"
        "不是本应用能检验的等式。",
        badge="ANALOGY"),
    TourStop(
        "where-qwen3-leaves", "continuous", ("stepListDock",),
        "Where Qwen3 leaves the paper", "Qwen3 与论文的分界",
        "The paper's exact correspondence is the 2017 post-norm encoder. Pre-norm RMSNorm, "
        "RoPE, GQA, SwiGLU, the causal mask and q/k-norm are outside its derivation: read them "
        "with the caveats you have seen, and check them against the discrete steps.",
        "论文严格对应的是 2017 年的后归一化（post-norm）编码器。前归一化（pre-norm）的 RMSNorm、"
        "RoPE、GQA、SwiGLU、"
        "因果掩码和 q/k-norm 都不在它的推导之内：带着前面看到的这些说明去理解它们，"
        "并回到离散步骤逐一核对。",
        badge="ANALOGY"),
    # ----- the causality demo -----
    TourStop(
        "causal-setup", "causality", _CAUSAL,
        "Causality demo: the setup", "因果性演示：准备",
        "The tour has typed a sentence and pinned it as the causality panel's baseline. Next "
        "it will change only its last word. With the causal mask on, what should happen to "
        "the rows of the earlier tokens?",
        "导览已经输入了一句话，并把它固定为因果性面板的基线。下一步只改动最后一个词。"
        "在因果掩码开启时，前面那些词元的行应该发生什么变化？",
        step="resid_mlp", text_en=CAUSAL_TEXT, text_zh=CAUSAL_TEXT_ZH, causal=True,
        baseline="pin"),
    TourStop(
        "causal-edit", "causality", _CAUSAL,
        "Edit the last token: nothing earlier moves", "改最后一个词元：前面纹丝不动",
        "Every earlier row of every step is bitwise identical — not close, identical. The only "
        "changed entries before the last row are the raw scores q·k in the last column, and "
        "the mask removes exactly those.",
        "每一步中前面的每一行都逐位相同——不是接近，而是完全相同。最后一行之前唯一变化的，"
        "是最后一列的原始分数 q·k，而掩码恰好把它们去掉了。",
        step="resid_mlp", text_en=CAUSAL_EDITED, text_zh=CAUSAL_EDITED_ZH, causal=True,
        badge="EXACT", paper_id="E11",
        baseline="keep"),
    TourStop(
        "causal-off", "causality", _CAUSAL,
        "Mask off: the future leaks back", "关掉掩码：未来会回流",
        "Now the mask is off (key M). Every token reads the whole sentence, so the same edit "
        "changes earlier rows too. Press M to turn it back on.",
        "现在掩码关闭了（按 M 键切换）。每个词元都能读到整句话，所以同样的改动也会改变前面的行。"
        "再按 M 重新打开。",
        step="resid_mlp", text_en=CAUSAL_TEXT, text_zh=CAUSAL_TEXT_ZH,
        before_text_en=CAUSAL_EDITED, before_text_zh=CAUSAL_EDITED_ZH, causal=False,
        badge="EXACT", paper_id="E11"),
    TourStop(
        "causal-append", "causality", _CAUSAL,
        "Appending a token", "在末尾追加词元",
        "With the mask back on, appending a word leaves earlier rows unchanged up to rounding "
        "(within 1e-12): a longer input changes the shapes, and that may change how the matrix "
        "library sums — so this one is allclose, not bitwise.",
        "掩码重新打开后，在末尾追加一个词，前面的行在舍入误差（1e-12 以内）内不变："
        "输入变长会改变矩阵形状，可能改变矩阵库的求和顺序——所以这里是“近似相等”，不是逐位相等。",
        step="resid_mlp", text_en=CAUSAL_APPENDED, text_zh=CAUSAL_APPENDED_ZH, causal=True,
        badge="EXACT", paper_id="E12"),
    TourStop(
        "intervene-head", "causality", ("causalityDock",),
        "Switch a head off", "关掉一个注意力头",
        "The tour has switched off the head the last token reads most (the one whose share of "
        "attn_context on that token is largest): see the red INTERVENED badge on every panel. "
        "Every step before attn_context is bit for bit the plain layer's; there only that "
        "head's columns change, and from o_proj on every row moves. Ctrl+Z switches it back.",
        "导览关掉了最后一个词元读得最多的注意力头（它在该词元的 attn_context 中所占部分最大）："
        "每个面板都有红色的“已干预”标记。attn_context 之前的每一步都与原始层逐位相同；"
        "在 attn_context 只有这个头的列改变，从 o_proj 起每一行都变了。按 Ctrl+Z 恢复。",
        step="attn_context", text_en=CAUSAL_APPENDED, text_zh=CAUSAL_APPENDED_ZH, causal=True,
        intervene="loudest-head"),
    TourStop(
        "the-end", "causality", ("stepListDock",),
        "Your turn", "轮到你了",
        "That is the layer: 22 checkable steps, two Euler sub-steps in depth time, and a mask "
        "that keeps the past independent of the future. Type your own sentence, switch "
        "views, export any panel (File ▸ Export), or press F1 for every shortcut.",
        "这就是这一层：22 个可核对的步骤，深度时间里的两次欧拉子步，以及一个让过去不受未来影响的"
        "掩码。输入你自己的句子，切换视角，导出任意面板（文件 ▸ 导出），或按 F1 查看所有快捷键。",
        causal=True),
)


class TourController(QObject):
    """Where the tour is. ``stop_changed(index)`` fires on every move (and on start)."""

    stop_changed = Signal(int)
    running_changed = Signal(bool)

    def __init__(self, stops: tuple[TourStop, ...] = STOPS,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.stops = stops
        self.index = 0
        self.running = False

    @property
    def stop(self) -> TourStop:
        return self.stops[self.index]

    def start(self, index: int = 0) -> None:
        self.running = True
        self.running_changed.emit(True)
        self.go(index)

    def stop_tour(self) -> None:
        if self.running:
            self.running = False
            self.running_changed.emit(False)

    def go(self, index: int) -> None:
        self.index = min(max(int(index), 0), len(self.stops) - 1)
        self.stop_changed.emit(self.index)

    def next(self) -> bool:
        if self.index >= len(self.stops) - 1:
            return False
        self.go(self.index + 1)
        return True

    def back(self) -> bool:
        if self.index <= 0:
            return False
        self.go(self.index - 1)
        return True


def badge_html(badge: str, paper_id: str, language: str) -> str:
    background, colour = BADGE_COLOURS[badge]
    name = f"{badge} {BADGE_NAMES_ZH[badge]}" if language == "zh" else badge
    label = f"{name} · {paper_id}" if paper_id else name
    return (f"<span style='background-color:{background}; color:{colour}; font-weight:bold;'>"
            f"&nbsp;{label}&nbsp;</span>")


class TourPanel(QWidget):
    """The tour's text, badge and Back / Next; lives in a dock, never blocks the window."""

    def __init__(self, controller: TourController, state: QObject,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("tourPanel")
        self.controller = controller
        self.state = state
        self.section = QLabel()
        self.section.setObjectName("tourSection")
        # wraps rather than hold the tour ~100 px wider than its buttons: on a 1280 px
        # projector in presentation mode that width squeezed a column's tab titles to "S…"
        self.section.setWordWrap(True)
        self.title = QLabel()
        self.title.setObjectName("tourTitle")
        self.title.setWordWrap(True)
        self.badge = QLabel()
        self.badge.setObjectName("tourBadge")
        self.badge.setTextFormat(Qt.TextFormat.RichText)
        self.body = QLabel()
        self.body.setObjectName("tourBody")
        self.body.setWordWrap(True)
        self.body.setTextFormat(Qt.TextFormat.RichText)
        self.body.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setWidget(self.body)
        self.progress = QProgressBar()
        self.progress.setObjectName("tourProgress")
        self.progress.setTextVisible(True)
        self.progress.setMaximumHeight(14)
        self.back_button = QPushButton()
        self.back_button.setObjectName("tourBack")
        self.next_button = QPushButton()
        self.next_button.setObjectName("tourNext")
        self.next_button.setDefault(True)
        self.close_button = QPushButton()
        self.close_button.setObjectName("tourClose")

        self.scroll = scroll
        top = QHBoxLayout()
        top.addWidget(self.section, 1)
        top.addWidget(self.badge)
        buttons = QHBoxLayout()
        buttons.addWidget(self.close_button)
        buttons.addStretch(1)
        buttons.addWidget(self.back_button)
        buttons.addWidget(self.next_button)
        # the text, and the controls: one above the other in a column at the window's side,
        # side by side in a band across it (presentation mode: set_band)
        self.text_box = QVBoxLayout()
        self.text_box.addLayout(top)
        self.text_box.addWidget(self.title)
        self.text_box.addWidget(scroll, 1)
        self.controls_box = QVBoxLayout()
        self.controls_box.addWidget(self.progress)
        self.controls_box.addLayout(buttons)
        self.layout_box = QBoxLayout(QBoxLayout.Direction.TopToBottom, self)
        self.layout_box.setContentsMargins(8, 6, 8, 6)
        self.layout_box.addLayout(self.text_box, 1)
        self.layout_box.addLayout(self.controls_box)
        #: a band across the window (text left, controls right) rather than a column
        self.band = False

        self.back_button.clicked.connect(controller.back)
        self.next_button.clicked.connect(self._on_next)
        self.close_button.clicked.connect(controller.stop_tour)
        controller.stop_changed.connect(lambda _i: self.refresh())
        state.language_changed.connect(lambda _lang: self.refresh())  # type: ignore[attr-defined]
        self.retranslate()

    def set_band(self, band: bool) -> None:
        """Lay the panel out as a band across the window (the text, then the progress and
        buttons at its right end) or as a column (the controls under the text)."""
        self.band = band
        self.layout_box.setDirection(QBoxLayout.Direction.LeftToRight if band
                                     else QBoxLayout.Direction.TopToBottom)
        self.controls_box.setAlignment(Qt.AlignmentFlag.AlignBottom if band
                                       else Qt.AlignmentFlag(0))

    def band_height(self, width: int) -> int:
        """The height the band needs at ``width`` to show this stop's whole text (no
        scrolling): the text column's wrapped height, or the controls' if taller."""
        margins = self.layout_box.contentsMargins()
        spacing = max(self.layout_box.spacing(), 0)
        controls = self.controls_box.sizeHint().width()
        text_width = max(width - margins.left() - margins.right() - spacing - controls, 100)
        inner = max(self.text_box.spacing(), 0)
        text = (max(self.section.heightForWidth(text_width), self.badge.sizeHint().height())
                + self.title.heightForWidth(text_width)
                + self.body.heightForWidth(text_width) + 2 * inner)
        return max(text, self.controls_box.sizeHint().height()) + margins.top() \
            + margins.bottom() + 4

    def _on_next(self) -> None:
        if not self.controller.next():
            self.controller.stop_tour()  # "Finish" on the last stop

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()

    def retranslate(self) -> None:
        self.back_button.setText(self.tr("◀ Back"))
        self.back_button.setToolTip(self.tr("Previous stop (PageUp)"))
        self.next_button.setToolTip(self.tr("Next stop (PageDown)"))
        self.close_button.setText(self.tr("End tour"))
        self.refresh()

    def section_name(self, section: str) -> str:
        return {"discrete": self.tr("Discrete view — the 22 steps"),
                "continuous": self.tr("Continuous view"),
                "causality": self.tr("Causality demo")}[section]

    def refresh(self) -> None:
        c = self.controller
        stop = c.stop
        language = self.state.language  # type: ignore[attr-defined]
        self.section.setText(self.section_name(stop.section))
        self.title.setText(f"<b>{stop.title(language)}</b>")
        self.badge.setText(badge_html(stop.badge, stop.paper_id, language) if stop.badge else "")
        self.badge.setVisible(stop.badge is not None)
        self.badge.setToolTip(self.badge_tooltip(stop.badge) if stop.badge else "")
        self.body.setText(stop.body(language))
        self.progress.setRange(0, len(c.stops))
        self.progress.setValue(c.index + 1)
        self.progress.setFormat(f"{c.index + 1} / {len(c.stops)}")
        last = c.index == len(c.stops) - 1
        self.back_button.setEnabled(c.index > 0)
        self.next_button.setText(self.tr("Finish") if last else self.tr("Next ▶"))

    def badge_tooltip(self, badge: str) -> str:
        return {"EXACT": self.tr("EXACT: asserted by a test in float64 (PAPER.md id shown)"),
                "ANALOGY": self.tr("ANALOGY: a way of reading it, with a caveat; never asserted"),
                "INTERPOLATION": self.tr("INTERPOLATION: a drawing aid between computed "
                                         "points")}[badge]
