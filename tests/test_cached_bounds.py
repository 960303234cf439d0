"""Items whose bounding rectangle is kept between changes: it is always the one pyqtgraph
would compute now, and it is not computed again while nothing changed."""

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF

from app.widgets.cached_bounds import CachedBoundsBars, CachedBoundsScatter


def _plot(qtbot):
    widget = pg.PlotWidget()
    qtbot.addWidget(widget)
    widget.resize(400, 300)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def _fresh(item, cls):
    return cls.boundingRect(item)  # pyqtgraph's computation, nothing kept


def test_bars_bounds_follow_new_data_and_a_new_view_range(qtbot):
    widget = _plot(qtbot)
    bars = CachedBoundsBars(x=np.arange(5.0), height=np.array([1.0, -2.0, 3.0, 0.5, -1.0]),
                            width=0.3, pen=pg.mkPen("k", width=3))
    widget.addItem(bars)
    widget.setRange(xRange=(-1, 6), yRange=(-3, 4), padding=0)
    assert bars.boundingRect() == _fresh(bars, pg.BarGraphItem)

    bars.setOpts(x=np.arange(5.0) + 0.25, height=np.array([4.0, -5.0, 1.0, 0.0, 2.0]))
    assert bars.boundingRect() == _fresh(bars, pg.BarGraphItem)

    # the pen's padding is in pixels: a new range changes it in view units
    widget.setRange(xRange=(-10, 20), yRange=(-30, 40), padding=0)
    widget.getViewBox().updateMatrix()
    assert bars.boundingRect() == _fresh(bars, pg.BarGraphItem)


def test_bars_bounds_are_not_computed_again_while_nothing_changed(qtbot):
    widget = _plot(qtbot)
    bars = CachedBoundsBars(x=np.arange(3.0), height=np.ones(3), width=0.5)
    widget.addItem(bars)
    first = bars.boundingRect()
    calls = []
    original = bars.dataBounds
    bars.dataBounds = lambda *a, **k: calls.append(1) or original(*a, **k)
    for _ in range(5):
        assert bars.boundingRect() == first
    assert calls == []
    bars.setOpts(height=np.full(3, 2.0))
    bars.boundingRect()
    assert calls  # new data: computed again


def test_scatter_bounds_follow_points_spot_sizes_and_the_view(qtbot):
    widget = _plot(qtbot)
    nodes = CachedBoundsScatter(pxMode=True)
    widget.addItem(nodes)
    nodes.setData(x=np.arange(6.0), y=np.zeros(6), size=10, pen=[pg.mkPen("k", width=1)] * 6)
    widget.setRange(xRange=(-1, 6), yRange=(-1, 1), padding=0)
    widget.getViewBox().updateMatrix()
    before = nodes.boundingRect()
    assert before == _fresh(nodes, pg.ScatterPlotItem)

    # restyled in place (as the attention graph's nodes are): wider outlines, a larger box
    nodes.setPen([pg.mkPen("k", width=6)] * 6, update=False)
    nodes.updateSpots()
    assert nodes.boundingRect() == _fresh(nodes, pg.ScatterPlotItem)
    assert nodes.boundingRect() != before

    nodes.setData(x=np.arange(9.0) * 2, y=np.ones(9), size=15)
    assert nodes.boundingRect() == _fresh(nodes, pg.ScatterPlotItem)
    widget.setRange(xRange=(-5, 30), yRange=(-4, 4), padding=0)
    widget.getViewBox().updateMatrix()
    assert nodes.boundingRect() == _fresh(nodes, pg.ScatterPlotItem)


def test_a_level_line_keeps_its_bounds_while_it_only_moves_up_and_down(qtbot):
    from app.widgets.norm_parts import LevelLine

    widget = _plot(qtbot)
    widget.setRange(xRange=(-1, 16), yRange=(-3, 3), padding=0)
    line = LevelLine(angle=0, pen=pg.mkPen("k", width=1))
    widget.addItem(line)
    widget.getViewBox().updateMatrix()
    line.boundingRect()
    computed = []
    original = line._computeBoundingRect
    line._computeBoundingRect = lambda: computed.append(1) or original()
    for y in (0.5, -1.25, 2.0):
        line.setPos(y)
        assert line.boundingRect() == original(), y
    assert computed == []  # kept: the same rectangle at every height
    line.setPos(QPointF(3.0, 0.5))  # moved along itself too: its own x range shifts
    assert line.boundingRect() == original()
    widget.setRange(xRange=(-1, 40), yRange=(-8, 8), padding=0)
    widget.getViewBox().updateMatrix()
    line.setPos(1.0)
    assert line.boundingRect() == original()
    assert computed  # a new range: computed again
