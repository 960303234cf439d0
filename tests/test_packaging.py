"""The PyInstaller bundle: what the spec puts in, resource lookup, the bundled font, and the real
bundle built and started offline.

The fast tests check the spec, build script and resources against each other. The last test
builds ``dist/dualview/`` from this checkout with ``python packaging/build.py`` (once per run,
1-3 minutes) and runs ``dualview --selftest --screenshot FILE`` from it offscreen, with no
network (``unshare -n``), no fonts (an empty fontconfig), a bare environment and a foreign
working directory: the way a classroom machine would start it.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "packaging"))
import bundle_config as cfg  # noqa: E402

SPEC = (ROOT / "packaging" / "dualview.spec").read_text(encoding="utf-8")
BUILD_TIMEOUT_S = 1200
RUN_TIMEOUT_S = 180


# ----- spec, build script and resources agree -----

def test_version_comes_from_the_package():
    from app import __version__

    assert cfg.version() == __version__
    assert cfg.archive_name("linux-x86_64") == f"dualview-{__version__}-linux-x86_64.tar.gz"


def test_spec_is_onedir_windowed_unstripped_and_reads_bundle_config():
    assert "import bundle_config as cfg" in SPEC
    assert "datas=cfg.resource_datas()" in SPEC
    assert "excludes=cfg.EXCLUDES" in SPEC
    assert "hiddenimports=cfg.hidden_imports()" in SPEC
    assert "exclude_binaries=True" in SPEC  # onedir
    assert "console=False" in SPEC  # windowed
    assert "strip=True" not in SPEC  # numpy breaks if stripped
    assert len(re.findall(r"^\s+strip=False,$", SPEC, re.MULTILINE)) == 2  # EXE and COLLECT
    assert "upx=True" not in SPEC
    assert "name=cfg.APP_NAME" in SPEC and cfg.APP_NAME == "dualview"
    assert 'if sys.platform == "darwin":' in SPEC and "BUNDLE(" in SPEC
    assert "icon=ICON" in SPEC
    compile(SPEC, "dualview.spec", "exec")  # at least valid Python


def test_kept_modules_are_not_excluded():
    for needed in ("pydoc", "unittest", "PySide6.QtOpenGL", "PySide6.QtOpenGLWidgets",
                   "PySide6.QtSvg", "PySide6.QtCore", "PySide6.QtGui", "PySide6.QtWidgets",
                   "numpy", "pyqtgraph", "app", "engine"):
        assert needed not in cfg.EXCLUDES, f"{needed} is needed at run time"


def test_datas_carry_font_licence_icons_and_desktop_file():
    datas = {Path(src).relative_to(cfg.RESOURCES).as_posix(): dest
             for src, dest in cfg.resource_datas()}
    assert datas["fonts/wqy-microhei.ttc"] == "resources/fonts"
    assert "fonts/LICENSE-Apache-2.0.txt" in datas
    assert "fonts/wqy-microhei-COPYRIGHT.txt" in datas
    assert datas["fonts/DejaVuSans.ttf"] == "resources/fonts"
    assert "fonts/DejaVuSans-COPYRIGHT.txt" in datas
    assert datas["fonts/Symbola_hint.ttf"] == "resources/fonts"
    assert "fonts/Symbola-COPYRIGHT.txt" in datas
    assert datas["icons/dualview.png"] == "resources/icons"
    assert "icons/dualview.svg" in datas and "dualview.desktop" in datas
    assert not any(name.endswith((".py", ".pyc")) for name in datas)
    for src, dest in cfg.resource_datas():  # each file lands where resource_path looks
        rel = Path(src).relative_to(cfg.RESOURCES)
        assert Path(dest) / rel.name == Path("resources") / rel


def test_font_and_icons_are_real_files():
    assert cfg.FONT_FILE.read_bytes()[:4] == b"ttcf"  # a TrueType collection
    assert 4_000_000 < cfg.FONT_FILE.stat().st_size < 6_000_000
    assert "Apache" in (cfg.RESOURCES / "fonts" / "wqy-microhei-COPYRIGHT.txt").read_text()
    assert (cfg.RESOURCES / "fonts" / "DejaVuSans.ttf").read_bytes()[:4] == b"\x00\x01\x00\x00"
    assert "Bitstream" in (cfg.RESOURCES / "fonts" / "DejaVuSans-COPYRIGHT.txt").read_text()
    assert (cfg.RESOURCES / "fonts" / "Symbola_hint.ttf").read_bytes()[:4] == b"\x00\x01\x00\x00"
    assert "free for any use" in (cfg.RESOURCES / "fonts" / "Symbola-COPYRIGHT.txt").read_text()
    assert cfg.ICON_PNG.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert cfg.ICON_ICO.read_bytes()[:4] == b"\x00\x00\x01\x00"
    assert cfg.ICON_ICNS.read_bytes()[:4] == b"icns"
    assert cfg.icon_for_platform("win32") == str(cfg.ICON_ICO)
    assert cfg.icon_for_platform("darwin") == str(cfg.ICON_ICNS)
    assert cfg.icon_for_platform("linux") is None


def test_desktop_file():
    text = (cfg.RESOURCES / "dualview.desktop").read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[0] == "[Desktop Entry]"
    entries = dict(line.split("=", 1) for line in lines[1:] if "=" in line)
    assert entries["Type"] == "Application" and entries["Name"] == "Dual View"
    assert entries["Exec"].split()[0] == "dualview" and entries["Icon"] == "dualview"
    assert entries["Terminal"] == "false" and entries["Categories"].endswith(";")


def test_every_dock_module_is_a_hidden_import():
    from app.docks import DOCKS

    hidden = set(cfg.hidden_imports())
    for spec in DOCKS:
        assert spec.factory.partition(":")[0] in hidden
    assert {"app.__main__", "app.fonts", "app.resources", "engine"} <= hidden


def test_dropped_qt_parts():
    for dest in ("PySide6/Qt/plugins/platforms/libqvnc.so",
                 "PySide6/Qt/plugins/platforms/libqeglfs.so",
                 "PySide6/Qt/plugins/generic/libqevdevmouseplugin.so",
                 "PySide6/Qt/plugins/platformthemes/libqgtk3.so",
                 "PySide6/Qt/translations/qtbase_de.qm",
                 "PySide6\\plugins\\platforms\\qvnc.dll"):
        assert cfg.dropped(dest), dest
    for dest in ("PySide6/Qt/plugins/platforms/libqxcb.so",
                 "PySide6/Qt/plugins/platforms/libqwayland.so",
                 "PySide6/Qt/plugins/platforms/libqoffscreen.so",
                 "PySide6/Qt/plugins/platformthemes/libqxdgdesktopportal.so",
                 "PySide6/Qt/plugins/imageformats/libqsvg.so",
                 "PySide6/Qt/lib/libQt6Gui.so.6", "resources/fonts/wqy-microhei.ttc"):
        assert not cfg.dropped(dest), dest


def test_prune_keeps_what_is_linked_and_drops_orphans(tmp_path):
    def f(name):
        path = tmp_path / name.replace("/", "_")
        path.write_bytes(b"x")
        return str(path)

    toc = [
        ("numpy/_core/_multiarray_umath.so", f("umath"), "EXTENSION"),
        ("numpy.libs/libopenblas.so", f("openblas"), "BINARY"),
        ("PySide6/Qt/plugins/platforms/libqxcb.so", f("qxcb"), "BINARY"),
        ("PySide6/Qt/lib/libQt6XcbQpa.so.6", f("xcbqpa"), "BINARY"),
        ("libQt6XcbQpa.so.6", "PySide6/Qt/lib/libQt6XcbQpa.so.6", "SYMLINK"),
        ("PySide6/Qt/lib/libQt6Network.so.6", f("network"), "BINARY"),  # only vnc needed it
        ("libQt6Network.so.6", "PySide6/Qt/lib/libQt6Network.so.6", "SYMLINK"),
        ("libkrb5.so.3", f("krb5"), "BINARY"),  # only Network needed it
        ("libxcb-cursor.so.0", f("xcbcursor"), "BINARY"),
        ("libpython3.11.so.1.0", f("python"), "BINARY"),  # dlopened by the bootloader
    ]
    links = {"umath": ["libopenblas.so"], "qxcb": ["libQt6XcbQpa.so.6"],
             "xcbqpa": ["libxcb-cursor.so.0", "libc.so.6"], "network": ["libkrb5.so.3"]}
    kept, dropped = cfg.prune_unlinked_libraries(
        toc, lambda src: links.get(Path(src).name, []))
    assert sorted(dropped) == ["PySide6/Qt/lib/libQt6Network.so.6", "libQt6Network.so.6",
                               "libkrb5.so.3"]
    assert len(kept) == len(toc) - 3


def test_links_to_removed_files_are_dropped():
    binaries = [("PySide6/Qt/lib/libQt6Core.so.6", "/x/libQt6Core.so.6", "BINARY")]
    datas = [("libQt6Core.so.6", "PySide6/Qt/lib/libQt6Core.so.6", "SYMLINK"),
             ("libQt6Network.so.6", "PySide6/Qt/lib/libQt6Network.so.6", "SYMLINK"),
             ("resources/fonts/wqy-microhei.ttc", "/x/wqy-microhei.ttc", "DATA"),
             # a macOS framework link to a folder: not a removed file, so it stays
             ("PySide6/Qt/lib/QtCore.framework/Versions/Current", "A", "SYMLINK")]
    kept_binaries, kept_datas, gone = cfg.drop_dangling_symlinks(
        binaries, datas, removed=["PySide6/Qt/lib/libQt6Network.so.6"])
    assert kept_binaries == binaries
    assert kept_datas == [datas[0], datas[2], datas[3]] and gone == ["libQt6Network.so.6"]


def test_only_libpython_loses_debug_info(tmp_path):
    numpy_entry = ("numpy/_core/_multiarray_umath.so", str(tmp_path / "umath.so"), "EXTENSION")
    blas = ("numpy.libs/libscipy_openblas64_.so", str(tmp_path / "blas.so"), "BINARY")
    for _dest, src, _t in (numpy_entry, blas):
        Path(src).write_bytes(b"\x7fELF not really")
    out, notes = cfg.strip_debug_info([numpy_entry, blas], tmp_path / "stripped")
    assert out == [numpy_entry, blas] and notes == []
    assert cfg.DEBUG_STRIPPED == ("libpython",)


# ----- resource lookup: one function, source and bundle alike -----

def test_resource_path_from_source_is_absolute_and_finds_the_font(monkeypatch):
    from app.resources import resource_path, resource_root

    monkeypatch.delattr(sys, "_MEIPASS", raising=False)
    monkeypatch.chdir(ROOT / "tests")  # never relative to the working directory
    assert resource_root().is_absolute()
    assert resource_path("fonts", "wqy-microhei.ttc").is_file()
    assert resource_path("icons", "dualview.png").is_file()


def test_resource_path_inside_a_pyinstaller_bundle(monkeypatch, tmp_path):
    from app.resources import resource_path, resource_root

    bundle = tmp_path / "dualview" / "_internal"
    (bundle / "resources" / "fonts").mkdir(parents=True)
    (bundle / "resources" / "fonts" / "wqy-microhei.ttc").write_bytes(b"ttcf")
    monkeypatch.setattr(sys, "_MEIPASS", str(bundle), raising=False)
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert resource_root() == bundle / "resources"
    assert resource_path("fonts", "wqy-microhei.ttc").read_bytes() == b"ttcf"


# ----- the bundled font renders Chinese on a machine without fonts -----

FONT_CHILD = textwrap.dedent("""
    import os, sys
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    sys.path.insert(0, sys.argv[1])
    from PySide6.QtGui import QFontMetrics
    from PySide6.QtWidgets import QApplication
    app = QApplication([])
    before = QFontMetrics(app.font()).inFontUcs4(ord("我"))
    from app.fonts import CJK_FAMILY, install_app_font
    font = install_app_font(app)
    metrics = QFontMetrics(app.font())
    symbols = all(metrics.inFontUcs4(c) for c in (0x302, 0x1D40, 0x221A, 0x2299, 0x230A))
    emoji = all(metrics.inFontUcs4(c) for c in (0x1F680, 0x1F44D, 0x1F914, 0x2764))
    print(before, metrics.inFontUcs4(ord("我")), metrics.inFontUcs4(ord("A")), symbols,
          CJK_FAMILY in font.families(), emoji)
