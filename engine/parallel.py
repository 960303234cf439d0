"""The layer's big matrix products and their elementwise work, shared out over the cores.

With few rows (T = 64 at the Qwen3-0.6B shape) OpenBLAS's own threads each take part of every
product and wait for one another at every call. Here each thread instead takes whole output
columns (its own rows of W) with BLAS on one thread. The layer's two sub-steps go further
(``engine.fastpath.attention_sublayer`` and ``mlp_sublayer``): a thread takes whole GQA head
groups through projections, norms, RoPE, attention and their share of o_proj, or whole MLP
columns through gate, up, SiLU, gating and their share of down_proj, so the threads meet twice
per layer instead of at every product. Waking a sleeping thread costs 0.1–0.3 ms on this kind
of virtual machine, and a thread that waits for its slowest peer at every meeting loses more
when other work shares the cores.

Bits: an output entry of a column share is one dot product over the inner axis whichever
columns are computed next to it, and rows never mix, so the causal statements hold as before;
only o_proj and down_proj, sums of the threads' shares of their inner axis, round differently
from one product (~1e-16; tests check the split against the golden data and the unsplit
computation, and the causality of the split path bitwise).

The number of threads is the number BLAS was given (``OPENBLAS_NUM_THREADS``, else the
cores); with one, or with no BLAS whose threads can be set (threadpoolctl finds it), everything
runs as plain numpy in the caller's thread. The app and every benchmark call
:func:`configure_threads`, which decides it once for all of them (see there why).
"""

from __future__ import annotations

import contextvars
import itertools
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from typing import Any

import numpy as np

#: Multiply-adds (rows x columns x inner) below which one product is not worth sharing out:
#: handing work to a thread costs ~0.05 ms, ~1/5 of this much arithmetic on one core.
MIN_WORK = 1 << 22

_lock = threading.Lock()
_blas: Any = None  # threadpoolctl's controller of the BLAS numpy uses, once looked up
_workers: int | None = None
_pool: ThreadPoolExecutor | None = None
_active = 0  # threads inside single_threaded_blas(); the first sets BLAS to 1, the last restores
_saved_threads = 1


def workers() -> int:
    """How many threads the engine's products use (1: none shared out). Decided once."""
    global _blas, _workers
    if _workers is None:
        with _lock:
            if _workers is None:
                _blas, _workers = _find_blas()
    return _workers


def set_workers(count: int) -> None:
    """Use ``count`` threads from now on (1 turns sharing off); for tests and benchmarks."""
    global _workers
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ValueError(f"workers must be a whole number >= 1, got {count!r}")
    workers()  # looks the BLAS up first
    _workers = count if _blas is not None else 1


#: The engine's threads in the app and in every benchmark (:func:`configure_threads`): one.
#: Why (issue 20; two runs on a 2-core machine shared with other work, medians of interleaved
#: blocks): the app's toy edit never reaches ``MIN_WORK``, so sharing cannot speed it up; a
#: Qwen3-0.6B layer at T = 64 took 221 / 145 ms on one thread and 224 / 150 ms shared over two.
#: Next to a second thread that "paints" (numpy work that releases the GIL, as Qt's painting
#: does) sharing took 296 / 194 ms against 314 / 241 ms, but only by taking the painter's
#: core: it lost 33 % / 19 % of its pace. The app's worker computes while the GUI thread
#: paints, so the second core is the GUI's. (On an idle machine with nothing to paint, sharing
#: speeds a big layer up: set this to the cores there.)
APP_WORKERS = 1


def configure_threads() -> int:
    """Put BLAS and the engine on the one configuration the app runs, and return the engine's
    thread count: BLAS on one thread (OpenBLAS's own threads spin between calls and a tiny
    product ran ~18x slower on two) and :data:`APP_WORKERS` engine threads. The app calls it
    at start-up and every benchmark before it times anything, so a benchmark measures what a
    user runs. Call it from the main thread before any layer runs."""
    global _saved_threads
    workers()  # looks the BLAS up
    if _blas is not None:
        with _lock:
            if _active == 0:
                _set_blas_threads(1)
            _saved_threads = 1  # what single_threaded_blas() restores
    set_workers(APP_WORKERS)
    return workers()


def _find_blas() -> tuple[Any, int]:
    """numpy's OpenBLAS (via threadpoolctl) and its thread count, or ``(None, 1)``."""
    cores = os.cpu_count() or 1
    try:
        from threadpoolctl import ThreadpoolController

        found = ThreadpoolController().select(internal_api="openblas").lib_controllers
    except Exception:  # not installed, or the process cannot be inspected
        return None, 1
    # numpy's own (numpy.libs, numpy/.dylibs) before another package's copy
    found = sorted(found, key=lambda lib: "numpy" not in str(lib.filepath))
    if not found:
        return None, 1
    return found[0], max(1, min(cores, int(found[0].get_num_threads())))


def _set_blas_threads(count: int) -> None:
    """Set OpenBLAS's (process-wide) thread count from any thread.

    threadpoolctl (3.6 and later) lets only the first Python thread that set a limit change it
    again and silently ignores the others, so a layer run on a worker thread after one on the
    main thread kept BLAS on every core inside its shares (other bits, ~1e-15), and concurrent
    runs could leave it on one thread. Nested and concurrent uses are counted under ``_lock``
    here instead (see :func:`single_threaded_blas`), so OpenBLAS's own setter is called.
    """
    setter = getattr(_blas, "_get_symbol", lambda _name: None)("openblas_set_num_threads")
    if setter is None:  # another threadpoolctl: its public call
        _blas.set_num_threads(count)
    else:
        setter(count)


