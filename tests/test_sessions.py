"""Sessions: save → open round trip, files that must change nothing (corrupt, newer, foreign),
atomic writes, autosave, and recovery after a crash or a kill."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from conftest import wait_for_text
from PySide6.QtWidgets import QMessageBox

from app import sessions
from app.mainwindow import settings_dir
from engine import Qwen3Config

# English, light theme, normal text size again after each test (app-wide settings)
pytestmark = pytest.mark.usefixtures("restore_view")


def snapshot(window):
    s = window.state
    return (s.text, s.config, s.seed, s.causal, s.step, s.head, s.query, s.depth_t, s.language,
            s.palette, s.theme, s.font_scale, window.editor.text())


def test_save_then_open_restores_everything(make_window, tmp_path):
    window = make_window(sync=True, text="我爱北京天安门 and more")
    s = window.state
    s.set_model(Qwen3Config(num_key_value_heads=4), seed=7)
    window.causal_action.setChecked(False)
    s.set_step("k_rope")
    s.set_head(3)
    s.set_query(5)
    s.set_depth_t(0.25)
    window.set_language("zh")
    s.set_palette("colorblind")
    s.set_theme("dark")
    s.set_font_scale(1.3)
    saved = snapshot(window)
    path = tmp_path / "lesson.dualview.json"
    assert window.save_session(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["format"] == "dualview-session" and data["version"] == sessions.VERSION
    assert data["weights"] == {"kind": "random", "seed": 7}

    other = make_window(sync=True, text="something else")
    other.set_language("en")
    assert snapshot(other) != saved
    assert other.open_session(path)
    assert snapshot(other) == saved
    assert other.state.result.text == "我爱北京天安门 and more"
    assert other.state.result.trace.config.num_key_value_heads == 4
    assert not other.state.result.trace.causal and not other.causal_action.isChecked()
    assert other.palette_actions["colorblind"].isChecked()
    assert other.file_menu.title() == "文件(&F)"


def test_open_with_the_async_worker_selects_the_query_once_computed(make_window, qtbot, tmp_path):
    source = make_window(sync=True, text="a b c d e f")
    source.state.set_query(4)
    path = tmp_path / "q.dualview.json"
    source.save_session(path)
    window = make_window(text="x")  # the real worker thread
    assert window.open_session(path)
    wait_for_text(qtbot, window, "a b c d e f")
    assert window.state.query == 4



def test_a_session_with_more_heads_selects_its_head_once_its_layer_is_in(make_window, qtbot,
                                                                         tmp_path):
    source = make_window(sync=True, text="a b c")
    source.state.set_model(Qwen3Config(num_attention_heads=8), seed=1)
    source.state.set_head(6)
    path = tmp_path / "eight-heads.dualview.json"
    source.save_session(path)
    window = make_window(text="x y")  # the real worker: the 4-head result stays on screen a while
    # head 6 was selected at once and every panel drawing heads indexed the 4-head result with
    # it (IndexError out of the attention and heatmap panels, which then drew nothing)
    assert window.open_session(path)
    assert window.state.head < 4
    wait_for_text(qtbot, window, "a b c")
    assert window.state.head == 6
    assert window.panels["attentionDock"].shown_head == 6
    # the same holds for a head chosen (] key) while the new layer is being computed
    window.state.set_model(Qwen3Config(num_attention_heads=16), seed=2)
    window.state.set_head(12)
    assert window.state.head == 7
    # a session without text has no result to wait for: its head is selected at once
    source.editor.set_text("")
    source.save_session(path)
    assert window.open_session(path)
    assert window.state.result is None and window.state.head == 6
BAD_FILES = {
    "corrupt": (b"{\"format\": \"dualview-session\", \"version\": 1, \"te", "damaged"),
    "binary": (bytes(range(256)), "damaged"),
    "empty": (b"", "damaged"),
    "foreign": (json.dumps({"name": "a package.json"}).encode(), "not a Dual View session"),
    "future": (json.dumps({"format": "dualview-session", "version": 99, "text": "x"}).encode(),
               "newer Dual View"),
    "bad field": (json.dumps({"format": "dualview-session", "version": 1, "text": "x",
                              "config": {"hidden_size": 16},
                              "weights": {"kind": "random", "seed": 0},
                              "selection": {"step": "no_such_step"}}).encode(),
                  "unknown step"),
    "bad config": (json.dumps({"format": "dualview-session", "version": 1, "text": "x",
                               "config": {"num_attention_heads": 3},
                               "weights": {"kind": "random", "seed": 0}}).encode(),
                   "config is invalid"),
    "huge integer": (b'{"format": "dualview-session", "version": 1' + b"0" * 5000 + b"}",
                     "not valid JSON"),
    "deep nesting": (b"[" * 100_000 + b"]" * 100_000, "not valid JSON"),
    "huge layer": (json.dumps({"format": "dualview-session", "version": 1, "text": "x",
                               "config": {"hidden_size": 100_000,
                                          "intermediate_size": 400_000},
                               "weights": {"kind": "random", "seed": 0}}).encode(),
                   "more than the 15,730,944 of the largest layer"),
    # the text field would keep 200,000 of them without a word (an emoji counts two)
    "too much text": (json.dumps({"format": "dualview-session", "version": 1,
                                  "text": "a" * 199_999 + "😀",
                                  "config": {"hidden_size": 16},
                                  "weights": {"kind": "random", "seed": 0}}).encode(),
                      "200,001 characters, more than the 200,000 the text field holds"),
}


@pytest.mark.parametrize("kind", list(BAD_FILES))
def test_a_bad_file_shows_a_clear_message_and_changes_nothing(make_window, tmp_path, kind):
    content, words = BAD_FILES[kind]
    window = make_window(sync=True, text="keep this")
    window.state.set_step("o_proj")
    before = snapshot(window)
    result = window.state.result
    path = tmp_path / f"{kind}.dualview.json"
    path.write_bytes(content)
    assert not window.open_session(path)
    assert words in window.last_message and path.name in window.last_message
    box = window.findChild(QMessageBox, "notifyBox")
    assert box is not None and box.isVisible() and not box.isModal()
    assert snapshot(window) == before and window.state.result is result


def test_a_missing_file_says_so(make_window, tmp_path):
    window = make_window(sync=True, text="keep")
    assert not window.open_session(tmp_path / "nope.dualview.json")
    assert "does not exist" in window.last_message


def test_every_example_session_opens(make_window):
    window = make_window(sync=True, text="a")
    examples = sessions.example_sessions()
    assert len(examples) >= 4
    titles = [a.text() for a in window.examples_menu.actions()]
    assert len(titles) == len(examples) and all(titles)
    for path in examples:
        assert window.open_session(path), window.last_message
        assert window.state.result is not None and window.state.error == ""
    assert window.state.language == "en"  # examples keep the reader's language


def test_save_after_opening_an_example_never_writes_over_it(make_window, tmp_path, monkeypatch):
    # copies of the examples stand in for the shipped ones (a regression must not damage them)
    folder = tmp_path / "examples"
    folder.mkdir()
    copies = []
    for path in sessions.example_sessions():
        copies.append(folder / path.name)
        copies[-1].write_bytes(path.read_bytes())
    monkeypatch.setattr(sessions, "example_sessions", lambda: copies)
    window = make_window(sync=True, text="a")
    example = copies[0]
    shipped = example.read_bytes()
    window.examples_menu.actions()[0].trigger()
    assert window.state.text == json.loads(shipped)["text"]
    window.editor.set_text("my own sentence")
    # Ctrl+S saved straight over the shipped example (its path was taken as the session's)
    asked = []
    monkeypatch.setattr(window.files, "_ask_save", lambda *a: asked.append(a) or
                        str(tmp_path / "mine.dualview.json"))
    window.save_action.trigger()
    assert example.read_bytes() == shipped
    assert len(asked) == 1 and (tmp_path / "mine.dualview.json").exists()
    assert window.files.session_path == tmp_path / "mine.dualview.json"
    # a file of one's own is still saved in place
    window.editor.set_text("edited again")
    window.save_action.trigger()
    assert len(asked) == 1
    assert json.loads((tmp_path / "mine.dualview.json").read_text())["text"] == "edited again"


def test_writes_are_atomic(tmp_path, monkeypatch):
    path = tmp_path / "s.dualview.json"
    sessions.write_atomic(path, b"old and complete")

    def crash(*_args):
        raise OSError("disk pulled out")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError):
        sessions.write_atomic(path, b"new")
    assert path.read_bytes() == b"old and complete"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.dualview.json"]  # no temp left


def test_a_failed_save_says_so_and_keeps_the_old_file(make_window, tmp_path, monkeypatch):
    window = make_window(sync=True, text="a")
    path = tmp_path / "s.dualview.json"
    path.write_text("previous", encoding="utf-8")
    monkeypatch.setattr(os, "replace", lambda *_: (_ for _ in ()).throw(OSError("full")))
    assert not window.save_session(path)
    assert "Could not save" in window.last_message
    assert path.read_text(encoding="utf-8") == "previous"


def test_changes_are_autosaved(make_window, qtbot):
    window = make_window(sync=True, text="first")
    auto = sessions.autosave_path(settings_dir())
    window.editor.set_text("autosaved text")
    window.state.set_step("gated")
    qtbot.waitUntil(lambda: auto.exists() and "autosaved text" in auto.read_text("utf-8"),
                    timeout=5000)
    assert sessions.read_session(auto).step == "gated"


def test_a_clean_exit_leaves_nothing_to_recover(make_window):
    window = make_window(sync=True, text="closed properly")
    window.close()
    assert (settings_dir() / sessions.CLEAN_EXIT_NAME).exists()
    again = make_window(sync=True, text="a")
    assert again.files.recovery_path is None and again.offer_recovery() is None


def write_crash_autosave(text):
    folder = settings_dir()
    folder.mkdir(parents=True, exist_ok=True)
    sessions.write_session(sessions.autosave_path(folder),
                           sessions.Session(text=text, step="q_rope", head=2))
    # no clean-exit marker: the last run never closed normally


def test_after_a_crash_the_autosave_is_offered_and_restored(make_window, qtbot):
    write_crash_autosave("what we were doing")
    window = make_window(sync=True, text="fresh start")
    assert window.files.recovery_path is not None and window.files.recovery_path.exists()
    # this run's autosave cannot overwrite the crashed one any more
    window.files.autosave_now()
    assert sessions.read_session(window.files.recovery_path).text == "what we were doing"
    box = window.offer_recovery()
    assert box is not None and box.isVisible() and not box.isModal()
    restore = next(b for b in box.buttons() if b.text() == "Restore")
    restore.click()
    assert window.state.text == "what we were doing"
    assert window.editor.text() == "what we were doing"
    assert (window.state.step, window.state.head) == ("q_rope", 2)


def test_after_a_crash_the_autosave_can_be_discarded(make_window):
    write_crash_autosave("not wanted")
    window = make_window(sync=True, text="fresh start")
    box = window.offer_recovery()
    next(b for b in box.buttons() if b.text() == "Discard").click()
    assert window.state.text == "fresh start" and window.files.recovery_path is None


def test_a_killed_app_offers_its_last_session_at_the_next_start(make_window, qtbot, tmp_path):
    """Run the real app, let it autosave, kill -9 it, start again."""
    folder = settings_dir()
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "DUALVIEW_CONFIG_DIR": str(folder)}
    proc = subprocess.Popen([sys.executable, "-m", "app", "--text", "killed mid-lesson",
                             "--lang", "en"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    auto = sessions.autosave_path(folder)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (
                auto.exists() and "killed mid-lesson" in auto.read_text("utf-8")):
            time.sleep(0.1)
        assert auto.exists(), "the app never autosaved"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    assert not (folder / sessions.CLEAN_EXIT_NAME).exists()
    window = make_window(sync=True, text="a")
    assert window.offer_recovery() is not None
    assert window.files.restore_recovered()
    assert window.state.text == "killed mid-lesson"


def test_the_selftest_never_prompts_or_autosaves(tmp_path):
    write_crash_autosave("left from a crash")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run([sys.executable, "-m", "app", "--selftest"], capture_output=True,
                          text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    assert sessions.autosave_path(settings_dir()).exists()  # untouched, still offered later
    assert not (settings_dir() / sessions.RECOVERED_NAME).exists()


def test_a_second_copy_of_the_app_is_not_taken_for_a_crash(make_window):
    first = make_window(sync=True, text="the first copy")
    first.files.autosave_now()
    auto = sessions.autosave_path(settings_dir())
    assert auto.exists() and not (settings_dir() / sessions.CLEAN_EXIT_NAME).exists()
    second = make_window(sync=True, text="the second copy")
    assert second.files.recovery_path is None and not second.files.autosave_enabled
    second.files.autosave_now()
    assert sessions.read_session(auto).text == "the first copy"
    second.close()
    first.editor.set_text("still autosaving")
    first.files.autosave_now()
    assert sessions.read_session(auto).text == "still autosaving"


def test_a_byte_order_mark_is_fine_and_a_non_file_is_refused(make_window, tmp_path):
    window = make_window(sync=True, text="keep this")
    path = tmp_path / "s.dualview.json"
    window.save_session(path)
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())  # as some editors save it
    window.editor.set_text("other")
    assert window.open_session(path) and window.state.text == "keep this"
    folder = tmp_path / "folder.dualview.json"
    folder.mkdir()
    assert not window.open_session(folder)  # (/dev/zero would read forever, a FIFO block)
    assert "is not a file" in window.last_message
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "pipe.dualview.json"
        os.mkfifo(fifo)
        assert not window.open_session(fifo) and "is not a file" in window.last_message


def test_saving_through_a_link_and_near_the_name_limit(make_window, tmp_path):
    window = make_window(sync=True, text="first")
    target = tmp_path / "real.dualview.json"
    link = tmp_path / "link.dualview.json"
    window.save_session(target)
    link.symlink_to(target)
    window.editor.set_text("second")
    assert window.save_session(link)
    assert link.is_symlink() and sessions.read_session(target).text == "second"
    long_name = tmp_path / ("长" * 78 + ".dualview.json")  # 248 bytes: the limit is 255
    assert len(long_name.name.encode()) > 240
    assert window.save_session(long_name) and sessions.read_session(long_name).text == "second"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_an_unusable_settings_folder_is_said_in_the_window(make_window, monkeypatch, tmp_path):
    blocker = tmp_path / "a file, not a folder"
    blocker.write_text("x")
    monkeypatch.setenv("DUALVIEW_CONFIG_DIR", str(blocker / "config"))
    window = make_window(sync=True, text="a")
    assert not window.files.autosave_enabled
    assert "Autosave is off" in window.last_message and "config" in window.last_message
