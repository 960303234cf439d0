"""Which keys belong to a focused widget and which to the window's shortcuts.

Keys without Ctrl never fire a shortcut while a text field, spin box or slider has the focus
(:class:`KeyGuard`), so typing a space or moving the cursor never steps the layer.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QAbstractSlider,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)

#: Keys without modifiers that belong to a focused text field, spin box, combo box or slider.
GUARDED_KEYS = {
    Qt.Key.Key_Space, Qt.Key.Key_Left, Qt.Key.Key_Right, Qt.Key.Key_Up, Qt.Key.Key_Down,
    Qt.Key.Key_Home, Qt.Key.Key_End, Qt.Key.Key_BracketLeft, Qt.Key.Key_BracketRight,
    Qt.Key.Key_M,
}
_TYPING_WIDGETS = (QLineEdit, QTextEdit, QPlainTextEdit, QAbstractSpinBox, QAbstractSlider)

#: Keys a focused drop-down list (not editable) walks its items with.
#: (PageUp / PageDown stay the tour's: a presenter's clicker sends them.)
_LIST_KEYS = {Qt.Key.Key_Up, Qt.Key.Key_Down, Qt.Key.Key_Home, Qt.Key.Key_End}


def is_typing_widget(widget: QWidget | None) -> bool:
    """A widget that needs bare keys (space, arrows, letters) for itself."""
    if widget is None:
        return False
    if isinstance(widget, QComboBox):
        return widget.isEditable()
    return isinstance(widget, _TYPING_WIDGETS)


def wants_key(widget: QWidget | None, key: Qt.Key, typed: bool) -> bool:
    """Whether a bare ``key`` belongs to the focused ``widget`` rather than a shortcut."""
    if is_typing_widget(widget):
        return key in GUARDED_KEYS or typed
    return isinstance(widget, QComboBox) and key in _LIST_KEYS  # (Down walked the steps)


class KeyGuard(QObject):
    """Event filter on the focused widget under ``root``: bare keys stay with the widget that
    types or slides, Esc in ``line`` calls ``leave_line``, and Ctrl+Z in ``line`` goes to the
    window's Undo action (the state's history, the one the Edit menu walks) instead of the
    line edit's private one.

    It watches only the widget that has the focus (:meth:`install` follows the focus), the one
    Qt sends key events and shortcut overrides to. A filter on the whole application would run
    Python for every event the application delivers, every paint of every widget included, and
    on the main thread each such call waits for the interpreter lock while the worker thread
    computes: the editor's repaint after a keystroke then finished long after the worker's
    result (about 2.5 ms per default edit, measured edit by edit with the filter on and off)."""

    def __init__(self, root: QWidget, line: QLineEdit, leave_line: Callable[[], object]) -> None:
        super().__init__(root)
        self.root = root
        self.line = line
        self.leave_line = leave_line
        self._watched: QWidget | None = None
        self._installed = False

    def install(self) -> None:
        """Start watching the focused widget, and each one that takes the focus after it."""
        if not self._installed:
            self._installed = True
            QApplication.instance().focusChanged.connect(self._follow_focus)
        self._follow_focus(None, QApplication.focusWidget())

    def uninstall(self) -> None:
        """Stop watching (the window closes). Idempotent."""
        if self._installed:
            self._installed = False
            app = QApplication.instance()
            if app is not None:
                try:
                    app.focusChanged.disconnect(self._follow_focus)
                except (RuntimeError, TypeError):
                    pass
        self._watch(None)

    def watched(self) -> QWidget | None:
        """The widget whose keys are filtered now (None: the focus is outside the root)."""
        return self._watched

    def _follow_focus(self, _old: QWidget | None, new: QWidget | None) -> None:
        self._watch(new if self._belongs(new) else None)

    def _watch(self, widget: QWidget | None) -> None:
        import shiboken6

        if self._watched is not None and shiboken6.isValid(self._watched):
            self._watched.removeEventFilter(self)
        self._watched = widget
        if widget is not None:
            widget.installEventFilter(self)

    def _belongs(self, widget: QWidget | None) -> bool:
        """``widget`` is under the root, including its floating docks and dialogs."""
        while widget is not None:
            if widget is self.root:
                return True
            widget = widget.parentWidget()
        return False

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # every event of the focused widget passes here: the type test first, as
        # event.type() makes a Python enum on each call
        if not isinstance(event, QKeyEvent):
            return False
        kind = event.type()
        if kind not in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress):
            return False
        focus = QApplication.focusWidget()
        if not self._belongs(focus):
            return False
        line = self.line
        if kind == QEvent.Type.ShortcutOverride:
            if focus is line and (event.matches(QKeySequence.StandardKey.Undo)
                                  or event.matches(QKeySequence.StandardKey.Redo)):
                event.ignore()
                return True  # the line edit never sees it: our Undo/Redo action fires
            mods = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
            bare = mods in (Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.ShiftModifier)
            typed = event.text() != "" and event.text().isprintable()
            if bare and wants_key(focus, Qt.Key(event.key()), typed):
                event.accept()  # the focused widget wants this key, not a shortcut
                return True
            return False
        if focus is line and event.key() == Qt.Key.Key_Escape and watched is line:
            self.leave_line()
            return True
        return False
