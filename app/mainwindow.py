"""The main window: token editor on top, every panel a named dock, layout persisted."""

from __future__ import annotations

import os
from itertools import pairwise
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QSettings, QStandardPaths, Qt
from PySide6.QtGui import QAction, QCloseEvent, QGuiApplication, QKeySequence
from PySide6.QtWidgets import QDockWidget, QLabel, QMainWindow, QMenu

from app import __version__
from app.bridge import EngineBridge
from app.docks import DEFAULT_COLUMN_WIDTHS, DEFAULT_COLUMNS, DOCKS, LAYOUT_VERSION
from app.panels.base import Panel
from app.state import AppState
from app.widgets.token_editor import DEFAULT_TEXT, TokenEditor


def settings_dir() -> Path:
    """Where layout and settings live; ``DUALVIEW_CONFIG_DIR`` overrides (tests use a tmp dir)."""
    override = os.environ.get("DUALVIEW_CONFIG_DIR")
    if override:
        return Path(override)
    location = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppConfigLocation)
    return Path(location or Path.home() / ".config" / "dualview")


def open_settings() -> QSettings:
    return QSettings(str(settings_dir() / "dualview.ini"), QSettings.Format.IniFormat)


class MainWindow(QMainWindow):
    def __init__(self, *, bridge: EngineBridge | None = None, persist_layout: bool = True,
                 initial_text: str | None = DEFAULT_TEXT) -> None:
        super().__init__()
        self.persist_layout = persist_layout
        self.setObjectName("mainWindow")
        self.bridge = bridge or EngineBridge(self)
        self.state = AppState(self.bridge, self)
        self.editor = TokenEditor()
        self.editor.setObjectName("tokenEditor")
        self.editor.setMaximumHeight(150)
        self.setCentralWidget(self.editor)
        self.setDockNestingEnabled(True)
        self.setDockOptions(QMainWindow.DockOption.AnimatedDocks
                            | QMainWindow.DockOption.AllowNestedDocks
                            | QMainWindow.DockOption.AllowTabbedDocks)

        self.docks: dict[str, QDockWidget] = {}
        self.panels: dict[str, Panel] = {}
        for spec in DOCKS:
            panel = spec.create(self.state)
            dock = QDockWidget(self)
            dock.setObjectName(spec.object_name)
            dock.setWidget(panel)
            dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetClosable
                             | QDockWidget.DockWidgetFeature.DockWidgetMovable
                             | QDockWidget.DockWidgetFeature.DockWidgetFloatable)
            self.docks[spec.object_name] = dock
            self.panels[spec.object_name] = panel

        self._build_menus()
        self._status_tokens = QLabel()
        self._status_time = QLabel()
        self._status_error = QLabel()
        self._status_error.setObjectName("statusError")
        self._status_error.setStyleSheet("color: #b00020;")
        self.statusBar().addWidget(self._status_error, 1)
        self.statusBar().addPermanentWidget(self._status_tokens)
        self.statusBar().addPermanentWidget(self._status_time)

        self.editor.text_edited.connect(self.state.set_text)
        self.state.result_changed.connect(self._on_result_changed)
        self.state.error_changed.connect(self._on_error_changed)

        self.resize(1600, 1000)
        self.apply_default_layout()
        self.retranslate()
        if persist_layout:
            self.restore_layout()
        if initial_text is not None:
            self.editor.set_text(initial_text)

    # ----- menus -----
    def _build_menus(self) -> None:
        self.file_menu = QMenu(self)
        self.quit_action = QAction(self)
        self.quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        self.quit_action.triggered.connect(self.close)
        self.file_menu.addAction(self.quit_action)
        self.menuBar().addMenu(self.file_menu)

        self.view_menu = QMenu(self)
        self.view_menu.setObjectName("viewMenu")
        for dock in self.docks.values():
            self.view_menu.addAction(dock.toggleViewAction())
        self.view_menu.addSeparator()
        self.reset_layout_action = QAction(self)
        self.reset_layout_action.setObjectName("resetLayoutAction")
        self.reset_layout_action.triggered.connect(self.reset_layout)
        self.view_menu.addAction(self.reset_layout_action)
        self.causal_action = QAction(self)
        self.causal_action.setObjectName("causalAction")
        self.causal_action.setCheckable(True)
        self.causal_action.setChecked(True)
        self.causal_action.setShortcut(QKeySequence("M"))
        self.causal_action.toggled.connect(self.state.set_causal)
        self.view_menu.addAction(self.causal_action)
        self.menuBar().addMenu(self.view_menu)

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("Dual View — one Qwen3 layer, two views") + f"  {__version__}")
        self.file_menu.setTitle(self.tr("&File"))
        self.quit_action.setText(self.tr("&Quit"))
        self.view_menu.setTitle(self.tr("&View"))
        self.reset_layout_action.setText(self.tr("&Reset layout"))
        self.causal_action.setText(self.tr("&Causal mask"))
        for spec in DOCKS:
            self.docks[spec.object_name].setWindowTitle(
                QCoreApplication.translate("Docks", spec.title))
        self._on_result_changed(self.state.result)

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

    def reset_layout(self) -> None:
        self.apply_default_layout()

    def save_layout(self) -> None:
        settings = open_settings()
        settings.setValue("window/geometry", self.saveGeometry())
        settings.setValue("window/state", self.saveState(LAYOUT_VERSION))
        settings.setValue("window/version", LAYOUT_VERSION)
        settings.sync()

    def restore_layout(self) -> bool:
        """Restore the saved layout; an old version or an off-screen window is ignored."""
        settings = open_settings()
        if settings.value("window/version", type=int) != LAYOUT_VERSION:
            return False
        geometry = settings.value("window/geometry")
        state = settings.value("window/state")
        if geometry is not None:
            self.restoreGeometry(geometry)
            if not any(s.availableGeometry().intersects(self.frameGeometry())
                       for s in QGuiApplication.screens()):
                self.resize(1600, 1000)  # saved on a screen that is gone
                self.move(0, 0)
        return bool(state is not None and self.restoreState(state, LAYOUT_VERSION))

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

    def _on_error_changed(self, message: str) -> None:
        self._status_error.setText(message and self.tr("Not computed: %1").replace("%1", message))

    # ----- lifetime -----
    def all_panels_current(self) -> bool:
        """Every visible panel shows the current result (the self-test waits for this)."""
        return all(p.is_current for p in self.panels.values() if p.isVisible())

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.persist_layout:
            self.save_layout()
        self.bridge.shutdown()
        super().closeEvent(event)
