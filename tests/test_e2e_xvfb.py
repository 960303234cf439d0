"""End to end in a real X window: the installed ``dualview`` under Xvfb (the xcb platform, not
offscreen), driven with real key events from xdotool, observed through the app's state file
(``DUALVIEW_STATE_FILE``, app/statefile.py).

A Chinese sentence is typed, its last character replaced as people do (BackSpace, then the
new character: the verdict still compares with the sentence before the edit), then M (mask
off), F11 (presentation mode) and Ctrl+T (the tour) are pressed, and the window's state is
checked after each; last, a screenshot of the whole X display is taken with Qt's xcb platform
in a separate process and checked for a drawn window.

Typing CJK with xdotool: ``xdotool type`` maps a character missing from the keyboard map onto
a spare keycode for each key press and maps it back after, and the app reads the changed map
only when it gets to the notification, by which time the map may have moved on: characters
came out repeated or lost. So the characters are added to the keyboard map once, with
xkbcomp, before the app starts; xdotool then finds each on its own keycode and never remaps.

Needs Xvfb, xdotool and xkbcomp (Debian: xvfb, xdotool; x11-xkb-utils comes with xvfb) and
the package installed (``pip install '.[test]'`` puts ``dualview`` on PATH); fails, naming what
is missing, without them.
"""

from __future__ import annotations

import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SENTENCE = "注意力看不见未来的词"
EDITED = SENTENCE[:-1] + "字"  # the last character replaced: same number of tokens
SCREEN = "1600x1000x24"
#: Bounds, never fixed sleeps: each wait ends as soon as its condition holds.
START_TIMEOUT_S = 60.0
STEP_TIMEOUT_S = 20.0


def _tool(name: str) -> str:
    path = shutil.which(name)
    assert path, (f"{name} is not on PATH: this test needs it (Debian: apt install xvfb xdotool; "
                  "the package itself: pip install '.[test]')")
    return path


@pytest.fixture
def xserver() -> Iterator[str]:
    """A fresh Xvfb on a free display (it picks the number itself: -displayfd); killed after."""
    read_fd, write_fd = os.pipe()
    proc = subprocess.Popen(
        [_tool("Xvfb"), "-displayfd", str(write_fd), "-screen", "0", SCREEN, "-nolisten", "tcp",
         "-noreset"],  # (a server resets when its last client leaves: the keyboard map too)
        pass_fds=(write_fd,), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    os.close(write_fd)
    try:
        ready, _, _ = select.select([read_fd], [], [], START_TIMEOUT_S)
        number = os.read(read_fd, 64).decode().strip() if ready else ""
        assert number.isdigit(), f"Xvfb did not start: {proc.stderr.read1().decode()[-2000:]}"
        yield f":{number}"
    finally:
        os.close(read_fd)
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def add_keysyms(display: str, chars: str) -> None:
    """Give each of ``chars`` its own keycode in the X keyboard map (see the module docstring)."""
    xkbcomp = _tool("xkbcomp")
    dump = subprocess.run([xkbcomp, "-w0", display, "-"], capture_output=True, text=True,
                          check=True, timeout=STEP_TIMEOUT_S).stdout
    keycodes = dump[dump.index("xkb_keycodes"):dump.index("xkb_types")]
    symbols_start = dump.index("xkb_symbols")
    symbols_end = dump.index("\n};", symbols_start)
    bound = set(re.findall(r"key\s+<(\w+)>", dump[symbols_start:symbols_end]))
    aliases = set(re.findall(r"alias\s+<(\w+)>", keycodes))
    free = [name for name in re.findall(r"^\s*<(\w+)>\s*=\s*\d+;", keycodes, re.M)
            if name not in bound and name not in aliases]
    wanted = sorted(set(chars))
    assert len(free) >= len(wanted), f"only {len(free)} spare keycodes for {len(wanted)} keys"
    keys = "".join(f"\n    key <{name}> {{ [ U{ord(c):04X} ] }};"
                   for name, c in zip(free, wanted, strict=False))
    subprocess.run([xkbcomp, "-w0", "-", display], input=dump[:symbols_end] + keys
                   + dump[symbols_end:], text=True, check=True, timeout=STEP_TIMEOUT_S)
    now = subprocess.run([xkbcomp, "-w0", display, "-"], capture_output=True, text=True,
                         check=True, timeout=STEP_TIMEOUT_S).stdout
    missing = [c for c in wanted if f"U{ord(c):04X}" not in now]
    assert not missing, f"the X keyboard map did not take {missing}"


class App:
    """The running app: its process, its state file, and xdotool on its display."""

    def __init__(self, proc: subprocess.Popen, state_file: Path, display: str,
                 log: Path) -> None:
        self.proc, self.state_file, self.display, self.log = proc, state_file, display, log
        self.xdotool = _tool("xdotool")

    def state(self) -> dict:
        try:
            return json.loads(self.state_file.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}

    def wait(self, what: str, condition: Callable[[dict], bool],
             timeout: float = STEP_TIMEOUT_S) -> dict:
        deadline = time.monotonic() + timeout
        state: dict = {}
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, f"the app exited ({self.proc.returncode}) " \
                f"waiting for {what}:\n{self.log.read_text()[-3000:]}"
            state = self.state()
            if state and condition(state):
                return state
            time.sleep(0.05)
        raise AssertionError(f"timed out after {timeout} s waiting for {what}; last state: "
                             f"{state}\n{self.log.read_text()[-3000:]}")

    def x(self, *args: str) -> str:
        env = {**os.environ, "DISPLAY": self.display}
        done = subprocess.run([self.xdotool, *args], env=env, capture_output=True, text=True,
                              timeout=STEP_TIMEOUT_S)
        assert done.returncode == 0, f"xdotool {' '.join(args)}: {done.stderr}"
        return done.stdout


@pytest.fixture
def app(xserver: str, tmp_path: Path) -> Iterator[App]:
    dualview = _tool("dualview")
    add_keysyms(xserver, SENTENCE + EDITED)
    env = {k: v for k, v in os.environ.items() if not k.startswith("QT_QPA")}
    env.update({
        "DISPLAY": xserver, "QT_QPA_PLATFORM": "xcb",
        "DUALVIEW_CONFIG_DIR": str(tmp_path / "config"),
        "DUALVIEW_STATE_FILE": str(tmp_path / "state.json"),
        # this checkout's code, as pytest runs it (the console script may be an older install)
        "PYTHONPATH": os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep),
    })
    log = tmp_path / "app.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([dualview, "--lang", "en"], env=env, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)
    running = App(proc, tmp_path / "state.json", xserver, log)
    try:
        yield running
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(10)


