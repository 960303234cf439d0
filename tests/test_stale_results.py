"""No stale frame is ever shown (issue #19): a result for an older request, however it
arrives, never reaches the state or the panels.

The one generation check is ``AppState._on_result_ready`` (``Results.is_current``); the bridge
only carries results. Each test delivers an out-of-date result the way the worker does (the
bridge's worker signal) and asserts that nothing of it is taken in.
"""

from __future__ import annotations

import threading

import pytest

from app.bridge import EngineBridge
from app.compute import Request, compute
from app.state import AppState


@pytest.fixture
def held(qapp):
    """A state whose bridge holds each request instead of computing it (the test delivers)."""
    bridge = EngineBridge(sync=True)
    requests: list[Request] = []
    bridge.submit = requests.append  # type: ignore[method-assign]
    state = AppState(bridge)
    return state, bridge, requests


def deliver(bridge: EngineBridge, request: Request) -> None:
    """The worker's way: its result through the bridge's worker signal."""
    bridge._worker_result.emit(compute(request))


def test_an_older_result_after_a_newer_request_is_dropped(held):
    state, bridge, requests = held
    accepted = []
    state.result_changed.connect(accepted.append)
    state.set_text("the cat sat")
    state.set_text("the cat ran")
    old, new = requests
    deliver(bridge, old)  # out of date: a newer request was made
    assert state.result is None and accepted == []
    deliver(bridge, new)
    assert state.result.text == "the cat ran" and [r.request_id for r in accepted] == [
        new.request_id]
    deliver(bridge, old)  # late again, after the current one was shown
    assert state.result.request_id == new.request_id and len(accepted) == 1


def test_a_result_for_text_emptied_since_is_dropped(held):
    state, bridge, requests = held
    state.set_text("a b")
    state.set_text("")  # the empty state: no request, but it supersedes the one made
    deliver(bridge, requests[0])
    assert state.result is None and state.error == ""


def test_an_older_error_does_not_replace_the_current_result(held):
    state, bridge, requests = held
    state.set_text("a b")
    deliver(bridge, requests[0])
    state.set_text("a c")
    stale_error = Request(requests[0].request_id, "x " * 5000, state.config, state.weights)
    deliver(bridge, stale_error)  # an error result for the old id (over the token cap)
    assert state.error == "" and state.result.text == "a b"


def test_a_stale_convergence_sweep_is_dropped(held):
    state, bridge, requests = held
    state.set_text("a b")
    deliver(bridge, requests[0])
    state.set_text("a b c")
    bridge._worker_convergence.emit(requests[0].request_id, object())
    assert state.convergence is None


def test_a_worker_finishing_out_of_order_never_shows_the_older_result(held, qtbot):
    """Results computed on another thread and queued to the main thread, the newer first."""
    state, bridge, requests = held
    shown = []
    state.result_changed.connect(lambda r: shown.append(r.text))
    state.set_text("one two")
    state.set_text("one three")
    old, new = requests

    def worker() -> None:  # the newer finishes first, the older after it
        bridge._worker_result.emit(compute(new))
        bridge._worker_result.emit(compute(old))

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    qtbot.waitUntil(lambda: shown == ["one three"], timeout=5000)
    qtbot.wait(50)  # the older one is queued behind it: delivered, and dropped
    assert shown == ["one three"] and state.result.request_id == new.request_id


def test_the_panels_never_draw_a_stale_result(make_window, qtbot):
    window = make_window(sync=True, text="a b c")
    bridge, state = window.bridge, window.state
    old = Request(state.pending_id, "a b c", state.config, state.weights)
    window.editor.set_text("a b d")
    drawn_ids = {name: panel.drawn_id for name, panel in window.panels.items()}
    deliver(bridge, old)  # the result of the request before the current one
    assert state.result.text == "a b d"
    assert {name: panel.drawn_id for name, panel in window.panels.items()} == drawn_ids
    assert window.all_panels_current()
