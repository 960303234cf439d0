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

- ``app_window``: everything the window shows painted once, in one pass (every widget and
  every visible plot's scene): the repaint an edit is compared with. The plots' paint events
  are counted (``app_window_plots_painted``), and the script stops if one was not painted;
- ``app_plots``: only every visible plot's scene (an edit changes every panel's numbers, so
  an edit repaints at least this);
- ``app_widgets``: ``QWidget.repaint()`` of the window, which paints its widgets but none of
  its plots: a QGraphicsView draws its scene in its viewport, and a repaint of the window (or
  of the view) does not repaint the viewport (Qt 6.11; counted: 0 plots painted). Until
  2026-12-02 this was reported as the window's repaint, ~3–4× too cheap.

``--app-data`` times the same window showing the next edit with nothing of the app running: a
few real edits are made first and what each left on screen is recorded (every visible plot
item's data — images, curves, scatter points, bars, lines, text items, explicit axis ticks,
view ranges — and every visible label's text); then the recorded states are put back in turn
straight through pyqtgraph's and Qt's own setters (``ImageItem.setImage``,
``PlotCurveItem.setData``, ``QLabel.setText``, …) and Qt paints. No engine, no state, no panel
logic: what the stack costs to show an edit's visible change in this window
(``app_data_median_ms``), the floor the app's edit can approach. Items the app draws itself
(token labels, arc curves painted its way) are painted by their own ``paint``, as in the app.
``--app-data --tokens 512`` records the edits of ``gui_bench.py``'s T = 512 text instead: the
floor under that figure, the same texts' edits timed in the same order (``app_data_tokens``
says the length; ``app_data_ms`` lists the timed edits, which ``gui_bench.py --stack-floor``
adds to the worker's times).

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
from collections.abc import Callable
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


def visible_plots(window: object) -> list[pg.GraphicsView]:
    """The window's plots on screen (a plot in a dock behind a tab is not painted)."""
    return [view for view in window.findChildren(pg.GraphicsView)  # type: ignore[attr-defined]
            if view.isVisible()]


def repaint_everything(app: QApplication, window: object, views: list[pg.GraphicsView]) -> None:
    """Everything the window shows painted once, in one pass, nothing recomputed: every widget
    (``window.update()``) and every visible plot's scene, which a QGraphicsView draws in its
    viewport and a window update does not reach. The repaint issue #20 compares an edit with
    (``gui_bench.py`` times it paired with its edits, this script alone with ``--app``)."""
    window.update()  # type: ignore[attr-defined]
    for view in views:
        view.viewport().update()
    app.processEvents()


def time_app_repaints(repeats: int) -> dict[str, object]:
    """The app's window at its default size, painted again with nothing changed (``--app``)."""
    config_dir = tempfile.mkdtemp(prefix="dualview-floor-")  # leave no settings behind
    os.environ.setdefault("DUALVIEW_CONFIG_DIR", config_dir)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from app.__main__ import build_app
    from app.mainwindow import MainWindow

    app = build_app(sys.argv[:1])
    painted = {"plots": 0}
    original = pg.GraphicsView.paintEvent

    def counted(view: pg.GraphicsView, event: object) -> None:
        painted["plots"] += 1
        original(view, event)

    pg.GraphicsView.paintEvent = counted  # before any view exists: PySide looks an
    # override up once per class
    window = MainWindow(persist_layout=False, initial_text=None)
    window.show()
    # gui_bench's default edits: after the second, the causality panel shows a comparison
    for text in ("我爱北京天安门 第0", "我爱北京天安门 第1"):
        window.editor.set_text(text)
        while not (window.state.result is not None and window.state.result.text == text
                   and window.all_panels_current()):
            app.processEvents()
    app.processEvents()
    views = visible_plots(window)

    def plots() -> None:
        for view in views:
            view.viewport().update()
        app.processEvents()

    def window_and_plots() -> None:
        repaint_everything(app, window, views)

    def widgets() -> None:
        window.repaint()
        app.processEvents()

    figures: dict[str, object] = {"app_visible_plots": len(views),
                                  "app_window": [window.width(), window.height()]}
    for label, paint in (("app_window", window_and_plots), ("app_plots", plots),
                         ("app_widgets", widgets)):
        times, counts = [], []
        for _ in range(WARM_UP + repeats):
            before = painted["plots"]
            start = time.perf_counter()
            paint()
            times.append((time.perf_counter() - start) * 1e3)
            counts.append(painted["plots"] - before)
        times, counts = times[WARM_UP:], counts[WARM_UP:]
        median, p95 = statistics.median(times), percentile(times, 95)
        figures[f"{label}_median_ms"], figures[f"{label}_p95_ms"] = round(median, 2), round(p95, 2)
        figures[f"{label}_plots_painted"] = min(counts)
        print(f"the app's window, {label:11s} painted again: median {median:6.2f} ms  "
              f"p95 {p95:6.2f} ms  ({min(counts)} of {len(views)} plots painted)")
        if label != "app_widgets" and min(counts) < len(views):
            raise SystemExit(f"{label}: only {min(counts)} of {len(views)} plots painted")
    pg.GraphicsView.paintEvent = original
    window.close()
    window.bridge.shutdown()
    shutil.rmtree(config_dir, ignore_errors=True)
    return figures


def _record(window: object) -> list[tuple]:
    """What the window shows now, as (setter kind, object, values) rows (``--app-data``)."""
    from PySide6.QtWidgets import QLabel

    rows: list[tuple] = []
    for view in window.findChildren(pg.GraphicsView):  # type: ignore[attr-defined]
        if not view.isVisible():
            continue
        for item in view.scene().items():
            if not item.isVisible():
                continue
            if isinstance(item, pg.ImageItem) and item.image is not None:
                rows.append(("image", item, item.image.copy(), item.levels))
            elif isinstance(item, pg.PlotCurveItem) and item.xData is not None:
                rows.append(("curve", item, item.xData.copy(), item.yData.copy()))
            elif isinstance(item, pg.ScatterPlotItem):
                d = item.data
                rows.append(("scatter", item, d["x"].copy(), d["y"].copy(), list(d["brush"]),
                             list(d["pen"]), d["size"].copy()))
            elif isinstance(item, pg.BarGraphItem):
                o = item.opts
                rows.append(("bars", item, o["x"], o["height"], o["width"]))
            elif isinstance(item, pg.InfiniteLine):
                rows.append(("line", item, item.value()))
            elif isinstance(item, pg.TextItem):
                rows.append(("text", item, item.toPlainText()))
            elif isinstance(item, pg.AxisItem) and item._tickLevels is not None:
                rows.append(("ticks", item, item._tickLevels))
            elif isinstance(item, pg.ViewBox):
                rows.append(("range", item, item.viewRange()))
    for label in window.findChildren(QLabel):  # type: ignore[attr-defined]
        if label.isVisible():
            rows.append(("label", label, label.text()))
    return rows


def _same(row: tuple, before: tuple) -> bool:
    """Whether two recordings of one object hold the same values."""
    if len(row) != len(before) or row[1] is not before[1]:
        raise RuntimeError("the window changed its items between edits: record again")
    for a, b in zip(row[2:], before[2:], strict=True):
        if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
            if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)
                    and a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")):
                return False
        elif a != b:
            return False
    return True


