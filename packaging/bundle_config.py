"""What goes into the PyInstaller bundle; shared by the spec, build.py and the tests.

Kept free of PyInstaller imports so that tests can check it quickly.
"""

from __future__ import annotations

import fnmatch
import os
import posixpath
import re
import sys
import tomllib
from collections.abc import Callable, Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGING = ROOT / "packaging"
RESOURCES = ROOT / "resources"
APP_NAME = "dualview"  # executable, bundle folder and archive name
DISPLAY_NAME = "Dual View"  # macOS .app name
BUNDLE_ID = "org.dualview.DualView"
ENTRY_SCRIPT = PACKAGING / "launcher.py"
FONT_FILE = RESOURCES / "fonts" / "wqy-microhei.ttc"
ICON_PNG = RESOURCES / "icons" / "dualview.png"
ICON_ICO = RESOURCES / "icons" / "dualview.ico"
ICON_ICNS = RESOURCES / "icons" / "dualview.icns"

#: Modules the app never uses. Analysis would otherwise pull some in through optional imports.
#: Kept on purpose: ``pydoc`` (pyqtgraph imports it), ``unittest`` (numpy.testing needs it),
#: ``PySide6.QtOpenGL``/``QtOpenGLWidgets`` (pyqtgraph's PlotCurveItem imports them, through
#: ``pyqtgraph.Qt.OpenGLHelpers``, even when OpenGL drawing is off) and ``PySide6.QtSvg``
#: (SVG export and the SVG icon).
EXCLUDES = [
    # GUI toolkits and Qt modules Dual View does not use
    "tkinter", "_tkinter", "turtle", "turtledemo", "idlelib",
    "PyQt5", "PyQt6", "PySide2",
    "PySide6.QtTest", "PySide6.QtNetwork", "PySide6.QtQml", "PySide6.QtQuick",
    "PySide6.QtQuickWidgets", "PySide6.QtSql", "PySide6.QtPrintSupport", "PySide6.QtXml",
    "PySide6.QtConcurrent", "PySide6.QtDBus", "PySide6.QtDesigner", "PySide6.QtHelp",
    "PySide6.QtUiTools", "PySide6.QtSvgWidgets",
    # pyqtgraph parts that need packages we do not ship, and its examples
    "pyqtgraph.examples", "pyqtgraph.opengl", "pyqtgraph.jupyter", "OpenGL",
    # only pyqtgraph's RemoteGraphicsView (never used, never imported: app/pgimport.py) needs
    # processes; shipped, multiprocessing's run-time hook cost every launch ~40 ms
    "multiprocessing", "pyqtgraph.multiprocess", "pyqtgraph.widgets.RemoteGraphicsView",
    # optional companions that are never imported by the app
    "matplotlib", "scipy", "pandas", "IPython", "jupyter_rfb", "cupy", "numba", "h5py",
    "torch", "transformers", "yaml", "PIL",
    # the app never talks to the network: no TLS (drops libssl and libcrypto)
    "ssl", "_ssl", "_hashlib",
    # no interactive console (drops libreadline and libtinfo)
    "readline",
    # test code and build tooling
    "pytest", "_pytest", "pytestqt", "pytest_benchmark", "numpy.tests", "numpy.f2py",
    "numpy.distutils", "lib2to3", "test", "setuptools", "pkg_resources", "distutils", "pip",
    "PyInstaller", "ruff",
]

#: Collected files to leave out (globs on the path inside the bundle; ``*`` also matches
#: ``/``). Qt's hook collects every plugin of QtGui's plugin types; these are for machines
#: without a window system (eglfs, linuxfb, vnc, evdev input), for testing (minimal), or the
#: GTK theme (it would drag in cairo/pango/gdk-pixbuf and clash with the system's GTK), or big
#: image formats the app never writes. Kept: xcb (X11), wayland, offscreen (self-test),
#: xdg-desktop-portal theme, PNG/JPEG/GIF/SVG/ICO, svg icons, input contexts (ibus, compose).
#: Checked: the self-test passes offscreen and under Xvfb without them.
DROP_GLOBS = [
    # Qt's own UI translations, all but the Chinese one the app loads (standard dialog
    # buttons and key names in the shortcuts sheet); KEEP_GLOBS wins over these
    "PySide6/*translations/*",
    "PySide6/*plugins/platforms/*qeglfs*",
    "PySide6/*plugins/platforms/*qlinuxfb*",
    "PySide6/*plugins/platforms/*qminimal*",
    "PySide6/*plugins/platforms/*qvnc*",
    "PySide6/*plugins/platforms/*qvkkhrdisplay*",
    "PySide6/*plugins/egldeviceintegrations/*",
    "PySide6/*plugins/generic/*",
    "PySide6/*plugins/platformthemes/*qgtk3*",
    # TIFF and WebP readers/writers (0.5 MB each): the app exports PNG and SVG only
    "PySide6/*plugins/imageformats/*qtiff*",
    "PySide6/*plugins/imageformats/*qwebp*",
]

