"""Which earlier input the causality inspector compares a new one with. Qt-free.

People replace the last character by pressing BackSpace and typing the new one. Compared with
the input just before it, the new sentence is compared with the shorter one in between ("6 → 7
tokens, appended at the end"): the comparison is only allclose (docs/continuous.md E12) and
the lesson of the causal mask, earlier rows *bitwise* unchanged (E11), is lost.

The rule, in order:

1. A pinned input is the baseline while it is pinned (under another mask it cannot be
   compared; the panel says to release the pin).
2. Otherwise, among the recent inputs computed under the same weights and mask, the most
   recent one with as many tokens as the new input and the same first token: the new input
   then differs from it only from some position k ≥ 1 on — the sentence before the edit
   began. It is named "previous" when it is the input just before, else "earlier".
3. Otherwise the input just before (a change of length: E12's rounding claim), also when it
   ran under the other mask (nothing is compared; the panel says the mask was switched).
4. An input just before under other weights is named without its trace ("the layer changed"):
   a layer of the same shape with other numbers is no baseline.

Only accepted (shown) results are remembered, at most :data:`KEEP` of them, and only those of
the current weights and mask: a change of either starts the list again. An input with as many
tokens and the same first token as a newer one can no longer be chosen (rule 2 takes the most
recent), so its trace is let go: it keeps its place in the list (what is forgotten when stays
the same) without holding memory (~26 MB per trace at T = 512). Replacing the last word of a
long text then keeps one trace, not six.
"""

from __future__ import annotations

from collections import deque
from dataclasses import replace

from app.compute import Baseline, Result
from engine import LayerWeights

#: Recent inputs kept as candidates (each holds its trace: the memory bound).
KEEP = 6


def baseline_of(result: Result, kind: str = "previous") -> Baseline:
    """The :class:`Baseline` a (successful) result stands for."""
    return Baseline(kind=kind, text=result.text, tokens=result.tokens,  # type: ignore[arg-type]
                    trace=result.trace, request_id=result.request_id)


class BaselineChooser:
    """Keeps the pin and the few recent results' baselines; :meth:`choose` applies the rule."""

    def __init__(self, keep: int = KEEP) -> None:
        if keep < 1:
            raise ValueError(f"keep must be at least 1, got {keep}")
        self._recent: deque[Baseline] = deque(maxlen=keep)
        #: the weights and mask the recent list was computed under
        self._key: tuple[LayerWeights, bool] | None = None
        #: the input just before, under whatever weights and mask, and its weights
        self._last: tuple[Baseline, LayerWeights | None] | None = None
        self._pinned: tuple[Baseline, LayerWeights | None] | None = None

    # ----- what it is told -----
    def accept(self, result: Result | None) -> None:
        """A result was shown (None: the empty text; what came before is forgotten). Telling
        it the same result again changes nothing."""
        if result is None:
            self._recent.clear()
            self._key = None
            self._last = None
            return
        if not result.ok or (self._last is not None
                             and self._last[0].request_id == result.request_id):
            return
        baseline = baseline_of(result)
        key = (result.weights, result.trace.causal)  # type: ignore[union-attr]
        if self._key is None or self._key[0] is not key[0] or self._key[1] != key[1]:
            self._recent.clear()
            self._key = key  # type: ignore[assignment]
        for i, held in enumerate(self._recent):
            if held.trace is not None and _same_shape(held.tokens, baseline.tokens):
                self._recent[i] = replace(held, trace=None)  # never chosen again (rule 2)
        self._recent.append(baseline)
        self._last = (baseline, result.weights)

    def pin(self, result: Result | None) -> None:
        """Pin ``result`` (None: release)."""
        if result is None or not result.ok:
            self._pinned = None
        elif self._pinned is None or self._pinned[0].request_id != result.request_id:
            self._pinned = (baseline_of(result, "pinned"), result.weights)

    @property
    def pinned(self) -> Baseline | None:
        return self._pinned[0] if self._pinned is not None else None

    @property
    def recent(self) -> tuple[Baseline, ...]:
        """The candidates, oldest first (tests read them)."""
        return tuple(self._recent)

    # ----- the rule -----
    def choose(self, tokens: tuple[str, ...], weights: LayerWeights,
               causal: bool) -> Baseline | None:
        """The baseline for a new input of ``tokens`` under ``weights`` and ``causal``."""
        if self._pinned is not None:
            return self._usable(self._pinned, weights)
        if self._last is None:
            return None
        last, last_weights = self._last
        if last_weights is not weights:
            return self._usable(self._last, weights)
        key = self._key
        if key is not None and key[0] is weights and key[1] == causal and tokens:
            for candidate in reversed(self._recent):
                if _same_shape(candidate.tokens, tokens):
                    if candidate.request_id == last.request_id:
                        return candidate
                    return replace(candidate, kind="earlier")
        return last

    @staticmethod
    def _usable(held: tuple[Baseline, LayerWeights | None],
                weights: LayerWeights) -> Baseline:
        baseline, its_weights = held
        return baseline if its_weights is weights else replace(baseline, trace=None)


def _same_shape(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Rule 2's match: as many tokens, the same first one."""
    return len(a) == len(b) and a[:1] == b[:1]
