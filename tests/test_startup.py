"""Start-up cost: lazy Qt mirrors for pyqtgraph, the first result in before the first paint,
lens docks made when first shown, modules outside the PYZ archive in the bundle."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pyqtgraph as pg
import pytest

ROOT = Path(__file__).resolve().parent.parent

# Runs in a fresh interpreter: the test process has imported pyqtgraph long ago.
PROBE = r"""
import json, os, sys
os.environ["PYQTGRAPH_QT_LIB"] = "PySide6"
from PySide6 import QtCore, QtGui, QtWidgets
dirs_before = {m.__name__: set(dir(m)) for m in (QtCore, QtGui, QtWidgets)}
from app.pgimport import LazyMirror, import_pyqtgraph, mirrors_are_lazy
pg = import_pyqtgraph()
from pyqtgraph.Qt import QtCore as MC, QtGui as MG, QtWidgets as MW
out = {
    "lazy": mirrors_are_lazy(),
    "dirs_restored": all(set(dir(m)) == dirs_before[m.__name__]
                         for m in (QtCore, QtGui, QtWidgets)),
    # classes pyqtgraph and the app never touched at import stay unbuilt in the mirror
    "untouched_not_copied": "QTimeZone" not in vars(MC) and "QPdfWriter" not in vars(MG)
                            and "QCalendarWidget" not in vars(MW),
    # every name of the PySide6 modules is reachable through the mirror, as the same object
    "same_objects": all(getattr(mirror, n) is getattr(src, n)
                        for mirror, src in ((MC, QtCore), (MG, QtGui), (MW, QtWidgets))
                        for n in dir(src) if n not in ("__dir__",) and not n.startswith("__")),
    "version": MC.__version__ == QtCore.__version__,
    "mirror_dir": set(dir(QtWidgets)) <= set(dir(MW)),
    "pyqtgraph_shims": MW.QOpenGLWidget is not None and MG.QFileSystemModel
                       is QtWidgets.QFileSystemModel if hasattr(QtWidgets, "QFileSystemModel")
                       else True,
    "mkPen": pg.mkPen("r").color().name(),
    "own_file": getattr(MC, "__file__", None) is None,
    "again_same": import_pyqtgraph() is pg,
}
app = QtWidgets.QApplication([])
plot = pg.PlotWidget(enableMenu=False)
plot.plot([1, 2, 3])
plot.resize(200, 100)
out["grab"] = not plot.grab().isNull()
print(json.dumps(out))
"""


def run_probe(code: str) -> dict:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, text=True,
                         capture_output=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_pyqtgraph_imports_with_lazy_qt_mirrors():
    out = run_probe(PROBE)
    assert out == {"lazy": True, "dirs_restored": True, "untouched_not_copied": True,
                   "same_objects": True, "version": True, "mirror_dir": True,
                   "pyqtgraph_shims": True, "mkPen": "#ff0000", "own_file": True,
                   "again_same": True, "grab": True}


def test_pyqtgraph_widgets_the_app_never_uses_are_imported_on_first_use():
    out = run_probe(
        "import json, sys\nfrom app.pgimport import DEFERRED, import_pyqtgraph\n"
        "pg = import_pyqtgraph()\n"
        "heavy = ['pyqtgraph.parametertree', 'pyqtgraph.multiprocess', 'multiprocessing',"
        " *DEFERRED.values()]\n"
        "before = sorted(m for m in heavy if m in sys.modules)\n"
        "import importlib\n"
        "same = all(getattr(pg, n) is getattr(importlib.import_module(m), n)"
        " for n, m in DEFERRED.items())\n"
        "try:\n    pg.NoSuchName\n    missing = 'no error'\n"
        "except AttributeError as exc:\n    missing = str(exc)\n"
        "print(json.dumps([before, same, 'pyqtgraph.parametertree' in sys.modules, missing,"
        " pg.PlotWidget.__name__]))")
    assert out == [[], True, True, "module 'pyqtgraph' has no attribute 'NoSuchName'",
                   "PlotWidget"]

def test_pgimport_is_a_plain_import_when_pyqtgraph_is_already_loaded():
    out = run_probe("import json, os\nos.environ['PYQTGRAPH_QT_LIB'] = 'PySide6'\n"
                    "import pyqtgraph\nfrom app.pgimport import import_pyqtgraph, "
                    "mirrors_are_lazy\n"
                    "print(json.dumps([import_pyqtgraph() is pyqtgraph, mirrors_are_lazy()]))")
    assert out == [True, False]


def test_the_app_imports_pyqtgraph_through_pgimport():
    """``python -m app`` builds its QApplication with the lazy mirrors in place."""
    out = run_probe("import json, sys\nfrom app.__main__ import build_app\n"
                    "build_app(sys.argv[:1])\nfrom app.pgimport import mirrors_are_lazy\n"
                    "print(json.dumps(mirrors_are_lazy()))")
    assert out is True


def test_the_test_suite_runs_with_the_lazy_mirrors_the_app_uses():
    from app.pgimport import mirrors_are_lazy

    assert mirrors_are_lazy()


# ----- the first result is in before the window is first shown -----

def test_initial_text_is_computed_while_the_window_is_built(qtbot, qapp, monkeypatch):
    from app.bridge import EngineBridge
    from app.docks import DockSpec
    from app.mainwindow import MainWindow

    seen_by_panels = []
    create = DockSpec.create

    def recording_create(spec, state):
        seen_by_panels.append((state.text, state.pending_id))
        return create(spec, state)

    monkeypatch.setattr(DockSpec, "create", recording_create)
    window = MainWindow(bridge=EngineBridge(), initial_text="我爱北京天安门",
                        persist_layout=False, autosave=True)
    qtbot.addWidget(window)
    try:
        # submitted before the first panel is built; the result is queued to this thread
        assert seen_by_panels[0] == ("我爱北京天安门", 1)
        assert window.state.text == "我爱北京天安门" and window.state.pending_id == 1
        assert window.state.result is None
        assert window.files._autosave_timer.isActive()  # as when the editor made the first edit
        assert window.editor.text() == "我爱北京天安门"
        assert window.wait_for_first_result(20.0)
        assert not window.isVisible()
        assert window.state.result.text == "我爱北京天安门"
        assert window.state.convergence is not None
        draws = {name: [] for name in window.panels}
        for name, panel in window.panels.items():
            panel.drawn.connect(lambda n=name, p=panel: draws[n].append(p.drawn_id))
        window.show()
        qtbot.waitExposed(window)
        qapp.processEvents()
        shown = [n for n, p in window.panels.items() if p.isVisible()]
        assert len(shown) == 6
        result_id = window.state.result.request_id
        # each visible panel drew once, the result itself: no empty state painted first
        assert {n: draws[n] for n in shown} == {n: [result_id] for n in shown}
        assert window.all_panels_current()
    finally:
        window.close()
        window.bridge.shutdown()


def test_waiting_ends_without_a_sweep_for_long_or_bad_input(qtbot):
    from app.bridge import EngineBridge
    from app.compute import convergence_max_tokens
    from app.mainwindow import MainWindow
    from engine import MAX_TOKENS, Qwen3Config

    long_text = " ".join(["word"] * (convergence_max_tokens(Qwen3Config.toy()) + 5))
    for text, ok in ((long_text, True), (" ".join(["x"] * (MAX_TOKENS + 1)), False), ("", None)):
        window = MainWindow(bridge=EngineBridge(), initial_text=text, persist_layout=False)
        qtbot.addWidget(window)
        try:
            assert window.wait_for_first_result(20.0)
            assert window.state.convergence is None
            if ok is None:
                assert window.state.result is None and not window.state.error
            elif ok:
                assert window.state.result.text == text and not window.state.error
            else:
                assert window.state.result is None and window.state.error
        finally:
            window.close()
            window.bridge.shutdown()


def test_wait_for_first_result_gives_up_after_its_timeout(qtbot):
    import time

    from app.bridge import EngineBridge
    from app.mainwindow import MainWindow

    bridge = EngineBridge()
    bridge.submit = lambda request: None  # a worker that never answers
    window = MainWindow(bridge=bridge, initial_text="never computed", persist_layout=False)
    qtbot.addWidget(window)
    try:
        start = time.monotonic()
        assert not window.wait_for_first_result(0.2)
        assert 0.15 < time.monotonic() - start < 5.0
    finally:
        window.close()
        window.bridge.shutdown()


def test_the_app_shows_its_window_with_the_result_and_sweep_in():
    out = run_probe(
        "import json\nimport app.mainwindow as mw\nseen = []\norig = mw.MainWindow.show\n"
        "def show(self):\n"
        "    seen.append([self.state.result is not None, self.state.convergence is not None])\n"
        "    orig(self)\n"
        "mw.MainWindow.show = show\nfrom app.__main__ import main\n"
        "code = main(['--selftest'])\nprint(json.dumps([code, seen]))")
    assert out == [0, [[True, True]]]



def test_the_garbage_collector_pauses_for_start_up_and_resumes_frozen():
    """Start-up objects all stay alive: collecting while they are made is wasted work. The
    collector is off while the app is built and shown; afterwards what start-up made is frozen
    and the main-thread collector (app/collector.py) collects. After an early exit, before any
    Qt application exists, automatic collection is back on."""
    out = run_probe(
        "import gc, json\nimport app.__main__ as m\nimport app.mainwindow as mw\n"
        "from app import collector\nseen = []\n"
        "build, show = m.build_app, mw.MainWindow.show\n"
        "def build_app(argv):\n    seen.append(gc.isenabled())\n    return build(argv)\n"
        "def show_(self):\n    seen.append(gc.isenabled())\n    show(self)\n"
        "m.build_app, mw.MainWindow.show = build_app, show_\n"
        "code = m.main(['--selftest'])\n"
        "print(json.dumps([code, seen, collector.active(), gc.isenabled(),"
        " gc.get_freeze_count() > 1000]))")
    assert out == [0, [False, False], True, False, True]
    out = run_probe(
        "import gc, json\nimport app.__main__ as m\n"
        "try:\n    m.main(['--no-such-option'])\nexcept SystemExit:\n    pass\n"
        "print(json.dumps(gc.isenabled()))")
    assert out is True


# ----- lens docks: hidden at start-up, their panels made when first shown -----

LENS_DOCKS = {spec.object_name for spec in __import__("app.docks", fromlist=["DOCKS"]).DOCKS
              if not spec.visible}


def test_hidden_docks_get_their_panel_when_first_shown(make_window, qtbot):
    window = make_window(sync=True, text="a b c")
    assert LENS_DOCKS and window.panels.deferred == LENS_DOCKS
    for name in LENS_DOCKS:
        assert name not in window.panels and window.docks[name].widget() is None
    assert set(window.panels) | LENS_DOCKS == set(window.docks)
    # the View menu opens one: its panel is made, and draws the current result
    window.state.set_text("the cat sat")
    dock = window.docks["lensTemperatureDock"]
    dock.toggleViewAction().trigger()
    assert "lensTemperatureDock" in window.panels  # made before the dock shows
    panel = window.panels["lensTemperatureDock"]
    assert dock.widget() is panel
    qtbot.waitUntil(lambda: panel.isVisible() and panel.is_current, timeout=5000)
    assert panel.drawn_id == window.state.result.request_id
    assert window.panels.deferred == LENS_DOCKS - {"lensTemperatureDock"}
    # the window's connections were made: a palette switch redraws it, and after its redraw
    # the window restyles it for the larger text
    window.state.set_font_scale(1.3)
    restyled = []
    window.restyle_plots = lambda root=None: restyled.append(root)
    window.state.set_palette("colorblind")
    qtbot.waitUntil(lambda: panel in restyled, timeout=5000)
    del window.restyle_plots
    window.state.set_palette("classic")
    window.state.set_font_scale(1.0)
    # it follows later edits like any other panel
    window.state.set_text("the cat sat down")
    qtbot.waitUntil(lambda: panel.is_current, timeout=5000)
    assert window.all_panels_current()


def test_a_lookup_makes_a_hidden_docks_panel_and_unknown_names_still_fail(make_window):
    window = make_window(sync=True, text="a b")
    panel = window.panels["lensEnergyDock"]
    assert window.docks["lensEnergyDock"].widget() is panel
    assert window.panels.get("lensSplittingDock") is window.docks["lensSplittingDock"].widget()
    assert window.panels.get("noSuchDock") is None
    with pytest.raises(KeyError):
        window.panels["noSuchDock"]


def test_a_panel_made_late_takes_the_theme_and_text_size_of_the_moment(make_window, qtbot,
                                                                    restore_view):
    from PySide6.QtGui import QColor

    from app.theme import PLOT_COLOURS

    window = make_window(sync=True, text="a b c")
    window.state.set_theme("dark")
    window.state.set_font_scale(1.5)
    dock = window.docks["lensEnergyDock"]
    dock.show()
    dock.raise_()
    panel = window.panels["lensEnergyDock"]
    qtbot.waitUntil(lambda: panel.isVisible() and panel.is_current, timeout=5000)
    views = panel.findChildren(pg.GraphicsView)
    assert views
    dark = QColor(PLOT_COLOURS["dark"][0])
    assert all(v.backgroundBrush().color() == dark for v in views)
    # same as a panel that existed when the text grew: compare with the depth panel's axes
    depth_axis = window.panels["depthDock"].findChildren(pg.GraphicsView)[0]
    lens_axis = views[0]
    fonts = [next(i for i in v.scene().items() if isinstance(i, pg.AxisItem)).style.get(
        "tickFont") for v in (depth_axis, lens_axis)]
    assert fonts[0] is not None and fonts[1] is not None
    assert fonts[0].pointSizeF() == pytest.approx(fonts[1].pointSizeF())


def test_an_open_lens_dock_is_saved_and_restored_with_the_layout(make_window, qtbot):
    window = make_window(sync=True, text="a b")
    window.docks["lensConvergenceDock"].toggleViewAction().trigger()
    window.docks["lensConvergenceDock"].raise_()
    qtbot.waitUntil(lambda: window.docks["lensConvergenceDock"].isVisible(), timeout=5000)
    window.save_layout()
    window.close()
    again = make_window(sync=True, text="a b", persist_layout=True)
    qtbot.waitUntil(lambda: again.docks["lensConvergenceDock"].isVisible(), timeout=5000)
    panel = again.panels["lensConvergenceDock"]
    qtbot.waitUntil(lambda: panel.isVisible() and panel.is_current, timeout=5000)
    assert "lensEnergyDock" in again.panels.deferred


def test_exporting_a_dock_never_opened_makes_its_panel(make_window, tmp_path):
    window = make_window(sync=True, text="a b")
    assert window.export_panel("lensSplittingDock", tmp_path / "split.png")
    assert "lensSplittingDock" in window.panels


def test_the_bundle_keeps_modules_out_of_the_pyz_archive():
    """``noarchive=True``: loading ~800 modules from .pyc files beats unzipping them from the
    PYZ through PyInstaller's importer (~0.1 s of the packaged launch)."""
    spec = (ROOT / "packaging" / "dualview.spec").read_text(encoding="utf-8")
    assert re.search(r"^\s+noarchive=True,", spec, re.MULTILINE)


