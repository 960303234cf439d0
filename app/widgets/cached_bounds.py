"""pyqtgraph items whose bounding rectangle is computed once per change, not per call.

``BarGraphItem.boundingRect`` and ``ScatterPlotItem.boundingRect`` compute their data's bounds
and the pixel padding (the item's device transform, through every parent) on every call, and
Qt's scene asks an item for it a few times per paint (its index, the exposed region, the
drawing): the norm chart's four bar series were asked ~23 times per edit, ~0.08 ms each, the
attention graph's nodes ~7 times. The rectangle only changes when the item's geometry does
(pyqtgraph calls ``prepareGeometryChange`` for new data), when the view's transform does
(``viewTransformChanged``: the pixel padding is in view units), or when the spots' pixel size
does (a scatter's new pens or sizes); it is kept until one of those happens.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QRectF


class _CachedBounds:
    """Mixin: ``boundingRect`` kept until the geometry, the view transform or
    :meth:`_bounds_extra` changes."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        self._kept_bounds: tuple[tuple, QRectF] | None = None
        self._geometry_version = 0
        super().__init__(*args, **kwargs)

    def _bounds_extra(self) -> tuple:
        """Anything else the rectangle depends on that pyqtgraph does not announce."""
        return ()

    def prepareGeometryChange(self) -> None:
        self._geometry_version += 1
        super().prepareGeometryChange()  # type: ignore[misc]

    def viewTransformChanged(self) -> None:
        self._geometry_version += 1
        super().viewTransformChanged()  # type: ignore[misc]

    def boundingRect(self) -> QRectF:
        key = (self._geometry_version, *self._bounds_extra())
        kept = self._kept_bounds
        if kept is None or kept[0] != key:
            kept = (key, QRectF(super().boundingRect()))  # type: ignore[misc]
            self._kept_bounds = kept
        return QRectF(kept[1])


class CachedBoundsBars(_CachedBounds, pg.BarGraphItem):
    """A BarGraphItem whose bounds are computed once per ``setOpts`` or view change."""


class CachedBoundsScatter(_CachedBounds, pg.ScatterPlotItem):
    """A ScatterPlotItem whose bounds are computed once per change of its points, its spots'
    pixel size or the view."""

    def _bounds_extra(self) -> tuple:
        # restyling spots in place (updateSpots) changes their pixel size without telling Qt
        return (self._maxSpotPxWidth, self._maxSpotWidth)
