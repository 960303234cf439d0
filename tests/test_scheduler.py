"""The Qt-free latest-wins worker: one compute at a time, a newer request replaces a waiting one."""

import threading

from app.scheduler import LatestWinsWorker


def test_latest_request_replaces_waiting_ones():
    gate = threading.Event()
    started = threading.Event()
    done = threading.Event()
    seen: list[int] = []
    running = []

    def work(request: int) -> None:
        running.append(request)
        assert len(running) == 1, "two computes ran at once"
        if request == 0:
            started.set()
            gate.wait(5)  # hold the worker busy while newer requests arrive
        seen.append(request)
        running.pop()
        if request == 99:
            done.set()

    worker = LatestWinsWorker(work)
    try:
        worker.submit(0)
        assert started.wait(5)
        for i in range(1, 100):  # all arrive while request 0 runs
            worker.submit(i)
        assert worker.has_pending()
        gate.set()
        assert done.wait(5)
    finally:
        worker.stop()
    assert seen == [0, 99]


def test_stop_finishes_the_running_compute_and_drops_the_waiting_one():
    gate = threading.Event()
    started = threading.Event()
    seen: list[int] = []

    def work(request: int) -> None:
        started.set()
        gate.wait(5)
        seen.append(request)

    worker = LatestWinsWorker(work)
    worker.submit(1)
    assert started.wait(5)
    worker.submit(2)  # waits in the mailbox
    threading.Timer(0.2, gate.set).start()
    worker.stop()  # joins: returns only after request 1 has finished
    assert not worker._thread.is_alive()
    assert seen == [1]


def test_wait_for_pending_inside_work_sees_a_newer_request():
    """The bridge calls it from inside a compute to give way before the slow sweep."""
    outcomes: list[bool] = []
    started = threading.Event()
    done = threading.Event()

    def work(request: int) -> None:
        if request == 0:
            outcomes.append(worker.wait_for_pending(0.01))  # nothing newer yet: times out
            started.set()
            outcomes.append(worker.wait_for_pending(5))  # request 1 arrives meanwhile
        else:
            done.set()

    worker = LatestWinsWorker(work)
    try:
        worker.submit(0)
        assert started.wait(5)
        worker.submit(1)
        assert done.wait(5)
    finally:
        worker.stop()
    assert outcomes == [False, True]
