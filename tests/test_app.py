"""The real window, driven as a person would: type, select, edit, resize the layout."""

import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import wait_for_text, wait_idle
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage

import engine
from app.docks import DOCKS


def test_typing_updates_every_panel(make_window, qtbot):
    window = make_window()
    window.editor.line.clear()
    qtbot.keyClicks(window.editor.line, "The cat sat")
    wait_for_text(qtbot, window, "The cat sat")
    result = window.state.result
    assert result.tokens == ("The", "cat", "sat")
    heat = window.panels["heatmapDock"]
    window.state.set_step("q_proj")
    assert heat.view.data.shape == (3, 16)
    assert heat.view.row_labels == ("0 The", "1 cat", "2 sat")
    lo, hi = heat.view.levels
    m = np.abs(result.trace["q_proj"]).max()
    assert lo == pytest.approx(-m) and hi == pytest.approx(m)
    assert "token" in window.status.tokens.text()


def test_attention_step_shows_query_by_key_with_probability_levels(make_window):
    window = make_window(sync=True, text="a b c d")
    window.state.set_step("attn_probs")
    window.state.set_head(3)
    heat = window.panels["heatmapDock"]
    probs = window.state.result.trace["attn_probs"]
    np.testing.assert_array_equal(heat.source, probs[3])
    assert heat.view.levels == (0.0, 1.0)
    assert heat.view.col_labels == ("0 a", "1 b", "2 c", "3 d")


def test_masked_scores_are_drawn_as_missing(make_window):
    window = make_window(sync=True, text="a b c")
    window.state.set_step("causal_mask")
    data = window.panels["heatmapDock"].view.data
    assert np.isnan(data[0, 1]) and np.isnan(data[0, 2]) and np.isfinite(data[2, 2])


def test_kv_steps_show_the_shared_kv_head(make_window):
    window = make_window(sync=True, text="a b c")
    window.state.set_step("k_rope")
    window.state.set_head(3)  # group size 2: query head 3 reads kv head 1
    heat = window.panels["heatmapDock"]
    np.testing.assert_array_equal(heat.source, window.state.result.trace["k_rope"][1])
    assert "kv head 1" in heat.kv_note.text()


def test_step_list_click_and_arrow_keys_select_everywhere(make_window, qtbot):
    window = make_window(sync=True, text="a b")
    tree = window.panels["stepListDock"].tree
    tree.setCurrentItem(tree.topLevelItem(2))
    assert window.state.step == "q_proj"
    tree.setFocus()
    qtbot.keyClick(tree, Qt.Key.Key_Down)
    assert window.state.step == "k_proj"
    window.state.set_step("gated")
    assert tree.currentItem().text(1) == "gated"
    assert tree.topLevelItem(20).text(2) == "2 × 32"
    item = tree.topLevelItem(12)  # the formula column is cut at the default width
    assert "softmax" in item.toolTip(3) and item.toolTip(3) == item.toolTip(0)


def test_selection_never_recomputes(make_window):
    window = make_window(sync=True, text="a b c")
    computed = []
    window.bridge.result_ready.connect(computed.append)
    window.state.set_step("o_proj")
    window.state.set_head(2)
    window.state.set_query(1)
    window.state.set_depth_t(0.3)
    assert computed == []


def test_editing_the_last_token_leaves_earlier_rows_bitwise_equal(make_window):
    window = make_window(sync=True, text="the cat sat")
    window.editor.set_text("the cat ran")
    report = window.state.result.causality
    assert report is not None and report.first_changed == 2
    before_cols = window.state.result.trace["resid_mlp"][:2]
    assert np.array_equal(before_cols, engine.run_layer(
        engine.embed(["the", "cat", "sat"], 16), window.state.weights,
        window.state.config)["resid_mlp"][:2])


def test_200_rapid_edits_show_the_last_one(make_window, qtbot):
    window = make_window(text="start")
    texts = [f"edit number {i} 第{i}次" for i in range(200)]
    for text in texts:
        window.editor.set_text(text)
    wait_for_text(qtbot, window, texts[-1])
    wait_idle(qtbot, window)  # any stale result still in flight has arrived: dropped, not shown
    result = window.state.result
    assert result.text == texts[-1]
    expected = engine.run_layer(engine.embed(engine.tokenize(texts[-1]), 16),
                                window.state.weights, window.state.config)
    window.state.set_step("resid_mlp")
    np.testing.assert_array_equal(window.panels["heatmapDock"].source, expected.output)


