"""The main window: token editor on top, every panel a named dock, layout persisted.

Menus and keys for a live class: File (sessions, examples, exports), Edit (undo/redo of the
text), View (docks, presentation mode, text size, theme, palette), Demo (play, steps, heads,
causal mask), Language (English / 简体中文, switched live) and Help (guided tour, shortcuts
sheet). Keys without Ctrl never fire while a text field, spin box or slider has the focus
(:class:`KeyGuard`), so typing a space or moving the cursor never steps the layer.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from functools import partial
from itertools import pairwise
from pathlib import Path

from PySide6.QtCore import (
    QByteArray,
    QCoreApplication,
    QEvent,
    QEventLoop,
    QLockFile,
    QObject,
    QSettings,
    QStandardPaths,
    Qt,
    QTimer,
)
from PySide6.QtGui import (
    QAction,
    QActionGroup,
    QCloseEvent,
    QColor,
    QGuiApplication,
    QKeyEvent,
    QKeySequence,
    QPalette,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QAbstractSlider,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QDockWidget,
    QFileDialog,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMenu,
    QMessageBox,
    QPlainTextEdit,
    QTabBar,
    QTextEdit,
    QWidget,
)

from app import __version__, i18n, presentation, sessions, theme
from app import export as exporting
from app.bridge import EngineBridge
from app.compute import MAX_TEXT_CHARS, Result, convergence_skipped
from app.docks import (
    DEFAULT_COLUMN_WIDTHS,
    DEFAULT_COLUMNS,
    DEFAULT_TOP_SHARE,
    DOCKS,
    LAYOUT_VERSION,
)
from app.engine_text import engine_text, exception_text
from app.os_text import file_error_text, os_error_text, os_reason
from app.palettes import PALETTES
from app.panels.base import Panel
from app.state import THEMES, AppState, WeightsSource
from app.tour import TourController, TourPanel
from app.widgets.elided_label import ElidedLabel
from app.widgets.highlight import HighlightFrame
from app.widgets.shortcuts_sheet import ShortcutsSheet, action_keys
from app.widgets.token_editor import DEFAULT_TEXT, TokenEditor
from engine.checkpoint import LoadedLayer, layer_indices, load_layer
from engine.errors import EngineError

#: Autosave this long after the last change (ms).
AUTOSAVE_DELAY_MS = 1000
#: Text scale steps for Ctrl + / Ctrl −.
FONT_STEP = 1.15

#: Keys without modifiers that belong to a focused text field, spin box, combo box or slider.
GUARDED_KEYS = {
    Qt.Key.Key_Space, Qt.Key.Key_Left, Qt.Key.Key_Right, Qt.Key.Key_Up, Qt.Key.Key_Down,
    Qt.Key.Key_Home, Qt.Key.Key_End, Qt.Key.Key_BracketLeft, Qt.Key.Key_BracketRight,
    Qt.Key.Key_M,
}
_TYPING_WIDGETS = (QLineEdit, QTextEdit, QPlainTextEdit, QAbstractSpinBox, QAbstractSlider)

#: Warn about a missing CJK font once per process.
_cjk_warned = False


def settings_dir() -> Path:
    """Where layout and settings live; ``DUALVIEW_CONFIG_DIR`` overrides (tests use a tmp dir)."""
    override = os.environ.get("DUALVIEW_CONFIG_DIR")
    if override:
        return Path(override)
    location = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppConfigLocation)
    return Path(location or Path.home() / ".config" / "dualview")


def open_settings() -> QSettings:
    return QSettings(str(settings_dir() / "dualview.ini"), QSettings.Format.IniFormat)


def plain_text(menu_text: str) -> str:
    """A menu text without its accelerator: "&Open…" → "Open…", "打开(&O)…" → "打开…"."""
    return re.sub(r"\(&\w\)", "", menu_text).replace("&", "")


def is_typing_widget(widget: QWidget | None) -> bool:
    """A widget that needs bare keys (space, arrows, letters) for itself."""
    if widget is None:
        return False
    if isinstance(widget, QComboBox):
        return widget.isEditable()
    return isinstance(widget, _TYPING_WIDGETS)


#: Keys a focused drop-down list (not editable) walks its items with.
#: (PageUp / PageDown stay the tour's: a presenter's clicker sends them.)
_LIST_KEYS = {Qt.Key.Key_Up, Qt.Key.Key_Down, Qt.Key.Key_Home, Qt.Key.Key_End}


def wants_key(widget: QWidget | None, key: Qt.Key, typed: bool) -> bool:
    """Whether a bare ``key`` belongs to the focused ``widget`` rather than a shortcut."""
    if is_typing_widget(widget):
        return key in GUARDED_KEYS or typed
    return isinstance(widget, QComboBox) and key in _LIST_KEYS  # (Down walked the steps)


class KeyGuard(QObject):
    """Application event filter: bare keys stay with the widget that types or slides, Esc
    leaves the text field, and Ctrl+Z in the text field undoes through the state's history
    (the same history the Edit menu walks) instead of the line edit's private one."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window

    def _belongs(self, widget: QWidget | None) -> bool:
        """``widget`` is in this window, including its floating docks and dialogs."""
        while widget is not None:
            if widget is self.window:
                return True
            widget = widget.parentWidget()
        return False

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # every event of the application passes here (thousands in a language switch): the
        # type test first, as event.type() makes a Python enum on each call
        if not isinstance(event, QKeyEvent):
            return False
        kind = event.type()
        if kind not in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress):
            return False
        focus = QApplication.focusWidget()
        if not self._belongs(focus):
            return False
        line = self.window.editor.line
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
        if (focus is line and event.key() == Qt.Key.Key_Escape
                and watched is line):
            self.window.leave_text_field()
            return True
        return False


class PanelMap(dict[str, Panel]):
    """The docks' panels by dock object name. A dock hidden at start-up (the lens docks) gets
    its panel when it is first shown, or when it is looked up here (``[name]``, ``get``);
    iterating goes over the panels made so far, which are all the ones that can be visible."""

    def __init__(self, build: Callable[[str], Panel]) -> None:
        super().__init__()
        self._build = build
        self._deferred: set[str] = set()

    def defer(self, name: str) -> None:
        self._deferred.add(name)

    def add(self, name: str, panel: Panel) -> None:
        self._deferred.discard(name)
        super().__setitem__(name, panel)

    @property
    def deferred(self) -> frozenset[str]:
        """Docks whose panel is not made yet."""
        return frozenset(self._deferred)

    def __missing__(self, name: str) -> Panel:
        if name not in self._deferred:
            raise KeyError(name)
        return self._build(name)

    def get(self, name: str, default: Panel | None = None) -> Panel | None:  # type: ignore[override]
        return self[name] if name in self or name in self._deferred else default


#: Room the status bar keeps between a message and the first permanent label (its own
#: margins and the label's frame).
_STATUS_MESSAGE_MARGIN_PX = 16


