"""Guard against the PySide6 6.12.0 / CPython 3.11 ``none_dealloc`` crash.

PySide6 6.12.0 on Python 3.11 drops a reference to ``None`` on every void-returning Qt call; after
a few thousand calls ``None``'s count reaches zero and the interpreter aborts (``Fatal Python
error: none_dealloc``). 6.11.3 is clean on 3.11 and 6.12.0 is fine on 3.12+ (``None`` is
immortal there). pyproject.toml pins ``PySide6-Essentials<6.12`` on Python < 3.12; these tests
fail if a binding that leaks is ever installed.
"""

import subprocess
import sys
import textwrap

import PySide6

CALLS = 5000
MARGIN = 50  # None's count moves a little with ordinary allocation; a leak moves it by CALLS

# Runs in a child process: with a leaking binding the interpreter aborts, and the test should
# report that clearly instead of taking pytest down with it.
CHILD = textwrap.dedent(f"""
    import os, sys
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QObject
    from PySide6.QtWidgets import QApplication, QWidget

    app = QApplication.instance() or QApplication([])
    widget, obj = QWidget(), QObject()

    def calls(n):
        for i in range(n):
            widget.setMinimumWidth(i % 97)   # void QWidget setter
            obj.setObjectName("guard")       # void QObject setter
            widget.setToolTip("t")           # void, takes a QString
            widget.update()                  # void, no argument

    calls(10)  # warm caches (signature objects, string conversions)
    before = sys.getrefcount(None)
    calls(200)  # small first: a leak shows as a drift long before None could be freed
    probe = sys.getrefcount(None) - before
    if abs(probe) > {MARGIN}:
        print(f"drift after 200 rounds: {{probe}}")
        sys.exit(3)
    calls({CALLS} // 4)
    print(f"drift={{sys.getrefcount(None) - before}}")
""")


def test_void_qt_calls_keep_none_refcount_stable():
    proc = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True,
                          timeout=120)
    output = proc.stdout + proc.stderr
    assert "none_dealloc" not in output, (
        f"PySide6 {PySide6.__version__} frees None on Python {sys.version.split()[0]}: "
        "pin PySide6-Essentials<6.12 on Python 3.11\n" + output)
    assert proc.returncode == 0, f"guard child exited {proc.returncode}:\n{output}"
    drift = int(proc.stdout.strip().rsplit("drift=", 1)[1])
    assert abs(drift) <= MARGIN, (
        f"{CALLS} void Qt calls moved sys.getrefcount(None) by {drift} "
        f"(PySide6 {PySide6.__version__}, Python {sys.version.split()[0]})")


def test_installed_binding_is_not_the_leaking_combination():
    version = tuple(int(p) for p in PySide6.__version__.split(".")[:2])
    if sys.version_info < (3, 12):
        assert version < (6, 12), (
            f"PySide6 {PySide6.__version__} on Python 3.11 has the none_dealloc leak; "
            "pyproject pins PySide6-Essentials<6.12 for Python < 3.12")
