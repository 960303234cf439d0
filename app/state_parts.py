"""The plain parts :class:`app.state.AppState` holds, each testable without Qt: what is
computed (:class:`Inputs`), undo / redo (:class:`TextHistory`), the result on screen and the
one generation check (:class:`Results`), the selection and the view options.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass
from typing import NamedTuple

import engine
from app.compute import Result, piece_label
from engine import STEP_NAMES, Intervention, LayerWeights, Qwen3Config, ops
from engine.continuous import Convergence
from engine.model import Qwen3Model
from engine.model_tokens import Piece

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


# ----- the parts (plain objects, no Qt) -----
class Inputs:
    """What one recompute reads: the text and its tokens, the mask, the layer."""

    def __init__(self) -> None:
        self.text = ""
        #: ``engine.tokenize(text)``, made once per text change: the request carries it to the
        #: worker, and the empty state is decided on it (nothing else tokenizes the text again)
        self.tokens: tuple[str, ...] = ()
        self.causal = True
        self.config = Qwen3Config.toy()
        self.seed = 0
        self.weights = LayerWeights.random(self.config, self.seed)
        self.weights_source: WeightsSource | None = None
        #: A real model open (None: the toy layer), the layer shown, and the text's ids under
        #: its tokenizer with their readable pieces (made once per edit, like ``tokens``)
        self.model: Qwen3Model | None = None
        self.model_layer = 0
        self.ids: tuple[int, ...] = ()
        self.pieces: tuple[Piece, ...] = ()
        #: the toy layer's (config, seed, weights, source), kept while a model is open
        self._toy: tuple[Qwen3Config, int, LayerWeights, WeightsSource | None] | None = None
        #: What is switched off in the layer (None: the plain layer; never an empty one).
        self.intervention: Intervention | None = None
        #: Where a real model runs it: "all" in every layer, None the shown layer only (the
        #: toy has one layer: it reads nothing here)
        self.intervene_layers: str | None = None

    def set_text(self, text: str) -> None:
        self.text = text
        self._tokenize()

    @property
    def toy(self) -> tuple[Qwen3Config, int, WeightsSource | None]:
        """The toy layer's config, seed and weights file (the one behind an open model)."""
        if self._toy is not None:
            return self._toy[0], self._toy[1], self._toy[3]
        return self.config, self.seed, self.weights_source

    def _tokenize(self) -> None:
        model = self.model
        if model is None:
            self.ids, self.pieces = (), ()
            self.tokens = tuple(engine.tokenize(self.text))
            return
        self.set_ids(tuple(model.encode(self.text)) if self.text else ())

    def set_ids(self, ids: tuple[int, ...]) -> None:
        """The model's ids as they are (an appended token stays the id the model produced)."""
        assert self.model is not None
        self.ids = ids
        self.pieces = self.model.pieces(ids) if ids else ()
        self.tokens = tuple(piece_label(p) for p in self.pieces)

    def open_model(self, model: Qwen3Model, layer: int) -> None:
        if not 0 <= layer < model.num_layers:
            raise ValueError(f"layer {layer} is not in 0…{model.num_layers - 1}")
        if self.model is None:
            self._toy = (self.config, self.seed, self.weights, self.weights_source)
        self.model = model
        self.set_model_layer(layer)
        self._tokenize()

    def set_model_layer(self, layer: int) -> None:
        assert self.model is not None
        self.model_layer = layer
        self.config = self.model.layer_config
        self.weights = self.model.layers[layer]
        self.weights_source = None

    def close_model(self) -> None:
        """Back to the toy layer as it was before the model was opened."""
        if self.model is None:
            return
        self.model = None
        if self._toy is not None:
            self.config, self.seed, self.weights, self.weights_source = self._toy
        self._toy = None
        self._tokenize()

    def set_model(self, config: Qwen3Config, seed: int, weights: LayerWeights | None,
                  source: WeightsSource | None) -> None:
        # the weights first: if making them fails, the layer on screen stays whole
        new = weights if weights is not None else LayerWeights.random(config, seed)
        if self.model is not None:  # a toy layer asked for: the model closes
            self.model = None
            self._toy = None
            self._tokenize()
        # the same numbers again (a session or example with this layer) keep the object: the
        # causality panel compares an input only with one computed under the same weights
        if not same_weights(new, self.weights):
            self.weights = new
        self.weights_source = source if weights is not None else None
        self.config = config
        self.seed = seed


class Snapshot(NamedTuple):
    """What one undo step restores: the text and the intervention (and its layers)."""

    text: str
    intervention: Intervention | None = None
    intervene_layers: str | None = None


