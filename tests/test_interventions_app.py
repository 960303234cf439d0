"""Interventions in the window (issue 23): state, panels, badge, undo, comparison, sessions."""

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QRect
from PySide6.QtWidgets import QWidget

from app.compute import Request, compare_with_plain, compute
from app.state import Snapshot, TextHistory
from engine import EngineError, Intervention, LayerWeights, Qwen3Config, embed, run_layer

TEXT = "我爱北京天安门"


def visible_panels(window):
    return [p for p in window.panels.values() if p.isVisible()]


def test_history_keeps_text_and_intervention_steps_in_order():
    history = TextHistory(merge_s=1.0)
    history.record(Snapshot("a"), now=0.0)
    history.record(Snapshot("ab"), now=0.1, merge=False)  # an intervention: its own step
    history.record(Snapshot("ab", Intervention(zero_heads=(1,))), now=0.2)  # typing right after
    assert history.undo("x") == Snapshot("ab", Intervention(zero_heads=(1,)))
    assert history.undo("y") == Snapshot("ab")
    assert history.undo("z") == Snapshot("a")
    assert history.undo("w") is None


def test_compute_compares_a_zeroed_head_with_the_plain_layer():
    config = Qwen3Config.toy()
    weights = LayerWeights.random(config, 0)
    iv = Intervention(zero_heads=(2,))
    result = compute(Request(1, TEXT, config, weights, intervention=iv))
    assert result.ok and result.trace.intervention == iv
    diff = result.intervention_diff
    plain = run_layer(result.trace["embed"], weights, config)
    steps = [s.name for s in plain.steps]
    cut = steps.index("attn_context")
    assert all(diff.identical[name] for name in steps[:cut])
    assert not diff.identical["attn_context"] and diff.first_changed == "attn_context"
    assert diff.context_heads == (2,)
    d = config.head_dim
    changed = np.flatnonzero((plain["attn_context"] != result.trace["attn_context"]).any(axis=0))
    assert set(changed) <= set(range(2 * d, 3 * d))
    assert diff.max_abs["attn_context"] == np.abs(plain["attn_context"][:, 2 * d:3 * d]).max()
    # the plain request has no comparison, and its bits are the plain layer's
    plain_result = compute(Request(2, TEXT, config, weights))
    assert plain_result.intervention_diff is None
    assert np.array_equal(plain_result.trace["resid_mlp"], plain["resid_mlp"])


def test_compare_with_plain_needs_an_intervened_trace():
    config = Qwen3Config.toy()
    weights = LayerWeights.random(config, 0)
    x = embed(["a", "b"], config.hidden_size)
    plain = run_layer(x, weights, config)
    with pytest.raises(ValueError, match="intervened"):
        compare_with_plain(plain, plain)


def test_skipping_the_mlp_changes_only_the_last_step():
    config = Qwen3Config.toy()
    weights = LayerWeights.random(config, 0)
    result = compute(Request(1, TEXT, config, weights, intervention=Intervention(skip=("mlp",))))
    diff = result.intervention_diff
    assert diff.first_changed == "resid_mlp"
    assert [n for n in diff.steps if not diff.identical[n]] == ["resid_mlp"]


# ----- in the window -----
def wait_current(qtbot, window):
    qtbot.waitUntil(lambda: window.state.result is not None
                    and window.state.results.is_current(window.state.result.request_id)
                    and window.all_panels_current(), timeout=5000)


def show_dock(window, qtbot, name):
    window.docks[name].show()
    window.docks[name].raise_()
    qtbot.waitUntil(lambda: window.panels[name].isVisible(), timeout=3000)
    return window.panels[name]


