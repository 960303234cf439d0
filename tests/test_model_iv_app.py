"""Interventions with a real model open (issue 23): the compute path makes the plain run and the
intervened one from it (the cached plain run reused), the Interventions panel's "every layer",
the Undo action naming what it undoes, and sessions whose intervention is the model's (checked
against the model's layer, not the toy layer behind it)."""

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import TINY_MODEL

from app.compute import Request, compute
from engine import Intervention, Qwen3Config
from engine.model import Qwen3Model

SHARDED = Path(TINY_MODEL)
TEXT = "The cat sat"


def _request(model, ids, request_id, shown=None, **kwargs):
    """A request as the state makes one: the run on screen as the cache, its plain run."""
    return Request(request_id, TEXT, model.layer_config, model.layers[1], model=model, ids=ids,
                   model_layer=1, model_cache=shown.model_run if shown else None,
                   model_plain=shown.model_plain if shown else None, **kwargs)


# ----- compute: the plain run and the intervened one from it -----
def test_compute_makes_the_plain_run_and_the_intervened_one_from_it(tiny):
    ids = tuple(tiny.encode(TEXT))
    t, layers = len(ids), tiny.num_layers
    plain = compute(_request(tiny, ids, 1))
    assert plain.ok and plain.model_plain is None
    iv = Intervention(zero_heads=(1,))
    on = compute(_request(tiny, ids, 2, plain, intervention=iv))
    assert on.ok and on.model_plain is plain.model_run  # the cached plain run, not recomputed
    # only the intervened layer (1) and the ones after it were computed, from the plain run
    assert on.model_run.rows_recomputed == (layers - 1) * t
    whole = tiny.forward(ids, layer=1, intervention=iv)
    assert np.array_equal(on.model_run.residual, whole.residual)
    assert np.array_equal(on.model_run.logits, whole.logits)
    assert on.model_run.intervened_layers == (1,) and on.trace.intervention == iv
    # in every layer: the same as the whole model's forward so intervened
    every = compute(_request(tiny, ids, 3, on, intervention=iv, intervene_layers="all"))
    assert every.model_plain is plain.model_run
    assert every.model_run.intervened_layers == tuple(range(layers))
    assert np.array_equal(every.model_run.logits, tiny.forward(
        ids, layer=1, intervention=iv, intervene_layers="all").logits)
    # switched off again: the plain run itself, nothing computed
    off = compute(_request(tiny, ids, 4, every))
    assert off.model_run is plain.model_run and off.model_plain is None
    # an edit under the intervention: the plain run of the new ids, then the intervened one
    longer = tuple(tiny.encode(TEXT + " down"))
    edit = compute(_request(tiny, longer, 5, on, intervention=iv))
    assert edit.model_plain.ids == longer and not edit.model_plain.is_intervened
    # (the plain rows after the common prefix come through the KV cache: a full forward's
    # numbers to ~1e-15, engine/model.py); the states before layer 1 are the plain run's bits
    whole = tiny.forward(longer, layer=1, intervention=iv)
    assert np.abs(edit.model_run.logits - whole.logits).max() <= 1e-12
    assert np.array_equal(edit.model_run.residual[:2], edit.model_plain.residual[:2])
    assert edit.intervention_diff is not None and edit.intervention_diff.context_heads == (1,)


# ----- the window -----
def _open(window, qtbot, layer=1):
    with qtbot.waitSignal(window.models.finished, timeout=20000) as blocker:
        window.open_model(SHARDED, layer)
    assert blocker.args == [True], window.last_message
    qtbot.waitUntil(lambda: window.state.result is not None
                    and window.state.result.model is window.state.model, timeout=20000)


def _settled(qtbot, window, check):
    qtbot.waitUntil(lambda: window.state.result is not None
                    and window.state.results.is_current(window.state.result.request_id)
                    and check(window.state.result), timeout=20000)


