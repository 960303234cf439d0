"""The convergence sweep follows a result only once the window has painted it.

The sweep holds the interpreter nearly all the time; started at once it halved the main
thread's speed while it drew and painted that very result (an edit after a pause took ~3x
longer). Before the window has painted anything (start-up) it starts at once.
"""

from __future__ import annotations

import time

import pytest

import engine
from app import bridge as bridge_module
from app.bridge import EngineBridge
from app.compute import Request

CONFIG = engine.Qwen3Config.toy()
WEIGHTS = engine.LayerWeights.random(CONFIG, 0)


@pytest.fixture
def bridge(qtbot):
    made = EngineBridge(sync=False)
    results: list[int] = []
    sweeps: list[int] = []
    made.result_ready.connect(lambda r: results.append(r.request_id))
    made.convergence_ready.connect(lambda rid, conv: sweeps.append(rid))
    made.seen = (results, sweeps)  # type: ignore[attr-defined]
    yield made
    made.shutdown()


def ask(bridge: EngineBridge, text: str) -> int:
    request_id = bridge.next_id()
    bridge.submit(Request(request_id, text, CONFIG, WEIGHTS))
    return request_id


def test_the_first_sweep_starts_at_once_later_ones_after_their_paint(bridge, qtbot,
                                                                     monkeypatch):
    # (a paint that never comes is waited for SHOWN_WAIT_S, 0.5 s: longer here, so a slow
    # machine's result delivery cannot let the sweep start on that fallback during the wait)
    monkeypatch.setattr(bridge_module, "SHOWN_WAIT_S", 30.0)
    results, sweeps = bridge.seen
    first = ask(bridge, "the cat sat")
    qtbot.waitUntil(lambda: sweeps == [first], timeout=10_000)  # nothing painted yet: at once
    bridge.result_shown(first)
    # (fixed waits on purpose: the bridge tells typing from a pause by the time between requests,
    # and "the sweep does not start before the paint" is "nothing happens within 300 ms")
    time.sleep(bridge_module.SWEEP_IDLE_S + 0.05)  # a pause: not typing
    second = ask(bridge, "the cat sat down")
    qtbot.waitUntil(lambda: results[-1:] == [second], timeout=10_000)
    qtbot.wait(300)  # far longer than the sweep takes: it waits for the paint
    assert sweeps == [first]
    bridge.result_shown(second)
    qtbot.waitUntil(lambda: sweeps == [first, second], timeout=10_000)


def test_a_newer_request_takes_the_place_of_a_sweep_waiting_for_its_paint(bridge, qtbot,
                                                                           monkeypatch):
    monkeypatch.setattr(bridge_module, "SHOWN_WAIT_S", 30.0)  # (as above)
    results, sweeps = bridge.seen
    first = ask(bridge, "one two")
    qtbot.waitUntil(lambda: sweeps == [first], timeout=10_000)
    bridge.result_shown(first)
    time.sleep(bridge_module.SWEEP_IDLE_S + 0.05)
    second = ask(bridge, "one two three")
    qtbot.waitUntil(lambda: results[-1:] == [second], timeout=10_000)
    third = ask(bridge, "one two four")  # before the second result was painted
    qtbot.waitUntil(lambda: results[-1:] == [third], timeout=10_000)
    bridge.result_shown(third)
    qtbot.waitUntil(lambda: sweeps[-1:] == [third], timeout=10_000)
    assert second not in sweeps


def test_a_window_that_never_paints_gets_its_sweep_after_a_while(bridge, qtbot, monkeypatch):
    monkeypatch.setattr(bridge_module, "SHOWN_WAIT_S", 0.2)
    _results, sweeps = bridge.seen
    first = ask(bridge, "alpha")
    qtbot.waitUntil(lambda: sweeps == [first], timeout=10_000)
    bridge.result_shown(first)
    time.sleep(bridge_module.SWEEP_IDLE_S + 0.05)
    second = ask(bridge, "alpha beta")  # never reported painted (a minimised window)
    qtbot.waitUntil(lambda: sweeps == [first, second], timeout=10_000)


def test_the_window_reports_each_result_it_painted(make_window, qtbot):
    window = make_window(sync=False, text=None)
    shown: list[int] = []
    original = window.bridge.result_shown
    window.bridge.result_shown = lambda rid: (shown.append(rid), original(rid))
    window.editor.set_text("a b c")
    qtbot.waitUntil(lambda: window.state.result is not None
                    and window.state.result.text == "a b c", timeout=10_000)
    qtbot.waitUntil(lambda: shown[-1:] == [window.state.result.request_id], timeout=5_000)
