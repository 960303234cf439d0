"""The one application state: inputs, selection and the current result.

Panels get it in their constructor and subscribe there; they keep no copy of anything held
here. Changing an input (text, causal mask, config, seed) recomputes; changing a selection
(step, head, query token, depth time) never does.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal

import engine
from app.baseline import BaselineChooser
from app.bridge import EngineBridge
from app.compute import Baseline, Request, Result, SweepFailed
from engine import STEP_NAMES, LayerWeights, Qwen3Config, StepInfo, ops
from engine.continuous import Convergence
from engine.layer import Step

#: Selection fields, the values ``selection_changed`` carries.
SELECTION_FIELDS = ("step", "head", "query", "depth_t")

#: View options (never recompute): palette key, theme, font scale.
THEMES = ("light", "dark")
FONT_SCALE_MIN, FONT_SCALE_MAX = 0.7, 3.0
#: Text edits closer together than this (seconds) are one undo step, so undo goes back a burst
#: of typing rather than a single keystroke.
HISTORY_MERGE_S = 0.8
HISTORY_LIMIT = 200


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class WeightsSource:
    """Where the layer's weights were read from (``engine.checkpoint.load_layer``)."""

    path: str
    layer: int
    #: sha256 of the stored numbers: a session reopened later tells a changed file
    fingerprint: str
    #: config fields not in the file's config.json, taken from Qwen3's defaults
    assumed: tuple[str, ...] = ()


