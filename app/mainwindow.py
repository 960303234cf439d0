"""The main window: it builds the token editor, one dock per panel, the status bar, the menus
and the controllers, connects them, and owns their lifetime.

What it delegates (each a module of its own, testable without the whole window):
``app.keys`` (bare keys stay with the focused text field), ``app.menus`` (menus and actions),
``app.docking`` (default, saved and presentation-mode layouts), ``app.files`` (sessions,
weights, autosave, recovery, exports), ``app.tour_driver`` (the tour's stops in the window) and
``app.status`` (the status bar). The one request cycle is in ``app.state``; docs/architecture.md
draws the whole path of a keystroke.
"""

from __future__ import annotations

import atexit
import os
import weakref
from functools import partial

from PySide6.QtCore import QEvent, QEventLoop, Qt, QTimer
from PySide6.QtGui import QCloseEvent, QGuiApplication, QKeyEvent, QResizeEvent, QShowEvent
from PySide6.QtWidgets import QApplication, QDockWidget, QMainWindow, QMessageBox, QWidget

from app import __version__, i18n, presentation, theme
from app.bridge import EngineBridge
from app.compute import MAX_TEXT_CHARS, Result, convergence_skipped
from app.docking import DockLayout
from app.docks import DOCKS, MODEL_DOCKS, PanelMap
from app.files import FileController
from app.glyphs import watch_missing_glyphs
from app.keys import KeyGuard
from app.menus import (
    build_menus,
    retranslate_examples,
    retranslate_history,
    retranslate_menus,
    shortcut_rows,
)
from app.model_open import ModelController
from app.panels.base import Panel, intervention_text
from app.settings import open_settings, settings_dir
from app.state import AppState
from app.status import Message, StatusBar
from app.tour import TourController, TourPanel
from app.tour_driver import TourDriver
from app.widgets.highlight import HighlightFrame
from app.widgets.shortcuts_sheet import ShortcutsSheet
from app.widgets.token_editor import DEFAULT_TEXT, TokenEditor
from engine import Intervention

__all__ = ["KeyGuard", "MainWindow", "open_settings", "settings_dir"]

#: Warn about a missing CJK font once per process.
_cjk_warned = False

#: Windows not deleted yet: deleted at interpreter exit before Python tears its types down.
_live_windows: weakref.WeakSet[MainWindow] = weakref.WeakSet()


def _delete_live_windows() -> None:
    """At exit, or when the application quits: close and delete every window left, with its
    graphics views, while the interpreter is whole. A script that makes a window at module
    level and just ends left it to the interpreter's teardown, where PySide deleting a plot's
    Python override after its type was gone segfaulted now and then."""
    for window in list(_live_windows):
        window.dispose()


atexit.register(_delete_live_windows)


