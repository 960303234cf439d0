<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>AnalogiesPanel</name>
    <message>
        <source>Analogies and what is exact</source>
        <translation>类比，以及其中哪些是精确的</translation>
    </message>
    <message>
        <source>Exact: a test asserts this statement in float64.</source>
        <translation>精确：有测试在 float64 下断言这一结论。</translation>
    </message>
    <message>
        <source>Analogy: shown with its caveat, never asserted.</source>
        <translation>类比：附带说明展示，从不作为断言。</translation>
    </message>
</context>
<context>
    <name>AppState</name>
    <message>
        <source>id %1 · %2</source>
        <translation>编号 %1 · %2</translation>
    </message>
</context>
<context>
    <name>AttentionGraphPanel</name>
    <message>
        <source>Query token:</source>
        <translation>查询词元：</translation>
    </message>
    <message>
        <source>Head:</source>
        <translation>头：</translation>
    </message>
    <message>
        <source>The token that reads (click a node to choose it)</source>
        <translation>负责读取的词元（点击节点来选择）</translation>
    </message>
    <message>
        <source>Query head; shared with the step heatmap</source>
        <translation>查询头；与步骤热图共用</translation>
    </message>
    <message>
        <source>masked (future)</source>
        <translation>已掩码（未来）</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Switch this head off: its attention output is zero before o_proj (its pattern, drawn here, is still computed); every panel then shows the intervened layer</source>
        <translation>关掉这个头：它的注意力输出在 o_proj 之前置零（这里画出的注意力模式仍会计算）；之后每个面板都显示干预后的层</translation>
    </message>
    <message>
        <source>MHA: query head %1 has its own key/value head %2.</source>
        <translation>MHA：查询头 %1 有自己的键/值头 %2。</translation>
    </message>
    <message>
        <source>GQA: query head %1 reads kv head %2, shared with query head(s) %3 — same K and V, different weights because q differs.</source>
        <translation>GQA：查询头 %1 读取键值头 %2，与查询头 %3 共用——K 和 V 相同，权重不同是因为 q 不同。</translation>
    </message>
    <message>
        <source>masked</source>
        <translation>已掩码</translation>
    </message>
    <message>
        <source>entropy H = %1 nats</source>
        <translation>熵 H = %1 奈特</translation>
    </message>
    <message>
        <source>causal bound log(%1 + 1) = %2</source>
        <translation>因果上界 log(%1 + 1) = %2</translation>
    </message>
    <message>
        <source>bound with the mask off log T = log %1 = %2</source>
        <translation>关闭掩码时的上界 log T = log %1 = %2</translation>
    </message>
    <message>
        <source>strongest: %1 “%2” %3</source>
        <translation>最强：%1 “%2” %3</translation>
    </message>
    <message>
        <source>orange = the query; line width and opacity grow with the weight (√ scale, %1 steps)</source>
        <translation>橙色 = 查询；线宽和不透明度随权重增大（√ 刻度，%1 档）</translation>
    </message>
    <message>
        <source>; grey dashed = masked future token (weight 0)</source>
        <translation>；灰色虚线 = 被掩码的未来词元（权重 0）</translation>
    </message>
    <message>
        <source>Causal mask off: every token also reads the future (View ▸ Causal mask, M).</source>
        <translation>因果掩码已关闭：每个词元也会读取未来（视图 ▸ 因果掩码，M 键）。</translation>
    </message>
    <message>
        <source>; showing the %1 heaviest of %2 links</source>
        <translation>；显示 %2 条连线中最重的 %1 条</translation>
    </message>
    <message>
        <source>key %1 “%2” → query %3 “%4”, head %5: weight %6</source>
        <translation>键 %1 “%2” → 查询 %3 “%4”，头 %5：权重 %6</translation>
    </message>
    <message>
        <source> (masked: score −∞ before the softmax)</source>
        <translation>（已掩码：softmax 之前分数为 −∞）</translation>
    </message>
    <message>
        <source> · score q·k/√d = %1</source>
        <translation> · 分数 q·k/√d = %1</translation>
    </message>
    <message>
        <source>Hover a token or a link for its exact weight; click a token to make it the query.</source>
        <translation>把鼠标悬停在词元或连线上可查看精确权重；点击词元把它设为查询。</translation>
    </message>
</context>
<context>
    <name>CausalityPanel</name>
    <message>
        <source>Pin baseline</source>
        <translation>固定基准</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>详情</translation>
    </message>
    <message>
        <source>Show what was compared, the next thing to try and the colour key (folded away while the panel is short, so the three views keep their height).</source>
        <translation>显示比较的对象、下一步可以尝试什么以及颜色说明（面板较矮时会收起，让三个视图保持足够的高度）。</translation>
    </message>
    <message>
        <source>Compare every following edit with the input on screen now (instead of with the previous input). Click again to release.</source>
        <translation>之后的每次修改都与当前屏幕上的输入比较（而不是与上一次输入比较）。再点一次取消。</translation>
    </message>
    <message>
        <source>E11 (exact, tested): editing token k leaves every earlier row of every step bitwise unchanged — except the raw scores of the future columns, which the mask removes. With the mask off, earlier rows change.</source>
        <translation>E11（精确，已测试）：修改词元 k 后，每一步中它之前的每一行都逐位不变——唯一的例外是未来列的原始分数，而掩码正好把它们去掉。关闭掩码后，前面的行会改变。</translation>
    </message>
    <message>
        <source>Head:</source>
        <translation>头：</translation>
    </message>
    <message>
        <source>Query head of the per-head steps (shared with the step heatmap)</source>
        <translation>按头计算的步骤所显示的查询头（与步骤热图共用）</translation>
    </message>
    <message>
        <source>all steps: max |Δ| per row</source>
        <translation>所有步骤：每行的最大 |Δ|</translation>
    </message>
    <message>
        <source>this step: max |Δ| per row</source>
        <translation>本步骤：每行的最大 |Δ|</translation>
    </message>
    <message>
        <source>step</source>
        <translation>步骤</translation>
    </message>
    <message>
        <source>token</source>
        <translation>词元</translation>
    </message>
    <message>
        <source>kv head %1</source>
        <translation>键值头 %1</translation>
    </message>
    <message>
        <source>head %1</source>
        <translation>头 %1</translation>
    </message>
    <message>
        <source>|after − before|</source>
        <translation>|之后 − 之前|</translation>
    </message>
    <message>
        <source>this step: |after − before|</source>
        <translation>本步骤：|之后 − 之前|</translation>
    </message>
    <message>
        <source>this step: baseline not in memory</source>
        <translation>本步骤：基准不在内存中</translation>
    </message>
    <message>
        <source>&lt;span style=&apos;background:%1&apos;&gt;&amp;nbsp;&amp;nbsp;&amp;nbsp;&amp;nbsp;&lt;/span&gt; 0 exactly · colour log₁₀|Δ| (scale under the bars) · &lt;span style=&apos;color:%2&apos;&gt;&lt;b&gt;- -&lt;/b&gt;&lt;/span&gt; token k · &lt;span style=&apos;color:%3&apos;&gt;&lt;b&gt;□&lt;/b&gt;&lt;/span&gt; changed masked score</source>
        <translation>&lt;span style=&apos;background:%1&apos;&gt;&amp;nbsp;&amp;nbsp;&amp;nbsp;&amp;nbsp;&lt;/span&gt; 精确为 0 · 颜色表示 log₁₀|Δ|（刻度在色条下方）· &lt;span style=&apos;color:%2&apos;&gt;&lt;b&gt;- -&lt;/b&gt;&lt;/span&gt; 词元 k · &lt;span style=&apos;color:%3&apos;&gt;&lt;b&gt;□&lt;/b&gt;&lt;/span&gt; 改变了的被掩码分数</translation>
    </message>
    <message>
        <source>Teal: the difference is exactly 0 (bitwise equal). Other colours: log₁₀ of |Δ|, pale for rounding (1e-16), dark for a real change. The dashed line is the first changed token k. An orange box is a raw score q·k that changed in a row before k: it lies in the future (j &gt; i, shaded), which causal_mask removes.</source>
        <translation>青色：差值精确为 0（逐位相等）。其他颜色：|Δ| 的 log₁₀，浅色是舍入误差（1e-16），深色是真正的变化。虚线是第一个改变的词元 k。橙色方框是 k 之前某行中改变了的原始分数 q·k：它位于未来（j &gt; i，阴影区域），会被 causal_mask 去掉。</translation>
    </message>
    <message>
        <source>rows before k changed only in the masked future (outlined)</source>
        <translation>k 之前的行只在被掩码的未来部分有变化（已框出）</translation>
    </message>
    <message>
        <source>Pin baseline keeps comparing with the input on screen now, so you can make several edits in a row.</source>
        <translation>“固定基准”会一直与当前屏幕上的输入比较，这样可以连续做几次修改。</translation>
    </message>
    <message>
        <source>✓ Pinned</source>
        <translation>✓ 已固定</translation>
    </message>
    <message>
        <source>%1 · step %2 %3 · max |Δ| of the row = %4</source>
        <translation>%1 · 第 %2 步 %3 · 该行最大 |Δ| = %4</translation>
    </message>
    <message>
        <source>0 (bitwise equal)</source>
        <translation>0（逐位相等）</translation>
    </message>
    <message>
        <source>%1 · column %2 · |Δ| = %3</source>
        <translation>%1 · 第 %2 列 · |Δ| = %3</translation>
    </message>
    <message>
        <source>feature</source>
        <translation>特征</translation>
    </message>
    <message>
        <source>key token</source>
        <translation>键词元</translation>
    </message>
    <message>
        <source>feature (K | V)</source>
        <translation>特征（K | V）</translation>
    </message>
</context>
<context>
    <name>CausalityWords</name>
    <message numerus="yes">
        <source>In the input and all %1 steps, except %n raw score(s) in attn_scores (step 10): all in the future column(s) j ≥ k — exactly what causal_mask (step 11) removes.</source>
        <translation>
            <numerusform>在输入和全部 %1 个步骤中，只有 attn_scores（第 10 步）中的 %n 个原始分数例外：它们都在未来列 j ≥ k 中——正是 causal_mask（第 11 步）要去掉的。</numerusform>
        </translation>
    </message>
    <message>
        <source>on</source>
        <translation>开启</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Baseline pinned</source>
        <translation>已固定基准</translation>
    </message>
    <message>
        <source>“%1” (%2 tokens) is the baseline now: edit the text and every input is compared with it until you release the pin.</source>
        <translation>“%1”（%2 个词元）现在是基准：修改文本，之后的每次输入都会与它比较，直到取消固定。</translation>
    </message>
    <message>
        <source>Try it: &lt;b&gt;edit the last word&lt;/b&gt; (keep the number of tokens) — every earlier row should stay exactly the same.</source>
        <translation>试一试：&lt;b&gt;修改最后一个词&lt;/b&gt;（保持词元数量不变）——前面的每一行都应当完全不变。</translation>
    </message>
    <message>
        <source>The mask is off: &lt;b&gt;edit the last word&lt;/b&gt; and see the earlier rows change.</source>
        <translation>掩码已关闭：&lt;b&gt;修改最后一个词&lt;/b&gt;，看前面的行如何改变。</translation>
    </message>
    <message>
        <source>No comparison yet</source>
        <translation>尚无比较</translation>
    </message>
    <message>
        <source>The pinned baseline was computed with the mask %1: release the pin to compare this layer with itself.</source>
        <translation>固定的基准是在掩码%1时计算的：取消固定，才能让这一层与自身比较。</translation>
    </message>
    <message>
        <source>The causal mask was just switched %1: the new layer has nothing of its own kind to compare with yet.</source>
        <translation>因果掩码刚刚切换为%1：新的层还没有同类的结果可以比较。</translation>
    </message>
    <message>
        <source>The layer itself changed (config or weights): there is nothing of the same layer to compare with yet.</source>
        <translation>层本身改变了（配置或权重）：还没有同一层的结果可以比较。</translation>
    </message>
    <message>
        <source>This is the first input: there is nothing to compare it with yet.</source>
        <translation>这是第一次输入：还没有可以比较的对象。</translation>
    </message>
    <message>
        <source>Before: “%1” (%2, %3 tokens).</source>
        <translation>之前：“%1”（%2，%3 个词元）。</translation>
    </message>
    <message>
        <source>previous input</source>
        <translation>上一次输入</translation>
    </message>
    <message>
        <source>pinned baseline</source>
        <translation>固定的基准</translation>
    </message>
    <message>
        <source>the sentence before this edit: the last input of as many tokens</source>
        <translation>这次修改之前的句子：词元数相同的最近一次输入</translation>
    </message>
    <message>
        <source>Same tokens as the baseline: nothing changed</source>
        <translation>与基准的词元相同：没有任何变化</translation>
    </message>
    <message>
        <source>token %1 “%2”</source>
        <translation>词元 %1 “%2”</translation>
    </message>
    <message>
        <source>removed token %1 “%2”</source>
        <translation>删去的词元 %1 “%2”</translation>
    </message>
    <message>
        <source>The first token changed: there are no earlier rows to check</source>
        <translation>第一个词元变了：没有更早的行可以检查</translation>
    </message>
    <message>
        <source>Edit a later token — e.g. &lt;b&gt;the last word&lt;/b&gt; — and watch the rows before it.</source>
        <translation>修改靠后的词元——例如&lt;b&gt;最后一个词&lt;/b&gt;——观察它前面的行。</translation>
    </message>
    <message>
        <source>appended</source>
        <translation>追加</translation>
    </message>
    <message>
        <source>removed</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>%1 → %2 tokens (%3 at the end): the common prefix agrees up to rounding, max |Δ| = %4</source>
        <translation>%1 → %2 个词元（末尾%3）：公共前缀在舍入误差内一致，最大 |Δ| = %4</translation>
    </message>
    <message>
        <source>%1 → %2 tokens: rows before %3 agree up to rounding, max |Δ| = %4</source>
        <translation>%1 → %2 个词元：%3 之前的行在舍入误差内一致，最大 |Δ| = %4</translation>
    </message>
    <message>
        <source>E12: allclose (1e-12), &lt;b&gt;not&lt;/b&gt; bitwise — a new shape may change how the matrix products are blocked.</source>
        <translation>E12：近似相等（1e-12），&lt;b&gt;不是&lt;/b&gt;逐位相等——新的形状可能改变矩阵乘法的分块方式。</translation>
    </message>
    <message>
        <source>(Here it happens to be 0.)</source>
        <translation>（这里恰好是 0。）</translation>
    </message>
    <message>
        <source>For the bitwise test keep the token count: &lt;b&gt;edit the last word&lt;/b&gt; instead of adding or removing one.</source>
        <translation>要做逐位检验，请保持词元数量不变：&lt;b&gt;修改最后一个词&lt;/b&gt;，而不是增删词。</translation>
    </message>
    <message>
        <source>Every row before %1 is bitwise identical (max |Δ| = 0)</source>
        <translation>%1 之前的每一行都逐位相同（最大 |Δ| = 0）</translation>
    </message>
    <message>
        <source>In the input and all %1 steps.</source>
        <translation>在输入和全部 %1 个步骤中。</translation>
    </message>
    <message>
        <source>Unexpected: raw scores outside the future columns changed.</source>
        <translation>意外：未来列之外的原始分数改变了。</translation>
    </message>
    <message>
        <source>Next: turn the mask off (View ▸ Causal mask, key M) and edit the last word again.</source>
        <translation>下一步：关闭掩码（视图 ▸ 因果掩码，M 键），再修改一次最后一个词。</translation>
    </message>
    <message>
        <source>Unexpected: earlier rows changed although the mask is on (max |Δ| = %1)</source>
        <translation>意外：掩码开启，前面的行却改变了（最大 |Δ| = %1）</translation>
    </message>
    <message>
        <source>Mask off: earlier rows changed (max |Δ| = %1 before %2)</source>
        <translation>掩码关闭：前面的行变了（%2 之前最大 |Δ| = %1）</translation>
    </message>
    <message>
        <source>%1 of %2 steps changed rows before k, from step %3 %4 on: nothing removes the future key any more.</source>
        <translation>%2 个步骤中有 %1 个改变了 k 之前的行，从第 %3 步 %4 开始：不再有任何东西去掉未来的键。</translation>
    </message>
    <message>
        <source>Turn the mask back on (View ▸ Causal mask, key M) and edit again: the earlier rows return to exactly 0.</source>
        <translation>重新打开掩码（视图 ▸ 因果掩码，M 键）再修改一次：前面的行又回到精确的 0。</translation>
    </message>
    <message>
        <source>Intervention vs the plain layer: every step identical (it changes nothing on this input)</source>
        <translation>干预与原始层对比：每一步都相同（在这个输入上它什么也没改变）</translation>
    </message>
    <message>
        <source>Intervention vs the plain layer: steps 0–%1 identical; %2 is the first that differs</source>
        <translation>干预与原始层对比：第 0–%1 步相同；%2 是第一个不同的步骤</translation>
    </message>
    <message>
        <source>attn_context differs only in head %1&apos;s columns (max |Δ| = %2).</source>
        <translation>attn_context 只在头 %1 的列上不同（最大 |Δ| = %2）。</translation>
    </message>
    <message>
        <source>attn_context differs only in the columns of heads %1 (max |Δ| = %2).</source>
        <translation>attn_context 只在头 %1 的列上不同（最大 |Δ| = %2）。</translation>
    </message>
    <message>
        <source>Unexpected: attn_context differs in the columns of heads %1, not only the ones switched.</source>
        <translation>意外：attn_context 在头 %1 的列上不同，不只是被关掉的那些。</translation>
    </message>
    <message>
        <source>Unexpected: %1 differs before %2, where the intervention acts.</source>
        <translation>意外：%1 在干预起作用的 %2 之前就不同了。</translation>
    </message>
    <message>
        <source>%1 of %2 token rows change in %3 (max |Δ| = %4).</source>
        <translation>%3 中 %2 个词元行里有 %1 行改变（最大 |Δ| = %4）。</translation>
    </message>