def screenshot(display: str, path: Path) -> None:
    """The whole X display as a PNG, taken by a separate Qt process on the xcb platform (no xwd
    or ImageMagick needed)."""
    code = ("import sys\nfrom PySide6.QtGui import QGuiApplication\n"
            "app = QGuiApplication(['shot', '-platform', 'xcb'])\n"
            "image = app.primaryScreen().grabWindow(0)\n"
            "sys.exit(0 if image.save(sys.argv[1], 'PNG') else 1)\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("QT_QPA")}
    env["DISPLAY"] = display
    done = subprocess.run([sys.executable, "-c", code, str(path)], env=env,
                          capture_output=True, text=True, timeout=STEP_TIMEOUT_S)
    assert done.returncode == 0 and path.exists(), f"no screenshot: {done.stderr[-2000:]}"


def test_the_installed_app_in_a_real_x_window_with_real_keys(app: App, tmp_path: Path) -> None:
    started = time.monotonic()
    first = app.wait("the first result, drawn, in a shown window",
                     lambda s: s["result_text"] and s["panels_current"]
                     and s["window_id"], START_TIMEOUT_S)
    assert first["causal"] and not first["presentation"] and not first["tour_running"]
    window = str(first["window_id"])
    assert "Dual View" in app.x("getwindowname", window)  # a real X window, mapped
    app.x("windowfocus", "--sync", window)
    x, y, width, height = app.state()["editor"]
    app.x("mousemove", str(x + width // 2), str(y + height // 2), "click", "1")
    app.wait("the focus in the text field", lambda s: s["focus"] == "tokenLine")

    app.x("key", "ctrl+a", "BackSpace")
    app.x("type", "--delay", "40", SENTENCE)
    state = app.wait("the typed sentence computed", lambda s: s["result_text"] == SENTENCE
                     and s["panels_current"])
    assert state["tokens"] == list(SENTENCE) and state["text"] == SENTENCE

    # as a teacher does: BackSpace, then the new character (two edits, through the shorter
    # sentence); the shorter one is computed before the new character goes in
    app.x("key", "BackSpace")
    app.wait("the shorter sentence computed", lambda s: s["result_text"] == SENTENCE[:-1]
             and s["panels_current"])
    app.x("type", EDITED[-1])
    state = app.wait("the last character replaced", lambda s: s["result_text"] == EDITED
                     and s["panels_current"] and "identical" in s["verdict"])
    assert state["tokens"] == list(EDITED)
    verdict = state["verdict"]
    assert f"Every row before token {len(EDITED) - 1}" in verdict, verdict
    assert "bitwise identical" in verdict, verdict
    # compared with the sentence before the edit began, named as such, not the shorter one
    detail = state["verdict_detail"]
    assert "the sentence before this edit" in detail, detail
    quoted = "".join(c for c in detail if c not in "\u200e\u200f\u2066\u2067\u2068\u2069")
    # quoted as typed (no spaces between the characters), the edited token marked
    assert f"Before: “{SENTENCE[:-1]}[{SENTENCE[-1]}]”" in quoted, detail
    assert "10 tokens" in detail, detail
    assert "allclose" not in verdict + detail, (verdict, detail)

    app.x("key", "Escape")  # out of the text field: bare keys are shortcuts again
    app.wait("the focus out of the text field", lambda s: s["focus"] != "tokenLine")
    app.x("key", "m")
    state = app.wait("the mask off", lambda s: not s["causal"] and s["result_causal"] is False
                     and s["panels_current"])
    assert state["text"] == EDITED  # M went to the window, not into the text

    app.x("key", "F11")
    state = app.wait("presentation mode", lambda s: s["presentation"] and s["full_screen"])
    assert not state["causal"] and not state["tour_running"]

    app.x("key", "ctrl+t")
    state = app.wait("the tour open", lambda s: s["tour_running"])
    assert state["tour_stop"] == "welcome" and state["presentation"]

    shot = tmp_path / "display.png"
    screenshot(app.display, shot)
    kept = os.environ.get("DUALVIEW_E2E_SCREENSHOT")  # to look at it: copy it out
    if kept:
        shutil.copyfile(shot, kept)
    from PySide6.QtGui import QImage

    image = QImage(str(shot))
    assert (image.width(), image.height()) == (1600, 1000)
    colours = {image.pixel(i, j) for i in range(0, 1600, 7) for j in range(0, 1000, 7)}
    assert len(colours) > 200, f"only {len(colours)} colours: no window drawn on the display"
    print(f"e2e: {time.monotonic() - started:.1f} s from launch to the screenshot")