def _apply(rows: list[tuple]) -> None:
    """Put a recorded state back through pyqtgraph's and Qt's own setters (the base classes'
    methods, so no override of the app runs)."""
    from PySide6.QtWidgets import QLabel

    for kind, obj, *values in rows:
        if kind == "image":
            pg.ImageItem.setImage(obj, values[0], autoLevels=False, levels=values[1])
        elif kind == "curve":
            pg.PlotCurveItem.setData(obj, x=values[0], y=values[1])
        elif kind == "scatter":
            pg.ScatterPlotItem.setData(obj, x=values[0], y=values[1], brush=values[2],
                                       pen=values[3], size=values[4])
        elif kind == "bars":
            pg.BarGraphItem.setOpts(obj, x=values[0], height=values[1], width=values[2])
        elif kind == "line":
            pg.InfiniteLine.setValue(obj, values[0])
        elif kind == "text":
            pg.TextItem.setText(obj, values[0])
        elif kind == "ticks":
            pg.AxisItem.setTicks(obj, values[0])
        elif kind == "range":
            pg.ViewBox.setRange(obj, xRange=values[0][0], yRange=values[0][1], padding=0)
        elif kind == "label":
            QLabel.setText(obj, values[0])


def time_in_order(changes: list, repeats: int, apply: Callable[[list], None],
                  settle: Callable[[], None]) -> list[float]:
    """``repeats`` timed edits (ms), after ``WARM_UP`` untimed ones: ``apply(changes[k])`` and
    ``settle()`` (Qt delivers what they posted) for k = 1, 2, ... in order, round after round.

    ``changes[k]`` leads from recorded state k - 1 to state k, and ``changes[0]`` from the last
    state back to the first: an edit the app never makes (at T = 512 a label one digit
    shorter, which re-lays out the axes). It is made between rounds, untimed, so the floor
    times the app's own edits and no other."""
    times: list[float] = []
    while len(times) < WARM_UP + repeats:
        apply(changes[0])
        settle()
        for rows in changes[1:]:
            start = time.perf_counter()
            apply(rows)
            settle()
            times.append((time.perf_counter() - start) * 1e3)
    return times[WARM_UP:WARM_UP + repeats]


