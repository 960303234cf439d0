"""Small helpers shared by the lenses: frozen float64 arrays and input checks."""

from __future__ import annotations

import numpy as np

from engine._checks import as_array, real
from engine._checks import frozen as frozen  # the lenses import it from here
from engine.errors import EngineError


def real_array(name: str, value: object, ndim: int) -> np.ndarray:
    """``value`` as a float64 array of ``ndim`` dimensions, or a message a person can act on."""
    array = as_array(value, name)
    if array.dtype.kind not in "fiu" or array.dtype == np.bool_:
        raise EngineError("dtype_not_real", name=name, dtype=array.dtype)
    if array.ndim != ndim:
        raise EngineError("ndim", name=name, ndim=ndim, shape=array.shape)
    array = array.astype(np.float64, copy=False)
    if not np.isfinite(array).all():
        raise EngineError("nan_inf", name=name)
    return array


def finite(name: str, value: object) -> float:
    """A finite real number (not a bool, a string or None)."""
    return real(value, name)


def whole(name: str, value: object, low: int = 0) -> int:
    """A whole number >= ``low`` (an int or numpy integer, not a bool or a float)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise EngineError("whole_at_least", name=name, low=low, value=value)
    return int(value)


def positive(name: str, value: float) -> float:
    """A finite number > 0."""
    value = finite(name, value)
    if not value > 0:
        raise EngineError("positive", name=name, value=value)
    return value


def non_negative(name: str, value: float) -> float:
    """A finite number >= 0."""
    value = finite(name, value)
    if not value >= 0:
        raise EngineError("non_negative", name=name, value=value)
    return value
