"""Tests that kill mutants of app/compute.py the other fast tests let live (docs/testing.md):
what a result holds for the panels (tokens as shown, colour levels, norms, entropy), the error
result, and the convergence sweep's work budget."""

from types import SimpleNamespace

import numpy as np
import pytest

import engine
from app.compute import (
    CONVERGENCE_BUDGET,
    CONVERGENCE_BUDGET_TOKENS,
    FSI,
    LRM,
    MIN_LEVEL,
    PDI,
    SHOWN_TOKEN_CHARS,
    Baseline,
    Request,
    Result,
    compute,
    compute_convergence,
    convergence_max_tokens,
    convergence_skipped,
    isolated,
    layer_work,
    norm_curve_points,
    short_token,
    sweeps_convergence,
    symmetric_levels,
    text_length,
    token_html,
)
from engine import LayerWeights, Qwen3Config
from engine.continuous import convergence, depth_states

TOY = Qwen3Config.toy()
WEIGHTS = LayerWeights.random(TOY, 0)


def entropy_of(probs):
    """−Σ p log p per row, 0·log 0 = 0: the definition, row by row."""
    out = np.zeros(probs.shape[:-1])
    for index in np.ndindex(out.shape):
        row = probs[index]
        out[index] = -sum(p * np.log(p) for p in row if p > 0)
    return out


# ----- words and labels -----

def test_text_length_counts_utf16_units():
    assert text_length("ab") == 2
    assert text_length("a😀") == 3  # an emoji is two units in the text field
    assert text_length("\ud800") == 1  # a lone surrogate is counted, not refused


def test_short_token_cuts_at_the_limit():
    assert SHOWN_TOKEN_CHARS == 16
    assert short_token("x" * 16) == "x" * 16
    assert short_token("x" * 17) == "x" * 15 + "…"
    assert short_token("abcdef", limit=4) == "abc…"


def test_isolates_and_html():
    assert (FSI, PDI, LRM) == ("\u2068", "\u2069", "\u200e")
    assert isolated("אב") == "\u2068אב\u2069"
    assert token_html('<a & "b">') == '&lt;a &amp; "b"&gt;'
    assert token_html("<" * 20) == "&lt;" * 15 + "…"


def test_result_labels_and_shown_tokens():
    r = Result(1, "t", tokens=("a", "x" * 20))
    assert r.shown_tokens == ("a", "x" * 15 + "…")
    assert r.labels == ["0 a", "1 " + "x" * 15 + "…"]
    assert not r.ok and r.baseline_tokens == ()


# ----- colour levels -----

@pytest.mark.parametrize("values, expected", [
    ([], 1.0), ([0.0, 0.0], 1.0), ([-3.0, 2.0], 3.0), ([-2.0, 5.0], 5.0),
    ([-np.inf, 2.0], 2.0), ([np.inf, -5.0], 5.0), ([np.nan], 1.0), ([-np.inf, np.nan], 1.0),
    ([1e-150, -1e-150], MIN_LEVEL), ([-np.inf, 0.0], 1.0),
])
def test_symmetric_levels(values, expected):
    assert symmetric_levels(np.array(values, dtype=float)) == (-expected, expected)


def test_min_level_is_far_inside_float32():
    assert MIN_LEVEL == 1e-30


# ----- the norm curves' points -----

@pytest.mark.parametrize("shape, points", [
    ((128, 8), 65), ((129, 8), 17), ((128, 8192), 65), ((128, 8193), 17), ((64, 16385), 17),
])
def test_norm_curve_points_at_the_limits(shape, points):
    states = np.broadcast_to(np.zeros(1), (3, *shape))
    assert norm_curve_points(SimpleNamespace(states=states)) == points


# ----- compute -----

def test_a_result_holds_what_the_panels_draw():
    text = "Attention never reads the future tokens"
    r = compute(Request(5, text, TOY, WEIGHTS))
    assert r.ok and r.request_id == 5 and r.text == text and r.error is None
    assert r.tokens == tuple(engine.tokenize(text)) and r.weights is WEIGHTS
    depth = depth_states(r.trace)
    assert np.array_equal(r.token_norms, np.linalg.norm(depth.states, axis=-1))
    times, curves = depth.norm_curves(65)
    assert np.array_equal(r.norm_curves[0], times) and np.array_equal(r.norm_curves[1], curves)
    np.testing.assert_allclose(r.entropy, entropy_of(r.trace["attn_probs"]), rtol=1e-13,
                               atol=1e-15)
    assert r.causality is None and r.baseline is None and r.compute_ms > 0
    assert r.trace.causal and r.error_code == "" and r.error_params == {}


