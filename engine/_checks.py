"""Argument checks shared across the engine: wrong types become an EngineError that says what
to pass, not an AttributeError or a numpy error from deep inside."""

from __future__ import annotations

import numpy as np

from engine.config import Qwen3Config
from engine.errors import EngineError


def as_array(x: object, name: str) -> np.ndarray:
    """``np.asarray(x)``, with an EngineError for what numpy cannot make an array of (a ragged
    list of rows)."""
    try:
        return np.asarray(x)
    except (ValueError, TypeError) as exc:
        raise EngineError(f"{name} must be an array of numbers with rows of equal length "
                          f"({exc})") from None


def check_config(config: object) -> Qwen3Config:
    if not isinstance(config, Qwen3Config):
        raise EngineError(f"config must be a Qwen3Config, got {type(config).__name__}")
    return config
