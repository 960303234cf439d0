"""The repository explains itself: docs/steps.md lists the layer's steps as the engine records
them, docs/continuous.md defines every claim id the code cites, and no code cites documents
that are not in the repository."""

import re
from pathlib import Path

from engine import STEP_INFO

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
CLAIM_ID = re.compile(r"\bE(\d{1,2})\b")


def test_steps_md_has_a_row_for_each_step_in_order():
    rows = re.findall(r"^\| (\d+) \| `([a-z_]+)` \|", (DOCS / "steps.md").read_text("utf-8"),
                      flags=re.MULTILINE)
    assert [(int(i), name) for i, name in rows] == [(s.index, s.name) for s in STEP_INFO]


def test_every_claim_id_the_code_cites_is_defined_in_continuous_md():
    text = (DOCS / "continuous.md").read_text("utf-8")
    defined = {int(n) for n in re.findall(r"^\| E(\d{1,2}) \|", text, flags=re.MULTILINE)}
    cited = set()
    for folder in ("app", "engine"):
        for path in (ROOT / folder).rglob("*.py"):
            cited |= {int(n) for n in CLAIM_ID.findall(path.read_text("utf-8"))}
    assert cited, "no claim ids found: the pattern is wrong"
    assert cited - defined == set()


def test_panels_widgets_tests_and_benchmarks_cite_only_the_repositorys_docs():
    outside = re.compile(r"\b(PAPER|DESIGN)(\.md)?\b")
    found = [f"{path.relative_to(ROOT)}:{n}"
             for folder in ("app/panels", "app/widgets", "tests", "benchmarks")
             for path in sorted((ROOT / folder).rglob("*.py"))
             if path.name != "test_docs.py"
             for n, line in enumerate(path.read_text("utf-8").splitlines(), start=1)
             if outside.search(line)]
    assert found == []
