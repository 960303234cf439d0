"""The main window's parts, each exercised on its own where it can be: the key guard, the
menus' texts, the status bar's messages, the file controller (sessions open whole or not at
all, a damaged weights file never lets an exception out), and the window's teardown."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import wait_for_text
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QFileDialog,
    QLineEdit,
    QMainWindow,
    QPushButton,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from app import files as files_module
from app import i18n
from app.bridge import EngineBridge
from app.keys import KeyGuard, wants_key
from app.menus import plain_text
from app.state import AppState
from app.status import StatusBar
from tests.safetensors_files import SMALL, write_model

ROOT = Path(__file__).resolve().parents[1]


# ----- app.keys -----
def test_bare_keys_belong_to_the_widget_that_types_or_slides(qapp):
    line, slider = QLineEdit(), QSlider()
    plain, combo = QPushButton(), QComboBox()
    assert wants_key(line, Qt.Key.Key_Space, typed=True)
    assert wants_key(line, Qt.Key.Key_A, typed=True)
    assert wants_key(slider, Qt.Key.Key_Left, typed=False)
    assert wants_key(combo, Qt.Key.Key_Down, typed=False)  # a list walks its items
    assert not wants_key(combo, Qt.Key.Key_Space, typed=True)
    assert not wants_key(plain, Qt.Key.Key_Space, typed=True)
    assert not wants_key(None, Qt.Key.Key_Space, typed=True)


def test_the_key_guard_keeps_space_in_the_line_and_esc_leaves_it(qapp, monkeypatch):
    root = QWidget()
    layout = QVBoxLayout(root)
    line, button, outside = QLineEdit(), QPushButton(), QLineEdit()
    layout.addWidget(line)
    layout.addWidget(button)
    left = []
    guard = KeyGuard(root, line, lambda: left.append(True))

    def press(kind: QEvent.Type, key: Qt.Key, text: str = "") -> QKeyEvent:
        return QKeyEvent(kind, key, Qt.KeyboardModifier.NoModifier, text)

    focus = {"widget": line}
    monkeypatch.setattr(QApplication, "focusWidget", staticmethod(lambda: focus["widget"]))
    assert guard.eventFilter(line, press(QEvent.Type.ShortcutOverride, Qt.Key.Key_Space, " "))
    assert guard.eventFilter(line, press(QEvent.Type.KeyPress, Qt.Key.Key_Escape))
    assert left == [True]
    focus["widget"] = button  # no text to type: Space is the window's shortcut
    assert not guard.eventFilter(button, press(QEvent.Type.ShortcutOverride,
                                               Qt.Key.Key_Space, " "))
    focus["widget"] = outside  # another window's field: not ours to guard
    assert not guard.eventFilter(outside, press(QEvent.Type.ShortcutOverride,
                                                Qt.Key.Key_Space, " "))


# ----- app.menus -----
def test_menu_texts_lose_their_accelerators():
    assert plain_text("&Open session…") == "Open session…"
    assert plain_text("打开会话(&O)…") == "打开会话…"


# ----- app.status -----
@pytest.fixture
def bare_status(qapp):
    window = QMainWindow()
    state = AppState(EngineBridge(sync=True))
    status = StatusBar(window, state, lambda n: f"{n} token(s)")
    yield window, status
    i18n.translations().apply("en")
    window.deleteLater()


def test_a_status_message_is_worded_again_in_the_new_language(bare_status):
    """Issue #21: a message shown in English stayed English after switching to Chinese."""
    from PySide6.QtCore import QCoreApplication

    window, status = bare_status
    status.show_message(lambda: QCoreApplication.translate("MainWindow", "Saved %1")
                        .replace("%1", "lesson.json"), 5000)
    assert window.statusBar().currentMessage() == "Saved lesson.json"
    assert i18n.translations().apply("zh")
    status.retranslate()  # (the window calls it on LanguageChange)
    assert window.statusBar().currentMessage() == "已保存 lesson.json"
    assert status.last_message == "已保存 lesson.json"
    window.statusBar().clearMessage()  # gone: a switch back does not bring it back
    i18n.translations().apply("en")
    status.retranslate()
    assert window.statusBar().currentMessage() == ""


