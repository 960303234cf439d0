"""Entry point: ``dualview`` or ``python -m app``.

``--selftest [--screenshot FILE]`` opens the window with a preset, waits until every visible
dock has drawn the result, optionally writes a PNG of the whole window, and exits 0 (non-zero
with a message on any error). Works with ``QT_QPA_PLATFORM=offscreen``.
"""

from __future__ import annotations

import os

# pyqtgraph prefers PyQt6 when it is installed: pin the binding before it is imported.
os.environ.setdefault("QT_API", "pyside6")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
# BLAS on one thread from the start (engine.parallel.configure_threads, called in build_app,
# says why and sets the engine's threads; this spares OpenBLAS starting threads it never uses).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# numpy asks the kernel for huge pages for arrays of 4 MB and more; with transparent huge pages
# on "madvise" the first touch of such memory may wait for the kernel to compact memory. The
# first edits after a long text arrives (T = 512: 8 MB score arrays) took ~100 ms instead of
# ~30 ms in compute until the heap settled; without it ~45 ms.
os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")

import argparse
import gc
import sys
import time

SELFTEST_TIMEOUT_S = 30.0
#: At start-up the window is shown once the initial text's result and convergence sweep are in
#: (~0.1 s), or after this long at most.
FIRST_RESULT_WAIT_S = 1.0


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="dualview", description="One Qwen3 layer, two views.")
    parser.add_argument("--selftest", action="store_true",
                        help="open, draw every panel, optionally screenshot, then exit")
    parser.add_argument("--screenshot", metavar="FILE", help="with --selftest: write a PNG")
    parser.add_argument("--text", help="start with this text instead of the first example")
    parser.add_argument("--lang", choices=("en", "zh"),
                        help="interface language (default: last choice, else the system's)")
    parser.add_argument("--theme", choices=("light", "dark"), help="light or dark theme")
    parser.add_argument("--palette", choices=("classic", "colorblind"), help="colour palette")
    parser.add_argument("--presentation", action="store_true",
                        help="start in presentation mode (full screen, larger text)")
    parser.add_argument("--tour", type=int, metavar="STOP",
                        help="start the guided tour at this stop (1 = the first)")
    parser.add_argument("--model", metavar="DIR",
                        help="open a Hugging Face Qwen3 model folder (config.json, "
                             "tokenizer.json, *.safetensors) instead of the toy layer")
    parser.add_argument("--layer", type=int, default=0, metavar="K",
                        help="with --model: the layer shown first (0 = the first)")
    args = parser.parse_args(argv)
    if args.screenshot is not None and not args.selftest:
        parser.error("--screenshot needs --selftest (the running app exports from File)")
    if args.screenshot == "":
        parser.error("--screenshot needs a file name")
    if args.tour is not None:
        from app.tour import STOPS

        if not 1 <= args.tour <= len(STOPS):
            parser.error(f"--tour must be a stop from 1 to {len(STOPS)}, got {args.tour}")
    return args


def start_language(args: argparse.Namespace) -> str:
    """--lang, else the language chosen last time (not in the self-test), else the system's."""
    from app import i18n

    if args.lang:
        return args.lang
    if not args.selftest:
        from app.mainwindow import open_settings

        saved = open_settings().value("view/language")
        if saved in i18n.LANGUAGES:
            return str(saved)
    return i18n.system_language()


def build_app(argv: list[str]) -> object:
    """The QApplication with pyqtgraph configured (call before creating any plot)."""
    from app.pgimport import import_pyqtgraph
    from engine.memory import keep_freed_memory

    keep_freed_memory()  # each edit reuses the memory of the one before (engine/memory.py)
    from engine.parallel import configure_threads

    configure_threads()  # the app's threads, which every benchmark uses too

    pg = import_pyqtgraph()  # without building every Qt class (app/pgimport.py)
    from PySide6.QtWidgets import QApplication

    pg.setConfigOptions(imageAxisOrder="row-major", antialias=True, background="w",
                        foreground="k")
    app = QApplication.instance() or QApplication(argv)
    app.setApplicationName("Dual View")
    app.setOrganizationName("DualView")
    from app import __version__

    app.setApplicationVersion(__version__)
    app.setDesktopFileName("dualview")  # matches resources/dualview.desktop
    from PySide6.QtGui import QIcon

    from app.fonts import install_app_font
    from app.resources import resource_path

    install_app_font(app)  # the bundled fonts, before any widget or plot exists
    app.setWindowIcon(QIcon(str(resource_path("icons", "dualview.png"))))
    return app