def time_app_data(repeats: int, states: int = 12, tokens: int = 0) -> dict[str, object]:
    """The app's window shown recorded edits through the stack alone (``--app-data``).

    ``tokens``: ``gui_bench.py``'s edits of a text of that many tokens, the same texts it
    times in the same order; 0: ``states`` edits of its default sentence."""
    config_dir = tempfile.mkdtemp(prefix="dualview-floor-")
    os.environ.setdefault("DUALVIEW_CONFIG_DIR", config_dir)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from app.__main__ import build_app
    from app.mainwindow import MainWindow

    app = build_app(sys.argv[:1])
    window = MainWindow(persist_layout=False, initial_text=None)
    window.show()
    recorded = []
    # gui_bench's edits (the last token changes), each recorded once shown; at T = 512 the
    # very texts of its timed edits, and the one shown before the first of them
    if tokens:
        from gui_bench import LONG_EDITS, PASTE, sentences

        texts, first = sentences(tokens, LONG_EDITS + PASTE), PASTE - 1
    else:
        texts, first = [f"我爱北京天安门 第{k}" for k in range(states + 2)], 2
    for k, text in enumerate(texts):
        window.editor.set_text(text)
        while not (window.state.result is not None and window.state.result.text == text
                   and window.all_panels_current()):
            app.processEvents()
        app.processEvents()
        if k >= first:  # (after the first comparison: the causality panel shows its views)
            recorded.append(_record(window))
    recorded_tokens = window.state.result.tokens
    # each state's setters that change something from the state before it: the app too sets
    # only what differs, and pyqtgraph redoes work for an equal value
    changes = [[row for row, before in zip(rows, recorded[k - 1], strict=True)
                if not _same(row, before)] for k, rows in enumerate(recorded)]
    times = time_in_order(changes, repeats, _apply, app.processEvents)
    median, p95 = statistics.median(times), percentile(times, 95)
    setters = statistics.median(len(rows) for rows in changes[1:])
    print(f"the app's window shown recorded edits (T = {len(recorded_tokens)}) "
          f"through the stack alone: median {median:6.2f} ms  p95 {p95:6.2f} ms ({setters:g} "
          f"setters an edit)")
    window.close()
    window.bridge.shutdown()
    shutil.rmtree(config_dir, ignore_errors=True)
    return {"app_data_median_ms": round(median, 2), "app_data_p95_ms": round(p95, 2),
            "app_data_setters": setters, "app_data_tokens": len(recorded_tokens),
            "app_data_ms": [round(t, 3) for t in times]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plots", type=int, default=8)
    parser.add_argument("--size", default="1600x1000", help="window size, WxH")
    parser.add_argument("--app", action="store_true",
                        help="time the app's own window painted again (no compute, no redraw)")
    parser.add_argument("--repeats", type=int, default=EDITS,
                        help="timed repaints or edits per figure (tests use a few)")
    parser.add_argument("--app-data", action="store_true",
                        help="time the app's window shown the next edit's recorded plot data "
                             "and label texts through pyqtgraph and Qt alone")
    parser.add_argument("--tokens", type=int, default=0,
                        help="with --app-data: edits of gui_bench.py's text of this many "
                             "tokens (its T = 512 figure's floor) instead of its default one")
    args = parser.parse_args(argv)
    if args.app:
        print(json.dumps(time_app_repaints(args.repeats)))
        return 0
    if args.app_data:
        print(json.dumps(time_app_data(args.repeats, tokens=args.tokens)))
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
