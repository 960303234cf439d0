"""What one recompute takes and gives: frozen requests and results, and the pure compute.

Runs on the worker thread, so it touches no Qt object. Everything a panel needs that depends
only on the input (colour levels, norms, entropy, the causality comparison) is computed here,
once, instead of in every panel on every repaint.
"""

from __future__ import annotations

import html
import time
import weakref
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

import numpy as np

import engine
from app.derive import Derived, derive
from engine import EngineError, Intervention, LayerTrace, LayerWeights, Qwen3Config
from engine.causality import CausalityReport, compare_traces
from engine.continuous import Convergence, DepthStates, convergence, depth_states
from engine.model import ModelRun, Qwen3Model
from engine.model_tokens import Piece

#: Which earlier input a result is compared with: the one just before it ("previous"), the
#: pinned one ("pinned"), or an earlier one of as many tokens, the sentence before an edit
#: that went through a shorter one (BackSpace, then the new character: "earlier").
BaselineKind = Literal["previous", "pinned", "earlier"]


@dataclass(frozen=True)
class Baseline:
    """The earlier input a request is compared with (app.baseline chooses it).

    Only what the comparison and its words need, never a whole :class:`Result`: results do not
    chain to one another, so memory stays bounded by the few baselines kept.
    ``trace`` is None when that input ran under another layer (other weights): it is named
    ("the layer changed") but nothing is compared with it."""

    kind: BaselineKind
    text: str
    tokens: tuple[str, ...]
    trace: LayerTrace | None
    request_id: int


@dataclass(frozen=True)
class Request:
    """Every input of one recompute. Frozen so it can cross threads safely."""

    request_id: int
    text: str
    config: Qwen3Config
    weights: LayerWeights
    causal: bool = True
    #: The earlier input the causality inspector compares this one with (None: none).
    baseline: Baseline | None = None
    #: ``engine.tokenize(text)`` when the state made it already (once per edit, on the main
    #: thread); None: :func:`compute` tokenizes.
    tokens: tuple[str, ...] | None = None
    #: A real model (``engine.model.Qwen3Model``): the whole model runs on ``ids`` (its own
    #: tokenizer's, made once per edit by the state) and layer ``model_layer`` is shown;
    #: ``weights`` is then that layer's. None: the toy path (one layer on hashed embeddings).
    model: Qwen3Model | None = None
    ids: tuple[int, ...] = ()
    model_layer: int = 0
    #: The previous run of the same model: its keys and values for the common prefix of ids
    #: are reused (the KV cache); the shown layer still runs whole.
    model_cache: ModelRun | None = None
    #: What is switched off (``engine.Intervention``); None: the plain layer.
    intervention: Intervention | None = None
    #: With a model: the layers the intervention runs in ("all"; None: the shown layer).
    intervene_layers: str | None = None
    #: The plain run kept beside an intervened ``model_cache`` (:attr:`Result.model_plain`).
    model_plain: ModelRun | None = None


def piece_label(piece: Piece) -> str:
    """A model token as a chip or label shows it: the text it completes (``Ġthe`` is
    " the"), or its bytes in hex while they are part of a character not yet complete
    ("‹e6 88›", then "‹91›我" for the byte that completes it); a special token as it is."""
    if piece.special:
        return piece.raw
    try:
        whole = piece.data.decode("utf-8") == piece.text
    except UnicodeDecodeError:
        whole = False
    if whole and piece.text:
        return piece.text
    return "‹" + " ".join(f"{b:02x}" for b in piece.data) + "›" + piece.text


@dataclass(frozen=True)
class InterventionDiff:
    """The intervened run against the plain layer on the same input, step by step (in the
    layer's order). Exact: ``identical`` is bit-for-bit equality."""

    intervention: Intervention
    steps: tuple[str, ...]
    #: step -> every element bitwise equal to the plain run's
    identical: Mapping[str, bool]
    #: step -> largest |intervened − plain| (0.0 when identical; entries equal in both runs,
    #: the masked −∞ scores among them, count as 0)
    max_abs: Mapping[str, float]
    #: step -> how many token rows (query rows for attention maps) differ anywhere
    rows_changed: Mapping[str, int]
    #: the query heads whose columns of ``attn_context`` differ from the plain run's
    context_heads: tuple[int, ...]
    num_heads: int
    num_tokens: int

    @property
    def first_changed(self) -> str | None:
        """The first step that differs, None when the runs are the same bits."""
        return next((name for name in self.steps if not self.identical[name]), None)