def test_empty_text_shows_a_friendly_empty_state(make_window):
    window = make_window(sync=True, text="a b")
    window.editor.set_text("   ")
    assert window.state.result is None
    panel = window.panels["heatmapDock"]
    assert panel._stack.currentIndex() == 0
    assert "Type a sentence" in panel._empty.text()
    assert window.state.error == ""
    window.editor.set_text("back again")
    assert panel._stack.currentIndex() == 1


def test_too_long_text_is_refused_and_the_previous_result_stays(make_window):
    window = make_window(sync=True, text="keep me")
    window.editor.set_text("字" * (engine.MAX_TOKENS + 5))
    assert window.state.result.text == "keep me"
    assert "2048" in window.status.error.text()
    window.editor.set_text("recovered")
    assert window.state.result.text == "recovered" and window.status.error.text() == ""


def test_too_long_text_after_an_empty_field_says_why_in_the_panels(make_window,
                                                                     restore_view):
    """With no earlier result to keep, the panels said "Type a sentence above" beside a
    field holding 2053 tokens."""
    window = make_window(sync=True, text=None)
    assert window.state.result is None
    window.editor.set_text("字" * (engine.MAX_TOKENS + 5))
    panel = window.panels["heatmapDock"]
    assert window.state.result is None and panel._stack.currentIndex() == 0
    assert panel._empty.text().startswith("Not computed: 2053 tokens is more than")
    assert "Type a sentence" not in panel._empty.text()
    assert window.status.tokens.text() == ""  # (it said "no tokens" beside them)
    window.set_language("zh")
    assert panel._empty.text().startswith("未计算：2053 个词元超过了")
    window.editor.set_text("")  # cleared: the friendly empty state again
    assert "Type a sentence" in panel._empty.text()
    assert window.status.tokens.text() == "没有词元"


def test_a_paste_past_the_text_fields_limit_is_said(make_window, qtbot):
    """Qt cuts a longer text at the field's limit without a word: the window says so."""
    from PySide6.QtWidgets import QApplication

    window = make_window(sync=True, text="keep me")
    window.editor.set_text("abc" * 100)
    assert window.last_message == ""  # (not for every edit)
    QApplication.clipboard().setText("字" * 250_000)
    window.editor.line.selectAll()
    window.editor.line.paste()
    assert len(window.editor.text()) == 200_000
    assert "at most 200,000 characters" in window.last_message
    assert "2048" in window.status.error.text()  # and the engine's cap says why nothing ran


def test_the_too_much_text_message_follows_the_language(make_window, restore_view):
    window = make_window(sync=True, text="keep me")
    window.editor.set_text("字" * (engine.MAX_TOKENS + 1))
    assert window.state.error.startswith(f"{engine.MAX_TOKENS + 1} tokens is more than")
    window.set_language("zh")  # the engine's English, in the interface's language
    n, cap = engine.MAX_TOKENS + 1, engine.MAX_TOKENS
    expected = f"未计算：{n} 个词元超过了引擎能处理的 {cap} 个；请缩短文本"
    assert window.status.error.text() == expected
    window.set_language("en")
    assert window.status.error.text().startswith("Not computed: 2049 tokens is more than")


@pytest.mark.parametrize("text", ["\u200b\u200b", "👨\u200d👩\u200d👧 🇨🇳", "\x00\x01", "a\u0301"])
def test_odd_unicode_never_breaks_the_window(make_window, text):
    window = make_window(sync=True, text="ok")
    window.editor.set_text(text)
    assert window.state.result is None or window.state.result.text == text
    assert window.isVisible()


def test_every_dock_is_named_and_listed_in_the_view_menu(make_window):
    window = make_window(sync=True, text="a")
    actions = {a.text() for a in window.view_menu.actions()}
    for spec in DOCKS:
        dock = window.docks[spec.object_name]
        assert dock.objectName() == spec.object_name
        assert dock.toggleViewAction().text() in actions


def test_layout_is_saved_restored_and_reset(make_window, qtbot):
    window = make_window(sync=True, text="a")
    window.docks["normDock"].hide()
    window.save_layout()
    window.close()
    again = make_window(sync=True, text="a")
    assert again.restore_layout()
    assert not again.docks["normDock"].isVisible()
    again.reset_layout()
    assert again.docks["normDock"].isVisible()



def test_a_restored_layout_leaves_no_tab_bar_over_the_window(make_window, qtbot):
    """From the second launch on, the saved layout is restored over the default one while the
    window is hidden; Qt then left a one-tab "Depth time" bar drawn over the File menu."""
    from PySide6.QtWidgets import QApplication, QTabBar

    make_window(sync=True, text="a").save_layout()
    again = make_window(sync=True, text="a")  # restores the saved layout as it is built
    for _ in range(3):
        QApplication.processEvents()
    stale = [(bar.tabText(0), bar.geometry()) for bar in again.findChildren(QTabBar)
             if bar.isVisible() and bar.count() < 2 and again.rect().intersects(bar.geometry())]
    assert not stale
    assert again.docks["depthDock"].isVisible()


