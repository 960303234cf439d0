"""The engine bridge: requests go to one worker thread, results come back to the main thread.

The bridge only carries: every result the worker makes reaches ``result_ready`` on the main
thread, a stale one too. The one check that drops an out-of-date result is made where results
are accepted, :meth:`app.state.AppState._on_result_ready` (``Results.is_current``): that is what
guarantees that no stale frame is ever shown (tests/test_stale_results.py).
``DUALVIEW_SYNC=1`` runs each request inline instead (tests, benchmarks).

The convergence sweep that follows a result runs the layer 641 times: 0.1 s at the toy size,
seconds at a few hundred tokens. A newer request abandons it: :meth:`EngineBridge.submit` raises
:class:`SweepCancelled` inside the worker thread (at its next Python instruction, so within one
numpy call), and the worker moves on to the new request instead of finishing a sweep nobody
will see.

Closing the window does not wait for the worker: a compute at Qwen3-0.6B's size on 2048 tokens
takes seconds, and one numpy product of it most of a second, which no exception interrupts.
:meth:`EngineBridge.shutdown` raises :class:`SweepCancelled` in the worker (it stops at its next
Python instruction), waits :data:`SHUTDOWN_WAIT_S` at most, and from then on the worker emits
nothing: a thread that is still inside numpy touches no Qt object and ends on its own.
"""

from __future__ import annotations

import atexit
import ctypes
import os
import threading
import time
import traceback

import numpy as np
from PySide6.QtCore import QObject, Signal

from app.collector import collect_on_main_thread
from app.compute import Request, Result, SweepFailed, compute, compute_convergence
from app.scheduler import LatestWinsWorker
from engine import EngineError

#: Quiet time after a result before the slow convergence sweep starts.
SWEEP_IDLE_S = 0.25
#: Longest a sweep waits for the window to paint the result it follows (see _wait_until_shown).
SHOWN_WAIT_S = 0.5
#: Longest :meth:`EngineBridge.shutdown` waits for the worker to stop (closing stays prompt).
SHUTDOWN_WAIT_S = 0.2


class SweepCancelled(BaseException):
    """Raised in the worker thread to abandon a sweep that a newer request made useless, or
    anything it runs when the window closes. A BaseException, so no ``except Exception`` on
    the way swallows it."""


#: Longest the process waits at exit for a cancelled worker to leave the numpy call it is in.
EXIT_WAIT_S = 60.0


def _let_out_before_exit(worker: LatestWinsWorker) -> None:
    """At interpreter exit (atexit runs before daemon threads are stopped): wait for a
    cancelled worker to finish the numpy call it was in. A thread still inside BLAS when the
    process ends runs on freed memory (OpenBLAS frees its buffers at exit): closing the window
    during a long compute and quitting segfaulted about 1 run in 3 on a busy machine."""
    worker.join(EXIT_WAIT_S)


