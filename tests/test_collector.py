"""Cyclic garbage is collected on the main thread only (app/collector.py).

A cycle holding Qt objects collected on the engine's worker thread destroys those objects off
the GUI thread; the test suite crashed that way in ``QApplication.allWidgets()``.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import threading
from pathlib import Path
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


def test_the_tests_application_collects_on_its_main_thread_only(qapp):
    """The suite's QApplication (conftest's ``qapp``) turns automatic collection off as the
    app does: a collection that started inside a Qt call froze the suite (see there)."""
    from app import collector as module

    assert module.active() and not gc.isenabled()


def test_that_holds_in_a_session_of_its_own(tmp_path):
    """The test above alone in a fresh session (here the suite's other tests may have
    installed the collector already, through an asynchronous engine bridge)."""
    here = Path(__file__)
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", DUALVIEW_CONFIG_DIR=str(tmp_path))
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
         f"{here}::test_the_tests_application_collects_on_its_main_thread_only"],
        capture_output=True, text=True, env=env, timeout=120, cwd=here.parents[1])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 passed" in proc.stdout, proc.stdout
