"""Keystroke -> every visible panel repainted with a Qwen3-0.6B-shaped model at T = 16, in the
app's configuration (its window, worker thread, BLAS threads), offscreen.

Opens the random-weight checkpoint ``benchmarks/model_bench.py`` writes (made here if missing,
~1.2 GB under /tmp/dualview_model_bench/, never committed) with File ▸ Open model's code, types
a 16-token text, then times edits of the last token: from setting the text until the worker's
result is accepted, every visible panel redrew it and Qt delivered the paint events. While the
worker computes, a 10 ms timer on the main thread measures how long the window went without
handling events (``max_event_gap_ms``: the window stays responsive), and a burst of three
quick edits checks that the latest edit wins (only its result is shown).

The last line is one JSON object (``keystroke_median_s_T16``, ...).
Run: ``python benchmarks/model_gui_bench.py [--edits 15]``.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
os.environ.setdefault("DUALVIEW_CONFIG_DIR", "/tmp/dualview-bench-config")

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from app.__main__ import build_app

FOLDER = Path("/tmp/dualview_model_bench") / "qwen3-0.6b-random-bf16"


def main() -> None:
    edits = int(sys.argv[sys.argv.index("--edits") + 1]) if "--edits" in sys.argv else 15
    if not (FOLDER / "model.safetensors").is_file():
        from benchmarks.model_bench import write_checkpoint
        write_checkpoint(FOLDER)
    app = build_app(sys.argv[:1])
    from PySide6.QtCore import QEventLoop, QTimer

    from app.mainwindow import MainWindow

    window = MainWindow(persist_layout=False, initial_text=None)
    window.show()
    app.processEvents()
    gaps: list[float] = []
    last = [time.perf_counter()]

    def tick() -> None:
        now = time.perf_counter()
        gaps.append(now - last[0])
        last[0] = now

    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(tick)

    def wait_until(done) -> None:
        while not done():
            app.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents)

    def shown(text: str) -> bool:
        result = window.state.result
        return (result is not None and result.text == text and result.model is not None
                and window.all_panels_current())

    t0 = time.perf_counter()
    finished: list[bool] = []
    window.models.finished.connect(finished.append)
    window.open_model(FOLDER, 0)
    base = "".join(chr(ord("a") + i % 26) for i in range(15))
    wait_until(lambda: bool(finished))
    if not finished[0]:
        raise SystemExit(window.last_message)
    window.editor.set_text(base + "A")
    wait_until(lambda: shown(base + "A"))
    open_s = time.perf_counter() - t0
    tokens = len(window.state.result.tokens)

    times = []
    computes = []  # the worker's share (Result.compute_ms); the rest is the window's
    busy_seen = 0
    timer.start()
    for k in range(edits):
        text = base + chr(ord("B") + k % 20)
        last[0] = time.perf_counter()
        start = time.perf_counter()
        window.editor.set_text(text)
        wait_until(lambda text=text: shown(text) or window.status.is_busy)
        busy_seen += window.status.is_busy
        wait_until(lambda text=text: shown(text))
        app.processEvents()  # the paint events the redraws posted
        times.append(time.perf_counter() - start)
        computes.append(window.state.result.compute_ms / 1e3)
    run = window.state.result.model_run
    # latest edit wins: three edits in a row, only the last one's result reaches the screen
    seen: list[str] = []
    window.state.result_changed.connect(lambda r: seen.append(r.text if r else ""))
    burst = [base + c for c in "xyz"]
    for text in burst:
        window.editor.set_text(text)
        app.processEvents()
    wait_until(lambda: shown(burst[-1]))
    timer.stop()
    figures = {
        "keystroke_median_s_T16": round(statistics.median(times), 3),
        "keystroke_max_s_T16": round(max(times), 3),
        "compute_median_s_T16": round(statistics.median(computes), 3),
        "tokens": tokens,
        "edits": edits,
        "open_to_first_result_s": round(open_s, 2),
        "max_event_gap_ms": round(1e3 * max(gaps), 1) if gaps else None,
        "busy_indicator_shown": busy_seen,
        "burst_results_shown": seen,
        "rows_recomputed": run.rows_recomputed,
        "rows_total": run.rows_total,
        "load_avg": os.getloadavg(),
    }
    window.close()
    window.bridge.shutdown()
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
