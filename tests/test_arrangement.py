"""The one rule for a panel's compact and wide arrangements (app.widgets.arrangement)."""

import pytest

from app.widgets.arrangement import (
    SIDE_BY_SIDE_AT,
    STACKED_BELOW,
    Arrangement,
    Hysteresis,
    side_by_side,
)


def test_a_resize_between_the_two_lines_never_flips_the_arrangement():
    calls = []
    arrangement = Arrangement(Hysteresis(10, 12), wide=lambda: calls.append("wide"),
                              compact=lambda: calls.append("compact"))
    for room in (20, 11, 10.5):  # wide until the room falls below 10
        assert not arrangement.update(room)
    assert arrangement.update(9.9) and arrangement.compact and calls == ["compact"]
    for room in (10, 11, 12):  # compact until it rises above 12
        assert not arrangement.update(room) and arrangement.compact
    assert arrangement.update(12.1) and not arrangement.compact
    assert calls == ["compact", "wide"]


def test_leave_below_enter_is_refused():
    with pytest.raises(ValueError, match="leave"):
        Hysteresis(12, 10)


def test_plots_stand_side_by_side_above_one_ratio_and_stack_below_the_other():
    line = 5
    height = 100
    between = round(height * (STACKED_BELOW + SIDE_BY_SIDE_AT) / 2)
    assert not side_by_side(between, height, 3, line, now=False)
    assert side_by_side(between, height, 3, line, now=True)
    assert side_by_side(round(height * SIDE_BY_SIDE_AT) + 1, height, 3, line, now=False)
    assert not side_by_side(round(height * STACKED_BELOW) - 1, height, 3, line, now=True)
    # each column needs its lines of width, whatever the ratio
    assert not side_by_side(250, 100, 3, 10, now=True)
