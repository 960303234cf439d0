"""Edit -> every visible panel repainted, and the depth-time animation's frame rate (offscreen).

Prints median and p95 edit latency at the default size (the toy layer, an example sentence),
at T = 256 and T = 512 (each after the paste that brings the text to that length, reported
apart), and the animation's frames per second with every default dock visible.
The last line is one JSON object. Run: ``python benchmarks/gui_bench.py``.

One edit is timed from setting the text until the worker's result is accepted, every visible
panel redrew it, and Qt delivered the paint events those redraws posted. While the worker
computes, the main thread waits for events the way the running app does (blocked in the event
loop); ``--spin`` polls ``processEvents`` instead, for comparison — the busy main thread then
competes with the worker for the GIL and a core, which slows the compute itself.

``edit_lone_ms_*`` and ``edit_after_pause_ms_*``: typing resumed after a pause (a teacher
typing slowly). The edit that ends the pause is timed (``edit_lone``): its convergence sweep
starts once the window has painted it — started at once, the sweep held the interpreter while
the main thread painted, ~3x slower. The next keystroke follows 50 ms later and is timed too
(``edit_after_pause``): it cancels the sweep rather than wait for it to finish (0.1 s at the
default size, seconds at T = 200).

The last figures are the window repainted with nothing recomputed (``gui_floor.py --app``, run
right after in a process of its own: every widget and every visible plot painted once, the
plots counted) and ``edit_over_repaint``, the default edit's median over it (``--no-floor``
skips them). ``floor_app_widgets_median_ms`` is ``QWidget.repaint()`` of the window, which
paints none of the plots (reported for comparison with figures taken before 2026-12-02, when
it stood for the window's repaint).

``--stack-floor`` also runs ``gui_floor.py --app-data`` (the same window shown recorded edits
through pyqtgraph and Qt alone, nothing of the app running) and prints ``edit_over_stack``,
the default edit's median over it.

At T = 512 it also prints what the machine did while those edits ran: their CPU time
(``edit_cpu_median_ms_T512``, ``edit_cpu_p95_ms_T512``: both threads, which take turns, so
it is the edit's own work) and the CPU time the hypervisor took from this virtual machine
meanwhile (``stolen_ms_T512``, ``stolen_share_T512`` of the CPUs' time; Linux's ``steal``).
A stolen slice stalls the edit it falls in by up to tens of milliseconds without being the
app's work; where the CPU time's p95 follows the wall time's, the app's own work itself ran
slower (a busy host's shared caches and memory), not the hypervisor.

With ``--stack-floor`` it also runs ``gui_floor.py --app-data --tokens 512``, the floor under
the T = 512 figure, and prints the T = 512 edit's p95 over that floor's p95
(``edit_p95_over_stack_p95_T512``). It adds each T = 512 edit's time in the worker
(``worker_median_ms_T512``, ``worker_p95_ms_T512``: the exact layer, the comparison and the
derived figures, which an edit must wait for before it can draw) to that floor's edits, pair by
pair: ``worker_plus_stack_p95_ms_T512`` is the least p95 an edit that computes exactly and
draws through pyqtgraph could have on this machine.

``--breakdown`` adds, per size, each panel's median redraw time and each plot's median paint
time per edit (``redraw_ms_<size>``, ``paint_ms_<size>``) to the JSON.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from collections import defaultdict

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
os.environ.setdefault("DUALVIEW_CONFIG_DIR", "/tmp/dualview-bench-config")

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from app.__main__ import build_app

SPIN = "--spin" in sys.argv
#: At T = 256 and 512 the first two texts are not timed with the edits: the first replaces a
#: text of another length (a paste: every panel re-lays out, nothing can be reused) and the
#: second is the first edit of the new text. They are reported apart (``paste_ms_*``), as the
#: default size's warm-up edits are not reported at all.
PASTE = 2
#: Timed edits at T = 256 and 512 (``gui_floor.py --app-data --tokens`` times the same ones)
LONG_EDITS = 30
BREAKDOWN = "--breakdown" in sys.argv
#: Only the intervention toggle (``toggle_median_ms``, ``toggle_p95_ms``), nothing else.
TOGGLE_ONLY = "--toggle-only" in sys.argv
#: The depth panel's convergence plot: it shows the sweep (run after a pause in typing), not
#: an edit, so an edit need not repaint it
SWEEP_PLOT = "depthConvPlot"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


class Breakdown:
    """Per-edit time of each panel's redraw and each plot's paint (``--breakdown``)."""

    def __init__(self) -> None:
        self.current: dict[str, float] = defaultdict(float)
        self.edits: list[dict[str, float]] = []

    def wrap_paints(self) -> None:
        """Before any plot exists (PySide looks a Python override up once per class)."""
        import pyqtgraph as pg

        original = pg.GraphicsView.paintEvent
        current = self.current

        def paint_event(view: pg.GraphicsView, event: object) -> None:
            start = time.perf_counter()
            try:
                original(view, event)
            finally:
                current["paint " + _dock_of(view)] += (time.perf_counter() - start) * 1e3

        pg.GraphicsView.paintEvent = paint_event

    def wrap_redraws(self, window: object) -> None:
        for name, panel in window.panels.items():  # type: ignore[attr-defined]
            original = panel.redraw

            def redraw(result: object, _original=original, _name=name) -> None:
                start = time.perf_counter()
                try:
                    _original(result)
                finally:
                    self.current["redraw " + _name] += (time.perf_counter() - start) * 1e3

            panel.redraw = redraw

    def next_edit(self) -> None:
        self.edits.append(dict(self.current))
        self.current.clear()

    def medians(self, kind: str) -> dict[str, float]:
        keys = sorted({k for edit in self.edits for k in edit if k.startswith(kind + " ")})
        return {k.split(" ", 1)[1]: round(statistics.median(e.get(k, 0.0) for e in self.edits),
                                          2) for k in keys}


def _dock_of(widget: object) -> str:
    names = []
    while widget is not None:
        name = widget.objectName()  # type: ignore[attr-defined]
        if name.endswith("Dock"):
            return name + ("/" + names[0] if names else "")
        if name:
            names.append(name)
        widget = widget.parent()  # type: ignore[attr-defined]
    return "?"


def wait_until(app, done) -> None:
    from PySide6.QtCore import QEventLoop

    while not done():
        if SPIN:
            app.processEvents()
        else:  # blocked until an event arrives (the worker's result), as in app.exec()
            app.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents)


def edit_latency(app, window, texts: list[str], breakdown: Breakdown | None = None,
                 cpu: list[float] | None = None,
                 worker: list[float] | None = None) -> list[float]:
    """One edit: set the text, wait until the worker's result is accepted and every visible
    panel redrew it, then let Qt paint what changed (the paint events the redraws posted).

    ``cpu``: each edit's CPU time (ms, every thread of the process: the main thread's and the
    worker's, which take turns) is appended to it. ``worker``: each edit's time in the worker
    (``Result.compute_ms``: the layer, the comparison and what is derived from them)."""
    times = []
    for text in texts:
        c0, t0 = time.process_time(), time.perf_counter()
        window.editor.set_text(text)
        wait_until(app, lambda text=text: window.state.result is not None
                   and window.state.result.text == text and window.all_panels_current())
        app.processEvents()  # deliver the UpdateRequest: the changed widgets paint here
        times.append((time.perf_counter() - t0) * 1e3)
        if cpu is not None:
            cpu.append((time.process_time() - c0) * 1e3)
        if worker is not None:
            worker.append(window.state.result.compute_ms)
        if breakdown is not None:
            breakdown.next_edit()
    return times


def stolen_ms(stat: str = "/proc/stat") -> float | None:
    """CPU time the hypervisor has taken from this virtual machine since boot, summed over its
    CPUs (ms; the ``steal`` column of ``/proc/stat``), or None where there is no such file.
    A virtual CPU that is not running stalls whatever thread it was running, so an edit timed
    across a steal is slower by it while using no more CPU time of its own."""
    try:
        with open(stat, encoding="ascii") as f:
            fields = f.readline().split()
    except OSError:
        return None
    if len(fields) < 9 or fields[0] != "cpu":
        return None
    return int(fields[8]) * 1e3 / os.sysconf("SC_CLK_TCK")


def toggle_latency(app, window, count: int = 40) -> list[float]:
    """Issue 23: one intervention toggle (a head switched off, or back on, in turn over the
    heads) until its result is accepted, every visible panel redrew it and Qt painted it,
    timed as an edit is. Each toggle also runs the plain layer for the causality comparison."""
    state = window.state
    heads = state.config.num_attention_heads
    times = []
    for k in range(count):
        head = (k // 2) % heads
        t0 = time.perf_counter()
        state.toggle_head(head)
        want = state.intervention
        wait_until(app, lambda want=want: state.result is not None
                   and state.results.is_current(state.result.request_id)
                   and state.result.trace.intervention == want and window.all_panels_current())
        app.processEvents()
        times.append((time.perf_counter() - t0) * 1e3)
    return times


def edit_after_pause(app, window, texts: list[str]) -> tuple[list[float], list[float]]:
    """Pairs of edits: the first after a 0.6 s pause (its sweep starts once it is painted), the
    second 50 ms after the first was painted. Both are timed: (firsts, seconds)."""
    firsts, seconds = [], []
    for first, second in zip(texts[0::2], texts[1::2], strict=False):
        settle = time.perf_counter() + 0.6
        while time.perf_counter() < settle:
            app.processEvents()
            time.sleep(0.01)
        firsts += edit_latency(app, window, [first])
        resume = time.perf_counter() + 0.05
        while time.perf_counter() < resume:
            app.processEvents()
            time.sleep(0.005)
        seconds += edit_latency(app, window, [second])
    return firsts, seconds


def paired_edits_and_repaints(app, window, texts: list[str]
                              ) -> tuple[list[float], list[float], dict[str, int]]:
    """Issue #20's ratio with both sides timed under the same conditions: each edit is followed
    at once by a repaint of everything the window shows with nothing recomputed (the repaint
    of ``gui_floor.py --app``), in this process, so a machine that slows down for a while
    slows both. The first three texts are not timed: the third edit and a repaint after it
    count the plots each side paints (an event filter on every visible plot's viewport,
    removed before the timed pairs).

    Returns (edit times, repaint times, counts): ``plots`` on screen, ``painted_by_repaint``,
    ``edit_plots`` (those an edit changes: all but the depth panel's convergence plot, which
    shows the sweep run after a pause in typing, when it is on screen) and
    ``painted_by_edit`` (of those)."""
    from gui_floor import repaint_everything, visible_plots
    from PySide6.QtCore import QEvent, QObject

    class PaintCounter(QObject):
        def __init__(self) -> None:
            super().__init__()
            self.painted: set[int] = set()

        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.Paint:
                self.painted.add(id(watched))
            return False

    # two edits first: the second keeps all but the last token, so the causality panel shows
    # its comparison plots, as in every timed edit
    edit_latency(app, window, texts[:2])
    views = visible_plots(window)
    changing = {id(view.viewport()) for view in views if view.objectName() != SWEEP_PLOT}
    counter = PaintCounter()
    for view in views:
        view.viewport().installEventFilter(counter)
    edit_latency(app, window, texts[2:3])
    by_edit = len(counter.painted & changing)
    counter.painted.clear()
    repaint_everything(app, window, views)
    by_repaint = len(counter.painted)
    for view in views:
        view.viewport().removeEventFilter(counter)
    edits, repaints = [], []
    for text in texts[3:]:
        edits += edit_latency(app, window, [text])
        start = time.perf_counter()
        repaint_everything(app, window, views)
        repaints.append((time.perf_counter() - start) * 1e3)
    if visible_plots(window) != views:
        raise SystemExit("paired: the visible plots changed during the timed pairs")
    return edits, repaints, {"plots": len(views), "painted_by_repaint": by_repaint,
                             "edit_plots": len(changing), "painted_by_edit": by_edit}


def repaint_times(app, window, count: int) -> list[float]:
    """``count`` repaints of everything the window shows, nothing recomputed (ms)."""
    from gui_floor import repaint_everything, visible_plots

    views, times = visible_plots(window), []
    for _ in range(count):
        start = time.perf_counter()
        repaint_everything(app, window, views)
        times.append((time.perf_counter() - start) * 1e3)
    return times


def sentences(n_tokens: int, count: int) -> list[str]:
    """``count`` texts of ``n_tokens`` tokens whose last token differs (the classroom edit)."""
    base = " ".join(f"w{i % 97}" for i in range(n_tokens - 1))
    return [f"{base} last{k}" for k in range(count)]


def main() -> None:
    app = build_app(sys.argv[:1])
    breakdown = Breakdown() if BREAKDOWN else None
    if breakdown is not None:
        breakdown.wrap_paints()
    from app.mainwindow import MainWindow

    window = MainWindow(persist_layout=False, initial_text=None)
    window.show()
    app.processEvents()
    if breakdown is not None:
        breakdown.wrap_redraws(window)
    figures: dict[str, object] = {}
    t512_worker: list[float] = []  # each T = 512 edit's time in the worker

    default_texts = [f"我爱北京天安门 第{k}" for k in range(60)]
    edit_latency(app, window, default_texts[:5])  # warm up
    toggles = toggle_latency(app, window)
    figures["toggle_median_ms"] = round(statistics.median(toggles), 2)
    figures["toggle_p95_ms"] = round(percentile(toggles, 95), 2)
    print(f"intervention toggle (default size): median {statistics.median(toggles):7.2f} ms  "
          f"p95 {percentile(toggles, 95):7.2f} ms")
    window.state.clear_intervention()
    if not TOGGLE_ONLY and "--no-floor" not in sys.argv:
        figures.update(paired_ratio(app, window))
    if TOGGLE_ONLY:
        edits = edit_latency(app, window, default_texts[5:45])
        figures["edit_median_ms_default"] = round(statistics.median(edits), 2)
        figures["edit_p95_ms_default"] = round(percentile(edits, 95), 2)
        print(f"edit (default size), same run: median {statistics.median(edits):7.2f} ms  "
              f"p95 {percentile(edits, 95):7.2f} ms")
        print(json.dumps(figures, ensure_ascii=False))
        return
    for label, texts in (("default", default_texts),
                         ("T256", sentences(256, LONG_EDITS + PASTE)),
                         ("T512", sentences(512, LONG_EDITS + PASTE))):
        if label != "default":  # the default size was warmed up above
            pasted = edit_latency(app, window, texts[:PASTE])
            texts = texts[PASTE:]
            figures[f"paste_ms_{label}"] = [round(t, 1) for t in pasted]
            print(f"paste of {label:8s} (the text changes length), then one edit: "
                  + ", ".join(f"{t:.0f} ms" for t in pasted))
        if breakdown is not None:
            breakdown.edits.clear()
            breakdown.current.clear()
        cpu: list[float] = []
        worker: list[float] = []
        stolen_before = stolen_ms()
        times = edit_latency(app, window, texts, breakdown, cpu, worker)
        stolen_after = stolen_ms()
        figures[f"edit_median_ms_{label}"] = round(statistics.median(times), 2)
        figures[f"edit_p95_ms_{label}"] = round(percentile(times, 95), 2)
        print(f"edit -> repaint {label:8s} T={len(window.state.result.tokens):4d}: "
              f"median {statistics.median(times):7.2f} ms  p95 {percentile(times, 95):7.2f} ms")
        if label == "T512":
            # what the machine did meanwhile: the edits' own CPU time, and the time the
            # hypervisor took from the virtual machine while they ran
            figures["edit_cpu_median_ms_T512"] = round(statistics.median(cpu), 2)
            figures["edit_cpu_p95_ms_T512"] = round(percentile(cpu, 95), 2)
            figures["worker_median_ms_T512"] = round(statistics.median(worker), 2)
            figures["worker_p95_ms_T512"] = round(percentile(worker, 95), 2)
            t512_worker = worker
            print(f"  the same edits in the worker (layer, comparison, derived figures): median "
                  f"{statistics.median(worker):.2f} ms  p95 {percentile(worker, 95):.2f} ms")
            line = (f"  the same edits' CPU time (both threads): median "
                    f"{statistics.median(cpu):.2f} ms  p95 {percentile(cpu, 95):.2f} ms")
            if stolen_before is not None and stolen_after is not None:
                stolen = stolen_after - stolen_before
                capacity = sum(times) * (os.cpu_count() or 1)  # the CPUs' time meanwhile
                figures["stolen_ms_T512"] = round(stolen, 1)
                figures["stolen_share_T512"] = round(stolen / capacity, 3)
                line += (f"; stolen by the hypervisor meanwhile: {stolen:.0f} ms of "
                         f"{capacity:.0f} ms CPU ({100 * stolen / capacity:.0f} %)")
            print(line)
        if label == "T512" and "--no-floor" not in sys.argv:
            # the floor at this size, in this process, right after the edits: the window
            # repainted with nothing recomputed, so a slow machine shows as a slow floor
            repaint = statistics.median(repaint_times(app, window, 20))
            figures["repaint_median_ms_T512"] = round(repaint, 2)
            print(f"  window repainted at T=512, nothing recomputed: median {repaint:.2f} ms; "
                  f"edit p95 / that = {percentile(times, 95) / repaint:.2f}")
        if breakdown is not None:
            redraw, paint = breakdown.medians("redraw"), breakdown.medians("paint")
            figures[f"redraw_ms_{label}"], figures[f"paint_ms_{label}"] = redraw, paint
            print("  redraw (median ms per edit):", redraw)
            print("  paint  (median ms per edit):", paint)

    for label, texts in (("default", [f"我爱北京天安门 停{k}" for k in range(10)]),
                         ("T200", sentences(200, 10))):
        firsts, times = edit_after_pause(app, window, texts)
        figures[f"edit_lone_ms_{label}"] = round(statistics.median(firsts), 2)
        figures[f"edit_after_pause_ms_{label}"] = round(statistics.median(times), 2)
        print(f"lone edit after a pause  {label:8s}: median {statistics.median(firsts):7.2f} ms "
              f"(max {max(firsts):.0f} ms)")
        print(f"next edit 50 ms later    {label:8s}: median {statistics.median(times):7.2f} ms "
              f"(max {max(times):.0f} ms)")

    # animation: every default dock visible, t advancing as the play timer would
    window.editor.set_text(default_texts[0])
    wait_until(app, lambda: window.state.result is not None
               and window.state.result.text == default_texts[0]
               and window.all_panels_current())
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
    if "--no-floor" not in sys.argv:
        figures.update(floor_ratio(figures["edit_median_ms_default"],
                                   figures.get("edit_p95_ms_T512"), t512_worker))
    print(json.dumps(figures, ensure_ascii=False))


def paired_ratio(app, window) -> dict[str, float]:
    """``edit_over_repaint_paired``: the default edit's median over the repaint's median, the
    two timed in turn, edit by edit (``paired_edits_and_repaints``)."""
    texts = [f"我爱北京天安门 第{k}" for k in range(100, 143)]
    edits, repaints, counts = paired_edits_and_repaints(app, window, texts)
    plots, edit_plots = counts["plots"], counts["edit_plots"]
    if counts["painted_by_repaint"] < plots or counts["painted_by_edit"] < edit_plots:
        raise SystemExit(f"paired: the repaint painted {counts['painted_by_repaint']} of "
                         f"{plots} visible plots, the edit {counts['painted_by_edit']} of the "
                         f"{edit_plots} it changes")
    edit, repaint = statistics.median(edits), statistics.median(repaints)
    print(f"paired, edit then repaint ({len(edits)} pairs; the repaint painted all {plots} plots,"
          f" the edit all {edit_plots} it changes): edit median {edit:.2f} ms, repaint median "
          f"{repaint:.2f} ms; edit / repaint = {edit / repaint:.2f}")
    return {"edit_paired_median_ms": round(edit, 2), "repaint_paired_median_ms": round(repaint, 2),
            "edit_over_repaint_paired": round(edit / repaint, 2)}


#: gui_floor.py, run in a process of its own for each floor
FLOOR_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gui_floor.py")


def floor_figures(*args: str) -> dict:
    """``gui_floor.py *args`` run in a process of its own: the JSON of its last line."""
    proc = subprocess.run([sys.executable, FLOOR_SCRIPT, *args], capture_output=True, text=True,
                          check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def floor_ratio(edit_median_ms: float, t512_p95_ms: float | None = None,
                t512_worker_ms: list[float] | None = None) -> dict[str, float]:
    """The window repainted with nothing recomputed (``gui_floor.py --app``), run right after
    the edits in a process of its own, and the default edit's median over it: on a shared
    machine the absolute times drift, their ratio much less. With ``--stack-floor``, also the
    stack floors at the default size and (given ``t512_p95_ms``) at T = 512, with the T = 512
    edits' worker times (``t512_worker_ms``) added to the latter."""
    floor = floor_figures("--app")
    repaint = floor["app_window_median_ms"]
    ratio = edit_median_ms / repaint
    print(f"window repainted, nothing recomputed (every widget, {floor['app_window_plots_painted']}"
          f" of {floor['app_visible_plots']} plots): median {repaint:.2f} ms; "
          f"edit / repaint = {ratio:.2f}")
    figures = {"floor_app_window_median_ms": repaint,
               "floor_app_widgets_median_ms": floor["app_widgets_median_ms"]}
    if "--stack-floor" in sys.argv:
        stack = floor_figures("--app-data")["app_data_median_ms"]
        print(f"window shown recorded edits through pyqtgraph and Qt alone: median "
              f"{stack:.2f} ms; edit / that = {edit_median_ms / stack:.2f}")
        figures.update(floor_stack_median_ms=stack,
                       edit_over_stack=round(edit_median_ms / stack, 2))
        if t512_p95_ms is not None:
            figures.update(stack_floor_t512(t512_p95_ms, t512_worker_ms))
    figures["edit_over_repaint"] = round(ratio, 2)  # (the last key: the headline ratio)
    return figures


