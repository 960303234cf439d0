"""A pytest plugin for chasing an order dependence: run a given list of tests in a given order,
on an emulated busy machine.

    python -m pytest -p tools.order_probe --order-file=order.txt --busy-ms=15 tests/...

``--order-file``: a file of node ids, one a line (``pytest -p randomly --randomly-seed=7
--collect-only -q …`` prints a shuffled order; cut it where a test failed). Exactly those
tests run, in that order: pytest's own command line cannot name ids with spaces in them.

``--busy-ms``: a thread of this process holds the interpreter lock (the GIL) for this many ms
at a time, sleeping, without using a core. The main thread's Python then runs several times
slower, as on a machine loaded by other work, while the machine itself stays free: a wait
that times out only under load (a ``qtbot.waitUntil`` of 5 s) fails on an idle machine too.
At 15 the attention panel's layout test took 8 s instead of 1.2 s.
"""

from __future__ import annotations

import ctypes
import threading
import time
from pathlib import Path

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("order_probe")
    group.addoption("--order-file", default=None,
                    help="run exactly the node ids listed in this file, in that order")
    group.addoption("--busy-ms", type=float, default=0.0,
                    help="emulate a loaded machine: hold the GIL this many ms at a time")


def _hold_the_gil(hold_us: int) -> None:
    # PyDLL keeps the GIL during the call: usleep then blocks every Python thread, not a core
    libc = ctypes.PyDLL(None)
    while True:
        libc.usleep(hold_us)
        time.sleep(0.0005)  # (releases it: the main thread runs until it is asked back)


def pytest_configure(config: pytest.Config) -> None:
    busy_ms = config.getoption("busy_ms")
    if busy_ms > 0:
        threading.Thread(target=_hold_the_gil, args=(int(busy_ms * 1000),), daemon=True,
                         name="order-probe-busy").start()


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    path = config.getoption("order_file")
    if not path:
        return
    wanted = [line.strip() for line in Path(path).read_text(encoding="utf-8").splitlines()
              if line.strip()]
    by_id = {item.nodeid: item for item in items}
    missing = [node for node in wanted if node not in by_id]
    if missing:
        raise pytest.UsageError(f"{len(missing)} tests of {path} were not collected (name "
                                f"their files on the command line), e.g. {missing[0]}")
    chosen = set(wanted)
    config.hook.pytest_deselected(items=[item for item in items if item.nodeid not in chosen])
    items[:] = [by_id[node] for node in wanted]
