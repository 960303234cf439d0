"""The one exception type the engine raises for input a person can fix."""

from __future__ import annotations


class EngineError(ValueError):
    """Invalid input to the engine. The message says what to change.

    A subclass of ``ValueError`` so callers that catch ``ValueError`` keep working.
    """
