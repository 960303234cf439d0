"""Every keyboard shortcut of a live demo, sent as real key presses to the real window — and
none of them steals a key while the text field is being typed in."""

import pytest
from conftest import wait_for_text
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from app import presentation

# English, light theme, normal text size again after each test (app-wide settings)
pytestmark = pytest.mark.usefixtures("restore_view")


def ready(make_window, qtbot, text="a b c"):
    window = make_window(sync=True, text=text)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    tree = window.panels["stepListDock"].tree
    if text is not None:  # with no text the panels show their empty state instead
        tree.setFocus()
        qtbot.waitUntil(tree.hasFocus)
    return window, tree


def test_arrows_home_end_walk_the_steps(make_window, qtbot):
    window, tree = ready(make_window, qtbot)
    window.state.set_step("q_proj")
    qtbot.keyClick(tree, Qt.Key.Key_Right)
    assert window.state.step == "k_proj"
    qtbot.keyClick(tree, Qt.Key.Key_Down)
    assert window.state.step == "v_proj"
    qtbot.keyClick(tree, Qt.Key.Key_Left)
    qtbot.keyClick(tree, Qt.Key.Key_Up)
    assert window.state.step == "q_proj"
    qtbot.keyClick(tree, Qt.Key.Key_End)
    assert window.state.step == "resid_mlp"
    qtbot.keyClick(tree, Qt.Key.Key_Right)  # stops at the end
    assert window.state.step == "resid_mlp"
    qtbot.keyClick(tree, Qt.Key.Key_Home)
    assert window.state.step == "embed"


def test_brackets_change_the_head(make_window, qtbot):
    window, tree = ready(make_window, qtbot)
    qtbot.keyClick(tree, Qt.Key.Key_BracketRight)
    qtbot.keyClick(tree, Qt.Key.Key_BracketRight)
    assert window.state.head == 2
    qtbot.keyClick(tree, Qt.Key.Key_BracketLeft)
    assert window.state.head == 1


def test_space_plays_and_pauses_depth_time(make_window, qtbot):
    window, tree = ready(make_window, qtbot)
    panel = window.panels["depthDock"]
    toggles = []
    window.state.play_toggle_requested.connect(lambda: toggles.append(1))

    def playing():
        return panel.playing if hasattr(panel, "playing") else len(toggles) % 2 == 1

    assert not playing()
    qtbot.keyClick(tree, Qt.Key.Key_Space)
    assert playing()
    qtbot.keyClick(tree, Qt.Key.Key_Space)
    assert not playing()


def test_m_toggles_the_causal_mask(make_window, qtbot):
    window, tree = ready(make_window, qtbot)
    assert window.state.causal
    qtbot.keyClick(tree, Qt.Key.Key_M)
    assert not window.state.causal and not window.causal_action.isChecked()
    assert not window.state.result.trace.causal  # recomputed without the mask
    qtbot.keyClick(tree, Qt.Key.Key_M)
    assert window.state.causal


def test_keys_in_the_text_field_edit_text_and_never_step(make_window, qtbot):
    window, _tree = ready(make_window, qtbot, text="ab")
    line = window.editor.line
    line.setFocus()
    qtbot.waitUntil(line.hasFocus)
    line.setCursorPosition(2)
    step, causal, head = window.state.step, window.state.causal, window.state.head
    qtbot.keyClick(line, Qt.Key.Key_Left)
    assert line.cursorPosition() == 1
    qtbot.keyClick(line, Qt.Key.Key_Space)
    qtbot.keyClicks(line, "m]")
    qtbot.keyClick(line, Qt.Key.Key_Down)
    qtbot.keyClick(line, Qt.Key.Key_Up)
    qtbot.keyClick(line, Qt.Key.Key_End)
    assert line.text() == "a m]b"
    assert (window.state.step, window.state.causal, window.state.head) == (step, causal, head)
    wait_for_text(qtbot, window, "a m]b")
    # Esc hands the keys back to the window: now the arrow steps again
    qtbot.keyClick(line, Qt.Key.Key_Escape)
    assert not line.hasFocus()
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Right)
    assert window.state.step != step


def test_spin_boxes_keep_their_arrow_keys(make_window, qtbot):
    window, _tree = ready(make_window, qtbot)
    box = window.panels["heatmapDock"].head_box
    window.state.set_step("attn_probs")
    box.setFocus()
    qtbot.waitUntil(box.hasFocus)
    qtbot.keyClick(box, Qt.Key.Key_Up)
    assert window.state.head == 1 and window.state.step == "attn_probs"



def test_a_focused_drop_down_list_keeps_its_arrow_keys(make_window, qtbot):
    window, _tree = ready(make_window, qtbot)
    box = window.panels["attentionDock"].query_box  # not editable
    window.state.set_step("attn_probs")
    window.state.set_query(0)
    box.setFocus()
    qtbot.waitUntil(box.hasFocus)
    qtbot.keyClick(box, Qt.Key.Key_Down)  # (it walked to the next step)
    assert window.state.query == 1 and window.state.step == "attn_probs"


