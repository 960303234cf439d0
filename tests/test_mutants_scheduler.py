"""Tests that kill mutants of app/scheduler.py the other tests let live (docs/testing.md):
the worker's busy/idle flags, its thread (a named daemon, so a stuck compute never holds the
window's exit), and a stop that gives up after its timeout."""

import threading
import time
from types import SimpleNamespace

import pytest

from app.scheduler import LatestWinsWorker


def _thread_named(name):
    return next(t for t in threading.enumerate() if t.name == name)


@pytest.fixture
def make_worker():
    """``make_worker(work, **options)``: a LatestWinsWorker, stopped after the test."""
    made = []

    def make(work, **options):
        worker = LatestWinsWorker(work, **options)
        made.append(worker)
        return worker

    yield make
    for worker in made:
        worker.stop()


@pytest.fixture
def gated(make_worker):
    """``gated.make(name)``: a worker whose requests set ``gated.started`` and then wait (up
    to 10 s) at ``gated.gate``; the gate is opened after the test at the latest, before the
    worker is stopped."""
    gate, started = threading.Event(), threading.Event()

    def work(_request):
        started.set()
        gate.wait(10)

    yield SimpleNamespace(gate=gate, started=started,
                          make=lambda name: make_worker(work, name=name))
    gate.set()


def test_idle_before_during_and_after_a_request(gated):
    worker = gated.make("mutants-idle")
    assert worker.idle()  # nothing submitted: idle
    worker.submit(1)
    assert gated.started.wait(5)
    assert not worker.idle()  # running a request
    assert not worker.has_pending()  # the request left the mailbox when it started
    worker.submit(2)
    assert not worker.idle() and worker.has_pending()
    gated.gate.set()
    deadline = time.monotonic() + 5
    while not worker.idle() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert worker.idle()  # both done: idle again


def test_the_worker_thread_is_a_named_daemon(make_worker):
    make_worker(lambda _r: None, name="mutants-daemon")
    assert _thread_named("mutants-daemon").daemon  # closing never waits for a stuck compute
    make_worker(lambda _r: None)
    assert any(t.name == "dualview-engine" for t in threading.enumerate())


def test_stop_gives_up_after_its_timeout_and_leaves_nothing_pending(gated):
    worker = gated.make("mutants-stop")
    worker.submit(1)
    assert gated.started.wait(5)
    worker.submit(2)
    t0 = time.monotonic()
    worker.stop(timeout=0.2)
    assert time.monotonic() - t0 < 3  # did not wait for the stuck compute
    assert worker.alive()  # still inside its request
    assert not worker.has_pending()  # the waiting request was dropped
    assert worker.wait_for_pending(0)  # a stopping worker never blocks its follow-up
    t0 = time.monotonic()
    worker.join(0.2)
    assert time.monotonic() - t0 < 3
    gated.gate.set()
    worker.join(5)
    assert not worker.alive()


def test_wait_for_pending_wakes_at_a_new_request_or_a_stop_not_at_its_timeout(make_worker):
    """As the bridge uses it: the running work waits for a newer request before its slow
    follow-up; it must wake when one arrives (or the worker stops), not at the timeout."""
    waited = []

    def work(request):
        if request == "wait":
            t0 = time.monotonic()
            woke = worker.wait_for_pending(10)
            waited.append((woke, time.monotonic() - t0))

    worker = make_worker(work, name="mutants-wait")
    assert not worker.wait_for_pending(0.05)  # nothing waits: False after the timeout
    for wake in (lambda: worker.submit("next"), worker.stop):
        worker.submit("wait")
        timer = threading.Timer(0.3, wake)
        timer.start()
        timer.join()
        deadline = time.monotonic() + 15
        while len(waited) < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        woke, seconds = waited.pop()
        assert woke and seconds < 5  # woke at the request / the stop, not after 10 s