class TextHistory:
    """Undo and redo of text edits and intervention changes, whatever widget made them, in
    the order they were made; a burst of typing (edits closer than :attr:`merge_s`) is one
    step. It holds whatever its owner records (the state records :class:`Snapshot` s)."""

    def __init__(self, merge_s: float = HISTORY_MERGE_S, limit: int = HISTORY_LIMIT) -> None:
        #: Seconds within which consecutive text edits merge into one undo step (0: never).
        self.merge_s = merge_s
        self.limit = limit
        self._undo: list = []
        self._redo: list = []
        self._last_edit = -float("inf")

    def record(self, before: object, now: float | None = None, merge: bool = True) -> None:
        """An edit replaces ``before``. ``merge=False``: a step of its own, never merged with
        the edits around it (switching a head off is one deliberate act)."""
        now = time.monotonic() if now is None else now
        if not (merge and self._undo and now - self._last_edit < self.merge_s):
            self._undo.append(before)
            del self._undo[:-self.limit]
        self._last_edit = now if merge else -float("inf")
        self._redo.clear()

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    def peek(self, redo: bool = False) -> object | None:
        """What the next undo (``redo``: redo) would give back, without taking it."""
        stack = self._redo if redo else self._undo
        return stack[-1] if stack else None

    def undo(self, current: object) -> object | None:
        """The text before the last edit (``current`` goes on the redo stack); None if none."""
        if not self._undo:
            return None
        self._redo.append(current)
        self._last_edit = -float("inf")  # the next edit starts a new undo step
        return self._undo.pop()

    def redo(self, current: object) -> object | None:
        if not self._redo:
            return None
        self._undo.append(current)
        self._last_edit = -float("inf")
        return self._redo.pop()


@dataclass
class Results:
    """The result on screen, its error and convergence sweep, and the pinned baseline."""

    #: The id of the request whose result is awaited: results are accepted for it only.
    pending_id: int = 0
    result: Result | None = None
    error: str = ""
    error_kind: tuple[str, dict[str, object]] = ("", {})
    convergence: Convergence | None = None
    #: why the current result's convergence sweep did not run (it raised), else None
    convergence_error: BaseException | None = None
    pinned: Result | None = None

    def is_current(self, request_id: int) -> bool:
        """The one generation check: a result (or sweep) is taken in only for the request
        made last; any other is stale (superseded by a newer request or the empty state)."""
        return request_id == self.pending_id

    def clear(self) -> None:
        """The empty state: nothing on screen, nothing stale either."""
        self.result = None
        self.convergence = None
        self.convergence_error = None


@dataclass
class Selection:
    """What is looked at; changing it never recomputes. Setters say whether it changed."""

    step: str = "attn_probs"
    head: int = 0
    query: int = 0
    depth_t: float = 1.0

    def set_step(self, name: str) -> bool:
        if name not in STEP_NAMES:
            raise ValueError(f"unknown step {name!r}")
        changed, self.step = name != self.step, name
        return changed

    def set_head(self, head: int, n_heads: int) -> bool:
        head = min(max(int(head), 0), n_heads - 1)
        changed, self.head = head != self.head, head
        return changed

    def set_query(self, query: int, n_tokens: int) -> bool:
        query = min(max(int(query), 0), max(n_tokens - 1, 0))
        changed, self.query = query != self.query, query
        return changed

    def set_depth_t(self, t: float) -> bool:
        if math.isnan(t):  # NaN slips through min/max
            return False
        t = min(max(float(t), 0.0), 1.0)
        changed, self.depth_t = t != self.depth_t, t
        return changed

    def clamp(self, n_tokens: int, n_heads: int) -> list[str]:
        """Bring query and head into range (silently); the fields that changed."""
        changed = []
        if self.query >= n_tokens:
            self.query = n_tokens - 1
            changed.append("query")
        if self.head >= n_heads:
            self.head = n_heads - 1
            changed.append("head")
        return changed


@dataclass
class ViewOptions:
    """How things are shown; changing them never recomputes. Setters say whether it changed
    and refuse a value they do not know with a ValueError."""

    language: str = "en"
    palette: str = "classic"
    theme: str = "light"
    font_scale: float = 1.0
    presentation: bool = False

    def set_language(self, language: str) -> bool:
        if language not in ("en", "zh"):
            raise ValueError(f"unsupported language {language!r}")
        changed, self.language = language != self.language, language
        return changed

    def set_palette(self, key: str) -> bool:
        from app.palettes import PALETTES

        if key not in PALETTES:
            raise ValueError(f"unknown palette {key!r}; choose one of {', '.join(PALETTES)}")
        changed, self.palette = key != self.palette, key
        return changed

    def set_theme(self, theme: str) -> bool:
        if theme not in THEMES:
            raise ValueError(f"unknown theme {theme!r}; choose one of {', '.join(THEMES)}")
        changed, self.theme = theme != self.theme, theme
        return changed

    def set_font_scale(self, scale: float) -> bool:
        if math.isnan(scale):  # NaN slips through min/max (and hung the painter)
            return False
        scale = round(min(max(float(scale), FONT_SCALE_MIN), FONT_SCALE_MAX), 2)
        changed, self.font_scale = scale != self.font_scale, scale
        return changed

    def set_presentation(self, on: bool) -> bool:
        changed, self.presentation = bool(on) != self.presentation, bool(on)
        return changed