""")


@pytest.mark.parametrize("system_fonts", ["none", "latin only"])
def test_bundled_font_draws_chinese_without_system_cjk_fonts(tmp_path, system_fonts):
    dirs = ""
    if system_fonts == "latin only":
        dejavu = Path("/usr/share/fonts/truetype/dejavu")
        if not dejavu.is_dir():
            pytest.skip("no DejaVu fonts to stand for a Latin-only system")
        dirs = f"<dir>{dejavu}</dir>"
    conf = tmp_path / "fonts.conf"
    conf.write_text(f'<?xml version="1.0"?><fontconfig>{dirs}'
                    f"<cachedir>{tmp_path / 'cache'}</cachedir></fontconfig>")
    env = {**os.environ, "FONTCONFIG_FILE": str(conf)}
    proc = subprocess.run([sys.executable, "-c", FONT_CHILD, str(ROOT)], env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    before, han, latin, symbols, in_chain, emoji = proc.stdout.split()
    assert before == "False", "control: this fontconfig should have no CJK font"
    assert (han, latin, symbols, in_chain, emoji) == ("True",) * 5


# ----- the real bundle, built from this checkout and started offline -----

def _require_pyinstaller() -> None:
    try:
        import PyInstaller  # noqa: F401
    except ImportError:
        message = "PyInstaller is not installed: pip install '.[package]' (.ci/run does)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Build the bundle once for this module: ``python packaging/build.py`` into a tmp dir."""
    _require_pyinstaller()
    out = tmp_path_factory.mktemp("bundle")
    cmd = [sys.executable, str(ROOT / "packaging" / "build.py"),
           "--dist", str(out / "dist"), "--work", str(out / "work")]
    try:
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                              timeout=BUILD_TIMEOUT_S)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"packaging/build.py took over {BUILD_TIMEOUT_S} s:\n{exc.stdout}")
    if proc.returncode != 0:
        pytest.fail(f"packaging/build.py failed ({proc.returncode}):\n"
                    f"{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}")
    figures = json.loads(proc.stdout.strip().splitlines()[-1])
    print(f"bundle built: {figures}")
    return figures


