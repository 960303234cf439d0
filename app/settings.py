"""Where the layout, settings and autosave live."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QSettings, QStandardPaths


def settings_dir() -> Path:
    """Where layout and settings live; ``DUALVIEW_CONFIG_DIR`` overrides (tests use a tmp dir)."""
    override = os.environ.get("DUALVIEW_CONFIG_DIR")
    if override:
        return Path(override)
    location = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppConfigLocation)
    return Path(location or Path.home() / ".config" / "dualview")


def open_settings() -> QSettings:
    return QSettings(str(settings_dir() / "dualview.ini"), QSettings.Format.IniFormat)
