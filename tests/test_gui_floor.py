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
