"""File ▸ Open layer weights…: a real checkpoint's layer replaces the random one (the status
bar says which), a bad file says why and keeps the layer on screen, Back to random weights
returns, and a session saves the file's layer and reopens it (or says the file is gone or
changed and runs random weights of the same shape)."""

import json

import numpy as np
import pytest
from conftest import wait_for_text
from PySide6.QtWidgets import QFileDialog, QInputDialog

from engine import LayerWeights, Qwen3Config
from tests.safetensors_files import SMALL, layer_tensors, write_model, write_safetensors

pytestmark = pytest.mark.usefixtures("restore_view")


def same_weights(a, b):
    return all(np.array_equal(a[name], b[name]) for name in a)


def wait_for_layer(qtbot, window, config):
    qtbot.waitUntil(lambda: window.state.result is not None
                    and window.state.result.trace.config == config
                    and window.all_panels_current(), timeout=10000)


def save_with_file_layer(make_window, path, session, text):
    """A two-layer model written to ``path``, its layer 1 run on ``text`` and saved as
    ``session``: the model's tensors per layer and the session's JSON."""
    values = write_model(path, layers=2)
    window = make_window(sync=True, text=text)
    assert window.load_weights(path, 1)
    assert window.save_session(session)
    return values, json.loads(session.read_text(encoding="utf-8"))


def test_the_menu_action_loads_the_chosen_layer(make_window, qtbot, tmp_path, monkeypatch):
    path = tmp_path / "model.safetensors"
    values = write_model(path, layers=2)
    window = make_window(sync=True, text="the cat sat")
    asked = []
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        staticmethod(lambda *a, **k: (str(path), "")))

    def get_int(parent, title, label, value, low, high, step):
        asked.append((label, value, low, high))
        return 1, True

    monkeypatch.setattr(QInputDialog, "getInt", staticmethod(get_int))
    assert not window.random_weights_action.isEnabled()
    window.open_weights_action.trigger()
    assert asked == [("model.safetensors holds 2 decoder layers: 0, 1. Which one should run?",
                      0, 0, 1)]
    wait_for_layer(qtbot, window, SMALL)
    state = window.state
    assert state.config == SMALL and state.weights_source.layer == 1
    assert all(np.array_equal(state.weights[n], v) for n, v in values[1].items())
    status = window.status.weights.text()
    assert status == "model.safetensors, layer 1 — hidden 12, 4 heads (2 kv) × 6, MLP 20"
    assert "rms_norm_eps = 1e-06, rope_theta = 1e+06" in window.status.weights.toolTip()
    assert window.random_weights_action.isEnabled()
    # the panels drew the real layer's result
    assert state.result.trace.config == SMALL and state.error == ""
    window.random_weights_action.trigger()
    assert state.weights_source is None and state.config == SMALL
    assert same_weights(state.weights, LayerWeights.random(SMALL, state.seed))
    assert window.status.weights.text() == f"Random weights (seed {state.seed})"
    assert not window.random_weights_action.isEnabled()


def test_a_cancelled_layer_question_changes_nothing(make_window, tmp_path, monkeypatch):
    path = tmp_path / "model.safetensors"
    write_model(path, layers=3)
    window = make_window(sync=True, text="a b")
    before = window.state.weights
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        staticmethod(lambda *a, **k: (str(path), "")))
    monkeypatch.setattr(QInputDialog, "getInt", staticmethod(lambda *a: (0, False)))
    window.open_weights_action.trigger()
    assert window.state.weights is before and window.state.weights_source is None


def test_a_corrupt_file_says_why_and_keeps_the_layer(make_window, tmp_path, monkeypatch):
    window = make_window(sync=True, text="a b")
    before, config = window.state.weights, window.state.config
    bad = tmp_path / "model.safetensors"
    bad.write_bytes(b"\x40\x00\x00\x00\x00\x00\x00\x00{\"model.layers.0.x\": [broken")
    assert not window.load_weights(bad)
    assert window.last_message.startswith("Cannot load weights from model.safetensors: ")
    assert "is cut short" in window.last_message
    assert window.state.weights is before and window.state.config == config
    assert window.status.message_box is not None and window.status.message_box.isVisible()
    # through the menu too, and in Chinese
    window.set_language("zh")
    stored, _ = layer_tensors(SMALL, 0, "F32")
    stored["mlp.up_proj.weight"][0, 0] = np.inf
    write_safetensors(bad, {f"model.layers.0.{n}": ("F32", a) for n, a in stored.items()})
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        staticmethod(lambda *a, **k: (str(bad), "")))
    window.open_weights_action.trigger()
    assert "mlp.up_proj.weight" in window.last_message
    assert "contains NaN or Inf" not in window.last_message  # said in Chinese
    assert window.state.weights is before


def test_the_chinese_interface_names_the_menu_and_the_status(make_window, tmp_path):
    path = tmp_path / "model.safetensors"
    write_model(path, layers=1)
    window = make_window(sync=True, text="a b")
    window.set_language("zh")
    assert window.open_weights_action.text() != "Open layer &weights…"
    assert window.random_weights_action.text() != "Back to &random weights"
    assert "随机权重" in window.status.weights.text()
    assert window.load_weights(path)
    assert "第 0 层" in window.status.weights.text()


