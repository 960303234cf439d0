"""Build the Dual View bundle: ``python packaging/build.py``.

Runs PyInstaller with ``packaging/dualview.spec`` and writes

- ``dist/dualview/``  the one-folder bundle (run ``dist/dualview/dualview``), and
- ``dist/dualview-<version>-<os>-<arch>.tar.gz``  that folder, ready to copy to a classroom.

Prints the bundle size on disk, the archive size and the build time; the last line is one JSON
object with the same figures (``benchmarks/launch_bench.py`` and the tests read it).
Needs PyInstaller: ``pip install '.[package]'``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bundle_config as cfg


def tree_size(folder: Path) -> int:
    """Bytes on disk of the files under ``folder`` (symlinks counted once, as links)."""
    total = 0
    for dirpath, _dirnames, filenames in os.walk(folder):
        for name in filenames:
            total += os.lstat(os.path.join(dirpath, name)).st_size
    return total


def make_archive(bundle: Path, archive: Path) -> None:
    """``bundle`` as a gzip tarball whose single top folder is the bundle's name."""

    def normalise(info: tarfile.TarInfo) -> tarfile.TarInfo:
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        return info

    tmp = archive.with_name(archive.name + ".part")
    with tarfile.open(tmp, "w:gz", compresslevel=6) as tar:
        tar.add(bundle, arcname=bundle.name, filter=normalise)
    tmp.replace(archive)


def mib(n: int) -> str:
    return f"{n / 2**20:.1f} MiB"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dist", type=Path, default=cfg.ROOT / "dist",
                        help="output folder (default: dist/ in the repository)")
    parser.add_argument("--work", type=Path, default=cfg.ROOT / "build" / "pyinstaller",
                        help="PyInstaller's work folder (default: build/pyinstaller)")
    parser.add_argument("--no-archive", action="store_true", help="skip the .tar.gz")
    parser.add_argument("--keep-debug-info", action="store_true",
                        help="keep libpython's debug sections (16 MB; see bundle_config)")
    args = parser.parse_args(argv)

    try:
        import PyInstaller  # noqa: F401
    except ImportError:
        print("build: PyInstaller is not installed; run  pip install '.[package]'",
              file=sys.stderr)
        return 2

    dist, work = args.dist.resolve(), args.work.resolve()
    bundle = dist / cfg.APP_NAME
    print(f"build: Dual View {cfg.version()} -> {bundle}", flush=True)
    start = time.perf_counter()
    cmd = [sys.executable, "-m", "PyInstaller", "--noconfirm", "--clean", "--log-level", "WARN",
           "--distpath", str(dist), "--workpath", str(work), str(cfg.PACKAGING / "dualview.spec")]
    env = dict(os.environ)
    if args.keep_debug_info:
        env["DUALVIEW_KEEP_DEBUG_INFO"] = "1"
    proc = subprocess.run(cmd, cwd=cfg.ROOT, env=env, check=False)
    if proc.returncode != 0:
        print(f"build: PyInstaller failed (exit {proc.returncode})", file=sys.stderr)
        return proc.returncode
    pyinstaller_s = time.perf_counter() - start
    exe = bundle / (cfg.APP_NAME + (".exe" if sys.platform == "win32" else ""))
    if not exe.is_file():
        print(f"build: no executable at {exe}", file=sys.stderr)
        return 1

    figures: dict[str, object] = {
        "version": cfg.version(),
        "bundle": str(bundle),
        "bundle_bytes": tree_size(bundle),
        "pyinstaller_s": round(pyinstaller_s, 1),
    }
    if not args.no_archive:
        archive = dist / cfg.archive_name()
        t0 = time.perf_counter()
        make_archive(bundle, archive)
        figures["archive"] = str(archive)
        figures["archive_bytes"] = archive.stat().st_size
        figures["archive_s"] = round(time.perf_counter() - t0, 1)
    figures["build_s"] = round(time.perf_counter() - start, 1)

    print(f"build: bundle   {bundle}  {mib(figures['bundle_bytes'])}")  # type: ignore[arg-type]
    if "archive" in figures:
        print(f"build: archive  {figures['archive']}  "
              f"{mib(figures['archive_bytes'])}")  # type: ignore[arg-type]
    print(f"build: took {figures['build_s']} s (PyInstaller {figures['pyinstaller_s']} s)")

    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