def test_no_python_event_filter_watches_the_application_or_the_window(qtbot, qapp,
                                                                     monkeypatch):
    """A Python event filter on the application (or the main window) runs for each of its
    events, paints included; on the main thread each such call waits for the interpreter lock
    while the worker computes, and a keystroke's repaint came late by the wait."""
    from PySide6.QtCore import QObject

    from app import mainwindow
    from app.bridge import EngineBridge

    watched = []
    original = QObject.installEventFilter

    def spy(self, other):
        watched.append(self)
        return original(self, other)

    monkeypatch.setattr(QObject, "installEventFilter", spy)
    window = mainwindow.MainWindow(bridge=EngineBridge(sync=True), initial_text=None,
                                   persist_layout=False)
    qtbot.addWidget(window)
    try:
        window.show()
        qtbot.waitExposed(window)
        window.editor.line.setFocus()
        window.editor.set_text("a b c")
        qapp.processEvents()
        assert watched  # (the spy sees the panels' own filters)
        assert not any(target is qapp or target is window for target in watched)
    finally:
        window.close()
        window.bridge.shutdown()


def test_the_key_guard_is_installed_once_the_window_is_shown(qtbot, qapp, monkeypatch):
    from PySide6.QtCore import QEvent, Qt
    from PySide6.QtGui import QKeyEvent

    from app import mainwindow
    from app.bridge import EngineBridge

    filtered = []
    original = mainwindow.KeyGuard.eventFilter

    def spy(self, watched, event):
        filtered.append(watched)
        return original(self, watched, event)

    monkeypatch.setattr(mainwindow.KeyGuard, "eventFilter", spy)
    window = mainwindow.MainWindow(bridge=EngineBridge(sync=True), initial_text=None,
                                   persist_layout=False)
    qtbot.addWidget(window)
    left = []
    window.leave_text_field = lambda: left.append(True)
    line = window.editor.line

    def press_escape() -> bool:
        qapp.sendEvent(line, QKeyEvent(QEvent.Type.KeyPress, Qt.Key.Key_Escape,
                                       Qt.KeyboardModifier.NoModifier))
        return bool(left)

    try:
        window.editor.set_text("a b")  # events of a window being set up
        qapp.processEvents()
        assert filtered == []  # no application-wide filter before the window is shown
        window.show()
        qtbot.waitExposed(window)
        line.setFocus()
        qtbot.waitUntil(press_escape, timeout=3000)  # then Esc leaves the text field
        assert filtered
        # it filters the focused widget's events, not every event of the application (each
        # would run Python on the main thread, waiting for the lock while the worker computes)
        assert window.key_guard.watched() is line
        filtered.clear()
        qapp.sendEvent(window.status.weights, QEvent(QEvent.Type.User))
        window.update()  # every widget paints: only the focused line's events are filtered
        qapp.processEvents()
        assert filtered and all(watched is line for watched in filtered)
        box = window.panels["attentionDock"].query_box
        box.setFocus()
        qtbot.waitUntil(lambda: window.key_guard.watched() is box, timeout=3000)
        assert window.key_guard.watched() is box
    finally:
        window.close()
        window.bridge.shutdown()


