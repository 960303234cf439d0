"""Compare two traces position by position: what the causal mask guarantees (PAPER E11, E12).

Edit token f and, in a causal layer, every row i < f of every step is *bitwise* unchanged —
except the raw scores ``attn_scores[h, i, f]``: a query still meets the edited key before the
mask, and ``causal_mask`` then removes exactly those entries (j > i). That exception is the
point of the mask, so it is reported on its own. Appending a token changes array shapes, so
earlier rows agree only to rounding (BLAS may block a longer matrix differently): the common
prefix is compared and its largest difference reported.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from engine.errors import EngineError
from engine.layer import STEP_INFO, STEP_NAMES, LayerTrace

_TOKEN_AXES = ("token", "query token", "key token")


def _readonly(array: np.ndarray) -> np.ndarray:
    array = np.ascontiguousarray(array)
    array.setflags(write=False)
    return array


@dataclass(frozen=True)
class CausalityReport:
    """Differences between two traces of the same layer, row by row (PAPER E11, E12).

    ``first_changed`` is the first token whose ``embed`` row differs; when the common prefix is
    identical it is the common length (T for two identical inputs, the old T when a token was
    appended). "Earlier rows" are the rows before it along each step's token axis (the query
    axis for attention maps), restricted to the common prefix on every token axis.
    """

    step_names: tuple[str, ...]
    num_tokens_before: int
    num_tokens_after: int
    first_changed: int
    per_position: Mapping[str, np.ndarray]  # step -> [common] max |difference| of each row
    earlier_rows_bitwise_equal: Mapping[str, bool]  # step -> np.array_equal on earlier rows
    earlier_max_abs_diff: Mapping[str, float]  # step -> max |difference| on earlier rows
    scores_changed: np.ndarray  # [H, common, common] bool: attn_scores entries that differ
    scores_changed_count: int  # changed attn_scores entries in earlier rows
    scores_changed_future_only: bool  # ...all in columns j >= first_changed (so j > i: masked)
    exact: bool  # every step but attn_scores has its earlier rows bitwise equal

    @property
    def common(self) -> int:
        """Tokens compared: the shorter trace's length."""
        return min(self.num_tokens_before, self.num_tokens_after)

    @property
    def changed(self) -> bool:
        """False when both traces are of the same input."""
        return self.first_changed < max(self.num_tokens_before, self.num_tokens_after)

    @property
    def per_position_array(self) -> np.ndarray:
        """``[23, common]`` in step order: the causality figure's image."""
        return _readonly(np.stack([self.per_position[name] for name in self.step_names]))

    @property
    def max_earlier_diff(self) -> float:
        """Largest |difference| on earlier rows over every step except ``attn_scores`` (whose
        future columns legitimately change): 0 exactly for an edit, rounding for an append."""
        return max(diff for name, diff in self.earlier_max_abs_diff.items()
                   if name != "attn_scores")


def _common_block(array: np.ndarray, axes: tuple[str, ...], common: int) -> np.ndarray:
    index = tuple(slice(0, common) if axis in _TOKEN_AXES else slice(None) for axis in axes)
    return array[index]


def _abs_diff(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|a − b| with equal entries (also −∞ against −∞ in the masked scores) counted as 0."""
    with np.errstate(invalid="ignore"):
        return np.where(a == b, 0.0, np.abs(a - b))


def compare_traces(before: LayerTrace, after: LayerTrace) -> CausalityReport:
    """Per step, per token position: how much ``after`` differs from ``before``.

    Both traces must come from the same config and the same ``causal`` setting.
    """
    for name, trace in (("before", before), ("after", after)):
        if not isinstance(trace, LayerTrace):
            raise EngineError(f"{name} must be a LayerTrace, got {type(trace).__name__}")
    if before.config != after.config:
        raise EngineError("the two traces come from different layer configs; compare traces "
                          "of the same layer")
    if before.causal != after.causal:
        raise EngineError("one trace is causal and the other is not; compare like with like")
    t_before, t_after = before.num_tokens, after.num_tokens
    common = min(t_before, t_after)

    embed_diff = _common_block(before["embed"], STEP_INFO[0].axes, common) != \
        _common_block(after["embed"], STEP_INFO[0].axes, common)
    rows_changed = np.flatnonzero(embed_diff.any(axis=1))
    first = int(rows_changed[0]) if rows_changed.size else common

    per_position: dict[str, np.ndarray] = {}
    bitwise: dict[str, bool] = {}
    earlier_diff: dict[str, float] = {}
    scores_changed = np.zeros((0, common, common), dtype=bool)
    for info in STEP_INFO:
        a = _common_block(before[info.name], info.axes, common)
        b = _common_block(after[info.name], info.axes, common)
        axis = info.token_axis
        diff = np.moveaxis(_abs_diff(a, b), axis, 0).reshape(common, -1)  # [common, rest]
        per_position[info.name] = _readonly(diff.max(axis=1, initial=0.0))
        earlier_a = np.moveaxis(a, axis, 0)[:first]
        earlier_b = np.moveaxis(b, axis, 0)[:first]
        bitwise[info.name] = bool(np.array_equal(earlier_a, earlier_b))
        earlier_diff[info.name] = float(diff[:first].max(initial=0.0))
        if info.name == "attn_scores":
            scores_changed = a != b  # [H, common, common]
    earlier_changed = scores_changed[:, :first, :]  # [H, first, common]
    columns = np.arange(common)
    return CausalityReport(
        step_names=STEP_NAMES, num_tokens_before=t_before, num_tokens_after=t_after,
        first_changed=first, per_position=MappingProxyType(per_position),
        earlier_rows_bitwise_equal=MappingProxyType(bitwise),
        earlier_max_abs_diff=MappingProxyType(earlier_diff),
        scores_changed=_readonly(scores_changed),
        scores_changed_count=int(earlier_changed.sum()),
        scores_changed_future_only=not bool(earlier_changed[..., columns < first].any()),
        exact=all(equal for name, equal in bitwise.items() if name != "attn_scores"),
    )
