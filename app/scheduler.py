"""A Qt-free, one-thread, latest-wins scheduler for engine requests.

One worker thread, a one-slot mailbox: a newer request replaces a waiting one, one compute runs
at a time. The caller still has to drop results whose id is not the latest (the bridge does) —
a compute that started before a newer request was posted finishes and reports anyway.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

Req = TypeVar("Req")


class LatestWinsWorker(Generic[Req]):
    """Runs ``work(request)`` on one thread; only the newest waiting request runs. The thread is
    a daemon: closing the window does not wait for a compute stuck inside one long numpy call
    (the bridge makes sure such a thread touches no Qt object afterwards)."""

    def __init__(self, work: Callable[[Req], None], name: str = "dualview-engine") -> None:
        self._work = work
        self._cond = threading.Condition()
        self._pending: Req | None = None
        self._has_pending = False
        self._stopping = False
        self._busy = False
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self._thread.start()

    def submit(self, request: Req) -> None:
        """Put ``request`` in the mailbox, replacing any request still waiting there."""
        with self._cond:
            self._pending = request
            self._has_pending = True
            self._cond.notify()

    def has_pending(self) -> bool:
        """True when a newer request waits; long follow-up work checks this to give way."""
        with self._cond:
            return self._has_pending

    def wait_for_pending(self, timeout: float) -> bool:
        """Block up to ``timeout`` seconds for a newer request; True if one arrived (or stop)."""
        with self._cond:
            self._cond.wait_for(lambda: self._has_pending or self._stopping, timeout)
            return self._has_pending or self._stopping

    def idle(self) -> bool:
        with self._cond:
            return not self._busy and not self._has_pending

    def stop(self, timeout: float = 5.0) -> None:
        """Finish the running compute (if any), drop the waiting one and join the thread."""
        with self._cond:
            self._stopping = True
            self._pending = None
            self._has_pending = False
            self._cond.notify()
        self._thread.join(timeout)

    def alive(self) -> bool:
        """True while the thread runs (after :meth:`stop`: still inside its last request)."""
        return self._thread.is_alive()

    def join(self, timeout: float) -> None:
        """Wait up to ``timeout`` seconds for the thread to end (after :meth:`stop`)."""
        self._thread.join(timeout)

    def _loop(self) -> None:
        while True:
            with self._cond:
                while not self._has_pending and not self._stopping:
                    self._cond.wait()
                if self._stopping:
                    return
                request = self._pending
                self._pending = None
                self._has_pending = False
                self._busy = True
            try:
                self._work(request)  # type: ignore[arg-type]
            finally:
                with self._cond:
                    self._busy = False