class MainWindow(QMainWindow):
    def __init__(self, *, bridge: EngineBridge | None = None, persist_layout: bool = True,
                 initial_text: str | None = DEFAULT_TEXT, autosave: bool | None = None,
                 language: str | None = None) -> None:
        super().__init__()
        self.persist_layout = persist_layout
        self.autosave_enabled = persist_layout if autosave is None else autosave
        self.setObjectName("mainWindow")
        self.bridge = bridge or EngineBridge(self)
        self.state = AppState(self.bridge, self)
        submit_early = initial_text is not None and not self.bridge.sync
        if submit_early:
            # the worker computes the first input while the panels are built; its result is
            # queued to this thread, so it arrives once the window is complete
            self.state.set_text(initial_text)
        # the app-wide style and palette before the widgets exist: setting them later
        # re-polishes every widget (~40 ms at start-up); new plots take its colours
        theme.apply_theme(self.state.theme)
        self.editor = TokenEditor()
        self.editor.setObjectName("tokenEditor")
        self.editor.setMaximumHeight(150)
        self.setCentralWidget(self.editor)
        self.setDockNestingEnabled(True)
        # the right-hand area (the guided tour) runs the full height, beside the editor too
        self.setCorner(Qt.Corner.TopRightCorner, Qt.DockWidgetArea.RightDockWidgetArea)
        self.setCorner(Qt.Corner.BottomRightCorner, Qt.DockWidgetArea.RightDockWidgetArea)
        self.setDockOptions(QMainWindow.DockOption.AnimatedDocks
                            | QMainWindow.DockOption.AllowNestedDocks
                            | QMainWindow.DockOption.AllowTabbedDocks)
        #: The last message shown to the person (errors of open/save/export, notices).
        self.last_message = ""
        self._message_box: QMessageBox | None = None
        self._shortcuts_sheet: ShortcutsSheet | None = None
        #: a session's (text, query, head), applied once its text's result with its layer is in
        self._pending_query: tuple[str, int, int] | None = None
        self._tour_pending_text: str | None = None
        #: a stop's own sentence, typed once its before_text (pending) has been computed
        self._tour_then_text: str | None = None
        #: a tour stop's sentence to pin as the causality baseline once its result is in
        self._tour_pin_text: str | None = None
        #: the baseline the tour pinned (released when the tour moves on or ends)
        self._tour_pinned: Result | None = None
        self._before_presentation: tuple[bool, float] = (False, 1.0)
        #: the dock layout before presentation mode stacked the columns (restored after it)
        self._layout_before_presentation: QByteArray | None = None
        #: True while restoreState runs (its hiding of the tour panel is not the person's)
        self._restoring_layout = False
        #: the layout leaving presentation mode restores on the next event-loop pass
        self._pending_restore: QByteArray | None = None
        #: the text scale presentation mode started at on this screen (Reset text size)
        self._presentation_scale = presentation.PRESENTATION_SCALE
        self.session_path: Path | None = None

        # crash recovery: decide before this run's autosave can overwrite the last one
        self.recovery_path: Path | None = None
        self._instance_lock: QLockFile | None = None
        if self.autosave_enabled:
            self._start_autosave_and_recovery()

        self.docks: dict[str, QDockWidget] = {}
        self.panels = PanelMap(self._build_panel)
        self._panels_wired = False  # the window's connections to each panel are made
        for spec in DOCKS:
            dock = QDockWidget(self)
            dock.setObjectName(spec.object_name)
            dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetClosable
                             | QDockWidget.DockWidgetFeature.DockWidgetMovable
                             | QDockWidget.DockWidgetFeature.DockWidgetFloatable)
            self.docks[spec.object_name] = dock
            if spec.visible:
                self._build_panel(spec.object_name)
            else:  # built when first shown or looked up (PanelMap)
                self.panels.defer(spec.object_name)
                # the View menu's toggle (at once, so the dock never shows empty), or shown by
                # any other way (tour, a link, a restored layout)
                for signal in (dock.toggleViewAction().toggled, dock.visibilityChanged):
                    signal.connect(lambda on, n=spec.object_name: on and self.panels.get(n))

        # the guided tour: a dock of its own, hidden until started
        self.tour = TourController(parent=self)
        self.tour_panel = TourPanel(self.tour, self.state)
        self.tour_dock = QDockWidget(self)
        self.tour_dock.setObjectName("tourDock")
        self.tour_dock.setWidget(self.tour_panel)
        self.highlight = HighlightFrame(self)

        self._build_menus()
        self._status_tokens = QLabel()
        self._status_time = QLabel()
        self._status_error = ElidedLabel()  # a long error never runs over its neighbours
        self._status_error.setObjectName("statusError")
        self._colour_status_error()
        #: which weights the layer runs on: random (seed) or a file's layer, with its shape
        self._status_weights = QLabel()
        self._status_weights.setObjectName("statusWeights")
        self.statusBar().addWidget(self._status_error, 1)
        self.statusBar().addPermanentWidget(self._status_weights)
        self.statusBar().addPermanentWidget(self._status_tokens)
        self.statusBar().addPermanentWidget(self._status_time)

        self.editor.text_edited.connect(self.state.set_text)
        self.editor.text_full.connect(self._on_text_full)
        self.editor.line.textEdited.connect(self._drop_tour_pending_text)  # typed, not set
        self.editor.presets.activated.connect(self._drop_tour_pending_text)
        self.state.result_changed.connect(self._on_result_changed)
        self.state.error_changed.connect(self._on_error_changed)
        self.state.model_changed.connect(self._update_weights_status)
        self.state.text_restored.connect(self._on_text_restored)
        self.state.history_changed.connect(self._update_history_actions)
        self.state.palette_changed.connect(self._on_palette_changed)
        self.state.theme_changed.connect(self._on_theme_changed)
        self.state.font_scale_changed.connect(self._on_font_scale_changed)
        self.state.presentation_changed.connect(self._on_presentation_changed)
        self.state.language_changed.connect(self._sync_language_actions)
        # new titles, a new text size or the tour beside the columns: tab titles may not fit
        self.state.language_changed.connect(self._schedule_tab_title_fit)
        self.state.font_scale_changed.connect(self._schedule_tab_title_fit)
        self.tour_dock.visibilityChanged.connect(self._schedule_tab_title_fit)
        self.tour.stop_changed.connect(self._on_tour_stop)
        self.tour.running_changed.connect(self._on_tour_running)
        self.tour_dock.visibilityChanged.connect(self._on_tour_dock_visibility)
        for panel in self.panels.values():
            self._wire_panel(panel)
        self._panels_wired = True

        self._autosave_timer = QTimer(self)
        self._autosave_timer.setSingleShot(True)
        self._autosave_timer.setInterval(AUTOSAVE_DELAY_MS)
        self._autosave_timer.timeout.connect(self.autosave_now)
        self._last_autosave = b""
        for signal in (self.state.inputs_changed, self.state.selection_changed,
                       self.state.language_changed, self.state.palette_changed,
                       self.state.theme_changed, self.state.font_scale_changed):
            signal.connect(self._schedule_autosave)

        # installed once the window has been shown and drawn (showEvent): an application event
        # filter is Python called for every event, ~5000 while the window is built and first
        # painted (~25 ms of the launch), and no key can reach a window not yet on screen
        self.key_guard = KeyGuard(self)
        self._key_guard_installed = False

        self.resize(1600, 1000)
        self.apply_default_layout()
        presentation.apply_app_font(self.state.font_scale)
        # a window made while another language is installed starts in that language
        language = language or i18n.translations().language
        if language != self.state.language:
            self.set_language(language)
        self.retranslate()
        if persist_layout:
            self.restore_layout()
        if initial_text is not None:
            self.editor.set_text(initial_text)  # (no second request when submitted early)
            if submit_early and initial_text:
                self._schedule_autosave()  # as the editor's edit would have
        self._update_history_actions()
        self.check_cjk_font()

    # ----- menus -----
    def _action(self, name: str, menu: QMenu | None, slot: Callable[..., object] | None = None,
                keys: tuple[QKeySequence | str | QKeySequence.StandardKey, ...] = (), *,
                checkable: bool = False) -> QAction:
        action = QAction(self)
        action.setObjectName(name)
        if keys:
            action.setShortcuts([k if isinstance(k, QKeySequence) else QKeySequence(k)
                                 for k in keys])
            # floating docks and the shortcuts sheet are windows of their own: keys work there
            action.setShortcutContext(Qt.ShortcutContext.ApplicationShortcut)
        action.setCheckable(checkable)
        if slot is not None:
            (action.toggled if checkable else action.triggered).connect(slot)
        if menu is not None:
            menu.addAction(action)
        else:
            self.addAction(action)
        return action

    def _build_menus(self) -> None:
        bar = self.menuBar()
        # File
        self.file_menu = QMenu(self)
        self.open_action = self._action("openSessionAction", self.file_menu,
                                        self._open_session_interactive,
                                        (QKeySequence.StandardKey.Open,))
        self.examples_menu = QMenu(self)
        self.examples_menu.setObjectName("examplesMenu")
        self.file_menu.addMenu(self.examples_menu)
        self.open_weights_action = self._action("openWeightsAction", self.file_menu,
                                                self._open_weights_interactive)
        self.random_weights_action = self._action("randomWeightsAction", self.file_menu,
                                                  self.use_random_weights)
        self.save_action = self._action("saveSessionAction", self.file_menu,
                                        lambda: self._save_session_interactive(),
                                        (QKeySequence.StandardKey.Save,))
        self.save_as_action = self._action("saveSessionAsAction", self.file_menu,
                                           lambda: self._save_session_interactive(ask=True),
                                           ("Ctrl+Shift+S",))
        self.file_menu.addSeparator()
        self.export_menu = QMenu(self)
        self.export_menu.setObjectName("exportMenu")
        self.file_menu.addMenu(self.export_menu)
        self.export_png_menu = QMenu(self)
        self.export_svg_menu = QMenu(self)
        self.export_menu.addMenu(self.export_png_menu)
        self.export_menu.addMenu(self.export_svg_menu)
        self.export_panel_actions: dict[tuple[str, str], QAction] = {}
        for spec in DOCKS:
            for fmt, menu in (("png", self.export_png_menu), ("svg", self.export_svg_menu)):
                a = self._action(f"export_{fmt}_{spec.object_name}", menu,
                                 lambda _=False, n=spec.object_name, f=fmt:
                                 self._export_panel_interactive(n, f))
                self.export_panel_actions[(spec.object_name, fmt)] = a
        self.export_window_action = self._action("exportWindowAction", self.export_menu,
                                                 lambda: self._export_panel_interactive(
                                                     None, "png"))
        self.export_menu.addSeparator()
        self.export_csv_action = self._action("exportCsvAction", self.export_menu,
                                              lambda: self._export_step_interactive("csv"))
        self.export_npy_action = self._action("exportNpyAction", self.export_menu,
                                              lambda: self._export_step_interactive("npy"))
        self.export_npz_action = self._action("exportNpzAction", self.export_menu,
                                              self._export_all_interactive, ("Ctrl+E",))
        self.file_menu.addSeparator()
        self.quit_action = QAction(self)
        self.quit_action.setObjectName("quitAction")
        self.quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        self.quit_action.triggered.connect(self.close)
        self.file_menu.addAction(self.quit_action)
        bar.addMenu(self.file_menu)

        # Edit
        self.edit_menu = QMenu(self)
        self.undo_action = self._action("undoAction", self.edit_menu, self.state.undo_text,
                                        (QKeySequence.StandardKey.Undo,))
        self.redo_action = self._action("redoAction", self.edit_menu, self.state.redo_text,
                                        ("Ctrl+Shift+Z", "Ctrl+Y"))
        self.edit_menu.addSeparator()
        self.focus_text_action = self._action("focusTextAction", self.edit_menu,
                                              self.focus_text_field, ("Ctrl+L",))
        bar.addMenu(self.edit_menu)

        # View
        self.view_menu = QMenu(self)
        self.view_menu.setObjectName("viewMenu")
        for dock in self.docks.values():
            self.view_menu.addAction(dock.toggleViewAction())
        self.view_menu.addAction(self.tour_dock.toggleViewAction())
        self.view_menu.addSeparator()
        self.reset_layout_action = QAction(self)
        self.reset_layout_action.setObjectName("resetLayoutAction")
        self.reset_layout_action.triggered.connect(self.reset_layout)
        self.view_menu.addAction(self.reset_layout_action)
        self.view_menu.addSeparator()
        self.presentation_action = self._action("presentationAction", self.view_menu,
                                                self.set_presentation, ("F11",),
                                                checkable=True)
        self.zoom_in_action = self._action("zoomInAction", self.view_menu,
                                           lambda: self.scale_text(FONT_STEP),
                                           ("Ctrl+=", "Ctrl++"))
        self.zoom_out_action = self._action("zoomOutAction", self.view_menu,
                                            lambda: self.scale_text(1 / FONT_STEP), ("Ctrl+-",))
        self.zoom_reset_action = self._action("zoomResetAction", self.view_menu,
                                              self.reset_text_size, ("Ctrl+0",))
        self.view_menu.addSeparator()
        self.theme_menu = QMenu(self)
        self.view_menu.addMenu(self.theme_menu)
        self.theme_group = QActionGroup(self)
        self.theme_actions: dict[str, QAction] = {}
        for key in THEMES:
            a = self._action(f"theme_{key}", self.theme_menu,
                             lambda _=False, k=key: self.state.set_theme(k), checkable=False)
            a.setCheckable(True)
            a.setChecked(key == self.state.theme)
            self.theme_group.addAction(a)
            self.theme_actions[key] = a
        self.palette_menu = QMenu(self)
        self.view_menu.addMenu(self.palette_menu)
        self.palette_group = QActionGroup(self)
        self.palette_actions: dict[str, QAction] = {}
        for key in PALETTES:
            a = self._action(f"palette_{key}", self.palette_menu,
                             lambda _=False, k=key: self.state.set_palette(k))
            a.setCheckable(True)
            a.setChecked(key == self.state.palette)
            self.palette_group.addAction(a)
            self.palette_actions[key] = a
        bar.addMenu(self.view_menu)

        # Demo: the keys a teacher uses in front of a class
        self.demo_menu = QMenu(self)
        self.play_action = self._action("playAction", self.demo_menu, self.toggle_play,
                                        ("Space",))
        self.demo_menu.addSeparator()
        self.prev_step_action = self._action("prevStepAction", self.demo_menu,
                                             lambda: self.state.step_by(-1), ("Left", "Up"))
        self.next_step_action = self._action("nextStepAction", self.demo_menu,
                                             lambda: self.state.step_by(1), ("Right", "Down"))
        self.first_step_action = self._action("firstStepAction", self.demo_menu,
                                              lambda: self.state.step_by(-100), ("Home",))
        self.last_step_action = self._action("lastStepAction", self.demo_menu,
                                             lambda: self.state.step_by(100), ("End",))
        self.prev_head_action = self._action("prevHeadAction", self.demo_menu,
                                             lambda: self.state.set_head(self.state.head - 1),
                                             ("[",))
        self.next_head_action = self._action("nextHeadAction", self.demo_menu,
                                             lambda: self.state.set_head(self.state.head + 1),
                                             ("]",))
        self.demo_menu.addSeparator()
        self.causal_action = QAction(self)
        self.causal_action.setObjectName("causalAction")
        self.causal_action.setCheckable(True)
        self.causal_action.setChecked(True)
        self.causal_action.setShortcut(QKeySequence("M"))
        self.causal_action.setShortcutContext(Qt.ShortcutContext.ApplicationShortcut)
        self.causal_action.toggled.connect(self.state.set_causal)
        self.view_menu.addAction(self.causal_action)
        self.demo_menu.addAction(self.causal_action)
        bar.addMenu(self.demo_menu)

        # Language: its title is in both languages, so it can be found in either
        self.language_menu = QMenu("Language · 语言", self)
        self.language_menu.setObjectName("languageMenu")
        self.language_group = QActionGroup(self)
        self.language_actions: dict[str, QAction] = {}
        for code, name in i18n.LANGUAGES.items():
            a = QAction(name, self)
            a.setObjectName(f"language_{code}")
            a.setCheckable(True)
            a.setChecked(code == self.state.language)
            a.triggered.connect(lambda _=False, c=code: self.set_language(c))
            self.language_group.addAction(a)
            self.language_menu.addAction(a)
            self.language_actions[code] = a
        bar.addMenu(self.language_menu)

        # Help
        self.help_menu = QMenu(self)
        self.tour_action = self._action("tourAction", self.help_menu,
                                        lambda: self.start_tour(), ("Ctrl+T",))
        self.tour_next_action = self._action("tourNextAction", self.help_menu, self.tour.next,
                                             ("PgDown",))
        self.tour_back_action = self._action("tourBackAction", self.help_menu, self.tour.back,
                                             ("PgUp",))
        self.tour_next_action.setEnabled(False)
        self.tour_back_action.setEnabled(False)
        self.help_menu.addSeparator()
        self.shortcuts_action = self._action("shortcutsAction", self.help_menu,
                                             self.show_shortcuts, ("F1",))
        self.about_action = self._action("aboutAction", self.help_menu, self.show_about)
        bar.addMenu(self.help_menu)
        self._build_examples_menu()

    def _build_examples_menu(self) -> None:
        self.examples_menu.clear()
        for path in sessions.example_sessions():
            a = QAction(self)
            a.setData(str(path))
            a.triggered.connect(lambda _=False, p=path: self.open_session(p))
            self.examples_menu.addAction(a)
        self._retranslate_examples()

    def _retranslate_examples(self) -> None:
        for a in self.examples_menu.actions():
            a.setText(sessions.example_title(Path(a.data()), self.state.language))

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("Dual View — one Qwen3 layer, two views") + f"  {__version__}")
        self.file_menu.setTitle(self.tr("&File"))
        self.open_action.setText(self.tr("&Open session…"))
        self.examples_menu.setTitle(self.tr("Open &example"))
        self.open_weights_action.setText(self.tr("Open layer &weights…"))
        self.random_weights_action.setText(self.tr("Back to &random weights"))
        self.save_action.setText(self.tr("&Save session"))
        self.save_as_action.setText(self.tr("Save session &as…"))
        self.export_menu.setTitle(self.tr("&Export"))
        self.export_png_menu.setTitle(self.tr("Panel as &PNG image"))
        self.export_svg_menu.setTitle(self.tr("Panel as &SVG (vector)"))
        for (name, _fmt), a in self.export_panel_actions.items():
            a.setText(QCoreApplication.translate("Docks", self._spec_title(name)) + "…")
        self.export_window_action.setText(self.tr("Whole &window as PNG…"))
        self.export_csv_action.setText(self.tr("Step matrix on screen as &CSV…"))
        self.export_npy_action.setText(self.tr("Step matrix on screen as .&npy…"))
        self.export_npz_action.setText(self.tr("&All steps of this input as .npz…"))
        self.quit_action.setText(self.tr("&Quit"))
        self.edit_menu.setTitle(self.tr("&Edit"))
        self.undo_action.setText(self.tr("&Undo text edit"))
        self.redo_action.setText(self.tr("&Redo text edit"))
        self.focus_text_action.setText(self.tr("Go to the &text field"))
        self.view_menu.setTitle(self.tr("&View"))
        self.reset_layout_action.setText(self.tr("&Reset layout"))
        self.presentation_action.setText(self.tr("&Presentation mode"))
        self.zoom_in_action.setText(self.tr("&Larger text"))
        self.zoom_out_action.setText(self.tr("S&maller text"))
        self.zoom_reset_action.setText(self.tr("&Normal text size"))
        self.theme_menu.setTitle(self.tr("&Theme"))
        self.theme_actions["light"].setText(self.tr("&Light"))
        self.theme_actions["dark"].setText(self.tr("&Dark"))
        self.palette_menu.setTitle(self.tr("Colour &palette"))
        self.palette_actions["classic"].setText(self.tr("&Classic (blue–red)"))
        self.palette_actions["colorblind"].setText(self.tr("Colour-&blind safe"))
        self.demo_menu.setTitle(self.tr("&Demo"))
        self.play_action.setText(self.tr("&Play / pause depth time"))
        self.prev_step_action.setText(self.tr("P&revious step"))
        self.next_step_action.setText(self.tr("&Next step"))
        self.first_step_action.setText(self.tr("&First step"))
        self.last_step_action.setText(self.tr("&Last step"))
        self.prev_head_action.setText(self.tr("Previous &head"))
        self.next_head_action.setText(self.tr("Next h&ead"))
        self.causal_action.setText(self.tr("&Causal mask"))
        self.help_menu.setTitle(self.tr("&Help"))
        self.tour_action.setText(self.tr("&Guided tour"))
        self.tour_next_action.setText(self.tr("Tour: next stop"))
        self.tour_back_action.setText(self.tr("Tour: previous stop"))
        self.shortcuts_action.setText(self.tr("&Keyboard shortcuts"))
        self.about_action.setText(self.tr("&About Dual View"))
        self.tour_dock.setWindowTitle(self.tr("Guided tour"))
        for spec in DOCKS:
            self.docks[spec.object_name].setWindowTitle(
                QCoreApplication.translate("Docks", spec.title))
        self.editor.retranslate()
        self._retranslate_examples()
        self._on_result_changed(self.state.result)
        self._on_error_changed(self.state.error)
        self._update_weights_status()
        if self._shortcuts_sheet is not None:
            self._shortcuts_sheet.refresh()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange and hasattr(self, "help_menu"):
            self.retranslate()

    @staticmethod
    def _spec_title(object_name: str) -> str:
        return next(spec.title for spec in DOCKS if spec.object_name == object_name)

    # ----- layout -----
    def apply_default_layout(self) -> None:
        """Three columns of two docks under the editor; every dock visible."""
        columns = [[self.docks[name] for name in column] for column in DEFAULT_COLUMNS]
        tops = [column[0] for column in columns]
        for dock in self.docks.values():
            dock.setFloating(False)
            self.removeDockWidget(dock)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, tops[0])
        for left, right in pairwise(tops):
            self.splitDockWidget(left, right, Qt.Orientation.Horizontal)
        for column in columns:
            for upper, lower in pairwise(column):
                self.splitDockWidget(upper, lower, Qt.Orientation.Vertical)
        for spec in DOCKS:
            if spec.tab_with is not None:
                self.tabifyDockWidget(self.docks[spec.tab_with], self.docks[spec.object_name])
        for spec in DOCKS:
            self.docks[spec.object_name].setVisible(spec.visible)
        for column in columns:
            column[0].raise_()
        width = max(self.width(), 800)
        total = sum(DEFAULT_COLUMN_WIDTHS)
        self.resizeDocks(tops, [width * w // total for w in DEFAULT_COLUMN_WIDTHS],
                         Qt.Orientation.Horizontal)
        # QMainWindow hands spare height to the central widget; the editor is fixed-height,
        # so give the dock area everything below it instead of an empty band
        spare = max(self.height() - self.editor.height() - 80, 300)
        self.resizeDocks([tops[0]], [spare], Qt.Orientation.Vertical)
        for column, share in zip(columns, DEFAULT_TOP_SHARE, strict=True):
            if len(column) > 1:
                self.resizeDocks(column[:2], [int(spare * share), int(spare * (1 - share))],
                                 Qt.Orientation.Vertical)
        self.tour_dock.setFloating(False)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.tour_dock)
        self.tour_dock.setVisible(self.tour.running)

    def reset_layout(self) -> None:
        self.apply_default_layout()

    def save_layout(self) -> None:
        settings = open_settings()
        settings.setValue("window/geometry", self.saveGeometry())
        # closed in presentation mode on a small screen: keep the layout it will leave to
        state = (self._layout_before_presentation or self._pending_restore
                 or self.saveState(LAYOUT_VERSION))
        settings.setValue("window/state", state)
        settings.setValue("window/version", LAYOUT_VERSION)
        settings.sync()

    def restore_layout(self) -> bool:
        """Restore the saved layout; an old version or an off-screen window is ignored."""
        settings = open_settings()
        if settings.value("window/version", type=int) != LAYOUT_VERSION:
            return False
        # a hand-edited or foreign ini may hold text or a rectangle there: only bytes restore
        geometry = settings.value("window/geometry")
        state = settings.value("window/state")
        if not isinstance(geometry, QByteArray | bytes):
            geometry = None
        if not isinstance(state, QByteArray | bytes):
            state = None
        if geometry is not None:
            self.restoreGeometry(geometry)
            if not any(s.availableGeometry().intersects(self.frameGeometry())
                       for s in QGuiApplication.screens()):
                self.resize(1600, 1000)  # saved on a screen that is gone
                self.move(0, 0)
        ok = bool(state is not None and self.restoreState(state, LAYOUT_VERSION))
        self.tour_dock.setVisible(self.tour.running)  # a tour never resumes by itself
        return ok

    # ----- status -----
    def _on_result_changed(self, result: object) -> None:
        r = self.state.result
        if r is None:
            self._status_tokens.setText(self.tr("no tokens"))
            self._status_time.setText("")
        else:
            self._status_tokens.setText(self.tr("%n token(s)", "", len(r.tokens)))
            self._status_time.setText(self.tr("computed in %1 ms").replace(
                "%1", f"{r.compute_ms:.1f}"))
        if r is not None:
            self._apply_pending_query(r)
            self._apply_tour_pending_text()
            self._pin_tour_baseline()
            # the panels redrew in this event; a zero timer runs once Qt has painted that
            # (posted paint requests go first), and one more after the second pass some plots
            # ask for while painting: then the slow sweep may take the interpreter
            QTimer.singleShot(0, self, partial(QTimer.singleShot, 0, self,
                                               partial(self.bridge.result_shown, r.request_id)))

    def _on_text_full(self) -> None:
        self.notify(self.tr("The text field holds at most %1 characters; anything past that was "
                            "left out.").replace("%1", f"{MAX_TEXT_CHARS:,}"), dialog=True)

    def _on_error_changed(self, message: str) -> None:
        self._status_error.setText(message and self.tr("Not computed: %1").replace(
            "%1", self.engine_message(message, *self.state.error_kind)))
        if self.state.result is None:
            # nothing on screen: "no tokens" beside a refused text of 3000 (the red message
            # says how many) was wrong
            self._status_tokens.setText("" if message else self.tr("no tokens"))
        if message:  # no result is coming for this text: a tour sentence goes in now
            self._apply_tour_pending_text(now=True)

    def _update_weights_status(self) -> None:
        source, config = self.state.weights_source, self.state.config
        self.random_weights_action.setEnabled(source is not None)
        if source is None:
            self._status_weights.setText(self.tr("Random weights (seed %1)").replace(
                "%1", str(self.state.seed)))
            self._status_weights.setToolTip(self.tr(
                "File ▸ Open layer weights… runs a real model's layer instead"))
            return
        self._status_weights.setText(
            self.tr("%1, layer %2 — hidden %3, %4 heads (%5 kv) × %6, MLP %7")
            .replace("%1", Path(source.path).name).replace("%2", str(source.layer))
            .replace("%3", str(config.hidden_size))
            .replace("%4", str(config.num_attention_heads))
            .replace("%5", str(config.num_key_value_heads))
            .replace("%6", str(config.head_dim))
            .replace("%7", str(config.intermediate_size)))
        tip = self.tr("Weights read from %1").replace("%1", source.path)
        if source.assumed:
            tip += "\n" + self.tr("Not in a config.json beside the file, so Qwen3's default "
                                  "is used: %1").replace("%1", ", ".join(
                                      f"{name} = {getattr(config, name):g}"
                                      for name in source.assumed))
        self._status_weights.setToolTip(tip)

    def engine_message(self, message: str, code: str = "",
                       params: dict[str, object] | None = None) -> str:
        """An engine error (English ``message`` of kind ``code``) in the interface language."""
        return engine_text(message, code, params)

    def _fit_status(self, text: str) -> str:
        """``text`` cut with "…" to the room left of the status bar's permanent labels: Qt
        clips a longer message mid-word at their edge (a file's path made most of them long).
        The whole text is in the dialog and in :attr:`last_message`."""
        bar = self.statusBar()
        if not bar.isVisible():  # not laid out yet (a message while the window is made)
            return text
        labels = (self._status_weights, self._status_tokens, self._status_time)
        edge = min((w.x() for w in labels if w.isVisible() and w.width() > 0),
                   default=bar.width())
        return bar.fontMetrics().elidedText(text, Qt.TextElideMode.ElideRight,
                                            max(edge - _STATUS_MESSAGE_MARGIN_PX, 40))

    def notify(self, text: str, *, title: str = "", error: bool = False,
               dialog: bool = True) -> QMessageBox | None:
        """Tell the person something: status bar always, plus a non-modal box if ``dialog``
        (never blocks: tests and a running class go on)."""
        self.last_message = text
        self.statusBar().showMessage(self._fit_status(text), 8000)
        if not dialog:
            return None
        if self._message_box is not None:
            self._message_box.close()
        icon = QMessageBox.Icon.Warning if error else QMessageBox.Icon.Information
        box = QMessageBox(icon, title or self.tr("Dual View"), text,
                          QMessageBox.StandardButton.Ok, self)
        box.setObjectName("notifyBox")
        box.setWindowModality(Qt.WindowModality.NonModal)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.destroyed.connect(lambda *_: setattr(self, "_message_box", None))
        box.show()
        self._message_box = box
        return box

    def check_cjk_font(self) -> bool:
        """Say once (per run) when no font can draw Chinese, instead of silently showing boxes.
        A status-bar message: it never blocks the window or a test."""
        global _cjk_warned
        if i18n.cjk_font_available():
            return True
        if not _cjk_warned:
            _cjk_warned = True
            self.notify(self.tr("No Chinese font found: Chinese text will show as empty boxes. "
                                "Install a CJK font (e.g. fonts-wqy-microhei or Noto Sans CJK) "
                                "and restart."), error=True, dialog=False)
        return False

    # ----- language -----
    def set_language(self, language: str) -> bool:
        """Switch the interface and the explanations at run time (no restart)."""
        ok = i18n.switch_language(self.state, language)
        if not ok:
            self.notify(f"Could not load the {i18n.LANGUAGES[language]} translation.",
                        error=True, dialog=False)
        self._sync_language_actions(self.state.language)
        if self.persist_layout:
            settings = open_settings()
            settings.setValue("view/language", self.state.language)
            settings.sync()
        if language == "zh":
            self.check_cjk_font()
        return ok

    def _sync_language_actions(self, language: str) -> None:
        for code, a in self.language_actions.items():
            a.setChecked(code == language)
        self._retranslate_examples()

    # ----- view options -----
    def set_presentation(self, on: bool) -> None:
        self.state.set_presentation(on)

    def _on_presentation_changed(self, on: bool) -> None:
        scale_before = self.state.font_scale
        self.presentation_action.blockSignals(True)
        self.presentation_action.setChecked(on)
        self.presentation_action.blockSignals(False)
        if on:
            self._before_presentation = (self.isMaximized(), self.state.font_scale)
            screen = self.screen().availableGeometry()
            compact = presentation.compact_screen(screen.width(), screen.height())
            # F11 again before the last restore ran: that restore's layout is the one before
            pending, self._pending_restore = self._pending_restore, None
            before = pending if pending is not None else self.saveState(LAYOUT_VERSION)
            self._layout_before_presentation = before if compact else None
            if pending is not None and not compact:
                self._restore_layout_now(pending)
            self._presentation_scale = (presentation.COMPACT_PRESENTATION_SCALE if compact
                                        else presentation.PRESENTATION_SCALE)
            self.showFullScreen()
            self.state.set_font_scale(max(self.state.font_scale, self._presentation_scale))
            if compact:  # six docks at large text do not fit: one per column, the rest tabs
                # once the larger font has reached the dock layout: tabified now, the tab bars
                # were laid out for the old font and a stale one stayed drawn over the panels
                QTimer.singleShot(0, self, self._stack_columns_if_presenting)
            else:  # larger text makes some panels claim more height: share each column evenly
                QTimer.singleShot(0, self, self.even_out_columns)
        else:
            was_maximized, scale = self._before_presentation
            self.showMaximized() if was_maximized else self.showNormal()
            self.state.set_font_scale(scale)
            saved, self._layout_before_presentation = self._layout_before_presentation, None
            if saved is not None:  # once the window has its normal size again
                self._pending_restore = saved
                QTimer.singleShot(0, self, self._restore_after_presentation)
        if self.state.font_scale == scale_before:  # else _on_font_scale_changed restyled them
            self.restyle_plots()  # (the line factor follows the mode)

    def stack_columns(self) -> None:
        """Each default column shows its upper dock at full height, with the lower one as a
        tab behind it (docks the person closed or floated are left alone)."""
        for names in DEFAULT_COLUMNS:
            docks = [self.docks[n] for n in names if self.docks[n].isVisible()
                     and not self.docks[n].isFloating()]
            for dock in docks[1:]:
                self.tabifyDockWidget(docks[0], dock)
            if docks:
                docks[0].raise_()

    def _stack_columns_if_presenting(self) -> None:
        """The deferred :meth:`stack_columns` (skipped if presentation mode ended meanwhile)."""
        if self.state.presentation:
            self.stack_columns()
            self._schedule_tab_title_fit()

    def _schedule_tab_title_fit(self, *_args: object) -> None:
        # deferred: the tab bars take the new titles, font or neighbour only on the next pass
        if self.state.presentation:
            QTimer.singleShot(0, self, self._fit_presentation)

    def _fit_presentation(self) -> None:
        self.fit_tour_to_screen()
        self.fit_tab_titles()

    def fit_tour_to_screen(self) -> None:
        """In presentation mode, move a tour docked beside the columns below them when the
        columns and the tour together are wider than the screen (a 1024 × 768 projector): the
        window would grow past the screen's edge, and with it the tour's Next button. Leaving
        presentation mode restores the layout from before, tour included."""
        if (not self.state.presentation or self._layout_before_presentation is None
                or not self._tour_beside_columns()):
            return
        screen = self.screen()
        if screen is None or self.minimumSizeHint().width() <= screen.availableGeometry().width():
            return
        # the columns are the bottom area side by side: the tour goes under all of them
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.tour_dock,
                           Qt.Orientation.Vertical)
        self.resizeDocks([self.tour_dock], [self.tour_dock.minimumSizeHint().height()],
                         Qt.Orientation.Vertical)
        # it grew past the screen while the tour was beside the columns: back to the screen
        # once the dock layout has taken the move (its minimum width is stale until then)
        QTimer.singleShot(0, self, self._back_onto_screen)

    def _back_onto_screen(self) -> None:
        screen = self.screen()
        if self.state.presentation and screen is not None \
                and self.width() > screen.geometry().width():
            self.setGeometry(screen.geometry())

    def _tour_beside_columns(self) -> bool:
        return (self.tour_dock.isVisible() and not self.tour_dock.isFloating()
                and self.dockWidgetArea(self.tour_dock) == Qt.DockWidgetArea.RightDockWidgetArea)

    def fit_tab_titles(self) -> None:
        """In presentation mode, widen each column whose tab bar would elide its titles, so a
        class can read which tab is which ("S…" beside "Lay…" on a 1024 × 768 projector or
        next to the tour). The width comes from the columns and the tour with room to spare;
        a column already wide enough is left as it is."""
        if not self.state.presentation:
            return
        bars = [bar for bar in self.findChildren(QTabBar,
                                                  options=Qt.FindChildOption.FindDirectChildrenOnly)
                if bar.isVisible() and bar.count() > 1]
        tops: list[QDockWidget] = []
        needs: list[int] = []
        for names in DEFAULT_COLUMNS:
            docks = [self.docks[n] for n in names if not self.docks[n].isFloating()
                     and not self.docks[n].visibleRegion().isEmpty()]
            if not docks:
                continue
            top = docks[0]
            bar = next((b for b in bars if top.windowTitle() in
                        {b.tabText(i) for i in range(b.count())}), None)
            tops.append(top)
            needs.append(max(bar.sizeHint().width() if bar is not None else 0,
                             top.minimumSizeHint().width()))
        widths = [top.width() for top in tops]
        short = sum(max(need - width, 0) for need, width in zip(needs, widths, strict=True))
        if short <= 0:
            return
        spare = [max(width - need, 0) for need, width in zip(needs, widths, strict=True)]
        touring = self._tour_beside_columns()  # (below them it has no width to give)
        tour_spare = (max(self.tour_dock.width() - self.tour_dock.minimumSizeHint().width(), 0)
                      if touring else 0)
        # the tour gives up its room first: the columns hold the panels being shown
        from_tour = min(short, tour_spare)
        if from_tour:
            self.resizeDocks([self.tour_dock], [self.tour_dock.width() - from_tour],
                             Qt.Orientation.Horizontal)
        rest = short - from_tour
        total_spare = sum(spare)
        targets = []
        for need, width, room in zip(needs, widths, spare, strict=True):
            if width < need:
                targets.append(need)
            else:  # columns with room to spare give it in proportion
                give = rest * room // total_spare if total_spare else 0
                targets.append(width - min(give, room))
        self.resizeDocks(tops, targets, Qt.Orientation.Horizontal)

    def _restore_after_presentation(self) -> None:
        """The dock layout from before presentation mode stacked the columns (unless
        presentation mode came back on meanwhile: it took the layout over)."""
        saved, self._pending_restore = self._pending_restore, None
        if saved is not None:
            self._restore_layout_now(saved)

    def _restore_layout_now(self, saved: QByteArray) -> None:
        """restoreState hides and shows docks: a running tour keeps its panel (hiding it
        counts as closing it, which ends the tour)."""
        touring = self.tour.running
        self._restoring_layout = True
        try:
            self.restoreState(saved, LAYOUT_VERSION)
        finally:
            self._restoring_layout = False
        self.tour_dock.setVisible(touring)

    def even_out_columns(self) -> None:
        """Give the docks of each default column equal heights (where they are still there)."""
        for names in DEFAULT_COLUMNS:
            docks = [self.docks[n] for n in names if self.docks[n].isVisible()
                     and not self.docks[n].isFloating()]
            if len(docks) > 1:
                self.resizeDocks(docks, [1000] * len(docks), Qt.Orientation.Vertical)

    def scale_text(self, factor: float) -> None:
        self.state.set_font_scale(self.state.font_scale * factor)

    def reset_text_size(self) -> None:
        self.state.set_font_scale(self._presentation_scale if self.state.presentation else 1.0)

    @property
    def line_factor(self) -> float:
        return presentation.PRESENTATION_LINE_FACTOR if self.state.presentation else 1.0

    def _on_font_scale_changed(self, scale: float) -> None:
        presentation.apply_app_font(scale)
        self.restyle_plots()

    def restyle_plots(self, root: QWidget | None = None) -> None:
        presentation.style_plots(root or self, self.state.font_scale, self.line_factor)

    def _on_panel_drawn(self) -> None:
        # panels may make new plot items when they redraw: size and colour them like the rest
        panel = self.sender()
        if not isinstance(panel, QWidget):
            return
        if self.state.font_scale != 1.0 or self.state.presentation:
            self.restyle_plots(panel)
        if self.state.theme == "dark":
            theme.adapt_text_colours(panel, "dark")

    def _colour_status_error(self) -> None:
        palette = self._status_error.palette()
        palette.setColor(QPalette.ColorRole.WindowText,
                         QColor(theme.ERROR_COLOURS[self.state.theme]))
        self._status_error.setPalette(palette)

    def _on_theme_changed(self, key: str) -> None:
        self.theme_actions[key].setChecked(True)
        theme.apply_theme(key, self)
        self._colour_status_error()
        self.restyle_plots()
        for panel in self.panels.values():
            panel.retranslate()  # strings made there may carry the theme's text colours
            panel.request_redraw()

    def _on_palette_changed(self, key: str) -> None:
        self.palette_actions[key].setChecked(True)
        for panel in self.panels.values():
            panel.request_redraw()

    # ----- demo keys -----
    def toggle_play(self) -> None:
        """Space: play or pause the depth-time animation (the panel is brought forward)."""
        panel = self.panels.get("depthDock")
        dock = self.docks.get("depthDock")
        if panel is not None and dock is not None:
            if not dock.isVisible():
                dock.show()
            dock.raise_()
        if panel is not None and hasattr(panel, "toggle_play"):
            panel.toggle_play()
        elif panel is not None and hasattr(panel, "play") and hasattr(panel, "playing"):
            panel.play(not panel.playing)
        else:
            self.state.request_play_toggle()

    def focus_text_field(self) -> None:
        self.editor.line.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.editor.line.selectAll()

    def leave_text_field(self) -> None:
        """Esc in the text field: hand the bare keys (Space, arrows, M) back to the window."""
        tree = getattr(self.panels.get("stepListDock"), "tree", None)
        if tree is not None and tree.isVisible():
            tree.setFocus(Qt.FocusReason.ShortcutFocusReason)
        else:
            self.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape and self.state.presentation:
            self.set_presentation(False)
            return
        super().keyPressEvent(event)

    def _on_text_restored(self, text: str) -> None:
        if self.editor.text() != text:
            self.editor.set_text(text)  # the state already has it: set_text is a no-op there

    def _update_history_actions(self) -> None:
        self.undo_action.setEnabled(self.state.can_undo)
        self.redo_action.setEnabled(self.state.can_redo)

    def shortcut_rows(self) -> list[tuple[str, str]]:
        """(keys, what) for the shortcuts sheet, from the actions themselves."""
        actions = [self.play_action, self.prev_step_action, self.next_step_action,
                   self.first_step_action, self.last_step_action, self.prev_head_action,
                   self.next_head_action, self.causal_action, self.undo_action,
                   self.redo_action, self.focus_text_action, self.presentation_action,
                   self.zoom_in_action, self.zoom_out_action, self.zoom_reset_action,
                   self.tour_action, self.tour_next_action, self.tour_back_action,
                   self.open_action, self.save_action, self.save_as_action,
                   self.export_npz_action, self.shortcuts_action, self.quit_action]
        rows = [(action_keys(a), plain_text(a.text())) for a in actions]
        rows.insert(11, ("Esc", self.tr("Leave the text field (then Space and arrows work); "
                                        "leave presentation mode")))
        rows.append((self.tr("Click a heatmap cell"),
                     self.tr("Copy its exact value to the clipboard")))
        return rows

    def show_shortcuts(self) -> ShortcutsSheet:
        if self._shortcuts_sheet is None:
            self._shortcuts_sheet = ShortcutsSheet(self.shortcut_rows, self)
        self._shortcuts_sheet.refresh()
        self._shortcuts_sheet.show()
        self._shortcuts_sheet.raise_()
        return self._shortcuts_sheet

    def show_about(self) -> None:
        self.notify(self.tr("Dual View %1: one real Qwen3 decoder layer, computed live in "
                            "float64 and shown two ways — 22 matrix steps and a continuous "
                            "depth-time view.").replace("%1", __version__))

    # ----- panels -----
    def _build_panel(self, name: str) -> Panel:
        """Make the panel of dock ``name`` and put it in its dock (once)."""
        if name in self.panels:
            return self.panels[name]
        spec = next(spec for spec in DOCKS if spec.object_name == name)
        panel = spec.create(self.state)
        self.panels.add(name, panel)
        self.docks[name].setWidget(panel)
        if self._panels_wired:  # a dock opened later: catch up on the view settings too
            self._wire_panel(panel)
            if self.state.theme != "light":
                theme.repaint_plots(panel, self.state.theme)
            if self.state.font_scale != 1.0 or self.state.presentation:
                self.restyle_plots(panel)
        return panel

    def _wire_panel(self, panel: Panel) -> None:
        """The window's connections to one panel: restyling after a redraw, value copy."""
        from app.widgets.heatmap import HeatmapView

        panel.drawn.connect(self._on_panel_drawn)
        for view in panel.findChildren(HeatmapView):
            view.clicked.connect(lambda r, c, v, p=panel, w=view: self.copy_value(p, w, r, c, v))

    # ----- copy a value with a click -----
    def copy_value(self, panel: QWidget, view: QWidget, row: int, col: int,
                   shown: float) -> str:
        """Copy the clicked cell: the exact float64 when the panel keeps it (``source``)."""
        source = getattr(panel, "source", None)
        value = shown
        if (getattr(panel, "view", None) is view and source is not None
                and row < source.shape[0] and col < source.shape[1]):
            value = float(source[row, col])
        text = repr(float(value))
        QGuiApplication.clipboard().setText(text)
        self.statusBar().showMessage(self.tr("Copied %1 to the clipboard").replace("%1", text),
                                     5000)
        self.last_message = text
        return text

    # ----- sessions -----
    def current_session(self) -> sessions.Session:
        return sessions.session_from_state(self.state)

    def save_session(self, path: str | os.PathLike[str]) -> bool:
        try:
            sessions.write_session(path, self.current_session())
        except OSError as exc:
            self.notify(self.tr("Could not save the session: %1").replace(
                "%1", os_error_text(exc)), error=True)
            return False
        self.session_path = Path(path)
        self.statusBar().showMessage(self.tr("Saved %1").replace("%1", str(path)), 5000)
        return True

    def open_session(self, path: str | os.PathLike[str]) -> bool:
        """Open a session; a newer, corrupt or foreign file changes nothing and says why."""
        try:
            session = sessions.read_session(path)
        except sessions.SessionError as exc:
            self.notify(self.tr("Cannot open %1: %2").replace("%1", Path(path).name)
                        .replace("%2", str(exc)), title=self.tr("Open session"), error=True)
            return False
        self.apply_session(session)
        # an example opens untitled, like a recovered autosave: Save asks for a name instead
        # of writing over the shipped example (or failing in a read-only install)
        self.session_path = None if sessions.is_example(path) else Path(path)
        return True

    def apply_session(self, session: sessions.Session) -> None:
        state = self.state
        if session.language is not None and session.language != state.language:
            self.set_language(session.language)
        if session.palette is not None:
            state.set_palette(session.palette)
        if session.theme is not None:
            state.set_theme(session.theme)
        if session.font_scale is not None and not state.presentation:
            state.set_font_scale(session.font_scale)
        self._apply_session_weights(session)
        self.causal_action.setChecked(session.causal)
        state.set_step(session.step)
        state.set_depth_t(session.depth_t)
        # the head too waits for the result: a layer with more heads than the one on screen
        # has heads that result does not (set_head clamps to the result on screen)
        self._pending_query = (session.text, session.query, session.head)
        self.editor.set_text(session.text)
        if state.result is not None:
            self._apply_pending_query(state.result)
        else:  # no result on screen for the head to be out of (and maybe none coming: no text)
            state.set_head(session.head)

    def _apply_session_weights(self, session: sessions.Session) -> None:
        """The session's layer: its random weights, or its file's layer read again. A file
        gone, unreadable or changed since the session was saved is said, and the session runs
        on random weights of its layer's shape instead."""
        state = self.state
        if session.weights_path is None:
            if session.config != state.config or session.seed != state.seed \
                    or state.weights_source is not None:
                state.set_model(session.config, session.seed)
            return
        source = state.weights_source
        if source is not None and state.config == session.config \
                and (source.path, source.layer, source.fingerprint) == (
                    session.weights_path, session.weights_layer, session.weights_sha256):
            return  # that layer is on screen already: not read again
        try:
            loaded = self._read_weights(session.weights_path, session.weights_layer)
        except (EngineError, MemoryError) as exc:
            problem = exception_text(exc) or self.tr("not enough memory")
        else:
            if loaded.config == session.config and (
                    not session.weights_sha256 or loaded.fingerprint == session.weights_sha256):
                self._use_loaded(loaded)
                return
            problem = self.tr("the file has changed since the session was saved")
        state.set_model(session.config, session.seed)
        self.notify(self.tr("The session's weights (%1, layer %2) could not be loaded: %3. "
                            "It runs on random weights of the same shape instead.")
                    .replace("%1", session.weights_path)
                    .replace("%2", str(session.weights_layer)).replace("%3", problem),
                    title=self.tr("Open session"), error=True)

    # ----- layer weights from a file -----
    def _read_weights(self, path: str | os.PathLike[str], layer: int) -> LoadedLayer:
        """Read one layer, with a busy cursor: a Qwen3-0.6B layer (15.7 M numbers) takes
        ~0.1-0.3 s, too short for a worker thread to pay off, too long to show nothing."""
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            return load_layer(path, layer,
                              max_weights=sessions.weight_count(sessions.MAX_SESSION_LAYER))
        finally:
            QApplication.restoreOverrideCursor()

    def _use_loaded(self, loaded: LoadedLayer) -> None:
        self.state.set_model(loaded.config, self.state.seed, weights=loaded.weights,
                             source=WeightsSource(loaded.path, loaded.layer, loaded.fingerprint,
                                                  loaded.assumed))

    def load_weights(self, path: str | os.PathLike[str], layer: int = 0) -> bool:
        """Run layer ``layer`` of a ``.safetensors`` (or the engine's ``.npz``) file. A file
        that cannot be read says why and leaves the layer on screen as it was."""
        try:
            loaded = self._read_weights(os.path.abspath(path), layer)
        except (EngineError, MemoryError) as exc:
            self.notify(self.tr("Cannot load weights from %1: %2")
                        .replace("%1", Path(path).name)
                        .replace("%2", exception_text(exc) or self.tr("not enough memory")),
                        title=self.tr("Open layer weights"), error=True)
            return False
        self._use_loaded(loaded)
        self.notify(self.tr("Loaded layer %1 of %2").replace("%1", str(layer))
                    .replace("%2", Path(path).name), dialog=False)
        return True

    def use_random_weights(self) -> None:
        """Back to random weights (the session's seed) for the same layer shape."""
        if self.state.weights_source is not None:
            self.state.set_model(self.state.config, self.state.seed)

    def _ask_layer(self, path: str, layers: tuple[int, ...]) -> int | None:
        # (asked only when there are several layers: no singular needed)
        label = self.tr("%1 holds %3 decoder layers: %2. Which one should run?").replace(
            "%1", Path(path).name).replace("%3", str(len(layers))).replace(
            "%2", f"{layers[0]}–{layers[-1]}"
            if len(layers) > 2 and list(layers) == list(range(layers[0], layers[-1] + 1))
            else ", ".join(map(str, layers)))
        value, ok = QInputDialog.getInt(self, self.tr("Open layer weights"), label,
                                        layers[0], layers[0], layers[-1], 1)
        return value if ok else None

    def _open_weights_interactive(self) -> None:
        source = self.state.weights_source
        start = str(Path(source.path).parent) if source else str(Path.home())
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Open layer weights"), start,
            self.tr("Layer weights (*.safetensors *.npz);;All files (*)"))
        if not path:
            return
        try:
            layers = layer_indices(path)
        except EngineError as exc:
            self.notify(self.tr("Cannot load weights from %1: %2").replace(
                "%1", Path(path).name).replace("%2", exception_text(exc)),
                title=self.tr("Open layer weights"), error=True)
            return
        layer = self._ask_layer(path, layers) if len(layers) > 1 else layers[0]
        if layer is not None:
            self.load_weights(path, layer)

    def _apply_pending_query(self, result: Result) -> None:
        pending = self._pending_query
        if pending is not None and pending[0] == result.text \
                and result.trace.config == self.state.config:
            self.state.set_query(pending[1])
            self.state.set_head(pending[2])
            self._pending_query = None

    def _start_autosave_and_recovery(self) -> None:
        """Own the autosave of the config folder for this run. A second copy of the app
        running at the same time neither autosaves nor mistakes the first for a crash."""
        folder = settings_dir()
        try:
            folder.mkdir(parents=True, exist_ok=True)
            lock = QLockFile(str(folder / sessions.LOCK_NAME))
            lock.setStaleLockTime(0)  # stale only when its process is gone (a crash or a kill)
            if not lock.tryLock(0):
                self.autosave_enabled = False
                return
            self._instance_lock = lock
            self.recovery_path = sessions.take_crash_autosave(folder)
            sessions.mark_running(folder)
        except OSError as exc:
            print(f"dualview: autosave is off ({exc})", file=sys.stderr)
            self.autosave_enabled = False
            # in the window too: work will not be kept if the app is closed by accident
            self.notify(self.tr("Autosave is off: the settings folder %1 cannot be used (%2)")
                        .replace("%1", str(folder)).replace("%2", os_reason(exc)),
                        dialog=False)

    def _schedule_autosave(self, *_args: object) -> None:
        if self.autosave_enabled:
            self._autosave_timer.start()

    def autosave_now(self) -> Path | None:
        """Write the autosave (atomically) if anything changed since the last one."""
        if not self.autosave_enabled:
            return None
        self._autosave_timer.stop()
        data = sessions.session_bytes(self.current_session())
        path = sessions.autosave_path(settings_dir())
        if data != self._last_autosave or not path.exists():
            try:
                sessions.write_atomic(path, data)
            except OSError as exc:
                print(f"dualview: autosave failed: {exc}", file=sys.stderr)
                return None
            self._last_autosave = data
        return path

    def offer_recovery(self) -> QMessageBox | None:
        """After a crash: a non-modal question whether to restore the last autosaved session."""
        if self.recovery_path is None or not self.recovery_path.exists():
            return None
        box = QMessageBox(QMessageBox.Icon.Question, self.tr("Restore the last session?"),
                          self.tr("Dual View did not close normally last time. Restore the "
                                  "session it was showing?"),
                          QMessageBox.StandardButton.NoButton, self)
        box.setObjectName("recoveryBox")
        restore = box.addButton(self.tr("Restore"), QMessageBox.ButtonRole.AcceptRole)
        box.addButton(self.tr("Discard"), QMessageBox.ButtonRole.RejectRole)
        box.setWindowModality(Qt.WindowModality.NonModal)
        box.buttonClicked.connect(
            lambda button: self.restore_recovered() if button is restore
            else self.discard_recovered())
        box.show()
        self.recovery_box = box
        return box

    def restore_recovered(self) -> bool:
        if self.recovery_path is None:
            return False
        ok = self.open_session(self.recovery_path)
        if ok:
            self.session_path = None  # the recovered copy is not the user's file
            self.statusBar().showMessage(self.tr("Restored the last session"), 5000)
        return ok

    def discard_recovered(self) -> None:
        if self.recovery_path is not None:
            try:
                self.recovery_path.unlink()
            except OSError:
                pass
        self.recovery_path = None

    # ----- the interactive paths: file dialogs (tests call the functions above directly) ----
    def _ask_save(self, caption: str, filters: str, suggestion: str) -> str:
        path, _ = QFileDialog.getSaveFileName(self, caption, suggestion, filters)
        return path

    def _open_session_interactive(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Open session"), str(self.session_path or Path.home()),
            self.tr("Dual View sessions (*.dualview.json);;All files (*)"))
        if path:
            self.open_session(path)

    def _save_session_interactive(self, ask: bool = False) -> None:
        path = None if ask else self.session_path
        if path is None:
            chosen = self._ask_save(self.tr("Save session"),
                                    self.tr("Dual View sessions (*.dualview.json)"),
                                    str(Path.home() / ("session" + sessions.SUFFIX)))
            if not chosen:
                return
            if not chosen.endswith(sessions.SUFFIX):
                chosen += sessions.SUFFIX
            path = Path(chosen)
        self.save_session(path)

    def _export_panel_interactive(self, name: str | None, fmt: str) -> None:
        stem = (name or "window").removesuffix("Dock")
        path = self._ask_save(self.tr("Export image"),
                              "PNG (*.png)" if fmt == "png" else "SVG (*.svg)",
                              str(Path.home() / f"dualview-{stem}-{self.state.step}.{fmt}"))
        if path:
            self.export_panel(name, path)

    def _export_step_interactive(self, fmt: str) -> None:
        path = self._ask_save(self.tr("Export step matrix"),
                              "CSV (*.csv)" if fmt == "csv" else "NumPy (*.npy)",
                              str(Path.home() / f"dualview-{self.state.step}.{fmt}"))
        if path:
            self.export_step(path)

    def _export_all_interactive(self) -> None:
        path = self._ask_save(self.tr("Export all steps"), "NumPy (*.npz)",
                              str(Path.home() / "dualview-steps.npz"))
        if path:
            self.export_all_steps(path)

    # ----- exports -----
    def _meta(self, *, step: bool = True) -> dict[str, object]:
        heat = self.panels.get("heatmapDock")
        info_step = self.state.step if step else None
        head = query_head = None
        result = self.state.result
        shown = result.trace.step(self.state.step) if step and result is not None else None
        if shown is not None and "head" in shown.axes:
            head = self.state.head
            if shown.array.shape[shown.axes.index("head")] != \
                    result.trace.config.num_attention_heads:
                # a key/value step: the matrix is the kv head this query head reads (GQA);
                # "head" indexes the step's own head axis, as trace[step][head] does
                query_head, head = head, head // result.trace.config.group_size
            if heat is not None and getattr(heat, "all_heads", None) is not None \
                    and heat.all_heads.isChecked():
                head, query_head = "all", None
        source = self.state.weights_source
        weights = None if source is None else {  # (the file's name: an export travels)
            "kind": "file", "file": Path(source.path).name, "layer": source.layer,
            "sha256": source.fingerprint}
        return exporting.provenance(result, seed=self.state.seed, causal=self.state.causal,
                                    step=info_step, head=head,  # type: ignore[arg-type]
                                    query_head=query_head, weights=weights)

    def export_panel(self, name: str | None, path: str | os.PathLike[str]) -> bool:
        """A dock's panel (or the whole window when ``name`` is None) as PNG or SVG, by the
        file's extension."""
        if name is not None:
            self.panels.get(name)  # a dock never opened has no panel yet
        widget: QWidget = self if name is None else self.docks[name]
        fmt = Path(path).suffix.lower()
        meta = self._meta()
        meta["panel"] = name or "window"
        try:
            if fmt == ".svg":
                exporting.widget_svg(widget, path, meta)
            elif fmt == ".png":
                exporting.widget_png(widget, path, meta)
            else:
                raise exporting.ExportError(self.tr("choose a .png or .svg file name"))
        except (exporting.ExportError, OSError) as exc:
            self.notify(self.tr("Export failed: %1").replace("%1", file_error_text(exc)),
                        error=True)
            return False
        self.statusBar().showMessage(self.tr("Exported %1").replace("%1", str(path)), 5000)
        return True

    def current_matrix(self) -> tuple[object, list[str], list[str] | None, str] | None:
        """The step matrix on screen (float64), its row and column labels, the column kind."""
        heat = self.panels.get("heatmapDock")
        result = self.state.result
        if result is None or heat is None:
            return None
        step = result.trace.step(self.state.step)
        matrix, col_labels, col_kind = heat.matrix_for(step, result.tokens)
        rows = [f"{i} {t}" for i, t in enumerate(result.tokens)]
        return matrix, rows, col_labels, col_kind

    def export_step(self, path: str | os.PathLike[str]) -> bool:
        """The step matrix on screen as CSV or .npy (by extension), with its provenance."""
        current = self.current_matrix()
        if current is None:
            self.notify(self.tr("Nothing to export yet: type a sentence first."), error=True)
            return False
        matrix, rows, cols, col_kind = current
        meta = self._meta()
        meta["columns"] = col_kind
        fmt = Path(path).suffix.lower()
        try:
            if fmt == ".csv":
                exporting.write_csv(path, matrix, meta, rows, cols)  # type: ignore[arg-type]
            elif fmt == ".npy":
                exporting.write_npy(path, matrix, meta, rows, cols)  # type: ignore[arg-type]
            else:
                raise exporting.ExportError(self.tr("choose a .csv or .npy file name"))
        except (exporting.ExportError, OSError) as exc:
            self.notify(self.tr("Export failed: %1").replace("%1", file_error_text(exc)),
                        error=True)
            return False
        self.statusBar().showMessage(self.tr("Exported %1").replace("%1", str(path)), 5000)
        return True

    def export_all_steps(self, path: str | os.PathLike[str]) -> bool:
        try:
            exporting.write_all_steps(path, self.state.result,  # type: ignore[arg-type]
                                      self._meta(step=False))
        except (exporting.ExportError, OSError) as exc:
            self.notify(self.tr("Export failed: %1").replace("%1", file_error_text(exc)),
                        error=True)
            return False
        self.statusBar().showMessage(self.tr("Exported %1").replace("%1", str(path)), 5000)
        return True

    # ----- guided tour -----
    def start_tour(self, index: int = 0) -> None:
        if not self.tour_dock.isVisible() and not self.tour_dock.isFloating():
            self.tour_dock.show()
            self.resizeDocks([self.tour_dock], [int(360 * max(self.state.font_scale, 1.0))],
                             Qt.Orientation.Horizontal)
        self.tour_dock.show()
        self.tour_dock.raise_()
        self.tour.start(index)

    def _drop_tour_pending_text(self, *_args: object) -> None:
        """The person typed or picked a sentence: a tour stop's sentence waiting for the new
        mask's result must not replace it."""
        self._tour_pending_text = None
        self._tour_then_text = None
        self._tour_pin_text = None

    def _on_tour_running(self, running: bool) -> None:
        self.tour_next_action.setEnabled(running)
        self.tour_back_action.setEnabled(running)
        if not running:
            self._tour_pending_text = None
            self._tour_then_text = None
            self._tour_pin_text = None
            self._release_tour_baseline()
            self.highlight.highlight(None)
            self.tour_dock.hide()

    def _on_tour_dock_visibility(self, visible: bool) -> None:
        if self._restoring_layout:
            return
        if not visible and self.tour.running and self.tour_dock.isHidden():
            self.tour.stop_tour()  # closed with its × button (not just covered or minimised)

    def _on_tour_stop(self, index: int) -> None:
        stop = self.tour.stops[index]
        # released before a mask change recomputes: a pin under the other mask blocks the
        # comparison the stop is about
        if stop.baseline not in ("pin", "keep"):
            self._release_tour_baseline()
        self._tour_pin_text = stop.text if stop.baseline == "pin" else None
        # Back from the next stop left another sentence in the field: the stop's edit is
        # compared with its before_text, as when it was reached with Next
        first, self._tour_then_text = stop.text, None
        if (stop.before_text is not None and stop.text is not None
                and self.editor.text() != stop.before_text):
            first, self._tour_then_text = stop.before_text, stop.text
        if stop.causal is not None and self.causal_action.isChecked() != stop.causal:
            self.causal_action.setChecked(stop.causal)
            # type the text once the result with the new mask is in: the causality panel then
            # compares like with like
            self._tour_pending_text = first
            if self.state.error or not self.state.tokens:
                # no result is coming for this text (empty, over the cap): nothing to compare
                # with, so the sentence goes in now (else it stayed pending and later replaced
                # whatever the learner typed)
                self._apply_tour_pending_text(now=True)
            elif self.state.result is not None and self.state.result.trace.causal == stop.causal \
                    and self.state.result.text == self.state.text:
                self._apply_tour_pending_text()
        elif self._tour_then_text is not None:
            self._tour_pending_text = first
            self._apply_tour_pending_text()
        elif stop.text is not None and self.editor.text() != stop.text:
            self.editor.set_text(stop.text)
        if stop.step is not None:
            self.state.set_step(stop.step)
        if stop.depth_t is not None:
            self.state.set_depth_t(stop.depth_t)
        if stop.depth_plot is not None:
            self.panels["depthDock"].show_small_plot(stop.depth_plot)
        dock = next((self.docks[d] for d in stop.docks if d in self.docks), None)
        if dock is not None:
            if not dock.isVisible():
                dock.show()
            dock.raise_()
        self.highlight.highlight(dock)
        self._pin_tour_baseline()

    def _pin_tour_baseline(self) -> None:
        """The causality setup stop compares nothing with what was typed before the tour: its
        sentence becomes the pinned baseline once computed (with the stop's mask), so the next
        stop's edit is compared with exactly that sentence."""
        text, result = self._tour_pin_text, self.state.result
        if (text is None or result is None or self._tour_pending_text is not None
                or result.text != text or self.state.text != text
                or result.trace.causal != self.state.causal):
            return
        self._tour_pin_text = None
        self.state.pin_baseline(True)
        self._tour_pinned = self.state.pinned

    def _release_tour_baseline(self) -> None:
        """Release the pin the tour made (a pin the person made since is theirs to keep)."""
        pinned, self._tour_pinned = self._tour_pinned, None
        if pinned is not None and self.state.pinned is pinned:
            self.state.pin_baseline(False)

    def _apply_tour_pending_text(self, *, now: bool = False) -> None:
        text = self._tour_pending_text
        result = self.state.result
        if text is None:
            return
        if not now and (result is None or result.text != self.state.text
                        or result.trace.causal != self.state.causal):
            return
        self._tour_pending_text = None
        if self.editor.text() != text:
            self.editor.set_text(text)
        if self._tour_then_text is not None:  # the stop's own sentence, once this one is in
            self._tour_pending_text, self._tour_then_text = self._tour_then_text, None
            self._apply_tour_pending_text()

    # ----- lifetime -----
    def first_result_settled(self) -> bool:
        """Nothing more is coming for the text being computed: its result (or error) is in,
        and so is its convergence sweep unless the input is too much work for one."""
        state = self.state
        if state.error or not state.tokens:
            return True
        result = state.result
        return (result is not None and result.request_id == state.pending_id
                and (state.convergence is not None or state.convergence_error is not None
                     or convergence_skipped(result)))

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._hide_stale_tab_bars()
        if not self._key_guard_installed:
            self._key_guard_installed = True
            # a zero timer runs after the posted paint events of this event-loop pass
            QTimer.singleShot(0, self, self._install_key_guard)

    def _hide_stale_tab_bars(self) -> None:
        """A layout applied while the window is hidden (the default one, then the saved one
        restored over it, at every launch after the first) leaves Qt's tab bar of a group it
        no longer shows as tabbed visible once the window shows: "Depth time" drawn over the
        File menu. Qt draws a group's tab bar only when it holds two tabs or more, so a bar
        of the window's with fewer is stale; Qt shows it again itself if it reuses it."""
        for bar in self.findChildren(QTabBar, options=Qt.FindChildOption.FindDirectChildrenOnly):
            if bar.count() < 2 and not bar.isHidden():
                bar.hide()

    def _install_key_guard(self) -> None:
        QApplication.instance().installEventFilter(self.key_guard)

    def wait_for_first_result(self, timeout: float) -> bool:
        """Before the window is first shown: take in the initial text's result and sweep (at
        most ``timeout`` seconds), so that the first paint draws them instead of the empty
        panels followed by a second paint. Hidden panels only note that they must redraw,
        so taking the result in costs nothing here. True when everything arrived."""
        if self.first_result_settled():
            return True
        loop = QEventLoop()
        timer = QTimer()
        timer.setSingleShot(True)
        timer.timeout.connect(loop.quit)

        def check(*_args: object) -> None:
            if self.first_result_settled():
                loop.quit()

        signals = (self.state.result_changed, self.state.convergence_changed,
                   self.state.error_changed)
        for signal in signals:
            signal.connect(check)
        timer.start(max(0, int(timeout * 1000)))
        try:
            loop.exec()
        finally:
            timer.stop()
            for signal in signals:
                signal.disconnect(check)
        return self.first_result_settled()

    def all_panels_current(self) -> bool:
        """Every visible panel shows the current result (the self-test waits for this)."""
        return all(p.is_current for p in self.panels.values() if p.isVisible())

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.persist_layout:
            self.save_layout()
        if self.autosave_enabled:
            self.autosave_now()
            try:
                sessions.mark_clean_exit(settings_dir())
            except OSError as exc:
                print(f"dualview: could not write the clean-exit marker: {exc}", file=sys.stderr)
        if self._instance_lock is not None:
            self._instance_lock.unlock()
            self._instance_lock = None
        QApplication.instance().removeEventFilter(self.key_guard)
        self.tour.stop_tour()
        self.bridge.shutdown()
        super().closeEvent(event)