class MainWindow(QMainWindow):
    """Builds the window, connects its parts and owns their lifetime. The menus' actions are
    attributes made by ``app.menus.build_menus`` (``window.causal_action``, ...)."""

    def __init__(self, *, bridge: EngineBridge | None = None, persist_layout: bool = True,
                 initial_text: str | None = DEFAULT_TEXT, autosave: bool | None = None,
                 language: str | None = None) -> None:
        super().__init__()
        _live_windows.add(self)
        self._disposed = False
        self.persist_layout = persist_layout
        self.setObjectName("mainWindow")
        self.bridge = bridge or EngineBridge(self)
        self.state = state = AppState(self.bridge, self)
        submit_early = initial_text is not None and not self.bridge.sync
        if submit_early:
            # the worker computes the first input while the panels are built; its result is
            # queued to this thread, so it arrives once the window is complete
            state.set_text(initial_text)
        # the app-wide style and palette before the widgets exist: setting them later
        # re-polishes every widget (~40 ms at start-up); new plots take its colours
        theme.apply_theme(state.theme)
        # the chips show the tokens the state made for the request (one tokenization)
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
        self._shortcuts_sheet: ShortcutsSheet | None = None
        self.status = StatusBar(self, state, lambda n: self.tr("%n token(s)", "", n))
        # crash recovery is decided here, before this run's autosave can overwrite the last one
        self.files = FileController(self, autosave=persist_layout if autosave is None
                                    else autosave)

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
        self.tour_panel = TourPanel(self.tour, state)
        self.tour_dock = QDockWidget(self)
        self.tour_dock.setObjectName("tourDock")
        self.tour_dock.setWidget(self.tour_panel)
        self.highlight = HighlightFrame(self)
        self.docking = DockLayout(self)
        self.tour_driver = TourDriver(self)
        self.models = ModelController(self)
        build_menus(self)
        self.random_weights_action.setEnabled(state.weights_source is not None)

        self.editor.text_edited.connect(state.set_text)
        # the chips show the state's tokens (a real model's pieces), tokenized once per edit
        self.editor.chips_from_owner = True
        state.tokens_changed.connect(self._on_tokens_changed)
        self._on_tokens_changed()
        self.editor.text_full.connect(self._on_text_full)
        state.result_changed.connect(self._on_result_changed)
        state.error_changed.connect(self._on_error_changed)
        state.model_changed.connect(self._on_model_changed)
        state.intervention_dropped.connect(self._on_intervention_dropped)
        state.text_restored.connect(self._on_text_restored)
        state.history_changed.connect(self._update_history_actions)
        state.palette_changed.connect(self._on_palette_changed)
        state.theme_changed.connect(self._on_theme_changed)
        state.font_scale_changed.connect(self._on_font_scale_changed)
        state.presentation_changed.connect(self.docking.on_presentation_changed)
        state.language_changed.connect(self._sync_language_actions)
        # new titles, a new text size or the tour beside the columns: tab titles may not fit
        state.language_changed.connect(self.docking.schedule_tab_title_fit)
        state.font_scale_changed.connect(self.docking.schedule_tab_title_fit)
        self.tour_dock.visibilityChanged.connect(self.docking.schedule_tab_title_fit)
        for panel in self.panels.values():
            self._wire_panel(panel)
        self._panels_wired = True
        for signal in (state.inputs_changed, state.selection_changed, state.language_changed,
                       state.palette_changed, state.theme_changed, state.font_scale_changed):
            signal.connect(self.files.schedule_autosave)

        # installed when the window is shown (no key reaches a window not yet on screen); it
        # then filters the focused widget only (app/keys.py says why). leave_text_field is
        # looked up when Esc comes: a test or a subclass may replace it
        self.key_guard = KeyGuard(self, self.editor.line, lambda: self.leave_text_field())

        self.resize(1600, 1000)
        self.apply_default_layout()
        presentation.apply_app_font(state.font_scale)
        # a window made while another language is installed starts in that language
        language = language or i18n.translations().language
        if language != state.language:
            self.set_language(language)
        self.retranslate()
        if persist_layout:
            self.restore_layout()
        if initial_text is not None:
            self.editor.set_text(initial_text)  # (no second request when submitted early)
            if submit_early and initial_text:
                self.files.schedule_autosave()  # as the editor's edit would have
        self._update_history_actions()
        self.check_cjk_font()
        # a character no font draws: said once in the status bar (here, so every window has it)
        self.glyph_watch = watch_missing_glyphs(self)
        app = QApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.dispose)

    # ----- language and texts -----
    def retranslate(self) -> None:
        retranslate_menus(self)
        self.editor.retranslate()
        self.status.retranslate()
        self.models.retranslate()
        if self._shortcuts_sheet is not None:
            self._shortcuts_sheet.refresh()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange and hasattr(self, "help_menu"):
            self.retranslate()

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
        retranslate_examples(self)

    def check_cjk_font(self) -> bool:
        """Say once (per run) when no font can draw Chinese, instead of silently showing boxes.
        A status-bar message: it never blocks the window or a test."""
        global _cjk_warned
        if i18n.cjk_font_available():
            return True
        if not _cjk_warned:
            _cjk_warned = True
            self.notify(lambda: self.tr(
                "No Chinese font found: Chinese text will show as empty boxes. Install a CJK "
                "font (e.g. fonts-wqy-microhei or Noto Sans CJK) and restart."),
                error=True, dialog=False)
        return False

    # ----- the status bar (app.status) -----
    @property
    def last_message(self) -> str:
        """The last message shown to the person (errors of open/save/export, notices)."""
        return self.status.last_message

    @last_message.setter
    def last_message(self, text: str) -> None:
        self.status.last_message = text

    def notify(self, text: Message, *, title: str = "", error: bool = False,
               dialog: bool = True) -> QMessageBox | None:
        """Tell the person something: status bar always, plus a non-modal box if ``dialog``.
        ``text`` may be a callable that words it: it follows a language switch."""
        return self.status.notify(text, title=title, error=error, dialog=dialog)

    def show_message(self, text: Message, timeout_ms: int) -> str:
        """A transient status-bar message (a callable follows a language switch)."""
        return self.status.show_message(text, timeout_ms)

    def _on_result_changed(self, result: Result | None) -> None:
        self.status.show_result(result)
        if result is not None:
            self.files.apply_pending_query(result)
            self.tour_driver.on_result()
            # the panels redrew in this event; a zero timer runs once Qt has painted that
            # (posted paint requests go first), and one more after the second pass some plots
            # ask for while painting: then the slow sweep may take the interpreter
            QTimer.singleShot(0, self, partial(QTimer.singleShot, 0, self,
                                               partial(self.bridge.result_shown,
                                                       result.request_id)))

    def _on_error_changed(self, message: str) -> None:
        self.status.show_error(message)
        if message:  # no result is coming for this text: a tour sentence goes in now
            self.tour_driver.apply_pending_text(now=True)

    def _on_intervention_dropped(self, iv: Intervention) -> None:
        self.show_message(lambda: self.tr("Interventions cleared (%1): the new layer does not "
                                          "have every part they name")
                          .replace("%1", intervention_text(iv)), 8000)

    def _on_model_changed(self) -> None:
        self.random_weights_action.setEnabled(self.state.weights_source is not None)
        self.status.show_weights()
        if self.state.model is not None:
            # what the real model adds (the next token, the whole depth) comes forward when
            # one is opened; closing it leaves them where the teacher put them
            for name in MODEL_DOCKS:
                dock = self.docks[name]
                dock.show()
                dock.raise_()

    def _on_text_full(self) -> None:
        self.notify(lambda: self.tr(
            "The text field holds at most %1 characters; anything past that was left out.")
            .replace("%1", f"{MAX_TEXT_CHARS:,}"), dialog=True)

    # ----- files (app.files) -----
    def open_session(self, path: str | os.PathLike[str]) -> bool:
        return self.files.open_session(path)

    def save_session(self, path: str | os.PathLike[str]) -> bool:
        return self.files.save_session(path)

    def open_model(self, folder: str | os.PathLike[str], layer: int = 0, *,
                   wait: bool = False) -> bool:
        return self.models.open_model(folder, layer, wait=wait)

    def load_weights(self, path: str | os.PathLike[str], layer: int = 0) -> bool:
        return self.files.load_weights(path, layer)

    def export_panel(self, name: str | None, path: str | os.PathLike[str]) -> bool:
        return self.files.export_panel(name, path)

    def export_step(self, path: str | os.PathLike[str]) -> bool:
        return self.files.export_step(path)

    def export_all_steps(self, path: str | os.PathLike[str]) -> bool:
        return self.files.export_all_steps(path)

    def offer_recovery(self) -> QMessageBox | None:
        return self.files.offer_recovery()

    # ----- layout (app.docking) -----
    def apply_default_layout(self) -> None:
        self.docking.apply_default()

    def reset_layout(self) -> None:
        self.docking.apply_default()

    def save_layout(self) -> None:
        self.docking.save()

    def restore_layout(self) -> bool:
        return self.docking.restore()

    # ----- view options -----
    def set_presentation(self, on: bool) -> None:
        self.state.set_presentation(on)

    def scale_text(self, factor: float) -> None:
        self.state.set_font_scale(self.state.font_scale * factor)

    def reset_text_size(self) -> None:
        self.state.set_font_scale(self.docking.presentation_scale if self.state.presentation
                                  else 1.0)

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

    def _on_theme_changed(self, key: str) -> None:
        self.theme_actions[key].setChecked(True)
        theme.apply_theme(key, self)
        self.status.colour_error()
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

    def _on_tokens_changed(self) -> None:
        state = self.state
        self.editor.show_chips(state.token_chips())
        pending = state.pending_bytes
        if pending:
            self.show_message(lambda: self.tr(
                "The last token is part of a character: bytes %1 wait for the next token "
                "(the ids stay what the model produced)").replace(
                    "%1", " ".join(f"{b:02x}" for b in pending)), 8000)

    def _on_text_restored(self, text: str) -> None:
        if self.editor.text() != text:
            self.editor.set_text(text)  # the state already has it: set_text is a no-op there

    def _update_history_actions(self) -> None:
        self.undo_action.setEnabled(self.state.can_undo)
        self.redo_action.setEnabled(self.state.can_redo)
        retranslate_history(self)

    def shortcut_rows(self) -> list[tuple[str, str]]:
        """(keys, what) for the shortcuts sheet, from the actions themselves."""
        return shortcut_rows(self)

    def show_shortcuts(self) -> ShortcutsSheet:
        if self._shortcuts_sheet is None:
            self._shortcuts_sheet = ShortcutsSheet(self.shortcut_rows, self)
        self._shortcuts_sheet.refresh()
        self._shortcuts_sheet.show()
        self._shortcuts_sheet.raise_()
        return self._shortcuts_sheet

    def show_about(self) -> None:
        self.notify(lambda: self.tr(
            "Dual View %1: one real Qwen3 decoder layer, computed live in float64 and shown two "
            "ways — 22 matrix steps and a continuous depth-time view.").replace("%1", __version__))

    # ----- the guided tour (app.tour_driver) -----
    def start_tour(self, index: int = 0) -> None:
        self.tour_driver.start(index)

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
        self.show_message(lambda: self.tr("Copied %1 to the clipboard").replace("%1", text),
                          5000)
        self.last_message = text
        return text

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

    def resizeEvent(self, event: QResizeEvent) -> None:
        # (not an event filter on the window: that runs Python for each of its events, paints
        # included, and on this thread each waits for the interpreter lock while the worker runs)
        super().resizeEvent(event)
        self.docking.schedule_adapt()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.docking.hide_stale_tab_bars()
        self.key_guard.install()  # (again at each show: it follows the focus from here)

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
        self.files.close()
        self.key_guard.uninstall()
        self.tour.stop_tour()
        self.bridge.shutdown()
        super().closeEvent(event)

    def dispose(self) -> None:
        """Close (if still open) and delete the window and everything in it now, while the
        interpreter is whole: at application quit and at exit, for any caller (a script that
        never closes its window included). Idempotent."""
        if self._disposed:
            return
        self._disposed = True
        _live_windows.discard(self)
        import shiboken6

        app = QApplication.instance()
        if not shiboken6.isValid(self) or app is None:
            return  # deleted already, or no application left to delete widgets under
        if self.isVisible():
            self.close()
        else:
            self.bridge.shutdown()
        self.key_guard.uninstall()
        try:
            app.aboutToQuit.disconnect(self.dispose)
        except (RuntimeError, TypeError):
            pass
        # the graphics views first (their Python overrides run in their destructors), then the
        # window with the rest of its children
        import pyqtgraph as pg

        for view in self.findChildren(pg.GraphicsView):
            shiboken6.delete(view)
        shiboken6.delete(self)
