"""What one recompute takes and gives: frozen requests and results, and the pure compute.

Runs on the worker thread, so it touches no Qt object. Everything a panel needs that depends
only on the input (colour levels, norms, entropy, the causality comparison) is computed here,
once, instead of in every panel on every repaint.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
from engine.causality import CausalityReport, compare_traces

import engine
from engine import EngineError, LayerTrace, LayerWeights, Qwen3Config
from engine.continuous import Convergence, DepthStates, convergence, depth_states


@dataclass(frozen=True)
class Request:
    """Every input of one recompute. Frozen so it can cross threads safely."""

    request_id: int
    text: str
    config: Qwen3Config
    weights: LayerWeights
    causal: bool = True
    #: The trace shown when the request was made: the causality inspector compares against it.
    baseline: LayerTrace | None = None
    baseline_tokens: tuple[str, ...] = ()


@dataclass(frozen=True)
class Result:
    """One frozen result per request. ``error`` set means nothing else is."""

    request_id: int
    text: str
    tokens: tuple[str, ...] = ()
    trace: LayerTrace | None = None
    depth: DepthStates | None = None
    #: step name -> (low, high) colour levels: symmetric about 0 for signed steps, (0, 1) for
    #: probabilities. Fixed per result so colours do not jump while a selection changes.
    levels: dict[str, tuple[float, float]] = field(default_factory=dict)
    #: [3, T] ‖u‖ per token at t = 0, ½, 1.
    token_norms: np.ndarray | None = None
    #: [H, T] attention entropy (nats) of each query row.
    entropy: np.ndarray | None = None
    causality: CausalityReport | None = None
    baseline_tokens: tuple[str, ...] = ()
    compute_ms: float = 0.0
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and self.trace is not None


def symmetric_levels(array: np.ndarray) -> tuple[float, float]:
    """(−m, m) with m the largest finite |value| (never 0, so a colour map always has width)."""
    finite = array[np.isfinite(array)]
    m = float(np.max(np.abs(finite))) if finite.size else 1.0
    m = m if m > 0 else 1.0
    return (-m, m)


def _entropy(probs: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(probs > 0, -probs * np.log(probs), 0.0)
    return terms.sum(axis=-1)


def compute(request: Request) -> Result:
    """Tokenize, embed, run the layer and derive what the panels show. Never raises for bad
    input: an :class:`EngineError` becomes an error result with the same id."""
    start = time.perf_counter()
    try:
        tokens = tuple(engine.tokenize(request.text))
        x = engine.embed(list(tokens), request.config.hidden_size)
        trace = engine.run_layer(x, request.weights, request.config, causal=request.causal)
        levels = {
            step.name: (0.0, 1.0) if step.kind == "probability" else symmetric_levels(step.array)
            for step in trace.steps
        }
        depth = depth_states(trace)
        norms = np.linalg.norm(depth.states, axis=-1)  # [3, T]
        report = None
        base = request.baseline
        if base is not None and base.config == trace.config and base.causal == trace.causal:
            report = compare_traces(base, trace)
    except EngineError as exc:
        return Result(request.request_id, request.text, error=str(exc),
                      compute_ms=(time.perf_counter() - start) * 1e3)
    return Result(
        request_id=request.request_id, text=request.text, tokens=tokens, trace=trace,
        depth=depth, levels=levels, token_norms=norms, entropy=_entropy(trace["attn_probs"]),
        causality=report, baseline_tokens=request.baseline_tokens if report else (),
        compute_ms=(time.perf_counter() - start) * 1e3,
    )


#: Inputs longer than this skip the convergence sweep: it runs the layer ~130 times.
CONVERGENCE_MAX_TOKENS = 256


def compute_convergence(request: Request, result: Result) -> Convergence | None:
    """The slower follow-up: the layer sub-stepped n = 1..64 times. Runs only when no newer
    request waits, so typing never queues behind it."""
    if not result.ok or len(result.tokens) > CONVERGENCE_MAX_TOKENS:
        return None
    x = result.trace["embed"]  # type: ignore[index]
    return convergence(x, request.weights, request.config, causal=request.causal)
