"""Lens: the 2017 post-norm encoder block is one Lie splitting step of six sub-steps
(docs/continuous.md E1–E4).

The sentence's embedding u₀ goes through the six sub-steps (explicit Euler, projection,
Euler + ReLU projection, Euler, relaxation, projection) of a seeded random scheme, and through
the encoder block with the equivalent weights; small heatmaps side by side, one colour scale,
and the max |u₆ − block| live. ω re-weights the skip (DeepNorm-style α = ω/(1 − ω), E4);
ε > 0 opens an O(ε) gap that ε(1 − ω)² in the closing LayerNorm removes (ε/4 at ω = ½, E3);
Δt is not identifiable (E2): the block with rescaled weights follows it exactly.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QRectF, Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from app import palettes, theme
from app.compute import Result
from app.panels.lens_base import LensHeader, LensPanel, LogSlider, badge_tip, pick
from app.state import AppState
from app.widgets.heatmap import display_array
from app.widgets.plotting import plain_numbers
from engine.lenses import SplittingResult, matched_closing_eps, random_scheme, splitting_lens

#: Sentences larger than this use a seeded random 8 × 16 input instead.
MAX_INPUT_TOKENS = 64
MAX_INPUT_FEATURES = 64
SCHEME_HEADS = 4
#: ε slider: position 0 is ε = 0, then 20 positions per decade from 1e-10 to 1e-1.
EPS_DECADE_STEPS = 20
EPS_LOG_LO = -10
EPS_POSITIONS = 9 * EPS_DECADE_STEPS + 1
OMEGA_STEPS = 100  # ω in [0, 0.95] by 0.01
#: A gap at or below this is rounding (the tolerance of E1, E2, E4 in docs/continuous.md).
ROUNDING = 1e-13

KIND_COLOURS = {
    "input": "#444444",
    "explicit Euler": "#1f5fbf",
    "projection": "#8a2be2",
    "explicit Euler + projection": "#1f5fbf",
    "relaxation": "#1b7f3b",
    "block": "#b35900",
}


#: |difference|: white at 0 (nothing to see), dark orange at the top of the scale.
DIFF_MAP = pg.ColorMap([0.0, 1.0], [(255, 255, 255), (179, 89, 0)])
DIFF_LUT = DIFF_MAP.getLookupTable(0.0, 1.0, 256, alpha=True)


TITLE_WIDTH_PX = 150
#: The tiles' titles, tried in turn until the two title strips leave the tiles
#: MIN_TILE_PX each: 8 pt, 7 pt, and 7 pt on one line (see SplittingPanel._fit_titles).
TITLE_SIZES = (8, 7, 7)
MIN_TILE_PX = 14
#: The engine's sub-step kinds, translated at run time (listed so lupdate sees them).
_KINDS = (QT_TRANSLATE_NOOP("SplittingPanel", "explicit Euler"),
          QT_TRANSLATE_NOOP("SplittingPanel", "projection"),
          QT_TRANSLATE_NOOP("SplittingPanel", "relaxation"))
CELL_NAMES = ("u0", "u1", "u2", "u3", "u4", "u5", "u6", "block", "block2017", "diff")


def eps_at(position: int) -> float:
    return 0.0 if position <= 0 else 10.0 ** (EPS_LOG_LO + (position - 1) / EPS_DECADE_STEPS)


def eps_position(eps: float) -> int:
    if eps <= 0:
        return 0
    return round((math.log10(eps) - EPS_LOG_LO) * EPS_DECADE_STEPS) + 1


class SplittingPanel(LensPanel):
    def __init__(self, state: AppState) -> None:
        super().__init__(state)
        #: the palette the tiles' colour tables were set for (a palette switch redraws every
        #: panel from the window; the tables follow at that redraw)
        self._palette_applied: str | None = None

    def build(self) -> None:
        self._frames: dict[str, pg.QtWidgets.QGraphicsRectItem] = {}
        body = QWidget()
        self.header = LensHeader([("EXACT", "E1"), ("EXACT", "E2"), ("EXACT", "E3"),
                                  ("EXACT", "E4")])

        self.omega_label = QLabel()
        self.omega_slider = QSlider(Qt.Orientation.Horizontal)
        self.omega_slider.setObjectName("omegaSlider")
        self.omega_slider.setRange(0, 95)
        self.omega_slider.setValue(50)
        self.eps_label = QLabel()
        self.eps_slider = QSlider(Qt.Orientation.Horizontal)
        self.eps_slider.setObjectName("epsSlider")
        self.eps_slider.setRange(0, EPS_POSITIONS)
        self.eps_slider.setValue(0)
        self.fix_box = QCheckBox()
        self.fix_box.setObjectName("epsFixBox")
        self.dt_label = QLabel()
        self.dt_slider = LogSlider(0.1, 10.0, 1.0, steps=200)
        self.dt_slider.setObjectName("dtSlider")

        # one plot holds all ten small heatmaps (one scene is far cheaper than ten plots)
        self.canvas = pg.PlotWidget()
        plain_numbers(self.canvas)
        self.canvas.setMenuEnabled(False)
        self.canvas.hideButtons()
        self.canvas.hideAxis("left")
        self.canvas.hideAxis("bottom")
        self.canvas.invertY(True)
        self.canvas.getViewBox().setMouseEnabled(x=False, y=False)
        #: name -> (title, image); titles are pixel-sized text above each cell
        self.cells: dict[str, tuple[pg.TextItem, pg.ImageItem]] = {}
        for name in CELL_NAMES:
            frame = pg.QtWidgets.QGraphicsRectItem()
            frame.setPen(pg.mkPen((170, 170, 170), width=1, cosmetic=True))
            frame.setZValue(1)  # the outline on top of the image, so a white cell shows
            image = pg.ImageItem(axisOrder="row-major")
            title = pg.TextItem(anchor=(0.5, 1.0), color=(30, 30, 30))
            title.textItem.setTextWidth(TITLE_WIDTH_PX)  # centred on the cell (_fit_titles)
            option = title.textItem.document().defaultTextOption()
            option.setAlignment(Qt.AlignmentFlag.AlignHCenter)
            title.textItem.document().setDefaultTextOption(option)
            for item in (frame, image, title):
                self.canvas.addItem(item)
            self.cells[name] = (title, image)
            self._frames[name] = frame
        # |u₆ − block| exactly 0 draws a white tile: say so in it, not leave it blank
        self.zero_note = pg.TextItem(anchor=(0.5, 0.5))
        self.zero_note.setZValue(2)
        self.canvas.addItem(self.zero_note)
        # colour bars: the states (each tile on its own ± scale, given in its title) and the
        # difference (its own 0 … max scale), so a value can be read off a tile
        self.bars = pg.GraphicsLayoutWidget()
        self.bars.setObjectName("splittingBars")
        self.bars.ci.setContentsMargins(0, 2, 0, 2)
        self.state_bar_title = self.bars.addLabel(row=0, col=0, size="7pt")
        self.state_bar = pg.ColorBarItem(values=(-1.0, 1.0), width=12, interactive=False,
                                         colorMap=palettes.colormap("CET-D1"))
        self.bars.addItem(self.state_bar, row=1, col=0)
        self.diff_bar_title = self.bars.addLabel(row=2, col=0, size="7pt")
        self.diff_bar = pg.ColorBarItem(values=(0.0, ROUNDING), width=12, interactive=False,
                                        colorMap=DIFF_MAP)
        self.bars.addItem(self.diff_bar, row=3, col=0)
        self.bars.setFixedWidth(96)
        self._shape: tuple[int, int] | None = None
        self._fitted: tuple | None = None  # what the titles and tiles were last placed for
        self._title_parts: dict[str, tuple] = {}  # each tile's title (see _title_html)
        self._title_shown: dict[str, str] = {}
        #: which of TITLE_SIZES the titles are drawn at
        self.title_level = 0
        self.canvas.getViewBox().sigResized.connect(self._fit_titles)
        self._apply_palette()

        self.gap_label = QLabel()
        self.gap_label.setObjectName("splittingGap")
        self.gap_label.setTextFormat(Qt.TextFormat.RichText)
        self.gap_label.setWordWrap(True)
        self.gap_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.detail = QLabel()
        self.detail.setObjectName("splittingDetail")
        self.detail.setWordWrap(True)
        self.detail.setTextFormat(Qt.TextFormat.RichText)

        grid = QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setVerticalSpacing(1)
        grid.addWidget(self.omega_label, 0, 0)
        grid.addWidget(self.omega_slider, 0, 1)
        grid.addWidget(self.dt_label, 0, 2)
        grid.addWidget(self.dt_slider, 0, 3)
        grid.addWidget(self.eps_label, 1, 0)
        grid.addWidget(self.eps_slider, 1, 1)
        grid.addWidget(self.fix_box, 1, 2, 1, 2)
        grid.setColumnStretch(1, 2)
        grid.setColumnStretch(3, 1)
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(3)
        layout.addWidget(self.header)
        layout.addLayout(grid)
        tiles = QHBoxLayout()
        tiles.setSpacing(2)
        tiles.addWidget(self.canvas, 1)
        tiles.addWidget(self.bars)
        layout.addLayout(tiles, 1)
        layout.addWidget(self.gap_label)
        layout.addWidget(self.detail)
        self.set_body(body)

        self.lens: SplittingResult | None = None
        self.scales: dict[str, float] = {}
        self.diff_is_zero = False
        self.input_is_sentence = False
        self._u0: np.ndarray | None = None
        self._scheme = None
        self._key: tuple | None = None

        self.omega_slider.valueChanged.connect(self._on_control_changed)
        self.eps_slider.valueChanged.connect(self._on_control_changed)
        self.fix_box.toggled.connect(self._on_control_changed)
        self.dt_slider.value_changed.connect(self._on_control_changed)

    def _apply_palette(self) -> None:
        self._palette_applied = getattr(self.state, "palette", "classic")
        name_div = palettes.map_for("signed", getattr(self.state, "palette", "classic"))
        div = palettes.lut(name_div)
        for name, (_plot, image) in self.cells.items():
            image.setLookupTable(DIFF_LUT if name == "diff" else div)
        self.state_bar.setColorMap(palettes.colormap(name_div))

    # ----- controls -----
    @property
    def omega(self) -> float:
        return self.omega_slider.value() / OMEGA_STEPS

    @property
    def eps(self) -> float:
        return eps_at(self.eps_slider.value())

    @property
    def dt(self) -> float:
        return self.dt_slider.value_float

    @property
    def closing_eps(self) -> float | None:
        """``None`` (the same ε: the O(ε) gap) unless the ε/4 fix is on."""
        return matched_closing_eps(self.eps, self.omega) if self.fix_box.isChecked() else None

    def set_eps(self, eps: float) -> None:
        self.eps_slider.setValue(eps_position(eps))

    def lens_kwargs(self) -> dict[str, float | None]:
        return {"dt": self.dt, "omega": self.omega, "eps": self.eps,
                "closing_eps": self.closing_eps}

    def _on_control_changed(self, *_args: object) -> None:
        self._update_labels()
        if self.isVisible() and self._u0 is not None:
            self.update_lens()
        else:
            self._dirty = True

    def _retranslate(self) -> None:
        st = self.state
        self.header.set_texts(
            self.tr("Splitting = block"),
            pick(st, "One 2017 post-norm encoder block is one time step of u<sub>t</sub> = "
                     "A[u] + N[u] + F[u] split into six sub-steps (Δt = 1, ω = ½, ε = 0). "
                     "Top: u₀ … u₄; bottom: u₅, u₆, the block with the same weights, the 2017 "
                     "block with skip weight 1, and |u₆ − block|.",
                 "一个 2017 年后归一化编码器块，恰好是把 u<sub>t</sub> = A[u] + N[u] + "
                 "F[u] 拆成六个子步的一个时间步（Δt = 1，ω = ½，ε = 0）。上排：u₀ … u₄；"
                 "下排：u₅、u₆、同一组权重的块、跳连权重为 1 的 2017 年的块，以及 "
                 "|u₆ − 块|。"),
            [badge_tip(self, "EXACT")] * 4)
        self.fix_box.setText(self.tr("ε/4 fix: closing LayerNorm uses ε(1 − ω)²"))
        self.omega_slider.setToolTip(self.tr("Relaxation weight ω in u₅ = (1 − ω)u₄ + ωu₂"))
        self.eps_slider.setToolTip(self.tr("LayerNorm ε (far left: ε = 0)"))
        self.dt_slider.setToolTip(self.tr("Time step Δt of the scheme; the block's weights "
                                          "rescale with it"))
        self._update_labels()
        if self.lens is not None:
            self._draw_texts()

    def _update_labels(self) -> None:
        self.omega_label.setText(self.tr("ω = %1").replace("%1", f"{self.omega:.2f}"))
        eps = self.eps
        self.eps_label.setText(self.tr("ε = %1").replace("%1", "0" if eps == 0 else f"{eps:.0e}"))
        self.dt_label.setText(self.tr("Δt = %1").replace("%1", f"{self.dt:.3g}"))

    # ----- drawing -----
    def redraw(self, result: Result) -> None:
        x = result.trace["embed"]
        t, d = x.shape
        use_sentence = (t <= MAX_INPUT_TOKENS and d <= MAX_INPUT_FEATURES
                        and d % SCHEME_HEADS == 0)
        self.input_is_sentence = use_sentence
        if not use_sentence:
            x = np.random.default_rng([self.state.seed, 2]).standard_normal((8, 16))
        key = (result.request_id if use_sentence else -2, self.state.seed)
        if key != self._key:
            self._key = key
            self._u0 = x
            self._scheme = random_scheme(x.shape[1], SCHEME_HEADS, seed=self.state.seed)
        if self._palette_applied != getattr(self.state, "palette", "classic"):
            self._apply_palette()
        self.update_lens()

    def update_lens(self) -> None:
        """The per-frame path: recompute both sides at the current controls and redraw."""
        lens = splitting_lens(self._u0, self._scheme, **self.lens_kwargs())
        self.lens = lens
        states = {"u0": lens.u0, **{s.name: s.array for s in lens.substeps},
                  "block": lens.reweighted_output, "block2017": lens.block_output}
        # each state its own symmetric scale; u₆ and both blocks share one, so equal looks equal
        shared = {"u6", "block", "block2017"}
        m_out = max(float(np.max(np.abs(states[n]))) for n in shared) or 1.0
        #: each tile's colour scale ±m (its title says m; the colour bar reads −m … +m)
        self.scales = {}
        for name, array in states.items():
            m = m_out if name in shared else (float(np.max(np.abs(array))) or 1.0)
            self.scales[name] = m
            self.cells[name][1].setImage(display_array(array), autoLevels=False, levels=(-m, m))
        diff = np.abs(lens.output - lens.reweighted_output)
        # white below rounding: a gap only shows once it is above the E1 tolerance
        top = max(float(diff.max()), ROUNDING)
        self.cells["diff"][1].setImage(display_array(diff), autoLevels=False, levels=(0.0, top))
        self.diff_bar.setLevels((0.0, top))
        self.diff_bar.getAxis("right").setTicks([[(0.0, "0"), (top, f"{top:.0e}")], []])
        #: True when every entry of |u₆ − block| is exactly 0 (the tile then says so)
        self.diff_is_zero = not bool(diff.any())
        if lens.u0.shape != self._shape:
            self._layout_cells(*lens.u0.shape)
        self._draw_texts()

    def _layout_cells(self, t: int, d: int) -> None:
        """A new input's shape: place the cells for it (see _fit_titles)."""
        self._shape = (t, d)
        self._fit_titles()

    def _fit_titles(self, *_args: object) -> None:
        """Place the ten cells in two rows of five, each ``d`` wide and ``t`` tall in data
        units, with a title strip above each row as tall as its titles are in pixels. (A strip
        sized in data units, 0.55·t, was ~20 px in a 1366 x 768 window: the two-line titles
        ran over the row above.) Each title wraps within its own column's width."""
        if self._shape is None:
            return
        t, d = self._shape
        view = self.canvas.getViewBox()
        width_px, height_px = view.width(), view.height()
        if width_px <= 0 or height_px <= 0:
            return
        # the per-frame path (a slider drag) mostly keeps the size and the titles' words
        key = (self._shape, round(width_px), round(height_px), tuple(self._title_parts.items()))
        if key == self._fitted:
            return
        self._fitted = key
        gap = 0.12 * d
        x_span = 5 * d + 4 * gap + 0.04 * d
        # a title's box: its tile and the margin beside the outer tiles (inside the view)
        text_width = max(1.04 * d * width_px / x_span - 2.0, 40.0)
        for title, _image in self.cells.values():
            if abs(title.textItem.textWidth() - text_width) > 0.5:
                title.textItem.setTextWidth(text_width)
        for level in range(len(TITLE_SIZES)):
            for name, parts in self._title_parts.items():
                html = self._title_html(parts, level)
                if self._title_shown.get(name) != html:
                    self._title_shown[name] = html
                    self.cells[name][0].setHtml(html)
                    # the kind, when the title has no room for it
                    last = level == len(TITLE_SIZES) - 1
                    self.cells[name][0].setToolTip(parts[2] if last else "")
            title_px = max(title.textItem.boundingRect().height()
                           for title, _image in self.cells.values()) + 4.0
            if height_px - 2 * title_px >= 2 * MIN_TILE_PX:
                break
        self.title_level = level
        # band·H / (2(t + band) + 0.06t) = title_px, solved for band
        room = max(height_px - 2 * title_px, 2.0)
        band = title_px * 2.06 * t / room
        per_px = (2 * (t + band) + 0.06 * t) / height_px  # data units per pixel, vertically
        for i, name in enumerate(CELL_NAMES):
            row, col = divmod(i, 5)
            x0, y0 = col * (d + gap), band + row * (t + band)
            title, image = self.cells[name]
            image.setRect(QRectF(x0, y0, d, t))
            self._frames[name].setRect(QRectF(x0, y0, d, t))
            title.setPos(x0 + d / 2, y0 - 2 * per_px)
            if name == "diff":
                self.zero_note.setPos(x0 + d / 2, y0 + t / 2)
        view.setRange(xRange=(-0.02 * d, 5 * d + 4 * gap + 0.02 * d),
                      yRange=(0, 2 * (t + band) + 0.06 * t), padding=0)

    def title_text(self, name: str) -> str:
        """A cell's title as plain text (tests)."""
        return self.cells[name][0].textItem.toPlainText()

    @property
    def gap(self) -> float:
        """max |u₆ − block with skip α = ω/(1 − ω)|: the number the panel shows."""
        return self.lens.gap_reweighted if self.lens is not None else math.nan

    def _title(self, name: str, kind: str, text: str, scale: float | None = None) -> tuple:
        """A title's parts (see _title_html); ``scale``: the tile's ±m."""
        return (name, kind, text, scale)

    @staticmethod
    def _title_html(parts: tuple, level: int) -> str:
        """Two short lines: the state and its scale, the sub-step's kind in its colour; at
        ``level`` 1 a size smaller, at 2 the first line alone, in the kind's colour (the
        kind is then the tile's tooltip): where the panel is too short for more."""
        name, kind, text, scale = parts
        colour = theme.plot_ink(KIND_COLOURS.get(kind, "#444444"))  # drawn in the plot
        m = "" if scale is None else f" ±{scale:.3g}"
        size = TITLE_SIZES[level]
        if level == len(TITLE_SIZES) - 1:
            return f"<span style='font-size:{size}pt; color:{colour}'><b>{name}</b>{m}</span>"
        return (f"<span style='font-size:{size}pt'><b>{name}</b>{m}<br>"
                f"<span style='color:{colour}'>{text}</span></span>")

    def _set_title(self, name: str, parts: tuple) -> None:
        self._title_parts[name] = parts  # (placed at the end of _draw_texts)

    def _draw_texts(self) -> None:
        lens = self.lens
        st = self.state
        zh = st.language == "zh"
        m = self.scales
        self._set_title("u0", self._title("u₀", "input", self.tr("input"), m["u0"]))
        sub = "₀₁₂₃₄₅₆"
        for s in lens.substeps:
            kind = s.kind_zh if zh else self.tr(s.kind)
            if s.kind == "explicit Euler + projection":
                kind = self.tr("Euler + ReLU projection") if not zh else "欧拉 + ReLU 投影"
            self._set_title(s.name, self._title(f"u{sub[s.index]}", s.kind, kind,
                                                      m[s.name]))
        self._set_title("block", self._title(
            self.tr("block"), "block", self.tr("skip α = %1").replace("%1", f"{lens.skip:.3g}"),
            m["block"]))
        self._set_title("block2017", self._title(
            self.tr("2017 block"), "block", self.tr("skip 1"), m["block2017"]))
        self.state_bar_title.setText(pick(st, "u: ±m (titles)", "u：±m（见标题）"),
                                     color=theme.plot_ink("#444444"))
        self.state_bar.getAxis("right").setTicks([[(-1.0, "−m"), (0.0, "0"), (1.0, "+m")], []])
        self.diff_bar_title.setText("|u₆ − block|" if not zh else "|u₆ − 块|",
                                    color=theme.plot_ink("#444444"))
        # on the tile's white (its 0 in either theme): the light theme's dark green
        self.zero_note.setHtml("<b style='color:#1b7f3b'>"
                               + pick(st, "all exactly 0", "全部恰为 0") + "</b>"
                               if self.diff_is_zero else "")
        self._set_title("diff", self._title(
            self.tr("|u₆ − block|"), "block", f"max {self.gap:.1e}"))
        self._fit_titles()

        gap = self.gap
        if gap <= ROUNDING:
            verdict = pick(st, "equal up to rounding", "在舍入误差内相等")
            colour = "#1b7f3b"
        else:
            verdict = pick(st, "an O(ε) gap — tick the ε/4 fix",
                           "O(ε) 的差距——勾选 ε/4 修正")
            colour = "#b35900"
        self.gap_label.setText(
            self.tr("max |u₆ − block| = <b style='color:%1'>%2</b> (%3)")
            .replace("%1", theme.ink(colour)).replace("%2", f"{gap:.2e}").replace("%3", verdict))
        closing = lens.closing_eps
        e4 = pick(st,
                  f"ω = {lens.omega:.2f} is the re-weighted skip LN(u₄ + α·u₂), α = ω/(1 − ω) = "
                  f"{lens.skip:.4g} (DeepNorm-style); against the 2017 block (α = 1) it differs "
                  f"by {lens.gap_block:.2e}.",
                  f"ω = {lens.omega:.2f} 等于重新加权的跳连 LN(u₄ + α·u₂)，α = ω/(1 − ω) = "
                  f"{lens.skip:.4g}（DeepNorm 式）；与 α = 1 的 2017 年的块相差 "
                  f"{lens.gap_block:.2e}。")
        e3 = pick(st,
                  f"Closing LayerNorm ε = {closing:.3g}"
                  + (" = ε(1 − ω)²." if self.fix_box.isChecked() else " (same ε as the block)."),
                  f"最后一个 LayerNorm 的 ε = {closing:.3g}"
                  + (" = ε(1 − ω)²。" if self.fix_box.isChecked() else "（与块相同的 ε）。"))
        e2 = pick(st, f"Δt = {lens.dt:.3g}: the block with weights Δt·V, I + Δt·W, Δt·b is "
                      "equal, so Δt cannot be read off a trained block.",
                  f"Δt = {lens.dt:.3g}：权重为 Δt·V、I + Δt·W、Δt·b 的块与之相等，"
                  "所以无法从训练好的块中辨认出 Δt。")
        self.detail.setText(f"{e4} {e3} {e2}")