def compare_with_plain(plain: LayerTrace, intervened: LayerTrace) -> InterventionDiff:
    """Step by step, what ``intervened`` (the same input under an intervention) changed of
    the ``plain`` run."""
    if intervened.intervention is None:
        raise ValueError("compare_with_plain needs an intervened trace")
    identical: dict[str, bool] = {}
    max_abs: dict[str, float] = {}
    rows: dict[str, int] = {}
    for step in intervened.steps:
        a, b = plain[step.name], step.array
        differs = a != b  # −∞ == −∞ is True: the mask's entries never count as changed
        identical[step.name] = not bool(differs.any())
        if identical[step.name]:
            max_abs[step.name], rows[step.name] = 0.0, 0
            continue
        max_abs[step.name] = float(np.abs(a[differs] - b[differs]).max())
        axis = step.info.token_axis
        others = tuple(i for i in range(differs.ndim) if i != axis)
        rows[step.name] = int(differs.any(axis=others).sum())
    config = intervened.config
    t = intervened["attn_context"].shape[0]
    per_head = (plain["attn_context"] != intervened["attn_context"]).reshape(
        t, config.num_attention_heads, config.head_dim).any(axis=(0, 2))
    return InterventionDiff(
        intervention=intervened.intervention, steps=tuple(s.name for s in intervened.steps),
        identical=identical, max_abs=max_abs, rows_changed=rows,
        context_heads=tuple(int(h) for h in np.flatnonzero(per_head)),
        num_heads=config.num_attention_heads, num_tokens=t)


@dataclass(frozen=True)
class Result:
    """One frozen result per request. ``error`` set means nothing else is."""

    request_id: int
    text: str
    tokens: tuple[str, ...] = ()
    trace: LayerTrace | None = None
    depth: DepthStates | None = None
    #: step name -> (low, high) colour levels: symmetric about 0 for signed steps, (0, 1) for
    #: probabilities. Fixed per result so colours do not jump while a selection changes
    #: (:class:`StepLevels`: each step's levels are found when first asked for, then kept).
    levels: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    #: [3, T] ‖u‖ per token at t = 0, ½, 1.
    token_norms: np.ndarray | None = None
    #: ``depth.norm_curves(n)``: (times [n], ‖u(t)‖ [n, T]) for the depth panel's curves, n from
    #: :func:`norm_curve_points` — 65 evaluations of u(t), done here rather than on the UI thread.
    norm_curves: tuple[np.ndarray, np.ndarray] | None = None
    #: [H, T] attention entropy (nats) of each query row.
    entropy: np.ndarray | None = None
    causality: CausalityReport | None = None
    #: The request's baseline, copied through whether or not it could be compared (its mask
    #: or layer may differ: ``causality`` is then None and the panel says why).
    baseline: Baseline | None = None
    #: The weights the trace ran with: a later input is compared with this one only under the
    #: same weights (a layer's config says nothing of its numbers: layer 3 and 5 share it).
    weights: LayerWeights | None = None
    #: With an intervention on: how the intervened run differs from the plain layer's on the
    #: same input (None without one). ``trace.intervention`` says what is off.
    intervention_diff: InterventionDiff | None = None
    compute_ms: float = 0.0
    error: str | None = None
    #: The EngineError's kind and parameters behind ``error`` (engine.errors.MESSAGES), so the
    #: window can say it in its own language; "" for an error the engine did not word.
    error_code: str = ""
    error_params: dict[str, object] = field(default_factory=dict)
    #: With a real model: its whole forward (residual stream, final norm, logits, the shown
    #: layer's trace, the KV cache's savings) and the model itself; None on the toy layer.
    model_run: ModelRun | None = None
    model: Qwen3Model | None = None
    #: With a model and an intervention: the plain model's run on the same ids (what the
    #: next-token list and the logit lens compare ``model_run`` with); None otherwise.
    model_plain: ModelRun | None = None
    #: The numbers the panels read instead of computing them (app/derive.py); None on errors.
    derived: Derived | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and self.trace is not None

    @property
    def baseline_tokens(self) -> tuple[str, ...]:
        """The tokens :attr:`causality` compared with (() when nothing was compared)."""
        return self.baseline.tokens if self.baseline is not None and self.causality else ()

    @cached_property
    def shown_tokens(self) -> tuple[str, ...]:
        """The tokens as labels, captions and menus show them (:func:`short_token`); exports
        and comparisons use :attr:`tokens`."""
        return tuple(short_token(t) for t in self.tokens)

    @cached_property
    def labels(self) -> list[str]:
        """``"i token"`` per position, the row labels of every token axis."""
        return [f"{i} {t}" for i, t in enumerate(self.shown_tokens)]