@pytest.mark.parametrize("values", ["geometry=hello\nstate=world",
                                    "geometry=@Rect(0 0 10 10)\nstate=@Rect(1 2 3 4)"])
def test_a_hand_edited_layout_entry_is_ignored(make_window, values):
    from app.docks import LAYOUT_VERSION
    from app.mainwindow import settings_dir

    window = make_window(sync=True, text="a")
    ini = settings_dir() / "dualview.ini"
    ini.parent.mkdir(parents=True, exist_ok=True)
    ini.write_text(f"[window]\nversion={LAYOUT_VERSION}\n{values}\n")
    assert window.restore_layout() is False  # (it raised TypeError: the app did not start)
    assert window.isVisible()


def test_hidden_docks_skip_redraw_and_catch_up_when_shown(make_window, qtbot):
    window = make_window(sync=True, text="a b")
    panel = window.panels["heatmapDock"]
    window.docks["heatmapDock"].hide()
    window.editor.set_text("a b c")
    assert not panel.is_current
    window.docks["heatmapDock"].show()
    qtbot.waitUntil(lambda: panel.is_current)
    assert panel.view.data.shape[0] == 3


def test_selftest_writes_a_screenshot(tmp_path):
    shot = tmp_path / "shot.png"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run([sys.executable, "-m", "app", "--selftest", "--screenshot", str(shot)],
                          capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    image = QImage(str(shot))
    assert image.width() >= 800 and image.height() >= 600
    colours = {image.pixel(x, y) for x in range(0, image.width(), 37)
               for y in range(0, image.height(), 37)}
    assert len(colours) > 20  # not blank



@pytest.mark.parametrize("args, words", [
    (["--tour", "0"], "--tour must be a stop from 1 to"),
    (["--tour", "999"], "--tour must be a stop from 1 to"),
    (["--screenshot", "x.png"], "--screenshot needs --selftest"),
    (["--selftest", "--screenshot", ""], "--screenshot needs a file name"),
])
def test_command_line_mistakes_are_said_at_once(args, words, capsys):
    from app.__main__ import parse_args

    with pytest.raises(SystemExit) as exit_:
        parse_args(args)
    assert exit_.value.code == 2 and words in capsys.readouterr().err


def test_a_selftest_of_a_text_without_tokens_says_so_at_once(tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "DUALVIEW_CONFIG_DIR": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-m", "app", "--selftest", "--text", "  \u200b "],
                          capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 1 and "has no tokens" in proc.stderr  # (it waited 30 s)


def test_a_very_long_token_is_shortened_wherever_it_is_drawn(make_window, qtbot):
    # one unbroken 100 000-letter paste is one token: drawn whole into axis labels it took
    # seconds of text layout and then crashed Qt's raster engine
    from app.compute import SHOWN_TOKEN_CHARS

    window = make_window(sync=True, text="keep me")
    long_token = "a" * 100_000
    window.editor.set_text(f"x {long_token}")
    wait_for_text(qtbot, window, f"x {long_token}")
    result = window.state.result
    assert result.tokens[1] == long_token  # the engine and exports keep the whole token
    limit = SHOWN_TOKEN_CHARS + 8  # "i " and a little
    heat = window.panels["heatmapDock"]
    depth = window.panels["depthDock"]
    shown = [*heat.view.row_labels, *depth.view.row_labels,
             window.panels["attentionDock"].query_box.itemText(1),
             window.panels["normDock"].token_box.itemText(1)]
    assert all(len(label) <= limit for label in shown), [len(s) for s in shown]
    assert "1 " + "a" * (SHOWN_TOKEN_CHARS - 1) + "…" in heat.view.row_labels
    assert len(window.editor.chips.text()) < 2_000
    window.editor.set_text("keep me too")  # and the window still works
    wait_for_text(qtbot, window, "keep me too")


def test_nan_selections_are_ignored(make_window):
    window = make_window(sync=True, text="a b c")
    window.state.set_depth_t(0.25)
    window.state.set_depth_t(float("nan"))
    assert window.state.depth_t == 0.25
    window.state.set_depth_t(float("inf"))  # infinities clamp as any other number
    assert window.state.depth_t == 1.0
    scale = window.state.font_scale
    window.state.set_font_scale(float("nan"))
    assert window.state.font_scale == scale


def test_lone_surrogates_never_reach_the_text(make_window, tmp_path):
    window = make_window(sync=True, text="a")
    window.state.set_text("bad \ud800 text \udfff!")  # only this call could carry them
    assert window.state.text == "bad  text !"
    assert window.save_session(tmp_path / "s.dualview.json")  # writes as UTF-8


def test_the_causal_mask_step_says_when_the_mask_is_off(make_window):
    """With the mask off step 11 is a copy of the scores: its title must not claim the −∞."""
    window = make_window(sync=True, text="a b c")
    panel = window.panels["heatmapDock"]
    window.state.set_step("causal_mask")
    assert "j &gt; i" in panel.title.text() or "j > i" in panel.title.text()
    window.causal_action.trigger()  # M: mask off, recomputed
    assert not window.state.result.trace.causal
    assert np.isfinite(window.state.result.trace["causal_mask"]).all()
    title = panel.title.text()
    assert "copy of the scores" in title and "j > i" not in title and "j &gt; i" not in title
    tree = window.panels["stepListDock"].tree
    row = tree.topLevelItem(11)
    assert "copy of the scores" in row.text(4) and row.text(3) == "S"
    window.causal_action.trigger()
    assert "copy of the scores" not in panel.title.text()
    assert "−∞" in row.text(3) and "copy of the scores" not in row.text(4)


def test_a_layer_with_fewer_heads_after_an_empty_text_clamps_the_head_first(make_window):
    window = make_window(sync=True, text="a b c")
    window.state.set_head(3)
    window.editor.set_text("")  # the empty state: no result to clamp against
    window.state.set_model(engine.Qwen3Config(num_attention_heads=2, num_key_value_heads=2))
    seen = []
    window.state.selection_changed.connect(
        lambda field: seen.append((field, window.state.query, window.state.head)))
    # the first result announced its default query while the head was still 3: the attention
    # panel redrew the 2-head result with head 3 (IndexError) and stayed stale
    window.editor.set_text("x y")
    assert seen == [("query", 1, 1), ("head", 1, 1)]
    assert window.all_panels_current()
    assert window.panels["attentionDock"].shown_head == 1


def test_key_value_heads_of_the_result_on_screen_while_a_new_layer_computes(make_window):
    window = make_window(text="a b c")  # the real worker: the old result stays a while
    window.state.set_head(3)
    window.state.set_model(engine.Qwen3Config(num_key_value_heads=4))
    # the heatmap took the new layer's group size (1) for the old result's 2 kv heads and
    # indexed kv head 3 (IndexError): kv head 3 // 2 = 1 of the result on screen is right
    window.state.set_step("k_rope")
    heat = window.panels["heatmapDock"]
    np.testing.assert_array_equal(heat.source, window.state.result.trace["k_rope"][1])
    assert window.state.result.trace.config.num_key_value_heads == 2


def test_the_head_picker_rests_while_every_head_is_side_by_side(make_window):
    """It stayed live beside all heads and changing it changed nothing in the panel."""
    window = make_window(sync=True, text="a b c")
    panel = window.panels["heatmapDock"]
    window.state.set_step("attn_probs")
    assert panel.head_box.isEnabled()
    panel.all_heads.setChecked(True)
    assert not panel.head_box.isEnabled() and panel.all_heads.isEnabled()
    window.state.set_step("q_proj")  # no heads: nothing to pick, nothing to put side by side
    assert not panel.head_box.isEnabled() and not panel.all_heads.isEnabled()
    window.state.set_step("k_norm")
    assert not panel.head_box.isEnabled()
    panel.all_heads.setChecked(False)
    assert panel.head_box.isEnabled() and panel.kv_note.text().startswith("GQA")


def test_all_heads_side_by_side_label_each_block_by_head(make_window):
    """Heads side by side were numbered as one matrix (0 … 18 under four heads of 4
    features, the gap columns counted) and a gap between key-token blocks read 'h1:'."""
    window = make_window(sync=True, text="a b c")
    panel = window.panels["heatmapDock"]
    panel.all_heads.setChecked(True)
    for step, names in (("q_norm", ["0", "1", "2", "3"]), ("attn_probs", ["a", "b", "c"])):
        window.state.set_step(step)
        labels = list(panel.view.col_labels)
        data = panel.view.data
        gaps = [i for i in range(data.shape[1]) if np.isnan(data[:, i]).all()]
        assert [labels[i] for i in gaps] == [""] * 3
        heads = [label for label in labels if label]
        assert heads == [f"h{h}:{n}" for h in range(4) for n in names]
        # each head's block thins its labels from its own first column
        assert panel.view._col_blocks == tuple(h * (len(names) + 1) for h in range(4))
        shown = [text for _pos, text in panel.view._col_ticks[0]]
        assert [f"h{h}:{names[0]}" for h in range(4)] == [
            t for t in shown if t.endswith(f":{names[0]}")]