def test_the_windows_messages_follow_a_language_switch(make_window, tmp_path, restore_view):
    window = make_window(sync=True, text="a b")
    assert window.save_session(tmp_path / "lesson.dualview.json")
    assert window.statusBar().currentMessage().startswith("Saved ")
    window.set_language("zh")
    assert window.statusBar().currentMessage().startswith("已保存 ")
    window.set_language("en")
    assert window.statusBar().currentMessage().startswith("Saved ")
    window.notify("plain words, no source", dialog=False)  # a plain string stays as it is
    window.set_language("zh")
    assert window.statusBar().currentMessage() == "plain words, no source"


# ----- app.files: sessions open whole or not at all -----
def _session_with_weights(tmp_path: Path, make_window) -> Path:
    model, session = tmp_path / "model.safetensors", tmp_path / "lesson.dualview.json"
    write_model(model, layers=1)
    source = make_window(sync=True, text="one two three")
    assert source.load_weights(model, 0)
    source.set_language("zh")
    assert source.save_session(session)
    source.set_language("en")
    return session


def test_a_session_whose_weights_raise_changes_nothing(make_window, tmp_path, monkeypatch,
                                                       restore_view):
    session = _session_with_weights(tmp_path, make_window)
    window = make_window(sync=True, text="keep me")
    before = (window.state.language, window.state.text, window.state.weights,
              window.state.config, window.editor.text())

    def broken(*_args, **_kwargs):
        raise PermissionError(13, "Permission denied", "model.safetensors")

    monkeypatch.setattr(files_module, "load_layer", broken)
    assert not window.open_session(session)
    assert "Cannot open lesson.dualview.json" in window.last_message
    assert (window.state.language, window.state.text, window.state.weights,
            window.state.config, window.editor.text()) == before
    assert window.files.session_path is None

    def bug(*_args, **_kwargs):
        raise RuntimeError("a reader bug")

    monkeypatch.setattr(files_module, "load_layer", bug)
    assert not window.open_session(session)  # no exception escapes, nothing applied
    assert (window.state.language, window.state.text) == before[:2]


def test_a_session_with_a_damaged_weights_file_opens_whole(make_window, tmp_path, qtbot,
                                                           restore_view):
    session = _session_with_weights(tmp_path, make_window)
    model = tmp_path / "model.safetensors"
    model.write_bytes(model.read_bytes()[:200])  # cut short: the engine's EngineError
    window = make_window(sync=True, text="x")
    assert window.open_session(session)
    # all of it: its language, its text and its layer's shape (random weights, said why)
    assert window.state.language == "zh" and window.state.text == "one two three"
    assert window.state.config == SMALL and window.state.weights_source is None
    assert "model.safetensors" in window.last_message
    wait_for_text(qtbot, window, "one two three")


# ----- app.files: File ▸ Open layer weights never lets an exception out -----
def test_open_layer_weights_with_a_damaged_file_says_why(make_window, tmp_path, monkeypatch):
    window = make_window(sync=True, text="a b")
    before = window.state.weights
    model = tmp_path / "model.safetensors"
    write_model(model, layers=1)
    model.write_bytes(model.read_bytes()[:300])  # truncated
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        staticmethod(lambda *a, **k: (str(model), "")))
    window.open_weights_action.trigger()
    assert window.last_message.startswith("Cannot load weights from model.safetensors")
    assert window.state.weights is before

    def denied(*_args, **_kwargs):
        raise PermissionError(13, "Permission denied", str(model))

    for name in ("layer_indices", "load_layer"):  # the menu's two reads
        monkeypatch.setattr(files_module, name, denied)
        window.last_message = ""
        window.open_weights_action.trigger()
        assert window.last_message.startswith("Cannot load weights from model.safetensors")
        assert window.state.weights is before
    assert not window.load_weights(model)


