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
``edit_p95_ms_default``.

``--app`` times the app's own window instead (default size, after an edit of ``gui_bench.py``'s
default text, so the causality panel shows its comparison), with nothing recomputed and
nothing redrawn, only painted again:

- ``app_plots``: every visible plot repaints what it shows (an edit changes every panel's
  numbers, so an edit repaints at least this);
- ``app_window``: the whole window repaints (``QWidget.repaint``).

The last line printed is one JSON object (milliseconds).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

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


def time_app_repaints(repeats: int) -> dict[str, object]:
    """The app's window at its default size, painted again with nothing changed (``--app``)."""
    config_dir = tempfile.mkdtemp(prefix="dualview-floor-")  # leave no settings behind
    os.environ.setdefault("DUALVIEW_CONFIG_DIR", config_dir)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from app.__main__ import build_app
    from app.mainwindow import MainWindow

    app = build_app(sys.argv[:1])
    window = MainWindow(persist_layout=False, initial_text=None)
    window.show()
    # gui_bench's default edits: after the second, the causality panel shows a comparison
    for text in ("我爱北京天安门 第0", "我爱北京天安门 第1"):
        window.editor.set_text(text)
        while not (window.state.result is not None and window.state.result.text == text
                   and window.all_panels_current()):
            app.processEvents()
    app.processEvents()
    views = [view for view in window.findChildren(pg.GraphicsView) if view.isVisible()]

    def plots() -> None:
        for view in views:
            view.viewport().update()
        app.processEvents()

    figures: dict[str, object] = {"app_visible_plots": len(views),
                                  "app_window": [window.width(), window.height()]}
    for label, paint in (("app_plots", plots), ("app_window", window.repaint)):
        times = []
        for _ in range(WARM_UP + repeats):
            start = time.perf_counter()
            paint()
            times.append((time.perf_counter() - start) * 1e3)
        times = times[WARM_UP:]
        median, p95 = statistics.median(times), percentile(times, 95)
        figures[f"{label}_median_ms"], figures[f"{label}_p95_ms"] = round(median, 2), round(p95, 2)
        print(f"the app's window, {label:10s} painted again: median {median:6.2f} ms  "
              f"p95 {p95:6.2f} ms")
    window.close()
    window.bridge.shutdown()
    shutil.rmtree(config_dir, ignore_errors=True)
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plots", type=int, default=8)
    parser.add_argument("--size", default="1600x1000", help="window size, WxH")
    parser.add_argument("--app", action="store_true",
                        help="time the app's own window painted again (no compute, no redraw)")
    args = parser.parse_args(argv)
    if args.app:
        print(json.dumps(time_app_repaints(EDITS)))
        return 0
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
