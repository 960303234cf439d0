"""The guided tour end to end: every step in order, then the continuous view, then the
causality demo; each stop selects its step and highlights its dock, in both languages."""

import re

import numpy as np
import pytest
from conftest import wait_for_text
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from app.tour import (
    BADGES,
    CAUSAL_APPENDED_ZH,
    CAUSAL_EDITED,
    CAUSAL_EDITED_ZH,
    CAUSAL_TEXT,
    CAUSAL_TEXT_ZH,
    STOPS,
)
from engine import STEP_NAMES

# English, light theme, normal text size again after each test (app-wide settings)
pytestmark = pytest.mark.usefixtures("restore_view")


def test_the_lesson_has_the_steps_in_order_then_continuous_then_causality():
    sections = [s.section for s in STOPS]
    assert sections == sorted(sections, key=["discrete", "continuous", "causality"].index)
    step_stops = [s.step for s in STOPS if s.key.startswith("step:")]
    assert step_stops == list(STEP_NAMES)  # all 22 steps (and the input), in order
    assert sum(s.section == "continuous" for s in STOPS) >= 6
    assert sum(s.section == "causality" for s in STOPS) >= 3


def test_every_stop_is_written_in_both_languages():
    cjk = re.compile(r"[\u4e00-\u9fff]")
    for stop in STOPS:
        assert stop.title_en and stop.body_en and stop.title_zh and stop.body_zh, stop.key
        assert not cjk.search(stop.body_en.replace("中文", "")), stop.key
        assert cjk.search(stop.body_zh) and cjk.search(stop.title_zh + stop.body_zh), stop.key
        assert len(stop.body_en) < 600 and len(stop.body_zh) < 400, stop.key  # short


def test_continuous_view_facts_carry_their_badge():
    for stop in STOPS:
        if stop.badge is not None:
            assert stop.badge in BADGES
            if stop.badge == "EXACT":
                assert re.fullmatch(r"E\d+(, E\d+)*", stop.paper_id), stop.key
    for stop in STOPS:
        if stop.section == "continuous":
            assert stop.badge is not None, stop.key
    kinds = {s.badge for s in STOPS}
    assert {"EXACT", "ANALOGY", "INTERPOLATION"} <= kinds
    # the two residual steps are where depth time moves: exact Euler steps
    by_key = {s.key: s for s in STOPS}
    assert by_key["step:resid_attn"].badge == by_key["step:resid_mlp"].badge == "EXACT"


def test_the_tour_steps_end_to_end_with_the_keyboard(make_window, qtbot):
    window = make_window(sync=True, text="我爱北京天安门")
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    window.start_tour()
    assert window.tour_dock.isVisible() and window.tour.running
    panel = window.tour_panel
    window.panels["stepListDock"].tree.setFocus()
    seen_docks = set()
    for index, stop in enumerate(STOPS):
        assert window.tour.index == index
        if stop.step is not None:
            assert window.state.step == stop.step, stop.key
        if stop.depth_t is not None:
            assert window.state.depth_t == stop.depth_t
        if stop.causal is not None:
            assert window.state.causal == stop.causal
        target = window.highlight.target
        assert target is not None and target.objectName() == next(
            d for d in stop.docks if d in window.docks)
        assert target.isVisible() and window.highlight.isVisible()
        seen_docks.add(target.objectName())
        assert panel.title.text() == f"<b>{stop.title_en}</b>"
        assert panel.body.text() == stop.body_en
        assert panel.badge.isVisible() == (stop.badge is not None)
        if stop.badge:
            assert stop.badge in panel.badge.text()
        assert panel.progress.format() == f"{index + 1} / {len(STOPS)}"
        if stop.key == "causal-edit":
            report = window.state.result.causality
            assert window.state.text == CAUSAL_EDITED and report is not None
            assert report.first_changed == len(window.state.result.tokens) - 1
            assert report.exact
        qtbot.keyClick(window.focusWidget() or window, Qt.Key.Key_PageDown)
    # past the last stop PageDown does nothing more; "Finish" ends the tour
    assert window.tour.index == len(STOPS) - 1
    assert panel.next_button.text() == "Finish"
    panel.next_button.click()
    assert not window.tour.running and not window.tour_dock.isVisible()
    assert window.highlight.target is None
    assert {"stepListDock", "heatmapDock", "depthDock", "causalityDock"} <= seen_docks


def test_back_goes_back_and_the_tour_never_blocks_typing(make_window, qtbot):
    window = make_window(text="a b c")  # the real worker
    window.start_tour(5)
    window.tour_panel.back_button.click()
    assert window.tour.index == 4 and window.state.step == STOPS[4].step
    window.editor.set_text("typed during the tour")
    wait_for_text(qtbot, window, "typed during the tour")
    assert window.tour.running and window.tour_dock.isVisible()
    assert window.tour_dock.widget() is window.tour_panel and not window.tour_panel.isWindow()