def test_every_layer_from_the_panel_with_its_badge_and_undo(make_window, qtbot):
    window = make_window(text=TEXT)
    panel = window.panels["interventionsDock"]
    assert not panel.scope_box.isVisibleTo(panel)  # the toy layer is one layer
    _open(window, qtbot)
    state = window.state
    window.docks["interventionsDock"].show()
    window.docks["interventionsDock"].raise_()
    qtbot.waitUntil(panel.isVisible)
    assert panel.scope_box.isVisibleTo(panel) and panel.scope_box.currentIndex() == 0
    assert "(1)" in panel.scope_box.itemText(0) and "3" in panel.scope_box.itemText(1)
    state.toggle_neuron(40)  # a neuron the model's layer has and the toy's does not
    _settled(qtbot, window, lambda r: r.model_run.intervened_layers == (1,))
    assert "Switched off in this layer" in panel.active_title.text()
    panel.scope_box.setCurrentIndex(1)
    panel.scope_box.activated.emit(1)  # as a person choosing it
    assert state.intervene_layers == "all"
    _settled(qtbot, window, lambda r: r.model_run.intervened_layers == (0, 1, 2))
    result = state.result
    assert result.model_plain is not None and not result.model_plain.is_intervened
    assert "Switched off in every layer" in panel.active_title.text()
    for name in ("interventionsDock", "stepListDock"):
        badge = window.panels[name].intervention_badge
        qtbot.waitUntil(lambda b=badge: b.isVisible() and "in every layer" in b.text())
    # Undo names what it gives back: the intervention in the shown layer only
    assert window.undo_action.text().replace("&", "") == "Undo"
    tip = window.undo_action.toolTip()
    assert "intervention" in tip and "neuron 40 off" in tip and "every layer" not in tip
    assert window.undo_action.statusTip() == tip
    window.undo_action.trigger()
    assert state.intervene_layers is None and state.intervention == Intervention(
        zero_neurons=(40,))
    assert panel.scope_box.currentIndex() == 0
    _settled(qtbot, window, lambda r: r.model_run.intervened_layers == (1,))
    assert "back to the plain layer" in window.undo_action.toolTip()
    assert "in every layer" in window.redo_action.toolTip()
    # a text edit: Undo says it goes back to the text
    window.editor.set_text(TEXT + " down")
    qtbot.waitUntil(lambda: "text edit" in window.undo_action.toolTip())
    assert f"“{TEXT}”" in window.undo_action.toolTip()
    # exports say which layers it ran in
    qtbot.waitUntil(lambda: state.result.text == TEXT + " down")
    meta = window.files.meta()
    assert meta["intervention"]["layers"] == [1]
    assert meta["intervention"]["zero_neurons"] == [40]


