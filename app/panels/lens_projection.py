"""Lens: normalisation as projection, drawn in d = 3 (docs/continuous.md E5–E8, E10).

In R³ the LayerNorm set S(σ₁, σ₂) = {mean σ₁, variance σ₂²} is a circle: centre σ₁·(1, 1, 1),
radius √3·σ₂, in the plane orthogonal to (1, 1, 1). RMSNorm (γ = 1) lands on the sphere
‖u‖ = √3. Two orthographic views, both draggable:

- **along (1, 1, 1)** — the circle is seen true; dragging v here keeps its mean;
- **side view** — the plane through the (1, 1, 1) axis and v. v, LN(v), its antipode,
  RMSNorm(v) and the origin all lie in it, so every distance drawn is a true distance; the
  circle is seen edge-on as a segment whose ends are LN(v) (nearest) and the antipode
  (farthest). Dragging v here changes its mean (up) and its spread (sideways).

Three spin boxes set v exactly; "constant v" puts it on the axis, where every point of the
circle is equally near (E7); ε pulls LayerNorm's output inside the circle (E8). All numbers
come from :mod:`engine.norms`.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from app import theme
from app.compute import Result
from app.panels.lens_base import LensHeader, LensPanel, badge_tip, pick
from engine import ops
from engine.norms import (
    compare_norms,
    layernorm_miss,
    project_to_layernorm_set,
    rmsnorm_radial_projection,
)

D = 3
SQRT_D = math.sqrt(D)
#: Orthonormal frame: n along (1, 1, 1); e1, e2 span the plane of zero mean.
N_AXIS = np.ones(D) / SQRT_D
E1 = np.array([1.0, -1.0, 0.0]) / math.sqrt(2.0)
E2 = np.array([1.0, 1.0, -2.0]) / math.sqrt(6.0)
DEFAULT_V = (2.0, 0.4, 1.2)
#: ε slider: position 0 is ε = 0, then 20 positions per decade from 1e-4 to 10.
EPS_DECADE_STEPS = 20
EPS_LOG_LO = -4
EPS_POSITIONS = 5 * EPS_DECADE_STEPS + 1
VIEW_HALF = 3.4
#: Which side-view label gives way when two would overlap (earlier ones stay; a short view,
#: 1366 x 768, drew "anti 3.538" through "RMS 0.634"): every number is in the readout too.
LABEL_PRIORITY = ("ln", "rms", "anti", "ln_eps")
#: The top view's key stands in one column when the view is this much wider than tall.
KEY_ONE_COLUMN_ASPECT = 1.6

COLOURS = {
    "v": (20, 20, 20),
    "ln": (31, 95, 191),
    "anti": (208, 71, 28),
    "rms": (27, 127, 59),
    "ln_eps": (138, 43, 226),
    "circle": (31, 95, 191),
    "sphere": (27, 127, 59),
}


def eps_at(position: int) -> float:
    return 0.0 if position <= 0 else 10.0 ** (EPS_LOG_LO + (position - 1) / EPS_DECADE_STEPS)


def eps_position(eps: float) -> int:
    if eps <= 0:
        return 0
    return round((math.log10(eps) - EPS_LOG_LO) * EPS_DECADE_STEPS) + 1


def _circle(radius: float, cx: float = 0.0, cy: float = 0.0,
            n: int = 181) -> tuple[np.ndarray, np.ndarray]:
    theta = np.linspace(0.0, 2.0 * math.pi, n)
    return cx + radius * np.cos(theta), cy + radius * np.sin(theta)


class _View(pg.PlotWidget):
    """One orthographic view: equal axes, no mouse panning (the handle is what moves)."""

    def __init__(self, *, labelled: bool) -> None:
        super().__init__()
        #: the side view labels its points with their distances; the top view has a key
        self.labelled = labelled
        self.setMenuEnabled(False)
        self.hideButtons()
        self.setAspectLocked(True)
        self.getViewBox().setMouseEnabled(x=False, y=False)
        self.setRange(xRange=(-VIEW_HALF, VIEW_HALF), yRange=(-VIEW_HALF, VIEW_HALF), padding=0)
        self.showGrid(x=True, y=True, alpha=0.12)
        for axis in ("left", "bottom"):
            self.getAxis(axis).setStyle(tickLength=-4)
        self.sphere = pg.PlotCurveItem(pen=pg.mkPen(COLOURS["sphere"], width=1.5,
                                                    style=Qt.PenStyle.DashLine))
        self.ln_set = pg.PlotCurveItem(pen=pg.mkPen(COLOURS["circle"], width=3))
        self.spokes = pg.PlotCurveItem(pen=pg.mkPen((31, 95, 191, 90), width=1),
                                       connect="pairs")
        self.links = {key: pg.PlotCurveItem(pen=pg.mkPen(COLOURS[key], width=1.5,
                                                         style=Qt.PenStyle.DotLine))
                      for key in ("ln", "anti", "rms", "ln_eps")}
        self.points = pg.ScatterPlotItem(size=11, pxMode=True)
        #: label anchors chosen so the usual picture keeps them apart
        anchors = {"ln": (-0.05, 0.0), "anti": (1.05, 1.0), "rms": (1.05, 0.0),
                   "ln_eps": (-0.05, 1.0)}
        self.labels = {key: pg.TextItem(color=COLOURS[key], anchor=anchors[key])
                       for key in ("ln", "anti", "rms", "ln_eps")}
        self.handle = pg.TargetItem(size=16, movable=True, symbol="o",
                                    pen=pg.mkPen(COLOURS["v"], width=2),
                                    brush=pg.mkBrush(255, 255, 255, 200),
                                    hoverBrush=pg.mkBrush(255, 230, 120, 230),
                                    label="v", labelOpts={"color": COLOURS["v"],
                                                          "offset": (8, -14)})
        for item in (self.sphere, self.ln_set, self.spokes, *self.links.values(), self.points,
                     self.handle):
            self.addItem(item)
        if labelled:
            for label in self.labels.values():
                self.addItem(label)
            self.key = None
            # a resize (the view is aspect-locked) moves the points closer on screen
            self.getViewBox().sigTransformChanged.connect(lambda *_args: self.declutter())
        else:
            self.key = self.addLegend(offset=(4, 4), labelTextSize="8pt", colCount=2)
            # a wide, short view (1366 x 768) has room beside the circle, not above it
            self.getViewBox().sigTransformChanged.connect(lambda *_args: self._shape_key())
            self.key_samples = {
                key: pg.ScatterPlotItem(symbol="s" if key == "ln_eps" else "o", size=9,
                                        brush=pg.mkBrush(COLOURS[key]), pen=pg.mkPen("w"))
                for key in ("ln", "anti", "rms", "ln_eps")}

    def set_key(self, names: dict[str, str]) -> None:
        """The top view's key: which colour is which point."""
        if self.key is None:
            return
        self.key.clear()
        # the plot's own background, half see-through: the key's text is the plot foreground
        # (runs again on a theme switch, with the retranslation)
        veil = QColor(theme.PLOT_COLOURS[theme.current_theme()][0])
        veil.setAlpha(210)
        self.key.setBrush(pg.mkBrush(veil))
        for key, name in names.items():
            self.key.addItem(self.key_samples[key], name)

    def _shape_key(self) -> None:
        """The key in one column beside the circle when the view is wide (two columns across
        the top covered the circle's left half in a short view), else in two."""
        rect = self.getViewBox().sceneBoundingRect()
        columns = 1 if rect.width() > KEY_ONE_COLUMN_ASPECT * rect.height() else 2
        if self.key is not None and self.key.columnCount != columns:
            self.key.setColumnCount(columns)

    def label_rect(self, key: str) -> QRectF:
        """Where label ``key`` stands on screen (scene pixels): its anchor point mapped from
        the data, its text unscaled, as ``pg.TextItem`` draws it."""
        label = self.labels[key]
        size = label.textItem.boundingRect().size()
        at = self.getViewBox().mapViewToScene(label.pos())
        ax, ay = label.anchor.x(), label.anchor.y()
        return QRectF(at.x() - ax * size.width(), at.y() - ay * size.height(),
                      size.width(), size.height())

    def declutter(self) -> None:
        """Show each label unless it would overlap one before it in LABEL_PRIORITY."""
        if not self.labelled:
            return
        kept: list[QRectF] = []
        for key in LABEL_PRIORITY:
            label = self.labels[key]
            if not label.textItem.toPlainText():
                label.setVisible(False)
                continue
            rect = self.label_rect(key)
            free = not any(rect.intersects(other) for other in kept)
            label.setVisible(free)
            if free:
                kept.append(rect)

    def set_handle(self, x: float, y: float) -> None:
        self.handle.blockSignals(True)
        self.handle.setPos(QPointF(x, y))
        self.handle.blockSignals(False)


