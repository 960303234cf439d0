"""The layers' boundaries (pyproject's [tool.importlinter]): the engine imports no Qt and no
app, panels and widgets never import the main window, panels never import each other."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def lint_imports(*args: str) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("lint-imports")
    command = [exe] if exe else [sys.executable, "-m", "importlinter.cli"]
    return subprocess.run([*command, "--no-cache", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


def test_every_import_contract_is_kept():
    run = lint_imports()
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout


def test_a_broken_contract_fails(tmp_path):
    """The check can fail: a contract every panel breaks (they all import the state)."""
    config = tmp_path / "contracts.toml"
    config.write_text(
        (ROOT / "pyproject.toml").read_text(encoding="utf-8")
        + '\n[[tool.importlinter.contracts]]\nname = "broken on purpose"\ntype = "forbidden"\n'
        'source_modules = ["app.panels.step_list"]\nforbidden_modules = ["app.state"]\n',
        encoding="utf-8")
    run = lint_imports("--config", str(config))
    assert run.returncode != 0
    assert "broken on purpose BROKEN" in run.stdout
