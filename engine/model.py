"""A whole Qwen3 causal LM in float64: embeddings, every decoder layer, the final RMSNorm and
the LM head, read from a Hugging Face model folder, with the model's own tokenizer.

The shown layer of a full forward runs through :func:`engine.run_layer`, so its trace is the
very computation whose output the next layer reads; every other layer runs through
:func:`engine.fastpath.layer_output`, run_layer's calls in its order (so its bits) without
recording the steps, wherever the overflow bounds prove that run_layer would read no step but
its input (``engine.bounds.proven_layer``; elsewhere run_layer, which names the step that
overflowed). The weights of the decoder
layers are held in float64 (:class:`engine.LayerWeights`); the embedding matrix (Qwen3-0.6B:
151936 x 1024, a quarter of the model) is kept as float32 (bf16 is exact in it) or as stored
(f16, f32), and only the rows a forward needs are widened, exactly: that keeps ~0.6 GB of
float64 out of memory. The LM head (tied to it or its own ``lm_head.weight``) is computed on
the last position only, in blocks of rows widened into one small buffer.

KV cache: a :class:`ModelRun` keeps every layer's keys (after q/k-norm and RoPE) and values.
``forward(ids, layer=k, cache=run)`` reuses the rows of the common prefix of ``ids`` and
``run.ids``: each layer then computes only the new rows, attending over the cached keys and
values, except layer ``k``, which runs whole through ``run_layer`` on the assembled
``residual[k]`` so its trace is complete and its output is ``residual[k + 1]`` bit for bit.
Reused rows are the cached numbers themselves. A run records how many leading rows are a full
forward's bits (``exact_rows``; rows computed from the cache agree with a full forward to
~1e-15, not bit for bit) and a later run reuses only those. So after an edit of the last token
(as many tokens) every reused row is what a full forward computes, bit for bit. With another
token count BLAS may round the last rows differently (another kernel for a remainder of rows:
``run_layer`` itself gives rows that differ by ~1e-16 between T and T + 1 tokens); the reused
rows are then the earlier run's numbers, and after layer ``k`` only the rows its full run
reproduced bit for bit are reused, so every state is still the layer of the state before it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine import ops
from engine.bounds import magnitude, proven_layer
from engine.checkpoint import DTYPES
from engine.config import MAX_TOKENS, Qwen3Config
from engine.errors import EngineError
from engine.fastpath import head_gain, layer_output, scale_heads, zero_neurons
from engine.intervention import Intervention, check_intervention
from engine.layer import LayerTrace, run_layer
from engine.memory import keep_freed_memory
from engine.model_files import (
    CONFIG_JSON,
    TOKENIZER_JSON,
    ModelConfig,
    TensorRef,
    all_finite,
    read_config,
    read_raw,
    tensor_refs,
    widen,
)
from engine.model_tokens import ModelTokenizer, Piece
from engine.weights import WEIGHT_NAMES, LayerWeights

#: Rows of the LM head widened to float64 at a time: 512 x hidden 1024 is 4 MB, which stays
#: in cache between widening a block and multiplying it (Qwen3-0.6B's head, one thread:
#: 0.07 s of CPU at 256-1024 rows, 0.13 s at 2048; a float64 head takes 0.05 s).
_HEAD_BLOCK_ROWS = 512


@dataclass(frozen=True, eq=False)
class ModelRun:
    """One forward of the whole model on ``ids``, and its KV cache.

    ``residual [num_hidden_layers + 1, T, hidden]``: the embeddings, then each layer's output.
    ``final_normed [T, hidden]``: the final RMSNorm of the last layer's output.
    ``logits [vocab_size]``: the LM head on the last position.
    ``trace``: :class:`engine.LayerTrace` of layer ``layer`` on ``residual[layer]``; its output
    is ``residual[layer + 1]`` bit for bit.
    ``rows_recomputed`` of ``rows_total`` (layers x tokens) rows were computed; the rest were
    the cache's (or the base run's). ``reused_rows``: the leading tokens taken from the cache.
    ``intervention`` ran on ``intervened_layers`` (None and () for the plain model).
    """

    ids: tuple[int, ...]
    layer: int
    residual: np.ndarray
    final_normed: np.ndarray
    logits: np.ndarray
    trace: LayerTrace
    rows_recomputed: int
    rows_total: int
    reused_rows: int
    #: rows 0 .. exact_rows - 1 of every array here are a full forward's bits
    exact_rows: int
    keys: tuple[np.ndarray, ...]  # per layer [Hkv, T, head_dim], after q/k-norm and RoPE
    values: tuple[np.ndarray, ...]  # per layer [Hkv, T, head_dim]
    model_key: object
    #: what was switched off (None: the plain model), and in which layers (sorted; () if None)
    intervention: Intervention | None = None
    intervened_layers: tuple[int, ...] = ()

    @property
    def is_intervened(self) -> bool:
        return self.intervention is not None

    @property
    def num_tokens(self) -> int:
        return len(self.ids)

    @property
    def saved_fraction(self) -> float:
        """Share of the layers' rows taken from the cache instead of computed."""
        return 1.0 - self.rows_recomputed / self.rows_total


