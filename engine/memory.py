"""Keep freed memory in the process for the next edit or forward (glibc only).

Every edit allocates the same few arrays again: at T = 512 the attention steps alone are three
8 MB arrays, and a whole-model forward (Qwen3-0.6B at T = 64) ~45 MB. glibc serves allocations
from 128 kB up with fresh ``mmap`` pages and gives freed ones back to the kernel, so each edit
touched new, zero-filled pages: ~2400 page faults per edit at T = 512 (~12k per forward of
the model), and the first edits after a long text arrives waited for the kernel. With the
thresholds below, arrays up to 64 MB come from the heap and freed memory stays there (up to
256 MB), so an edit reuses the pages of the one before; bigger blocks (the Qwen3-0.6B
weights, 126 MB) still go straight back to the kernel when freed.

The settings are the process's: the app sets them at start-up, ``Qwen3Model.load`` for any
other caller (a benchmark, a script); the second call changes nothing.
"""

from __future__ import annotations

import ctypes
import os

#: mallopt parameters (glibc's malloc.h)
M_TRIM_THRESHOLD, M_TOP_PAD, M_MMAP_THRESHOLD = -1, -2, -3
MMAP_THRESHOLD = 64 << 20
TRIM_THRESHOLD = 256 << 20
TOP_PAD = 16 << 20

_kept: bool | None = None


def keep_freed_memory() -> bool:
    """Set glibc's malloc thresholds as described above, once; False where there is no glibc
    (macOS, Windows, musl), which changes nothing else."""
    global _kept
    if _kept is None:
        _kept = _set_thresholds()
    return _kept


def _set_thresholds() -> bool:
    try:
        if not (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc"):
            return False
        mallopt = ctypes.CDLL(None).mallopt  # the C library the process runs on
    except (OSError, ValueError, AttributeError):  # (no confstr, or no such name)
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return all(mallopt(param, value) == 1 for param, value in (
        (M_MMAP_THRESHOLD, MMAP_THRESHOLD), (M_TRIM_THRESHOLD, TRIM_THRESHOLD),
        (M_TOP_PAD, TOP_PAD)))