</context>
<context>
    <name>ConvergencePanel</name>
    <message>
        <source>Convergence to the flow</source>
        <translation>收敛到连续流</translation>
    </message>
    <message>
        <source>fit slopes over n ≥</source>
        <translation>拟合斜率所用 n ≥</translation>
    </message>
    <message>
        <source>distance to the real layer (n = 1)</source>
        <translation>与真实层（n = 1）的距离</translation>
    </message>
    <message>
        <source>sub-steps n (log)</source>
        <translation>子步数 n（对数）</translation>
    </message>
    <message>
        <source>sub-steps n</source>
        <translation>子步数 n</translation>
    </message>
    <message>
        <source>‖uₙ − u(1)‖ (log)</source>
        <translation>‖uₙ − u(1)‖（对数）</translation>
    </message>
    <message>
        <source>error</source>
        <translation>误差</translation>
    </message>
    <message>
        <source>error at t = 1 against the number of sub-steps</source>
        <translation>t = 1 处的误差与子步数的关系</translation>
    </message>
    <message>
        <source>Euler (the layer, sub-stepped)</source>
        <translation>欧拉法（这一层，拆成子步）</translation>
    </message>
    <message>
        <source>second order</source>
        <translation>二阶</translation>
    </message>
    <message>
        <source>slope 1</source>
        <translation>斜率 1</translation>
    </message>
    <message>
        <source>slope 2</source>
        <translation>斜率 2</translation>
    </message>
    <message>
        <source>least-squares order over n ≥ %1: Euler &lt;b&gt;%2&lt;/b&gt; (expect 1), %3 &lt;b&gt;%4&lt;/b&gt; (expect 2) · last ratio when n doubles: %5 and %6 · reference flow: RK4 with %7 steps, own error ≈ %8 (dotted line)</source>
        <translation>n ≥ %1 上最小二乘拟合的阶：欧拉法 &lt;b&gt;%2&lt;/b&gt;（应为 1），%3 &lt;b&gt;%4&lt;/b&gt;（应为 2）· n 翻倍时最后的误差比：%5 和 %6 · 参考流：%7 步 RK4，其自身误差 ≈ %8（点线）</translation>
    </message>
    <message>
        <source>Exact: a test asserts this statement in float64.</source>
        <translation>精确：有测试在 float64 下断言这一结论。</translation>
    </message>
    <message>
        <source>Analogy: shown with its caveat, never asserted.</source>
        <translation>类比：附带说明展示，从不作为断言。</translation>
    </message>
</context>
<context>
    <name>DepthTimePanel</name>
    <message>
        <source>E14 (exact, tested): inside an explicit sub-step (1 − s)·x + s·(x + F(x)) = x + s·F(x), so every in-between state is a true Euler step of size s.</source>
        <translation>E14（精确，已测试）：在一个显式子步内，(1 − s)·x + s·(x + F(x)) = x + s·F(x)，所以每个中间状态都是步长为 s 的真实欧拉步。</translation>
    </message>
    <message>
        <source>E13 (exact, tested): sub-stepping the layer n times with Δt = 1/n converges to its flow at first order; a second-order scheme at second order.</source>
        <translation>E13（精确，已测试）：把这一层拆成 n 个 Δt = 1/n 的子步，会一阶收敛到它的连续流；二阶格式则二阶收敛。</translation>
    </message>
    <message>
        <source>Play or pause: t runs from 0 to 1 and loops</source>
        <translation>播放或暂停：t 从 0 走到 1，循环播放</translation>
    </message>
    <message>
        <source>speed</source>
        <translation>速度</translation>
    </message>
    <message>
        <source>1× = one sweep from u(0) to u(1) in 4 seconds</source>
        <translation>1× = 4 秒内从 u(0) 走到 u(1)</translation>
    </message>
    <message>
        <source>Depth time t (steps of 0.005)</source>
        <translation>深度时间 t（步长 0.005）</translation>
    </message>
    <message>
        <source>u(0) input</source>
        <translation>u(0) 输入</translation>
    </message>
    <message>
        <source>u(½) after attention residual</source>
        <translation>u(½) 注意力残差之后</translation>
    </message>
    <message>
        <source>u(1) output</source>
        <translation>u(1) 输出</translation>
    </message>
    <message>
        <source>u(0)
input</source>
        <translation>u(0)
输入</translation>
    </message>
    <message>
        <source>u(½)
after attention residual</source>
        <translation>u(½)
注意力残差之后</translation>
    </message>
    <message>
        <source>u(1)
output</source>
        <translation>u(1)
输出</translation>
    </message>
    <message>
        <source>u(½)
after attn.</source>
        <translation>u(½)
注意力之后</translation>
    </message>
    <message>
        <source>u(0)</source>
        <translation>u(0)</translation>
    </message>
    <message>
        <source>u(½)</source>
        <translation>u(½)</translation>
    </message>
    <message>
        <source>u(1)</source>
        <translation>u(1)</translation>
    </message>
    <message>
        <source>x + s·A</source>
        <translation>x + s·A</translation>
    </message>
    <message>
        <source>h + s·M</source>
        <translation>h + s·M</translation>
    </message>
    <message>
        <source>t = 0: the input X (step 0, embed)</source>
        <translation>t = 0：输入 X（第 0 步，embed）</translation>
    </message>
    <message>
        <source>t = ½: h = x + A, the first residual (step 15, resid_attn)</source>
        <translation>t = ½：h = x + A，第一次残差（第 15 步，resid_attn）</translation>
    </message>
    <message>
        <source>t = 1: h + M, the layer output (step 22, resid_mlp)</source>
        <translation>t = 1：h + M，本层输出（第 22 步，resid_mlp）</translation>
    </message>
    <message>
        <source>depth time t</source>
        <translation>深度时间 t</translation>
    </message>
    <message>
        <source>One curve per token; the bold one is the selected query token (click a heatmap row). Drag the red line to move t.</source>
        <translation>每个词元一条曲线；粗线是选中的查询词元（点击热图中的一行）。拖动红线可移动 t。</translation>
    </message>
    <message>
        <source>attention</source>
        <translation>注意力</translation>
    </message>
    <message>
        <source>MLP</source>
        <translation>MLP</translation>
    </message>
    <message>
        <source>‖u(t)‖</source>
        <translation>‖u(t)‖</translation>
    </message>
    <message>
        <source>Show each token&apos;s norm along depth time</source>
        <translation>显示每个词元的范数随深度时间的变化</translation>
    </message>
    <message>
        <source>convergence</source>
        <translation>收敛</translation>
    </message>
    <message>
        <source>Show the layer sub-stepped n times converging to its flow</source>
        <translation>显示把这一层拆成 n 个子步后向其连续流收敛的过程</translation>
    </message>
    <message>
        <source>sub-steps n (Δt = 1/n)</source>
        <translation>子步数 n（Δt = 1/n）</translation>
    </message>
    <message>
        <source>sub-steps n</source>
        <translation>子步数 n</translation>
    </message>
    <message>
        <source>distance to flow</source>
        <translation>与连续流的距离</translation>
    </message>
    <message>
        <source>distance</source>
        <translation>距离</translation>
    </message>
    <message>
        <source>Order from n = %5 to %6 (log₂ of the error ratio): &lt;b&gt;%1&lt;/b&gt; for Euler, &lt;b&gt;%3&lt;/b&gt; for %2. The real layer is &lt;b&gt;n = 1&lt;/b&gt;, %4 from its own flow.</source>
        <translation>从 n = %5 到 %6 的阶（误差比的 log₂）：欧拉法 &lt;b&gt;%1&lt;/b&gt;，%2 &lt;b&gt;%3&lt;/b&gt;。真实的层是 &lt;b&gt;n = 1&lt;/b&gt;，离它自己的连续流 %4。</translation>
    </message>
    <message>
        <source>Order 1: the error halves as n doubles; order 2: it falls to a quarter.</source>
        <translation>一阶：n 翻倍，误差减半；二阶：误差降到四分之一。</translation>
    </message>
    <message>
        <source>the real layer (n = 1)</source>
        <translation>真实的层（n = 1）</translation>
    </message>
    <message>
        <source>❚❚ Pause</source>
        <translation>❚❚ 暂停</translation>
    </message>
    <message>
        <source>▶ Play</source>
        <translation>▶ 播放</translation>
    </message>
    <message>
        <source>&lt;b&gt;t = 0 — true state u(0)&lt;/b&gt;: the input X (step 0, &lt;i&gt;embed&lt;/i&gt;). Press ▶ to run the layer as time.</source>
        <translation>&lt;b&gt;t = 0 —— 真实状态 u(0)&lt;/b&gt;：输入 X（第 0 步，&lt;i&gt;embed&lt;/i&gt;）。按 ▶ 把这一层当作时间来运行。</translation>
    </message>
    <message>
        <source>&lt;b&gt;t = ½ — true state u(½) = x + A(x)&lt;/b&gt;: the first residual (step 15, &lt;i&gt;resid_attn&lt;/i&gt;), bit for bit.</source>
        <translation>&lt;b&gt;t = ½ —— 真实状态 u(½) = x + A(x)&lt;/b&gt;：第一次残差（第 15 步，&lt;i&gt;resid_attn&lt;/i&gt;），逐位一致。</translation>
    </message>
    <message>
        <source>&lt;b&gt;t = 1 — true state u(1) = h + M(h)&lt;/b&gt;: the layer output (step 22, &lt;i&gt;resid_mlp&lt;/i&gt;), bit for bit.</source>
        <translation>&lt;b&gt;t = 1 —— 真实状态 u(1) = h + M(h)&lt;/b&gt;：本层输出（第 22 步，&lt;i&gt;resid_mlp&lt;/i&gt;），逐位一致。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Attention sub-step (s = 2t)&lt;/b&gt;: u(t) = x + s·A(x), A = o_proj (step 14).</source>
        <translation>&lt;b&gt;注意力子步（s = 2t）&lt;/b&gt;：u(t) = x + s·A(x)，A = o_proj（第 14 步）。</translation>
    </message>
    <message>
        <source>An &lt;b&gt;exact&lt;/b&gt; Euler step of size s — what resid_attn (step 15) would be with the attention branch scaled by s — not a cosmetic blend of two pictures.</source>
        <translation>这是步长为 s 的&lt;b&gt;精确&lt;/b&gt;欧拉步——把注意力分支乘以 s 时 resid_attn（第 15 步）的值——而不是两张图的装饰性混合。</translation>
    </message>
    <message>
        <source>&lt;b&gt;MLP sub-step (s = 2t − 1)&lt;/b&gt;: u(t) = h + s·M(h), M = down_proj (step 21).</source>
        <translation>&lt;b&gt;MLP 子步（s = 2t − 1）&lt;/b&gt;：u(t) = h + s·M(h)，M = down_proj（第 21 步）。</translation>
    </message>
    <message>
        <source>An &lt;b&gt;exact&lt;/b&gt; Euler step of size s — the layer&apos;s output with the MLP branch scaled by s — not a cosmetic blend of two pictures.</source>
        <translation>这是步长为 s 的&lt;b&gt;精确&lt;/b&gt;欧拉步——把 MLP 分支乘以 s 时这一层的输出——而不是两张图的装饰性混合。</translation>
    </message>
    <message>
        <source>Both branches skipped: u(t) does not move (the layer is the identity).</source>
        <translation>两个分支都被跳过：u(t) 不动（这一层就是恒等映射）。</translation>
    </message>
    <message>
        <source>Attention skipped: what is left is a pure MLP step (u stays put for t ≤ ½, then moves by the MLP).</source>
        <translation>跳过注意力：剩下的是纯 MLP 步（t ≤ ½ 时 u 不动，之后由 MLP 推动）。</translation>
    </message>
    <message>
        <source>MLP skipped: what is left is a pure attention step (u moves by attention for t ≤ ½, then stays put).</source>
        <translation>跳过 MLP：剩下的是纯注意力步（t ≤ ½ 时 u 由注意力推动，之后不动）。</translation>
    </message>
    <message>
        <source>bold: token %1 “%2”</source>
        <translation>粗线：词元 %1 “%2”</translation>
    </message>
    <message>
        <source>Not computed: the sweep could not run: %1</source>
        <translation>未计算：扫描无法运行：%1</translation>
    </message>
    <message>
        <source>&lt;b&gt;u(t)&lt;/b&gt; — the residual stream in depth time &lt;span style=&apos;color:%1&apos;&gt;(continuous view)&lt;/span&gt;</source>
        <translation>&lt;b&gt;u(t)&lt;/b&gt; —— 深度时间中的残差流 &lt;span style=&apos;color:%1&apos;&gt;（连续视角）&lt;/span&gt;</translation>
    </message>
    <message>
        <source>feature</source>
        <translation>特征</translation>
    </message>
    <message>
        <source>token</source>
        <translation>词元</translation>
    </message>
    <message>
        <source>token %1 · feature %2 · u(t) = %3</source>
        <translation>词元 %1 · 特征 %2 · u(t) = %3</translation>
    </message>
    <message>
        <source>Convergence is not computed for a layer this large: it runs the layer ~%1 times, seconds of CPU even for one token.</source>
        <translation>这么大的层不计算收敛曲线：要把这一层运行约 %1 次，即使只有一个词元也要几秒 CPU 时间。</translation>
    </message>
    <message>
        <source>Convergence is computed up to %1 tokens at this layer size (it runs the layer ~%2 times); shorten the text to see it.</source>
        <translation>在这个层大小下，收敛曲线只对不超过 %1 个词元的输入计算（要把这一层运行约 %2 次）；缩短文本即可看到。</translation>
    </message>
    <message>
        <source>computing… (the sweep of the previous input is shown dimmed)</source>
        <translation>计算中…（上一次输入的结果以淡色显示）</translation>
    </message>
    <message>
        <source>computing… (the layer sub-stepped n = 1…64 times)</source>
        <translation>计算中…（把这一层拆成 n = 1…64 个子步）</translation>
    </message>
    <message>
        <source>Sub-stepping the layer n times with Δt = 1/n converges to the flow u′ = A(u) + M(u). The real layer is n = 1.</source>
        <translation>把这一层拆成 n 个 Δt = 1/n 的子步，会收敛到连续流 u′ = A(u) + M(u)。真实的层是 n = 1。</translation>
    </message>
    <message>
        <source>Euler</source>
        <translation>欧拉法</translation>
    </message>
