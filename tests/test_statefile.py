"""The state-file test hook (app/statefile.py): off without DUALVIEW_STATE_FILE; with it, the
file follows each result and mode change, written whole. The end-to-end test reads it from
outside the app (tests/test_e2e_xvfb.py)."""

import json

from app import statefile


def read(path):
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def test_off_by_default(make_window, monkeypatch):
    monkeypatch.delenv(statefile.ENV, raising=False)
    window = make_window(sync=True, text="a b")
    assert statefile.attach_from_env(window) is None


def test_the_file_follows_results_and_modes(make_window, qtbot, tmp_path, monkeypatch):
    path = tmp_path / "state.json"
    monkeypatch.setenv(statefile.ENV, str(path))
    window = make_window(sync=True, text="我爱北京")
    hook = statefile.attach_from_env(window)
    assert hook is not None
    qtbot.waitUntil(lambda: read(path).get("result_text") == "我爱北京")
    state = read(path)
    assert state["tokens"] == list("我爱北京") and state["causal"] and state["panels_current"]
    assert not state["presentation"] and not state["tour_running"]
    window.editor.set_text("我爱北京天")
    qtbot.waitUntil(lambda: read(path).get("result_text") == "我爱北京天")
    window.causal_action.setChecked(False)  # the mask off: the file says so once drawn
    qtbot.waitUntil(lambda: read(path).get("result_causal") is False)
    window.start_tour()
    qtbot.waitUntil(lambda: read(path).get("tour_running") is True)
    assert read(path)["tour_stop"] == "welcome"
    assert read(path)["seq"] == hook.seq and not (tmp_path / "state.json.partial").exists()