def test_the_app_turns_off_numpys_huge_page_requests():
    # the app's entry module runs before numpy is imported; numpy reads the setting then
    probe = ("import app.__main__, numpy\n"
             "print(numpy._core.multiarray._set_madvise_hugepage(False))")
    env = {k: v for k, v in os.environ.items() if k != "NUMPY_MADVISE_HUGEPAGE"}
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=60, check=True)
    assert out.stdout.strip() == "False"


def test_without_a_display_the_window_says_why_and_the_selftest_runs_offscreen():
    from app.__main__ import choose_platform

    env: dict[str, str] = {}
    message = choose_platform(False, env)
    assert message is not None and "no display" in message and "--selftest" in message
    assert "QT_QPA_PLATFORM" not in env
    env = {}
    assert choose_platform(True, env) is None and env["QT_QPA_PLATFORM"] == "offscreen"
    for given in ({"DISPLAY": ":1"}, {"WAYLAND_DISPLAY": "wayland-0"},
                  {"QT_QPA_PLATFORM": "xcb"}):  # a display, or the caller's choice, wins
        env = dict(given)
        assert choose_platform(True, env) is None and env == given
        assert choose_platform(False, env) is None


def test_the_app_started_with_no_display_exits_with_a_message_not_an_abort():
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    out = subprocess.run([sys.executable, "-m", "app"], env=env, cwd=ROOT, text=True,
                         capture_output=True, timeout=60)
    assert out.returncode == 2, out.stderr
    assert "no display found" in out.stderr
