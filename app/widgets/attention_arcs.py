"""The attention graph's arcs: weights bucketed on a square-root scale, one opaque pen per
bucket, half-ellipse arcs from each key to the query, and a curve item that strokes them as
whole polylines.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from pyqtgraph import debug
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen

from app import theme

#: Weight buckets: bucket b holds weights with b/N ≤ √w < (b+1)/N (a square-root scale, so the
#: small weights of a long row stay visible but thin).
N_BUCKETS = 8
LINK_RGB = (33, 90, 180)
#: the links on the dark theme: the navy of the light one had a contrast of ~2.4 with the dark
#: plot at full opacity, and the light weights' faint arcs disappeared
LINK_RGB_DARK = (110, 170, 245)
#: view units: height of the longest arc; the row of nodes is at y = 0
ARC_TOP = 1.0


def bucket_of(weights: np.ndarray) -> np.ndarray:
    """The bucket index (0 … N_BUCKETS − 1) of each weight."""
    w = np.clip(np.asarray(weights, dtype=np.float64), 0.0, 1.0)
    return np.minimum((np.sqrt(w) * N_BUCKETS).astype(np.int64), N_BUCKETS - 1)


def link_rgb(theme_name: str) -> tuple[int, int, int]:
    return LINK_RGB_DARK if theme_name == "dark" else LINK_RGB


def bucket_opacity(bucket: int) -> float:
    """How opaque a bucket's links look (0 … 1): heavier weights stand out more."""
    return int(35 + 220 * (bucket + 0.5) / N_BUCKETS) / 255


def bucket_pen(bucket: int, rgb: tuple[int, int, int] = LINK_RGB,
               background: QColor | None = None) -> QPen:
    """An opaque pen: the link colour at the bucket's opacity, pre-blended toward the plot's
    ``background`` (white if None). Qt strokes an antialiased translucent pen ~10× slower
    than an opaque one, and on the plain plot the two look the same; the heavier buckets are
    drawn above the lighter ones (their z value), as they were by blending."""
    f = (bucket + 0.5) / N_BUCKETS
    back = QColor(255, 255, 255) if background is None else background
    pen = QPen(theme.blend(back, QColor(*rgb), bucket_opacity(bucket)))
    pen.setWidthF(0.6 + 6.5 * f * f)
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    # an arc turns a few degrees per point: a bevel join there is exactly as round, strokes
    # ~25 % faster, and Qt's round joins left a one-pixel nub on the thin arcs' apexes
    pen.setJoinStyle(Qt.PenJoinStyle.BevelJoin)
    pen.setCosmetic(True)
    return pen


def format_weight(w: float) -> str:
    """At least four significant digits, however small the weight."""
    if w == 0.0:
        return "0"
    return f"{w:.6f}" if w >= 1e-3 else f"{w:.4e}"


def arc_points(keys: np.ndarray, query: int, n_tokens: int, samples: int,
               loop: tuple[float, float] = (0.2, 0.15)) -> np.ndarray:
    """[K, samples, 2] points of the arcs from each key to ``query``: half ellipses above the
    row whose height grows with the distance; a key equal to the query gets a teardrop loop of
    half-width ``loop[0]`` and height ``loop[1]`` (view units) standing on the node."""
    keys = np.asarray(keys, dtype=np.float64)
    s = np.linspace(0.0, 1.0, samples)
    span = max(n_tokens - 1, 1)
    dist = np.abs(keys - query)
    height = 0.12 + (ARC_TOP - 0.12) * dist / span  # [K]
    mid = (keys + query) / 2
    half = (keys - query) / 2
    x = mid[:, None] + half[:, None] * np.cos(np.pi * s)[None, :]
    y = height[:, None] * np.sin(np.pi * s)[None, :]
    self_loop = dist == 0
    if self_loop.any():
        x[self_loop] = query + loop[0] * np.sin(2 * np.pi * s)[None, :]
        y[self_loop] = loop[1] * np.sin(np.pi * s)[None, :]
    return np.stack([x, y], axis=-1)


class ArcMemo:
    """:func:`arc_points` of the last few key sets, kept: an arc's shape depends on its key,
    the query, the token count and the loop's size, never on the weight, so while someone
    types at the end of the sentence (the query follows the last token) every edit draws the
    same arcs, only bucketed by new weights. Returned arrays are read-only (shared)."""

    KEEP = 4

    def __init__(self) -> None:
        self._kept: dict[tuple, np.ndarray] = {}

    def points(self, keys: np.ndarray, query: int, n_tokens: int, samples: int,
               loop: tuple[float, float]) -> np.ndarray:
        key = (np.asarray(keys, dtype=np.int64).tobytes(), query, n_tokens, samples, loop)
        found = self._kept.get(key)
        if found is None:
            found = arc_points(keys, query, n_tokens, samples, loop)
            found.flags.writeable = False
            if len(self._kept) >= self.KEEP:
                self._kept.pop(next(iter(self._kept)))  # the oldest
            self._kept[key] = found
        return found