</context>
<context>
    <name>Docks</name>
    <message>
        <source>Steps</source>
        <translation>步骤</translation>
    </message>
    <message>
        <source>Step heatmap</source>
        <translation>步骤热图</translation>
    </message>
    <message>
        <source>Attention flow</source>
        <translation>注意力流向</translation>
    </message>
    <message>
        <source>LayerNorm vs RMSNorm</source>
        <translation>LayerNorm 与 RMSNorm</translation>
    </message>
    <message>
        <source>Depth time</source>
        <translation>深度时间</translation>
    </message>
    <message>
        <source>Causality</source>
        <translation>因果性</translation>
    </message>
    <message>
        <source>Interventions</source>
        <translation>干预</translation>
    </message>
    <message>
        <source>Lens: softmax temperature</source>
        <translation>透镜：softmax 温度</translation>
    </message>
    <message>
        <source>Lens: energy through depth</source>
        <translation>透镜：随深度变化的能量</translation>
    </message>
    <message>
        <source>Lens: splitting = block</source>
        <translation>透镜：算子分裂 = 一个块</translation>
    </message>
    <message>
        <source>Lens: projection geometry</source>
        <translation>透镜：投影几何</translation>
    </message>
    <message>
        <source>Lens: convergence</source>
        <translation>透镜：收敛性</translation>
    </message>
    <message>
        <source>Lens: analogies</source>
        <translation>透镜：类比</translation>
    </message>
    <message>
        <source>Next token</source>
        <translation>下一个词元</translation>
    </message>
    <message>
        <source>Through the depth</source>
        <translation>贯穿深度</translation>
    </message>
</context>
<context>
    <name>EnergyPanel</name>
    <message>
        <source>Energy through depth</source>
        <translation>随深度变化的能量</translation>
    </message>
    <message>
        <source>layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>mean(u²)  (log scale)</source>
        <translation>mean(u²)（对数刻度）</translation>
    </message>
    <message>
        <source>post-norm (LayerNorm)</source>
        <translation>后归一化（LayerNorm）</translation>
    </message>
    <message>
        <source>pre-norm (RMSNorm, Qwen3)</source>
        <translation>前归一化（RMSNorm，Qwen3）</translation>
    </message>
    <message>
        <source>no norm</source>
        <translation>无归一化</translation>
    </message>
    <message>
        <source>σ₁² + σ₂²</source>
        <translation>σ₁² + σ₂²</translation>
    </message>
    <message>
        <source>Number of layers N</source>
        <translation>层数 N</translation>
    </message>
    <message>
        <source>ReZero α: every branch is scaled by α (α = 0: pre-norm and no-norm are the identity)</source>
        <translation>ReZero α：每个分支都乘以 α（α = 0 时，前归一化 和无归一化都是恒等映射）</translation>
    </message>
    <message>
        <source>Scale of the random initial weights</source>
        <translation>随机初始权重的尺度</translation>
    </message>
    <message>
        <source>LayerNorm shift β = σ₁ (the target mean)</source>
        <translation>LayerNorm 平移 β = σ₁（目标均值）</translation>
    </message>
    <message>
        <source>Norm scale γ = σ₂ (the target standard deviation)</source>
        <translation>归一化缩放 γ = σ₂（目标标准差）</translation>
    </message>
    <message>
        <source>N = %1</source>
        <translation>N = %1</translation>
    </message>
    <message>
        <source>α = %1</source>
        <translation>α = %1</translation>
    </message>
    <message>
        <source>init × %1</source>
        <translation>初始化 × %1</translation>
    </message>
    <message>
        <source>σ₁</source>
        <translation>σ₁</translation>
    </message>
    <message>
        <source>σ₂</source>
        <translation>σ₂</translation>
    </message>
    <message>
        <source>overflows at layer %1</source>
        <translation>在第 %1 层溢出</translation>
    </message>
    <message>
        <source>input: your sentence&apos;s embedding (%1 tokens)</source>
        <translation>输入：你的句子的嵌入（%1 个词元）</translation>
    </message>
    <message>
        <source>input: seeded random 8 × 16 (sentence too large)</source>
        <translation>输入：固定种子的随机 8 × 16（句子太大）</translation>
    </message>
    <message>
        <source>&lt;b style=&apos;color:#1e783c&apos;&gt;post-norm&lt;/b&gt;: every layer at σ₁² + σ₂² = %1 (largest deviation %2) · &lt;b style=&apos;color:#285ac8&apos;&gt;pre-norm&lt;/b&gt;: sublayer inputs have rms |σ₂| (deviation ≤ %3), stream energy at layer %7 = %4 · &lt;b style=&apos;color:#c83228&apos;&gt;no norm&lt;/b&gt; at layer %7: %5 · %6</source>
        <translation>&lt;b style=&apos;color:#1e783c&apos;&gt;后归一化&lt;/b&gt;：每一层都在 σ₁² + σ₂² = %1（最大偏差 %2）· &lt;b style=&apos;color:#285ac8&apos;&gt;前归一化&lt;/b&gt;：子层输入的 rms 为 |σ₂|（偏差 ≤ %3），第 %7 层的残差流能量 = %4 · &lt;b style=&apos;color:#c83228&apos;&gt;无归一化&lt;/b&gt;在第 %7 层：%5 · %6</translation>
    </message>
    <message>
        <source>Exact: a test asserts this statement in float64.</source>
        <translation>精确：有测试在 float64 下断言这一结论。</translation>
    </message>
    <message>
        <source>Analogy: shown with its caveat, never asserted.</source>
        <translation>类比：附带说明展示，从不作为断言。</translation>
    </message>