def test_the_given_tokens_are_used_and_the_mask_is_the_requests():
    r = compute(Request(1, "ignored text", TOY, WEIGHTS, causal=False, tokens=("a", "b")))
    assert r.tokens == ("a", "b") and not r.trace.causal
    assert np.array_equal(r.trace["embed"], engine.embed(["a", "b"], TOY.hidden_size))


def test_an_engine_refusal_is_an_error_result_with_its_code():
    r = compute(Request(9, "", TOY, WEIGHTS))
    assert r.request_id == 9 and r.text == "" and r.trace is None and not r.ok
    try:
        engine.embed([], TOY.hidden_size)
    except engine.EngineError as exc:
        assert (r.error, r.error_code, r.error_params) == (str(exc), exc.code, exc.params)
    else:
        pytest.fail("the engine accepts no tokens")
    assert r.error and r.compute_ms > 0


def test_embedding_rows_are_the_engines_bit_for_bit():
    first = compute(Request(1, "a b c a", TOY, WEIGHTS))
    again = compute(Request(2, "c z a", TOY, WEIGHTS))  # rows seen before, one new
    for r in (first, again):
        assert np.array_equal(r.trace["embed"], engine.embed(list(r.tokens), TOY.hidden_size))


def test_an_edit_reuses_earlier_entropy_rows_and_equals_the_definition():
    text = " ".join(f"w{i}" for i in range(12))
    first = compute(Request(1, text + " a", TOY, WEIGHTS))
    baseline = Baseline("previous", first.text, first.tokens, first.trace, 1)
    edited = compute(Request(2, text + " b", TOY, WEIGHTS, baseline=baseline))
    assert edited.causality is not None and edited.causality.first_changed == 12
    np.testing.assert_allclose(edited.entropy, entropy_of(edited.trace["attn_probs"]),
                               rtol=1e-13, atol=1e-15)
    assert np.array_equal(edited.entropy[:, :12], first.entropy[:, :12])
    # a change of length computes every row afresh
    longer = compute(Request(3, text + " b c", TOY, WEIGHTS, baseline=baseline))
    np.testing.assert_allclose(longer.entropy, entropy_of(longer.trace["attn_probs"]),
                               rtol=1e-13, atol=1e-15)


def test_a_baseline_under_the_other_mask_is_passed_through_uncompared():
    off = compute(Request(1, "a b c", TOY, WEIGHTS, causal=False))
    baseline = Baseline("previous", off.text, off.tokens, off.trace, 1)
    r = compute(Request(2, "a b d", TOY, WEIGHTS, baseline=baseline))
    assert r.causality is None and r.baseline is baseline and r.baseline_tokens == ()
    same = compute(Request(3, "a b e", TOY, WEIGHTS, causal=False, baseline=baseline))
    assert same.causality is not None and same.baseline_tokens == off.tokens


# ----- the convergence sweep's budget -----

def test_layer_work_counts_every_product():
    c = Qwen3Config(hidden_size=8, intermediate_size=12, num_attention_heads=2,
                    num_key_value_heads=1, head_dim=4)
    q, kv = 2 * 4, 1 * 4
    per_token = 8 * (2 * q + 2 * kv) + 3 * 8 * 12
    assert layer_work(c, 5) == 5 * per_token + 2 * 2 * 5 * 5 * 4
    assert CONVERGENCE_BUDGET == layer_work(TOY, CONVERGENCE_BUDGET_TOKENS)
    assert CONVERGENCE_BUDGET_TOKENS == 256


def test_sweeps_only_within_the_budget():
    assert not sweeps_convergence(TOY, 0)
    assert sweeps_convergence(TOY, 1) and sweeps_convergence(TOY, 256)
    assert not sweeps_convergence(TOY, 257)
    assert convergence_max_tokens(TOY) == 256
    assert convergence_max_tokens(Qwen3Config.qwen3_0_6b()) == 0
    mid = Qwen3Config(hidden_size=32, intermediate_size=64, num_attention_heads=4,
                      num_key_value_heads=2, head_dim=8)
    n = convergence_max_tokens(mid)
    assert 0 < n < engine.MAX_TOKENS
    assert sweeps_convergence(mid, n) and not sweeps_convergence(mid, n + 1)