def stack_floor_t512(edit_p95_ms: float, worker_ms: list[float] | None = None,
                     tokens: int = 512, more: tuple[str, ...] = ()) -> dict[str, float]:
    """``gui_floor.py --app-data --tokens 512``: the T = 512 edits' visible changes shown
    through pyqtgraph and Qt alone, and the T = 512 edit's p95 over that floor's p95.
    (``tokens`` and ``more``, gui_floor's further arguments, for a quick test.)

    ``worker_ms``, the same edits' times in the worker, gives the floor of the edit itself:
    an edit waits for its exact result before it can draw it, so no edit that computes the
    layer and draws through pyqtgraph can take less than the worker's time plus the stack
    floor. Measured apart, the two are added pair by pair (every worker time with every floor
    time, as if independent) into ``worker_plus_stack_*``."""
    stack = floor_figures("--app-data", "--tokens", str(tokens), *more)
    median, p95 = stack["app_data_median_ms"], stack["app_data_p95_ms"]
    print(f"T = 512 edits shown through pyqtgraph and Qt alone: median {median:.2f} ms, p95 "
          f"{p95:.2f} ms; edit p95 / that p95 = {edit_p95_ms / p95:.2f}")
    figures = {"floor_stack_median_ms_T512": median, "floor_stack_p95_ms_T512": p95,
               "floor_stack_tokens_T512": stack["app_data_tokens"],
               "edit_p95_over_stack_p95_T512": round(edit_p95_ms / p95, 2)}
    if worker_ms:
        sums = [w + f for w in worker_ms for f in stack["app_data_ms"]]
        low_median, low_p95 = statistics.median(sums), percentile(sums, 95)
        print(f"  the worker's time plus that floor (the least an exact edit can cost here): "
              f"median {low_median:.2f} ms, p95 {low_p95:.2f} ms; edit p95 / that p95 = "
              f"{edit_p95_ms / low_p95:.2f}")
        figures.update(worker_plus_stack_median_ms_T512=round(low_median, 2),
                       worker_plus_stack_p95_ms_T512=round(low_p95, 2),
                       edit_p95_over_worker_plus_stack_p95_T512=round(edit_p95_ms / low_p95, 2))
    return figures


if __name__ == "__main__":
    main()
