"""pyqtgraph items whose bounding rectangle is computed once per change, not per call.

``BarGraphItem.boundingRect`` and ``ScatterPlotItem.boundingRect`` compute their data's bounds
and the pixel padding (the item's device transform, through every parent) on every call, and
Qt's scene asks an item for it a few times per paint (its index, the exposed region, the
drawing): the norm chart's bar series and the causality bars were asked ~23 times per
default edit, the attention graph's nodes ~7 times (counted with wrappers; the computation is
tens of microseconds of Python each time). The rectangle only changes when the item's geometry does
(pyqtgraph calls ``prepareGeometryChange`` for new data), when the view's transform does
(``viewTransformChanged``: the pixel padding is in view units), or when the spots' pixel size
does (a scatter's new pens or sizes); it is kept until one of those happens.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QRectF


class _CachedBounds:
    """Mixin: ``boundingRect`` kept until the geometry or the view transform changes (Qt
    calls it from C++ many times a paint: the kept path is one attribute test)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        self._kept_bounds: QRectF | None = None
        super().__init__(*args, **kwargs)

    def prepareGeometryChange(self) -> None:
        self._kept_bounds = None
        super().prepareGeometryChange()  # type: ignore[misc]

    def viewTransformChanged(self) -> None:
        self._kept_bounds = None
        super().viewTransformChanged()  # type: ignore[misc]

    def boundingRect(self) -> QRectF:
        kept = self._kept_bounds
        if kept is None:
            kept = self._kept_bounds = QRectF(super().boundingRect())  # type: ignore[misc]
        return QRectF(kept)


class CachedBoundsBars(_CachedBounds, pg.BarGraphItem):
    """A BarGraphItem whose bounds are computed once per ``setOpts`` or view change."""


class CachedBoundsScatter(_CachedBounds, pg.ScatterPlotItem):
    """A ScatterPlotItem whose bounds are computed once per change of its points, its spots'
    pixel size or the view."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        self._kept_spot_px = (-1.0, -1.0)
        super().__init__(*args, **kwargs)

    def boundingRect(self) -> QRectF:
        # restyling spots in place (updateSpots) changes their pixel size without telling Qt
        spot_px = (self._maxSpotPxWidth, self._maxSpotWidth)
        if spot_px != self._kept_spot_px:
            self._kept_spot_px = spot_px
            self._kept_bounds = None
        return super().boundingRect()
