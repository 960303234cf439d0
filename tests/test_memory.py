"""engine.memory: freed arrays stay in the process, so the next edit's arrays fault no pages."""

from __future__ import annotations

import sys

import pytest

from tests.test_startup import run_probe

PROBE = """
import json, os, resource
os.environ["NUMPY_MADVISE_HUGEPAGE"] = "0"  # as the app sets it: 4 kB pages
import numpy as np
from engine.memory import keep_freed_memory

def edit():
    # like one edit at T = 512: a few arrays of some MB alive together, then freed
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    arrays = [np.ones(1 << 20), np.ones(3 << 18), np.ones(1 << 20)]  # 8, 6 and 8 MB
    after = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    del arrays
    return after - before

edit()
plain = edit()
kept = keep_freed_memory()
edit()
reused = edit()
print(json.dumps([kept, plain, reused]))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_a_freed_array_is_reused_without_page_faults():
    kept, plain, reused = run_probe(PROBE)
    assert kept is True
    assert plain > 4000  # ~5600 pages of 4 kB: glibc mapped fresh memory every time
    assert reused < 100  # the freed heap memory is used again


def test_the_app_keeps_freed_memory():
    out = run_probe("import json, engine.memory as m\ncalls = []\n"
                    "m.keep_freed_memory = lambda: calls.append(1) or True\n"
                    "from app.__main__ import build_app\nbuild_app(['x'])\n"
                    "print(json.dumps(calls))")
    assert out == [1]
