"""Edit -> every visible panel repainted, and the depth-time animation's frame rate (offscreen).

Prints median and p95 edit latency at the default size (the toy layer, an example sentence),
at T = 256 and T = 512, and the animation's frames per second with every default dock visible.
The last line is one JSON object. Run: ``python benchmarks/gui_bench.py``.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
os.environ.setdefault("DUALVIEW_CONFIG_DIR", "/tmp/dualview-bench-config")

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from app.__main__ import build_app


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def edit_latency(app, window, texts: list[str]) -> list[float]:
    """One edit: set the text, wait until the worker's result is accepted and every visible
    panel redrew it, then let Qt paint what changed (the paint events the redraws posted)."""
    times = []
    for text in texts:
        t0 = time.perf_counter()
        window.editor.set_text(text)
        while not (window.state.result is not None and window.state.result.text == text
                   and window.all_panels_current()):
            app.processEvents()
        app.processEvents()  # deliver the UpdateRequest: the changed widgets paint here
        times.append((time.perf_counter() - t0) * 1e3)
    return times


def sentences(n_tokens: int, count: int) -> list[str]:
    """``count`` texts of ``n_tokens`` tokens whose last token differs (the classroom edit)."""
    base = " ".join(f"w{i % 97}" for i in range(n_tokens - 1))
    return [f"{base} last{k}" for k in range(count)]


def main() -> None:
    app = build_app(sys.argv[:1])
    from app.mainwindow import MainWindow

    window = MainWindow(persist_layout=False, initial_text=None)
    window.show()
    app.processEvents()
    figures: dict[str, float] = {}

    default_texts = [f"我爱北京天安门 第{k}" for k in range(60)]
    edit_latency(app, window, default_texts[:5])  # warm up
    for label, texts in (("default", default_texts), ("T256", sentences(256, 30)),
                         ("T512", sentences(512, 30))):
        times = edit_latency(app, window, texts)
        figures[f"edit_median_ms_{label}"] = round(statistics.median(times), 2)
        figures[f"edit_p95_ms_{label}"] = round(percentile(times, 95), 2)
        print(f"edit -> repaint {label:8s} T={len(window.state.result.tokens):4d}: "
              f"median {statistics.median(times):7.2f} ms  p95 {percentile(times, 95):7.2f} ms")

    # animation: every default dock visible, t advancing as the play timer would
    window.editor.set_text(default_texts[0])
    while not (window.state.result and window.state.result.text == default_texts[0]
               and window.all_panels_current()):
        app.processEvents()
    frames = 300
    t0 = time.perf_counter()
    for k in range(frames):
        window.state.set_depth_t((k % 200) / 200)
        app.processEvents()
    elapsed = time.perf_counter() - t0
    figures["anim_fps"] = round(frames / elapsed, 1)
    print(f"depth-time animation: {frames / elapsed:.1f} fps over {frames} frames")

    window.close()
    window.bridge.shutdown()
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
