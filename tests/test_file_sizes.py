"""Issue #20's limits on the code's size, which keep each file one a newcomer can read: the
main window under 600 lines, no file in ``app/`` over 700, ``engine/layer.py`` under 350.
Without a test a file grows past its limit one small change at a time (the norm panel did)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def line_count(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def too_long(paths: list[Path], limit: int) -> dict[str, int]:
    """The files of ``paths`` with more than ``limit`` lines, and their line counts."""
    counts = {str(path.relative_to(ROOT)): line_count(path) for path in paths}
    return {name: n for name, n in counts.items() if n > limit}


def test_no_file_in_app_is_over_700_lines():
    files = sorted((ROOT / "app").rglob("*.py"))
    assert len(files) > 50  # (the package, not an empty glob)
    assert too_long(files, 700) == {}


@pytest.mark.parametrize(("name", "limit"), [("app/mainwindow.py", 599),
                                             ("engine/layer.py", 349)])
def test_the_main_window_and_the_layer_stay_under_their_limits(name, limit):
    assert too_long([ROOT / name], limit) == {}


def test_a_file_over_its_limit_is_reported(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    long = tmp_path / "long.py"
    long.write_text("x = 1\n" * 701, encoding="utf-8")
    short = tmp_path / "short.py"
    short.write_text("x = 1\n" * 700, encoding="utf-8")
    assert too_long([long, short], 700) == {"long.py": 701}