def test_the_causality_stops_compare_like_with_like_on_the_worker(make_window, qtbot):
    window = make_window(text="x")  # asynchronous: texts wait for the result with the new mask
    keys = [s.key for s in STOPS]
    window.start_tour(keys.index("causal-setup"))
    wait_for_text(qtbot, window, CAUSAL_TEXT)
    window.tour.next()
    wait_for_text(qtbot, window, CAUSAL_EDITED)
    report = window.state.result.causality
    assert report is not None and report.first_changed == 5 and report.exact
    base = window.state.result.trace["resid_mlp"][:5]
    window.tour.next()  # mask off, then the same edit: earlier rows move
    wait_for_text(qtbot, window, CAUSAL_TEXT)
    qtbot.waitUntil(lambda: window.state.result.causality is not None)
    assert not window.state.result.trace.causal
    report = window.state.result.causality
    assert report.first_changed == 5 and not report.exact  # earlier rows moved
    window.tour.next()
    qtbot.waitUntil(lambda: window.state.causal and window.state.result.trace.causal
                    and window.state.result.text == STOPS[window.tour.index].text)
    np.testing.assert_allclose(window.state.result.trace["resid_mlp"][:5], base, atol=1e-12)
    # the stop says a word is appended: the comparison shows only that (it also changed the
    # last word, so the class saw row 5 move under a stop about appending)
    report = window.state.result.causality
    assert report is not None and report.num_tokens_before == 6
    assert report.first_changed == 6 and report.max_earlier_diff <= 1e-12



@pytest.mark.parametrize("sync", [False, True])
def test_back_to_the_mask_off_stop_shows_the_same_edit_as_next(make_window, qtbot, sync):
    """Back from "Appending a token" compared "… tokens again" with "… tokens" (a deleted
    word, "before token 6 “∅”") under a stop that says the same edit changes earlier rows."""
    window = make_window(sync=sync, text="x")
    keys = [s.key for s in STOPS]
    window.start_tour(keys.index("causal-append"))
    wait_for_text(qtbot, window, STOPS[keys.index("causal-append")].text)
    window.tour.back()
    assert window.tour.stop.key == "causal-off"
    qtbot.waitUntil(lambda: window.state.result.text == CAUSAL_TEXT
                    and not window.state.result.trace.causal
                    and window.state.result.causality is not None, timeout=5000)
    assert window.editor.text() == CAUSAL_TEXT
    assert window.state.result.baseline_tokens == tuple(CAUSAL_EDITED.split())
    report = window.state.result.causality
    assert report.num_tokens_before == report.num_tokens_after == 6
    assert report.first_changed == 5 and not report.exact
    assert "before token 5 “tokens”" in window.panels["causalityDock"].verdict_plain
    # the field is the learner's again: nothing more is typed
    assert window.tour_driver.pending_text is None and window.tour_driver.then_text is None


def test_a_stop_about_the_heatmaps_cells_frames_the_heatmap():
    """The scores and mask stops speak of the upper right and the grey cells, and framed the
    attention flow, which with the last token as query shows no masked cell at all."""
    for stop in STOPS:
        if any(w in stop.body_en for w in ("upper right", "grey cells")):
            assert stop.docks[0] == "heatmapDock", stop.key
            assert any(w in stop.body_zh for w in ("右上角", "灰色格子")), stop.key


def test_the_causality_setup_pins_its_sentence_as_the_baseline(make_window, qtbot):
    """The setup stop typed its sentence and the causality panel compared it with whatever the
    class had typed before the tour (a meaningless comparison on screen). The stop now pins
    its sentence: the panel says so, the next stop's edit is compared with exactly that
    sentence, and the pin goes when the demo moves on to the mask-off stop or the tour ends."""
    window = make_window(text="我爱北京天安门")  # typed before the tour (the real worker)
    panel = window.panels["causalityDock"]
    keys = [s.key for s in STOPS]
    window.start_tour(keys.index("causal-setup"))
    wait_for_text(qtbot, window, CAUSAL_TEXT)
    qtbot.waitUntil(lambda: window.state.pinned is window.state.result)
    assert window.state.pinned.text == CAUSAL_TEXT and panel.pin_button.isChecked()
    assert panel.report is None and "Baseline pinned" in panel.verdict_plain
    assert "我" not in panel.nothing.text() and "is the baseline now" in panel.nothing.text()
    window.tour.next()  # the last word changes: compared with the setup's sentence
    wait_for_text(qtbot, window, CAUSAL_EDITED)
    assert window.state.result.baseline_tokens == tuple(CAUSAL_TEXT.split())
    assert panel.baseline_kind == "pinned" and panel.before.text == CAUSAL_TEXT
    assert "bitwise identical" in panel.verdict_plain
    window.tour.next()  # mask off: the masked pin would block the comparison, so it goes
    assert window.state.pinned is None and not panel.pin_button.isChecked()
    wait_for_text(qtbot, window, CAUSAL_TEXT)
    qtbot.waitUntil(lambda: window.state.result.causality is not None)
    assert "release the pin" not in panel.detail.text()
    window.start_tour(keys.index("causal-setup"))
    qtbot.waitUntil(lambda: window.state.pinned is not None
                    and window.state.pinned.text == CAUSAL_TEXT, timeout=5000)
    window.tour.stop_tour()  # the tour leaves no pin behind
    assert window.state.pinned is None