def pairs(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """x, y arrays for ``connect='pairs'`` from [K, S, 2] polylines (one segment per pair)."""
    if points.shape[0] == 0:
        return np.zeros(0), np.zeros(0)
    seg = np.stack([points[:, :-1], points[:, 1:]], axis=2)  # [K, S-1, 2, 2]
    flat = seg.reshape(-1, 2)
    return np.ascontiguousarray(flat[:, 0]), np.ascontiguousarray(flat[:, 1])


class ArcCurve(pg.PlotCurveItem):
    """A ``connect='pairs'`` curve (its data stays one segment per pair: hover and the tests
    read arcs that way) stroked as whole polylines: a segment that starts where the previous
    one ended continues it. With round caps and joins that is the same shape, and Qt strokes
    one arc of 40 points about twice as fast as 39 separate capped segments.

    The graph's view range is the panel's (``_fit_view``), so the item's bounds are that range
    (:meth:`set_bounds`), not its data's: pyqtgraph measured the data of every changed curve
    (min, max, the pen's pixel padding) for Qt's scene index before each paint (~0.9 ms per
    default edit in a profile), for a rectangle the view clips to anyway. An empty bucket has
    no bounds, so Qt skips it.

    With ``device_dash`` a dashed cosmetic pen is stroked in device pixels: Qt dashes a
    cosmetic pen's path in item coordinates, and under the graph's transform (the arcs are
    1 unit tall, the row tens wide) 32 dashed arcs took 30-45 ms; mapped first, ~2 ms. Its
    segments stay separate (the dash pattern starts again at each, as it always has)."""

    def __init__(self, *args: object, device_dash: bool = False, **kwargs: object) -> None:
        self._bounds = QRectF()
        self._device_dash = device_dash
        super().__init__(*args, **kwargs)

    def set_bounds(self, rect: QRectF) -> None:
        """Where the arcs can be: the view's range (view coordinates)."""
        if rect != self._bounds:
            self.prepareGeometryChange()
            self._bounds = QRectF(rect)

    def boundingRect(self) -> QRectF:
        # an empty bucket has nothing to paint: Qt skips an item without bounds
        empty = self.xData is None or len(self.xData) == 0
        return QRectF() if empty else QRectF(self._bounds)

    def dataBounds(self, ax: int, frac: float = 1.0,
                   orthoRange: object = None) -> tuple[float, float] | tuple[None, None]:
        """The data's extent (for an auto-range; the graph sets its own range)."""
        data = self.xData if ax == 0 else self.yData
        if data is None or len(data) == 0:
            return None, None
        return float(np.min(data)), float(np.max(data))

    def setData(self, *args: object, **kwargs: object) -> None:
        """``x``, ``y`` (keywords) as PlotCurveItem takes them, without its bounds and
        geometry bookkeeping (see the class doc); anything else goes the full way."""
        if args or set(kwargs) - {"x", "y"}:
            super().setData(*args, **kwargs)
            return
        x = np.asarray(kwargs.get("x", np.zeros(0)), dtype=np.float64)
        y = np.asarray(kwargs.get("y", np.zeros(0)), dtype=np.float64)
        if x.ndim != 1 or x.shape != y.shape:
            raise ValueError(f"arc data must be two 1-D arrays of one length, got {x.shape} "
                             f"and {y.shape}")
        if (self.xData is None or len(self.xData) == 0) != (len(x) == 0):
            self.prepareGeometryChange()  # (empty items have no bounds)
        self.xData, self.yData = x, y
        self.path = None
        self._mouseShape = None
        self.update()

    def generatePath(self, x: np.ndarray, y: np.ndarray) -> QPainterPath:
        if self.opts["connect"] != "pairs" or len(x) < 2 or self._device_dash:
            return super().generatePath(x, y)
        x0, y0, x1, y1 = x[0::2], y[0::2], x[1::2], y[1::2]
        # a segment opens a new polyline unless it starts at the previous segment's end
        opens = np.ones(x0.size, dtype=bool)
        opens[1:] = (x0[1:] != x1[:-1]) | (y0[1:] != y1[:-1])
        counts = 1 + opens  # points each segment adds: its start when it opens, its end
        ends = np.cumsum(counts) - 1
        px, py = np.empty(ends[-1] + 1), np.empty(ends[-1] + 1)
        px[ends], py[ends] = x1, y1
        starts = ends[opens] - 1
        px[starts], py[starts] = x0[opens], y0[opens]
        connect = np.ones(px.size, dtype=bool)  # connect[i]: point i joins point i + 1
        connect[starts[1:] - 1] = False
        return pg.arrayToQPath(px, py, connect=connect)

    @debug.warnOnException  # an exception escaping a paint() takes Qt down
    def paint(self, p: QPainter, opt: object, widget: object) -> None:
        """The path stroked with the pen, as PlotCurveItem strokes an antialiased curve."""
        pen = self.opts["pen"]
        if self.xData is None or len(self.xData) == 0 or pen.style() == Qt.PenStyle.NoPen:
            return
        aa = (self._exportOpts.get("antialias", True) if self._exportOpts is not False
              else self.opts["antialias"])
        path = self.getPath()
        if self._device_dash and pen.isCosmetic():
            p.save()
            path = p.worldTransform().map(path)
            p.resetTransform()
            p.setRenderHint(QPainter.RenderHint.Antialiasing, aa)
            p.setPen(pen)
            p.drawPath(path)
            p.restore()
            return
        p.setRenderHint(QPainter.RenderHint.Antialiasing, aa)
        p.setPen(pen)
        p.drawPath(path)