def test_convergence_is_skipped_only_for_a_computed_result_beyond_the_budget():
    assert not convergence_skipped(None)
    assert not convergence_skipped(Result(1, "x", tokens=("a",) * 300))  # no trace
    small = compute(Request(1, "a b", TOY, WEIGHTS))
    assert not convergence_skipped(small)
    big = compute(Request(2, " ".join(["a"] * 257), TOY, WEIGHTS))
    assert len(big.tokens) == 257 and convergence_skipped(big)
    assert compute_convergence(Request(2, "", TOY, WEIGHTS), big) is None
    failed = Result(3, "")
    assert compute_convergence(Request(3, "", TOY, WEIGHTS), failed) is None
    request = Request(1, "a b", TOY, WEIGHTS, causal=False)
    sweep = compute_convergence(request, compute(request))
    assert sweep is not None
    expected = convergence(compute(request).trace["embed"], WEIGHTS, TOY,
                           causal=False)
    for name in ("errors_euler", "errors_second_order", "layer_output"):
        assert np.array_equal(getattr(sweep, name), getattr(expected, name)), name


# ----- second round: what the first mutation run still let through -----

def test_counts_are_whole_numbers():
    assert type(text_length("ab")) is int  # the status bar says "%1 of %2 characters"
    n = convergence_max_tokens(Qwen3Config(hidden_size=32, intermediate_size=64,
                                           num_attention_heads=4, num_key_value_heads=2,
                                           head_dim=8))
    assert type(n) is int  # the panels quote it ("up to %1 tokens")


def test_an_error_result_keeps_the_engines_parameters():
    r = compute(Request(4, "x", TOY, WEIGHTS, tokens=("a",) * 2049))
    assert r.error_code == "token_cap" and r.error_params == {"count": 2049, "limit": 2048}


def test_compute_ms_is_the_measured_time_in_milliseconds(monkeypatch):
    import app.compute

    calls = []

    def clock():
        calls.append(None)
        return 10.0 if len(calls) == 1 else 10.25

    monkeypatch.setattr(app.compute.time, "perf_counter", clock)
    assert compute(Request(1, "a b", TOY, WEIGHTS)).compute_ms == 250.0
    calls.clear()
    assert compute(Request(2, "", TOY, WEIGHTS)).compute_ms == 250.0  # the error result too


def test_the_result_holds_its_depth_states():
    r = compute(Request(1, "a b c", TOY, WEIGHTS))
    assert np.array_equal(r.depth.states, depth_states(r.trace).states)


def test_the_entropy_memo_reuses_only_the_baselines_own_rows():
    text = " ".join(f"v{i}" for i in range(12))
    compute(Request(1, " ".join(f"u{i}" for i in range(13)), TOY, WEIGHTS))  # same T, other rows
    first = compute(Request(2, text + " a", TOY, WEIGHTS))
    baseline = Baseline("previous", first.text, first.tokens, first.trace, 2)
    edited = compute(Request(3, text + " b", TOY, WEIGHTS, baseline=baseline))
    np.testing.assert_allclose(edited.entropy, entropy_of(edited.trace["attn_probs"]),
                               rtol=1e-13, atol=1e-15)
    # a baseline the memo never saw (computed elsewhere) is compared, its rows computed
    trace = engine.run_layer(first.trace["embed"], WEIGHTS, TOY)
    unseen = Baseline("previous", first.text, first.tokens, trace, 9)
    r = compute(Request(4, text + " c", TOY, WEIGHTS, baseline=unseen))
    assert r.causality is not None
    np.testing.assert_allclose(r.entropy, entropy_of(r.trace["attn_probs"]), rtol=1e-13,
                               atol=1e-15)


def test_the_entropy_memo_keeps_no_trace_alive_and_still_reuses_a_live_one(monkeypatch):
    import gc
    import weakref

    import app.compute as compute_module

    memo = compute_module._EntropyMemo()
    rows_computed = []
    real = compute_module._entropy
    monkeypatch.setattr(compute_module, "_entropy",
                        lambda probs: rows_computed.append(probs.shape[1]) or real(probs))
    text = " ".join(f"v{i}" for i in range(12))
    first = engine.run_layer(engine.embed(engine.tokenize(text + " a"), TOY.hidden_size),
                             WEIGHTS, TOY)
    second = engine.run_layer(engine.embed(engine.tokenize(text + " b"), TOY.hidden_size),
                              WEIGHTS, TOY)
    memo.entropy(first, None, None)
    report = engine.causality.compare_traces(first, second)
    memo.entropy(second, first, report)
    assert rows_computed == [13, 13 - report.first_changed] and report.first_changed == 12
    gone = weakref.ref(first)
    del first
    gc.collect()
    assert gone() is None  # the memo held it only weakly


def test_the_embedding_cache_starts_again_beyond_its_limit():
    from app.compute import _EmbedCache

    cache = _EmbedCache()
    cache.LIMIT = 3
    for tokens in (("a", "b"), ("c", "d"), ("a", "e", "a")):
        assert np.array_equal(cache.embed(tokens, 8), engine.embed(list(tokens), 8))
    with pytest.raises(engine.EngineError):
        cache.embed(("a",), 0)
