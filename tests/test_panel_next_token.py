"""The Next token panel on a real forward of the tiny Qwen3 checkpoints: the top-10 list is
softmax(logits / T) sorted, the temperature moves it, Append asks for the argmax id, and without
a model the panel says how to open one."""

import numpy as np
import pytest
from conftest import MODEL_TEXT as TEXT
from conftest import deliver, model_result

from app.bridge import EngineBridge
from app.compute import Result
from app.panels.next_token import (
    TOP,
    NextTokenPanel,
    next_token_changes,
    next_token_probs,
    rank_of,
)
from app.state import AppState


@pytest.fixture
def panel(qtbot):
    def make(state=None):
        state = state or AppState(EngineBridge(sync=True))
        widget = NextTokenPanel(state)
        qtbot.addWidget(widget)
        widget.resize(700, 520)
        widget.show()
        qtbot.waitExposed(widget)
        return widget
    return make


def expected_top(logits, t):
    z = logits / t
    p = np.exp(z - z.max())
    p /= p.sum()
    order = sorted(range(len(p)), key=lambda i: (-p[i], i))[:TOP]
    return order, p[order]


def test_the_list_is_softmax_of_logits_over_t_sorted(panel, tiny):
    widget = panel()
    result = model_result(tiny)
    deliver(widget.state, result)
    assert widget.is_current and widget.pages.currentIndex() == 1
    logits = np.asarray(result.model_run.logits)
    for t in (1.0, 0.3, 4.0):
        widget.set_temperature(t)
        ids, probs = expected_top(logits, t)
        assert widget.top_ids == ids
        assert np.abs(widget.top_probs - probs).max() <= 1e-14
        assert widget.table.rowCount() == TOP
        # what is drawn is what was computed: the token column, its tooltip id, the bar
        for row, token_id in enumerate(ids):
            assert f"id {token_id} " in widget.table.item(row, 1).toolTip()
            assert widget.table.cellWidget(row, 2).value() == round(probs[row] * 1000)


def test_the_temperature_changes_the_probabilities(panel, tiny):
    widget = panel()
    deliver(widget.state, model_result(tiny))
    widget.set_temperature(1.0)
    at_one = widget.top_probs.copy()
    widget.set_temperature(0.2)
    cold = widget.top_probs.copy()
    assert "0.2" in widget.t_label.text()
    widget.set_temperature(8.0)
    hot = widget.top_probs.copy()
    assert cold[0] > at_one[0] > hot[0]  # sharper when cold, flatter when hot
    widget.t_one.click()
    assert widget.temperature == 1.0 and np.array_equal(widget.top_probs, at_one)
    # the slider itself (a person dragging it) recomputes too
    widget.slider.setValue(widget.slider.maximum())
    assert widget.temperature == pytest.approx(10.0)
    assert widget.top_probs[0] < at_one[0]


def test_append_emits_the_argmax_id_once_per_press(panel, tiny, qtbot):
    state = AppState(EngineBridge(sync=True))
    state.append_token = lambda _id: None  # the state's own Append is test_model_app.py's
    widget = panel(state)
    result = model_result(tiny)
    deliver(widget.state, result)
    argmax = int(np.argmax(result.model_run.logits))
    widget.set_temperature(5.0)  # the temperature never changes which token is greedy
    with qtbot.waitSignal(widget.append_requested) as sent:
        widget.append_button.click()
    assert sent.args == [argmax]
    assert not widget.append_button.isEnabled()  # waits for the step's result
    deliver(widget.state, model_result(tiny, TEXT + " a", request_id=2))
    assert widget.append_button.isEnabled()


def test_append_goes_to_the_states_append_token_when_it_has_one(panel, tiny):
    state = AppState(EngineBridge(sync=True))
    calls = []
    state.append_token = calls.append  # what the model-aware state provides
    widget = panel(state)
    result = model_result(tiny)
    deliver(state, result)
    widget.append_button.click()
    assert calls == [int(np.argmax(result.model_run.logits))]


def test_special_tokens_are_styled_apart_and_pieces_are_readable(panel, tiny):
    widget = panel()
    deliver(widget.state, model_result(tiny))
    special_id = tiny.encode("<|im_end|>")[0]
    from app.widgets.piece_text import shown_pieces
    (special,) = shown_pieces(tiny, [special_id])
    assert special.special and special.text == "<|im_end|>"
    space_the = shown_pieces(tiny, tiny.encode(" the")[:1])[0]
    assert space_the.text.startswith("␣")
    byte = shown_pieces(tiny, tiny.encode("我")[:1])[0]
    assert byte.text.startswith("‹")  # part of a character: its bytes
    # the table styles a special row apart (italic) from a plain one
    widget.shown[0] = special
    widget._update_list()
    assert [widget.table.item(r, 1).font().italic() for r in range(TOP)] == [
        p.special for p in widget.shown]
    assert widget.table.item(0, 1).font().italic()


def test_without_a_model_the_panel_says_how_to_open_one(panel, tiny):
    widget = panel()
    run_free = model_result(tiny)
    toy = Result(request_id=1, text=run_free.text, tokens=run_free.tokens,
                 trace=run_free.trace)  # the toy layer's kind of result: no model
    deliver(widget.state, toy)
    assert widget.is_current and widget.pages.currentIndex() == 0
    assert "Open a model" in widget.note.text() and widget.note.isVisible()
    assert widget.top_ids == [] and not widget.append_button.isEnabled()
    deliver(widget.state, model_result(tiny, request_id=2))
    assert widget.pages.currentIndex() == 1 and len(widget.top_ids) == TOP