#: Longest token text drawn in a label, caption or menu (characters). One unbroken token can be
#: as long as the text itself: 100 000 letters drawn whole into axis labels took seconds of
#: text layout and then crashed Qt's raster engine painting a ~650 000-pixel label.
SHOWN_TOKEN_CHARS = 16
#: The text field's limit (UTF-16 units, as Qt counts): far beyond the engine's token cap, so
#: the cap explains itself; a longer paste or session text is cut or refused with a message.
MAX_TEXT_CHARS = 200_000


def text_length(text: str) -> int:
    """Length as the text field counts it (UTF-16 code units: an emoji is two)."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def short_token(token: str, limit: int = SHOWN_TOKEN_CHARS) -> str:
    """``token``, or its first ``limit - 1`` characters and "…" when it is longer."""
    return token if len(token) <= limit else token[:limit - 1] + "…"


#: First-strong isolate … pop directional isolate (Unicode bidi, UAX #9): text between them keeps
#: its own direction inside but is one neutral character to the text around it. Hebrew or Arabic
#: tokens side by side in a left-to-right line otherwise merge into one right-to-left run, drawn
#: last token first.
FSI, PDI = "\u2068", "\u2069"
#: Left-to-right mark: a strong left-to-right character, no glyph. Qt picks a paragraph's
#: direction from its first strong character without skipping isolates (UAX #9 skips them), so
#: a label that opens with a quoted Hebrew token turned right to left, tokens and all; an LRM
#: before the quote keeps it in the interface's left-to-right direction.
LRM = "\u200e"


def isolated(text: str) -> str:
    """``text`` as a bidi isolate: it cannot reorder, or be reordered with, its neighbours."""
    return f"{FSI}{text}{PDI}"


def token_html(token: str) -> str:
    """:func:`short_token` for rich text: a typed "<" or "&" is shown, not read as markup
    (a "<" token as the strongest key swallowed the rest of the attention caption)."""
    return html.escape(short_token(token), quote=False)


#: Beyond this many state entries (T × D), or this many tokens, the norm curves use 17 points
#: along t instead of 65 (t = 0, ½, 1 always among them). Hundreds of curves drawn as one grey
#: bundle do not need 65 points each: at T = 512 the bundle took 35 ms to stroke, 4× the rest.
LARGE_STATE = 1 << 20
MANY_CURVES = 128


def norm_curve_points(depth: DepthStates) -> int:
    """Points along t for the per-token norm curves (each point is one ``depth.at(t)``)."""
    states = depth.states[0]
    return 65 if states.size <= LARGE_STATE and states.shape[0] <= MANY_CURVES else 17


#: The smallest colour-scale half-width a heatmap is given (well inside float32's range).
MIN_LEVEL = 1e-30


def symmetric_levels(array: np.ndarray) -> tuple[float, float]:
    """(−m, m) with m the largest finite |value| (never 0, so a colour map always has width)."""
    m = 0.0
    if array.size:
        # max(max, −min) is max |value| without a temporary; only a step with −∞ or NaN in it
        # (the masked scores) pays for the finite filter
        m = max(float(array.max()), -float(array.min()))
        if not np.isfinite(m):
            finite = np.isfinite(array)
            m = max(float(array.max(where=finite, initial=-np.inf)),
                    -float(array.min(where=finite, initial=np.inf)))
            m = m if np.isfinite(m) else 1.0  # nothing finite at all
    m = m if m > 0 else 1.0
    # the picture is float32: for a step of ~1e-150 everywhere (a session's rms_norm_eps of
    # 1e300) pyqtgraph's colour scale 255 / 2m overflowed float32 at every paint (warnings on
    # stderr, garbage colours); such values draw as 0 in float32 anyway
    return (-max(m, MIN_LEVEL), max(m, MIN_LEVEL))


class StepLevels(Mapping[str, tuple[float, float]]):
    """The colour levels of every step of ``trace``, each found on first access and kept.

    Only the shown step's heatmap reads them: finding all 23 on the worker took ~2-5 ms of
    every edit at T = 512 (the masked scores' −∞ entries force the finite filter) for one
    of them drawn. Read on the main thread only."""

    def __init__(self, trace: LayerTrace) -> None:
        self._trace = trace
        self._found: dict[str, tuple[float, float]] = {}

    def __getitem__(self, name: str) -> tuple[float, float]:
        found = self._found.get(name)
        if found is None:
            step = self._trace.step(name)  # KeyError for a step the layer does not have
            found = (0.0, 1.0) if step.kind == "probability" else symmetric_levels(step.array)
            self._found[name] = found
        return found

    def __iter__(self) -> Iterator[str]:
        return (step.name for step in self._trace.steps)

    def __len__(self) -> int:
        return len(self._trace.steps)


def _entropy(probs: np.ndarray) -> np.ndarray:
    """−Σ p log p per row. The log is taken only where p > 0 (under the causal mask about half
    of the entries are exact zeros), and 0·log 0 counts as 0."""
    positive = probs > 0
    terms = np.zeros(probs.shape)
    np.log(probs, out=terms, where=positive)
    np.multiply(np.negative(probs), terms, out=terms, where=positive)
    return terms.sum(axis=-1)


class _EmbedCache:
    """Embedding rows by token text. ``engine.embed`` hashes every token on every edit (about
    50 µs a token: 25 ms at T = 512); a row depends only on the token's text and the hidden
    size (its documented contract), so rows seen before are reused bit for bit. Worker thread
    only."""

    LIMIT = 20_000

    def __init__(self) -> None:
        self._rows: dict[tuple[int, str], np.ndarray] = {}

    def embed(self, tokens: tuple[str, ...], hidden_size: int) -> np.ndarray:
        if not tokens or len(tokens) > engine.MAX_TOKENS or hidden_size < 1:
            return engine.embed(list(tokens), hidden_size)  # raises the engine's own message
        rows = self._rows
        new = list(dict.fromkeys(t for t in tokens if (hidden_size, t) not in rows))
        if new:
            if len(rows) + len(new) > self.LIMIT:
                rows.clear()
                new = list(dict.fromkeys(tokens))
            for token, row in zip(new, engine.embed(new, hidden_size), strict=True):
                rows[(hidden_size, token)] = row
        # one copy of the rows end to end (np.stack's per-row views cost ~4x as much at T = 512)
        return np.concatenate([rows[(hidden_size, t)] for t in tokens]).reshape(len(tokens),
                                                                                hidden_size)


_embed_cache = _EmbedCache()


class _EntropyMemo:
    """Attention entropy of the last few traces, so an edit computes only the rows it changed.

    Under the causal mask an edit of token k leaves every earlier row of ``attn_probs``
    bitwise as it was (PAPER E11; the causality report says whether it did), and a row's
    entropy depends on that row alone: those rows are copied from the baseline's entropy, the
    rest computed. At T = 512 that is one row instead of 512 (~12 ms). Only for an unchanged
    token count (a longer row could sum in a different order). Worker thread only.

    The traces are held weakly: which traces stay in memory is the baseline chooser's
    decision (app/baseline.py), and at T = 512 each one is ~26 MB."""

    KEEP = 4

    def __init__(self) -> None:
        self._seen: list[tuple[weakref.ref[LayerTrace], np.ndarray]] = []

    def entropy(self, trace: LayerTrace, base: LayerTrace | None,
                report: CausalityReport | None) -> np.ndarray:
        probs = trace["attn_probs"]
        known = (next((e for t, e in self._seen if t() is base), None) if base is not None
                 else None)
        if (known is not None and report is not None and known.shape == probs.shape[:2]
                and report.num_tokens_before == report.num_tokens_after
                and report.earlier_rows_bitwise_equal["attn_probs"]):
            k = report.first_changed
            out = np.empty(probs.shape[:2])
            out[:, :k] = known[:, :k]
            out[:, k:] = _entropy(probs[:, k:])
        else:
            out = _entropy(probs)
        kept = [(t, e) for t, e in self._seen if t() is not None]
        self._seen = [*kept[-(self.KEEP - 1):], (weakref.ref(trace), out)]
        return out


_entropy_memo = _EntropyMemo()


def compute(request: Request) -> Result:
    """Tokenize, embed, run the layer and derive what the panels show. Never raises for bad
    input: an :class:`EngineError` becomes an error result with the same id."""
    start = time.perf_counter()
    try:
        base = request.baseline.trace if request.baseline is not None else None
        iv = request.intervention
        run = plain_run = None
        if request.model is not None:
            tokens = (request.tokens if request.tokens is not None
                      else tuple(piece_label(p) for p in request.model.pieces(request.ids)))
            # every layer, the KV cache reused for the common prefix; the shown layer's trace
            # is computed whole on its input residual[k], so the causality comparison below
            # is between two full computations, never rows copied from the cache
            run, plain_run = model_runs(request)
            trace = run.trace
            x = run.residual[request.model_layer]  # the shown layer's input
        else:
            tokens = (request.tokens if request.tokens is not None
                      else tuple(engine.tokenize(request.text)))
            x = _embed_cache.embed(tokens, request.config.hidden_size)
            # the baseline (the trace on screen, or the pinned one): its attention rows whose
            # masked scores kept their bits are reused (the same numbers, found faster)
            trace = engine.run_layer(x, request.weights, request.config,
                                     causal=request.causal, reuse=base, intervention=iv)
        if run is not None and not request.causal:
            # the mask toggle with a real model: the shown layer alone runs without the mask,
            # on its real input (the causal model's residual[k]); the model's other layers,
            # its logits and the KV cache stay the causal model's (run)
            trace = engine.run_layer(x, request.weights, request.config, causal=False,
                                     reuse=base, intervention=iv)
        levels = StepLevels(trace)
        depth = depth_states(trace)
        norms = np.linalg.norm(depth.states, axis=-1)  # [3, T]
        curves = depth.norm_curves(norm_curve_points(depth))
        report = None
        # an edit is compared only with a run under the same intervention: switching a head
        # off is not an edit of the text (the intervened-vs-plain comparison says what it did)
        if (base is not None and base.config == trace.config and base.causal == trace.causal
                and base.intervention == trace.intervention):
            report = compare_traces(base, trace)
        diff = None
        if trace.intervention is not None:
            plain = engine.run_layer(x, request.weights, request.config, causal=trace.causal,
                                     reuse=base)
            diff = compare_with_plain(plain, trace)
        entropy = _entropy_memo.entropy(trace, base, report)
        derived = derive(trace)
    except EngineError as exc:
        return Result(request.request_id, request.text, error=str(exc), error_code=exc.code,
                      error_params=exc.params,
                      compute_ms=(time.perf_counter() - start) * 1e3)
    return Result(
        request_id=request.request_id, text=request.text, tokens=tokens, trace=trace,
        depth=depth, levels=levels, token_norms=norms, norm_curves=curves, entropy=entropy,
        causality=report, baseline=request.baseline,
        weights=request.weights, intervention_diff=diff,
        compute_ms=(time.perf_counter() - start) * 1e3,
        model_run=run, model=request.model, model_plain=plain_run, derived=derived,
    )


def model_runs(request: Request) -> tuple[ModelRun, ModelRun | None]:
    """The model's run on show and, under an intervention, the plain run of the same ids.

    The plain run is the earlier one when it ran on these ids (switching a head off, or on
    again, computes nothing plain twice), else a forward with its KV cache; the intervened
    run starts from it (``base``), so only the first intervened layer and the ones after
    it are computed."""
    model, ids, layer = request.model, request.ids, request.model_layer
    assert model is not None
    earlier = next((r for r in (request.model_plain, request.model_cache)
                    if r is not None and not r.is_intervened), None)
    if earlier is not None and earlier.ids == ids:
        plain = earlier
    else:
        plain = model.forward(ids, layer=layer, cache=earlier or request.model_cache)
    if request.intervention is None:
        # (another layer shown on the same ids: the cache gives every row but that layer's)
        return (plain if plain.layer == layer
                else model.forward(ids, layer=layer, cache=plain)), None
    run = model.forward(ids, layer=layer, intervention=request.intervention,
                        intervene_layers=request.intervene_layers, base=plain)
    return run, plain


#: Runs of the layer (evaluations of A + M on a [T, D] state) one convergence sweep costs:
#: Euler and Heun for n = 1, 2, …, 64 (two batched lanes of 64 steps each; Heun evaluates
#: twice per step), an RK4 reference at 16 and 32 steps (two lanes of 32 steps, four
#: evaluations each) and the real layer once: 128 + 256 + 256 + 1 = 641. The panels quote it.
SWEEP_LAYER_RUNS = 641

#: The convergence sweep runs the layer SWEEP_LAYER_RUNS times, so it is skipped when one run
#: of the layer costs more than the toy layer on this many tokens (already seconds of CPU
#: there). A token count alone is no measure: the Qwen3-0.6B shape costs more on one token
#: than the toy on 256.
CONVERGENCE_BUDGET_TOKENS = 256


def layer_work(config: Qwen3Config, tokens: int) -> int:
    """Multiply-adds of one layer run on ``tokens`` tokens: the q, k, v and o projections, the
    MLP's three matrices, and per query head the two T × T products (scores, weighted sum)."""
    q = config.num_attention_heads * config.head_dim
    kv = config.num_key_value_heads * config.head_dim
    per_token = (config.hidden_size * (2 * q + 2 * kv)
                 + 3 * config.hidden_size * config.intermediate_size)
    return tokens * per_token + 2 * config.num_attention_heads * tokens * tokens * config.head_dim


#: The most work one layer run of the sweep may take: the toy layer at the budget's tokens.
CONVERGENCE_BUDGET = layer_work(Qwen3Config.toy(), CONVERGENCE_BUDGET_TOKENS)


def sweeps_convergence(config: Qwen3Config, tokens: int) -> bool:
    """Whether the convergence sweep runs for ``tokens`` tokens through this layer shape."""
    return 0 < tokens and layer_work(config, tokens) <= CONVERGENCE_BUDGET


def convergence_max_tokens(config: Qwen3Config) -> int:
    """The longest input the sweep runs for at this layer shape (0: the layer is too large
    for any). Work grows with the token count, so a bisection finds it."""
    low, high = 0, engine.MAX_TOKENS
    if sweeps_convergence(config, high):
        return high
    while high - low > 1:  # invariant: low sweeps (or is 0), high does not
        mid = (low + high) // 2
        low, high = (mid, high) if sweeps_convergence(config, mid) else (low, mid)
    return low


def convergence_skipped(result: Result | None) -> bool:
    """True for a computed result whose input is too much work for the sweep (the panels say
    why their convergence plot stays empty)."""
    return (result is not None and result.trace is not None
            and not sweeps_convergence(result.trace.config, len(result.tokens)))


@dataclass(frozen=True)
class SweepFailed:
    """What the worker sends instead of a convergence sweep that raised: the engine's refusal
    (a sub-stepped state it cannot normalise, say) or a bug. The panels show why where the plot
    would be; before, they said "computing…" for ever."""

    error: BaseException


def compute_convergence(request: Request, result: Result) -> Convergence | None:
    """The slower follow-up: the layer sub-stepped n = 1..64 times. Runs only when no newer
    request waits, so typing never queues behind it, and only within the work budget."""
    if not result.ok or not sweeps_convergence(request.config, len(result.tokens)):
        return None
    x = result.trace["embed"]  # type: ignore[index]
    return convergence(x, request.weights, request.config, causal=request.causal,
                       intervention=request.intervention)