</context>
<context>
    <name>EngineError</name>
    <message>
        <source>{name} must be an array of numbers with rows of equal length ({reason})</source>
        <translation>{name} 必须是各行等长的数字数组（{reason}）</translation>
    </message>
    <message>
        <source>config must be a Qwen3Config, got {got}</source>
        <translation>config 必须是 Qwen3Config，得到的是 {got}</translation>
    </message>
    <message>
        <source>{name} must be a real number, got {value!r}</source>
        <translation>{name} 必须是实数，得到的是 {value!r}</translation>
    </message>
    <message>
        <source>{name} is too large for float64; use a value below 1e308</source>
        <translation>{name} 超出了 float64 的范围；请使用小于 1e308 的值</translation>
    </message>
    <message>
        <source>{name} must be finite, got {value}</source>
        <translation>{name} 必须是有限数，得到的是 {value}</translation>
    </message>
    <message>
        <source>{name} must be {op} {low}, got {value}</source>
        <translation>{name} 必须 {op} {low}，得到的是 {value}</translation>
    </message>
    <message>
        <source>{name} must be a number, got {value!r}</source>
        <translation>{name} 必须是数字，得到的是 {value!r}</translation>
    </message>
    <message>
        <source>{name} must be finite (below 1e308), got a larger int</source>
        <translation>{name} 必须是有限数（小于 1e308），得到的是更大的整数</translation>
    </message>
    <message>
        <source>{name} must be a whole number, got {value!r}</source>
        <translation>{name} 必须是整数，得到的是 {value!r}</translation>
    </message>
    <message>
        <source>{name} must be at least 1, got {value}</source>
        <translation>{name} 至少要为 1，得到的是 {value}</translation>
    </message>
    <message>
        <source>{name} must be a whole number &gt;= {low}, got {value!r}</source>
        <translation>{name} 必须是 &gt;= {low} 的整数，得到的是 {value!r}</translation>
    </message>
    <message>
        <source>{name} must be a finite number &gt; 0, got {value}</source>
        <translation>{name} 必须是 &gt; 0 的有限数，得到的是 {value}</translation>
    </message>
    <message>
        <source>{name} must be a finite number &gt;= 0, got {value}</source>
        <translation>{name} 必须是 &gt;= 0 的有限数，得到的是 {value}</translation>
    </message>
    <message>
        <source>{name} must be True or False, got {value!r}</source>
        <translation>{name} 必须是 True 或 False，得到的是 {value!r}</translation>
    </message>
    <message>
        <source>{name} must be one of {choices}, got {value!r}</source>
        <translation>{name} 必须是 {choices} 之一，得到的是 {value!r}</translation>
    </message>
    <message>
        <source>{name} must be real numbers, got dtype {dtype}</source>
        <translation>{name} 必须是实数，得到的数据类型是 {dtype}</translation>
    </message>
    <message>
        <source>{name} must have {ndim} dimensions, got shape {shape}</source>
        <translation>{name} 必须是 {ndim} 维的，得到的形状是 {shape}</translation>
    </message>
    <message>
        <source>{name} contains NaN or Inf</source>
        <translation>{name} 含有 NaN 或 Inf</translation>
    </message>
    <message>
        <source>{name}: expected shape {expected}, got {shape}</source>
        <translation>{name}：形状应为 {expected}，得到的是 {shape}</translation>
    </message>
    <message>
        <source>text must be a string, got {got}</source>
        <translation>文本必须是字符串，得到的是 {got}</translation>
    </message>
    <message>
        <source>tokens must be a list of strings; pass tokenize(text), not the text</source>
        <translation>tokens 必须是字符串列表；请传入 tokenize(text)，而不是文本本身</translation>
    </message>
    <message>
        <source>tokens must be a list of strings, got {got}</source>
        <translation>tokens 必须是字符串列表，得到的是 {got}</translation>
    </message>
    <message>
        <source>tokens must be strings, got {token!r}</source>
        <translation>每个词元都必须是字符串，得到的是 {token!r}</translation>
    </message>
    <message>
        <source>no tokens: type at least one word or character</source>
        <translation>没有词元：请至少输入一个词或字</translation>
    </message>
    <message>
        <source>{count} tokens is more than the {limit} the engine takes; shorten the text</source>
        <translation>{count} 个词元超过了引擎能处理的 {limit} 个；请缩短文本</translation>
    </message>
    <message>
        <source>num_attention_heads ({heads}) must be a multiple of num_key_value_heads ({kv_heads}) for grouped-query attention</source>
        <translation>分组查询注意力要求 num_attention_heads（{heads}）是 num_key_value_heads（{kv_heads}）的倍数</translation>
    </message>
    <message>
        <source>head_dim must be even for RoPE&apos;s half split, got {value}</source>
        <translation>RoPE 要把向量对半分，head_dim 必须是偶数，得到的是 {value}</translation>
    </message>
    <message>
        <source>a config must be a mapping of fields, got {got}</source>
        <translation>配置必须是字段的映射，得到的是 {got}</translation>
    </message>
    <message>
        <source>config field names must be strings, got {key!r}</source>
        <translation>配置的字段名必须是字符串，得到的是 {key!r}</translation>
    </message>
    <message>
        <source>unknown config field(s): {fields}</source>
        <translation>未知的配置字段：{fields}</translation>
    </message>
    <message>
        <source>input must be [tokens, hidden_size], got shape {shape}</source>
        <translation>输入的形状必须是 [词元数, hidden_size]，得到的是 {shape}</translation>
    </message>
    <message>
        <source>input has {d} features but the layer&apos;s hidden_size is {hidden_size}</source>
        <translation>输入有 {d} 个特征，但这一层的 hidden_size 是 {hidden_size}</translation>
    </message>
    <message>
        <source>weights must be LayerWeights, got {got}</source>
        <translation>权重必须是 LayerWeights，得到的是 {got}</translation>
    </message>
    <message>
        <source>weights were made for {made_for}, not {config}</source>
        <translation>这些权重是为 {made_for} 生成的，不是为 {config}</translation>
    </message>
    <message>
        <source>the layer divided by zero at step {index} ({step}): {norm_of} is zero (or too small to square in float64), and a zero vector has no RMS at rms_norm_eps = 0; use rms_norm_eps &gt; 0 or {fix}</source>
        <translation>这一层在第 {index} 步（{step}）除以了零：{norm_of}为零（或小到在 float64 中平方后下溢），而 rms_norm_eps = 0 时零向量没有 RMS；请使用 rms_norm_eps &gt; 0，或{fix}</translation>
    </message>
    <message>
        <source>intervention must be an engine.Intervention or None, got {got}</source>
        <translation>intervention 必须是 engine.Intervention 或 None，得到的是 {got}</translation>
    </message>
    <message>
        <source>{name} must be whole numbers (head or neuron indices), got {value!r}</source>
        <translation>{name} 必须是整数（头或神经元的编号），得到的是 {value!r}</translation>
    </message>
    <message>
        <source>{name}: indices count from 0, got {index}</source>
        <translation>{name}：编号从 0 开始，得到的是 {index}</translation>
    </message>
    <message>
        <source>{name} lists an index twice: {value}</source>
        <translation>{name} 把同一个编号列了两次：{value}</translation>
    </message>
    <message>
        <source>{name}: there is no {index}; valid indices are 0 to {last}</source>
        <translation>{name}：没有编号 {index}；有效编号为 0 到 {last}</translation>
    </message>
    <message>
        <source>head_scale must map head indices to factors, got {value!r}</source>
        <translation>head_scale 必须把头的编号映射到系数，得到的是 {value!r}</translation>
    </message>
    <message>
        <source>head_scale: the factor of head {head} must be a finite number, got {value!r}</source>
        <translation>head_scale：头 {head} 的系数必须是有限的数，得到的是 {value!r}</translation>
    </message>
    <message>
        <source>heads {heads} are both zeroed and scaled; choose one</source>
        <translation>头 {heads} 既被置零又被缩放；请只选一种</translation>
    </message>
    <message>
        <source>skip names branches to skip, from {choices}; got {value!r}</source>
        <translation>skip 列出要跳过的分支，可选 {choices}；得到的是 {value!r}</translation>
    </message>
    <message>
        <source>the layer overflowed at step {index} ({step}); use smaller inputs or weights</source>
        <translation>这一层在第 {index} 步（{step}）溢出；请使用更小的输入或权重</translation>
    </message>
    <message>
        <source>{name} must be a LayerTrace, got {got}</source>
        <translation>{name} 必须是 LayerTrace，得到的是 {got}</translation>
    </message>
    <message>
        <source>trace must be a LayerTrace from run_layer, got {got}</source>
        <translation>trace 必须是 run_layer 得到的 LayerTrace，得到的是 {got}</translation>
    </message>
    <message>
        <source>expected a LayerTrace, got {got}</source>
        <translation>需要一个 LayerTrace，得到的是 {got}</translation>
    </message>
    <message>
        <source>the two traces come from different layer configs; compare traces of the same layer</source>
        <translation>两次计算来自不同的层配置；请比较同一层的计算</translation>
    </message>
    <message>
        <source>one trace is causal and the other is not; compare like with like</source>
        <translation>一次计算用了因果掩码，另一次没有；请比较同类的计算</translation>
    </message>
    <message>
        <source>{what} overflowed; use smaller inputs, weights or α</source>
        <translation>{what}溢出；请使用更小的输入、权重或 α</translation>
    </message>
    <message>
        <source>the input has values past 1e150, where RMSNorm&apos;s squares overflow; use smaller inputs</source>
        <translation>输入中有超过 1e150 的值，RMSNorm 对它求平方会溢出；请使用更小的输入</translation>
    </message>
    <message>
        <source>a row of the input is zero (or too small to square in float64), and a zero vector has no RMS at rms_norm_eps = 0; use rms_norm_eps &gt; 0 or a non-zero input</source>
        <translation>输入有一行为零（或小到在 float64 中平方后下溢），而 rms_norm_eps = 0 时零向量没有 RMS；请使用 rms_norm_eps &gt; 0 或非零输入</translation>
    </message>
    <message>
        <source>depth time t must be in [0, 1], got {t}</source>
        <translation>深度时间 t 必须在 [0, 1] 内，得到的是 {t}</translation>
    </message>
    <message>
        <source>n_points must be an odd whole number &gt;= 3 (so t = ½ is on the grid), got {value!r}</source>
        <translation>n_points 必须是 &gt;= 3 的奇数（这样 t = ½ 在网格上），得到的是 {value!r}</translation>
    </message>
    <message>
        <source>{name} = {n} sub-steps is more than this demo needs (max 100000)</source>
        <translation>{name} = {n} 个子步超出了这个演示的需要（最多 100000）</translation>
    </message>
    <message>
        <source>ns must be a list of sub-step counts such as (1, 2, 4), got {value!r}</source>
        <translation>ns 必须是子步数的列表，例如 (1, 2, 4)，得到的是 {value!r}</translation>
    </message>
    <message>
        <source>ns must list at least one sub-step count</source>
        <translation>ns 至少要列出一个子步数</translation>
    </message>
    <message>
        <source>ns must be strictly increasing, got {ns}</source>
        <translation>ns 必须严格递增，得到的是 {ns}</translation>
    </message>
    <message>
        <source>n = {n} sub-steps is more than the sweep needs (max 4096)</source>
        <translation>n = {n} 个子步超出了扫描的需要（最多 4096）</translation>
    </message>
    <message>
        <source>second_order must be a second-order scheme: heun or strang</source>
        <translation>second_order 必须是二阶格式：heun 或 strang</translation>
    </message>
    <message>
        <source>{name}: expected real numbers, got dtype {dtype}</source>
        <translation>{name}：应为实数，得到的数据类型是 {dtype}</translation>
    </message>
    <message>
        <source>{name}: contains NaN or Inf</source>
        <translation>{name}：含有 NaN 或 Inf</translation>
    </message>
    <message>
        <source>weights must be a mapping of names to arrays (a dict or a state dict), got {got}</source>
        <translation>权重必须是名称到数组的映射（dict 或 state dict），得到的是 {got}</translation>
    </message>
    <message>
        <source>missing weight(s): {names}</source>
        <translation>缺少权重：{names}</translation>
    </message>
    <message>
        <source>unexpected weight(s): {names}</source>
        <translation>多余的权重：{names}</translation>
    </message>
    <message>
        <source>weight names must be strings, got {key!r}</source>
        <translation>权重名必须是字符串，得到的是 {key!r}</translation>
    </message>
    <message>
        <source>tensors from several layers ({layers}); pass one layer&apos;s tensors</source>
        <translation>张量来自多个层（{layers}）；请只传入一层的张量</translation>
    </message>
    <message>
        <source>weight {name} given twice</source>
        <translation>权重 {name} 出现了两次</translation>
    </message>
    <message>
        <source>weights must be LayerWeights made for this config</source>
        <translation>权重必须是为这个配置生成的 LayerWeights</translation>
    </message>
    <message>
        <source>{path}: unexpected weight(s): {names}</source>
        <translation>{path}：多余的权重：{names}</translation>
    </message>
    <message>
        <source>no weights file at {path}</source>
        <translation>{path} 处没有权重文件</translation>
    </message>
    <message>
        <source>{path} is not a readable weights file: {reason}</source>
        <translation>{path} 不是可读取的权重文件：{reason}</translation>
    </message>
    <message>
        <source>{path} has no layer config; was it written by LayerWeights.save?</source>
        <translation>{path} 中没有层配置；它是用 LayerWeights.save 写的吗？</translation>
    </message>
    <message>
        <source>{path}: unreadable layer config ({reason})</source>
        <translation>{path}：层配置无法读取（{reason}）</translation>
    </message>
    <message>
        <source>{path}: {name} is stored in an unknown .npy version {version}</source>
        <translation>{path}：{name} 以未知的 .npy 版本 {version} 存储</translation>
    </message>
    <message>
        <source>{path}: {name} holds Python objects; only numbers are read</source>
        <translation>{path}：{name} 含有 Python 对象；只能读取数字</translation>
    </message>
    <message>
        <source>{path}: the layer config is not JSON text</source>
        <translation>{path}：层配置不是 JSON 文本</translation>
    </message>
    <message>
        <source>{path}: {name} is cut short</source>
        <translation>{path}：{name} 不完整（文件被截断）</translation>
    </message>
    <message>
        <source>{path}: {name} is damaged ({reason}); copy the file again</source>
        <translation>{path}：{name} 已损坏（{reason}）；请重新复制文件</translation>
    </message>
    <message>
        <source>{path} holds {name} twice; a file of LayerWeights.save holds each once</source>
        <translation>{path} 中 {name} 出现了两次；LayerWeights.save 写出的文件中每项只出现一次</translation>
    </message>
    <message>
        <source>{path}: {name} is encrypted; this app reads files without a password, as LayerWeights.save writes them</source>
        <translation>{path}：{name} 已加密；本应用只读取没有密码的文件（LayerWeights.save 写出的就是这种）</translation>
    </message>
    <message>
        <source>{path}: {name} is compressed with zip method {method}; this app reads stored or deflated members (numpy.savez, numpy.savez_compressed)</source>
        <translation>{path}：{name} 使用 zip 压缩方法 {method}；本应用只读取未压缩或 deflate 压缩的成员（numpy.savez、numpy.savez_compressed）</translation>
    </message>
    <message>
        <source>{path}: {name} claims {size} bytes from {compressed} compressed bytes, more than deflate can give; the file is damaged</source>
        <translation>{path}：{name} 声称由 {compressed} 字节压缩数据解压出 {size} 字节，超出 deflate 所能给出的；文件已损坏</translation>
    </message>
    <message>
        <source>{path}: {name} is cut short or damaged: it holds {size} bytes, but its header (shape {shape}, {dtype}) needs {needed}</source>
        <translation>{path}：{name} 不完整或已损坏：它有 {size} 字节，但它的头（形状 {shape}，{dtype}）需要 {needed} 字节</translation>
    </message>
    <message>
        <source>{path} is cut short: it ends before the data its header describes; copy the file again</source>
        <translation>{path} 不完整：文件在其头部所描述的数据之前就结束了；请重新复制该文件</translation>
    </message>
    <message>
        <source>{path} is not a .safetensors file (nor an .npz of layer weights)</source>
        <translation>{path} 不是 .safetensors 文件（也不是层权重的 .npz 文件）</translation>
    </message>
    <message>
        <source>{path}: the safetensors header is damaged ({reason})</source>
        <translation>{path}：safetensors 文件头已损坏（{reason}）</translation>
    </message>
    <message>
        <source>{path}: the header&apos;s entry for {name} is damaged (it needs a dtype, a shape and two data offsets)</source>
        <translation>{path}：文件头中 {name} 的条目已损坏（需要 dtype、shape 和两个数据偏移量）</translation>
    </message>
    <message>
        <source>{path}: {name}&apos;s data would end at byte {end} of the data, but there are only {size} bytes; the file is cut short or damaged</source>
        <translation>{path}：{name} 的数据应在数据区第 {end} 字节处结束，但数据区只有 {size} 字节；文件不完整或已损坏</translation>
    </message>
    <message>
        <source>{path}: the safetensors header names {name} twice; the file is damaged</source>
        <translation>{path}：safetensors 文件头两次列出 {name}；文件已损坏</translation>
    </message>
    <message>
        <source>{path}: {name} and {other} share bytes {begin}–{end} of the data; the file is damaged</source>
        <translation>{path}：{name} 与 {other} 共用数据区第 {begin}–{end} 字节；文件已损坏</translation>
    </message>
    <message>
        <source>{path}: bytes {begin}–{end} of the data belong to no tensor; the file is damaged or was not written as a safetensors file</source>
        <translation>{path}：数据区第 {begin}–{end} 字节不属于任何张量；文件已损坏，或不是按 safetensors 格式写出的</translation>
    </message>
    <message>
        <source>{path}: {name} claims shape {shape} in {dtype} but holds {nbytes} bytes</source>
        <translation>{path}：{name} 声称形状为 {shape}、类型为 {dtype}，但实际占 {nbytes} 字节</translation>
    </message>
    <message>
        <source>{name} is stored as {dtype}; this app reads {supported}</source>
        <translation>{name} 以 {dtype} 存储；本应用只能读取 {supported}</translation>
    </message>
    <message>
        <source>{path} holds no decoder layer (no tensor named model.layers.N.…)</source>
        <translation>{path} 中没有解码器层（没有名为 model.layers.N.… 的张量）</translation>
    </message>
    <message>
        <source>{path} has no layer {layer}; it holds layer(s) {layers}</source>
        <translation>{path} 中没有第 {layer} 层；它包含的层为 {layers}</translation>
    </message>
    <message>
        <source>this layer has {count} weights, more than the {limit} of the largest layer this app runs (Qwen3-0.6B&apos;s)</source>
        <translation>这一层有 {count} 个权重，超过了本应用能运行的最大层（Qwen3-0.6B 的层）的 {limit} 个</translation>
    </message>
    <message>
        <source>the layer&apos;s shapes do not fit together: q_proj has {q_rows} rows and k_proj {k_rows}, not whole heads of head_dim {head_dim} (q_norm&apos;s size)</source>
        <translation>这一层的形状互不匹配：q_proj 有 {q_rows} 行，k_proj 有 {k_rows} 行，不是 head_dim = {head_dim}（q_norm 的大小）的整数个头</translation>
    </message>
    <message>
        <source>{path} cannot be read as a model config ({reason}); fix or remove it</source>
        <translation>{path} 无法作为模型配置读取（{reason}）；请修正或删除它</translation>
    </message>
    <message>
        <source>{path} is not a folder; open a model folder (config.json, tokenizer.json and the .safetensors weights)</source>
        <translation>{path} 不是文件夹；请打开一个模型文件夹（含 config.json、tokenizer.json 和 .safetensors 权重）</translation>
    </message>
    <message>
        <source>{path} is missing; a model folder needs config.json, tokenizer.json and model.safetensors (or its shards and model.safetensors.index.json)</source>
        <translation>缺少 {path}；模型文件夹需要 config.json、tokenizer.json 和 model.safetensors（或其分片及 model.safetensors.index.json）</translation>
    </message>
    <message>
        <source>{path} is not a regular file</source>
        <translation>{path} 不是普通文件</translation>
    </message>
    <message>
        <source>{path} cannot be read: {reason}</source>
        <translation>无法读取 {path}：{reason}</translation>
    </message>
    <message>
        <source>{path} is {size} bytes, more than the {limit} such a file can be</source>
        <translation>{path} 有 {size} 字节，超过此类文件的上限 {limit}</translation>
    </message>
    <message>
        <source>{path} is not valid JSON of its kind ({reason})</source>
        <translation>{path} 不是有效的该类 JSON 文件（{reason}）</translation>
    </message>
    <message>
        <source>{path} describes a {got} model; the engine runs Qwen3 (model_type qwen3, Qwen3ForCausalLM)</source>
        <translation>{path} 描述的是 {got} 模型；引擎只运行 Qwen3（model_type qwen3，Qwen3ForCausalLM）</translation>
    </message>
    <message>
        <source>{path}: {name} must be {expected}, got {value!r}</source>
        <translation>{path}：{name} 必须是 {expected}，实际为 {value!r}</translation>
    </message>
    <message>
        <source>{path}: {name} = {value!r} is not supported; the engine runs {supported}</source>
        <translation>{path}：不支持 {name} = {value!r}；引擎运行的是 {supported}</translation>
    </message>
    <message>
        <source>{path}: the layer shape it gives is invalid ({reason})</source>
        <translation>{path}：其中给出的层形状无效（{reason}）</translation>
    </message>
    <message>
        <source>{path} names the shard {shard}, which is not in the folder</source>
        <translation>{path} 列出了分片 {shard}，但文件夹中没有该文件</translation>
    </message>
    <message>
        <source>{path} has no tensor {name}, which the model needs</source>
        <translation>{path} 中没有模型所需的张量 {name}</translation>
    </message>
    <message>
        <source>{path}: {name} has shape {shape}, but config.json makes it {expected}</source>
        <translation>{path}：{name} 的形状是 {shape}，但按 config.json 应为 {expected}</translation>
    </message>
    <message>
        <source>{path}: {name} is stored as {dtype}; the engine reads {supported}</source>
        <translation>{path}：{name} 以 {dtype} 存储；引擎只读取 {supported}</translation>
    </message>
    <message>
        <source>{path}: {name} contains NaN or Inf</source>
        <translation>{path}：{name} 含有 NaN 或 Inf</translation>
    </message>
    <message>
        <source>{path} holds tensors a Qwen3 model does not have: {names}</source>
        <translation>{path} 含有 Qwen3 模型没有的张量：{names}</translation>
    </message>
    <message>
        <source>{path} cannot be read as a tokenizer ({reason})</source>
        <translation>无法将 {path} 读取为分词器（{reason}）</translation>
    </message>
    <message>
        <source>{path}: token {token!r} has id {id}, beyond the model&apos;s vocab_size {vocab_size}</source>
        <translation>{path}：词元 {token!r} 的编号是 {id}，超出了模型的 vocab_size {vocab_size}</translation>
    </message>
    <message>
        <source>ids must be a list of token ids from 0 to {last}, got {value!r}</source>
        <translation>ids 必须是 0 到 {last} 之间的词元编号列表，实际为 {value!r}</translation>
    </message>
    <message>
        <source>layer must be a whole number from 0 to {last}, got {value!r}</source>
        <translation>layer 必须是 0 到 {last} 之间的整数，实际为 {value!r}</translation>
    </message>
    <message>
        <source>cache must be an earlier run of this same model, got {got}</source>
        <translation>cache 必须是同一模型之前的一次运行，实际为 {got}</translation>
    </message>
    <message>
        <source>intervene_layers must be &quot;all&quot;, a layer index or a list of different layer indices from 0 to {last}, got {value!r}</source>
        <translation>intervene_layers 必须是 &quot;all&quot;、一个层号，或由 0 到 {last} 之间互不相同的层号组成的列表，实际为 {value!r}</translation>
    </message>
    <message>
        <source>intervene_layers: there is no layer {index}; valid layers are 0 to {last}</source>
        <translation>intervene_layers：没有第 {index} 层；有效的层号是 0 到 {last}</translation>
    </message>
    <message>
        <source>base must be the plain run (no intervention) of the same ids on this same model, got {got}</source>
        <translation>base 必须是同一模型对相同 ids 的普通运行（没有干预），实际为 {got}</translation>
    </message>
    <message>
        <source>pass either base (the plain run of the same ids) or cache (an earlier run), not both</source>
        <translation>请只传 base（相同 ids 的普通运行）或 cache（先前的一次运行）之一，不要同时传两者</translation>
    </message>
    <message>
        <source>the model&apos;s logits overflowed float64; its weights are too large</source>
        <translation>模型的 logits 超出了 float64 的范围；其权重过大</translation>
    </message>
    <message>
        <source>q and k must both be [heads, tokens, head_dim] and non-empty, got {q_shape} and {k_shape}</source>
        <translation>q 和 k 的形状都必须是 [头数, 词元数, head_dim] 且非空，得到的是 {q_shape} 和 {k_shape}</translation>
    </message>
    <message>
        <source>q·k overflows float64; use smaller q and k (the layer&apos;s own are bounded by q/k-norm)</source>
        <translation>q·k 超出了 float64 的范围；请使用更小的 q 和 k（这一层自己的 q、k 受 q/k-norm 约束）</translation>
    </message>
    <message>
        <source>multiplier = {multiplier:g} is too small for these logits: s/τ overflows float64; use a multiplier of at least {safe:.3g}</source>
        <translation>倍数 = {multiplier:g} 对这些 logits 太小：s/τ 超出了 float64 的范围；请使用至少 {safe:.3g} 的倍数</translation>
    </message>
    <message>
        <source>multipliers must be a non-empty list of numbers &gt; 0</source>
        <translation>倍数必须是非空的、大于 0 的数字列表</translation>
    </message>
    <message>
        <source>rows must be a non-empty list of query rows 0 … {last}</source>
        <translation>rows 必须是非空的查询行列表，取值 0 … {last}</translation>
    </message>
    <message>
        <source>{name}: expected a scalar or shape ({d},), got {shape}</source>
        <translation>{name}：应为标量或形状 ({d},)，得到的是 {shape}</translation>
    </message>
    <message>
        <source>the splitting scheme reads FFN weights as I + ΔtW, so it needs d_ff = d_model; this block has d_ff = {d_ff}, d = {d}</source>
        <translation>分裂格式把 FFN 权重读作 I + ΔtW，所以需要 d_ff = d_model；这个块的 d_ff = {d_ff}，d = {d}</translation>
    </message>
    <message>
        <source>relaxation ω must be in [0, 1), got {omega}</source>
        <translation>松弛系数 ω 必须在 [0, 1) 内，得到的是 {omega}</translation>
    </message>
    <message>
        <source>the state overflowed before {what}; use smaller inputs or weights</source>
        <translation>状态在{what}之前就溢出了；请使用更小的输入或权重</translation>
    </message>
    <message>
        <source>{what} is 0/0 at ε = 0: a token&apos;s row has all its features equal (an all-zero input, say), or so nearly equal that the variance underflows; use ε &gt; 0 or a non-constant input</source>
        <translation>{what}在 ε = 0 时是 0/0：某个词元的一行所有特征都相等（比如全零输入），或几乎相等以至方差下溢；请使用 ε &gt; 0 或非常数的输入</translation>
    </message>
    <message>
        <source>{what} overflowed; use smaller inputs, weights or γ</source>
        <translation>{what}溢出；请使用更小的输入、权重或 γ</translation>
    </message>
    <message>
        <source>{name} must be of type {kind}, got {got}</source>
        <translation>{name} 的类型必须是 {kind}，得到的是 {got}</translation>
    </message>
    <message>
        <source>input must be [tokens ≥ 1, {d}], got shape {shape}</source>
        <translation>输入的形状必须是 [词元数 ≥ 1, {d}]，得到的是 {shape}</translation>
    </message>
    <message>
        <source>model must be an EncoderBlock or SplittingScheme, got {got}</source>
        <translation>model 必须是 EncoderBlock 或 SplittingScheme，得到的是 {got}</translation>
    </message>
    <message>
        <source>n_layers must be a whole number from 1 to {limit}, got {value!r}</source>
        <translation>n_layers 必须是 1 到 {limit} 的整数，得到的是 {value!r}</translation>
    </message>
    <message>
        <source>input must be [tokens ≥ 1, features ≥ 1], got shape {shape}</source>
        <translation>输入的形状必须是 [词元数 ≥ 1, 特征数 ≥ 1]，得到的是 {shape}</translation>
    </message>
    <message>
        <source>n_heads ({n_heads}) must divide the feature count ({d})</source>
        <translation>n_heads（{n_heads}）必须整除特征数（{d}）</translation>
    </message>
    <message>
        <source>a row of the input is zero (or too small to square in float64), and its norm at eps = 0 is 0/0; use eps &gt; 0 or a non-zero input</source>
        <translation>输入有一行为零（或小到在 float64 中平方后下溢），eps = 0 时它的归一化是 0/0；请使用 eps &gt; 0 或非零输入</translation>
    </message>
    <message>
        <source>position_offset must be at most 2**52 in size (RoPE&apos;s positions are float64, exact below 2**53), got {value}</source>
        <translation>position_offset 的绝对值最多为 2**52（RoPE 的位置是 float64，只在 2**53 以下精确），得到的是 {value}</translation>
    </message>
    <message>
        <source>context [T, {width}] and o_proj.weight {shape} do not split into {n_heads} heads</source>
        <translation>context [T, {width}] 和 o_proj.weight {shape} 无法拆分成 {n_heads} 个头</translation>
    </message>
    <message>
        <source>values must be a non-empty [heads, tokens, head_dim], got {shape}</source>
        <translation>values 必须是非空的 [头数, 词元数, head_dim]，得到的是 {shape}</translation>
    </message>
    <message>
        <source>{name} must be one vector (1-D), got shape {shape}</source>
        <translation>{name} 必须是一个向量（一维），得到的形状是 {shape}</translation>
    </message>
    <message>
        <source>{name} needs at least {min_size} entries, got {size}</source>
        <translation>{name} 至少需要 {min_size} 个分量，得到的是 {size} 个</translation>
    </message>
    <message>
        <source>{name} has an entry of size {largest:.3g}; past 1e150 its square overflows float64: use smaller values</source>
        <translation>{name} 有一个大小为 {largest:.3g} 的分量；超过 1e150 后它的平方会在 float64 中溢出：请使用更小的值</translation>
    </message>
    <message>
        <source>{name}&apos;s largest entry is {largest:.3g}; below 1e-150 its square underflows float64 to 0: scale {name} up or use exact zeros</source>
        <translation>{name} 的最大分量是 {largest:.3g}；小于 1e-150 时它的平方会在 float64 中下溢为 0：请放大 {name}，或使用精确的零</translation>
    </message>
    <message>
        <source>{name}&apos;s entries differ from their mean by at most {spread:.3g}; below 1e-150 the variance underflows float64: spread them further apart or make {name} exactly constant</source>
        <translation>{name} 的分量与均值最多相差 {spread:.3g}；小于 1e-150 时方差会在 float64 中下溢：请让分量相差更大，或让 {name} 恰好为常数</translation>
    </message>
    <message>
        <source>{name} must be at most 1e150 in size (its square overflows float64), got {value:g}</source>
        <translation>{name} 的绝对值最多为 1e150（否则它的平方会在 float64 中溢出），得到的是 {value:g}</translation>
    </message>
    <message>
        <source>v and u must have the same length, got {v} and {u}</source>
        <translation>v 和 u 的长度必须相同，得到的是 {v} 和 {u}</translation>
    </message>
    <message>
        <source>gamma must have {d} entries like v, got {size}</source>
        <translation>gamma 必须像 v 一样有 {d} 个分量，得到的是 {size} 个</translation>
    </message>
    <message>
        <source>LayerNorm of a constant vector is 0/0 at ε = 0; use ε &gt; 0</source>
        <translation>ε = 0 时常数向量的 LayerNorm 是 0/0；请使用 ε &gt; 0</translation>
    </message>
    <message>
        <source>ε = {eps:g} shrinks v to entries of size {shrunk:.3g}, below 1e-150 where their squares underflow float64: use a smaller ε</source>
        <translation>ε = {eps:g} 把 v 的分量缩小到 {shrunk:.3g}，低于 1e-150，它们的平方会在 float64 中下溢：请使用更小的 ε</translation>
    </message>
    <message>
        <source>gamma and beta must have {d} entries like v</source>
        <translation>gamma 和 beta 必须像 v 一样有 {d} 个分量</translation>
    </message>
    <message>
        <source>gamma is all zeros: the image set is one point</source>
        <translation>gamma 全为零：像集只有一个点</translation>
    </message>
    <message>
        <source>LayerNorm of a constant vector is 0/0 at ε = 0</source>
        <translation>ε = 0 时常数向量的 LayerNorm 是 0/0</translation>
    </message>
    <message>
        <source>Euler sub-stepping</source>
        <translation>欧拉子步</translation>
    </message>
    <message>
        <source>__metadata__ is not a map of text to text</source>
        <translation>__metadata__ 不是从文本到文本的映射</translation>
    </message>
    <message>
        <source>a head&apos;s slice of k_proj</source>
        <translation>k_proj 中某个头的切片</translation>
    </message>
    <message>
        <source>a head&apos;s slice of q_proj</source>
        <translation>q_proj 中某个头的切片</translation>
    </message>
    <message>
        <source>a non-zero input</source>
        <translation>使用非零输入</translation>
    </message>
    <message>
        <source>a row of embed</source>
        <translation>embed 的一行</translation>
    </message>
    <message>
        <source>a row of resid_attn</source>
        <translation>resid_attn 的一行</translation>
    </message>
    <message>
        <source>a tensor too large for memory</source>
        <translation>有张量大到内存放不下</translation>
    </message>
    <message>
        <source>every n</source>
        <translation>每个 n</translation>
    </message>
    <message>
        <source>far too large for a config.json</source>
        <translation>对 config.json 来说太大了</translation>
    </message>
    <message>
        <source>inputs and weights that keep it non-zero</source>
        <translation>使用能让它保持非零的输入和权重</translation>
    </message>
    <message>
        <source>not a JSON object</source>
        <translation>不是 JSON 对象</translation>
    </message>
    <message>
        <source>not a regular file</source>
        <translation>不是普通文件</translation>
    </message>
    <message>
        <source>not an .npz archive</source>
        <translation>不是 .npz 归档</translation>
    </message>
    <message>
        <source>the MLP branch</source>
        <translation>MLP 分支</translation>
    </message>
    <message>
        <source>the ReZero layer</source>
        <translation>ReZero 层</translation>
    </message>
    <message>
        <source>the attention branch</source>
        <translation>注意力分支</translation>
    </message>
    <message>
        <source>the block&apos;s first LayerNorm</source>
        <translation>块的第一个 LayerNorm</translation>
    </message>
    <message>
        <source>the block&apos;s second LayerNorm</source>
        <translation>块的第二个 LayerNorm</translation>
    </message>
    <message>
        <source>the flow</source>
        <translation>连续流</translation>
    </message>
    <message>
        <source>the sub-stepped layer</source>
        <translation>拆成子步的层</translation>
    </message>