def test_ctrl_z_and_ctrl_shift_z_undo_and_redo_text_edits(make_window, qtbot):
    window, tree = ready(make_window, qtbot, text="one")
    window.state.history_merge_s = 0  # every edit its own undo step
    window.editor.set_text("one two")
    window.editor.set_text("one two three")
    qtbot.keyClick(tree, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert window.state.text == "one two" and window.editor.text() == "one two"
    assert window.state.result.text == "one two"
    qtbot.keyClick(tree, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert window.editor.text() == "one"
    qtbot.keyClick(tree, Qt.Key.Key_Z,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert window.editor.text() == "one two"
    qtbot.keyClick(tree, Qt.Key.Key_Y, Qt.KeyboardModifier.ControlModifier)
    assert window.editor.text() == "one two three"
    assert not window.redo_action.isEnabled()
    # a new edit after an undo drops the redo branch
    qtbot.keyClick(tree, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    window.editor.set_text("one two four")
    assert not window.state.can_redo


def test_ctrl_z_in_the_text_field_uses_the_same_history(make_window, qtbot):
    window, _tree = ready(make_window, qtbot, text=None)
    line = window.editor.line
    line.setFocus()
    qtbot.waitUntil(line.hasFocus)
    window.state.history_merge_s = 60  # typing in one burst is one undo step
    qtbot.keyClicks(line, "The cat")
    window.state.history_merge_s = 0
    window.editor.set_text("The cat sat")
    qtbot.keyClick(line, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert line.text() == "The cat" and window.state.text == "The cat"
    qtbot.keyClick(line, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert line.text() == "" and window.state.result is None
    qtbot.keyClick(line, Qt.Key.Key_Z,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert line.text() == "The cat"


def test_f1_shows_every_shortcut(make_window, qtbot):
    window, tree = ready(make_window, qtbot)
    qtbot.keyClick(tree, Qt.Key.Key_F1)
    sheet = window._shortcuts_sheet
    assert sheet is not None and sheet.isVisible() and not sheet.isModal()
    keys = " | ".join(k for k, _ in sheet.rows())
    for expected in ("Space", "Left", "Right", "Home", "End", "M", "Ctrl+Z", "Ctrl+Shift+Z",
                     "F11", "Ctrl+=", "Ctrl+-", "Ctrl+0", "PgDown", "PgUp", "F1", "Esc", "[",
                     "]", "Ctrl+T", "Ctrl+S", "Ctrl+O"):
        assert expected in keys, expected
    assert all(what and "&" not in what for _, what in sheet.rows())
    window.set_language("zh")  # the open sheet follows the language
    assert ("Ctrl+Z", "撤销") in sheet.rows()
    assert sheet.windowTitle() == "键盘快捷键"
    window.set_language("en")
    # the sheet is a window of its own; the demo keys still work while it has the focus
    sheet.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is sheet)
    before = window.state.step
    qtbot.keyClick(sheet, Qt.Key.Key_Left)
    assert window.state.step != before


@pytest.mark.parametrize("compact", [False, True])
def test_f11_and_ctrl_plus_minus_zero(make_window, qtbot, monkeypatch, compact):
    # a small screen (the offscreen test screen is one) starts presentation at a smaller scale
    monkeypatch.setattr(presentation, "compact_screen", lambda _w, _h: compact)
    scale = (presentation.COMPACT_PRESENTATION_SCALE if compact
             else presentation.PRESENTATION_SCALE)
    window, tree = ready(make_window, qtbot)
    qtbot.keyClick(tree, Qt.Key.Key_F11)
    assert window.state.presentation and window.isFullScreen()
    assert window.state.font_scale == scale
    qtbot.keyClick(tree, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    bigger = window.state.font_scale
    assert bigger > scale
    qtbot.keyClick(tree, Qt.Key.Key_Minus, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(tree, Qt.Key.Key_Minus, Qt.KeyboardModifier.ControlModifier)
    assert window.state.font_scale < scale
    qtbot.keyClick(tree, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
    assert window.state.font_scale == scale
    qtbot.keyClick(tree, Qt.Key.Key_F11)
    assert not window.state.presentation and not window.isFullScreen()
    assert window.state.font_scale == 1.0
    qtbot.keyClick(tree, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    assert window.state.font_scale > 1.0
    qtbot.keyClick(tree, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
    assert window.state.font_scale == 1.0


def test_esc_leaves_presentation_mode(make_window, qtbot):
    window, tree = ready(make_window, qtbot)
    window.set_presentation(True)
    qtbot.keyClick(tree, Qt.Key.Key_Escape)
    assert not window.state.presentation


def test_page_down_and_up_step_the_tour_only_while_it_runs(make_window, qtbot):
    window, tree = ready(make_window, qtbot)
    qtbot.keyClick(tree, Qt.Key.Key_PageDown)  # no tour: the key is the tree's own
    assert not window.tour.running and window.tour.index == 0
    assert not window.tour_next_action.isEnabled()
    qtbot.keyClick(tree, Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier)
    assert window.tour.running and window.tour.index == 0
    tree.setFocus()
    qtbot.keyClick(tree, Qt.Key.Key_PageDown)
    qtbot.keyClick(tree, Qt.Key.Key_PageDown)
    assert window.tour.index == 2
    qtbot.keyClick(tree, Qt.Key.Key_PageUp)
    assert window.tour.index == 1


def test_ctrl_l_goes_to_the_text_field(make_window, qtbot):
    window, tree = ready(make_window, qtbot)
    qtbot.keyClick(tree, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)
    assert window.editor.line.hasFocus()