def test_a_session_with_a_model_and_its_intervention_round_trips(make_window, qtbot, tmp_path):
    window = make_window(text=TEXT)
    _open(window, qtbot)
    state = window.state
    iv = Intervention(zero_neurons=(40,), head_scale={3: 0.5})
    state.set_intervention(iv)
    state.set_intervene_all(True)
    _settled(qtbot, window, lambda r: r.model_run.intervened_layers == (0, 1, 2))
    path = tmp_path / "lesson.dualview.json"
    assert window.save_session(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["intervention"]["zero_neurons"] == [40]
    assert data["intervention"]["layers"] == "all"
    # from the toy layer (32 neurons): the session's neuron 40 is the model's, and applies
    window.toy_layer_action.trigger()
    state.clear_intervention()
    state.set_intervene_all(False)
    _settled(qtbot, window, lambda r: r.model is None)
    assert state.config.intermediate_size <= 40  # the toy layer has no neuron 40
    with qtbot.waitSignal(window.models.finished, timeout=20000) as blocker:
        assert window.open_session(path), window.last_message
    assert blocker.args == [True]
    _settled(qtbot, window, lambda r: r.model is state.model and r.trace.intervention == iv)
    assert state.intervention == iv and state.intervene_layers == "all"
    assert state.result.model_run.intervened_layers == (0, 1, 2)
    # the same session with the model open (the session's toy layer is set, so the model is
    # read again): the intervention waits for it, then applies
    state.clear_intervention()
    with qtbot.waitSignal(window.models.finished, timeout=20000):
        assert window.open_session(path), window.last_message
    assert state.intervention == iv and state.intervene_layers == "all"


@pytest.mark.parametrize("model_open", [False, True])
def test_a_sessions_intervention_is_checked_against_the_models_layer(make_window, qtbot,
                                                                     tmp_path, model_open):
    window = make_window(text=TEXT)
    if model_open:
        _open(window, qtbot)
    model = Qwen3Model.load(SHARDED)
    heads = model.layer_config.num_attention_heads
    # the toy layer behind it has more heads than the model: a head the model lacks is
    # refused, the session not applied at all
    toy = Qwen3Config(num_attention_heads=heads * 2, num_key_value_heads=2)
    session = {"format": "dualview-session", "version": 1, "text": "changed text",
               "config": toy.to_dict(), "weights": {"kind": "random", "seed": 3},
               "model": {"path": str(SHARDED.resolve()), "layer": 1},
               "intervention": {"zero_heads": [heads + 1]}}
    path = tmp_path / "bad.dualview.json"
    path.write_text(json.dumps(session), encoding="utf-8")
    before = (window.state.text, window.state.config, window.state.model)
    assert not window.open_session(path)
    assert "intervention is invalid" in window.last_message
    assert f"0…{heads - 1}" in window.last_message or str(heads - 1) in window.last_message
    assert (window.state.text, window.state.config, window.state.model) == before
    assert window.state.intervention is None


def test_reading_a_sessions_intervention_layers_and_ranges():
    from app import sessions

    base = {"format": "dualview-session", "version": 1, "text": "a b",
            "config": Qwen3Config.toy().to_dict(), "weights": {"kind": "random", "seed": 0}}
    neuron_40 = {"zero_neurons": [40], "layers": "all"}
    # a model's intervention: its form is checked on reading, its ranges on opening
    read = sessions.parse_session(dict(base, model={"path": "/m", "layer": 1},
                                       intervention=neuron_40))
    assert read.intervention == Intervention(zero_neurons=(40,))
    assert read.intervene_layers == "all"
    assert read.to_dict()["intervention"]["layers"] == "all"
    # the toy layer's own intervention is still checked against the toy layer (32 neurons)
    with pytest.raises(sessions.SessionError, match="0 to 31"):
        sessions.parse_session(dict(base, intervention=neuron_40))
    for bad in ({"zero_heads": [-1]}, {"zero_neurons": [1], "layers": "some"},
                {"zero_neurons": [1], "layers": [0, 1]}):
        with pytest.raises(sessions.SessionError):
            sessions.parse_session(dict(base, model={"path": "/m", "layer": 1},
                                        intervention=bad))
    # no layers field: the shown layer (and every session written before it existed)
    plain = sessions.parse_session(dict(base, intervention={"zero_heads": [1]}))
    assert plain.intervene_layers is None and "layers" not in plain.to_dict()["intervention"]


def test_closing_the_model_clears_an_intervention_the_toy_layer_cannot_run(make_window, qtbot):
    window = make_window(text=TEXT)
    _open(window, qtbot)
    state = window.state
    state.toggle_neuron(40)  # the model's layer has 64 neurons, the toy layer 32
    _settled(qtbot, window, lambda r: r.model_run.intervened_layers == (1,))
    dropped = []
    state.intervention_dropped.connect(dropped.append)
    state.close_model()
    assert state.intervention is None and dropped == [Intervention(zero_neurons=(40,))]
    # the toy layer computes (no error on every keystroke after) and the person is told
    qtbot.waitUntil(lambda: state.result is not None and state.result.model_run is None
                    and state.result.ok, timeout=5000)
    assert state.error == ""
    assert "Interventions cleared" in window.statusBar().currentMessage()
    # one that the new layer has is kept
    state.toggle_neuron(3)
    _open(window, qtbot)
    assert state.intervention == Intervention(zero_neurons=(3,))
