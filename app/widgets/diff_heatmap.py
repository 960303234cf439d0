"""A heatmap of |Δ| on a log scale in which an exact zero has a colour of its own.

"Bitwise equal" and "differs by 1e-16" must never look alike, so a zero is not the low end of
the colour map: it is drawn with a sentinel value one decade below the floor, which falls in the
lookup table's first entry, and that entry is ``zero_colour``. Using a sentinel rather than NaN
keeps the image finite, so a 2048 × 2048 map needs no masked copy before drawing.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from PySide6.QtGui import QColor

from app import palettes, theme
from app.widgets.heatmap import HeatmapView


class DiffHeatmapView(HeatmapView):
    """``set_diff(values)``: values ≥ 0; zeros in ``zero_colour``, the rest log₁₀ coloured."""

    def __init__(self, parent: object = None, *, map_name: str, floor: float,
                 zero_colour: QColor) -> None:
        super().__init__(parent, colorbar=False)
        self.map_name = map_name
        #: log₁₀|Δ| at the bottom of the colour map; smaller non-zero values are drawn there
        self.floor = floor
        #: what an exact zero holds in ``data``: one decade below the floor
        self.sentinel = floor - 1.0
        self.zero_colour = zero_colour
        self.high = floor + 1.0
        self._set_masked_colour()
        self._lut = self._make_lut()
        #: (the table, a QColor per entry) for colours_of
        self._colour_table: tuple[np.ndarray | None, list[QColor]] = (None, [])

    def _set_masked_colour(self) -> None:
        """Behind the image: the zero colour, whatever the theme."""
        self._masked_theme = theme.current_theme()
        zero = getattr(self, "zero_colour", None)  # (None while HeatmapView is being built)
        if zero is not None:
            self.plot.getViewBox().setBackgroundColor(zero)

    def _make_lut(self) -> np.ndarray:
        lut = palettes.lut(self.map_name).copy()  # [256, 4] uint8
        lut[1:] = lut[np.linspace(0, 255, 255).round().astype(int)]
        lut[0] = (self.zero_colour.red(), self.zero_colour.green(), self.zero_colour.blue(), 255)
        return lut

    @property
    def log_levels(self) -> tuple[float, float]:
        return self.sentinel, self.high

    def log_image(self, values: np.ndarray, within: np.ndarray | None = None) -> np.ndarray:
        """float32 log₁₀ of ``values``, clipped at the floor, with zeros at the sentinel.
        ``within``: flat indices outside which ``values`` is exactly 0 (what
        :func:`app.widgets.diff_bars.abs_diff_changed` found changed): only those are read."""
        # only the non-zero entries are computed: an edit leaves most of a map exactly 0
        flat = np.ascontiguousarray(values).reshape(-1)
        out = np.full(flat.size, self.sentinel, dtype=np.float32)
        nonzero = np.flatnonzero(flat > 0) if within is None else within[flat[within] > 0]
        logs = np.log10(flat[nonzero]).astype(np.float32)  # float64 log, rounded once
        out[nonzero] = np.maximum(logs, np.float32(self.floor))
        return out.reshape(np.shape(values))

    def set_diff(self, values: np.ndarray, high: float, row_labels: Sequence[str],
                 col_labels: Sequence[str] | None = None, *, x_title: str = "",
                 y_title: str = "", within: np.ndarray | None = None) -> None:
        """``within``: as :meth:`log_image` takes it."""
        self.high = high
        self.set_matrix(self.log_image(values, within), self.log_levels, self.map_name, row_labels,
                        col_labels, x_title=x_title, y_title=y_title)
        self.image.setLookupTable(self._lut)  # set_matrix installed the plain map

    def colour_of(self, value: float) -> QColor:
        """The colour a cell with |Δ| = ``value`` has (for bars and legends beside the map)."""
        log = self.sentinel if value <= 0 else max(float(np.log10(value)), self.floor)
        lo, hi = self.log_levels
        index = int(np.clip((log - lo) * 256.0 / (hi - lo), 0, 255))
        r, g, b, _a = (int(c) for c in self._lut[index])
        return QColor(r, g, b)

    def colours_of(self, values: np.ndarray) -> list[QColor]:
        """:meth:`colour_of` of every entry of ``values``, the same colours found at once: the
        causality bars take one colour per token, and 512 scalar calls took milliseconds."""
        values = np.asarray(values, dtype=np.float64)
        positive = values > 0
        logs = np.full(values.shape, self.sentinel)
        logs[positive] = np.maximum(np.log10(values[positive]), self.floor)
        lo, hi = self.log_levels
        indices = np.clip((logs - lo) * 256.0 / (hi - lo), 0, 255).astype(np.int64)
        if self._colour_table[0] is not self._lut:  # one QColor per entry of the table
            self._colour_table = (self._lut, [QColor(int(r), int(g), int(b))
                                              for r, g, b, _a in self._lut])
        table = self._colour_table[1]
        return [table[i] for i in indices.tolist()]
