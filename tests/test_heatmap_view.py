"""HeatmapView relabels an axis only when the ticks it shows change."""

import numpy as np

from app.widgets.heatmap import MAX_TICKS, HeatmapView


def test_axes_keep_their_ticks_when_only_an_unshown_label_changes(qtbot, monkeypatch):
    view = HeatmapView()
    qtbot.addWidget(view)
    calls = []
    left = view.plot.getAxis("left")
    original = left.setTicks
    monkeypatch.setattr(left, "setTicks", lambda ticks: (calls.append(ticks), original(ticks)))
    n = 4 * MAX_TICKS  # a stride of 4: the last row (the classroom edit) has no tick
    labels = [f"{i} w{i}" for i in range(n)]
    data = np.zeros((n, 3))
    view.set_matrix(data, (-1.0, 1.0), "CET-D1", labels)
    assert len(calls) == 1
    view.set_matrix(data, (-1.0, 1.0), "CET-D1", [*labels[:-1], f"{n - 1} edited"])
    assert len(calls) == 1  # the axis picture is not regenerated for nothing
    assert view.row_labels[-1] == f"{n - 1} edited"  # hover still reads the new label
    view.set_matrix(data, (-1.0, 1.0), "CET-D1", ["0 first", *labels[1:]])
    assert len(calls) == 2 and calls[-1][0][0] == (0.5, "0 first")
