"""Compare two traces position by position: what the causal mask guarantees
(docs/continuous.md, E11, E12).

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

from engine._checks import readonly as _readonly
from engine.errors import EngineError
from engine.layer import STEP_INFO, STEP_NAMES, LayerTrace

_TOKEN_AXES = ("token", "query token", "key token")


@dataclass(frozen=True)
class CausalityReport:
    """Differences between two traces of the same layer, row by row (docs/continuous.md, E11, E12).

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


#: Entries per block in :func:`_row_max_abs_diff`: the |difference| of a block of rows goes
#: into one reused buffer that stays in cache, not a fresh array the size of the step.
_BLOCK = 1 << 17


#: Up to this many entries a step's comparison costs numpy's calls more than its data (the
#: default sentence's steps hold 40-400), and :func:`compare_traces` takes the row by row
#: definition in one go. Above it, that definition subtracts every row where the equality test
#: of the earlier rows reads them once: a 512-token edit's twenty [T, 16..32] steps took
#: ~0.4 ms more that way (interleaved runs, the worker's cold traces).
_SMALL = 1 << 12


def _rows(array: np.ndarray, axis: int, start: int, stop: int | None = None) -> np.ndarray:
    """``array`` restricted to rows ``start:stop`` along ``axis`` (a view)."""
    return array[(slice(None),) * axis + (slice(start, stop),)]


def _exact_row_max(a: np.ndarray, b: np.ndarray, axis: int) -> np.ndarray:
    """The definition, for any values: the largest ``|a − b|`` of each row along ``axis``,
    where equal entries (also −∞ against −∞) count as 0 and a NaN propagates."""
    unequal = a != b
    diff = np.zeros(a.shape)
    np.subtract(a, b, out=diff, where=unequal)  # never −∞ − −∞
    np.abs(diff, out=diff)
    return np.moveaxis(diff, axis, 0).reshape(a.shape[axis], -1).max(axis=1, initial=0.0)


def _fast_row_max(a: np.ndarray, b: np.ndarray, axis: int, buffer: np.ndarray) -> np.ndarray:
    """:func:`_exact_row_max` for finite values, in ``buffer`` (no fresh step-sized array).
    For finite a ≠ b, a − b ≠ 0 (gradual underflow) and a == b gives +0, so ``|a − b|`` is the
    definition itself. A NaN in the result means a NaN or equal infinities in the input: then
    the definition decides."""
    if a.size == 0:
        return np.zeros(a.shape[axis])
    diff = np.subtract(a, b, out=buffer[:a.size].reshape(a.shape))
    np.abs(diff, out=diff)
    others = tuple(i for i in range(a.ndim) if i != axis)
    result = diff.max(axis=others) if others else diff
    if np.isnan(result).any():
        result = _exact_row_max(a, b, axis)
    return result