</context>
<context>
    <name>Export</name>
    <message>
        <source>the panel has nothing to draw (is it hidden?)</source>
        <translation>面板没有可绘制的内容（是否被隐藏了？）</translation>
    </message>
    <message>
        <source>the PNG encoder failed</source>
        <translation>PNG 编码失败</translation>
    </message>
    <message>
        <source>the panel has no size (is it hidden?)</source>
        <translation>面板没有尺寸（是否被隐藏了？）</translation>
    </message>
    <message>
        <source>could not start the SVG painter</source>
        <translation>无法启动 SVG 绘制</translation>
    </message>
    <message>
        <source>nothing computed yet: type a sentence first</source>
        <translation>还没有计算结果：请先输入一句话</translation>
    </message>
</context>
<context>
    <name>Intervention</name>
    <message>
        <source>attention skipped</source>
        <translation>跳过注意力</translation>
    </message>
    <message>
        <source>MLP skipped</source>
        <translation>跳过 MLP</translation>
    </message>
    <message>
        <source>head %1 off</source>
        <translation>头 %1 关闭</translation>
    </message>
    <message>
        <source>head %1 × %2</source>
        <translation>头 %1 × %2</translation>
    </message>
    <message>
        <source>neuron %1 off</source>
        <translation>神经元 %1 关闭</translation>
    </message>
    <message>
        <source>in every layer</source>
        <translation>在每一层</translation>
    </message>
    <message>
        <source>in layer %1</source>
        <translation>在第 %1 层</translation>
    </message>
    <message>
        <source>INTERVENED: %1</source>
        <translation>已干预：%1</translation>
    </message>
    <message>
        <source>PLAIN: nothing switched off</source>
        <translation>原样：没有关闭任何部件</translation>
    </message>
