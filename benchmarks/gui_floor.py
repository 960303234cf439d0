"""The floor under ``gui_bench.py``'s edit latency: bare pyqtgraph plots, nothing of the app.

    python benchmarks/gui_floor.py [--plots N] [--size WxH]

A main window of the app's default size (1600 x 1000) holds N docked ``pg.PlotWidget`` s
(default 8: the plots the app's default layout shows), each one ``ImageItem`` of the default
input's shape (10 tokens x 16 features) with the tokens as row labels. One "edit" gives every
plot new numbers and lets Qt paint once, as the app's edit does; it is timed in two ways:

- ``images``: only the images change;
- ``images_and_label``: the last row label changes too (the classroom edit of the last token),
  so every left axis lays its labels out again.

No engine, no worker thread, no panel logic: what the plotting library and Qt's raster engine
cost on this machine for this much window. Compare with ``gui_bench.py``'s
``edit_p95_ms_default``. The last line printed is one JSON object (milliseconds).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QDockWidget, QMainWindow

TOKENS, FEATURES = 10, 16
EDITS, WARM_UP = 120, 10


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def build(app: QApplication, plots: int, size: tuple[int, int]
          ) -> tuple[QMainWindow, list[tuple[pg.ImageItem, pg.AxisItem]]]:
    window = QMainWindow()
    window.resize(*size)
    areas = (Qt.DockWidgetArea.LeftDockWidgetArea, Qt.DockWidgetArea.RightDockWidgetArea)
    items = []
    for i in range(plots):
        dock = QDockWidget(f"plot {i}", window)
        dock.setObjectName(f"plot{i}")
        widget = pg.PlotWidget()
        image = pg.ImageItem(np.zeros((TOKENS, FEATURES)))
        widget.addItem(image)
        dock.setWidget(widget)
        window.addDockWidget(areas[i % 2], dock)
        items.append((image, widget.getAxis("left")))
    window.show()
    app.processEvents()
    return window, items


def time_edits(app: QApplication, items: list[tuple[pg.ImageItem, pg.AxisItem]],
               change_label: bool) -> list[float]:
    rng = np.random.default_rng(0)
    labels = [f"token{k}" for k in range(TOKENS)]
    times = []
    for edit in range(WARM_UP + EDITS):
        data = rng.standard_normal((len(items), TOKENS, FEATURES))
        if change_label:
            labels[-1] = f"last{edit}"
        ticks = [[(k + 0.5, label) for k, label in enumerate(labels)]]
        start = time.perf_counter()
        for (image, axis), numbers in zip(items, data, strict=True):
            image.setImage(numbers.T, levels=(-3, 3))  # pyqtgraph's default: [x, y]
            if change_label or edit == 0:
                axis.setTicks(ticks)
        app.processEvents()  # Qt paints what changed
        times.append((time.perf_counter() - start) * 1e3)
    return times[WARM_UP:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plots", type=int, default=8)
    parser.add_argument("--size", default="1600x1000", help="window size, WxH")
    args = parser.parse_args(argv)
    size = tuple(int(v) for v in args.size.lower().split("x"))
    app = QApplication(sys.argv[:1])
    window, items = build(app, args.plots, size)
    figures: dict[str, object] = {"plots": args.plots, "window": list(size)}
    for label, change in (("images", False), ("images_and_label", True)):
        times = time_edits(app, items, change)
        median, p95 = statistics.median(times), percentile(times, 95)
        figures[f"{label}_median_ms"] = round(median, 2)
        figures[f"{label}_p95_ms"] = round(p95, 2)
        print(f"{args.plots} bare plots, {label:17s}: median {median:6.2f} ms  p95 {p95:6.2f} ms")
    window.close()
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
