"""The repaint issue #20's edit figure is divided by (``benchmarks/gui_floor.py --app``) paints
everything the window shows. ``QWidget.repaint()`` of the window paints none of its plots (a
QGraphicsView draws its scene in its viewport, which that repaint does not reach), so a floor
timed that way looked 3–4× cheaper than a repaint of the window is."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyqtgraph as pg
import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_the_window_repaint_paints_every_visible_plot_once(tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", DUALVIEW_CONFIG_DIR=str(tmp_path))
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "gui_floor.py"), "--app", "--repeats", "3"],
        capture_output=True, text=True, env=env, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    figures = json.loads(proc.stdout.strip().splitlines()[-1])
    plots = figures["app_visible_plots"]
    assert plots >= 6, figures  # the default layout's plots, all on screen
    assert figures["app_window_plots_painted"] == plots, figures
    assert figures["app_plots_plots_painted"] == plots, figures
    # what the floor was before: the window's QWidget.repaint() reaches no plot
    assert figures["app_widgets_plots_painted"] == 0, figures
    assert figures["app_window_median_ms"] > 0 and figures["app_widgets_median_ms"] > 0


def test_the_paired_edit_and_repaint_each_paint_every_visible_plot(make_window, qapp,
                                                                     monkeypatch):
    """gui_bench's paired ratio times an edit, then the repaint above, in turn in one process:
    both sides must reach every plot on screen, or the ratio compares less than a window."""
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import gui_bench

    window = make_window(text=None)
    texts = [f"我爱北京天安门 第{k}" for k in range(6)]
    edits, repaints, counts = gui_bench.paired_edits_and_repaints(qapp, window, texts)
    plots = counts["plots"]
    assert plots >= 8  # the default layout's plots
    assert counts["painted_by_repaint"] == plots, counts
    # The depth panel's convergence plot shows the sweep, which runs after a pause in typing,
    # not the edit; here the window's first edit came after one, so it may be on screen.
    sweep = int(window.findChild(pg.GraphicsView, gui_bench.SWEEP_PLOT).isVisible())
    assert counts["edit_plots"] == plots - sweep, (counts, sweep)
    assert counts["painted_by_edit"] == counts["edit_plots"], counts
    assert len(edits) == len(repaints) == 3 and min(edits + repaints) > 0


def test_the_stack_floor_replays_edits_of_the_length_asked_for(tmp_path):
    """``--app-data --tokens N`` (the floor under gui_bench's T = 512 figure) records and
    replays edits of gui_bench's text of N tokens, not of its default sentence."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", DUALVIEW_CONFIG_DIR=str(tmp_path))
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "gui_floor.py"), "--app-data", "--tokens",
         "40", "--repeats", "3"], capture_output=True, text=True, env=env, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    figures = json.loads(proc.stdout.strip().splitlines()[-1])
    assert figures["app_data_tokens"] == 40, figures
    assert figures["app_data_setters"] > 0 and figures["app_data_median_ms"] > 0, figures


def test_stolen_time_is_read_from_the_steal_column(tmp_path, monkeypatch):
    """gui_bench reports the CPU time the hypervisor took while the T = 512 edits ran: the
    ``steal`` column (the eighth number) of /proc/stat's first line, in clock ticks."""
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import gui_bench

    stat = tmp_path / "stat"
    ticks = os.sysconf("SC_CLK_TCK")
    stat.write_text(f"cpu  9 8 7 6 5 4 3 {2 * ticks} 1 0\ncpu0 1 1 1 1 1 1 1 1 1 1\n")
    assert gui_bench.stolen_ms(str(stat)) == 2000.0
    stat.write_text("intr 1 2 3\n")  # not the line it reads
    assert gui_bench.stolen_ms(str(stat)) is None
    assert gui_bench.stolen_ms(str(tmp_path / "absent")) is None