</context>
<context>
    <name>InterventionsPanel</name>
    <message>
        <source>&lt;b&gt;Switched off in this layer&lt;/b&gt;</source>
        <translation>&lt;b&gt;这一层中被关掉的部分&lt;/b&gt;</translation>
    </message>
    <message>
        <source>Nothing: every panel shows the plain layer.</source>
        <translation>没有：每个面板都显示原始层。</translation>
    </message>
    <message>
        <source>Clear all</source>
        <translation>全部清除</translation>
    </message>
    <message>
        <source>Back to the plain layer (Ctrl+Z undoes it)</source>
        <translation>回到原始层（Ctrl+Z 可撤销）</translation>
    </message>
    <message>
        <source>Head:</source>
        <translation>头：</translation>
    </message>
    <message>
        <source>Switch off / on</source>
        <translation>关闭 / 打开</translation>
    </message>
    <message>
        <source>The head&apos;s attention output is zero before o_proj (its pattern is still computed)</source>
        <translation>该头的注意力输出在 o_proj 之前置零（注意力模式仍会计算）</translation>
    </message>
    <message>
        <source>Scale by factor</source>
        <translation>按系数缩放</translation>
    </message>
    <message>
        <source>The head&apos;s attention output times the factor before o_proj</source>
        <translation>该头的注意力输出在 o_proj 之前乘以系数</translation>
    </message>
    <message>
        <source>MLP neuron:</source>
        <translation>MLP 神经元：</translation>
    </message>
    <message>
        <source>That column of gated = act(gate) × up is zero before down_proj</source>
        <translation>gated = act(gate) × up 的这一列在 down_proj 之前置零</translation>
    </message>
    <message>
        <source>skip attention</source>
        <translation>跳过注意力</translation>
    </message>
    <message>
        <source>The attention branch adds nothing to the residual: resid_attn = x</source>
        <translation>注意力分支不向残差添加任何东西：resid_attn = x</translation>
    </message>
    <message>
        <source>skip MLP</source>
        <translation>跳过 MLP</translation>
    </message>
    <message>
        <source>The MLP branch adds nothing to the residual: resid_mlp = resid_attn</source>
        <translation>MLP 分支不向残差添加任何东西：resid_mlp = resid_attn</translation>
    </message>
    <message>
        <source>Every change is one undo step (Ctrl+Z). The causality panel compares the intervened layer with the plain one; every panel carries a red INTERVENED badge.</source>
        <translation>每次改动都是一个撤销步骤（Ctrl+Z）。因果面板把干预后的层与原始层对比；每个面板都带有红色的“已干预”标记。</translation>
    </message>
    <message>
        <source>Where:</source>
        <translation>作用于：</translation>
    </message>
    <message>
        <source>With a model: switch the same parts off in the layer on show only, or in every layer at once (one head index in all layers, say)</source>
        <translation>打开模型时：只在当前显示的层中关闭这些部分，或在每一层同时关闭（例如所有层中同一个头编号）</translation>
    </message>
    <message>
        <source>this layer (%1)</source>
        <translation>本层（第 %1 层）</translation>
    </message>
    <message>
        <source>this layer</source>
        <translation>本层</translation>
    </message>
    <message>
        <source>every layer (%1 layers)</source>
        <translation>每一层（共 %1 层）</translation>
    </message>
    <message>
        <source>every layer</source>
        <translation>每一层</translation>
    </message>
    <message>
        <source>&lt;b&gt;Switched off in every layer&lt;/b&gt;</source>
        <translation>&lt;b&gt;在每一层中关闭的部分&lt;/b&gt;</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <source>Switch this back on</source>
        <translation>重新打开</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Dual View — one Qwen3 layer, two views</source>
        <translation>双视角 —— 一个 Qwen3 层，两种视角</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Open session…</source>
        <translation>打开会话(&amp;O)…</translation>
    </message>
    <message>
        <source>Open &amp;example</source>
        <translation>打开示例(&amp;E)</translation>
    </message>
    <message>
        <source>Open layer &amp;weights…</source>
        <translation>打开层权重(&amp;W)…</translation>
    </message>
    <message>
        <source>Back to &amp;random weights</source>
        <translation>改回随机权重(&amp;R)</translation>
    </message>
    <message>
        <source>Open &amp;model…</source>
        <translation>打开模型(&amp;M)…</translation>
    </message>
    <message>
        <source>Back to the &amp;toy layer</source>
        <translation>返回玩具层(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Save session</source>
        <translation>保存会话(&amp;S)</translation>
    </message>
    <message>
        <source>Save session &amp;as…</source>
        <translation>会话另存为(&amp;A)…</translation>
    </message>
    <message>
        <source>&amp;Export</source>
        <translation>导出(&amp;E)</translation>
    </message>
    <message>
        <source>Panel as &amp;PNG image</source>
        <translation>面板导出为 &amp;PNG 图片</translation>
    </message>
    <message>
        <source>Panel as &amp;SVG (vector)</source>
        <translation>面板导出为 &amp;SVG（矢量图）</translation>
    </message>
    <message>
        <source>Whole &amp;window as PNG…</source>
        <translation>整个窗口导出为 PNG(&amp;W)…</translation>
    </message>
    <message>
        <source>Step matrix on screen as &amp;CSV…</source>
        <translation>当前步骤矩阵导出为 &amp;CSV…</translation>
    </message>
    <message>
        <source>Step matrix on screen as .&amp;npy…</source>
        <translation>当前步骤矩阵导出为 .&amp;npy…</translation>
    </message>
    <message>
        <source>&amp;All steps of this input as .npz…</source>
        <translation>当前输入的全部步骤导出为 .npz(&amp;A)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <source>Go to the &amp;text field</source>
        <translation>转到文本框(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Clear interventions (back to the plain layer)</source>
        <translation>清除干预（回到原始层）(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Reset layout</source>
        <translation>重置布局(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Presentation mode</source>
        <translation>演示模式(&amp;P)</translation>
    </message>
    <message>
        <source>&amp;Larger text</source>
        <translation>放大文字(&amp;L)</translation>
    </message>
    <message>
        <source>S&amp;maller text</source>
        <translation>缩小文字(&amp;M)</translation>
    </message>
    <message>
        <source>&amp;Normal text size</source>
        <translation>正常文字大小(&amp;N)</translation>
    </message>
    <message>
        <source>&amp;Theme</source>
        <translation>主题(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Light</source>
        <translation>浅色(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Dark</source>
        <translation>深色(&amp;D)</translation>
    </message>
    <message>
        <source>Colour &amp;palette</source>
        <translation>配色方案(&amp;P)</translation>
    </message>
    <message>
        <source>&amp;Classic (blue–red)</source>
        <translation>经典（蓝–红）(&amp;C)</translation>
    </message>
    <message>
        <source>Colour-&amp;blind safe</source>
        <translation>色盲友好(&amp;B)</translation>
    </message>
    <message>
        <source>&amp;Demo</source>
        <translation>演示(&amp;D)</translation>
    </message>
    <message>
        <source>&amp;Play / pause depth time</source>
        <translation>播放 / 暂停深度时间(&amp;P)</translation>
    </message>
    <message>
        <source>P&amp;revious step</source>
        <translation>上一个步骤(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Next step</source>
        <translation>下一个步骤(&amp;N)</translation>
    </message>
    <message>
        <source>&amp;First step</source>
        <translation>第一个步骤(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Last step</source>
        <translation>最后一个步骤(&amp;L)</translation>
    </message>
    <message>
        <source>Previous &amp;head</source>
        <translation>上一个头(&amp;H)</translation>
    </message>
    <message>
        <source>Next h&amp;ead</source>
        <translation>下一个头(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Causal mask</source>
        <translation>因果掩码(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;Guided tour</source>
        <translation>导览(&amp;G)</translation>
    </message>
    <message>
        <source>Tour: next stop</source>
        <translation>导览：下一站</translation>
    </message>
    <message>
        <source>Tour: previous stop</source>
        <translation>导览：上一站</translation>
    </message>
    <message>
        <source>&amp;Keyboard shortcuts</source>
        <translation>键盘快捷键(&amp;K)</translation>
    </message>
    <message>
        <source>&amp;About Dual View</source>
        <translation>关于双视角(&amp;A)</translation>
    </message>
    <message>
        <source>Guided tour</source>
        <translation>导览</translation>
    </message>
    <message>
        <source>Nothing to redo</source>
        <translation>没有可重做的操作</translation>
    </message>
    <message>
        <source>Nothing to undo</source>
        <translation>没有可撤销的操作</translation>
    </message>
    <message>
        <source>Redo the text edit: “%1”</source>
        <translation>重做文本修改：“%1”</translation>
    </message>
    <message>
        <source>Undo the text edit: back to “%1”</source>
        <translation>撤销文本修改：回到“%1”</translation>
    </message>
    <message>
        <source>the plain layer</source>
        <translation>未干预的层</translation>
    </message>
    <message>
        <source>Redo the intervention change: %1</source>
        <translation>重做干预修改：%1</translation>
    </message>
    <message>
        <source>Undo the intervention change: back to %1</source>
        <translation>撤销干预修改：回到 %1</translation>
    </message>
    <message>
        <source>&amp;Undo</source>
        <translation>撤销(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Redo</source>
        <translation>重做(&amp;R)</translation>
    </message>
    <message>
        <source>no tokens</source>
        <translation>没有词元</translation>
    </message>
    <message numerus="yes">
        <source>%n token(s)</source>
        <translation>
            <numerusform>%n 个词元</numerusform>
        </translation>
    </message>
    <message>
        <source>computed in %1 ms</source>
        <translation>计算用时 %1 毫秒</translation>
    </message>
    <message>
        <source>The text field holds at most %1 characters; anything past that was left out.</source>
        <translation>文本框最多容纳 %1 个字符；超出的部分没有保留。</translation>
    </message>
    <message>
        <source>computing…</source>
        <translation>计算中…</translation>
    </message>
    <message>
        <source>Mask off: only layer %1 runs without the mask, on its real input; the other layers and the next token are the causal model&apos;s</source>
        <translation>掩码已关闭：只有第 %1 层在其真实输入上不带掩码运行；其他各层和下一个词元仍是因果模型的结果</translation>
    </message>
    <message>
        <source>KV cache: reused %1 of %2 rows in %3 of %4 layers: %5 % of the rows not recomputed</source>
        <translation>KV 缓存：在 %4 层中的 %3 层复用了 %2 行中的 %1 行：%5 % 的行无需重新计算</translation>
    </message>
    <message>
        <source>Not computed: %1</source>
        <translation>未计算：%1</translation>
    </message>
    <message>
        <source>Model %1, layer %2 of %3</source>
        <translation>模型 %1，第 %2 层（共 %3 层）</translation>
    </message>
    <message>
        <source>Random weights (seed %1)</source>
        <translation>随机权重（种子 %1）</translation>
    </message>
    <message>
        <source>File ▸ Open layer weights… runs a real model&apos;s layer instead</source>
        <translation>文件 ▸ 打开层权重… 可改为运行真实模型的一层</translation>
    </message>
    <message>
        <source>%1, layer %2 — hidden %3, %4 heads (%5 kv) × %6, MLP %7</source>
        <translation>%1，第 %2 层 — 隐藏维度 %3，%4 个头（%5 个 kv 头）× %6，MLP %7</translation>
    </message>
    <message>
        <source>Weights read from %1</source>
        <translation>权重读取自 %1</translation>
    </message>
    <message>
        <source>Not in a config.json beside the file, so Qwen3&apos;s default is used: %1</source>
        <translation>文件旁的 config.json 中没有这些值，因此使用 Qwen3 的默认值：%1</translation>
    </message>
    <message>
        <source>Dual View</source>
        <translation>双视角</translation>
    </message>
    <message>
        <source>No Chinese font found: Chinese text will show as empty boxes. Install a CJK font (e.g. fonts-wqy-microhei or Noto Sans CJK) and restart.</source>
        <translation>未找到中文字体：中文会显示成空白方框。请安装一款中日韩字体（例如 fonts-wqy-microhei 或 Noto Sans CJK）后重新启动。</translation>
    </message>
    <message>
        <source>Leave the text field (then Space and arrows work); leave presentation mode</source>
        <translation>离开文本框（之后空格键和方向键即可使用）；退出演示模式</translation>
    </message>
    <message>
        <source>Click a heatmap cell</source>
        <translation>点击热图中的格子</translation>
    </message>
    <message>
        <source>Copy its exact value to the clipboard</source>
        <translation>把它的精确数值复制到剪贴板</translation>
    </message>
    <message>
        <source>Interventions cleared (%1): the new layer does not have every part they name</source>
        <translation>干预已清除（%1）：新的层没有其中提到的全部部件</translation>
    </message>
    <message>
        <source>The last token is part of a character: bytes %1 wait for the next token (the ids stay what the model produced)</source>
        <translation>最后一个词元只是一个字符的一部分：字节 %1 等待下一个词元（编号保持模型生成的样子）</translation>
    </message>
    <message>
        <source>Dual View %1: one real Qwen3 decoder layer, computed live in float64 and shown two ways — 22 matrix steps and a continuous depth-time view.</source>
        <translation>双视角 %1：一个真实的 Qwen3 解码层，以 float64 实时计算，并用两种方式呈现——22 个矩阵步骤，以及连续的深度时间视角。</translation>
    </message>
    <message>
        <source>Copied %1 to the clipboard</source>
        <translation>已将 %1 复制到剪贴板</translation>
    </message>
    <message>
        <source>Could not save the session: %1</source>
        <translation>无法保存会话：%1</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>已保存 %1</translation>
    </message>
    <message>
        <source>Cannot open %1: %2</source>
        <translation>无法打开 %1：%2</translation>
    </message>
    <message>
        <source>Open session</source>
        <translation>打开会话</translation>
    </message>
    <message>
        <source>not enough memory</source>
        <translation>内存不足</translation>
    </message>
    <message>
        <source>the file has changed since the session was saved</source>
        <translation>保存会话之后该文件已被修改</translation>
    </message>
    <message>
        <source>The session&apos;s intervention was not applied: %1</source>
        <translation>会话中的干预没有应用：%1</translation>
    </message>
    <message>
        <source>The session&apos;s weights (%1, layer %2) could not be loaded: %3. It runs on random weights of the same shape instead.</source>
        <translation>无法加载会话的权重（%1，第 %2 层）：%3。现改用形状相同的随机权重运行。</translation>
    </message>
    <message>
        <source>Cannot load weights from %1: %2</source>
        <translation>无法从 %1 加载权重：%2</translation>
    </message>
    <message>
        <source>Open layer weights</source>
        <translation>打开层权重</translation>
    </message>
    <message>
        <source>Loaded layer %1 of %2</source>
        <translation>已加载 %2 的第 %1 层</translation>
    </message>
    <message>
        <source>%1 holds %3 decoder layers: %2. Which one should run?</source>
        <translation>%1 包含 %3 个解码器层：%2。要运行哪一层？</translation>
    </message>
    <message>
        <source>Layer weights (*.safetensors *.npz);;All files (*)</source>
        <translation>层权重 (*.safetensors *.npz);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Autosave is off: the settings folder %1 cannot be used (%2)</source>
        <translation>自动保存已关闭：无法使用设置文件夹 %1（%2）</translation>
    </message>
    <message>
        <source>Restore the last session?</source>
        <translation>恢复上次的会话？</translation>
    </message>
    <message>
        <source>Dual View did not close normally last time. Restore the session it was showing?</source>
        <translation>双视角上次没有正常关闭。要恢复当时显示的会话吗？</translation>
    </message>
    <message>
        <source>Restore</source>
        <translation>恢复</translation>
    </message>
    <message>
        <source>Discard</source>
        <translation>丢弃</translation>
    </message>
    <message>
        <source>Restored the last session</source>
        <translation>已恢复上次的会话</translation>
    </message>
    <message>
        <source>Dual View sessions (*.dualview.json);;All files (*)</source>
        <translation>双视角会话 (*.dualview.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Save session</source>
        <translation>保存会话</translation>
    </message>
    <message>
        <source>Dual View sessions (*.dualview.json)</source>
        <translation>双视角会话 (*.dualview.json)</translation>
    </message>
    <message>
        <source>Export image</source>
        <translation>导出图片</translation>
    </message>
    <message>
        <source>Export step matrix</source>
        <translation>导出步骤矩阵</translation>
    </message>
    <message>
        <source>Export all steps</source>
        <translation>导出全部步骤</translation>
    </message>
    <message>
        <source>choose a .png or .svg file name</source>
        <translation>请选择 .png 或 .svg 文件名</translation>
    </message>
    <message>
        <source>Export failed: %1</source>
        <translation>导出失败：%1</translation>
    </message>
    <message>
        <source>Exported %1</source>
        <translation>已导出 %1</translation>
    </message>
    <message>
        <source>Nothing to export yet: type a sentence first.</source>
        <translation>还没有可导出的内容：请先输入一句话。</translation>
    </message>
    <message>
        <source>choose a .csv or .npy file name</source>
        <translation>请选择 .csv 或 .npy 文件名</translation>
    </message>
    <message>
        <source>Layer:</source>
        <translation>层：</translation>
    </message>
    <message>
        <source>Which layer of the model the panels show (0 is the first)</source>
        <translation>各面板显示模型的哪一层（0 为第一层）</translation>
    </message>
    <message>
        <source>Opening the model in %1…</source>
        <translation>正在打开 %1 中的模型…</translation>
    </message>
    <message>
        <source>Cannot open the model in %1: %2</source>
        <translation>无法打开 %1 中的模型：%2</translation>
    </message>
    <message>
        <source>Open model</source>
        <translation>打开模型</translation>
    </message>
    <message>
        <source>Opened %1: %2 layers, showing layer %3</source>
        <translation>已打开 %1：共 %2 层，显示第 %3 层</translation>
    </message>
    <message>
        <source>Open a model folder (config.json, tokenizer.json, *.safetensors)</source>
        <translation>打开模型文件夹（config.json、tokenizer.json、*.safetensors）</translation>
    </message>
</context>
<context>
    <name>MissingGlyphWatch</name>
    <message>
        <source>Rare Han characters such as %1 (CJK Extension B and later) are not in the bundled fonts and no installed font has them: they show as boxes.</source>
        <translation>%1 等生僻汉字（CJK 扩展 B 区及以后）不在内置字体中，本机也没有字体包含它们：它们会显示为方框。</translation>
    </message>
    <message>
        <source>No bundled or installed font has %1: shown as boxes.</source>
        <translation>内置字体和本机字体都没有 %1：显示为方框。</translation>
    </message>
</context>
<context>
    <name>NextTokenPanel</name>
    <message>
        <source>Open a model (File ▸ Open model…) to see what Qwen3 predicts next.</source>
        <translation>打开一个模型（文件 ▸ 打开模型…），看看 Qwen3 接下来预测什么。</translation>
    </message>
    <message>
        <source>Next token</source>
        <translation>下一个词元</translation>
    </message>
    <message>
        <source>Softmax temperature T on a log scale</source>
        <translation>Softmax 温度 T（对数刻度）</translation>
    </message>
    <message>
        <source>T = 1 (the model)</source>
        <translation>T = 1（模型本身）</translation>
    </message>
    <message>
        <source>rank</source>
        <translation>名次</translation>
    </message>
    <message>
        <source>plain model</source>
        <translation>未干预的模型</translation>
    </message>
    <message>
        <source>intervened</source>
        <translation>干预后</translation>
    </message>
    <message>
        <source>change</source>
        <translation>变化</translation>
    </message>
    <message>
        <source>The plain model and the intervened one (%1) on the same text: the tokens of both top %2, the largest change first.</source>
        <translation>同一段文本上未干预的模型与干预后的模型（%1）：两者前 %2 名词元的并集，变化最大的排在最前。</translation>
    </message>
    <message>
        <source>place in the plain model&apos;s list → in the intervened model&apos;s</source>
        <translation>在未干预模型列表中的名次 → 在干预后模型列表中的名次</translation>
    </message>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>token</source>
        <translation>词元</translation>
    </message>
    <message>
        <source>probability</source>
        <translation>概率</translation>
    </message>
    <message>
        <source>Append the most probable token to the text (greedy: one step per press)</source>
        <translation>把最可能的词元接到文本后面（贪心：每按一次走一步）</translation>
    </message>
    <message>
        <source>T = %1</source>
        <translation>T = %1</translation>
    </message>
    <message>
        <source>Append “%1”</source>
        <translation>接上“%1”</translation>
    </message>
    <message>
        <source>Append</source>
        <translation>接上</translation>
    </message>
    <message>
        <source>id %1 · stored as %2</source>
        <translation>id %1 · 存储为 %2</translation>
    </message>
    <message>
        <source>special token</source>
        <translation>特殊词元</translation>
    </message>
</context>
<context>
    <name>NormComparePanel</name>
    <message>
        <source>Token:</source>
        <translation>词元：</translation>
    </message>
    <message>
        <source>Vector:</source>
        <translation>向量：</translation>
    </message>
    <message>
        <source>embed (t = 0)</source>
        <translation>embed（t = 0）</translation>
    </message>
    <message>
        <source>resid_attn (t = ½)</source>
        <translation>resid_attn（t = ½）</translation>
    </message>
    <message>
        <source>The vectors the layer&apos;s two RMSNorms read: embed goes into input_layernorm, resid_attn into post_attention_layernorm</source>
        <translation>这一层的两个 RMSNorm 读取的向量：embed 进入 input_layernorm，resid_attn 进入 post_attention_layernorm</translation>
    </message>
    <message>
        <source>show the layer&apos;s RMSNorm·γ</source>
        <translation>显示这一层的 RMSNorm·γ</translation>
    </message>
    <message>
        <source>Also draw the layer&apos;s own RMSNorm with its weight γ (the row of its norm step)</source>
        <translation>同时画出这一层自己带权重 γ 的 RMSNorm（其归一化步骤中的那一行）</translation>
    </message>
    <message>
        <source>mean</source>
        <translation>均值</translation>
    </message>
    <message>
        <source>std</source>
        <translation>标准差</translation>
    </message>
    <message>
        <source>RMS</source>
        <translation>RMS</translation>
    </message>
    <message>
        <source>Distance from v:</source>
        <translation>与 v 的距离：</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>详情</translation>
    </message>
    <message>
        <source>Show the identity LN(v) = RMSNorm(v − mean v), the layer&apos;s own RMSNorm·γ and its check against the trace</source>
        <translation>显示恒等式 LN(v) = RMSNorm(v − mean v)、本层带 γ 的 RMSNorm·γ 及其与轨迹的核对</translation>
    </message>
    <message>
        <source>RMSNorm(v)·γ with the layer&apos;s γ = row %1 of step %2: max |Δ| = %3%4</source>
        <translation>用这一层的 γ 计算的 RMSNorm(v)·γ = 第 %2 步的第 %1 行：最大 |Δ| = %3%4</translation>
    </message>
    <message>
        <source>to S = {mean 0, variance 1}, LayerNorm&apos;s set: &lt;b&gt;%1&lt;/b&gt; = √(d[(1 − s)² + m²]) = %2</source>
        <translation>到 S = {均值 0，方差 1}（LayerNorm 的集合）：&lt;b&gt;%1&lt;/b&gt; = √(d[(1 − s)² + m²]) = %2</translation>
    </message>
    <message>
        <source>; v is constant, so every point of S is equally near (E7)</source>
        <translation>；v 是常向量，所以 S 中每个点都一样近（E7）</translation>
    </message>
    <message>
        <source>; LN with ε = %1 lands %2 off S&apos;s nearest point (E8)</source>
        <translation>；ε = %1 的 LN 落在离 S 的最近点 %2 处（E8）</translation>
    </message>
    <message>
        <source>to LayerNorm&apos;s set: &lt;b&gt;%1&lt;/b&gt;</source>
        <translation>到 LayerNorm 的集合：&lt;b&gt;%1&lt;/b&gt;</translation>
    </message>
    <message>
        <source>to the sphere ‖u‖ = √d = %1, RMSNorm&apos;s set: &lt;b&gt;%2&lt;/b&gt; = √d·|rms − 1| = %3</source>
        <translation>到球面 ‖u‖ = √d = %1（RMSNorm 的集合）：&lt;b&gt;%2&lt;/b&gt; = √d·|rms − 1| = %3</translation>
    </message>
    <message>
        <source>mean of v</source>
        <translation>v 的均值</translation>
    </message>
    <message>
        <source>feature</source>
        <translation>特征</translation>
    </message>
    <message>
        <source>std is the population std (1/d), as LayerNorm uses; the length is ‖u‖ = √d · RMS</source>
        <translation>标准差是总体标准差（除以 d），与 LayerNorm 一致；长度 ‖u‖ = √d · RMS</translation>
    </message>
    <message>
        <source>Distance from v (normalisation as projection, ε = 0, γ = 1):</source>
        <translation>与 v 的距离（把归一化看作投影，ε = 0，γ = 1）：</translation>
    </message>
    <message>
        <source>The layer&apos;s weights are being replaced; γ will follow.</source>
        <translation>这一层的权重正在更换；γ 随后更新。</translation>
    </message>
    <message>
        <source> (bitwise)</source>
        <translation>（逐位）</translation>
    </message>
    <message>
        <source>NOT UNIQUE</source>
        <translation>不唯一</translation>
    </message>
    <message>
        <source>CHECK</source>
        <translation>请检查</translation>
    </message>
    <message>
        <source>to RMSNorm&apos;s sphere: &lt;b&gt;%1&lt;/b&gt;</source>
        <translation>到 RMSNorm 的球面：&lt;b&gt;%1&lt;/b&gt;</translation>
    </message>
    <message>
        <source>LN(v) = RMSNorm(v − mean v) up to %1; RMSNorm only scales the mean (mean v = %2, mean of RMSNorm(v) = %3), LN removes it</source>
        <translation>LN(v) = RMSNorm(v − mean v)，误差在 %1 以内；RMSNorm 只缩放均值（mean v = %2，RMSNorm(v) 的均值 = %3），LN 则把它去掉</translation>
    </message>
    <message>
        <source>LN = RMSNorm(v − mean) ± %1</source>
        <translation>LN = RMSNorm(v − 均值) ± %1</translation>
    </message>
    <message>
        <source>feature %1: v = %2 · LN(v) = %3 · RMSNorm(v) = %4</source>
        <translation>特征 %1：v = %2 · LN(v) = %3 · RMSNorm(v) = %4</translation>
    </message>
    <message>
        <source> · ·γ = %1</source>
        <translation> · ·γ = %1</translation>
    </message>
</context>
<context>
    <name>OsError</name>
    <message>
        <source>permission denied</source>
        <translation>没有权限</translation>
    </message>
    <message>
        <source>not permitted</source>
        <translation>不允许此操作</translation>
    </message>
    <message>
        <source>no such file or folder</source>
        <translation>文件或文件夹不存在</translation>
    </message>
    <message>
        <source>part of the path is not a folder</source>
        <translation>路径中有一部分不是文件夹</translation>
    </message>
    <message>
        <source>it is a folder, not a file</source>
        <translation>这是文件夹，不是文件</translation>
    </message>
    <message>
        <source>a file or folder of that name is in the way</source>
        <translation>同名的文件或文件夹挡住了路径</translation>
    </message>
    <message>
        <source>the disk is full</source>
        <translation>磁盘已满</translation>
    </message>
    <message>
        <source>the disk quota is used up</source>
        <translation>磁盘配额已用完</translation>
    </message>
    <message>
        <source>the disk is read-only</source>
        <translation>磁盘是只读的</translation>
    </message>
    <message>
        <source>the file name is too long</source>
        <translation>文件名太长</translation>
    </message>
    <message>
        <source>the disk could not be read or written</source>
        <translation>磁盘无法读写</translation>
    </message>
    <message>
        <source>the file is in use</source>
        <translation>文件正被占用</translation>
    </message>
    <message>
        <source>the name is not allowed here</source>
        <translation>这里不允许这个名称</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
</context>
<context>
    <name>Panel</name>
    <message>
        <source>Not computed: %1</source>
        <translation>未计算：%1</translation>
    </message>
    <message>
        <source>Type a sentence above to compute the layer.
在上方输入一句话开始计算。</source>
        <translation>在上方输入一句话开始计算。
Type a sentence above to compute the layer.</translation>
    </message>
    <message>
        <source>This panel cannot show this layer and input: %1</source>
        <translation>此面板无法显示这一层和这个输入：%1</translation>
    </message>
</context>
<context>
    <name>ProjectionPanel</name>
    <message>
        <source>Projection geometry (d = 3)</source>
        <translation>投影几何（d = 3）</translation>
    </message>
    <message>
        <source>v =</source>
        <translation>v =</translation>
    </message>
    <message>
        <source>constant v</source>
        <translation>常向量 v</translation>
    </message>
    <message>
        <source>Make every component equal (keeps the mean)</source>
        <translation>让所有分量相等（保持均值）</translation>
    </message>
    <message>
        <source>reset</source>
        <translation>重置</translation>
    </message>
    <message>
        <source>LayerNorm ε (far left: ε = 0)</source>
        <translation>LayerNorm 的 ε（最左端：ε = 0）</translation>
    </message>
    <message>
        <source>Target mean σ₁ (LayerNorm&apos;s β)</source>
        <translation>目标均值 σ₁（LayerNorm 的 β）</translation>
    </message>
    <message>
        <source>Target standard deviation σ₂ (LayerNorm&apos;s γ)</source>
        <translation>目标标准差 σ₂（LayerNorm 的 γ）</translation>
    </message>
    <message>
        <source>looking along (1, 1, 1): the circle seen true</source>
        <translation>沿 (1, 1, 1) 方向看：圆呈现真实形状</translation>
    </message>
    <message>
        <source>antipode</source>
        <translation>对径点</translation>
    </message>
    <message>
        <source>side view: plane of (1, 1, 1) and v (true lengths)</source>
        <translation>侧视图：(1, 1, 1) 与 v 张成的平面（真实长度）</translation>
    </message>
    <message>
        <source>across the axis (spread of v)</source>
        <translation>垂直于轴（v 的离散程度）</translation>
    </message>
    <message>
        <source>along (1, 1, 1)/√3 = √3·mean</source>
        <translation>沿 (1, 1, 1)/√3 方向 = √3·均值</translation>
    </message>
    <message>
        <source>ε = %1</source>
        <translation>ε = %1</translation>
    </message>
    <message>
        <source>Exact: a test asserts this statement in float64.</source>
        <translation>精确：有测试在 float64 下断言这一结论。</translation>
    </message>
    <message>
        <source>Analogy: shown with its caveat, never asserted.</source>
        <translation>类比：附带说明展示，从不作为断言。</translation>
    </message>
</context>
<context>
    <name>Sessions</name>
    <message>
        <source>the session has no %1 field</source>
        <translation>会话中没有 %1 字段</translation>
    </message>
    <message>
        <source>%1 must be a number, not true/false</source>
        <translation>%1 必须是数字，而不是 true/false</translation>
    </message>
    <message>
        <source>%1 has the wrong type (%2)</source>
        <translation>%1 的类型不对（%2）</translation>
    </message>
    <message>
        <source>this is not a Dual View session file</source>
        <translation>这不是双视角的会话文件</translation>
    </message>
    <message>
        <source>the session file has no valid version number</source>
        <translation>会话文件没有有效的版本号</translation>
    </message>
    <message>
        <source>it was saved by a newer Dual View (file version %1; this app reads up to version %2). Please update the app.</source>
        <translation>它由更新版本的双视角保存（文件版本 %1；本程序最多只能读取版本 %2）。请更新程序。</translation>
    </message>
    <message>
        <source>the session file is damaged or incomplete (%1)</source>
        <translation>会话文件已损坏或不完整（%1）</translation>
    </message>
    <message>
        <source>its text has %1 characters, more than the %2 the text field holds</source>
        <translation>其中的文本有 %1 个字符，超过了文本框能容纳的 %2 个</translation>
    </message>
    <message>
        <source>the layer config is invalid: %1</source>
        <translation>层配置无效：%1</translation>
    </message>
    <message>
        <source>its layer has %1 weights, more than the %2 of the largest layer this app runs (Qwen3-0.6B&apos;s)</source>
        <translation>其中的层有 %1 个权重，超过了本应用能运行的最大层（Qwen3-0.6B 的层）的 %2 个</translation>
    </message>
    <message>
        <source>its weights file or layer number is invalid</source>
        <translation>其中的权重文件或层编号无效</translation>
    </message>
    <message>
        <source>it refers to weights this version cannot load</source>
        <translation>它引用了这个版本无法载入的权重</translation>
    </message>
    <message>
        <source>the weight seed %1 is out of range</source>
        <translation>权重种子 %1 超出范围</translation>
    </message>
    <message>
        <source>unknown step %1 in the selection</source>
        <translation>选择中有未知的步骤 %1</translation>
    </message>
    <message>
        <source>selection head and query must not be negative</source>
        <translation>选择中的头和查询不能为负数</translation>
    </message>
    <message>
        <source>selection depth_t must be between 0 and 1</source>
        <translation>选择中的 depth_t 必须在 0 到 1 之间</translation>
    </message>
    <message>
        <source>unknown language %1</source>
        <translation>未知的语言 %1</translation>
    </message>
    <message>
        <source>unknown palette %1</source>
        <translation>未知的配色 %1</translation>
    </message>
    <message>
        <source>unknown theme %1</source>
        <translation>未知的主题 %1</translation>
    </message>
    <message>
        <source>view font_scale is out of range</source>
        <translation>视图的 font_scale 超出范围</translation>
    </message>
    <message>
        <source>its model folder or layer number is invalid</source>
        <translation>其模型文件夹或层号无效</translation>
    </message>
    <message>
        <source>its intervention&apos;s layers are %1; only “all” is known</source>
        <translation>其干预的层为 %1；只支持“all”</translation>
    </message>
    <message>
        <source>its intervention is invalid: %1</source>
        <translation>其中的干预无效：%1</translation>
    </message>
    <message>
        <source>%1 is not a file</source>
        <translation>%1 不是一个文件</translation>
    </message>
    <message>
        <source>the file is far too large to be a Dual View session</source>
        <translation>文件太大，不可能是双视角会话</translation>
    </message>
    <message>
        <source>the file %1 does not exist</source>
        <translation>文件 %1 不存在</translation>
    </message>
    <message>
        <source>the file %1 cannot be read (%2)</source>
        <translation>无法读取文件 %1（%2）</translation>
    </message>
    <message>
        <source>the file is damaged or is not a session (it is not valid JSON)</source>
        <translation>文件已损坏或不是会话文件（不是有效的 JSON）</translation>
    </message>
</context>
<context>
    <name>ShortcutsSheet</name>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <source>Keys without Ctrl work whenever the text field does not have the focus: press Esc in the text field to hand the keys back to the window.</source>
        <translation>不带 Ctrl 的按键只在文本框没有焦点时生效：在文本框中按 Esc，就把这些按键交还给窗口。</translation>
    </message>
    <message>
        <source>Keys</source>
        <translation>按键</translation>
    </message>
    <message>
        <source>Action</source>
        <translation>功能</translation>
    </message>
</context>
<context>
    <name>SplittingPanel</name>
    <message>
        <source>explicit Euler</source>
        <translation>显式欧拉</translation>
    </message>
    <message>
        <source>projection</source>
        <translation>投影</translation>
    </message>
    <message>
        <source>relaxation</source>
        <translation>松弛</translation>
    </message>
    <message>
        <source>Splitting = block</source>
        <translation>算子分裂 = 一个块</translation>
    </message>
    <message>
        <source>ε/4 fix: closing LayerNorm uses ε(1 − ω)²</source>
        <translation>ε/4 修正：最后的 LayerNorm 使用 ε(1 − ω)²</translation>
    </message>
    <message>
        <source>Relaxation weight ω in u₅ = (1 − ω)u₄ + ωu₂</source>
        <translation>u₅ = (1 − ω)u₄ + ωu₂ 中的松弛权重 ω</translation>
    </message>
    <message>
        <source>LayerNorm ε (far left: ε = 0)</source>
        <translation>LayerNorm 的 ε（最左端：ε = 0）</translation>
    </message>
    <message>
        <source>Time step Δt of the scheme; the block&apos;s weights rescale with it</source>
        <translation>格式的时间步长 Δt；块的权重随之重新缩放</translation>
    </message>
    <message>
        <source>ω = %1</source>
        <translation>ω = %1</translation>
    </message>
    <message>
        <source>ε = %1</source>
        <translation>ε = %1</translation>
    </message>
    <message>
        <source>Δt = %1</source>
        <translation>Δt = %1</translation>
    </message>
    <message>
        <source>input</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>Euler + ReLU projection</source>
        <translation>欧拉 + ReLU 投影</translation>
    </message>
    <message>
        <source>skip α = %1</source>
        <translation>跳连 α = %1</translation>
    </message>
    <message>
        <source>block</source>
        <translation>块</translation>
    </message>
    <message>
        <source>2017 block</source>
        <translation>2017 年的块</translation>
    </message>
    <message>
        <source>skip 1</source>
        <translation>跳连 1</translation>
    </message>
    <message>
        <source>|u₆ − block|</source>
        <translation>|u₆ − 块|</translation>
    </message>
    <message>
        <source>max |u₆ − block| = &lt;b style=&apos;color:%1&apos;&gt;%2&lt;/b&gt; (%3)</source>
        <translation>max |u₆ − 块| = &lt;b style=&apos;color:%1&apos;&gt;%2&lt;/b&gt;（%3）</translation>
    </message>
    <message>
        <source>Exact: a test asserts this statement in float64.</source>
        <translation>精确：有测试在 float64 下断言这一结论。</translation>
    </message>
    <message>
        <source>Analogy: shown with its caveat, never asserted.</source>
        <translation>类比：附带说明展示，从不作为断言。</translation>
    </message>
</context>
<context>
    <name>StepHeatmapPanel</name>
    <message>
        <source>token</source>
        <translation>词元</translation>
    </message>
    <message>
        <source>feature</source>
        <translation>特征</translation>
    </message>
    <message>
        <source>key token</source>
        <translation>键词元</translation>
    </message>
    <message>
        <source>feature (K | V)</source>
        <translation>特征（K | V）</translation>
    </message>
    <message>
        <source>Head:</source>
        <translation>头：</translation>
    </message>
    <message>
        <source>all heads side by side</source>
        <translation>并排显示所有头</translation>
    </message>
    <message>
        <source>Query head to show (arrow keys walk the steps)</source>
        <translation>要显示的查询头（方向键逐步浏览各步骤）</translation>
    </message>
    <message>
        <source>GQA: query head %1 reads kv head %2</source>
        <translation>GQA：查询头 %1 读取键值头 %2</translation>
    </message>
    <message>
        <source>Switch neuron %1 back on</source>
        <translation>重新打开神经元 %1</translation>
    </message>
    <message>
        <source>Switch neuron %1 off (its column of gated is zero)</source>
        <translation>关闭神经元 %1（它在 gated 中的列置零）</translation>
    </message>
    <message>
        <source>row %1 · column %2 · value %3</source>
        <translation>行 %1 · 列 %2 · 值 %3</translation>
    </message>
    <message>
        <source>−∞ (masked)</source>
        <translation>−∞（已掩码）</translation>
    </message>
</context>
<context>
    <name>StepListPanel</name>
    <message>
        <source>step</source>
        <translation>步骤</translation>
    </message>
    <message>
        <source>shape</source>
        <translation>形状</translation>
    </message>
    <message>
        <source>formula</source>
        <translation>公式</translation>
    </message>
    <message>
        <source>what it does</source>
        <translation>作用</translation>
    </message>
</context>
<context>
    <name>TemperaturePanel</name>
    <message>
        <source>Softmax temperature</source>
        <translation>softmax 温度</translation>
    </message>
    <message>
        <source>τ:</source>
        <translation>τ：</translation>
    </message>
    <message>
        <source>Softmax temperature τ on a log scale, as a multiple of √d</source>
        <translation>softmax 温度 τ（对数刻度，以 √d 的倍数表示）</translation>
    </message>
    <message>
        <source>τ → 0</source>
        <translation>τ → 0</translation>
    </message>
    <message>
        <source>τ = 1 (drop 1/√d)</source>
        <translation>τ = 1（去掉 1/√d）</translation>
    </message>
    <message>
        <source>τ = √d (the layer)</source>
        <translation>τ = √d（这一层）</translation>
    </message>
    <message>
        <source>τ → ∞</source>
        <translation>τ → ∞</translation>
    </message>
    <message>
        <source>entropy of each query row (nats)</source>
        <translation>每个查询行的熵（奈特）</translation>
    </message>
    <message>
        <source>query token i</source>
        <translation>查询词元 i</translation>
    </message>
    <message>
        <source>τ (log scale)</source>
        <translation>τ（对数刻度）</translation>
    </message>
    <message>
        <source>at this τ</source>
        <translation>在此 τ 下</translation>
    </message>
    <message>
        <source>bound log(i+1)</source>
        <translation>上界 log(i+1)</translation>
    </message>
    <message>
        <source>layer (τ=√d)</source>
        <translation>这一层（τ=√d）</translation>
    </message>
    <message>
        <source>key token</source>
        <translation>键词元</translation>
    </message>
    <message>
        <source>query token</source>
        <translation>查询词元</translation>
    </message>
    <message>
        <source>entropy against τ · bold: query row %1 (click a row)</source>
        <translation>熵随 τ 的变化 · 粗线：查询行 %1（点击一行）</translation>
    </message>
    <message>
        <source>τ = %1</source>
        <translation>τ = %1</translation>
    </message>
    <message>
        <source>τ = %1 × √d (√d = %2) · slope of log p vs logit = &lt;b&gt;%3&lt;/b&gt; · 1/τ = %4</source>
        <translation>τ = %1 × √d（√d = %2）· log p 对分数的斜率 = &lt;b&gt;%3&lt;/b&gt; · 1/τ = %4</translation>
    </message>
    <message>
        <source>Exact: a test asserts this statement in float64.</source>
        <translation>精确：有测试在 float64 下断言这一结论。</translation>
    </message>
    <message>
        <source>Analogy: shown with its caveat, never asserted.</source>
        <translation>类比：附带说明展示，从不作为断言。</translation>
    </message>
</context>
<context>
    <name>ThroughDepthPanel</name>
    <message>
        <source>Open a model (File ▸ Open model…) to see what Qwen3 predicts next.</source>
        <translation>打开一个模型（文件 ▸ 打开模型…），看看 Qwen3 接下来预测什么。</translation>
    </message>
    <message>
        <source>Through the depth</source>
        <translation>贯穿深度</translation>
    </message>
    <message>
        <source>‖u‖ of every token after each layer (the intervened run)</source>
        <translation>每层之后每个词元的 ‖u‖（干预后的运行）</translation>
    </message>
    <message>
        <source>‖u‖ of every token after each layer</source>
        <translation>每层之后每个词元的 ‖u‖</translation>
    </message>
    <message>
        <source>Logit lens, plain model → intervened: the last token after each layer</source>
        <translation>Logit lens，未干预 → 干预后：每层之后的最后一个词元</translation>
    </message>
    <message>
        <source>Logit lens: the last token&apos;s top %1 after each layer</source>
        <translation>Logit lens：每层之后最后一个词元的前 %1 个预测</translation>
    </message>
    <message>
        <source>embed</source>
        <translation>嵌入</translation>
    </message>
    <message>
        <source>token</source>
        <translation>词元</translation>
    </message>
    <message>
        <source>after layer</source>
        <translation>层之后</translation>
    </message>
    <message>
        <source>computing…</source>
        <translation>计算中…</translation>
    </message>
    <message>
        <source>top %1</source>
        <translation>第 %1</translation>
    </message>
    <message>
        <source>p(“%1”)</source>
        <translation>p(“%1”)</translation>
    </message>
    <message>
        <source>id %1 · stored as %2</source>
        <translation>id %1 · 存储为 %2</translation>
    </message>
    <message>
        <source>plain: top 1</source>
        <translation>未干预：第 1 名</translation>
    </message>
    <message>
        <source>intervened: top 1</source>
        <translation>干预后：第 1 名</translation>
    </message>
    <message>
        <source>p(plain top 1)</source>
        <translation>p(未干预第 1 名)</translation>
    </message>
    <message>
        <source>‖u‖ plain</source>
        <translation>‖u‖ 未干预</translation>
    </message>
    <message>
        <source>‖u‖ intervened</source>
        <translation>‖u‖ 干预后</translation>
    </message>
    <message>
        <source>The same bits in both runs: the intervention has not acted yet</source>
        <translation>两次运行逐位相同：干预尚未起作用</translation>
    </message>
    <message>
        <source>Only the embeddings are the same in both runs: the intervention acts from layer %1 on.</source>
        <translation>两次运行只有嵌入相同：干预从第 %1 层起作用。</translation>
    </message>
    <message>
        <source>From the embeddings to the output of layer %1 the two runs are the same bits (grey): the intervention acts from layer %2 on.</source>
        <translation>从嵌入到第 %1 层的输出，两次运行逐位相同（灰色）：干预从第 %2 层起作用。</translation>
    </message>
</context>
<context>
    <name>TokenEditor</name>
    <message>
        <source>English: The cat sat on the mat.</source>
        <translation>英文：The cat sat on the mat.</translation>
    </message>
    <message>
        <source>Causality demo: change the last word</source>
        <translation>因果性演示：修改最后一个词</translation>
    </message>
    <message>
        <source>Text:</source>
        <translation>文本：</translation>
    </message>
    <message>
        <source>Type a sentence in Chinese or English…</source>
        <translation>输入一句中文或英文…</translation>
    </message>
    <message>
        <source>Example sentences</source>
        <translation>示例句子</translation>
    </message>
    <message>
        <source>Example sentences…</source>
        <translation>示例句子…</translation>
    </message>
    <message>
        <source>No tokens yet</source>
        <translation>还没有词元</translation>
    </message>
    <message numerus="yes">
        <source>%n token(s)</source>
        <translation>
            <numerusform>%n 个词元</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>TourPanel</name>
    <message>
        <source>◀ Back</source>
        <translation>◀ 上一步</translation>
    </message>
    <message>
        <source>Previous stop (PageUp)</source>
        <translation>上一站（PageUp）</translation>
    </message>
    <message>
        <source>Next stop (PageDown)</source>
        <translation>下一站（PageDown）</translation>
    </message>
    <message>
        <source>End tour</source>
        <translation>结束导览</translation>
    </message>
    <message>
        <source>Discrete view — the 22 steps</source>
        <translation>离散视角 —— 22 个步骤</translation>
    </message>
    <message>
        <source>Continuous view</source>
        <translation>连续视角</translation>
    </message>
    <message>
        <source>Causality demo</source>
        <translation>因果性演示</translation>
    </message>
    <message>
        <source>Finish</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>Next ▶</source>
        <translation>下一步 ▶</translation>
    </message>
    <message>
        <source>EXACT: asserted by a test in float64 (PAPER.md id shown)</source>
        <translation>精确：由 float64 测试断言（标出 PAPER.md 编号）</translation>
    </message>
    <message>
        <source>ANALOGY: a way of reading it, with a caveat; never asserted</source>
        <translation>类比：一种理解方式，附带说明；从不作为断言</translation>
    </message>
    <message>
        <source>INTERPOLATION: a drawing aid between computed points</source>
        <translation>插值：计算点之间的绘图辅助</translation>
    </message>
</context>
<context>
    <name>widget</name>
    <message>
        <source>Exact: a test asserts this statement in float64.</source>
        <translation>精确：有测试在 float64 下断言这一结论。</translation>
    </message>
    <message>
        <source>Analogy: shown with its caveat, never asserted.</source>
        <translation>类比：附带说明展示，从不作为断言。</translation>
    </message>
    <message>
        <source>Interpolation: a drawing aid between true states.</source>
        <translation>插值：真实状态之间的绘图辅助。</translation>
    </message>
</context>
</TS>