def _no_network_prefix() -> list[str]:
    for prefix in (["unshare", "-n"], ["unshare", "-rn"]):
        if shutil.which(prefix[0]) and subprocess.run(
                [*prefix, "true"], capture_output=True, timeout=30).returncode == 0:
            return prefix
    pytest.fail("cannot cut the network: `unshare -n` (root) and `unshare -rn` both failed")


# one worker builds the bundle once (pytest -n 2: --dist loadgroup in pyproject)
@pytest.mark.xdist_group("bundle")
def test_bundle_contents(built):
    bundle = Path(built["bundle"])
    internal = bundle / "_internal"
    exe = bundle / "dualview"
    assert exe.is_file() and os.access(exe, os.X_OK)
    assert (internal / "resources" / "fonts" / "wqy-microhei.ttc").is_file()
    assert (internal / "resources" / "fonts" / "LICENSE-Apache-2.0.txt").is_file()
    assert (internal / "resources" / "fonts" / "DejaVuSans.ttf").is_file()
    assert (internal / "resources" / "icons" / "dualview.png").is_file()
    assert (internal / "resources" / "dualview.desktop").is_file()
    names = {p.name for p in internal.rglob("*")}
    for absent in ("tkinter", "_tkinter", "pytest", "_pytest", "pytestqt", "tests",
                   "libqvnc.so", "libqgtk3.so", "libQt6Network.so.6", "libssl.so.3"):
        assert absent not in names, f"{absent} should not be in the bundle"
    for present in ("libqxcb.so", "libqoffscreen.so", "libqwayland.so",
                    "libQt6OpenGL.so.6", "libQt6Svg.so.6"):
        assert present in names, f"{present} is missing from the bundle"
    # libraries Qt's xcb platform links that a plain desktop may lack are carried along
    # (libwayland-* come from the host on purpose: PyInstaller never bundles them)
    for lib in ("libxcb-cursor.so.0", "libxcb-icccm.so.4", "libxkbcommon-x11.so.0"):
        assert lib in names, f"{lib} missing: install it on the build machine (.ci/run does)"

    # numpy is copied byte for byte (stripping breaks it); only libpython lost debug info
    import numpy

    numpy_dir = Path(numpy.__file__).parent
    for installed in [*numpy_dir.glob("_core/_multiarray_umath*.so"),
                      *(numpy_dir.parent / "numpy.libs").glob("*.so*")]:
        bundled = internal / installed.relative_to(numpy_dir.parent)
        assert bundled.read_bytes() == installed.read_bytes(), f"{bundled} was modified"
    assert any(internal.glob("libpython3*.so*"))

    archive = Path(built["archive"])
    assert archive.name == cfg.archive_name()
    with tarfile.open(archive) as tar:
        member = tar.getmember("dualview/dualview")
        assert member.isfile() and member.mode & 0o111
        assert tar.getmember("dualview/_internal/resources/fonts/wqy-microhei.ttc").size > 4e6