def run_selftest(window: object, app: object, screenshot: str | None) -> int:
    """Wait (processing events) until every visible panel is current, then screenshot."""

    deadline = time.monotonic() + SELFTEST_TIMEOUT_S
    while time.monotonic() < deadline:
        app.processEvents()  # type: ignore[attr-defined]
        state = window.state  # type: ignore[attr-defined]
        if state.error:
            print(f"selftest: engine error: {state.error}", file=sys.stderr)
            return 1
        if not state.tokens:  # the empty state: no panel has anything to draw
            print("selftest: the text has no tokens, so there is nothing to draw; give --text "
                  "a word", file=sys.stderr)
            return 1
        from app.compute import convergence_skipped

        # with --model: the model's result (not the toy layer's before it); a layer too
        # large for the convergence sweep has none to wait for
        if (state.result is not None and state.result.model is state.model
                and (state.convergence is not None or convergence_skipped(state.result))
                and window.all_panels_current()):  # type: ignore[attr-defined]
            break
        time.sleep(0.002)  # a short nap: the paint is timed from here (launch_bench)
    else:
        print("selftest: timed out waiting for every panel to draw", file=sys.stderr)
        return 2
    app.processEvents()  # type: ignore[attr-defined]  # paint what the panels just drew
    # benchmarks/launch_bench.py reads this line: wall-clock time of the first full paint
    print(f"selftest: first full paint at {time.time():.4f}", flush=True)
    # the first paint is not final (axes lay out their tick labels on the next pass)
    settle = time.monotonic() + 0.4
    while time.monotonic() < settle:
        app.processEvents()  # type: ignore[attr-defined]
        time.sleep(0.01)
    if screenshot:
        image = window.grab()  # type: ignore[attr-defined]
        if image.isNull() or not image.save(screenshot, "PNG"):
            print(f"selftest: could not write {screenshot}", file=sys.stderr)
            return 1
        print(f"selftest: wrote {screenshot} ({image.width()}x{image.height()})")
    print("selftest: ok")
    return 0


_gc_resumed = False


def resume_gc() -> None:
    """End the start-up pause of the cyclic garbage collector (idempotent).

    Start-up makes ~1M Python objects that all stay alive (Qt wrappers, pyqtgraph's items, the
    modules): the collector ran ~130 times during it and found ~500 objects, at 55-110 ms of a
    ~1.3 s launch. Freezing moves what start-up made out of the collector's sight, so later
    collections look at new objects only (the ~500 cycles made at start-up are kept). From
    then on the main-thread collector (app/collector.py) collects; without a Qt application
    (an early exit) automatic collection comes back.
    """
    global _gc_resumed
    if _gc_resumed:
        return
    _gc_resumed = True
    gc.freeze()
    from app import collector

    if not collector.active():
        gc.enable()


def main(argv: list[str] | None = None) -> int:
    global _gc_resumed
    _gc_resumed = False
    gc.disable()  # until the window is up: see resume_gc
    try:
        return _main(argv)
    finally:
        resume_gc()


def choose_platform(selftest: bool, environ: dict[str, str] | None = None) -> str | None:
    """On Linux with no display: the self-test runs offscreen (what CI and a screenshot need);
    the window cannot, so say why instead of Qt's abort. Returns a message to exit with, or
    None. ``QT_QPA_PLATFORM`` set by the caller always wins."""
    env = os.environ if environ is None else environ
    if (not sys.platform.startswith("linux") or env.get("QT_QPA_PLATFORM")
            or env.get("DISPLAY") or env.get("WAYLAND_DISPLAY")):
        return None
    if selftest:
        env["QT_QPA_PLATFORM"] = "offscreen"
        return None
    return ("dualview: no display found (neither DISPLAY nor WAYLAND_DISPLAY is set). Start it "
            "from a desktop session, or check it without one: dualview --selftest "
            "[--screenshot FILE]")


def _main(argv: list[str] | None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    refusal = choose_platform(args.selftest)
    if refusal is not None:
        print(refusal, file=sys.stderr)
        return 2
    app = build_app(sys.argv[:1])
    from app.mainwindow import MainWindow
    from app.widgets.token_editor import DEFAULT_TEXT

    window = MainWindow(persist_layout=not args.selftest,
                        initial_text=args.text if args.text is not None else DEFAULT_TEXT,
                        language=start_language(args))
    from app import statefile

    statefile.attach_from_env(window)  # a test hook, off unless DUALVIEW_STATE_FILE is set
    if args.theme:
        window.state.set_theme(args.theme)
    if args.palette:
        window.state.set_palette(args.palette)
    if args.model:
        # on its own thread (a busy message meanwhile); a selftest waits for it so it checks
        # the model's result; a bad folder leaves the toy layer and says why
        opened = window.open_model(args.model, args.layer, wait=args.selftest)
        if args.selftest:
            if not opened:
                print(window.last_message, file=sys.stderr)
                window.bridge.shutdown()
                return 2
            print(f"model layer {window.state.model_layer} of {window.state.model.folder}")
    # the first paint shows the computed layer, not the empty panels and then a second paint
    window.wait_for_first_result(FIRST_RESULT_WAIT_S)
    window.show()
    from PySide6.QtCore import QTimer

    QTimer.singleShot(0, resume_gc)  # once the event loop runs: the first paint is under way
    if args.presentation:
        window.set_presentation(True)
    if args.tour is not None:
        window.start_tour(args.tour - 1)
    if not args.selftest:
        window.offer_recovery()  # non-modal; only after a crash or a kill
    if args.selftest:
        try:
            code = run_selftest(window, app, args.screenshot)
        finally:
            window.bridge.shutdown()
        window.close()
        return code
    return app.exec()  # type: ignore[attr-defined]


if __name__ == "__main__":
    sys.exit(main())