def test_head_off_from_the_attention_panel_changes_only_that_heads_columns(make_window,
                                                                           qtbot):
    window = make_window(sync=True)
    plain = window.state.result.trace
    window.state.set_head(1)
    attention = window.panels["attentionDock"]
    attention.head_off.click()
    wait_current(qtbot, window)
    trace = window.state.result.trace
    assert window.state.intervention == Intervention(zero_heads=(1,))
    assert trace.intervention == Intervention(zero_heads=(1,)) and attention.head_off.isChecked()
    d = trace.config.head_dim
    before, after = plain["attn_context"], trace["attn_context"]
    assert np.all(after[:, d:2 * d] == 0)
    assert np.array_equal(np.delete(after, np.s_[d:2 * d], axis=1),
                          np.delete(before, np.s_[d:2 * d], axis=1))  # bit for bit
    for name in ("embed", "q_proj", "attn_probs"):
        assert np.array_equal(trace[name], plain[name])
    # the button again switches it back on
    attention.head_off.click()
    wait_current(qtbot, window)
    assert window.state.intervention is None and window.state.result.trace.intervention is None
    assert np.array_equal(window.state.result.trace["attn_context"], before)


def test_every_panel_carries_the_badge_and_clear_takes_it_away(make_window, qtbot):
    window = make_window(sync=True)
    show_dock(window, qtbot, "interventionsDock")
    window.state.skip_branch("attention")
    wait_current(qtbot, window)
    panels = visible_panels(window)
    assert len(panels) >= 7
    for panel in panels:
        badge = panel.intervention_badge
        assert badge.isVisible(), type(panel).__name__
        assert "INTERVENED" in badge.text() and "attention skipped" in badge.text()
        # in the panel's own picture (a screenshot of the dock shows it)
        assert badge.geometry().intersects(panel.rect())
        # in a strip of its own: no control or plot of the panel lies under it (over the
        # body, it hid the attention panel's head box and "off" button)
        for child in panel.findChildren(QWidget):
            if child is badge or not child.isVisible() or badge.isAncestorOf(child):
                continue
            where = QRect(child.mapTo(panel, QPoint(0, 0)), child.size())
            assert not where.intersects(badge.geometry()) or child.isAncestorOf(badge), (
                type(panel).__name__, child.objectName() or type(child).__name__)
    shot = window.panels["heatmapDock"].grab().toImage()
    red = shot.pixelColor(shot.width() - 4, 4)  # the badge sits in the top right corner
    assert (red.red(), red.green(), red.blue()) == (0xc6, 0x28, 0x28)
    panel = window.panels["interventionsDock"]
    assert [part.kind for part, _b in panel.part_buttons] == ["skip"]
    panel.clear_button.click()
    wait_current(qtbot, window)
    assert window.state.intervention is None
    for p in visible_panels(window):
        # the strip stays (made and removed, it re-laid out every plot at each toggle) and
        # says the layer is plain again, in grey
        assert "INTERVENED" not in p.intervention_badge.text()
        assert "PLAIN" in p.intervention_badge.text()
    shot = window.panels["heatmapDock"].grab().toImage()
    grey = shot.pixelColor(shot.width() - 4, 4)
    assert (grey.red(), grey.green(), grey.blue()) == (0xe0, 0xe0, 0xe0)


