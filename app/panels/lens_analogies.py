"""Lens: the articles' physics analogies, each with why it is only an analogy and the exact
statement that replaces it (docs/continuous.md, "Only analogies").

A rich-text page in the app's language. Every analogy carries an ANALOGY badge; every
replacement names its id in docs/continuous.md and links to the panel that shows it (a click
raises that dock). A short second list names the readings that sound like analogies but are exact.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication, QUrl
from PySide6.QtWidgets import QTextBrowser, QVBoxLayout, QWidget

from app import theme
from app.compute import Result
from app.docks import DOCKS
from app.panels.lens_base import LensHeader, LensPanel, badge_tip, pick
from app.widgets.claim_badge import BADGE_COLOURS


@dataclass(frozen=True)
class Analogy:
    claim: str
    claim_zh: str
    why: str
    why_zh: str
    exact: str
    exact_zh: str
    #: (docs/continuous.md id, dock object name or "" when only an engine test shows it)
    where: tuple[tuple[str, str], ...]


ANALOGIES: tuple[Analogy, ...] = (
    Analogy(
        "The loss is an action, and training follows a least-action path.",
        "损失函数就是作用量，训练沿最小作用量路径进行。",
        "An action is a path integral that nature makes stationary along the motion itself. "
        "Training does something else: it lowers a cost measured only at the end of the "
        "forward pass, by many small dissipative steps on the weights. Gradient descent is "
        "forward Euler for Ẇ = −∇L in <i>training</i> time, which is not the depth time the "
        "hidden state moves in.",
        "作用量是沿运动路径本身取驻值的路径积分。训练做的是另一件事：它只在前向传播终点"
        "度量代价，并用许多耗散的小步更新权重。梯度下降是 Ẇ = −∇L 在<i>训练</i>时间上的"
        "前向欧拉法，而不是隐藏状态所在的深度时间。",
        "Depth is time and the weights are time-dependent controls: training is an "
        "optimal-control problem with a terminal cost, and backpropagation is its discrete "
        "adjoint. Each residual addition is one explicit Euler step in depth time.",
        "深度是时间，权重是随时间变化的控制量：训练是带终端代价的最优控制问题，"
        "反向传播是它的离散伴随。每次残差相加都是深度时间上的一次显式欧拉步。",
        (("E14", "depthDock"), ("E13", "lensConvergenceDock")),
    ),
    Analogy(
        "Attention is the gradient of a potential (Q, K, V as an interaction potential).",
        "注意力是某个势能的梯度（Q、K、V 构成相互作用势）。",
        "A force that is a gradient needs special symmetric weights; for general W_Q, W_K, "
        "W_V the attention update is no gradient of any energy, and nothing is conserved.",
        "只有对称的特殊权重才能让它成为梯度；一般的 W_Q、W_K、W_V 给出的注意力更新"
        "不是任何能量的梯度，也没有守恒量。",
        "Softmax is exactly a Boltzmann distribution over the keys at temperature √d, and "
        "each output coordinate is a convex combination of that column of V.",
        "Softmax 恰好是键上温度为 √d 的玻尔兹曼分布；每个输出坐标都是 V 对应列的凸组合。",
        (("E16", "lensTemperatureDock"), ("E19", "")),
    ),
    Analogy(
        "Dropping 1/√d freezes softmax into a one-hot “Bose–Einstein condensate”.",
        "去掉 1/√d 会让 softmax 冻结成独热的“玻色–爱因斯坦凝聚”。",
        "τ = 1 is a finite temperature. The weights get sharper but every visible key keeps "
        "a nonzero share; one-hot is only the limit τ → 0.",
        "τ = 1 仍是有限温度。权重变得更尖锐，但每个可见的键仍分得非零权重；"
        "只有 τ → 0 的极限才是独热。",
        "Entropy falls monotonically as τ falls; with d = 128 and random q, k the mean "
        "largest weight at τ = 1 is about 0.9, not 1.",
        "熵随 τ 降低单调下降；d = 128、随机 q、k 时，τ = 1 的平均最大权重约为 0.9，不是 1。",
        (("E17", "lensTemperatureDock"), ("E18", "lensTemperatureDock")),
    ),
    Analogy(
        "LayerNorm is a thermostat that holds the network's temperature.",
        "LayerNorm 是一个让网络保持“温度”的恒温器。",
        "There is no temperature and no feedback loop: LayerNorm is a fixed map that puts "
        "each token on a set of given mean and variance.",
        "这里既没有温度，也没有反馈回路：LayerNorm 只是一个固定映射，"
        "把每个词元放到给定均值和方差的集合上。",
        "LayerNorm (ε = 0) is the nearest point of that set, and in a post-norm stack with "
        "ε = 0 mean(u²) equals σ₁² + σ₂² after every layer.",
        "LayerNorm（ε = 0）是该集合上的最近点；ε = 0 的后归一化堆叠中每层之后 "
        "mean(u²) 恰为 σ₁² + σ₂²。",
        (("E5", "lensProjectionDock"), ("E20", "lensEnergyDock")),
    ),
    Analogy(
        "Multi-head attention is like different fundamental forces.",
        "多头注意力就像不同的基本相互作用力。",
        "Heads are not different kinds of interaction: they share one form, are learnt, "
        "and can be renumbered without changing anything.",
        "各个头并不是不同种类的相互作用：它们形式相同、由训练得到，"
        "重新编号也不改变任何结果。",
        "The multi-head output is the plain sum of per-head contributions head_h·W_O,h.",
        "多头输出就是各头贡献 head_h·W_O,h 的简单求和。",
        (("E23", ""),),
    ),
    Analogy(
        "Skipping layers is just a larger Δt, no retraining needed.",
        "跳过若干层只是取更大的 Δt，无需重新训练。",
        "That holds only when the weights vary smoothly with depth. Trained layers are not "
        "samples of a smooth control, and Δt cannot even be read off a block: any Δt gives "
        "the same block with rescaled weights.",
        "只有权重随深度平滑变化时才成立。训练好的各层并不是平滑控制的采样；"
        "而且 Δt 无法从块中读出：任何 Δt 都对应权重重新缩放后的同一个块。",
        "Δt is not identifiable; sub-stepping one layer converges to its flow at first order.",
        "Δt 不可辨识；把一层拆成更小的子步，会以一阶收敛到它的流。",
        (("E2", "lensSplittingDock"), ("E13", "lensConvergenceDock")),
    ),
    Analogy(
        "The network solves the PDE.",
        "网络在求解这个偏微分方程。",
        "At Δt = 1 a layer is far from its own flow, and whether the equation is even "
        "well-posed is an open question.",
        "Δt = 1 时一层离它自己的流还很远；方程是否适定仍是未解决的问题。",
        "The error to the flow halves each time the number of sub-steps doubles; n = 1, the "
        "real layer, is the worst point of that line.",
        "子步数每翻一倍，到流的误差减半；n = 1（真实的层）是这条线上最差的点。",
        (("E13", "lensConvergenceDock"),),
    ),
    Analogy(
        "Pre-norm won because post-norm overflows.",
        "前归一化胜出，是因为后归一化会溢出。",
        "Post-norm keeps activations bounded by construction. The documented reason for "
        "pre-norm is the gradient scale at initialisation (post-norm needs warm-up).",
        "后归一化的激活值天然有界。文献给出的前归一化优势是初始化时的梯度尺度"
        "（后归一化需要预热）。",
        "With ε = 0 the post-norm energy is flat at σ₁² + σ₂² and pre-norm sublayers read rms "
        "exactly |γ|, while the pre-norm residual stream grows.",
        "ε = 0 时，后归一化的能量恒为 σ₁² + σ₂²，前归一化的子层输入 rms 恰为 |γ|，"
        "而前归一化的残差流在增长。",
        (("E20", "lensEnergyDock"), ("E21", "lensEnergyDock")),
    ),
)

#: Readings that sound like analogies but are exact: (en, zh, id, dock).
EXACT_READINGS: tuple[tuple[str, str, str, str], ...] = (
    ("Softmax is a Boltzmann distribution (temperature √d).",
     "Softmax 是玻尔兹曼分布（温度 √d）。", "E16", "lensTemperatureDock"),
    ("A residual addition is an explicit Euler step; a partial step x + s·F(x) is a true "
     "Euler step of size s.",
     "残差相加是一次显式欧拉步；部分步 x + s·F(x) 是步长为 s 的真正欧拉步。",
     "E14", "depthDock"),
    ("LayerNorm (ε = 0) is the nearest-point projection onto {mean σ₁, variance σ₂²}.",
     "LayerNorm（ε = 0）是到 {均值 σ₁，方差 σ₂²} 的最近点投影。", "E5", "lensProjectionDock"),
    ("The 2017 encoder block is one six-sub-step Lie splitting step.",
     "2017 年的编码器块就是一个六子步的 Lie 算子分裂时间步。", "E1", "lensSplittingDock"),
)

#: Dock object name -> its title, as the View menu and the dock's tab show it (translated when
#: the page is laid out), so a link names the panel exactly as the learner finds it.
DOCK_TITLES: dict[str, str] = {spec.object_name: spec.title for spec in DOCKS}


def dock_title(dock: str) -> str:
    return QCoreApplication.translate("Docks", DOCK_TITLES[dock])


def badge_html(kind: str, paper_id: str = "") -> str:
    background, colour = BADGE_COLOURS[kind]
    text = f"{kind} · {paper_id}" if paper_id else kind
    return (f"<span style='background-color:{background}; color:{colour}; "
            f"font-weight:bold; font-size:8pt'>&nbsp;{text}&nbsp;</span>")


class AnalogiesPanel(LensPanel):
    def build(self) -> None:
        body = QWidget()
        self.header = LensHeader([("ANALOGY", "")])
        self.browser = QTextBrowser()
        self.browser.setObjectName("analogiesBrowser")
        self.browser.setOpenLinks(False)
        self.browser.anchorClicked.connect(self._on_link)
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(3)
        layout.addWidget(self.header)
        layout.addWidget(self.browser, 1)
        self.set_body(body)
        self._page_key: tuple[str, str] = ("", "")
        #: the dock a link last opened (for tests)
        self.opened_dock = ""

    def _redraw(self) -> None:
        """The page does not depend on the sentence: show it even before there is a result."""
        super()._redraw()
        self._stack.setCurrentIndex(1)
        if self.state.result is None:
            self.redraw(None)  # type: ignore[arg-type]

    def _retranslate(self) -> None:
        self.header.set_texts(
            self.tr("Analogies and what is exact"),
            pick(self.state,
                 "The source articles read the layer through physics. Each analogy below is "
                 "a picture, not a theorem: here is why, and the exact statement to use instead "
                 "(click a panel name to open it).",
                 "原文用物理来解读这一层。下面每个类比都只是图像，不是定理：这里说明原因，"
                 "并给出可替代它的精确陈述（点击面板名称即可打开）。"),
            [badge_tip(self, "ANALOGY")])
        self._show_page()

    def redraw(self, result: Result | None) -> None:
        self._show_page()

    def _show_page(self) -> None:
        """Lay the page out again only when its language or theme changed (a long rich text
        costs ~100 ms to lay out; Qt's LanguageChange and the state's signal both ask for it).
        The theme counts: the document takes its link colour from the palette when it is set."""
        key = (self.state.language, theme.current_theme())
        if self._page_key != key:
            self._page_key = key
            self.browser.setHtml(self.page_html())

    def _where_html(self, where: tuple[tuple[str, str], ...]) -> str:
        zh = self.state.language == "zh"
        parts = []
        for paper_id, dock in where:
            if dock:
                name = dock_title(dock)
                parts.append(f"{badge_html('EXACT', paper_id)} "
                             f"<a href='dock:{dock}'>{html.escape(name)}</a>")
            else:
                test = "引擎测试" if zh else "engine test"
                parts.append(f"{badge_html('EXACT', paper_id)} {test}")
        return " &nbsp; ".join(parts)

    def page_html(self) -> str:
        zh = self.state.language == "zh"
        why_word = "为什么只是类比：" if zh else "Why only an analogy: "
        exact_word = "精确的说法：" if zh else "What is exact: "
        rows = []
        for a in ANALOGIES:
            rows.append(
                "<p style='margin-top:8px; margin-bottom:2px'>"
                f"{badge_html('ANALOGY')} <b>“{html.escape(a.claim_zh if zh else a.claim)}”</b>"
                "</p>"
                f"<p style='margin-left:12px; margin-top:0px; margin-bottom:0px'>"
                f"<i>{why_word}</i>{a.why_zh if zh else a.why}</p>"
                f"<p style='margin-left:12px; margin-top:2px; margin-bottom:0px'>"
                f"<i>{exact_word}</i>{a.exact_zh if zh else a.exact}<br>"
                f"{self._where_html(a.where)}</p>")
        heading = "听起来像类比，其实是精确的" if zh else "Sounds like an analogy, but is exact"
        exact_rows = []
        for en, zh_text, paper_id, dock in EXACT_READINGS:
            name = dock_title(dock)
            exact_rows.append(
                f"<li>{badge_html('EXACT', paper_id)} {html.escape(zh_text if zh else en)} "
                f"<a href='dock:{dock}'>{html.escape(name)}</a></li>")
        return ("<div style='font-size:10pt'>" + "".join(rows)
                + f"<h4 style='margin-top:14px'>{heading}</h4><ul style='margin-top:0px'>"
                + "".join(exact_rows) + "</ul></div>")

    @property
    def analogy_count(self) -> int:
        return len(ANALOGIES)

    def _on_link(self, url: QUrl) -> None:
        if url.scheme() != "dock":
            return
        docks = getattr(self.window(), "docks", {})
        dock = docks.get(url.path())
        if dock is not None:
            dock.show()
            dock.raise_()
            self.opened_dock = url.path()