# one worker builds the bundle once (pytest -n 2: --dist loadgroup in pyproject)
@pytest.mark.xdist_group("bundle")
def test_bundle_selftest_offline_without_fonts_writes_the_window(built, tmp_path, qapp):
    from PySide6.QtGui import QImage

    exe = Path(built["bundle"]) / "dualview"
    shot = tmp_path / "window.png"
    conf = tmp_path / "fonts.conf"  # a machine with no fonts at all
    conf.write_text(f'<?xml version="1.0"?><fontconfig>'
                    f"<cachedir>{tmp_path / 'fc'}</cachedir></fontconfig>")
    home = tmp_path / "home"
    home.mkdir()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "QT_QPA_PLATFORM": "offscreen",
           "FONTCONFIG_FILE": str(conf), "DUALVIEW_CONFIG_DIR": str(tmp_path / "config"),
           "LANG": "C.UTF-8"}
    cmd = [*_no_network_prefix(), str(exe), "--selftest", "--screenshot", str(shot)]
    try:
        proc = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"the bundled self-test hung for {RUN_TIMEOUT_S} s:\n{exc.stdout}")
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"bundled self-test exited {proc.returncode}:\n{output[-4000:]}"
    assert "selftest: ok" in proc.stdout, output[-4000:]

    image = QImage(str(shot))
    assert not image.isNull(), f"no readable PNG at {shot}:\n{output[-2000:]}"
    # the whole window: the size the self-test reported, and window-sized
    assert f"wrote {shot} ({image.width()}x{image.height()})" in proc.stdout
    assert image.width() >= 1000 and image.height() >= 600
    # not blank: many colours, and far from one flat fill
    colours, background, samples = set(), image.pixel(image.width() // 2, 2), 0
    off_background = 0
    for y in range(0, image.height(), 7):
        for x in range(0, image.width(), 7):
            rgb = image.pixel(x, y)
            colours.add(rgb)
            off_background += rgb != background
            samples += 1
    assert len(colours) > 200, f"only {len(colours)} colours: blank or broken screenshot"
    assert off_background / samples > 0.05


def test_bundle_opens_a_real_model_offline(built, tmp_path):
    """The bundle has what ``tokenizers`` needs: a tiny Qwen3 folder opens and computes."""
    exe = Path(built["bundle"]) / "dualview"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "QT_QPA_PLATFORM": "offscreen",
           "DUALVIEW_CONFIG_DIR": str(tmp_path / "config"), "LANG": "C.UTF-8"}
    folder = ROOT / "tests" / "data" / "model_f32_untied"
    cmd = [*_no_network_prefix(), str(exe), "--selftest", "--model", str(folder),
           "--layer", "1"]
    proc = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=RUN_TIMEOUT_S)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-4000:]
    assert f"model layer 1 of {folder}" in proc.stdout, output[-4000:]
    assert "selftest: ok" in proc.stdout, output[-4000:]


def test_the_chinese_qt_translation_is_kept_and_the_rest_dropped():
    """Standard dialog buttons and key names follow the app into Chinese in the bundle."""
    assert not cfg.dropped("PySide6/Qt/translations/qtbase_zh_CN.qm")
    assert cfg.dropped("PySide6/Qt/translations/qtbase_de.qm")
    assert cfg.dropped("PySide6/Qt/translations/qtdeclarative_zh_CN.qm")
