"""The one application state: inputs, selection and the current result.

Panels get it in their constructor and subscribe there; they keep no copy of anything held
here. Changing an input (text, causal mask, config, seed) recomputes; changing a selection
(step, head, query token, depth time) never does.

:class:`AppState` is the Qt face (its signals, which panels connect to); what it holds lives
in small plain objects (``app/state_parts.py``), each testable without Qt: :class:`Inputs`
(what is computed, the text's tokens made once per edit), :class:`TextHistory` (undo /
redo), :class:`Results` (the result on screen, its error and sweep, the pinned baseline, the
id results are accepted for), :class:`Selection` and :class:`ViewOptions`.

One request cycle (``docs/architecture.md``): :meth:`AppState.set_text` → :class:`Inputs`
tokenizes → :meth:`AppState._submit` makes the :class:`Request` (tokens and baseline in it) →
the bridge's worker computes → :meth:`AppState._on_result_ready` accepts it if its id is still
the pending one (the one generation check) → the selection it changes, then ``result_changed``.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from app.baseline import BaselineChooser
from app.bridge import EngineBridge
from app.compute import Baseline, Request, Result, SweepFailed
from app.state_parts import (  # noqa: F401  (re-exported: app.state names them)
    _LONE_SURROGATE,
    FONT_SCALE_MAX,
    FONT_SCALE_MIN,
    HISTORY_LIMIT,
    HISTORY_MERGE_S,
    SELECTION_FIELDS,
    THEMES,
    Inputs,
    Results,
    Selection,
    Snapshot,
    TextHistory,
    ViewOptions,
    WeightsSource,
    same_weights,
)
from engine import STEP_NAMES, EngineError, Intervention, LayerWeights, Qwen3Config, StepInfo
from engine.continuous import Convergence
from engine.intervention import BRANCHES, Part
from engine.layer import Step
from engine.model import Qwen3Model
from engine.model_tokens import Piece


class AppState(QObject):
    """Inputs, selection and results. Signals fire on the main thread only."""

    #: A new result was accepted (or ``None``: the empty state).
    result_changed = Signal(object)
    #: An error message for the status bar, "" when the last request succeeded.
    error_changed = Signal(str)
    #: One selection field changed; its name is one of ``SELECTION_FIELDS``.
    selection_changed = Signal(str)
    #: The text, causal flag, config or seed changed (a recompute is on its way).
    inputs_changed = Signal()
    #: The layer (config, seed, weights) changed: the weights' status line follows this, not
    #: every keystroke.
    model_changed = Signal()
    convergence_changed = Signal(object)
    #: The baseline the causality inspector compares against was pinned or released.
    baseline_changed = Signal()
    #: "en" or "zh": which language explanations (not the Qt UI strings) are shown in.
    language_changed = Signal(str)
    #: View options: colour palette key (``app.palettes.PALETTES``), "light"/"dark", the font
    #: scale factor, presentation mode on/off. Panels redraw on them; nothing recomputes.
    palette_changed = Signal(str)
    theme_changed = Signal(str)
    font_scale_changed = Signal(float)
    presentation_changed = Signal(bool)
    #: Space pressed: the depth-time animation should play or pause.
    play_toggle_requested = Signal()
    #: Undo or redo replaced the text; the editor shows it (the state already recomputes).
    text_restored = Signal(str)
    #: The undo/redo stacks changed (menus enable or disable their actions).
    history_changed = Signal()
    #: The text's tokens changed (the token chips show :meth:`token_chips`).
    tokens_changed = Signal()
    #: The intervention changed (an ``engine.Intervention`` or None); a recompute is on its way.
    intervention_changed = Signal(object)
    #: The layer changed under an intervention that names parts it does not have (a toy
    #: head 3 on a model with 16 is fine; neuron 40 of a model on the toy's 32 is not): it was
    #: cleared; the argument is the intervention that was on.
    intervention_dropped = Signal(object)

    def __init__(self, bridge: EngineBridge, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._bridge = bridge
        self.inputs = Inputs()
        self.history = TextHistory()
        self.results = Results()
        self.selection = Selection()
        self.view = ViewOptions()
        self._baselines = BaselineChooser()
        bridge.result_ready.connect(self._on_result_ready)
        bridge.convergence_ready.connect(self._on_convergence_ready)

    # ----- inputs (each recomputes) -----
    @property
    def text(self) -> str:
        return self.inputs.text

    @property
    def tokens(self) -> tuple[str, ...]:
        """The text's tokens (``engine.tokenize``), made once when the text changed."""
        return self.inputs.tokens

    def set_text(self, text: str) -> None:
        # lone surrogates (possible through this call, never from the text field, which drops
        # them) cannot be written as UTF-8: saving, autosave and exports would fail on them
        text = _LONE_SURROGATE.sub("", text)
        if text != self.inputs.text:
            self.history.record(self._snapshot())
            self.inputs.set_text(text)
            # after the change: the Undo action words what it undoes from the difference
            self.history_changed.emit()
            self.tokens_changed.emit()
            self._submit()

    # ----- a real model (engine.model.Qwen3Model) instead of the toy layer -----
    @property
    def model(self) -> Qwen3Model | None:
        """The open model; None on the toy layer (the default)."""
        return self.inputs.model

    @property
    def model_layer(self) -> int:
        """The layer of the open model on show (0 … num_layers − 1)."""
        return self.inputs.model_layer

    @property
    def ids(self) -> tuple[int, ...]:
        """The text's ids under the open model's tokenizer (() on the toy layer)."""
        return self.inputs.ids

    @property
    def pieces(self) -> tuple[Piece, ...]:
        return self.inputs.pieces

    @property
    def pending_bytes(self) -> bytes:
        """Bytes of the last tokens that do not make a whole character yet (after an Append
        of a byte piece); b"" when the text ends on a whole character."""
        pieces = self.inputs.pieces
        tail = b""
        for piece in reversed(pieces):
            if piece.text or piece.special:
                break
            tail = piece.data + tail
        return tail

    def token_chips(self) -> list[tuple[str, str, bool]]:
        """(label, tooltip, special) per token, for the chips under the text field: the
        model's pieces with their ids, or the toy tokenizer's tokens."""
        if self.inputs.model is None:
            return [(t, "", False) for t in self.inputs.tokens]
        return [(label, self.tr("id %1 · %2").replace("%1", str(i)).replace("%2", repr(p.raw)),
                 p.special)
                for label, i, p in zip(self.inputs.tokens, self.inputs.ids, self.inputs.pieces,
                                       strict=True)]

    def open_model(self, model: Qwen3Model, layer: int = 0) -> None:
        """Show ``model``'s layer ``layer`` on its own tokens; the toy layer is kept to go
        back to. A layer outside 0…N−1 raises ValueError and changes nothing."""
        self.inputs.open_model(model, layer)
        self._fit_intervention()
        self.results.pinned = None
        self.tokens_changed.emit()
        self.model_changed.emit()
        self._submit()

    def set_model_layer(self, layer: int) -> None:
        model = self.inputs.model
        if model is None:
            return
        layer = min(max(int(layer), 0), model.num_layers - 1)
        if layer != self.inputs.model_layer:
            self.inputs.set_model_layer(layer)
            self._fit_intervention()
            self.model_changed.emit()
            self._submit()

    def close_model(self) -> None:
        """Back to the toy layer (as it was before the model was opened)."""
        if self.inputs.model is not None:
            self.inputs.close_model()
            self._fit_intervention()
            self.results.pinned = None
            self.tokens_changed.emit()
            self.model_changed.emit()
            self._submit()

    def append_token(self, token_id: int) -> None:
        """Append ``token_id`` (greedy Append of the next-token panel): the ids stay the ones
        the model produced, not the text re-tokenized; where the appended byte piece does not
        complete a character yet, :attr:`pending_bytes` says so."""
        inputs = self.inputs
        model = inputs.model
        if model is None:
            raise ValueError("Append needs a real model open (File ▸ Open model…)")
        if not 0 <= int(token_id) < model.config.vocab_size:
            raise ValueError(f"token id {token_id} is not in 0…{model.config.vocab_size - 1}")
        self.history.record(self._snapshot(), merge=False)
        inputs.set_ids((*inputs.ids, int(token_id)))
        inputs.text = "".join(p.text for p in inputs.pieces)
        self.history_changed.emit()
        self.tokens_changed.emit()
        # the editor shows the text; its echo of it is a no-op here (the same text)
        self.text_restored.emit(inputs.text)
        self._submit()

    # ----- undo / redo of text edits (state-level, whatever widget made the edit) -----
    @property
    def history_merge_s(self) -> float:
        """Seconds within which consecutive text edits merge into one undo step (0: never)."""
        return self.history.merge_s

    @history_merge_s.setter
    def history_merge_s(self, seconds: float) -> None:
        self.history.merge_s = seconds

    @property
    def can_undo(self) -> bool:
        return self.history.can_undo

    @property
    def can_redo(self) -> bool:
        return self.history.can_redo

    def history_step(self, redo: bool = False) -> tuple[str, Snapshot] | None:
        """What the next undo (or redo) changes: ("text", the text it goes back to) or
        ("intervention", the intervention it goes back to); None when there is none."""
        target = self.history.peek(redo)
        if not isinstance(target, Snapshot):
            return None
        return ("text" if target.text != self.inputs.text else "intervention", target)

    def undo_text(self) -> bool:
        """Go back to before the last edit (of the text, or of the intervention); False when
        there is nothing to undo."""
        return self._restore(self.history.undo(self._snapshot()))

    def redo_text(self) -> bool:
        return self._restore(self.history.redo(self._snapshot()))

    def _snapshot(self) -> Snapshot:
        inputs = self.inputs
        return Snapshot(inputs.text, inputs.intervention, inputs.intervene_layers)

    def _restore(self, snapshot: object) -> bool:
        if not isinstance(snapshot, Snapshot):
            return False
        inputs = self.inputs
        text_changed = snapshot.text != inputs.text
        iv_changed = ((snapshot.intervention, snapshot.intervene_layers)
                      != (inputs.intervention, inputs.intervene_layers))
        if text_changed:
            inputs.set_text(snapshot.text)
        inputs.intervention = snapshot.intervention
        inputs.intervene_layers = snapshot.intervene_layers
        self.history_changed.emit()
        if text_changed:
            self.tokens_changed.emit()
            self.text_restored.emit(snapshot.text)
        if iv_changed:
            self.intervention_changed.emit(snapshot.intervention)
        self._submit()
        return True

    # ----- interventions (each recomputes, each one undo step) -----
    @property
    def intervention(self) -> Intervention | None:
        """What is switched off in the layer; None for the plain layer."""
        return self.inputs.intervention

    def set_intervention(self, iv: Intervention | None) -> None:
        """Switch parts of the layer off (``engine.Intervention``; None or an empty one: the
        plain layer). Checked against the layer first: an index it does not have raises
        ``engine.EngineError`` and changes nothing."""
        if iv is not None and not isinstance(iv, Intervention):
            raise TypeError(f"set_intervention takes an engine.Intervention or None, got "
                            f"{type(iv).__name__}")
        iv = None if iv is None or iv.is_empty else iv.check(self.inputs.config)
        if iv == self.inputs.intervention:
            return
        self.history.record(self._snapshot(), merge=False)
        self.inputs.intervention = iv
        self.history_changed.emit()
        self.intervention_changed.emit(iv)
        self._submit()

    @property
    def intervene_layers(self) -> str | None:
        """With a real model: "all" when the intervention runs in every layer, None when in
        the shown layer only."""
        return self.inputs.intervene_layers

    def set_intervene_all(self, on: bool) -> None:
        """Run the intervention in every layer of a real model (True) or in the shown layer
        only (False); one undo step. The toy layer is one layer: it is the same there."""
        value = "all" if on else None
        if value == self.inputs.intervene_layers:
            return
        self.history.record(self._snapshot(), merge=False)
        self.inputs.intervene_layers = value
        self.history_changed.emit()
        self.intervention_changed.emit(self.inputs.intervention)
        if self.inputs.intervention is not None and self.inputs.model is not None:
            self._submit()

    def _current_iv(self) -> Intervention:
        return self.inputs.intervention or Intervention()

    def toggle_head(self, head: int) -> None:
        """Switch query head ``head`` off (its attention output is zero before o_proj), or
        back on (a scaled head goes back to 1 as well)."""
        iv = self._current_iv()
        heads = set(iv.zero_heads)
        scales = dict(iv.scales)
        if head in heads or head in scales:
            heads.discard(head)
            scales.pop(head, None)
        else:
            heads.add(head)
        self.set_intervention(Intervention(zero_heads=tuple(heads), head_scale=scales,
                                           zero_neurons=iv.zero_neurons, skip=iv.skip))

    def scale_head(self, head: int, factor: float) -> None:
        """Head ``head``'s attention output times ``factor`` (1: left alone; 0: zeroed)."""
        iv = self._current_iv()
        heads = set(iv.zero_heads) - {head}
        scales = dict(iv.scales)
        scales.pop(head, None)
        if factor == 0:
            heads.add(head)
        elif factor != 1:
            scales[head] = factor
        self.set_intervention(Intervention(zero_heads=tuple(heads), head_scale=scales,
                                           zero_neurons=iv.zero_neurons, skip=iv.skip))

    def toggle_neuron(self, neuron: int) -> None:
        """Switch MLP neuron ``neuron`` (a column of ``gated``) off, or back on."""
        iv = self._current_iv()
        neurons = set(iv.zero_neurons) ^ {neuron}
        self.set_intervention(Intervention(zero_heads=iv.zero_heads, head_scale=iv.scales,
                                           zero_neurons=tuple(neurons), skip=iv.skip))

    def skip_branch(self, branch: str, skip: bool = True) -> None:
        """Skip the attention or MLP branch (its residual adds nothing), or stop skipping."""
        if branch not in BRANCHES:
            raise ValueError(f"unknown branch {branch!r}; choose one of {', '.join(BRANCHES)}")
        iv = self._current_iv()
        skipped = (set(iv.skip) | {branch}) if skip else (set(iv.skip) - {branch})
        self.set_intervention(Intervention(zero_heads=iv.zero_heads, head_scale=iv.scales,
                                           zero_neurons=iv.zero_neurons, skip=tuple(skipped)))

    def remove_part(self, part: Part) -> None:
        """Undo one part of the intervention (one of ``intervention.parts()``)."""
        iv = self._current_iv()
        heads, scales = set(iv.zero_heads), dict(iv.scales)
        neurons, skipped = set(iv.zero_neurons), set(iv.skip)
        if part.kind == "zero_head":
            heads.discard(part.index)
        elif part.kind == "scale_head":
            scales.pop(part.index, None)  # type: ignore[arg-type]
        elif part.kind == "zero_neuron":
            neurons.discard(part.index)
        elif part.kind == "skip":
            skipped.discard(part.branch)
        else:
            raise ValueError(f"unknown intervention part {part.kind!r}")
        self.set_intervention(Intervention(zero_heads=tuple(heads), head_scale=scales,
                                           zero_neurons=tuple(neurons), skip=tuple(skipped)))

    def _fit_intervention(self) -> None:
        """After the layer changed: an intervention naming a head or neuron the new layer does
        not have is cleared (every compute would otherwise end in the same error), and said.
        Not an undo step: the layer change that caused it is not one either."""
        iv = self.inputs.intervention
        if iv is None:
            return
        try:
            iv.check(self.inputs.config)
        except EngineError:
            self.inputs.intervention = None
            self.intervention_changed.emit(None)
            self.intervention_dropped.emit(iv)

    def clear_intervention(self) -> None:
        """Back to the plain layer (one undo step)."""
        self.set_intervention(None)

    @property
    def causal(self) -> bool:
        return self.inputs.causal

    def set_causal(self, causal: bool) -> None:
        if causal != self.inputs.causal:
            self.inputs.causal = bool(causal)
            self._submit()

    @property
    def config(self) -> Qwen3Config:
        return self.inputs.config

    @property
    def seed(self) -> int:
        return self.inputs.seed

    @property
    def weights(self) -> LayerWeights:
        return self.inputs.weights

    @property
    def weights_source(self) -> WeightsSource | None:
        """The file the weights were read from; None for random weights from :attr:`seed`."""
        return self.inputs.weights_source

    def set_model(self, config: Qwen3Config, seed: int = 0,
                  weights: LayerWeights | None = None,
                  source: WeightsSource | None = None) -> None:
        """New layer: random weights from ``seed`` unless real ``weights`` are given (read
        from ``source``, when they came from a file)."""
        had_model = self.inputs.model is not None
        self.inputs.set_model(config, seed, weights, source)
        self._fit_intervention()
        self.results.pinned = None
        if had_model:
            self.tokens_changed.emit()
        self.model_changed.emit()
        self._submit()

    def recompute(self) -> None:
        self._submit()

    def _baseline_for(self, tokens: tuple[str, ...]) -> Baseline | None:
        """The one place a Request's causality baseline is chosen: the pin, else the sentence
        before the edit began, else the input just before (app.baseline's rule; another
        layer of the same shape is never compared)."""
        return self._baselines_for(tokens, self.inputs.causal)

    def _baselines_for(self, tokens: tuple[str, ...], causal: bool) -> Baseline | None:
        chooser = self._baselines
        chooser.accept(self.results.result)
        chooser.pin(self.results.pinned)
        return chooser.choose(tokens, self.inputs.weights, causal)

    def _submit(self) -> None:
        self.inputs_changed.emit()
        inputs, results = self.inputs, self.results
        results.pending_id = self._bridge.next_id()
        if not inputs.tokens:
            # the friendly empty state (also for text of only invisible characters): nothing
            # to compute, nothing stale on screen
            results.clear()
            self._set_error("")
            self.result_changed.emit(None)
            return
        model = inputs.model
        # with a real model the toggle concerns the shown layer alone (app.compute): the
        # model itself always runs causal, as it was trained
        causal = inputs.causal
        baseline = self._baselines_for(inputs.tokens, causal)
        shown = results.result
        same_model = shown is not None and model is not None and shown.model is model
        cache = shown.model_run if same_model else None
        self._bridge.submit(Request(
            request_id=results.pending_id, text=inputs.text, tokens=inputs.tokens,
            config=inputs.config, weights=inputs.weights, causal=causal,
            baseline=baseline, model=model, ids=inputs.ids, model_layer=inputs.model_layer,
            model_cache=cache, intervention=inputs.intervention,
            intervene_layers=inputs.intervene_layers,
            model_plain=shown.model_plain if same_model else None,
        ))

    # ----- results -----
    @property
    def pending_id(self) -> int:
        """The id of the last request made (the empty state makes one too)."""
        return self.results.pending_id

    @property
    def result(self) -> Result | None:
        """The result on screen: the last one that succeeded (errors keep it)."""
        return self.results.result

    @property
    def error(self) -> str:
        return self.results.error

    @property
    def convergence(self) -> Convergence | None:
        return self.results.convergence

    @property
    def convergence_error(self) -> BaseException | None:
        """Why the current result's convergence sweep did not run (it raised), else None."""
        return self.results.convergence_error

    @property
    def pinned(self) -> Result | None:
        return self.results.pinned

    def pin_baseline(self, pin: bool = True) -> None:
        """Compare edits against the current result until released (instead of the previous)."""
        result = self.results.result
        self.results.pinned = result if pin and result is not None else None
        self.baseline_changed.emit()

    @property
    def error_kind(self) -> tuple[str, dict[str, object]]:
        """The engine's code and parameters of :attr:`error` ("" and {} when it has none)."""
        return self.results.error_kind

    def _set_error(self, message: str, code: str = "",
                   params: dict[str, object] | None = None) -> None:
        # the kind first: a slot reading it on error_changed sees the one of this message
        results = self.results
        results.error_kind = (code, params or {}) if message else ("", {})
        if message != results.error:
            results.error = message
            self.error_changed.emit(message)

    def _on_result_ready(self, result: Result) -> None:
        """Where results are accepted: only the pending request's (see ``Results``)."""
        results = self.results
        if not results.is_current(result.request_id):
            return  # superseded by an empty-text state or a newer request
        if not result.ok:
            self._set_error(result.error or "unknown error", result.error_code,
                            result.error_params)
            return  # the previous result stays on screen
        previous = results.result
        selection = self.selection
        # a query on the last token follows the last token as the sentence grows or shrinks:
        # that token reads the whole sentence (a query picked earlier in it stays where it is)
        first = previous is None
        follow = first or selection.query == len(previous.tokens) - 1
        results.result = result
        results.convergence = None
        results.convergence_error = None
        # every field valid for the new result before any is announced: a panel redraws on
        # "query" with the head as it is (after an empty text, a new layer with fewer heads
        # was indexed with the old head: IndexError)
        changed = selection.clamp(len(result.tokens), result.trace.config.num_attention_heads)
        last = len(result.tokens) - 1
        if follow and (first or selection.query != last):  # (the first result announces it)
            selection.query = last
            changed = ["query", *(f for f in changed if f != "query")]
        self._set_error("")
        self.result_changed.emit(result)
        # the fields the result moved are announced with it, after it: a listener sees the
        # result they belong to (the panels drew both on result_changed)
        for name in changed:
            self.selection_changed.emit(name)
        self.convergence_changed.emit(None)

    def _on_convergence_ready(self, request_id: int,
                              conv: Convergence | SweepFailed | None) -> None:
        results = self.results
        if results.is_current(request_id):
            failed = isinstance(conv, SweepFailed)
            results.convergence = None if failed else conv
            results.convergence_error = conv.error if failed else None
            self.convergence_changed.emit(results.convergence)

    # ----- view options (never recompute) -----
    @property
    def language(self) -> str:
        return self.view.language

    def set_language(self, language: str) -> None:
        if self.view.set_language(language):
            self.language_changed.emit(language)

    def meaning(self, info: StepInfo | Step) -> str:
        """A step's one-line explanation in the current language (a recorded ``Step`` says
        what it is as its layer ran: causal_mask without the mask is a copy of the scores)."""
        return info.meaning_zh if self.view.language == "zh" else info.meaning

    def formula(self, info: StepInfo | Step) -> str:
        """A step's formula in the current language (a few carry words: "per row")."""
        return info.formula_zh if self.view.language == "zh" else info.formula

    @property
    def palette(self) -> str:
        """Colour palette key: "classic" or "colorblind" (see ``app.palettes.PALETTES``)."""
        return self.view.palette

    def set_palette(self, key: str) -> None:
        if self.view.set_palette(key):
            self.palette_changed.emit(key)

    @property
    def theme(self) -> str:
        return self.view.theme

    def set_theme(self, theme: str) -> None:
        if self.view.set_theme(theme):
            self.theme_changed.emit(theme)

    @property
    def font_scale(self) -> float:
        """Text size factor for every panel, axis and label (1 = normal)."""
        return self.view.font_scale

    def set_font_scale(self, scale: float) -> None:
        if self.view.set_font_scale(scale):
            self.font_scale_changed.emit(self.view.font_scale)

    @property
    def presentation(self) -> bool:
        """Presentation mode: full screen, larger text, thicker lines."""
        return self.view.presentation

    def set_presentation(self, on: bool) -> None:
        if self.view.set_presentation(on):
            self.presentation_changed.emit(self.view.presentation)

    def request_play_toggle(self) -> None:
        self.play_toggle_requested.emit()

    # ----- selection (never recomputes) -----
    @property
    def step(self) -> str:
        return self.selection.step

    def set_step(self, name: str) -> None:
        if self.selection.set_step(name):
            self.selection_changed.emit("step")

    def step_by(self, delta: int) -> None:
        """Walk the layer: the next (or previous) step, stopping at the ends."""
        i = min(max(STEP_NAMES.index(self.selection.step) + delta, 0), len(STEP_NAMES) - 1)
        self.set_step(STEP_NAMES[i])

    @property
    def head(self) -> int:
        return self.selection.head

    def set_head(self, head: int) -> None:
        # the heads of the result on screen, which the panels index with it: after a new layer
        # (set_model) the old result stays until the new one arrives, and a head only the new
        # layer has was an IndexError in every panel drawing heads
        result = self.results.result
        config = result.trace.config if result is not None else self.inputs.config
        if self.selection.set_head(head, config.num_attention_heads):
            self.selection_changed.emit("head")

    @property
    def query(self) -> int:
        return self.selection.query

    def set_query(self, query: int) -> None:
        result = self.results.result
        if self.selection.set_query(query, len(result.tokens) if result else 0):
            self.selection_changed.emit("query")

    @property
    def depth_t(self) -> float:
        return self.selection.depth_t

    def set_depth_t(self, t: float) -> None:
        if self.selection.set_depth_t(t):
            self.selection_changed.emit("depth_t")
