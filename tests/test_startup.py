"""Start-up cost: pyqtgraph imported without building every Qt class (app/pgimport.py)."""

import json
import os
import subprocess
import sys
from pathlib import Path

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