def _row_max_abs_diff(a: np.ndarray, b: np.ndarray, axis: int, *,
                      masked_from: int | None = None) -> np.ndarray:
    """The largest ``|a − b|`` of each row along ``axis`` of ``a, b``, equal entries (also −∞
    against −∞) counting as 0; 0 for a row without any difference.

    ``masked_from=r`` says row k is query ``r + k`` of a causal ``causal_mask`` step (keys on the
    last axis), whose keys after the query hold −∞ in both traces. Those are then not
    subtracted (−∞ − −∞ would be NaN): right of a block's diagonal they are compared with
    ``np.array_equal`` (equal: 0), and only the block's own diagonal square takes the
    entry-by-entry definition.
    """
    rows = a.shape[axis]
    result = np.zeros(rows)
    if a.size == 0:
        return result
    chunk = max(1, min(rows, _BLOCK * rows // a.size))
    buffer = np.empty(chunk * (a.size // rows))
    with np.errstate(invalid="ignore"):  # only for NaN/∞ inputs, which the definition settles
        for r0 in range(0, rows, chunk):
            r1 = min(r0 + chunk, rows)
            block_a, block_b = _rows(a, axis, r0, r1), _rows(b, axis, r0, r1)
            if masked_from is None:
                result[r0:r1] = _fast_row_max(block_a, block_b, axis, buffer)
                continue
            q0, q1 = masked_from + r0, masked_from + r1  # the block's queries
            parts = [_fast_row_max(block_a[..., :q0], block_b[..., :q0], axis, buffer),
                     _exact_row_max(block_a[..., q0:q1], block_b[..., q0:q1], axis)]
            if not np.array_equal(block_a[..., q1:], block_b[..., q1:]):
                parts.append(_exact_row_max(block_a[..., q1:], block_b[..., q1:], axis))
            result[r0:r1] = np.max(parts, axis=0)
    return result


def compare_traces(before: LayerTrace, after: LayerTrace) -> CausalityReport:
    """Per step, per token position: how much ``after`` differs from ``before``.

    Both traces must come from the same config and the same ``causal`` setting.
    """
    for name, trace in (("before", before), ("after", after)):
        if not isinstance(trace, LayerTrace):
            raise EngineError("trace_type", name=name, got=type(trace).__name__)
    if before.config != after.config:
        raise EngineError("traces_config_differ")
    if before.causal != after.causal:
        raise EngineError("traces_causal_differ")
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
    changed_columns = np.zeros(common, dtype=bool)  # key columns changed in an earlier row
    for info in STEP_INFO:
        a = _common_block(before[info.name], info.axes, common)
        b = _common_block(after[info.name], info.axes, common)
        axis = info.token_axis
        if a.size <= _SMALL and info.name != "attn_scores":
            # A small step costs numpy's calls, not its data: the definition in one go, row by
            # row. A row holds an unequal pair exactly when its largest |difference| is not 0
            # (finite a ≠ b never subtract to 0; NaN counts as nonzero), so the same numbers
            # say whether the earlier rows are equal (np.array_equal).
            with np.errstate(invalid="ignore"):
                per_row = _exact_row_max(a, b, axis)
            bitwise[info.name] = not per_row[:first].any()
            per_position[info.name] = _readonly(per_row)
            earlier_diff[info.name] = float(per_row[:first].max(initial=0.0))
            continue
        earlier_a, earlier_b = _rows(a, axis, 0, first), _rows(b, axis, 0, first)
        later_a, later_b = _rows(a, axis, first), _rows(b, axis, first)
        per_row = np.zeros(common)
        if info.name == "attn_scores":
            scores_changed = a != b  # [H, common, common], reported in full
            # ``!=`` is the negation of ``==`` entry by entry (NaN included), so this one pass
            # also answers np.array_equal of the earlier rows: equal where none changed
            changed_columns = scores_changed[:, :first].any(axis=(0, 1))
            columns = np.flatnonzero(changed_columns)
            bitwise[info.name] = not columns.size
            # Earlier rows: only the key columns where some entry changed (the edited key's,
            # for an edit) can have a nonzero |difference|; later rows are compared in full.
            if columns.size < common // 4:  # else a gather costs more than it saves
                earlier_a, earlier_b = earlier_a[..., columns], earlier_b[..., columns]
            per_row[:first] = _row_max_abs_diff(earlier_a, earlier_b, axis)
            per_row[first:] = _row_max_abs_diff(later_a, later_b, axis)
        else:
            # The last earlier row first: when a token was appended, rows that moved by
            # rounding are usually there, and then the whole comparison of the earlier rows
            # is skipped.
            last_a, last_b = _rows(a, axis, first - 1, first), _rows(b, axis, first - 1, first)
            bitwise[info.name] = bool(np.array_equal(last_a, last_b)
                                      and np.array_equal(earlier_a, earlier_b))
            masked = info.name == "causal_mask" and before.causal
            if bitwise[info.name]:
                # every earlier entry is == (np.array_equal), so its |difference| is exactly 0
                per_row[first:] = _row_max_abs_diff(later_a, later_b, axis,
                                                    masked_from=first if masked else None)
            else:
                per_row[:] = _row_max_abs_diff(a, b, axis, masked_from=0 if masked else None)
        per_position[info.name] = _readonly(per_row)
        earlier_diff[info.name] = float(per_row[:first].max(initial=0.0))
    earlier_changed = scores_changed[:, :first, :]  # [H, first, common]
    return CausalityReport(
        step_names=STEP_NAMES, num_tokens_before=t_before, num_tokens_after=t_after,
        first_changed=first, per_position=MappingProxyType(per_position),
        earlier_rows_bitwise_equal=MappingProxyType(bitwise),
        earlier_max_abs_diff=MappingProxyType(earlier_diff),
        scores_changed=_readonly(scores_changed),
        scores_changed_count=int(np.count_nonzero(earlier_changed)),
        # the earlier rows' changed columns are known: none of them before ``first``
        scores_changed_future_only=not bool(changed_columns[:first].any()),
        exact=all(equal for name, equal in bitwise.items() if name != "attn_scores"),
    )