def test_each_edit_reports_its_cpu_time_and_its_time_in_the_worker(make_window, qapp,
                                                                    monkeypatch):
    """The CPU time gui_bench sets beside each edit's wall time is that edit's work: the
    worker's compute is in it (a layer made to spin for 0.25 s of its thread's CPU time
    shows), not only the main thread's. The worker's time is that edit's own, inside its
    wall time."""
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import time

    import gui_bench

    import app.compute as compute_module

    window = make_window(text=None)
    texts = [f"我爱北京天安门 第{k}" for k in range(4)]
    gui_bench.edit_latency(qapp, window, texts[:1])
    cpu: list[float] = []
    worker: list[float] = []
    walls = gui_bench.edit_latency(qapp, window, texts[1:2], cpu=cpu, worker=worker)
    assert len(cpu) == 1 and 0 < cpu[0] <= walls[0] * 2.5
    assert len(worker) == 1 and 0 < worker[0] < walls[0]
    layer = compute_module.engine.run_layer

    def busy_layer(*args, **kwargs):
        end = time.thread_time() + 0.25  # 250 ms of the worker thread's own CPU time
        while time.thread_time() < end:
            pass
        return layer(*args, **kwargs)

    monkeypatch.setattr(compute_module.engine, "run_layer", busy_layer)
    walls += gui_bench.edit_latency(qapp, window, texts[2:3], cpu=cpu, worker=worker)
    assert cpu[1] >= 250.0, cpu
    assert 250.0 <= worker[1] < walls[1], (worker, walls)


def test_the_t512_edit_is_divided_by_the_stack_floor_of_its_own_length(tmp_path, monkeypatch):
    """``gui_bench.py --stack-floor`` divides the T = 512 edit's p95 by the p95 of
    ``gui_floor.py --app-data`` run on a text of that length (here 40 tokens, for speed)."""
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    monkeypatch.setenv("DUALVIEW_CONFIG_DIR", str(tmp_path))
    monkeypatch.chdir(ROOT)
    import gui_bench

    figures = gui_bench.stack_floor_t512(100.0, [5.0], tokens=40, more=("--repeats", "3"))
    assert figures["floor_stack_tokens_T512"] == 40, figures
    p95 = figures["floor_stack_p95_ms_T512"]
    assert 0 < figures["floor_stack_median_ms_T512"] <= p95, figures
    assert figures["edit_p95_over_stack_p95_T512"] == round(100.0 / p95, 2), figures
    # one worker time shifts the floor's own edits: the same p95, 5 ms later
    assert figures["worker_plus_stack_p95_ms_T512"] == pytest.approx(5.0 + p95, abs=0.01)


def test_the_worker_time_is_added_to_the_stack_floor_pair_by_pair(monkeypatch, capsys):
    """The least an exact T = 512 edit can cost: each worker time with each floor time."""
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import gui_bench

    floor = {"app_data_median_ms": 2.0, "app_data_p95_ms": 3.0, "app_data_tokens": 512,
             "app_data_ms": [1.0, 2.0, 3.0]}
    monkeypatch.setattr(gui_bench, "floor_figures", lambda *args: floor)
    figures = gui_bench.stack_floor_t512(46.0, [10.0, 20.0])
    # the sums 11, 12, 13, 21, 22, 23: median (13 + 21) / 2, p95 the entry round(0.95 * 5)
    assert figures["worker_plus_stack_median_ms_T512"] == 17.0, figures
    assert figures["worker_plus_stack_p95_ms_T512"] == 23.0, figures
    assert figures["edit_p95_over_worker_plus_stack_p95_T512"] == 2.0, figures
    assert "least an exact edit" in capsys.readouterr().out
    assert "worker_plus_stack_p95_ms_T512" not in gui_bench.stack_floor_t512(46.0)


def test_the_floor_times_the_apps_edits_in_order_and_not_the_way_back(monkeypatch):
    """``gui_floor.time_in_order``: the recorded edits in the app's order, round after round;
    the way from the last state back to the first (an edit the app never makes, and a slow
    one at T = 512) is made between rounds and never timed."""
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import time

    import gui_floor

    monkeypatch.setattr(gui_floor, "WARM_UP", 2)
    applied: list[str] = []

    def apply(rows: list[str]) -> None:
        applied.append(rows[0])
        if rows[0] == "back":
            time.sleep(0.05)

    # 2 warm-up edits and 4 timed ones: two rounds of three
    times = gui_floor.time_in_order([["back"], ["a"], ["b"], ["c"]], 4, apply, lambda: None)
    assert len(times) == 4 and max(times) < 40, times  # the 50 ms way back is not in them
    assert applied == ["back", "a", "b", "c", "back", "a", "b", "c"], applied
