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

pyqtgraph's ``__init__`` also imports four widgets the app never uses, and with them its
parameter tree and its multi-process machinery (``multiprocessing``): ~70 ms of start-up.
Those modules are imported on first use instead (:data:`DEFERRED`): ``pyqtgraph.ColorMapWidget``
and the others still resolve to the real classes.

pyqtgraph's files in site-packages are not touched. When pyqtgraph (or ``pyqtgraph.Qt``) is
already imported, or another binding is selected, it is a plain ``import pyqtgraph``.
"""

from __future__ import annotations

import importlib
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


#: pyqtgraph's top-level names whose modules are imported on first use, not with pyqtgraph.
DEFERRED = {
    "ColorMapWidget": "pyqtgraph.widgets.ColorMapWidget",
    "ColorMapParameter": "pyqtgraph.widgets.ColorMapWidget",
    "ScatterPlotWidget": "pyqtgraph.widgets.ScatterPlotWidget",
    "DataFilterWidget": "pyqtgraph.widgets.DataFilterWidget",
    "RemoteGraphicsView": "pyqtgraph.widgets.RemoteGraphicsView",
}


class _Placeholder(types.ModuleType):
    """Stands in for a deferred module while pyqtgraph's ``__init__`` runs: its
    ``from ... import *`` finds nothing, a ``from ... import Name`` finds None (removed after)."""

    __all__: tuple[str, ...] = ()

    def __getattr__(self, name: str) -> None:
        if name.startswith("__"):
            raise AttributeError(name)
        return None


def _deferred_attribute(name: str) -> object:
    """pyqtgraph's module ``__getattr__``: import a deferred module on first use."""
    if name not in DEFERRED:
        raise AttributeError(f"module 'pyqtgraph' has no attribute {name!r}")
    value = getattr(importlib.import_module(DEFERRED[name]), name)
    setattr(sys.modules["pyqtgraph"], name, value)
    return value


def _import_without_deferred() -> types.ModuleType:
    """``import pyqtgraph`` with the :data:`DEFERRED` modules left out until first use."""
    placeholders = {m: _Placeholder(m) for m in set(DEFERRED.values()) if m not in sys.modules}
    sys.modules.update(placeholders)
    try:
        import pyqtgraph
    finally:
        for module in placeholders:
            if sys.modules.get(module) is placeholders[module]:
                del sys.modules[module]
    for name in DEFERRED:
        if pyqtgraph.__dict__.get(name, 0) is None:  # a placeholder's None, not the class
            delattr(pyqtgraph, name)
    pyqtgraph.__getattr__ = _deferred_attribute  # type: ignore[attr-defined]
    return pyqtgraph


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
        pyqtgraph = _import_without_deferred()
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