def _raise_in_thread(thread_id: int, exc: type[BaseException] | None) -> None:
    """Make ``thread_id`` raise ``exc`` at its next Python instruction (None: take back an
    exception not raised yet)."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread_id), ctypes.py_object(exc) if exc is not None else None)


class EngineBridge(QObject):
    """Owns the worker. ``result_ready`` and ``convergence_ready`` fire on the main thread for
    every request the worker finished (the state drops the stale ones)."""

    result_ready = Signal(object)  # Result
    convergence_ready = Signal(int, object)  # request id, Convergence | SweepFailed | None
    # emitted from the worker thread; Qt queues them to this object's (main) thread
    _worker_result = Signal(object)
    _worker_convergence = Signal(int, object)

    def __init__(self, parent: QObject | None = None, *, sync: bool | None = None) -> None:
        super().__init__(parent)
        self._latest_id = 0
        self.sync = os.environ.get("DUALVIEW_SYNC") == "1" if sync is None else sync
        # queued to this object's (main) thread; no check here (see the module docstring)
        self._worker_result.connect(self.result_ready)
        self._worker_convergence.connect(self.convergence_ready)
        self._worker: LatestWinsWorker[Request] | None = None
        # when the last two requests were made: a quick succession means someone is typing
        self._prev_submit = self._last_submit = -float("inf")
        #: the worker thread's id while it runs a sweep that may still be cancelled
        self._sweep_lock = threading.Lock()
        self._sweeping: int | None = None
        #: the worker thread's id while it runs a request (None: idle), and whether the window
        #: closed; both under _sweep_lock, which the worker also holds while it emits
        self._running: int | None = None
        self._closed = False
        #: the newest request id the window has painted (result_shown); 0: nothing shown yet
        self._shown = threading.Condition()
        self._shown_id = 0
        if not self.sync:
            collect_on_main_thread()  # no cycle of Qt objects is ever freed on the worker
            self._worker = LatestWinsWorker(self._run)

    def next_id(self) -> int:
        self._latest_id += 1
        return self._latest_id

    @property
    def latest_id(self) -> int:
        return self._latest_id

    def submit(self, request: Request) -> None:
        """Ask for ``request``; its id must come from :meth:`next_id` (so it is the latest)."""
        now = time.monotonic()
        self._prev_submit, self._last_submit = self._last_submit, now
        if self._worker is None:
            self._run(request)
        elif not self._closed:
            self._worker.submit(request)
            self._cancel_sweep()
            with self._shown:
                self._shown.notify_all()  # a sweep waiting for its paint gives way at once

    def result_shown(self, request_id: int) -> None:
        """The window drew and painted the result of ``request_id`` (main thread): its sweep
        may start now."""
        with self._shown:
            self._shown_id = max(self._shown_id, request_id)
            self._shown.notify_all()

    def _wait_until_shown(self, request_id: int) -> bool:
        """Wait (worker thread) until the window has painted this result; False when a newer
        request came meanwhile. The sweep holds the GIL nearly all the time: started at once,
        it left the main thread half the interpreter while it drew and painted that very
        result, ~3x slower (0.16 s instead of 0.05 s per edit after a pause). Before the
        window has painted anything (start-up), the sweep starts at once: the window is shown
        when both are in."""
        worker = self._worker
        assert worker is not None
        with self._shown:
            if self._shown_id:
                self._shown.wait_for(lambda: self._shown_id >= request_id
                                     or worker.has_pending(), SHOWN_WAIT_S)
        return not worker.has_pending()

    def _cancel_sweep(self) -> None:
        """Abandon the sweep the worker is running, if any (at most once per sweep)."""
        with self._sweep_lock:
            if self._sweeping is not None:
                _raise_in_thread(self._sweeping, SweepCancelled)
                self._sweeping = None

    def shutdown(self) -> None:
        """Stop the worker without waiting for a long compute: the window closes at once.

        After this the worker emits nothing, so a worker still inside a numpy call (it stops
        at its next Python instruction) never touches the closing window's Qt objects."""
        worker = self._worker
        if worker is None or self._closed:
            return
        with self._sweep_lock:
            self._closed = True
            self._sweeping = None
            if self._running is not None:  # a compute or a sweep: abandon it
                _raise_in_thread(self._running, SweepCancelled)
                self._running = None
        with self._shown:
            self._shown.notify_all()  # a sweep waiting for its paint wakes at once
        worker.stop(SHUTDOWN_WAIT_S)
        if worker.alive():  # still inside one numpy call: let it out before the process ends
            atexit.register(_let_out_before_exit, worker)

    def _emit(self, signal: Signal, *args: object) -> None:
        """Emit from the worker thread, unless the window has closed."""
        with self._sweep_lock:
            if not self._closed:
                signal.emit(*args)  # type: ignore[attr-defined]

    def _run(self, request: Request) -> None:
        try:
            self._run_stoppable(request)
        except SweepCancelled:
            # raised by shutdown() as the request had just ended, in the bookkeeping after it
            # (the worker waited for the lock shutdown held): it must not end the thread
            pass

    def _run_stoppable(self, request: Request) -> None:
        with self._sweep_lock:
            if self._closed:
                return
            if not self.sync:
                self._running = threading.get_ident()
        try:
            self._run_request(request)
        except SweepCancelled:
            pass  # a newer request waits in the mailbox (or the window closed)
        finally:
            if not self.sync:
                with self._sweep_lock:
                    taken = self._running is None  # shutdown may have raised: take it back
                    self._running = None
                if taken:
                    _raise_in_thread(threading.get_ident(), None)

    def _run_request(self, request: Request) -> None:
        try:
            result = compute(request)
        except Exception as exc:  # a bug, not bad input: still never take the window down
            traceback.print_exc()
            result = Result(request.request_id, request.text,
                            error=f"internal error: {type(exc).__name__}: {exc}")
        self._emit(self._worker_result, result)
        # The sweep runs the layer 641 times (0.1 s at the toy size). While someone types (this
        # request came soon after the previous one) start it only after a pause, so a keystroke
        # never waits behind it; a lone request (start-up, a preset) sweeps at once.
        typing = time.monotonic() - self._prev_submit < SWEEP_IDLE_S
        if not result.ok or (self._worker is not None and typing
                             and self._worker.wait_for_pending(SWEEP_IDLE_S)):
            return
        if self._worker is not None and not self._wait_until_shown(request.request_id):
            return
        self._sweep(request, result)

    def _sweep(self, request: Request, result: Result) -> None:
        if self._worker is not None:
            with self._sweep_lock:
                if self._worker.has_pending():
                    return
                self._sweeping = threading.get_ident()
        conv, cancelled = None, False
        try:
            # the cancel may land inside a nested np.errstate's exit: this outer one restores
            # numpy's error state for the worker's next compute either way
            with np.errstate(**np.geterr()):
                conv = compute_convergence(request, result)
        except SweepCancelled:
            cancelled = True
        except Exception as exc:  # the engine's refusal, or a bug: the panels say which
            if not isinstance(exc, EngineError):
                traceback.print_exc()
            conv = SweepFailed(exc)
        if self._worker is not None:
            with self._sweep_lock:
                cancelled = cancelled or self._sweeping is None
                self._sweeping = None
            if cancelled:  # in case the sweep ended before the exception was raised
                _raise_in_thread(threading.get_ident(), None)
        if not cancelled:
            self._emit(self._worker_convergence, request.request_id, conv)
