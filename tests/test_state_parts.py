"""The state's parts alone, without Qt: inputs, undo history, results, selection, view."""

from __future__ import annotations

import math

import pytest

from app.state import Inputs, Results, Selection, TextHistory, ViewOptions


def test_inputs_tokenize_once_per_text():
    inputs = Inputs()
    inputs.set_text("我爱 AI!")
    assert inputs.tokens == ("我", "爱", "AI", "!")
    inputs.set_text("   ")
    assert inputs.tokens == ()


def test_history_merges_a_burst_and_walks_back_and_forth():
    history = TextHistory(merge_s=1.0)
    history.record("", now=0.0)
    history.record("a", now=0.5)  # within the burst: one step
    history.record("ab", now=5.0)
    assert history.undo("abc") == "ab"
    assert history.undo("ab") == ""
    assert history.undo("") is None
    assert history.redo("") == "ab" and history.can_redo
    history.record("ab", now=6.0)  # a new edit clears redo
    assert not history.can_redo


def test_history_keeps_at_most_its_limit():
    history = TextHistory(merge_s=0, limit=3)
    for k in range(10):
        history.record(str(k), now=float(k))
    assert [history.undo("x") for _ in range(4)] == ["9", "8", "7", None]


def test_results_accept_only_the_pending_request():
    results = Results(pending_id=4)
    assert results.is_current(4)
    assert not results.is_current(3) and not results.is_current(5)


def test_selection_clamps_and_reports_changes():
    selection = Selection(query=7, head=3)
    assert selection.clamp(n_tokens=4, n_heads=2) == ["query", "head"]
    assert (selection.query, selection.head) == (3, 1)
    assert not selection.set_query(99, n_tokens=4)  # clamped to 3: no change
    assert selection.set_head(-5, n_heads=2) and selection.head == 0
    assert not selection.set_depth_t(math.nan) and selection.depth_t == 1.0
    assert selection.set_depth_t(2.0) is False and selection.depth_t == 1.0
    with pytest.raises(ValueError, match="unknown step"):
        selection.set_step("nope")


def test_view_options_refuse_unknown_values_and_clamp_the_scale():
    view = ViewOptions()
    with pytest.raises(ValueError, match="unknown theme"):
        view.set_theme("sepia")
    with pytest.raises(ValueError, match="unsupported language"):
        view.set_language("fr")
    assert view.set_font_scale(10) and view.font_scale == 3.0
    assert not view.set_font_scale(math.nan)
    assert view.set_presentation(True) and not view.set_presentation(True)
