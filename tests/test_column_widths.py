"""The norm panel's table columns (``norm_parts.column_widths``), without a window: every
number fits, the spare room is shared out evenly, and widths that still serve are kept."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from app.widgets.norm_parts import column_widths

needs_st = st.lists(st.integers(1, 200), min_size=1, max_size=6)


def test_the_spare_room_goes_out_evenly_left_columns_first():
    assert column_widths([10, 20, 30], 5, [0, 0, 0]) == [12, 22, 31]


def test_columns_that_do_not_fit_get_their_needs():
    assert column_widths([10, 20, 30], -4, [40, 40, 40]) == [10, 20, 30]
    assert column_widths([], 5, []) == []  # (no columns: nothing to share)


def test_held_widths_that_hold_the_numbers_and_fill_the_room_are_kept():
    # an edit made the first column's number a digit narrower: nothing moves
    assert column_widths([8, 20, 30], 7, [12, 22, 31]) == [12, 22, 31]
    # a column exactly as wide as its number still holds it
    assert column_widths([10, 20, 30], 2, [10, 22, 30]) == [10, 22, 30]
    # a number grew past its column: shared out again
    assert column_widths([13, 20, 30], 2, [12, 22, 31]) == [14, 21, 30]
    # the room changed (a wider dock): shared out again
    assert column_widths([10, 20, 30], 8, [12, 22, 31]) == [13, 23, 32]


@given(needs_st, st.integers(0, 300), st.data())
def test_the_widths_fill_the_room_and_hold_every_number(needs, spare, data):
    held = data.draw(st.lists(st.integers(0, 400), min_size=len(needs), max_size=len(needs)))
    widths = column_widths(needs, spare, held)
    assert sum(widths) == sum(needs) + spare
    assert all(w >= n for w, n in zip(widths, needs, strict=True))
    if widths != held:  # shared out: no two columns' extras differ by more than a pixel
        extras = [w - n for w, n in zip(widths, needs, strict=True)]
        assert max(extras) - min(extras) <= 1
        assert extras == sorted(extras, reverse=True)


@given(needs_st, st.integers(-300, -1), st.data())
def test_a_table_that_does_not_fit_gets_exactly_its_needs(needs, spare, data):
    held = data.draw(st.lists(st.integers(0, 400), min_size=len(needs), max_size=len(needs)))
    assert column_widths(needs, spare, held) == needs
