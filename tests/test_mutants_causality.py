"""Tests that kill mutants of engine/causality.py the other fast tests let live
(docs/testing.md): the entry-by-entry definition of a row's largest |difference|, which decides
the causality figure's masked rows (−∞ against −∞ is no difference, a NaN shows)."""

import numpy as np

from engine.causality import _exact_row_max, _row_max_abs_diff

INF = np.inf


def test_the_definition_row_by_row():
    a = np.array([[1.0, -INF, 3.0], [np.nan, 2.0, 2.0], [0.0, 0.0, 0.0]])
    b = np.array([[1.0, -INF, 5.0], [1.0, 2.0, 2.0], [0.0, 0.0, 0.0]])
    out = _exact_row_max(a, b, 0)
    assert out[0] == 2.0  # |3 − 5|, the −∞ pair counting 0 (not NaN)
    assert np.isnan(out[1])  # a NaN is shown, never hidden
    assert out[2] == 0.0
    assert list(_exact_row_max(b, a, 0)[[0, 2]]) == [2.0, 0.0]  # |·|: the order is no matter


def test_the_definition_along_a_middle_axis_and_for_empty_rows():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 3, 4))
    b = a.copy()
    b[1, 2, 3] -= 0.5
    b[0, 0, 1] += 0.25
    assert list(_exact_row_max(a, b, 1)) == [0.25, 0.0, 0.5]
    assert list(_exact_row_max(np.zeros((2, 0)), np.zeros((2, 0)), 0)) == [0.0, 0.0]


def test_masked_rows_compare_the_minus_infinities_as_equal():
    """A causal_mask block: row k is query k, keys after it −∞ in both traces."""
    t = 5
    a = np.triu(np.full((2, t, t), -INF), 1) + np.tril(np.ones((2, t, t)))
    b = a.copy()
    b[1, 3, 2] = 4.0  # query 3, an earlier key: a real difference of 3
    out = _row_max_abs_diff(a, b, 1, masked_from=0)
    assert list(out) == [0.0, 0.0, 0.0, 3.0, 0.0]