class ProjectionPanel(LensPanel):
    def build(self) -> None:
        body = QWidget()
        self.header = LensHeader([("EXACT", "E5"), ("EXACT", "E6"), ("EXACT", "E7"),
                                  ("EXACT", "E8"), ("EXACT", "E10")])

        self.v_boxes = []
        for i in range(D):
            box = QDoubleSpinBox()
            box.setObjectName(f"vBox{i}")
            box.setRange(-3.0, 3.0)
            box.setDecimals(3)
            box.setSingleStep(0.05)
            box.setValue(DEFAULT_V[i])
            box.setKeyboardTracking(False)
            self.v_boxes.append(box)
        self.v_label = QLabel()
        self.constant_button = QPushButton()
        self.constant_button.setObjectName("constantVButton")
        self.reset_button = QPushButton()
        self.reset_button.setObjectName("resetVButton")
        self.eps_label = QLabel()
        self.eps_slider = QSlider(Qt.Orientation.Horizontal)
        self.eps_slider.setObjectName("projectionEpsSlider")
        self.eps_slider.setRange(0, EPS_POSITIONS)
        self.sigma1_label = QLabel("σ₁")
        self.sigma1_box = QDoubleSpinBox()
        self.sigma1_box.setObjectName("projSigma1Box")
        self.sigma1_box.setRange(-1.5, 1.5)
        self.sigma1_box.setSingleStep(0.1)
        self.sigma1_box.setValue(0.0)
        self.sigma2_label = QLabel("σ₂")
        self.sigma2_box = QDoubleSpinBox()
        self.sigma2_box.setObjectName("projSigma2Box")
        self.sigma2_box.setRange(0.1, 1.8)
        self.sigma2_box.setSingleStep(0.1)
        self.sigma2_box.setValue(1.0)

        self.top = _View(labelled=False)
        self.side = _View(labelled=True)
        self.readout = QLabel()
        self.readout.setObjectName("projectionReadout")
        self.readout.setTextFormat(Qt.TextFormat.RichText)
        self.readout.setWordWrap(True)
        self.readout.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        vrow = QHBoxLayout()
        vrow.addWidget(self.v_label)
        for box in self.v_boxes:
            vrow.addWidget(box)
        vrow.addWidget(self.constant_button)
        vrow.addWidget(self.reset_button)
        vrow.addStretch(1)
        prow = QHBoxLayout()
        prow.addWidget(self.eps_label)
        prow.addWidget(self.eps_slider, 1)
        prow.addWidget(self.sigma1_label)
        prow.addWidget(self.sigma1_box)
        prow.addWidget(self.sigma2_label)
        prow.addWidget(self.sigma2_box)
        views = QGridLayout()
        views.setContentsMargins(0, 0, 0, 0)
        views.addWidget(self.top, 0, 0)
        views.addWidget(self.side, 0, 1)
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(3)
        layout.addWidget(self.header)
        layout.addLayout(vrow)
        layout.addLayout(prow)
        layout.addLayout(views, 1)
        layout.addWidget(self.readout)
        self.set_body(body)

        #: what is drawn, for tests: the engine's projections at the current v
        self.ln_projection = None
        self.rms_projection = None
        self.ln_eps: np.ndarray | None = None
        self.equidistant = False
        self._w = E1.copy()  # the in-plane direction the side view uses
        self._syncing = False

        for box in self.v_boxes:
            box.valueChanged.connect(self._on_control_changed)
        self.eps_slider.valueChanged.connect(self._on_control_changed)
        self.sigma1_box.valueChanged.connect(self._on_control_changed)
        self.sigma2_box.valueChanged.connect(self._on_control_changed)
        self.constant_button.clicked.connect(self.make_constant)
        self.reset_button.clicked.connect(lambda: self.set_v(DEFAULT_V))
        self.top.handle.sigPositionChanged.connect(self._on_top_dragged)
        self.side.handle.sigPositionChanged.connect(self._on_side_dragged)

    # ----- the vector -----
    @property
    def v(self) -> np.ndarray:
        return np.array([box.value() for box in self.v_boxes])

    @property
    def eps(self) -> float:
        return eps_at(self.eps_slider.value())

    def set_eps(self, eps: float) -> None:
        self.eps_slider.setValue(eps_position(eps))

    @property
    def sigma1(self) -> float:
        return self.sigma1_box.value()

    @property
    def sigma2(self) -> float:
        return self.sigma2_box.value()

    def set_v(self, v: object) -> None:
        """Set all three components, then redraw once."""
        values = np.clip(np.asarray(v, dtype=float), -3.0, 3.0)
        self._syncing = True
        for box, value in zip(self.v_boxes, values, strict=True):
            box.setValue(round(float(value), 3))
        self._syncing = False
        self._on_control_changed()

    def make_constant(self) -> None:
        """Put v on the (1, 1, 1) axis, keeping its mean: LayerNorm has no unique answer."""
        m = round(float(np.mean(self.v)), 3)
        self.set_v((m, m, m))

    def _on_top_dragged(self) -> None:
        if self._syncing:
            return
        pos = self.top.handle.pos()
        m = float(np.mean(self.v))
        self.set_v(m * np.ones(D) + pos.x() * E1 + pos.y() * E2)

    def _on_side_dragged(self) -> None:
        if self._syncing:
            return
        pos = self.side.handle.pos()
        self.set_v(pos.y() * N_AXIS + pos.x() * self._w)

    def _on_control_changed(self, *_args: object) -> None:
        if self._syncing:
            return
        self._update_labels()
        if self.isVisible() and self.state.result is not None:
            self.update_geometry()
        else:
            self._dirty = True

    def _retranslate(self) -> None:
        st = self.state
        self.header.set_texts(
            self.tr("Projection geometry (d = 3)"),
            pick(st, "LayerNorm (ε = 0, γ = σ₂, β = σ₁) is the nearest point of the circle "
                     "{mean σ₁, variance σ₂²}; the antipode meets the same first-order condition "
                     "but is the farthest. RMSNorm (γ = 1) projects radially onto the sphere "
                     "‖u‖ = √3. Drag v in either view.",
                 "LayerNorm（ε = 0，γ = σ₂，β = σ₁）是圆 {均值 σ₁，方差 σ₂²} 上离 v 最近的点；"
                 "对径点满足同样的一阶条件，却是最远点。RMSNorm（γ = 1）沿径向投影到球面 "
                 "‖u‖ = √3。可在任一视图中拖动 v。"),
            [badge_tip(self, "EXACT")] * 5)
        self.v_label.setText(self.tr("v ="))
        self.constant_button.setText(self.tr("constant v"))
        self.constant_button.setToolTip(self.tr("Make every component equal (keeps the mean)"))
        self.reset_button.setText(self.tr("reset"))
        self.eps_slider.setToolTip(self.tr("LayerNorm ε (far left: ε = 0)"))
        self.sigma1_box.setToolTip(self.tr("Target mean σ₁ (LayerNorm's β)"))
        self.sigma2_box.setToolTip(self.tr("Target standard deviation σ₂ (LayerNorm's γ)"))
        self.top.setTitle(self.tr("looking along (1, 1, 1): the circle seen true"), size="9pt")
        self.top.set_key({"ln": "LN(v)", "anti": self.tr("antipode"), "rms": "RMSNorm(v)",
                          "ln_eps": "LNε(v)"})
        self.side.setTitle(self.tr("side view: plane of (1, 1, 1) and v (true lengths)"),
                           size="9pt")
        self.top.setLabel("bottom", "e₁ = (1, −1, 0)/√2")
        self.top.setLabel("left", "e₂ = (1, 1, −2)/√6")
        self.side.setLabel("bottom", self.tr("across the axis (spread of v)"))
        self.side.setLabel("left", self.tr("along (1, 1, 1)/√3 = √3·mean"))
        self._update_labels()
        if self.ln_projection is not None:
            self._update_readout()

    def _update_labels(self) -> None:
        eps = self.eps
        self.eps_label.setText(self.tr("ε = %1").replace("%1", "0" if eps == 0 else f"{eps:.0e}"))

    # ----- drawing -----
    def redraw(self, result: Result) -> None:
        self.update_geometry()

    def update_geometry(self) -> None:
        """Recompute from the engine and move every item (the per-drag path)."""
        v = self.v
        s1, s2, eps = self.sigma1, self.sigma2, self.eps
        ln = project_to_layernorm_set(v, s1, s2)
        rms = rmsnorm_radial_projection(v)
        self.ln_projection, self.rms_projection = ln, rms
        self.equidistant = not ln.unique
        self.ln_eps = ops.layer_norm(v, eps, s2, s1) if eps > 0 else None
        # the side view's in-plane direction: v's own, else the one the engine picked
        centred = v - np.mean(v) * np.ones(D)
        if ln.unique:
            self._w = centred / np.linalg.norm(centred)
        else:
            w = ln.point - s1
            self._w = w / np.linalg.norm(w)

        def top_xy(p: np.ndarray) -> tuple[float, float]:
            return float(p @ E1), float(p @ E2)

        def side_xy(p: np.ndarray) -> tuple[float, float]:
            return float(p @ self._w), float(p @ N_AXIS)

        radius = SQRT_D * s2
        self.top.sphere.setData(*_circle(SQRT_D))
        self.top.ln_set.setData(*_circle(radius))
        self.side.sphere.setData(*_circle(SQRT_D))
        height = SQRT_D * s1
        self.side.ln_set.setData(np.array([-radius, radius]), np.array([height, height]))

        points = {"ln": ln.point, "anti": ln.antipode, "rms": rms.point}
        if self.ln_eps is not None:
            points["ln_eps"] = self.ln_eps
        for view, xy in ((self.top, top_xy), (self.side, side_xy)):
            vx, vy = xy(v)
            spots = []
            for key in ("ln", "anti", "rms", "ln_eps"):
                link, label = view.links[key], view.labels[key]
                if key not in points:
                    link.setData([], [])
                    label.setText("")
                    continue
                px, py = xy(points[key])
                link.setData([vx, px], [vy, py])
                label.setPos(px, py)  # (drawn only in the side view)
                spots.append({"pos": (px, py), "brush": pg.mkBrush(COLOURS[key]),
                              "pen": pg.mkPen("w", width=1),
                              "symbol": "s" if key == "ln_eps" else "o"})
            view.points.setData(spots)
            self._syncing = True
            view.set_handle(vx, vy)
            self._syncing = False
        # a constant v: spokes to points all round the circle, every one the same length
        if self.equidistant:
            theta = np.linspace(0.0, 2.0 * math.pi, 12, endpoint=False)
            rim = (s1 * np.ones(D)[None] + radius * (np.cos(theta)[:, None] * E1[None]
                                                      + np.sin(theta)[:, None] * E2[None]))
            starts = np.repeat(v[None], len(rim), axis=0)
            pairs = np.stack([starts, rim], axis=1).reshape(-1, D)
            self.top.spokes.setData(pairs @ E1, pairs @ E2)
            ends = np.array([[-radius, height], [radius, height]])
            vx, vy = side_xy(v)
            self.side.spokes.setData(np.array([vx, ends[0, 0], vx, ends[1, 0]]),
                                     np.array([vy, ends[0, 1], vy, ends[1, 1]]))
        else:
            self.top.spokes.setData([], [])
            self.side.spokes.setData([], [])
        self._update_readout()

    def _update_readout(self) -> None:
        st = self.state
        ln, rms = self.ln_projection, self.rms_projection
        v = self.v
        s1, s2, eps = self.sigma1, self.sigma2, self.eps
        labels = self.side.labels
        labels["ln"].setText(f"LN {ln.distance:.3f}")
        labels["anti"].setText(f"{pick(st, 'anti', '对径')} {ln.antipode_distance:.3f}")
        labels["rms"].setText(f"RMS {rms.distance:.3f}")
        if self.ln_eps is not None:
            labels["ln_eps"].setText("LNε")
        self.side.declutter()
        self.v_label.setText(self.tr("v ="))
        # the colours of the marks they name, made readable on the current theme
        ink = {key: theme.ink(QColor(*COLOURS[key]).name())
               for key in ("ln", "anti", "rms", "ln_eps")}
        ink["const"] = theme.ink("#b35900")
        anti = ink["anti"]
        lines = []
        if self.equidistant:
            lines.append(pick(
                st,
                f"<b style='color:{ink['const']}'>v is constant: every point of the circle is "
                f"equidistant</b> (distance {ln.distance:.4f}) — no unique projection (E7). "
                f"With ε &gt; 0 LayerNorm returns β = σ₁ = {s1:g} for every component: the "
                "centre, off the circle.",
                f"<b style='color:{ink['const']}'>v 是常向量：圆上每一点与它等距</b>（距离 "
                f"{ln.distance:.4f}）——投影不唯一（E7）。ε &gt; 0 时 LayerNorm 每个分量都返回 "
                f"β = σ₁ = {s1:g}：圆心，不在圆上。"))
        else:
            near = math.sqrt(ln.closed_form_squared_distance)
            far = math.sqrt(ln.closed_form_antipode_squared_distance)
            lines.append(pick(
                st,
                f"<b style='color:{ink['ln']}'>LN(v): nearest, {ln.distance:.6f}</b> "
                f"(closed form √(d[(σ₂ − s)² + (σ₁ − m)²]) = {near:.6f})",
                f"<b style='color:{ink['ln']}'>LN(v)：最近，{ln.distance:.6f}</b>"
                f"（闭式 √(d[(σ₂ − s)² + (σ₁ − m)²]) = {near:.6f}）"))
            lines.append(pick(
                st,
                f"<b style='color:{anti}'>antipode: farthest, {ln.antipode_distance:.6f}</b> "
                f"(√(d[(σ₂ + s)² + (σ₁ − m)²]) = {far:.6f}; same first-order condition)",
                f"<b style='color:{anti}'>对径点：最远，{ln.antipode_distance:.6f}</b>"
                f"（√(d[(σ₂ + s)² + (σ₁ − m)²]) = {far:.6f}；满足同样的一阶条件）"))
            rms_line = pick(
                st,
                f"<b style='color:{ink['rms']}'>RMSNorm(v): {rms.distance:.6f}</b> = √d·|rms − 1|, "
                f"radially onto the sphere; its mean is {float(np.mean(rms.point)):.3f}, not 0",
                f"<b style='color:{ink['rms']}'>RMSNorm(v)：{rms.distance:.6f}</b> = √d·|rms − 1|，"
                f"沿径向到球面；其均值为 {float(np.mean(rms.point)):.3f}，不是 0")
            if s1 == 0 and s2 == 1:
                gap = compare_norms(v).centred_gap
                rms_line += pick(st, f" · LN(v) = RMSNorm(v − mean v), gap {gap:.1e} (E10)",
                                 f" · LN(v) = RMSNorm(v − mean v)，差 {gap:.1e}（E10）")
            lines.append(rms_line)
        if eps > 0 and not self.equidistant:
            miss = layernorm_miss(v, eps)
            measured = project_to_layernorm_set(self.ln_eps, s1, s2).distance
            lines.append(pick(
                st,
                f"<span style='color:{ink['ln_eps']}'>ε = {eps:.0e}: LN<sub>ε</sub>(v) misses the "
                f"circle by {measured:.3e}</span> = σ₂·√d(1 − s/√(s² + ε)) = "
                f"{s2 * miss.closed_form:.3e} (E8).",
                f"<span style='color:{ink['ln_eps']}'>ε = {eps:.0e}：LN<sub>ε</sub>(v) 偏离圆 "
                f"{measured:.3e}</span> = σ₂·√d(1 − s/√(s² + ε)) = "
                f"{s2 * miss.closed_form:.3e}（E8）。"))
        self.readout.setText("<br>".join(lines))
