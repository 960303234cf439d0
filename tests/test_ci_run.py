"""`.ci/run` installs the system packages the README's one-line `apt-get install` names and
runs the README's test command: one list, one command, read from the README."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def dry_run(readme: str, tmp_path: Path) -> subprocess.CompletedProcess:
    """Run a copy of .ci/run beside ``readme`` with CI_RUN_DRY=1 (it prints, installs nothing)."""
    (tmp_path / ".ci").mkdir()
    shutil.copy(ROOT / ".ci" / "run", tmp_path / ".ci" / "run")
    (tmp_path / "README.md").write_text(readme, encoding="utf-8")
    return subprocess.run(["bash", str(tmp_path / ".ci" / "run")], capture_output=True,
                          text=True, timeout=60, env={**os.environ, "CI_RUN_DRY": "1"})


def test_ci_installs_the_readmes_list_and_runs_its_test_command(tmp_path):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    proc = dry_run(readme, tmp_path)
    assert proc.returncode == 0, proc.stderr
    packages = proc.stdout.split("packages: ")[1].splitlines()[0].split()
    command = proc.stdout.split("command: ")[1].strip()
    # the README's first lines: the apt line, then how to run the app and the tests
    first = readme.split("```bash\n")[1].split("```")[0].splitlines()
    assert first[0].startswith("sudo apt-get install -y " + " ".join(packages) + "  #")
    assert first[2].startswith(command) and first[2].endswith("# run the tests")
    assert first[1].startswith("pip install . && dualview")
    # what the bundle test copies in (Qt's X11 plugin) and the end-to-end test drives with
    for needed in ("libgl1", "libegl1", "libxcb-cursor0", "libxkbcommon-x11-0", "strace",
                   "xvfb", "xdotool"):
        assert needed in packages
    assert not any(re.match(r"fonts-", p) for p in packages)  # the fonts are bundled


@pytest.mark.parametrize("readme", ["no such line\n", "sudo apt-get install -y a  # one\n"
                                    "sudo apt-get install -y b  # two\n"
                                    "pip install x && pytest  # run the tests\n"])
def test_ci_refuses_a_readme_without_exactly_one_line_of_each(tmp_path, readme):
    proc = dry_run(readme, tmp_path)
    assert proc.returncode != 0 and "exactly one line" in proc.stderr