def test_ctrl_z_undoes_an_intervention_in_order_with_text_edits(make_window, qtbot):
    from PySide6.QtCore import Qt

    window = make_window(sync=True, text="one")
    window.state.history_merge_s = 0
    window.editor.set_text("one two")
    wait_current(qtbot, window)
    window.state.toggle_neuron(3)
    window.state.scale_head(0, 0.5)
    wait_current(qtbot, window)
    assert window.state.result.trace.intervention == Intervention(head_scale={0: 0.5},
                                                                  zero_neurons=(3,))
    from PySide6.QtWidgets import QApplication

    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    tree = window.panels["stepListDock"].tree
    tree.setFocus()
    qtbot.waitUntil(tree.hasFocus)
    qtbot.keyClick(tree, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    wait_current(qtbot, window)
    assert window.state.intervention == Intervention(zero_neurons=(3,))
    assert window.state.result.trace.intervention == Intervention(zero_neurons=(3,))
    qtbot.keyClick(tree, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    wait_current(qtbot, window)
    assert window.state.intervention is None and window.state.text == "one two"
    qtbot.keyClick(tree, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    wait_current(qtbot, window)
    assert window.state.text == "one" and window.editor.text() == "one"
    qtbot.keyClick(tree, Qt.Key.Key_Y, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(tree, Qt.Key.Key_Y, Qt.KeyboardModifier.ControlModifier)
    wait_current(qtbot, window)
    assert window.state.intervention == Intervention(zero_neurons=(3,))
    assert window.state.text == "one two"


def test_interventions_panel_controls_and_undo_buttons(make_window, qtbot):
    window = make_window(sync=True)
    panel = show_dock(window, qtbot, "interventionsDock")
    panel.head_box.setValue(3)
    panel.factor_box.setValue(0.25)
    panel.head_scale.click()
    panel.neuron_box.setValue(31)
    panel.neuron_off.click()
    panel.skip_mlp.click()
    wait_current(qtbot, window)
    assert window.state.result.trace.intervention == Intervention(
        head_scale={3: 0.25}, zero_neurons=(31,), skip=("mlp",))
    assert [p.kind for p, _ in panel.part_buttons] == ["skip", "scale_head", "zero_neuron"]
    dict(panel.part_buttons)[panel.part_buttons[1][0]].click()  # undo the scale only
    wait_current(qtbot, window)
    assert window.state.intervention == Intervention(zero_neurons=(31,), skip=("mlp",))
    assert panel.neuron_box.maximum() == window.state.config.intermediate_size - 1
    assert panel.head_box.maximum() == window.state.config.num_attention_heads - 1


def test_an_index_the_layer_lacks_is_refused_and_changes_nothing(make_window, qtbot):
    window = make_window(sync=True)
    with pytest.raises(EngineError, match="valid indices are 0 to 3"):
        window.state.set_intervention(Intervention(zero_heads=(4,)))
    assert window.state.intervention is None
    # nothing was recorded: the one undo step is still the text typed
    assert window.state.undo_text() and window.state.text == ""
    assert not window.state.can_undo


def test_a_click_on_a_gated_column_offers_to_switch_that_neuron_off(make_window, qtbot):
    window = make_window(sync=True)
    window.state.set_step("gated")
    panel = window.panels["heatmapDock"]
    wait_current(qtbot, window)
    panel._on_clicked(0, 5, 0.0)
    menu = panel.neuron_menu_shown
    assert menu is not None
    action = menu.actions()[0]
    assert "5" in action.text()
    action.trigger()
    menu.close()
    wait_current(qtbot, window)
    gated = window.state.result.trace["gated"]
    assert np.all(gated[:, 5] == 0) and np.any(gated[:, 4] != 0)
    assert window.state.intervention == Intervention(zero_neurons=(5,))
    # another step's click does nothing
    window.state.set_step("q_proj")
    wait_current(qtbot, window)
    panel.neuron_menu_shown = None
    panel._on_clicked(0, 5, 0.0)
    assert panel.neuron_menu_shown is None


# ----- the intervened-vs-plain verdict (app.verdict, no window) -----
def verdict_for(iv, text=TEXT):
    from app.verdict import decide_intervention

    config = Qwen3Config.toy()
    result = compute(Request(1, text, config, LayerWeights.random(config, 0), intervention=iv))
    return decide_intervention(result.intervention_diff), result.intervention_diff


def test_verdict_zeroed_head_identical_before_attn_context_and_only_its_columns():
    verdict, diff = verdict_for(Intervention(zero_heads=(1,)))
    assert verdict.level == "good" and verdict.first_changed == "attn_context"
    assert verdict.acts_at == "attn_context"
    assert verdict.title.id == "iv_steps" and verdict.title.params == (12, "attn_context")
    assert verdict.identical_before[-1] == "attn_probs" and len(verdict.identical_before) == 13
    heads = next(m for m in verdict.detail if m.id == "iv_heads_only")
    assert heads.params == ("1", diff.max_abs["attn_context"]) and heads.count == 1
    rows = verdict.detail[-1]
    assert rows.id == "iv_rows" and rows.params[:3] == (7, 7, "resid_mlp")


def test_verdict_neuron_and_skips_act_where_they_should():
    verdict, _ = verdict_for(Intervention(zero_neurons=(4,)))
    assert verdict.first_changed == verdict.acts_at == "gated" and verdict.level == "good"
    verdict, _ = verdict_for(Intervention(skip=("attention",)))
    assert verdict.first_changed == verdict.acts_at == "resid_attn"
    verdict, _ = verdict_for(Intervention(zero_neurons=(4,), skip=("mlp",)))
    assert verdict.acts_at == "gated"


def test_verdict_warns_when_a_step_changed_before_the_intervention_acts():
    from dataclasses import replace

    from app.verdict import decide_intervention

    _, diff = verdict_for(Intervention(zero_heads=(1,)))
    broken = replace(diff, identical={**diff.identical, "q_proj": False},
                     max_abs={**diff.max_abs, "q_proj": 1.0})
    verdict = decide_intervention(broken)
    assert verdict.level == "warn" and verdict.first_changed == "q_proj"
    assert any(m.id == "iv_early" for m in verdict.detail)
    other = replace(diff, context_heads=(1, 2))
    verdict = decide_intervention(other)
    assert verdict.level == "warn" and any(m.id == "iv_heads_more" for m in verdict.detail)


def test_verdict_for_an_intervention_that_changes_nothing():
    from dataclasses import replace

    from app.verdict import decide_intervention

    _, diff = verdict_for(Intervention(zero_heads=(1,)))
    same = replace(diff, identical=dict.fromkeys(diff.steps, True))
    verdict = decide_intervention(same)
    assert verdict.title.id == "iv_same" and verdict.first_changed is None


def test_causality_panel_shows_the_intervention_verdict(make_window, qtbot):
    window = make_window(sync=True)
    panel = window.panels["causalityDock"]
    assert panel.intervention_plain == ""
    window.state.toggle_head(2)
    wait_current(qtbot, window)
    words = panel.intervention_plain
    assert "Intervention vs the plain layer: steps 0–12 identical" in words
    assert "attn_context is the first that differs" in words
    assert "differs only in head 2's columns" in words
    window.state.clear_intervention()
    wait_current(qtbot, window)
    assert panel.intervention_plain == "" and panel.intervention_data is None


# ----- sessions and exports -----
def test_a_session_round_trips_the_intervention(make_window, qtbot, tmp_path):
    import json

    window = make_window(sync=True)
    iv = Intervention(zero_heads=(1,), head_scale={2: -0.5}, zero_neurons=(3, 30),
                      skip=("mlp",))
    window.state.set_intervention(iv)
    path = tmp_path / "iv.dualview.json"
    assert window.save_session(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["intervention"]["zero_heads"] == [1]
    assert data["intervention"]["head_scale"] == [[2, -0.5]]
    assert "MLP branch skipped" in data["intervention"]["describe"]
    other = make_window(sync=True, text="something else")
    assert other.open_session(path), other.last_message
    wait_current(qtbot, other)
    assert other.state.intervention == iv
    assert other.state.result.trace.intervention == iv
    assert other.state.result.text == TEXT
    # an older session (no field) opens as the plain layer, whatever was on before
    del data["intervention"]
    path.write_text(json.dumps(data), encoding="utf-8")
    assert other.open_session(path)
    wait_current(qtbot, other)
    assert other.state.intervention is None and other.state.result.trace.intervention is None


@pytest.mark.parametrize("field, value", [
    ("zero_heads", [4]), ("zero_neurons", [32]), ("skip", ["attn"]), ("head_scale", [[1]]),
    ("zero_heads", ["1"]),
])
def test_a_session_with_a_bad_intervention_is_refused_whole(make_window, tmp_path, field,
                                                              value):
    import json

    from app import sessions

    window = make_window(sync=True)
    data = sessions.session_from_state(window.state).to_dict()
    data["intervention"] = {field: value}
    path = tmp_path / "bad.dualview.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(sessions.SessionError, match="its intervention is invalid"):
        sessions.read_session(path)
    before = window.state.text
    assert not window.open_session(path)
    assert window.state.text == before and window.state.intervention is None


def test_exports_say_what_was_off(make_window, qtbot, tmp_path):
    import json

    from PySide6.QtGui import QImage

    window = make_window(sync=True)
    window.state.toggle_head(3)
    wait_current(qtbot, window)
    path = tmp_path / "heatmap.png"
    assert window.export_panel("heatmapDock", path), window.last_message
    meta = json.loads(QImage(str(path)).text("intervention"))
    assert meta["zero_heads"] == [3] and meta["describe"] == "head 3 zeroed"
    window.state.clear_intervention()
    wait_current(qtbot, window)
    assert window.export_panel("heatmapDock", path)
    assert QImage(str(path)).text("intervention") == ""


# ----- the tour stop -----
def test_loudest_head_is_the_largest_share_of_the_last_tokens_attn_context():
    from app.tour import loudest_head

    config = Qwen3Config.toy()
    weights = LayerWeights.random(config, 0)
    trace = run_layer(embed(list("abcdef"), config.hidden_size), weights, config)
    row = trace["attn_context"][-1].reshape(config.num_attention_heads, config.head_dim)
    norms = np.linalg.norm(row, axis=1)
    head = loudest_head(trace)
    assert all(norms[head] >= n for n in norms)
    assert len(set(np.round(norms, 12))) == config.num_attention_heads  # no tie here


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_tour_switches_off_the_loudest_head_and_takes_it_back(make_window, qtbot,
                                                                  language, restore_view):
    from app.tour import STOPS, loudest_head

    window = make_window(sync=True, language=language)
    keys = [s.key for s in STOPS]
    at = keys.index("intervene-head")
    window.start_tour(at)
    stop = STOPS[at]
    qtbot.waitUntil(lambda: window.state.result.text == stop.text_for(language)
                    and window.state.result.trace.intervention is not None, timeout=5000)
    wait_current(qtbot, window)
    result = window.state.result
    plain = run_layer(result.trace["embed"], window.state.weights, window.state.config)
    head = loudest_head(plain)
    assert result.trace.intervention == Intervention(zero_heads=(head,))
    assert window.state.step == "attn_context"
    panel = window.panels["causalityDock"]
    assert panel.isVisible() and panel.intervention_data.first_changed == "attn_context"
    assert panel.intervention_data.level == "good"
    assert window.panels["causalityDock"].intervention_badge.isVisible()
    assert window.tour_panel.title.text() == f"<b>{stop.title(language)}</b>"
    # on to the next stop: the tour's intervention is taken back
    window.tour.go(at + 1)
    wait_current(qtbot, window)
    assert window.state.intervention is None
    assert window.state.result.trace.intervention is None


def test_depth_time_shows_a_pure_mlp_step_when_attention_is_skipped(make_window, qtbot):
    window = make_window(sync=True)
    window.state.skip_branch("attention")
    wait_current(qtbot, window)
    panel = window.panels["depthDock"]
    depth = window.state.result.depth
    assert depth.skipped == ("attention",)
    # the attention half of the flow does not move: u(½) is u(0) bit for bit
    assert np.array_equal(depth.at(0.5), depth.at(0.0))
    assert np.array_equal(depth.at(1.0), window.state.result.trace["resid_mlp"])
    assert panel.skip_note.isVisible() and "pure MLP step" in panel.skip_note.text()
    window.state.clear_intervention()
    wait_current(qtbot, window)
    assert not panel.skip_note.isVisible()
