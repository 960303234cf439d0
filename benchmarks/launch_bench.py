"""Launch -> first full paint of the packaged app, warm and cold, against a launch from source.

    python benchmarks/launch_bench.py            # builds dist/dualview/ first if it is missing
    python benchmarks/launch_bench.py --build    # rebuild (also measures the build time)
    python benchmarks/launch_bench.py --baseline # also time the issue's baseline window

``--baseline`` adds the baseline the launch targets were set against: a minimal four-dock
pyqtgraph window (``benchmarks/minimal_window.py``), from source and as its own onedir bundle
(built once under ``build/baseline/``), launched in turn with the app. The issue measured it at
0.49 s warm, 0.64 s cold (onedir); what it takes here shows how fast this machine is today,
and ``warm_ratio_bundle_to_baseline`` what the app adds on top of Qt and pyqtgraph.

Each launch runs ``--selftest`` offscreen; the self-test prints ``selftest: first full paint at
<unix time>`` once every visible panel has drawn the first result and that paint was processed.
Time to paint = that stamp minus the moment just before the process was started. Bundle and
source launches alternate in the same run, so a busy machine slows both alike.

Cold = the page cache dropped before each launch (``sync; echo 3 > /proc/sys/vm/drop_caches``,
needs root on Linux); where that is not permitted the cold figures are null with the reason.
Also reports each launch's CPU time (user + system of the whole self-test, warm), which a busy
machine hardly changes, the bundle size on disk and as .tar.gz, the biggest parts of the
bundle, and the build time (with --build or when it had to build). The last line is one JSON
object; sizes are MiB (2^20 bytes).
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

try:
    import resource
except ImportError:  # Windows
    resource = None  # type: ignore[assignment]

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "packaging"))
import bundle_config as cfg  # noqa: E402

TARGETS = {"warm_s": 0.8, "cold_s": 1.0, "ratio_to_source": 1.2, "bundle_mib": 200,
           "archive_mib": 75}
PAINT_MARK = "selftest: first full paint at "
LAUNCH_TIMEOUT_S = 120


def children_cpu_s() -> float:
    if resource is None:
        return float("nan")
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def launch(cmd: list[str], env: dict[str, str], cpu: list[float] | None = None) -> float:
    """Seconds from just before the process starts to its first full paint.

    Appends the process's CPU time (user + system, whole self-test) to ``cpu``: unlike wall
    time it hardly moves when other work shares the machine.
    """
    cpu0 = children_cpu_s()
    t0 = time.time()
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    painted = None
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith(PAINT_MARK):
                painted = float(line[len(PAINT_MARK):].split()[0])
        proc.wait(timeout=LAUNCH_TIMEOUT_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    if proc.returncode != 0 or painted is None:
        raise SystemExit(f"launch_bench: {' '.join(cmd)} exited {proc.returncode} "
                         f"without a first-paint line")
    if cpu is not None:
        cpu.append(children_cpu_s() - cpu0)
    return painted - t0


def drop_caches() -> str | None:
    """Drop the page cache; None on success, else why it could not."""
    if not sys.platform.startswith("linux"):
        return "not Linux"
    try:
        os.sync()
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
    except OSError as exc:
        return f"cannot drop the page cache ({exc.strerror}); run as root on a VM/host"
    return None


def tree_bytes(folder: Path) -> int:
    return sum(os.lstat(os.path.join(d, n)).st_size
               for d, _dirs, names in os.walk(folder) for n in names)


def biggest(folder: Path, count: int = 12) -> list[tuple[str, int]]:
    """The largest files in the bundle (symlinks not followed)."""
    sizes = []
    for d, _dirs, names in os.walk(folder):
        for n in names:
            p = os.path.join(d, n)
            if not os.path.islink(p):
                sizes.append((os.path.relpath(p, folder), os.path.getsize(p)))
    return sorted(sizes, key=lambda x: -x[1])[:count]


def mib(n: float) -> float:
    return round(n / 2**20, 1)


def summary(times: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(times), 3), "min": round(min(times), 3),
            "max": round(max(times), 3)}


NOT_ON_A_CLEAN_MACHINE = ("torch", "transformers", "scipy", "jedi", "IPython", "matplotlib",
                          "pandas", "PIL", "pytest", "_pytest", "PyInstaller")


def build_baseline() -> Path:
    """The minimal window as a onedir bundle (built once): its executable. Packages a clean
    machine does not have (this one has torch for the golden data) are left out, nothing else:
    the baseline is PyInstaller's default bundle of numpy, PySide6 and pyqtgraph."""
    work = ROOT / "build" / "baseline"
    exe = work / "dist" / "minimal_window" / "minimal_window"
    if not exe.exists():
        subprocess.run([sys.executable, "-m", "PyInstaller", "--noconfirm", "--onedir",
                        "--log-level", "WARN", "--distpath", str(work / "dist"),
                        "--workpath", str(work / "work"), "--specpath", str(work),
                        *(f"--exclude-module={m}" for m in NOT_ON_A_CLEAN_MACHINE),
                        str(ROOT / "benchmarks" / "minimal_window.py")], cwd=ROOT, check=True)
    return exe


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", action="store_true", help="rebuild the bundle first")
    parser.add_argument("--dist", type=Path, default=ROOT / "dist")
    parser.add_argument("--runs", type=int, default=5, help="warm launches of each kind")
    parser.add_argument("--cold-runs", type=int, default=3, help="cold launches of each kind")
    parser.add_argument("--baseline", action="store_true",
                        help="also launch the minimal four-dock window (source and onedir)")
    args = parser.parse_args()

    bundle = args.dist / cfg.APP_NAME
    exe = bundle / cfg.APP_NAME
    build = None
    if args.build or not exe.exists():
        out = subprocess.run([sys.executable, str(ROOT / "packaging" / "build.py"),
                              "--dist", str(args.dist)], cwd=ROOT, check=True,
                             stdout=subprocess.PIPE, text=True).stdout
        print(out, end="")
        build = json.loads(out.strip().splitlines()[-1])

    config_dir = tempfile.mkdtemp(prefix="dualview-bench-")
    atexit.register(shutil.rmtree, config_dir, True)  # the launches' settings: none kept
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "DUALVIEW_CONFIG_DIR": config_dir}
    kinds = {"bundle": [str(exe), "--selftest"],
             "source": [sys.executable, "-m", "app", "--selftest"]}
    if args.baseline:
        kinds["baseline bundle"] = [str(build_baseline())]
        kinds["baseline source"] = [sys.executable, str(ROOT / "benchmarks" / "minimal_window.py")]
    load_before = os.getloadavg()[0] if hasattr(os, "getloadavg") else None

    for cmd in kinds.values():  # warm-up: fill the page cache, compile source .pyc files
        launch(cmd, env)
    warm: dict[str, list[float]] = {k: [] for k in kinds}
    cpu: dict[str, list[float]] = {k: [] for k in kinds}
    for i in range(args.runs):
        for kind, cmd in kinds.items():
            warm[kind].append(launch(cmd, env, cpu[kind]))
        print(f"warm {i + 1}/{args.runs}: " + ", ".join(
            f"{kind} {times[-1]:.3f} s" for kind, times in warm.items()), flush=True)

    cold: dict[str, list[float]] = {k: [] for k in kinds}
    cold_problem = drop_caches()
    for i in range(args.cold_runs if cold_problem is None else 0):
        for kind, cmd in kinds.items():
            drop_caches()
            cold[kind].append(launch(cmd, env))
        print(f"cold {i + 1}/{args.cold_runs}: " + ", ".join(
            f"{kind} {times[-1]:.3f} s" for kind, times in cold.items()), flush=True)
    if cold_problem:
        print(f"cold: skipped: {cold_problem}")

    archive = args.dist / cfg.archive_name()
    bundle_bytes = tree_bytes(bundle)
    archive_bytes = archive.stat().st_size if archive.exists() else None
    print("biggest files in the bundle:")
    for rel, size in biggest(bundle):
        print(f"  {mib(size):6.1f} MiB  {rel}")

    warm_b, warm_s = statistics.median(warm["bundle"]), statistics.median(warm["source"])
    figures = {
        "bench": "launch",
        "version": cfg.version(),
        "runs": args.runs,
        "warm_bundle_s": summary(warm["bundle"]),
        "warm_source_s": summary(warm["source"]),
        "warm_ratio_bundle_to_source": round(warm_b / warm_s, 3),
        "cpu_bundle_s": summary(cpu["bundle"]),
        "cpu_source_s": summary(cpu["source"]),
        "cpu_ratio_bundle_to_source": round(
            statistics.median(cpu["bundle"]) / statistics.median(cpu["source"]), 3),
        "cold_bundle_s": summary(cold["bundle"]) if cold["bundle"] else None,
        "cold_source_s": summary(cold["source"]) if cold["source"] else None,
        "cold_note": cold_problem,
        "bundle_mib": mib(bundle_bytes),
        "archive_mib": mib(archive_bytes) if archive_bytes else None,
        "build_s": build["build_s"] if build else None,
        "loadavg_1min_before_after": [
            round(load_before, 2) if load_before is not None else None,
            round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None],
        "targets": TARGETS,
    }
    if args.baseline:
        for kind in ("baseline bundle", "baseline source"):
            key = kind.replace(" ", "_")
            figures[f"warm_{key}_s"] = summary(warm[kind])
            figures[f"cold_{key}_s"] = summary(cold[kind]) if cold[kind] else None
        figures["warm_ratio_bundle_to_baseline"] = round(
            warm_b / statistics.median(warm["baseline bundle"]), 3)
        if cold["bundle"]:
            figures["cold_ratio_bundle_to_baseline"] = round(
                statistics.median(cold["bundle"]) / statistics.median(cold["baseline bundle"]), 3)
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
