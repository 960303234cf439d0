"""Cyclic garbage is collected on the main thread only (app/collector.py).

A cycle holding Qt objects collected on the engine's worker thread destroys those objects off
the GUI thread; the test suite crashed that way in ``QApplication.allWidgets()``.
"""

from __future__ import annotations

import gc
import threading
from typing import ClassVar

from app.collector import collect_on_main_thread


class Node:
    """Cyclic garbage that records the thread collecting it."""

    collected_on: ClassVar[list[int]] = []

    def __init__(self) -> None:
        self.me = self

    def __del__(self) -> None:
        Node.collected_on.append(threading.get_ident())


def test_cycles_are_never_collected_on_a_worker_thread(qapp):
    collector = collect_on_main_thread()
    assert not gc.isenabled()
    Node.collected_on.clear()
    Node()  # unreachable at once, but only a collection frees a cycle

    def churn() -> None:  # plenty of tracked allocations: automatic collection would run here
        kept = [[] for _ in range(50 * collector.threshold[0])]
        del kept

    worker = threading.Thread(target=churn)
    worker.start()
    worker.join()
    assert Node.collected_on == []
    # the main thread's timer collects once a generation is over its threshold
    kept = [[] for _ in range(2 * collector.threshold[0])]
    assert collector.collect_due() >= 1
    assert Node.collected_on == [threading.get_ident()]
    del kept


def test_the_engine_bridge_installs_it_before_its_worker_starts(qapp):
    from app import collector as module
    from app.bridge import EngineBridge

    gc.enable()  # as if something turned automatic collection on again
    bridge = EngineBridge(sync=False)
    try:
        assert module.active() and not gc.isenabled()
    finally:
        bridge.shutdown()
    assert collect_on_main_thread() is collect_on_main_thread()  # one per application
