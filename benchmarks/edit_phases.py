"""Where one edit's time goes, phase by phase (offscreen, the app's window at its default size).

    python benchmarks/edit_phases.py [--tokens N] [--edits K]

Each edit is ``gui_bench.py``'s edit (the text set, the worker's result accepted, every visible
panel redrawn, Qt's paint delivered), stamped on the way:

- ``set_text``: the editor's ``setText`` returns (the state tokenized it and sent the request;
  the chips are drawn);
- ``to_worker``: from the start until the worker begins ``compute``;
- ``compute``: the worker's ``compute(request)`` (the layer, the causality comparison and
  ``derive``), with ``compute_layer``, ``compute_compare`` and ``compute_derive`` inside it;
- ``hand_over``: from the worker's result to the main thread's ``_on_result_ready``;
- ``redraw``: ``_on_result_ready`` (the generation check and every panel's ``redraw``);
- ``paint``: Qt delivering the paints those redraws posted;
- ``total``: the edit.

``--tokens 0`` (the default) edits ``gui_bench.py``'s default sentence; ``--tokens 512`` its
T = 512 text. Medians and 90th percentiles in milliseconds; the last line is one JSON object.
Timings on a shared machine drift: compare runs made back to back.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("DUALVIEW_CONFIG_DIR", "/tmp/dualview-bench-config")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import gui_bench

from app.__main__ import build_app


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=0)
    parser.add_argument("--edits", type=int, default=60)
    args = parser.parse_args(argv)
    app = build_app(sys.argv[:1])
    import app.bridge as bridge
    import app.compute as compute_module
    from app.mainwindow import MainWindow

    stamps: dict[str, float] = {}

    def stamped(module: object, name: str, before: str, after: str) -> None:
        original = getattr(module, name)

        def call(*args: object, **kwargs: object) -> object:
            stamps[before] = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                stamps[after] = time.perf_counter()

        setattr(module, name, call)

    stamped(bridge, "compute", "c0", "c1")  # the worker's whole compute
    import engine

    stamped(engine, "run_layer", "l0", "l1")  # compute calls it as engine.run_layer
    stamped(compute_module, "compare_traces", "k0", "k1")
    stamped(compute_module, "derive", "d0", "d1")
    window = MainWindow(persist_layout=False, initial_text=None)
    window.show()
    app.processEvents()
    state = window.state
    on_ready = state._on_result_ready
    window.bridge.result_ready.disconnect(on_ready)

    def ready(*args: object) -> None:
        stamps["r0"] = time.perf_counter()
        on_ready(*args)
        stamps["r1"] = time.perf_counter()

    window.bridge.result_ready.connect(ready)
    texts = (gui_bench.sentences(args.tokens, args.edits + 5) if args.tokens else
             [f"我爱北京天安门 第{k}" for k in range(args.edits + 5)])
    gui_bench.edit_latency(app, window, texts[:5])
    rows = []
    for text in texts[5:]:
        stamps.clear()
        start = time.perf_counter()
        window.editor.set_text(text)
        stamps["s"] = time.perf_counter()
        gui_bench.wait_until(app, lambda text=text: state.result is not None
                             and state.result.text == text and window.all_panels_current())
        drawn = time.perf_counter()
        app.processEvents()
        end = time.perf_counter()
        rows.append({
            "set_text": stamps["s"] - start, "to_worker": stamps["c0"] - start,
            "compute": stamps["c1"] - stamps["c0"],
            "compute_layer": stamps.get("l1", 0.0) - stamps.get("l0", 0.0),
            "compute_compare": stamps.get("k1", 0.0) - stamps.get("k0", 0.0),
            "compute_derive": stamps.get("d1", 0.0) - stamps.get("d0", 0.0),
            "hand_over": stamps["r0"] - stamps["c1"], "redraw": stamps["r1"] - stamps["r0"],
            "paint": end - drawn, "total": end - start})
    figures = {"tokens": len(state.result.tokens)}
    for key in rows[0]:
        values = sorted(row[key] * 1e3 for row in rows)
        median, p90 = statistics.median(values), values[int(0.9 * (len(values) - 1))]
        figures[key] = [round(median, 2), round(p90, 2)]
        print(f"{key:16s} median {median:7.2f} ms   p90 {p90:7.2f} ms")
    window.close()
    window.bridge.shutdown()
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