@pytest.mark.parametrize("start", ["", "   ", "w " * 2100])  # no result comes for these
def test_a_mask_stop_types_its_sentence_even_when_nothing_is_computed(make_window, qtbot,
                                                                      start):
    window = make_window(text=None)
    window.editor.set_text(start)
    keys = [s.key for s in STOPS]
    window.start_tour(keys.index("causal-off"))  # flips the mask, then types its sentence
    wait_for_text(qtbot, window, STOPS[window.tour.index].text)
    assert window.tour_driver.pending_text is None


def test_a_pending_tour_sentence_never_replaces_what_the_person_types(make_window, qtbot):
    window = make_window(text="a b")  # asynchronous: the stop's sentence waits for a result
    keys = [s.key for s in STOPS]
    window.start_tour(keys.index("causal-off"))
    window.tour.stop_tour()  # ended before the result with the new mask came in
    window.editor.line.clear()
    qtbot.keyClicks(window.editor.line, "hello class")
    wait_for_text(qtbot, window, "hello class")
    qtbot.wait(300)  # every result in flight has arrived
    assert window.editor.text() == "hello class"
    window.start_tour(keys.index("causal-setup"))  # mask back on: its sentence waits again
    qtbot.keyClicks(window.editor.line, "!")  # and the person types before it came
    qtbot.wait(300)
    assert window.editor.text() == "hello class!"


def test_the_tour_follows_the_language(make_window):
    window = make_window(sync=True, text="a b")
    window.start_tour(3)
    stop = STOPS[3]
    window.set_language("zh")
    assert window.tour_panel.body.text() == stop.body_zh
    assert window.tour_panel.back_button.text() == "◀ 上一步"
    assert window.tour_dock.windowTitle() == "导览"
    window.tour.go(len(STOPS) - 1)
    assert window.tour_panel.next_button.text() == "完成"
    badge_stop = next(i for i, s in enumerate(STOPS) if s.badge == "ANALOGY")
    window.tour.go(badge_stop)
    assert "类比" in window.tour_panel.badge.text()


def test_closing_the_tour_dock_ends_the_tour(make_window):
    window = make_window(sync=True, text="a b")
    window.start_tour()
    window.tour_dock.close()
    assert not window.tour.running and window.highlight.target is None
    assert not window.tour_next_action.isEnabled()


def test_the_silu_stop_quotes_silu_minimum():
    """The SiLU stop's numbers: the dip to about −0.28 at G ≈ −1.28."""
    import numpy as np

    from app.tour import STOPS
    stop = next(s for s in STOPS if s.step == "silu_gate")
    g = np.linspace(-3, 0, 300001)
    silu = g / (1 + np.exp(-g))
    assert f"{silu.min():.2f}".replace("-", "−") in stop.body_en
    assert f"{g[silu.argmin()]:.2f}".replace("-", "−") in stop.body_en
    for number in ("−0.28", "−1.28"):
        assert number in stop.body_zh


def test_the_softmax_stop_states_e16_on_the_raw_logits(make_window):
    """Step 10 shows S = q kᵀ/√d, so 'log p_j = s_j/τ − log Z' read with that S divides by √d
    twice; the stop writes the raw logit q·k_j, and the numbers agree with it."""
    import numpy as np

    from app.tour import STOPS
    stop = next(s for s in STOPS if s.step == "attn_probs")
    for body in (stop.body_en, stop.body_zh):
        assert "log p_j = q·k_j/τ − log Z" in body and "s_j/τ" not in body
    window = make_window(sync=True, text="a b c d")
    trace = window.state.result.trace
    q, k = trace["q_rope"][0], trace["k_rope"][0]  # head 0 reads kv head 0
    tau = np.sqrt(trace.config.head_dim)
    logits = q[3] @ k.T  # the last row sees every key
    log_z = np.log(np.sum(np.exp(logits / tau)))
    np.testing.assert_allclose(np.log(trace["attn_probs"][0, 3]), logits / tau - log_z,
                               rtol=0, atol=1e-12)