def _frozen(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


class Qwen3Model:
    """A Qwen3 causal LM opened from a model folder (:meth:`load`)."""

    def __init__(self, folder: Path, config: ModelConfig, tokenizer: ModelTokenizer,
                 embed: tuple[np.ndarray, str], head: tuple[np.ndarray, str],
                 layers: Sequence[LayerWeights], norm: np.ndarray) -> None:
        self.folder = folder
        self.config = config
        self.tokenizer = tokenizer
        self._embed, self._embed_dtype = embed
        self._head, self._head_dtype = head
        self.layers = tuple(layers)
        self.norm_weight = norm
        self._key = object()  # a cache belongs to the model that made it

    # --- opening ------------------------------------------------------------------------

    @classmethod
    def load(cls, folder: str | os.PathLike[str]) -> Qwen3Model:
        """Open a model folder as ``save_pretrained`` writes it (or as downloaded). Anything
        wrong raises :class:`EngineError` naming the file and what is wrong."""
        path = Path(folder)
        if not path.is_dir():
            raise EngineError("model_not_folder", path=path)
        config = read_config(path)
        tokenizer = ModelTokenizer(path / TOKENIZER_JSON, config.vocab_size)
        refs = tensor_refs(path, config)
        with _small_pages():
            embed = _as_f32(_read_checked(refs["model.embed_tokens.weight"]))
            head = embed if config.tie_word_embeddings else _as_f32(_read_checked(
                refs["lm_head.weight"]))
            layers = _read_layers(refs, config)
            norm_raw, norm_dtype = _read_checked(refs["model.norm.weight"])
            norm = _frozen(widen(norm_raw, norm_dtype))
        for array in (embed[0], head[0]):
            array.setflags(write=False)
        keep_freed_memory()  # each forward reuses the memory of the one before
        return cls(path, config, tokenizer, embed, head, layers, norm)

    # --- text ---------------------------------------------------------------------------

    @property
    def layer_config(self) -> Qwen3Config:
        return self.config.layer

    @property
    def num_layers(self) -> int:
        return self.config.num_hidden_layers

    def encode(self, text: str) -> list[int]:
        """``text``'s ids under the model's tokenizer.json, as HF's tokenizer gives them with
        ``add_special_tokens=False``."""
        return self.tokenizer.encode(text)

    def raw_tokens(self, ids: Sequence[int]) -> list[str]:
        return self.tokenizer.raw_tokens(ids)

    def pieces(self, ids: Sequence[int]) -> tuple[Piece, ...]:
        """Each id's raw token string, bytes, the text it completes, and whether it is
        special (see :func:`engine.model_tokens.token_pieces`)."""
        return self.tokenizer.pieces(ids)

    # --- the forward --------------------------------------------------------------------

    def embed(self, ids: Sequence[int]) -> np.ndarray:
        """``[T, hidden]`` float64 rows of embed_tokens, exactly as stored."""
        return widen(self._embed[np.asarray(ids, dtype=np.int64)], self._embed_dtype)

    def lm_head(self, hidden: np.ndarray) -> np.ndarray:
        """``[vocab_size]`` logits of one normed ``hidden`` vector, block by block."""
        head, dtype = self._head, self._head_dtype
        if dtype == "F64":
            return head @ hidden
        vocab, width = head.shape
        logits = np.empty(vocab)
        block = np.empty((min(_HEAD_BLOCK_ROWS, vocab), width))
        bits = np.empty(block.shape, dtype=np.uint32) if dtype == "BF16" else None
        for start in range(0, vocab, _HEAD_BLOCK_ROWS):
            rows = head[start:start + _HEAD_BLOCK_ROWS]
            count = rows.shape[0]
            if bits is not None:
                own = bits[:count]
                own[...] = rows
                own <<= 16
                block[:count] = own.view(np.float32)
            else:
                block[:count] = rows
            np.matmul(block[:count], hidden, out=logits[start:start + count])
        return logits

    def _check_ids(self, ids: object) -> tuple[int, ...]:
        vocab = self.config.vocab_size
        if isinstance(ids, (str, bytes)) or not isinstance(ids, Sequence | np.ndarray):
            raise EngineError("model_ids", last=vocab - 1, value=type(ids).__name__)
        checked = []
        for value in ids:
            if (isinstance(value, bool) or not isinstance(value, int | np.integer)
                    or not 0 <= value < vocab):
                raise EngineError("model_ids", last=vocab - 1, value=value)
            checked.append(int(value))
        if not checked:
            raise EngineError("no_tokens")
        if len(checked) > MAX_TOKENS:
            raise EngineError("token_cap", count=len(checked), limit=MAX_TOKENS)
        return tuple(checked)

    def intervene_layers(self, value: object, layer: int) -> tuple[int, ...]:
        """The sorted layers ``value`` names: None is ``(layer,)`` (the shown layer), ``"all"``
        every layer, a layer index or a sequence of them; anything else an EngineError naming
        the valid range."""
        last = self.num_layers - 1
        if value is None:
            return (layer,)
        if isinstance(value, str):
            if value != "all":
                raise EngineError("model_intervene_layers", last=last, value=value)
            return tuple(range(self.num_layers))
        items = (value,) if isinstance(value, int | np.integer) else value
        if isinstance(items, bytes) or not isinstance(items, Sequence | np.ndarray):
            raise EngineError("model_intervene_layers", last=last, value=value)
        out = []
        for item in items:
            if isinstance(item, bool | np.bool_) or not isinstance(item, int | np.integer):
                raise EngineError("model_intervene_layers", last=last, value=value)
            if not 0 <= item <= last:
                raise EngineError("model_intervene_layer", index=int(item), last=last)
            out.append(int(item))
        if not out or len(set(out)) != len(out):
            raise EngineError("model_intervene_layers", last=last, value=value)
        return tuple(sorted(out))

    def forward(self, ids: Sequence[int], layer: int = 0, *,
                cache: ModelRun | None = None, intervention: Intervention | None = None,
                intervene_layers: str | int | Sequence[int] | None = None,
                base: ModelRun | None = None) -> ModelRun:
        """Run the whole model on ``ids``; keep layer ``layer``'s full trace. ``cache``: an
        earlier run of this model whose rows for the common prefix of ids are reused (only if
        it ran the same intervention on the same layers). ``intervention`` runs in the layers
        ``intervene_layers`` names (:meth:`intervene_layers`; default the shown layer).
        ``base``: the plain run of these ids; the states before the first intervened layer
        are its arrays and only that layer and the ones after it are computed."""
        ids_t = self._check_ids(ids)
        last = self.num_layers - 1
        if isinstance(layer, bool) or not isinstance(layer, int | np.integer) or not (
                0 <= layer <= last):
            raise EngineError("model_layer", last=last, value=layer)
        layer = int(layer)
        iv = check_intervention(intervention, self.layer_config)
        where = self.intervene_layers(intervene_layers, layer)
        plan = _Plan(iv, where if iv is not None else ())
        if cache is not None and base is not None:
            raise EngineError("model_base_and_cache")
        if base is not None:
            if (not isinstance(base, ModelRun) or base.model_key is not self._key
                    or base.intervention is not None or base.ids != ids_t):
                raise EngineError("model_base", got=_describe_run(base, self._key))
            with np.errstate(over="ignore", invalid="ignore"):
                return self._full(ids_t, layer, plan, base)
        reuse = 0
        if cache is not None:
            if not isinstance(cache, ModelRun) or cache.model_key is not self._key:
                raise EngineError("model_cache", got=type(cache).__name__)
            if (cache.intervention, cache.intervened_layers) == (plan.iv, plan.layers):
                for a, b in zip(ids_t, cache.ids[:cache.exact_rows], strict=False):
                    if a != b:
                        break
                    reuse += 1
        with np.errstate(over="ignore", invalid="ignore"):
            if reuse == 0:
                return self._full(ids_t, layer, plan)
            assert cache is not None
            return self._cached(ids_t, layer, cache, reuse, plan)

    def _finish(self, ids: tuple[int, ...], layer: int, residual: np.ndarray,
                final_normed: np.ndarray, logits: np.ndarray | None, trace: LayerTrace,
                keys: list[np.ndarray], values: list[np.ndarray], recomputed: int,
                reused: int, exact: int, plan: _Plan) -> ModelRun:
        if logits is None:
            logits = self.lm_head(final_normed[-1])
        if not np.isfinite(logits).all():
            raise EngineError("model_overflow")
        for array in (residual, final_normed, logits, *keys, *values):
            array.setflags(write=False)
        return ModelRun(ids, layer, residual, final_normed, logits, trace, recomputed,
                        self.num_layers * len(ids), reused, exact, tuple(keys), tuple(values),
                        self._key, plan.iv, plan.layers)

    def _full(self, ids: tuple[int, ...], layer: int, plan: _Plan,
              base: ModelRun | None = None) -> ModelRun:
        """Every layer from the embeddings; or, given the plain run ``base`` of these ids,
        from the first intervened layer on (the earlier states are ``base``'s arrays)."""
        config = self.layer_config
        t = len(ids)
        residual = np.empty((self.num_layers + 1, t, config.hidden_size))
        keys: list[np.ndarray] = []
        values: list[np.ndarray] = []
        shown = None
        recomputed = 0
        first = 0 if base is None else plan.first(self.num_layers)
        if first > 0:
            assert base is not None
            residual[:first + 1] = base.residual[:first + 1]
            keys, values = list(base.keys[:first]), list(base.values[:first])
            if layer < first:  # a plain layer: its trace on the same input is the same bits
                shown = base.trace if base.layer == layer else run_layer(
                    residual[layer], self.layers[layer], config)
                recomputed += 0 if base.layer == layer else t
        else:
            residual[0] = self.embed(ids)
        for index in range(first, self.num_layers):
            iv = plan.at(index)
            if index != layer and self._run_untraced(residual, index, iv, keys, values):
                recomputed += t
                continue
            trace = run_layer(residual[index], self.layers[index], config, intervention=iv)
            residual[index + 1] = trace.output
            keys.append(np.array(trace["k_rope"]))
            values.append(_heads(trace["v_proj"], config))
            recomputed += t
            if index == layer:
                shown = trace
        assert shown is not None
        if base is not None and first == self.num_layers:  # nothing intervened: all base's
            final, logits = np.array(base.final_normed), np.array(base.logits)
        else:
            final = ops.rms_norm(residual[-1], self.norm_weight, config.rms_norm_eps)
            logits = None
        exact = t if base is None or first == 0 else min(base.exact_rows, t)
        return self._finish(ids, layer, residual, final, logits, shown, keys, values,
                            recomputed, 0, exact, plan)

    def _run_untraced(self, residual: np.ndarray, index: int, iv: Intervention | None,
                      keys: list[np.ndarray], values: list[np.ndarray]) -> bool:
        """Layer ``index`` on ``residual[index]`` into ``residual[index + 1]``, its keys and
        values appended, without a trace (``engine.fastpath.layer_output``: run_layer's bits
        without its copies for display), where the overflow bounds show that run_layer would
        neither raise nor read a step but its input; else nothing is done (False) and the
        caller runs run_layer, which reads what it must and names the step that overflowed."""
        weights, config = self.layers[index], self.layer_config
        x = residual[index]
        if not proven_layer(weights, magnitude(x), head_gain(iv, config.num_attention_heads)):
            return False
        k_rope, v_states = layer_output(x, weights, config, iv, out=residual[index + 1])
        keys.append(np.array(k_rope, order="C"))  # (a copy: the view holds q's buffer too)
        values.append(np.array(v_states, order="C"))
        return True

    def _cached(self, ids: tuple[int, ...], layer: int, cache: ModelRun,
                reuse: int, plan: _Plan) -> ModelRun:
        config = self.layer_config
        t = len(ids)
        residual = np.empty((self.num_layers + 1, t, config.hidden_size))
        residual[:, :reuse] = cache.residual[:, :reuse]
        residual[0, reuse:] = self.embed(ids[reuse:])
        keys, values = [], []
        shown = None
        recomputed = 0
        start = reuse  # rows before it are the cache's in the layers to come
        for index, weights in enumerate(self.layers):
            if index == layer:  # whole, for its trace: earlier rows are the cache's bits
                shown = run_layer(residual[index], weights, config,
                                  intervention=plan.at(index))
                residual[index + 1] = shown.output
                keys.append(np.array(shown["k_rope"]))
                values.append(_heads(shown["v_proj"], config))
                recomputed += t
                # With another token count BLAS may round the last cached rows differently
                # (another kernel for a remainder of rows, ~1e-16): the layers after this one
                # then reuse only the rows it reproduced bit for bit, so every state stays
                # the layer of the state before it.
                same = (shown.output[:start] == cache.residual[index + 1, :start]).all(axis=1)
                start = int(np.argmin(same)) if not same.all() else start
                continue
            cached_k = cache.keys[index][:, :start]
            cached_v = cache.values[index][:, :start]
            if start == t:
                keys.append(cached_k)
                values.append(cached_v)
                continue
            out, new_k, new_v = _new_rows(residual[index, start:], weights, config,
                                          cached_k, cached_v, start, plan.at(index))
            residual[index + 1, start:] = out
            keys.append(np.concatenate([cached_k, new_k], axis=1))
            values.append(np.concatenate([cached_v, new_v], axis=1))
            recomputed += t - start
        assert shown is not None
        if start == t:
            final, logits = cache.final_normed[:t], cache.logits
            if t != cache.num_tokens:  # the last position moved: its logits are new
                logits = self.lm_head(final[-1])
            final = np.array(final)
            logits = np.array(logits)
        else:
            final = np.empty((t, config.hidden_size))
            final[:start] = cache.final_normed[:start]
            final[start:] = ops.rms_norm(residual[-1, start:], self.norm_weight,
                                         config.rms_norm_eps)
            logits = None
        return self._finish(ids, layer, residual, final, logits, shown, keys, values,
                            recomputed, reuse, start, plan)


@dataclass(frozen=True)
class _Plan:
    """Which intervention runs in which layers (None and () for the plain model)."""

    iv: Intervention | None
    layers: tuple[int, ...]

    def at(self, index: int) -> Intervention | None:
        return self.iv if index in self.layers else None

    def first(self, count: int) -> int:
        """The first intervened layer (``count`` when there is none)."""
        return self.layers[0] if self.layers else count


def _describe_run(value: object, model_key: object) -> str:
    """What a refused ``base`` is, for the message."""
    if not isinstance(value, ModelRun):
        return type(value).__name__
    if value.model_key is not model_key:
        return "a run of another model"
    if value.intervention is not None:
        return f"a run with an intervention ({value.intervention.describe()})"
    return f"a run of other ids ({len(value.ids)} tokens)"


def _as_f32(tensor: tuple[np.ndarray, str]) -> tuple[np.ndarray, str]:
    """bf16 bits as the float32 numbers they are (exact): the LM head then widens its blocks
    in one pass instead of three (Qwen3-0.6B's head: 0.058 s of CPU instead of 0.075 s, for
    0.3 GB more memory than the bits)."""
    raw, dtype = tensor
    if dtype != "BF16":
        return tensor
    bits = raw.astype(np.uint32)
    bits <<= 16
    return bits.view(np.float32), "F32"


def _read_checked(ref: TensorRef) -> tuple[np.ndarray, str]:
    raw = read_raw(ref)
    if not all_finite(raw, ref.dtype):
        raise EngineError("model_tensor_nan", path=ref.path, name=ref.name)
    return raw, ref.dtype


class _LayerReader:
    """Reads decoder layers into LayerWeights through buffers of its own, reused from layer
    to layer: LayerWeights makes its own float64 copy, so the raw bytes and their float32
    widening never need fresh memory (fresh memory costs a page fault per 4 kB)."""

    def __init__(self, refs: dict[str, TensorRef], config: Qwen3Config) -> None:
        self.refs, self.config = refs, config
        self.buffers: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def read(self, index: int) -> LayerWeights:
        tensors: dict[str, np.ndarray] = {}
        for name in WEIGHT_NAMES:
            ref = self.refs[f"model.layers.{index}.{name}"]
            if ref.dtype == "F64":  # (LayerWeights may keep a float64 array as given)
                tensors[name] = read_raw(ref)
                continue
            key = f"{name}:{ref.dtype}"
            if key not in self.buffers or self.buffers[key][0].shape != ref.shape:
                raw = np.empty(ref.shape, dtype=DTYPES[ref.dtype])
                self.buffers[key] = (raw, np.empty(ref.shape, dtype=np.uint32))
            raw, bits = self.buffers[key]
            read_raw(ref, raw)
            if ref.dtype == "BF16":
                # bf16 is float32's top half: shifted into place it is that float32 exactly,
                # which LayerWeights widens to float64
                bits[...] = raw
                bits <<= 16
                tensors[name] = bits.view(np.float32)
            else:
                tensors[name] = raw
        try:
            return LayerWeights(tensors, self.config)
        except EngineError as exc:
            if exc.code == "weight_nan":
                ref = self.refs[f"model.layers.{index}.{exc.params['name']}"]
                raise EngineError("model_tensor_nan", path=ref.path, name=ref.name) from None
            raise


#: Layers read at once: reading is copying and page faults, which numpy and the kernel run
#: outside the GIL, so two threads open a model in about half the time on two free cores.
_READ_THREADS = 2


def _read_layers(refs: dict[str, TensorRef], config: ModelConfig) -> list[LayerWeights]:
    """Every decoder layer, in order; thread ``i`` reads layers ``i, i + n, ...``."""
    count = config.num_hidden_layers
    threads = max(1, min(_READ_THREADS, os.cpu_count() or 1, count))
    layers: list[LayerWeights | None] = [None] * count

    def share(first: int) -> None:
        reader = _LayerReader(refs, config.layer)
        for index in range(first, count, threads):
            layers[index] = reader.read(index)

    if threads == 1:
        share(0)
    else:
        with ThreadPoolExecutor(threads) as pool:
            for future in [pool.submit(share, i) for i in range(threads)]:
                future.result()  # (re-raises a thread's EngineError here)
    return [layer for layer in layers if layer is not None]


@contextlib.contextmanager
def _small_pages() -> Iterator[None]:
    """numpy asks the kernel for huge pages for big arrays (madvise). On a machine whose
    memory is fragmented the kernel then compacts memory at each first touch, which made
    opening Qwen3-0.6B take ~5x longer (1.3 s instead of 0.27 s a layer, measured); the
    weights are read once and then only streamed through BLAS, which packs them itself."""
    try:
        from numpy._core import multiarray
    except ImportError:  # numpy < 2
        from numpy.core import multiarray  # type: ignore[no-redef]
    setter = getattr(multiarray, "_set_madvise_hugepage", None)
    if setter is None:
        yield
        return
    before = setter(False)
    try:
        yield
    finally:
        setter(before)


def _heads(v_proj: np.ndarray, config: Qwen3Config) -> np.ndarray:
    """``[T, Hkv*d]`` -> ``[Hkv, T, d]``, C-ordered."""
    t = v_proj.shape[0]
    return np.ascontiguousarray(
        v_proj.reshape(t, config.num_key_value_heads, config.head_dim).transpose(1, 0, 2))


def _new_rows(x: np.ndarray, weights: LayerWeights, config: Qwen3Config,
              cached_k: np.ndarray, cached_v: np.ndarray, first: int,
              iv: Intervention | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One decoder layer on rows ``first ..`` only (``x [n, D]``), attending over the cached
    keys and values of rows ``0 .. first - 1`` and its own: HF's Qwen3DecoderLayer with a KV
    cache, the same operations as run_layer row by row (to rounding, ~1e-16). Returns the
    output rows and their keys (after norm and RoPE) and values ``[Hkv, n, d]``. ``iv``: the
    intervention of this layer, applied where run_layer applies it."""
    n = x.shape[0]
    heads, kv, d = config.num_attention_heads, config.num_key_value_heads, config.head_dim
    eps = config.rms_norm_eps
    normed = ops.rms_norm(x, weights["input_layernorm.weight"], eps)
    qkv = normed @ weights.stacked("qkv").T
    q = qkv[:, :heads * d].reshape(n, heads, d)
    k = qkv[:, heads * d:(heads + kv) * d].reshape(n, kv, d)
    v = qkv[:, (heads + kv) * d:].reshape(n, kv, d)
    q = ops.rms_norm(q, weights["self_attn.q_norm.weight"], eps)
    k = ops.rms_norm(k, weights["self_attn.k_norm.weight"], eps)
    cos, sin = ops.rope_tables(np.arange(first, first + n), d, config.rope_theta)
    q = ops.apply_rope(np.ascontiguousarray(q.transpose(1, 0, 2)), cos, sin)  # [H, n, d]
    new_k = ops.apply_rope(np.ascontiguousarray(k.transpose(1, 0, 2)), cos, sin)  # [Hkv, n, d]
    new_v = np.ascontiguousarray(v.transpose(1, 0, 2))
    keys = np.concatenate([cached_k, new_k], axis=1)  # [Hkv, T, d]
    values = np.concatenate([cached_v, new_v], axis=1)
    t = first + n
    group = heads // kv
    q = q.reshape(kv, group, n, d)
    scores = np.matmul(q, keys[:, None].swapaxes(-1, -2))  # [Hkv, G, n, T]
    scores *= d**-0.5
    future = np.arange(t)[None, :] > np.arange(first, t)[:, None]  # [n, T]
    scores[..., future] = -np.inf
    scores -= scores.max(axis=-1, keepdims=True)
    np.exp(scores, out=scores)
    scores /= scores.sum(axis=-1, keepdims=True)
    context = np.matmul(scores, values[:, None])  # [Hkv, G, n, d]
    context = context.reshape(heads, n, d).transpose(1, 0, 2).reshape(n, heads * d)
    if iv is not None:
        scale_heads(context, iv.head_factors(heads), d)
    attn = context @ weights["self_attn.o_proj.weight"].T
    hidden = x.copy() if iv is not None and iv.skips("attention") else x + attn
    normed = ops.rms_norm(hidden, weights["post_attention_layernorm.weight"], eps)
    gate_up = normed @ weights.stacked("gate_up").T
    width = config.intermediate_size
    gated = ops.silu_array(gate_up[:, :width]) * gate_up[:, width:]
    if iv is not None:
        zero_neurons(gated, iv.neurons())
    down = gated @ weights["mlp.down_proj.weight"].T
    out = hidden.copy() if iv is not None and iv.skips("mlp") else hidden + down
    return out, new_k, new_v


__all__ = ["CONFIG_JSON", "TOKENIZER_JSON", "ModelRun", "Piece", "Qwen3Model"]