def test_a_session_reopens_the_files_layer(make_window, qtbot, tmp_path):
    path, session = tmp_path / "model.safetensors", tmp_path / "lesson.dualview.json"
    values, data = save_with_file_layer(make_window, path, session, "one two three")
    assert data["weights"]["kind"] == "file" and data["weights"]["layer"] == 1
    assert data["weights"]["path"] == str(path)
    assert data["config"] == SMALL.to_dict()

    other = make_window(sync=True, text="x")
    assert other.open_session(session)
    wait_for_text(qtbot, other, "one two three")
    state = other.state
    assert state.weights_source is not None and state.weights_source.layer == 1
    assert all(np.array_equal(state.weights[n], v) for n, v in values[1].items())
    assert state.result.trace.config == SMALL
    # exports say where the weights came from
    assert other.files.meta()["weights"]["file"] == "model.safetensors"

    # the file changed: said, and random weights of the same shape run
    stored, _ = layer_tensors(SMALL, 9, "BF16")
    write_safetensors(path, {f"model.layers.1.{n}": ("BF16", a) for n, a in stored.items()})
    third = make_window(sync=True, text="x")
    assert third.open_session(session)
    assert "has changed since the session was saved" in third.last_message
    assert third.state.weights_source is None and third.state.config == SMALL
    wait_for_text(qtbot, third, "one two three")

    # the file gone: said too; a window showing that layer already keeps it (not read again)
    path.unlink()
    fourth = make_window(sync=True, text="x")
    assert fourth.open_session(session)
    assert "no weights file at" in fourth.last_message
    assert fourth.state.weights_source is None and fourth.state.config == SMALL
    kept = other.state.weights
    assert other.open_session(session)
    assert other.state.weights is kept and other.state.weights_source is not None


def test_a_random_session_replaces_file_weights(make_window, tmp_path):
    path = tmp_path / "model.safetensors"
    write_model(path, layers=1)
    window = make_window(sync=True, text="a b")
    plain = tmp_path / "plain.dualview.json"
    assert window.save_session(plain)
    assert window.load_weights(path)
    assert window.open_session(plain)
    assert window.state.weights_source is None
    assert window.state.config == Qwen3Config.toy()


def test_a_session_with_a_bad_weights_entry_is_refused(make_window, tmp_path):
    from app import sessions

    window = make_window(sync=True, text="a")
    data = sessions.Session(text="a").to_dict()
    data["weights"] = {"kind": "file", "path": "", "layer": 0}
    bad = tmp_path / "bad.dualview.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    assert not window.open_session(bad)
    assert "weights file or layer number is invalid" in window.last_message
    data["weights"] = {"kind": "file", "path": "m.safetensors", "layer": "zero"}
    bad.write_text(json.dumps(data), encoding="utf-8")
    assert not window.open_session(bad)
    assert "weights.'layer' has the wrong type" in window.last_message


def test_a_long_message_is_cut_with_an_ellipsis_before_the_status_labels(make_window, tmp_path):
    # a file's path made the load errors long: Qt clipped them mid-word at the weights label,
    # and the engine-error label (a plain QLabel) ran over it
    window = make_window(sync=True, text="a b")
    window.resize(900, 600)
    long_text = "Cannot load weights from model.safetensors: " + "a very long reason " * 30
    window.notify(long_text, dialog=False)
    shown = window.statusBar().currentMessage()
    assert shown.endswith("…") and long_text.startswith(shown[:-1])
    assert window.last_message == long_text
    edge = window.status.weights.x()
    assert window.statusBar().fontMetrics().horizontalAdvance(shown) < edge
    window.statusBar().clearMessage()
    window.status.error.setText(long_text)
    window.status.error.repaint()
    error = window.status.error
    assert error.geometry().right() < edge and error.text() == long_text
    assert error.shown_text().endswith("…") and error.toolTip() == long_text


def test_a_lesson_folder_moved_with_its_model_still_finds_the_weights(make_window, qtbot,
                                                                      tmp_path):
    # a teacher prepares the lesson at home and copies the folder to the classroom machine:
    # the absolute path saved in the session is gone there, the folder's layout is not
    lesson = tmp_path / "home" / "lesson"
    path = lesson / "qwen3" / "model.safetensors"
    path.parent.mkdir(parents=True)
    values, data = save_with_file_layer(make_window, path, lesson / "lesson.dualview.json",
                                        "one two")
    assert data["weights"]["relative"] == "qwen3/model.safetensors"
    moved = tmp_path / "classroom" / "lesson"
    moved.parent.mkdir()
    (tmp_path / "home" / "lesson").rename(moved)
    other = make_window(sync=True, text="x")
    assert other.open_session(moved / "lesson.dualview.json")
    wait_for_text(qtbot, other, "one two")
    source = other.state.weights_source
    assert source is not None and source.path == str(moved / "qwen3" / "model.safetensors")
    assert all(np.array_equal(other.state.weights[n], v) for n, v in values[1].items())
    assert "could not be loaded" not in other.last_message
