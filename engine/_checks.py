"""Argument checks shared across the engine (wrong types become an EngineError that says what
to pass, not an AttributeError or a numpy error from deep inside), and the two ways the engine
hands out read-only result arrays."""

from __future__ import annotations

import math
import os
import stat
from typing import BinaryIO

import numpy as np

from engine.config import Qwen3Config
from engine.errors import EngineError, Phrase


def as_array(x: object, name: str) -> np.ndarray:
    """``np.asarray(x)``, with an EngineError for what numpy cannot make an array of (a ragged
    list of rows)."""
    try:
        return np.asarray(x)
    except (ValueError, TypeError) as exc:
        raise EngineError("array_ragged", name=name, reason=exc) from None


def readonly(array: np.ndarray) -> np.ndarray:
    """``array`` C-ordered and read-only, without a copy when it is C-ordered already: for a
    fresh result the caller alone holds (it freezes that very array)."""
    array = np.ascontiguousarray(array)
    array.setflags(write=False)
    return array


def frozen(array: object) -> np.ndarray:
    """A C-ordered float64 copy that cannot be written: for a result made from arrays a caller
    may still hold (or write) and which panels keep."""
    out = np.array(array, dtype=np.float64, order="C")
    out.setflags(write=False)
    return out


def check_config(config: object) -> Qwen3Config:
    if not isinstance(config, Qwen3Config):
        raise EngineError("config_type", got=type(config).__name__)
    return config


def real(value: object, name: str, *, low: float | None = None, strict: bool = False) -> float:
    """A finite real number (not a bool, a string or None), at least ``low`` (above it when
    ``strict``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise EngineError("real_type", name=name, value=value)
    try:
        value = float(value)
    except OverflowError:  # an int past float64's range
        raise EngineError("real_too_large", name=name) from None
    if not math.isfinite(value):
        raise EngineError("not_finite", name=name, value=value)
    if low is not None and (value <= low if strict else value < low):
        raise EngineError("below_limit", name=name, op=">" if strict else ">=", low=low,
                          value=value)
    return value


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """``path`` opened for binary reading, refused with an EngineError unless it is a regular
    file once links are resolved.

    Every file loader opens through here, so none can be handed something that never ends
    (a symlink to ``/dev/zero``) or blocks forever (a FIFO with no writer). The file is opened
    without blocking and checked on the open descriptor, not on the name: nothing can swap the
    file between the check and the read.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise EngineError("file_missing", path=path) from None
    except OSError as exc:
        raise EngineError("file_unreadable", path=path, reason=exc.strerror or exc) from None
    except ValueError as exc:  # a NUL inside the name
        raise EngineError("file_unreadable", path=path, reason=exc) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise EngineError("file_unreadable", path=path, reason=Phrase("not a regular file"))
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def check_max_weights(value: object) -> int | None:
    """``max_weights`` of a loader: None (no limit) or a whole number >= 0."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, (int, np.integer))
                              or value < 0):
        raise EngineError("whole_at_least", name="max_weights", low=0, value=value)
    return None if value is None else int(value)
