"""The app never opens a network connection: classrooms may have no network at all.

Two independent proofs on the real self-test (every panel drawn, a screenshot written):

- Python level: an audit hook (``sys.addaudithook``, installed by a ``sitecustomize`` before the
  app starts) records every socket connect, name lookup, bind, send and URL request; the run
  happens inside a network namespace with no interfaces (``unshare -n``), so it must also pass
  with no network at all.
- System-call level, covering Qt's C++ too: ``strace`` records every ``connect``/``sendto``/
  ``sendmsg``/``bind``; none may use an internet address family.

The packaged bundle is checked offline in test_packaging.py.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT_S = 180

SITECUSTOMIZE = textwrap.dedent("""
    import json, os, sys

    _LOG = os.environ["DUALVIEW_AUDIT_LOG"]
    _WATCH = {"socket.connect", "socket.getaddrinfo", "socket.gethostbyname",
              "socket.gethostbyname_ex", "socket.gethostbyaddr", "socket.bind",
              "socket.sendto", "socket.sendmsg", "urllib.Request", "http.client.connect",
              "ftplib.connect", "smtplib.connect", "poplib.connect", "imaplib.open",
              "telnetlib.Telnet.open", "webbrowser.open"}

    def _write(event, args):
        with open(_LOG, "a", encoding="utf-8") as f:
            f.write(json.dumps({"event": event, "args": [repr(a) for a in args]}) + "\\n")

    def _hook(event, args):
        if event in _WATCH:
            _write(event, args)

    _write("audit.installed", ())
    sys.addaudithook(_hook)
""")


def no_network_prefix() -> list[str]:
    """A command prefix that runs a program with no network interfaces but loopback (down)."""
    for prefix in (["unshare", "-n"], ["unshare", "-rn"]):  # as root; as a user (userns)
        if shutil.which(prefix[0]) and subprocess.run(
                [*prefix, "true"], capture_output=True, timeout=30).returncode == 0:
            return prefix
    pytest.fail("cannot start a process without network: `unshare -n` failed "
                "(needs root, or unprivileged user namespaces for `unshare -rn`)")


def need_tool(name: str, install: str) -> str:
    path = shutil.which(name)
    if path is None:
        message = f"{name} is not installed ({install}); .ci/run installs it"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return path


def selftest_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env.update(QT_QPA_PLATFORM="offscreen", DUALVIEW_CONFIG_DIR=str(tmp_path / "config"),
               QT_API="pyside6", PYQTGRAPH_QT_LIB="PySide6", **extra)
    return env


def run_selftest(cmd: list[str], env: dict[str, str], tmp_path: Path) -> str:
    proc = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=TIMEOUT_S)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"self-test exited {proc.returncode}:\n{output[-4000:]}"
    assert "selftest: ok" in proc.stdout, output[-4000:]
    assert (tmp_path / "shot.png").stat().st_size > 10_000
    return output


def test_selftest_opens_no_connection_and_runs_without_network(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
    log = tmp_path / "audit.jsonl"
    env = selftest_env(tmp_path, DUALVIEW_AUDIT_LOG=str(log),
                       PYTHONPATH=os.pathsep.join([str(site), str(ROOT)]))
    cmd = [*no_network_prefix(), sys.executable, "-m", "app", "--selftest",
           "--screenshot", str(tmp_path / "shot.png")]
    run_selftest(cmd, env, tmp_path)

    events = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert events and events[0]["event"] == "audit.installed", "the audit hook never ran"
    network = [e for e in events[1:]
               if not (e["event"] == "socket.connect" and "AF_UNIX" in e["args"][0])]
    assert network == [], f"the self-test touched the network: {network}"


def test_no_internet_socket_at_system_call_level(tmp_path):
    strace = need_tool("strace", "apt-get install strace")
    trace = tmp_path / "strace.txt"
    cmd = [strace, "-f", "-qq", "-e", "trace=connect,sendto,sendmsg,bind", "-e", "signal=none",
           "-o", str(trace),
           sys.executable, "-m", "app", "--selftest", "--screenshot", str(tmp_path / "shot.png")]
    env = selftest_env(tmp_path, PYTHONPATH=str(ROOT))
    run_selftest(cmd, env, tmp_path)

    calls = trace.read_text(encoding="utf-8", errors="replace").splitlines()
    internet = [c for c in calls if re.search(r"AF_INET6?\b", c)]
    assert internet == [], "the self-test used internet sockets:\n" + "\n".join(internet[:20])