# ----- the window's teardown -----
def test_a_script_that_builds_the_window_and_opens_a_session_exits_cleanly(tmp_path):
    """Issue #19: a script of its own (not app.__main__) ended in a segfault now and then, in
    PySide's own exit clean-up deleting the graphics views' Python overrides. The segfault was
    never reproduced here (10 of 10 runs exited cleanly with the window's exit hooks removed),
    so the test checks what the fix does, which it can see every time: by the time PySide's
    clean-up runs, the window and every graphics view in it are deleted already (by
    ``MainWindow.dispose`` from the app's atexit hook)."""
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent("""
        import atexit
        import sys

        held = []

        def check():
            import shiboken6
            alive = [type(obj).__name__ for obj in held if shiboken6.isValid(obj)]
            print("alive at exit:", alive, flush=True)

        from PySide6 import QtWidgets  # PySide registers its exit clean-up at import
        # atexit runs last-registered first: this check after the app's hooks (registered when
        # app.mainwindow is imported, below), before PySide's clean-up
        atexit.register(check)
        from app.__main__ import build_app
        app = build_app(sys.argv)
        import pyqtgraph as pg
        from app import sessions
        from app.mainwindow import MainWindow
        window = MainWindow()
        window.show()
        assert window.open_session(sessions.example_sessions()[0]), window.last_message
        window.wait_for_first_result(5)
        app.processEvents()
        held.extend([window, *window.findChildren(pg.GraphicsView)])
        assert len(held) > 5, held
        print("done", flush=True)
    """), encoding="utf-8")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT),
               DUALVIEW_CONFIG_DIR=str(tmp_path / "config"))
    for run in range(3):
        proc = subprocess.run([sys.executable, str(script)], env=env, cwd=tmp_path,
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0 and "done" in proc.stdout, (run, proc.returncode,
                                                                proc.stderr[-2000:])
        assert "alive at exit: []" in proc.stdout, (run, proc.stdout[-2000:])


def test_dispose_deletes_the_window_and_is_idempotent(qapp):
    import shiboken6

    from app.mainwindow import MainWindow

    window = MainWindow(bridge=EngineBridge(sync=True), initial_text="a",
                        persist_layout=False)
    window.show()
    window.dispose()
    assert not shiboken6.isValid(window)
    window.dispose()  # (the atexit and aboutToQuit hooks may both call it)


def test_session_json_round_trip_is_unchanged(make_window, tmp_path):
    window = make_window(sync=True, text="the cat sat")
    path = tmp_path / "s.dualview.json"
    assert window.save_session(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["text"] == "the cat sat"


# ----- app.presentation: restyling after a redraw touches only what changed -----
def test_restyling_skips_plot_items_already_styled_and_redoes_changed_ones(qapp):
    import pyqtgraph as pg
    from PySide6.QtGui import QFont

    from app import presentation

    root = QWidget()
    widget = pg.PlotWidget(root)
    text = pg.TextItem("x")
    widget.addItem(text)
    axis = widget.getPlotItem().getAxis("bottom")
    first = presentation.style_plots(root, 1.5)
    assert first >= 2 and text.textItem.font().pointSizeF() > 0
    assert presentation.style_plots(root, 1.5) == 0  # nothing changed since: nothing done
    axis.setTickFont(QFont("Sans", 7))  # a panel set its own font again
    assert presentation.style_plots(root, 1.5) == 1
    assert axis.style["tickFont"].pointSizeF() == presentation.BASE_TICK_PT * 1.5
    assert presentation.style_plots(root, 2.0) == first  # another scale: all of them again
    root.deleteLater()


def test_a_keystroke_tokenizes_its_text_once(make_window, qtbot, monkeypatch):
    """Issue #20: the state tokenizes each text once; the request carries the tokens to the
    worker and the chips read them from the state (docs/architecture.md, the keystroke's path)."""
    import engine

    window = make_window(sync=True, text="我爱 AI")
    calls: list[str] = []
    tokenize = engine.tokenize

    def counted(text: str) -> list[str]:
        calls.append(text)
        return tokenize(text)

    monkeypatch.setattr(engine, "tokenize", counted)
    window.editor.line.setFocus()
    window.editor.line.end(False)
    qtbot.keyClicks(window.editor.line, "s")  # (QTest types Latin keys only)
    wait_for_text(qtbot, window, "我爱 AIs")
    assert calls == ["我爱 AIs"]
    assert window.state.result.tokens == ("我", "爱", "AIs")
    assert "AIs" in window.editor.chips.text()  # the chips show the state's tokens
