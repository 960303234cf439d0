"""The window's menus and their actions: File (sessions, examples, weights, exports), Edit
(undo/redo of the text and the interventions), View (docks, presentation mode, text size,
theme, palette), Demo (play, steps, heads, causal mask), Language (English / 简体中文,
switched live) and Help (guided tour, shortcuts sheet).

Built onto the window the way a Qt Designer form is (``setupUi``): each action is an
attribute of the window (``window.causal_action``), which the keys, the tour and the tests
reach it by. The strings keep the main window's translation context.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMenu

from app import __version__, i18n, sessions
from app.compute import short_token
from app.docks import DOCKS
from app.palettes import PALETTES
from app.panels.base import intervention_text
from app.state import THEMES
from app.widgets.shortcuts_sheet import action_keys

if TYPE_CHECKING:
    from app.mainwindow import MainWindow

translate = QCoreApplication.translate

#: Text scale steps for Ctrl + / Ctrl −.
FONT_STEP = 1.15


def plain_text(menu_text: str) -> str:
    """A menu text without its accelerator: "&Open…" → "Open…", "打开(&O)…" → "打开…"."""
    return re.sub(r"\(&\w\)", "", menu_text).replace("&", "")


def _action(window: MainWindow, name: str, menu: QMenu | None,
            slot: Callable[..., object] | None = None,
            keys: tuple[QKeySequence | str | QKeySequence.StandardKey, ...] = (), *,
            checkable: bool = False) -> QAction:
    action = QAction(window)
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
        window.addAction(action)
    return action


def build_menus(w: MainWindow) -> None:
    """Make every menu and action of ``w`` (texts come from :func:`retranslate_menus`)."""
    bar = w.menuBar()
    state, files = w.state, w.files
    # File
    w.file_menu = QMenu(w)
    w.open_action = _action(w, "openSessionAction", w.file_menu, files.open_session_interactive,
                            (QKeySequence.StandardKey.Open,))
    w.examples_menu = QMenu(w)
    w.examples_menu.setObjectName("examplesMenu")
    w.file_menu.addMenu(w.examples_menu)
    w.open_weights_action = _action(w, "openWeightsAction", w.file_menu,
                                    files.open_weights_interactive)
    w.random_weights_action = _action(w, "randomWeightsAction", w.file_menu,
                                      files.use_random_weights)
    w.open_model_action = _action(w, "openModelAction", w.file_menu,
                                  w.models.open_model_interactive)
    w.toy_layer_action = _action(w, "toyLayerAction", w.file_menu, w.models.close_model)
    w.toy_layer_action.setEnabled(w.state.model is not None)
    w.save_action = _action(w, "saveSessionAction", w.file_menu,
                            lambda: files.save_session_interactive(),
                            (QKeySequence.StandardKey.Save,))
    w.save_as_action = _action(w, "saveSessionAsAction", w.file_menu,
                               lambda: files.save_session_interactive(ask=True),
                               ("Ctrl+Shift+S",))
    w.file_menu.addSeparator()
    w.export_menu = QMenu(w)
    w.export_menu.setObjectName("exportMenu")
    w.file_menu.addMenu(w.export_menu)
    w.export_png_menu = QMenu(w)
    w.export_svg_menu = QMenu(w)
    w.export_menu.addMenu(w.export_png_menu)
    w.export_menu.addMenu(w.export_svg_menu)
    w.export_panel_actions = {}
    for spec in DOCKS:
        for fmt, menu in (("png", w.export_png_menu), ("svg", w.export_svg_menu)):
            a = _action(w, f"export_{fmt}_{spec.object_name}", menu,
                        lambda _=False, n=spec.object_name, f=fmt:
                        files.export_panel_interactive(n, f))
            w.export_panel_actions[(spec.object_name, fmt)] = a
    w.export_window_action = _action(w, "exportWindowAction", w.export_menu,
                                     lambda: files.export_panel_interactive(None, "png"))
    w.export_menu.addSeparator()
    w.export_csv_action = _action(w, "exportCsvAction", w.export_menu,
                                  lambda: files.export_step_interactive("csv"))
    w.export_npy_action = _action(w, "exportNpyAction", w.export_menu,
                                  lambda: files.export_step_interactive("npy"))
    w.export_npz_action = _action(w, "exportNpzAction", w.export_menu,
                                  files.export_all_interactive, ("Ctrl+E",))
    w.file_menu.addSeparator()
    w.quit_action = QAction(w)
    w.quit_action.setObjectName("quitAction")
    w.quit_action.setShortcut(QKeySequence.StandardKey.Quit)
    w.quit_action.triggered.connect(w.close)
    w.file_menu.addAction(w.quit_action)
    bar.addMenu(w.file_menu)

    # Edit
    w.edit_menu = QMenu(w)
    w.undo_action = _action(w, "undoAction", w.edit_menu, state.undo_text,
                            (QKeySequence.StandardKey.Undo,))
    w.redo_action = _action(w, "redoAction", w.edit_menu, state.redo_text,
                            ("Ctrl+Shift+Z", "Ctrl+Y"))
    w.edit_menu.setToolTipsVisible(True)  # Undo's tooltip says what it gives back
    w.clear_intervention_action = _action(w, "clearInterventionAction", w.edit_menu,
                                          state.clear_intervention)
    w.edit_menu.addSeparator()
    w.focus_text_action = _action(w, "focusTextAction", w.edit_menu, w.focus_text_field,
                                  ("Ctrl+L",))
    bar.addMenu(w.edit_menu)

    # View
    w.view_menu = QMenu(w)
    w.view_menu.setObjectName("viewMenu")
    for dock in w.docks.values():
        w.view_menu.addAction(dock.toggleViewAction())
    w.view_menu.addAction(w.tour_dock.toggleViewAction())
    w.view_menu.addSeparator()
    w.reset_layout_action = QAction(w)
    w.reset_layout_action.setObjectName("resetLayoutAction")
    w.reset_layout_action.triggered.connect(w.reset_layout)
    w.view_menu.addAction(w.reset_layout_action)
    w.view_menu.addSeparator()
    w.presentation_action = _action(w, "presentationAction", w.view_menu, w.set_presentation,
                                    ("F11",), checkable=True)
    w.zoom_in_action = _action(w, "zoomInAction", w.view_menu,
                               lambda: w.scale_text(FONT_STEP), ("Ctrl+=", "Ctrl++"))
    w.zoom_out_action = _action(w, "zoomOutAction", w.view_menu,
                                lambda: w.scale_text(1 / FONT_STEP), ("Ctrl+-",))
    w.zoom_reset_action = _action(w, "zoomResetAction", w.view_menu, w.reset_text_size,
                                  ("Ctrl+0",))
    w.view_menu.addSeparator()
    w.theme_menu = QMenu(w)
    w.view_menu.addMenu(w.theme_menu)
    w.theme_group = QActionGroup(w)
    w.theme_actions = {}
    for key in THEMES:
        a = _action(w, f"theme_{key}", w.theme_menu, lambda _=False, k=key: state.set_theme(k))
        a.setCheckable(True)
        a.setChecked(key == state.theme)
        w.theme_group.addAction(a)
        w.theme_actions[key] = a
    w.palette_menu = QMenu(w)
    w.view_menu.addMenu(w.palette_menu)
    w.palette_group = QActionGroup(w)
    w.palette_actions = {}
    for key in PALETTES:
        a = _action(w, f"palette_{key}", w.palette_menu,
                    lambda _=False, k=key: state.set_palette(k))
        a.setCheckable(True)
        a.setChecked(key == state.palette)
        w.palette_group.addAction(a)
        w.palette_actions[key] = a
    bar.addMenu(w.view_menu)

    # Demo: the keys a teacher uses in front of a class
    w.demo_menu = QMenu(w)
    w.play_action = _action(w, "playAction", w.demo_menu, w.toggle_play, ("Space",))
    w.demo_menu.addSeparator()
    w.prev_step_action = _action(w, "prevStepAction", w.demo_menu, lambda: state.step_by(-1),
                                 ("Left", "Up"))
    w.next_step_action = _action(w, "nextStepAction", w.demo_menu, lambda: state.step_by(1),
                                 ("Right", "Down"))
    w.first_step_action = _action(w, "firstStepAction", w.demo_menu,
                                  lambda: state.step_by(-100), ("Home",))
    w.last_step_action = _action(w, "lastStepAction", w.demo_menu, lambda: state.step_by(100),
                                 ("End",))
    w.prev_head_action = _action(w, "prevHeadAction", w.demo_menu,
                                 lambda: state.set_head(state.head - 1), ("[",))
    w.next_head_action = _action(w, "nextHeadAction", w.demo_menu,
                                 lambda: state.set_head(state.head + 1), ("]",))
    w.demo_menu.addSeparator()
    w.causal_action = QAction(w)
    w.causal_action.setObjectName("causalAction")
    w.causal_action.setCheckable(True)
    w.causal_action.setChecked(True)
    w.causal_action.setShortcut(QKeySequence("M"))
    w.causal_action.setShortcutContext(Qt.ShortcutContext.ApplicationShortcut)
    w.causal_action.toggled.connect(state.set_causal)
    w.view_menu.addAction(w.causal_action)
    w.demo_menu.addAction(w.causal_action)
    bar.addMenu(w.demo_menu)

    # Language: its title is in both languages, so it can be found in either
    w.language_menu = QMenu("Language · 语言", w)
    w.language_menu.setObjectName("languageMenu")
    w.language_group = QActionGroup(w)
    w.language_actions = {}
    for code, name in i18n.LANGUAGES.items():
        a = QAction(name, w)
        a.setObjectName(f"language_{code}")
        a.setCheckable(True)
        a.setChecked(code == state.language)
        a.triggered.connect(lambda _=False, c=code: w.set_language(c))
        w.language_group.addAction(a)
        w.language_menu.addAction(a)
        w.language_actions[code] = a
    bar.addMenu(w.language_menu)

    # Help
    w.help_menu = QMenu(w)
    w.tour_action = _action(w, "tourAction", w.help_menu, lambda: w.start_tour(), ("Ctrl+T",))
    w.tour_next_action = _action(w, "tourNextAction", w.help_menu, w.tour.next, ("PgDown",))
    w.tour_back_action = _action(w, "tourBackAction", w.help_menu, w.tour.back, ("PgUp",))
    w.tour_next_action.setEnabled(False)
    w.tour_back_action.setEnabled(False)
    w.help_menu.addSeparator()
    w.shortcuts_action = _action(w, "shortcutsAction", w.help_menu, w.show_shortcuts, ("F1",))
    w.about_action = _action(w, "aboutAction", w.help_menu, w.show_about)
    bar.addMenu(w.help_menu)
    build_examples_menu(w)


def build_examples_menu(w: MainWindow) -> None:
    w.examples_menu.clear()
    for path in sessions.example_sessions():
        a = QAction(w)
        a.setData(str(path))
        a.triggered.connect(lambda _=False, p=path: w.files.open_session(p))
        w.examples_menu.addAction(a)
    retranslate_examples(w)


def retranslate_examples(w: MainWindow) -> None:
    for a in w.examples_menu.actions():
        a.setText(sessions.example_title(Path(a.data()), w.state.language))


def _dock_title(object_name: str) -> str:
    return next(spec.title for spec in DOCKS if spec.object_name == object_name)


def retranslate_menus(w: MainWindow) -> None:
    """The window title, every menu and action, and the docks' titles."""
    w.setWindowTitle(translate("MainWindow", "Dual View — one Qwen3 layer, two views")
                     + f"  {__version__}")
    w.file_menu.setTitle(translate("MainWindow", "&File"))
    w.open_action.setText(translate("MainWindow", "&Open session…"))
    w.examples_menu.setTitle(translate("MainWindow", "Open &example"))
    w.open_weights_action.setText(translate("MainWindow", "Open layer &weights…"))
    w.random_weights_action.setText(translate("MainWindow", "Back to &random weights"))
    w.open_model_action.setText(translate("MainWindow", "Open &model…"))
    w.toy_layer_action.setText(translate("MainWindow", "Back to the &toy layer"))
    w.save_action.setText(translate("MainWindow", "&Save session"))
    w.save_as_action.setText(translate("MainWindow", "Save session &as…"))
    w.export_menu.setTitle(translate("MainWindow", "&Export"))
    w.export_png_menu.setTitle(translate("MainWindow", "Panel as &PNG image"))
    w.export_svg_menu.setTitle(translate("MainWindow", "Panel as &SVG (vector)"))
    for (name, _fmt), a in w.export_panel_actions.items():
        a.setText(translate("Docks", _dock_title(name)) + "…")
    w.export_window_action.setText(translate("MainWindow", "Whole &window as PNG…"))
    w.export_csv_action.setText(translate("MainWindow", "Step matrix on screen as &CSV…"))
    w.export_npy_action.setText(translate("MainWindow", "Step matrix on screen as .&npy…"))
    w.export_npz_action.setText(translate("MainWindow", "&All steps of this input as .npz…"))
    w.quit_action.setText(translate("MainWindow", "&Quit"))
    w.edit_menu.setTitle(translate("MainWindow", "&Edit"))
    retranslate_history(w)
    w.focus_text_action.setText(translate("MainWindow", "Go to the &text field"))
    w.clear_intervention_action.setText(
        translate("MainWindow", "&Clear interventions (back to the plain layer)"))
    w.view_menu.setTitle(translate("MainWindow", "&View"))
    w.reset_layout_action.setText(translate("MainWindow", "&Reset layout"))
    w.presentation_action.setText(translate("MainWindow", "&Presentation mode"))
    w.zoom_in_action.setText(translate("MainWindow", "&Larger text"))
    w.zoom_out_action.setText(translate("MainWindow", "S&maller text"))
    w.zoom_reset_action.setText(translate("MainWindow", "&Normal text size"))
    w.theme_menu.setTitle(translate("MainWindow", "&Theme"))
    w.theme_actions["light"].setText(translate("MainWindow", "&Light"))
    w.theme_actions["dark"].setText(translate("MainWindow", "&Dark"))
    w.palette_menu.setTitle(translate("MainWindow", "Colour &palette"))
    w.palette_actions["classic"].setText(translate("MainWindow", "&Classic (blue–red)"))
    w.palette_actions["colorblind"].setText(translate("MainWindow", "Colour-&blind safe"))
    w.demo_menu.setTitle(translate("MainWindow", "&Demo"))
    w.play_action.setText(translate("MainWindow", "&Play / pause depth time"))
    w.prev_step_action.setText(translate("MainWindow", "P&revious step"))
    w.next_step_action.setText(translate("MainWindow", "&Next step"))
    w.first_step_action.setText(translate("MainWindow", "&First step"))
    w.last_step_action.setText(translate("MainWindow", "&Last step"))
    w.prev_head_action.setText(translate("MainWindow", "Previous &head"))
    w.next_head_action.setText(translate("MainWindow", "Next h&ead"))
    w.causal_action.setText(translate("MainWindow", "&Causal mask"))
    w.help_menu.setTitle(translate("MainWindow", "&Help"))
    w.tour_action.setText(translate("MainWindow", "&Guided tour"))
    w.tour_next_action.setText(translate("MainWindow", "Tour: next stop"))
    w.tour_back_action.setText(translate("MainWindow", "Tour: previous stop"))
    w.shortcuts_action.setText(translate("MainWindow", "&Keyboard shortcuts"))
    w.about_action.setText(translate("MainWindow", "&About Dual View"))
    w.tour_dock.setWindowTitle(translate("MainWindow", "Guided tour"))
    for spec in DOCKS:
        w.docks[spec.object_name].setWindowTitle(translate("Docks", spec.title))
    retranslate_examples(w)


