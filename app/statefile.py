"""A test hook, off by default: the window's observable state as a JSON file.

An end-to-end test drives the real app from outside (an X server, real key events) and cannot
call into it; it reads this file instead. With ``DUALVIEW_STATE_FILE=path`` in the environment,
``app/__main__.py`` calls :func:`attach`, and the file is rewritten after every accepted result
and every mode change (mask, presentation, tour, language, baseline), once the visible panels
have drawn it. Without the variable nothing is connected and nothing is written.

The file is replaced atomically (written beside it, then renamed), so a reader never sees half
of it. Its keys (all plain JSON):

- ``seq``: counts the writes; ``text``: the text field; ``result_text`` / ``tokens``: the text
  and tokens of the result on screen (null / [] before the first);
- ``causal``: the causal mask is on; ``result_causal``: the result on screen was computed with it;
- ``presentation``: presentation mode; ``full_screen``: the window is full screen;
- ``tour_running``, ``tour_stop``: the guided tour is open, and the key of its stop;
- ``verdict``: the causality panel's verdict as a reader sees it; ``verdict_detail``: the
  lines under it (what it was compared with, "Before: …");
- ``panels_current``: every visible panel shows the result; ``error``: the engine's message;
- ``language``; ``focus``: the object name (else the class) of the widget with the keyboard
  focus; ``window``: the window's frame on screen, ``window_id`` its native window (the X
  window id on X11; null while hidden); ``editor``: the text field's rectangle on screen
  (x, y, width, height), so a test can click into it.

Also rewritten when the window is shown, moved, resized or changes its window state, and when
the focus moves.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtGui import QTextDocumentFragment
from PySide6.QtWidgets import QApplication, QMainWindow

#: The environment variable that turns the hook on.
ENV = "DUALVIEW_STATE_FILE"
#: A change is written this long after the last signal (a burst of signals writes once).
SETTLE_MS = 30
#: While a visible panel has not drawn the result yet, look again this often.
POLL_MS = 50
_GEOMETRY_EVENTS = (QEvent.Type.Show, QEvent.Type.Move, QEvent.Type.Resize,
                    QEvent.Type.WindowStateChange)


def snapshot(window: Any) -> dict[str, Any]:
    """The window's observable state as a JSON-ready dict (see the module's docstring)."""
    state = window.state
    result = state.result
    causality = window.panels.get("causalityDock")
    tour = window.tour
    line = window.editor.line
    corner = line.mapToGlobal(line.rect().topLeft())
    frame = window.frameGeometry()
    focus = QApplication.focusWidget()
    return {
        "text": state.text,
        "result_text": None if result is None else result.text,
        "tokens": [] if result is None else list(result.tokens),
        "causal": bool(state.causal),
        "result_causal": None if result is None else bool(result.trace.causal),
        "presentation": bool(state.presentation),
        "full_screen": bool(window.isFullScreen()),
        "tour_running": bool(tour.running),
        "tour_stop": tour.stop.key if tour.running else None,
        "verdict": "" if causality is None else causality.verdict_plain,
        "verdict_detail": "" if causality is None else QTextDocumentFragment.fromHtml(
            causality.detail.text()).toPlainText().replace("\u00a0", " "),
        "panels_current": bool(window.all_panels_current()),
        "error": state.error,
        "language": state.language,
        "focus": None if focus is None else (focus.objectName() or type(focus).__name__),
        "window": [frame.x(), frame.y(), frame.width(), frame.height()],
        "window_id": int(window.winId()) if window.isVisible() else None,
        "editor": [corner.x(), corner.y(), line.width(), line.height()],
    }


class StateFile(QObject):
    """Rewrites ``path`` with :func:`snapshot` after the window's state changes."""

    def __init__(self, window: QMainWindow, path: Path) -> None:
        super().__init__(window)
        self.window = window
        self.path = Path(path)
        self.seq = 0
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._write_when_drawn)
        state = window.state  # type: ignore[attr-defined]
        for signal in (state.result_changed, state.error_changed, state.inputs_changed,
                       state.baseline_changed, state.language_changed,
                       state.presentation_changed, window.tour.running_changed,  # type: ignore[attr-defined]
                       window.tour.stop_changed):  # type: ignore[attr-defined]
            signal.connect(self.schedule)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self.schedule)
        window.installEventFilter(self)
        self.schedule()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in _GEOMETRY_EVENTS:
            self.schedule()
        return False

    def schedule(self, *_args: object) -> None:
        self._timer.start(SETTLE_MS)

    def _write_when_drawn(self) -> None:
        data = snapshot(self.window)
        if not data["panels_current"]:
            self._timer.start(POLL_MS)  # the panels draw on later passes: write what they show
            return
        self.write(data)

    def write(self, data: dict[str, Any]) -> None:
        self.seq += 1
        data = {"seq": self.seq, **data}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_name(self.path.name + ".partial")
        partial.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        os.replace(partial, self.path)


def attach(window: QMainWindow, path: str | os.PathLike[str]) -> StateFile:
    """Start writing ``window``'s state to ``path`` (the hook's one entry point)."""
    return StateFile(window, Path(path))


def attach_from_env(window: QMainWindow) -> StateFile | None:
    """:func:`attach` when ``DUALVIEW_STATE_FILE`` names a file; else nothing (the default)."""
    path = os.environ.get(ENV)
    return attach(window, path) if path else None