def test_the_model_docks_are_registered_hidden_and_say_open_a_model_with_the_toy_layer(
        make_window, qtbot):
    from app.docks import DOCKS, MODEL_DOCKS

    specs = {spec.object_name: spec for spec in DOCKS}
    assert MODEL_DOCKS == ("nextTokenDock", "throughDepthDock")
    window = make_window(sync=True, text="a b c")
    for name in MODEL_DOCKS:
        assert specs[name].visible is False
        dock = window.docks[name]
        assert not dock.isVisible()
        assert dock.toggleViewAction() in window.view_menu.actions()
        dock.show()
        dock.raise_()
        panel = window.panels[name]
        qtbot.waitUntil(lambda p=panel: p.isVisible() and p.is_current, timeout=5000)
        assert panel.pages.currentIndex() == 0  # the toy layer: no model to predict with
        assert "Open a model" in panel.note.text()
    assert window.docks["nextTokenDock"].windowTitle() == "Next token"


# ----- with an intervention: the plain model and the intervened one side by side -----
def test_next_token_changes_is_both_top_tens_sorted_by_change():
    rng = np.random.default_rng(5)
    plain, after = rng.normal(size=300) * 3, rng.normal(size=300) * 3
    for t in (1.0, 0.5, 3.0):
        ids, before_p, after_p = next_token_changes(plain, after, t)
        want_before, want_after = (expected_top(logits, t) for logits in (plain, after))
        assert set(ids) == set(want_before[0]) | set(want_after[0])
        p0 = np.exp(plain / t - (plain / t).max())
        p0 /= p0.sum()
        p1 = np.exp(after / t - (after / t).max())
        p1 /= p1.sum()
        assert np.abs(before_p - p0[ids]).max() <= 1e-14
        assert np.abs(after_p - p1[ids]).max() <= 1e-14
        change = np.abs(p1[ids] - p0[ids])
        assert all(change[i] >= change[i + 1] for i in range(len(ids) - 1))
    probs = np.array([0.1, 0.5, 0.2, 0.2])
    assert [rank_of(probs, i) for i in range(4)] == [4, 1, 2, 2]


def test_with_an_intervention_the_list_compares_plain_and_intervened(panel, tiny):
    from engine import Intervention

    widget = panel()
    iv = Intervention(zero_heads=(1,), zero_neurons=(40,))
    result = model_result(tiny, intervention=iv)
    deliver(widget.state, result)
    plain, run = result.model_plain, result.model_run
    assert not np.array_equal(plain.logits, run.logits)  # the intervention changed something
    for t in (1.0, 0.4):
        widget.set_temperature(t)
        ids, before, after = next_token_changes(plain.logits, run.logits, t)
        assert widget.changes == ids and np.array_equal(widget.before, before)
        assert np.array_equal(widget.after, after)
        assert len(ids) >= TOP and widget.table.rowCount() == len(ids)
        assert widget.table.columnCount() == 5
        for row, token_id in enumerate(ids):
            assert f"id {token_id} " in widget.table.item(row, 1).toolTip()
            assert widget.table.cellWidget(row, 2).value() == round(before[row] * 1000)
            assert widget.table.cellWidget(row, 3).value() == round(after[row] * 1000)
            sign = "+" if after[row] > before[row] else "−"
            assert widget.table.item(row, 4).text().startswith(sign)
            # its place in each model's whole list, before → after
            places = [int((p > p[token_id]).sum()) + 1 for p in (
                next_token_probs(plain.logits, t), next_token_probs(run.logits, t))]
            shown = widget.table.item(row, 0).text()
            assert shown == (str(places[0]) if places[0] == places[1]
                             else f"{places[0]} → {places[1]}")
    # Append still appends the intervened model's own top token (the model on show)
    assert widget.top_ids[0] == int(np.argmax(run.logits))
    # what is off, named in the note and in the badge
    assert widget.compare_note.isVisible()
    assert "head 1 off" in widget.compare_note.text()
    assert "in layer 1" in widget.compare_note.text()
    assert widget.intervention_badge.isVisible()
    assert "neuron 40 off, in layer 1" in widget.intervention_badge.text()
    # the plain model again: the model's own list, three columns
    deliver(widget.state, model_result(tiny, request_id=2))
    assert widget.table.columnCount() == 3 and widget.table.rowCount() == TOP
    assert widget.changes == [] and not widget.compare_note.isVisible()
    assert "INTERVENED" not in widget.intervention_badge.text()
    assert widget.table.cellWidget(0, 2).value() == round(widget.top_probs[0] * 1000)


def test_an_intervention_in_every_layer_says_so(panel, tiny):
    from engine import Intervention

    widget = panel()
    result = model_result(tiny, intervention=Intervention(zero_heads=(2,)),
                          intervene_layers="all")
    deliver(widget.state, result)
    assert result.model_run.intervened_layers == tuple(range(tiny.num_layers))
    assert "head 2 off, in every layer" in widget.intervention_badge.text()
    assert "in every layer" in widget.compare_note.text()