def same_weights(a: LayerWeights, b: LayerWeights) -> bool:
    """Whether two layers hold the same numbers (the same object, or equal config and
    tensors, bit for bit)."""
    if a is b:
        return True
    if a.config != b.config:
        return False
    return all(ops.same_bits(a[name], b[name]) for name in engine.weight_shapes(a.config))


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

    def __init__(self, bridge: EngineBridge, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._bridge = bridge
        self._text = ""
        self._causal = True
        self._config = Qwen3Config.toy()
        self._seed = 0
        self._weights = LayerWeights.random(self._config, self._seed)
        self._weights_source: WeightsSource | None = None
        self._result: Result | None = None
        self._error = ""
        self._error_kind: tuple[str, dict[str, object]] = ("", {})
        self._convergence: Convergence | None = None
        #: why the current result's convergence sweep did not run (it raised), else None
        self._convergence_error: BaseException | None = None
        self._pinned: Result | None = None
        self._baselines = BaselineChooser()
        self._step = "attn_probs"
        self._head = 0
        self._query = 0
        self._depth_t = 1.0
        self._language = "en"
        self._palette = "classic"
        self._theme = "light"
        self._font_scale = 1.0
        self._presentation = False
        self._undo: list[str] = []
        self._redo: list[str] = []
        self._last_edit = -float("inf")
        #: Seconds within which consecutive text edits merge into one undo step (0: never).
        self.history_merge_s = HISTORY_MERGE_S
        self.pending_id = 0
        bridge.result_ready.connect(self._on_result_ready)
        bridge.convergence_ready.connect(self._on_convergence_ready)

    # ----- inputs (each recomputes) -----
    @property
    def text(self) -> str:
        return self._text

    def set_text(self, text: str) -> None:
        # lone surrogates (possible through this call, never from the text field, which drops
        # them) cannot be written as UTF-8: saving, autosave and exports would fail on them
        text = _LONE_SURROGATE.sub("", text)
        if text != self._text:
            self._record_history()
            self._text = text
            self._submit()

    # ----- undo / redo of text edits (state-level, whatever widget made the edit) -----
    def _record_history(self) -> None:
        now = time.monotonic()
        if not (self._undo and now - self._last_edit < self.history_merge_s):
            self._undo.append(self._text)
            del self._undo[:-HISTORY_LIMIT]
        self._last_edit = now
        self._redo.clear()
        self.history_changed.emit()

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    def undo_text(self) -> bool:
        """Go back to the text before the last edit; False when there is nothing to undo."""
        if not self._undo:
            return False
        self._redo.append(self._text)
        self._restore_text(self._undo.pop())
        return True

    def redo_text(self) -> bool:
        if not self._redo:
            return False
        self._undo.append(self._text)
        self._restore_text(self._redo.pop())
        return True

    def _restore_text(self, text: str) -> None:
        self._last_edit = -float("inf")  # the next edit starts a new undo step
        self._text = text
        self.history_changed.emit()
        self.text_restored.emit(text)
        self._submit()

    @property
    def causal(self) -> bool:
        return self._causal

    def set_causal(self, causal: bool) -> None:
        if causal != self._causal:
            self._causal = bool(causal)
            self._submit()

    @property
    def config(self) -> Qwen3Config:
        return self._config

    @property
    def seed(self) -> int:
        return self._seed

    @property
    def weights(self) -> LayerWeights:
        return self._weights

    @property
    def weights_source(self) -> WeightsSource | None:
        """The file the weights were read from; None for random weights from :attr:`seed`."""
        return self._weights_source

    def set_model(self, config: Qwen3Config, seed: int = 0,
                  weights: LayerWeights | None = None,
                  source: WeightsSource | None = None) -> None:
        """New layer: random weights from ``seed`` unless real ``weights`` are given (read
        from ``source``, when they came from a file)."""
        # the weights first: if making them fails, the layer on screen stays whole
        new = weights if weights is not None else LayerWeights.random(config, seed)
        # the same numbers again (a session or example with this layer) keep the object: the
        # causality panel compares an input only with one computed under the same weights
        if not same_weights(new, self._weights):
            self._weights = new
        self._weights_source = source if weights is not None else None
        self._config = config
        self._seed = seed
        self._pinned = None
        self._submit()

    def recompute(self) -> None:
        self._submit()

    def _submit(self) -> None:
        self.inputs_changed.emit()
        tokens = engine.tokenize(self._text)
        if not tokens:
            # the friendly empty state (also for text of only invisible characters): nothing
            # to compute, nothing stale on screen
            self.pending_id = self._bridge.next_id()
            self._result = None
            self._convergence = None
            self._convergence_error = None
            self._set_error("")
            self.result_changed.emit(None)
            return
        baseline = self._causality_baseline(tuple(tokens))
        self.pending_id = self._bridge.next_id()
        self._bridge.submit(Request(
            request_id=self.pending_id, text=self._text, config=self._config,
            weights=self._weights, causal=self._causal, baseline=baseline,
        ))

    def _causality_baseline(self, tokens: tuple[str, ...]) -> Baseline | None:
        """The earlier input the new one (``tokens``) is compared with: the pin, else the
        sentence before the edit began, else the input just before (app.baseline's rule;
        another layer of the same shape is never compared)."""
        self._baselines.accept(self._result)
        self._baselines.pin(self._pinned)
        return self._baselines.choose(tokens, self._weights, self._causal)

    # ----- results -----
    @property
    def result(self) -> Result | None:
        """The result on screen: the last one that succeeded (errors keep it)."""
        return self._result

    @property
    def error(self) -> str:
        return self._error

    @property
    def convergence(self) -> Convergence | None:
        return self._convergence

    @property
    def convergence_error(self) -> BaseException | None:
        """Why the current result's convergence sweep did not run (it raised), else None."""
        return self._convergence_error

    @property
    def pinned(self) -> Result | None:
        return self._pinned

    def pin_baseline(self, pin: bool = True) -> None:
        """Compare edits against the current result until released (instead of the previous)."""
        self._pinned = self._result if pin and self._result is not None else None
        self.baseline_changed.emit()

    @property
    def error_kind(self) -> tuple[str, dict[str, object]]:
        """The engine's code and parameters of :attr:`error` ("" and {} when it has none)."""
        return self._error_kind

    def _set_error(self, message: str, code: str = "",
                   params: dict[str, object] | None = None) -> None:
        # the kind first: a slot reading it on error_changed sees the one of this message
        self._error_kind = (code, params or {}) if message else ("", {})
        if message != self._error:
            self._error = message
            self.error_changed.emit(message)

    def _on_result_ready(self, result: Result) -> None:
        if result.request_id != self.pending_id:
            return  # superseded by an empty-text state or a newer request
        if not result.ok:
            self._set_error(result.error or "unknown error", result.error_code,
                            result.error_params)
            return  # the previous result stays on screen
        previous = self._result
        # a query on the last token follows the last token as the sentence grows or shrinks:
        # that token reads the whole sentence (a query picked earlier in it stays where it is)
        first = previous is None
        follow = first or self._query == len(previous.tokens) - 1
        self._result = result
        self._convergence = None
        self._convergence_error = None
        # every field valid for the new result before any is announced: a panel redraws on
        # "query" with the head as it is (after an empty text, a new layer with fewer heads
        # was indexed with the old head: IndexError)
        changed = self._clamp_selection(len(result.tokens),
                                        result.trace.config.num_attention_heads)
        last = len(result.tokens) - 1
        if follow and (first or self._query != last):  # (the first result announces it)
            self._query = last
            changed = ["query", *(f for f in changed if f != "query")]
        for field in changed:
            self.selection_changed.emit(field)
        self._set_error("")
        self.result_changed.emit(result)
        self.convergence_changed.emit(None)

    def _on_convergence_ready(self, request_id: int,
                              conv: Convergence | SweepFailed | None) -> None:
        if request_id == self.pending_id:
            failed = isinstance(conv, SweepFailed)
            self._convergence = None if failed else conv
            self._convergence_error = conv.error if failed else None
            self.convergence_changed.emit(self._convergence)

    # ----- view options (never recompute) -----
    @property
    def language(self) -> str:
        return self._language

    def set_language(self, language: str) -> None:
        if language not in ("en", "zh"):
            raise ValueError(f"unsupported language {language!r}")
        if language != self._language:
            self._language = language
            self.language_changed.emit(language)

    def meaning(self, info: StepInfo | Step) -> str:
        """A step's one-line explanation in the current language (a recorded ``Step`` says
        what it is as its layer ran: causal_mask without the mask is a copy of the scores)."""
        return info.meaning_zh if self._language == "zh" else info.meaning

    def formula(self, info: StepInfo | Step) -> str:
        """A step's formula in the current language (a few carry words: "per row")."""
        return info.formula_zh if self._language == "zh" else info.formula

    @property
    def palette(self) -> str:
        """Colour palette key: "classic" or "colorblind" (see ``app.palettes.PALETTES``)."""
        return self._palette

    def set_palette(self, key: str) -> None:
        from app.palettes import PALETTES

        if key not in PALETTES:
            raise ValueError(f"unknown palette {key!r}; choose one of {', '.join(PALETTES)}")
        if key != self._palette:
            self._palette = key
            self.palette_changed.emit(key)

    @property
    def theme(self) -> str:
        return self._theme

    def set_theme(self, theme: str) -> None:
        if theme not in THEMES:
            raise ValueError(f"unknown theme {theme!r}; choose one of {', '.join(THEMES)}")
        if theme != self._theme:
            self._theme = theme
            self.theme_changed.emit(theme)

    @property
    def font_scale(self) -> float:
        """Text size factor for every panel, axis and label (1 = normal)."""
        return self._font_scale

    def set_font_scale(self, scale: float) -> None:
        if math.isnan(scale):  # NaN slips through min/max (and hung the painter)
            return
        scale = round(min(max(float(scale), FONT_SCALE_MIN), FONT_SCALE_MAX), 2)
        if scale != self._font_scale:
            self._font_scale = scale
            self.font_scale_changed.emit(scale)

    @property
    def presentation(self) -> bool:
        """Presentation mode: full screen, larger text, thicker lines."""
        return self._presentation

    def set_presentation(self, on: bool) -> None:
        if bool(on) != self._presentation:
            self._presentation = bool(on)
            self.presentation_changed.emit(self._presentation)

    def request_play_toggle(self) -> None:
        self.play_toggle_requested.emit()

    # ----- selection (never recomputes) -----
    @property
    def step(self) -> str:
        return self._step

    def set_step(self, name: str) -> None:
        if name not in STEP_NAMES:
            raise ValueError(f"unknown step {name!r}")
        if name != self._step:
            self._step = name
            self.selection_changed.emit("step")

    def step_by(self, delta: int) -> None:
        """Walk the layer: the next (or previous) step, stopping at the ends."""
        i = min(max(STEP_NAMES.index(self._step) + delta, 0), len(STEP_NAMES) - 1)
        self.set_step(STEP_NAMES[i])

    @property
    def head(self) -> int:
        return self._head

    def set_head(self, head: int) -> None:
        # the heads of the result on screen, which the panels index with it: after a new layer
        # (set_model) the old result stays until the new one arrives, and a head only the new
        # layer has was an IndexError in every panel drawing heads
        config = self._result.trace.config if self._result is not None else self._config
        head = min(max(int(head), 0), config.num_attention_heads - 1)
        if head != self._head:
            self._head = head
            self.selection_changed.emit("head")

    @property
    def query(self) -> int:
        return self._query

    def set_query(self, query: int) -> None:
        limit = len(self._result.tokens) - 1 if self._result else 0
        query = min(max(int(query), 0), max(limit, 0))
        if query != self._query:
            self._query = query
            self.selection_changed.emit("query")

    @property
    def depth_t(self) -> float:
        return self._depth_t

    def set_depth_t(self, t: float) -> None:
        if math.isnan(t):  # NaN slips through min/max
            return
        t = min(max(float(t), 0.0), 1.0)
        if t != self._depth_t:
            self._depth_t = t
            self.selection_changed.emit("depth_t")

    def _clamp_selection(self, n_tokens: int, n_heads: int) -> list[str]:
        """Bring query and head into range (silently); the fields that changed."""
        changed = []
        if self._query >= n_tokens:
            self._query = n_tokens - 1
            changed.append("query")
        if self._head >= n_heads:
            self._head = n_heads - 1
            changed.append("head")
        return changed
