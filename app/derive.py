"""Numbers the panels show that depend only on the computed layer: derived once, on the worker.

:func:`derive` runs inside :func:`app.compute.compute` (the worker thread) and its answer is
stored on the frozen ``Result`` (``result.derived``), so a panel reads these numbers instead of
computing them on the main thread while the window waits to repaint. Qt-free and pure: the same
trace always derives the same bits, and a panel that finds nothing here (another token picked,
a refusal) computes the same function itself — :meth:`Derived.norm_comparison` is only ever a
shortcut, never a different answer.

What is derived, and why only that:

* the norm panel's ``engine.norms.compare_norms`` of the **last token** at both points it can
  show (``embed``, ``resid_attn``): while someone types, the query follows the last token
  (``AppState._on_result_ready``), so that is the row the panel draws after nearly every edit.
  Every other row would cost T times as much for rows no one looks at.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from engine import EngineError, LayerTrace
from engine.norms import NormComparison, compare_norms

#: The points of the layer whose rows the norm panel compares (the inputs of its two RMSNorms).
NORM_POINTS = ("embed", "resid_attn")


@dataclass(frozen=True)
class Derived:
    """What :func:`derive` found for one trace. Read-only; safe to share between threads."""

    #: (point, token) -> ``compare_norms(trace[point][token], eps=config.rms_norm_eps)``
    norms: Mapping[tuple[str, int], NormComparison] = field(
        default_factory=lambda: MappingProxyType({}))

    def norm_comparison(self, point: str, token: int) -> NormComparison | None:
        """The comparison of row ``token`` at ``point`` if it was derived, else None (the
        caller computes it: the same function of the same row)."""
        return self.norms.get((point, token))


def derive(trace: LayerTrace) -> Derived:
    """Everything in :class:`Derived` for ``trace`` (see the module's docstring)."""
    norms: dict[tuple[str, int], NormComparison] = {}
    last = trace["embed"].shape[0] - 1
    eps = trace.config.rms_norm_eps
    for point in NORM_POINTS:
        try:
            norms[(point, last)] = compare_norms(trace[point][last], eps=eps)
        except EngineError:
            # a row the comparison refuses (a session's one-feature layer): nothing derived,
            # the panel computes it and says why, as it always did
            continue
    return Derived(norms=MappingProxyType(norms))