#: Never pruned although nothing links them: the bootloader loads libpython with dlopen.
PROTECTED_LIBRARIES = ("libpython",)

#: Libraries whose DWARF debug sections are removed (``strip --strip-debug``; symbol tables
#: stay). Only the interpreter library: a pyenv-built libpython carries 16 MB of debug info
#: (23 MB -> 6.5 MB; 7 MB less in the .tar.gz). Everything else, numpy above all, is copied
#: byte for byte: the spec keeps ``strip=False`` because stripping numpy breaks it.
#: ``python packaging/build.py --keep-debug-info`` skips this.
DEBUG_STRIPPED = ("libpython",)

def version() -> str:
    """The package version, from pyproject.toml (the one place it is written)."""
    with (ROOT / "pyproject.toml").open("rb") as f:
        return tomllib.load(f)["project"]["version"]


def platform_tag() -> str:
    import platform

    system = {"linux": "linux", "win32": "windows", "darwin": "macos"}.get(sys.platform,
                                                                          sys.platform)
    machine = platform.machine().lower() or "unknown"
    machine = {"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine)
    return f"{system}-{machine}"


def archive_name(tag: str | None = None) -> str:
    return f"{APP_NAME}-{version()}-{tag or platform_tag()}.tar.gz"


def icon_for_platform(platform: str = sys.platform) -> str | None:
    """The icon file PyInstaller embeds: .ico on Windows, .icns on macOS (None on Linux,
    where the executable carries no icon; the window icon and .desktop file use the PNG)."""
    path = {"win32": ICON_ICO, "darwin": ICON_ICNS}.get(platform)
    return str(path) if path is not None and path.exists() else None


def resource_datas() -> list[tuple[str, str]]:
    """``(source, destination folder)`` pairs for everything under resources/, minus caches.

    Laid out as ``resources/...`` inside the bundle, where ``app.resources`` looks when
    frozen (``sys._MEIPASS / "resources"``).
    """
    pairs = []
    for path in sorted(RESOURCES.rglob("*")):
        if path.is_dir() or "__pycache__" in path.parts or path.suffix in (".pyc", ".py"):
            continue
        dest = Path("resources") / path.parent.relative_to(RESOURCES)
        pairs.append((str(path), dest.as_posix()))
    return pairs


#: Our own packages: every module goes in, because docks are created from dotted names
#: (``app.docks`` imports panels with importlib), which Analysis cannot follow.
OWN_PACKAGES = ("app", "engine")


#: Imported where PyInstaller's analysis cannot see it: numpy.random's compiled bit generator
#: imports ``secrets`` (it used to arrive through multiprocessing, now excluded). Hugging
#: Face's ``tokenizers`` (a real model's tokenizer.json, engine/model_tokens.py) is imported
#: only when a model is opened, and its compiled core imports its Python submodules itself;
#: no data files, no network.
EXTRA_HIDDEN_IMPORTS = ["secrets", "tokenizers", "tokenizers.decoders", "tokenizers.models",
                        "tokenizers.normalizers", "tokenizers.pre_tokenizers",
                        "tokenizers.processors", "tokenizers.trainers"]


def hidden_imports() -> list[str]:
    """Every module of :data:`OWN_PACKAGES`, found on disk (nothing is imported), and
    :data:`EXTRA_HIDDEN_IMPORTS`."""
    names = list(EXTRA_HIDDEN_IMPORTS)
    for package in OWN_PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            names.append(".".join(parts))
    return names


#: Exceptions to DROP_GLOBS.
KEEP_GLOBS = ["PySide6/*translations/qtbase_zh_CN.qm"]


def dropped(dest_name: str) -> bool:
    name = dest_name.replace("\\", "/")
    if any(fnmatch.fnmatch(name, pattern) for pattern in KEEP_GLOBS):
        return False
    return any(fnmatch.fnmatch(name, pattern) for pattern in DROP_GLOBS)


_SHARED_LIB = re.compile(r"^lib.*\.so(\.[0-9]+)*$")


def prune_unlinked_libraries(
    toc: Iterable[tuple[str, str, str]], needed: Callable[[str], Iterable[str]],
) -> tuple[list[tuple[str, str, str]], list[str]]:
    """Drop shared libraries that nothing kept in the bundle links against (Linux).

    ``toc`` is PyInstaller's binaries list of ``(dest, src, typecode)``; ``needed(src)`` gives
    the library names a binary links (its ELF ``DT_NEEDED`` entries). PyInstaller collects the
    dependencies of every plugin before :data:`DROP_GLOBS` removes plugins, so e.g. Qt's
    network library (for the vnc and tuio plugins) or GTK's cairo and pango would stay behind
    unused. Extension modules, plugins and libpython are roots; a library is kept while some
    kept binary needs it. Returns the kept entries and the destinations dropped.
    """
    entries = list(toc)

    def prunable(entry: tuple[str, str, str]) -> bool:
        dest, _src, typecode = entry
        name = posixpath.basename(dest.replace("\\", "/"))
        return (typecode in ("BINARY", "SYMLINK") and "/plugins/" not in dest.replace("\\", "/")
                and _SHARED_LIB.match(name) is not None
                and not name.startswith(PROTECTED_LIBRARIES))

    by_name: dict[str, list[int]] = {}
    by_dest: dict[str, int] = {}
    for i, (dest, _src, _typecode) in enumerate(entries):
        by_name.setdefault(posixpath.basename(dest), []).append(i)
        by_dest[posixpath.normpath(dest)] = i
    kept = {i for i, entry in enumerate(entries) if not prunable(entry)}
    queue = list(kept)
    seen_names: set[str] = set()
    while queue:
        dest, src, typecode = entries[queue.pop()]
        if typecode == "SYMLINK":  # keep what the link points at
            target = posixpath.normpath(posixpath.join(posixpath.dirname(dest), src))
            linked = [by_dest[target]] if target in by_dest else []
        elif os.path.isfile(src):
            linked = []
            for name in needed(src):
                if name not in seen_names:
                    seen_names.add(name)
                    linked.extend(by_name.get(posixpath.basename(name), []))
        else:
            linked = []
        for j in linked:
            if j not in kept:
                kept.add(j)
                queue.append(j)
    dropped_dests = [entries[i][0] for i in range(len(entries)) if i not in kept]
    return [entries[i] for i in sorted(kept)], dropped_dests


def drop_dangling_symlinks(
    binaries: list[tuple[str, str, str]], datas: list[tuple[str, str, str]],
    removed: Iterable[str],
) -> tuple[list[tuple[str, str, str]], list[tuple[str, str, str]], list[str]]:
    """Remove the ``SYMLINK`` entries that point at a file in ``removed``.

    PyInstaller puts a top-level link beside each Qt library (e.g. ``libQt6Network.so.6 ->
    PySide6/Qt/lib/libQt6Network.so.6``), in ``datas``; without its target it would dangle.
    Only links to files this spec removed go: other links (macOS framework ``Versions/Current``
    and the like) point at folders and stay untouched.
    """
    gone_files = {posixpath.normpath(d.replace("\\", "/")) for d in removed}

    def dangling(entry: tuple[str, str, str]) -> bool:
        dest, src, typecode = entry
        if typecode != "SYMLINK":
            return False
        dest = dest.replace("\\", "/")
        target = posixpath.normpath(posixpath.join(posixpath.dirname(dest), src))
        return target in gone_files

    gone = [e[0] for e in [*binaries, *datas] if dangling(e)]
    return ([e for e in binaries if not dangling(e)], [e for e in datas if not dangling(e)],
            gone)


def strip_debug_info(
    binaries: list[tuple[str, str, str]], out_dir: Path,
) -> tuple[list[tuple[str, str, str]], list[str]]:
    """Point the :data:`DEBUG_STRIPPED` entries at copies without debug sections (Linux).

    Returns the new list and one line per library saying what happened.
    """
    import shutil
    import subprocess

    strip = shutil.which("strip")
    out, notes = [], []
    for dest, src, typecode in binaries:
        name = posixpath.basename(dest)
        if typecode == "BINARY" and name.startswith(DEBUG_STRIPPED) and os.path.isfile(src):
            if strip is None:
                notes.append(f"{name}: kept as is (no `strip` on this machine)")
            else:
                out_dir.mkdir(parents=True, exist_ok=True)
                target = out_dir / name
                subprocess.run([strip, "--strip-debug", "-o", str(target), src], check=True)
                notes.append(f"{name}: debug info removed, {os.path.getsize(src)} -> "
                             f"{target.stat().st_size} bytes")
                src = str(target)
        out.append((dest, src, typecode))
    return out, notes