def history_tip(state: object, redo: bool = False) -> str:
    """What the next undo (``redo``: redo) gives back, in words: the text before the last
    edit, or the intervention before the last change (Ctrl+Z undoes both, in order)."""
    step = state.history_step(redo)  # type: ignore[attr-defined]
    if step is None:
        return (translate("MainWindow", "Nothing to redo") if redo
                else translate("MainWindow", "Nothing to undo"))
    kind, target = step
    if kind == "text":
        text = (translate("MainWindow", "Redo the text edit: “%1”") if redo
                else translate("MainWindow", "Undo the text edit: back to “%1”"))
        return text.replace("%1", short_token(target.text, 40))
    what = intervention_text(target.intervention)
    if target.intervene_layers == "all" and what and state.model is not None:  # type: ignore
        what = f"{what}, {translate('Intervention', 'in every layer')}"
    what = what or translate("MainWindow", "the plain layer")
    text = (translate("MainWindow", "Redo the intervention change: %1") if redo
            else translate("MainWindow", "Undo the intervention change: back to %1"))
    return text.replace("%1", what)


def retranslate_history(w: MainWindow) -> None:
    """Undo and Redo undo text edits and intervention changes alike: named for both, their
    tooltip and status tip saying what the next one gives back."""
    w.undo_action.setText(translate("MainWindow", "&Undo"))
    w.redo_action.setText(translate("MainWindow", "&Redo"))
    for action, redo in ((w.undo_action, False), (w.redo_action, True)):
        tip = history_tip(w.state, redo)
        action.setToolTip(tip)
        action.setStatusTip(tip)


def shortcut_rows(w: MainWindow) -> list[tuple[str, str]]:
    """(keys, what) for the shortcuts sheet, from the actions themselves."""
    actions = [w.play_action, w.prev_step_action, w.next_step_action, w.first_step_action,
               w.last_step_action, w.prev_head_action, w.next_head_action, w.causal_action,
               w.undo_action, w.redo_action, w.focus_text_action, w.presentation_action,
               w.zoom_in_action, w.zoom_out_action, w.zoom_reset_action, w.tour_action,
               w.tour_next_action, w.tour_back_action, w.open_action, w.save_action,
               w.save_as_action, w.export_npz_action, w.shortcuts_action, w.quit_action]
    rows = [(action_keys(a), plain_text(a.text())) for a in actions]
    rows.insert(11, ("Esc", translate("MainWindow", "Leave the text field (then Space and "
                                      "arrows work); leave presentation mode")))
    rows.append((translate("MainWindow", "Click a heatmap cell"),
                 translate("MainWindow", "Copy its exact value to the clipboard")))
    return rows
