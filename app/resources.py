"""Find bundled resources the same way from source, an installed wheel and a PyInstaller bundle."""

from __future__ import annotations

import sys
from pathlib import Path


def resource_root() -> Path:
    """The ``resources`` folder: inside PyInstaller's bundle directory when frozen."""
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle is not None:
        return Path(bundle) / "resources"
    import resources  # the package beside app/ and engine/

    return Path(resources.__file__).resolve().parent


def resource_path(*parts: str) -> Path:
    """An absolute path under ``resources/``; never relative to the current directory."""
    return resource_root().joinpath(*parts)