def test_the_gate_proj_stop_quotes_the_widths_of_the_shipped_layers():
    """'2× in the toy layer, 3× in Qwen3-0.6B' (it said 'twice', true of the toy layer only)."""
    from engine import Qwen3Config

    stop = next(s for s in STOPS if s.key == "step:gate_proj")
    toy, real = Qwen3Config.toy(), Qwen3Config.qwen3_0_6b()
    toy_ratio = toy.intermediate_size // toy.hidden_size
    real_ratio = real.intermediate_size // real.hidden_size
    assert toy_ratio * toy.hidden_size == toy.intermediate_size
    assert real_ratio * real.hidden_size == real.intermediate_size
    assert f"{toy_ratio}× in the toy layer, {real_ratio}× in Qwen3-0.6B" in stop.body_en
    assert f"玩具层为 {toy_ratio} 倍，Qwen3-0.6B 为 {real_ratio} 倍" in stop.body_zh


@pytest.mark.parametrize("sync", [False, True])
def test_a_chinese_tour_types_chinese_sentences_with_the_same_pin_and_back(make_window, qtbot,
                                                                           sync):
    """The causality stops typed English sentences into a Chinese tour. The sentence follows
    the interface language when the stop runs; the pin, the edit of the last token, the
    append and Back compare the same pairs as in English."""
    cjk = re.compile(r"^[\u4e00-\u9fff]+$")
    assert all(cjk.match(t) for t in (CAUSAL_TEXT_ZH, CAUSAL_EDITED_ZH, CAUSAL_APPENDED_ZH))
    n = len(CAUSAL_TEXT_ZH)  # one token per character
    assert len(CAUSAL_EDITED_ZH) == n and CAUSAL_EDITED_ZH[:-1] == CAUSAL_TEXT_ZH[:-1]
    window = make_window(sync=sync, text="a b")
    panel = window.panels["causalityDock"]
    keys = [s.key for s in STOPS]
    window.start_tour(keys.index("causal-setup") - 1)  # in English: nothing typed yet
    assert window.editor.text() == "a b"
    window.set_language("zh")  # switched during the tour: the next stops type Chinese
    window.tour.next()
    assert window.tour.stop.key == "causal-setup"
    wait_for_text(qtbot, window, CAUSAL_TEXT_ZH)
    qtbot.waitUntil(lambda: window.state.pinned is window.state.result)
    assert window.state.pinned.text == CAUSAL_TEXT_ZH and panel.pin_button.isChecked()

    window.tour.next()  # the last character changes: compared with the pinned sentence
    wait_for_text(qtbot, window, CAUSAL_EDITED_ZH)
    result = window.state.result
    assert result.baseline_tokens == tuple(CAUSAL_TEXT_ZH) and panel.baseline_kind == "pinned"
    assert result.causality.first_changed == n - 1 and result.causality.exact

    window.tour.next()  # mask off: the same edit backwards moves earlier rows
    assert window.state.pinned is None
    qtbot.waitUntil(lambda: window.state.result.text == CAUSAL_TEXT_ZH
                    and not window.state.result.trace.causal
                    and window.state.result.causality is not None, timeout=5000)
    report = window.state.result.causality
    assert window.state.result.baseline_tokens == tuple(CAUSAL_EDITED_ZH)
    assert report.first_changed == n - 1 and not report.exact

    window.tour.next()  # mask on, one character appended
    qtbot.waitUntil(lambda: window.state.result.text == CAUSAL_APPENDED_ZH
                    and window.state.result.trace.causal
                    and window.state.result.causality is not None, timeout=5000)
    report = window.state.result.causality
    assert report.num_tokens_before == n and report.first_changed == n
    assert report.max_earlier_diff <= 1e-12

    window.tour.back()  # Back shows the mask-off stop's own pair again
    assert window.tour.stop.key == "causal-off"
    qtbot.waitUntil(lambda: window.state.result.text == CAUSAL_TEXT_ZH
                    and not window.state.result.trace.causal
                    and window.state.result.causality is not None, timeout=5000)
    assert window.editor.text() == CAUSAL_TEXT_ZH
    assert window.state.result.baseline_tokens == tuple(CAUSAL_EDITED_ZH)
    report = window.state.result.causality
    assert report.first_changed == n - 1 and not report.exact
    assert window.tour_driver.pending_text is None and window.tour_driver.then_text is None

    window.set_language("en")  # and back in English the same stop types the English one
    window.tour.go(keys.index("causal-setup"))
    wait_for_text(qtbot, window, CAUSAL_TEXT)
