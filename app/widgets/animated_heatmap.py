"""A heatmap whose pixels change every frame while its shape, labels and levels stay put.

:meth:`HeatmapView.set_matrix` also relabels the axes and resets the view range, which costs a
layout pass (~10 ms). An animation frame needs none of that: :meth:`set_values` only swaps the
image's pixels (one ``setImage`` with the fixed levels), so a slider can drive it at 60 fps.
"""

from __future__ import annotations

import numpy as np

from app.widgets.heatmap import HeatmapView, display_array


class AnimatedHeatmapView(HeatmapView):
    def set_values(self, array: np.ndarray, levels: tuple[float, float]) -> None:
        """New pixels for the matrix on screen: same shape, same colour levels, no relayout."""
        if self._data is None or array.shape != self._data.shape:
            raise ValueError("set_values needs a matrix of the shape set_matrix showed; "
                             f"got {array.shape}")
        data = display_array(array)
        self._data = data
        self.image.setImage(data, autoLevels=False, levels=levels)
