"""Import pyqtgraph without materialising every PySide6 class at start-up.

``pyqtgraph.Qt`` keeps its own mirrors of ``QtCore``, ``QtGui`` and ``QtWidgets`` and fills
them by copying every name of the PySide6 modules (``_copy_attrs``: ``getattr`` on each name
of ``dir(module)``). PySide6 creates its classes lazily, on first attribute access, so that
copy builds all ~700 Qt classes and their Python enums — about 0.2 s of a 1 s launch, for
classes the app never uses.

:func:`import_pyqtgraph` imports pyqtgraph with mirrors that look each name up in the PySide6
module on first use instead (same objects, so ``pyqtgraph.Qt.QtCore.QPointF is
PySide6.QtCore.QPointF``). For the import only, the three PySide6 modules list no names, so
the copy loop has nothing to copy; their own ``__dir__`` is put back before it returns.
pyqtgraph's files in site-packages are not touched. When pyqtgraph (or ``pyqtgraph.Qt``) is
already imported, or another binding is selected, it is a plain ``import pyqtgraph``.
"""

from __future__ import annotations

import os
import sys
import types

#: The mirrors pyqtgraph fills by copying (``pyqtgraph/Qt/__init__.py``).
MIRRORED = ("QtCore", "QtGui", "QtWidgets")
#: What pyqtgraph's mirror packages have of their own, so its copy never took them from PySide6
#: (every other name, ``__version__`` included, was copied).
OWN_NAMES = frozenset({"__path__", "__file__", "__cached__", "__builtins__"})


class LazyMirror(types.ModuleType):
    """``pyqtgraph.Qt.QtCore`` and friends: a name missing here is taken from the PySide6
    module on first access and kept. Names set on the mirror (pyqtgraph adds a few) stay on
    the mirror, as with pyqtgraph's own copy."""

    def __init__(self, name: str, source: types.ModuleType) -> None:
        super().__init__(name, source.__doc__)
        self.__dict__["_mirror_source"] = source

    def __getattr__(self, name: str) -> object:
        if name in OWN_NAMES:
            raise AttributeError(name)
        value = getattr(self.__dict__["_mirror_source"], name)
        self.__dict__[name] = value
        return value

    def __dir__(self) -> list[str]:
        return sorted(set(self.__dict__) | set(dir(self.__dict__["_mirror_source"])))


def _no_names() -> list[str]:
    return []


def import_pyqtgraph() -> types.ModuleType:
    """``import pyqtgraph`` (the module), with lazy Qt mirrors when PySide6 is the binding."""
    if "pyqtgraph" in sys.modules or "pyqtgraph.Qt" in sys.modules \
            or os.environ.get("PYQTGRAPH_QT_LIB", "PySide6") != "PySide6":
        import pyqtgraph

        return pyqtgraph
    from PySide6 import QtCore, QtGui, QtWidgets

    sources = {"QtCore": QtCore, "QtGui": QtGui, "QtWidgets": QtWidgets}
    names = {n: f"pyqtgraph.Qt.{n}" for n in MIRRORED}
    for n in MIRRORED:
        sys.modules[names[n]] = LazyMirror(names[n], sources[n])
    saved = {n: sources[n].__dict__.get("__dir__") for n in MIRRORED}
    try:
        for n in MIRRORED:
            sources[n].__dir__ = _no_names  # type: ignore[attr-defined]
        import pyqtgraph
    except BaseException:
        for n in MIRRORED:  # a failed import leaves no half-made mirror behind
            if isinstance(sys.modules.get(names[n]), LazyMirror):
                del sys.modules[names[n]]
        raise
    finally:
        for n in MIRRORED:
            if saved[n] is None:
                del sources[n].__dir__  # type: ignore[attr-defined]
            else:
                sources[n].__dir__ = saved[n]  # type: ignore[attr-defined]
    return pyqtgraph


def mirrors_are_lazy() -> bool:
    """Whether the imported pyqtgraph uses the lazy mirrors (for tests and benchmarks)."""
    qt = sys.modules.get("pyqtgraph.Qt")
    return qt is not None and all(isinstance(getattr(qt, n, None), LazyMirror)
                                  for n in MIRRORED)