@contextmanager
def single_threaded_blas() -> Any:
    """BLAS on one thread while inside (nested and concurrent uses are counted)."""
    global _active, _saved_threads
    with _lock:
        if _active == 0:
            _saved_threads = _blas.get_num_threads()
            _set_blas_threads(1)
        _active += 1
    try:
        yield
    finally:
        with _lock:
            _active -= 1
            if _active == 0:
                _set_blas_threads(_saved_threads)


#: Set in a thread while it runs one of :func:`run`'s tasks: a task that calls :func:`run` again
#: (a shared-out attention inside a head group's share) then runs its tasks in turn itself,
#: since the pool's threads are all busy with the outer tasks and would never get to them.
_inside = threading.local()


def in_share() -> bool:
    """Whether the calling thread is running one of :func:`run`'s tasks, where BLAS runs on
    one thread."""
    return getattr(_inside, "active", False)


def _as_share(task: Callable[[], object]) -> None:
    _inside.active = True
    try:
        task()
    finally:
        _inside.active = False


def run(tasks: Sequence[Callable[[], object]]) -> None:
    """Run ``tasks`` at once, the first in this thread, with BLAS on one thread each.

    Each task runs in a copy of the caller's context, so ``np.errstate`` carries over.
    A task's exception is raised here, after every task has finished. An exception raised *in
    the calling thread* from outside (the app's cancel of an abandoned compute, Ctrl+C; not an
    ``Exception``) is raised at once: the other threads finish their shares on their own and
    nothing reads them. A share can be a whole sub-step of a big layer, seconds of work, which
    the caller used to wait out, blocked where no such exception could reach it. Called from
    inside a task, it runs the tasks one after another in the calling thread (the same numbers:
    a task's result never depends on which thread runs it).
    """
    global _pool
    if len(tasks) == 1 or in_share():
        for task in tasks:
            task()
        return
    if _pool is None:
        count = workers()  # before taking the lock: workers() takes it too on its first call
        with _lock:
            if _pool is None:
                _pool = ThreadPoolExecutor(max(1, count - 1), thread_name_prefix="engine-product")
    with single_threaded_blas():
        futures = [_pool.submit(contextvars.copy_context().run, _as_share, task)
                   for task in tasks[1:]]
        try:
            _as_share(tasks[0])
        except Exception:
            _wait(futures)  # a task's own error: the others finish before it is raised
            raise
        _wait(futures)
        for future in futures:
            future.result()


def _reset_after_fork() -> None:
    """In a child made by ``os.fork()``: forget the parent's pool and lock.

    A child inherits the pool object but only the thread that forked, so tasks handed to the
    inherited pool would wait for ever for threads that do not exist (mutmut forks each mutant
    from a process that has run the tests; so does any program that forks after a big layer).
    The lock may have been held by one of those threads at the fork, and the count of threads
    inside :func:`single_threaded_blas` counts threads that are gone: both start afresh, and
    BLAS gets back the thread count those threads would have restored. The next :func:`run`
    makes a new pool in the child."""
    global _pool, _lock, _active
    _pool = None
    _lock = threading.Lock()
    if _active:
        _active = 0
        _set_blas_threads(_saved_threads)


if hasattr(os, "register_at_fork"):  # POSIX; Windows has no fork
    os.register_at_fork(after_in_child=_reset_after_fork)


#: How often a thread waiting for the others looks up: an exception raised in it from outside
#: is delivered only between Python instructions, never inside one blocked wait.
_WAKE_S = 0.05


def _wait(futures: Sequence[Future[Any]]) -> None:
    """Until every future is done (at once when they are; a timeout only lets the waiting
    thread run a Python instruction now and then)."""
    pending = [future for future in futures if not future.done()]
    while pending:
        pending = list(wait(pending, timeout=_WAKE_S).not_done)


def shares(x: np.ndarray, columns: int) -> int:
    """In how many parts to split ``x [T, K] @ Wᵀ [K, columns]`` by columns (1: do not split).

    Only plain 2-D inputs are split, so a batch (the continuous view's sweeps) computes as
    before; the decision depends on the shape alone.
    """
    if x.ndim != 2 or x.shape[0] * x.shape[1] * columns < MIN_WORK or workers() < 2:
        return 1  # (size first: the toy layer never even looks for the BLAS)
    return min(workers(), columns)


def even_slices(count: int, parts: int) -> list[slice]:
    """``parts`` contiguous ranges (of columns or rows) covering ``0..count``, as equal as they
    can be."""
    edges = [count * i // parts for i in range(parts + 1)]
    return [slice(a, b) for a, b in itertools.pairwise(edges) if b > a]


def linear(x: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """``x @ weight.T`` (``weight`` in HF's ``[out, in]`` layout), C-ordered; shared out by
    columns when it is big."""
    parts = shares(x, weight.shape[0])
    return x @ weight.T if parts == 1 else linear_many(x, [weight], parts)[0]


def linear_many(x: np.ndarray, weights: Sequence[np.ndarray], parts: int) -> list[np.ndarray]:
    """``[x @ w.T for w in weights]``, each its own C-ordered array, in ``parts`` threads:
    each computes its share of the columns of every one, so they get equal work."""
    outs = [np.empty((x.shape[0], w.shape[0]), dtype=np.result_type(x, w)) for w in weights]

    def share(i: int) -> None:
        for w, out in zip(weights, outs, strict=True):
            slices = even_slices(w.shape[0], parts)
            if i < len(slices):  # a matrix with fewer rows than parts has fewer shares
                np.matmul(x, w[slices[i]].T, out=out[:, slices[i]])

    run([lambda i=i: share(i) for i in range(parts)])
    return outs
