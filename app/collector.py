"""Python's cyclic garbage collector runs on the main (Qt) thread only.

The collector runs wherever an allocation happens to cross its threshold, the engine's worker
thread included. A reference cycle that holds Qt objects (a closed window's panels, a signal
connected to a lambda) collected there destroys those objects off the GUI thread, while the
main thread uses Qt's widget list: the test suite crashed that way (``QApplication.allWidgets()``
returned a widget already freed). So automatic collection is off, and a timer on the main
thread collects with the same generation thresholds, as pyqtgraph's ``GarbageCollector`` does.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QCoreApplication, QObject, QTimer

#: How often the main thread looks whether a collection is due.
INTERVAL_MS = 1000


class MainThreadCollector(QObject):
    """Collects on its timer (main thread); automatic collection stays off while it lives."""

    def __init__(self, parent: QObject | None = None, interval_ms: int = INTERVAL_MS) -> None:
        super().__init__(parent)
        self.threshold = gc.get_threshold()
        gc.disable()
        self._timer = QTimer(self)
        self._timer.timeout.connect(self.collect_due)
        self._timer.start(interval_ms)

    def collect_due(self) -> int:
        """Collect the generations the automatic thresholds would have collected by now; the
        number of unreachable objects found."""
        counts, found = gc.get_count(), 0
        for generation in range(3):
            if counts[generation] <= self.threshold[generation]:
                break
            found += gc.collect(generation)
        return found


_collector: MainThreadCollector | None = None


def active() -> bool:
    """Whether the collector is installed for the running application."""
    app = QCoreApplication.instance()
    return app is not None and _collector is not None and _collector.parent() is app


def collect_on_main_thread() -> MainThreadCollector:
    """Install the collector once, owned by the application (call on the main thread, with a
    QCoreApplication; an engine worker thread is about to start)."""
    global _collector
    app = QCoreApplication.instance()
    if app is None:
        raise RuntimeError("the main-thread collector needs a QCoreApplication")
    if not active():
        _collector = MainThreadCollector(app)
    gc.disable()  # (someone may have turned it on again)
    return _collector
