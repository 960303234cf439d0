"""One decoder layer read from a real checkpoint: a Hugging Face ``.safetensors`` file, or an
``.npz`` written by :meth:`LayerWeights.save`.

A safetensors file is an 8-byte little-endian header length, a JSON header
``{name: {"dtype", "shape", "data_offsets": [begin, end]}}`` (plus an optional
``"__metadata__"``), then the raw little-endian numbers; offsets count from the end of the
header. Only the header and the chosen layer's 11 tensors are read (a real Qwen3-0.6B
``model.safetensors`` is ~1.5 GB; one layer of it ~32 MB in bf16). Nothing is unpickled.

The layer's :class:`Qwen3Config` comes from the tensors' shapes; ``rms_norm_eps`` and
``rope_theta`` (which no shape shows) from a ``config.json`` beside the file when there is one
(Hugging Face's field names), else Qwen3's own values, and :attr:`LoadedLayer.assumed` says which.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from engine.config import Qwen3Config
from engine.errors import EngineError, Phrase
from engine.weights import WEIGHT_NAMES, LayerWeights, weight_shapes

#: safetensors dtype -> how its bytes are read (bf16 as raw uint16, widened below).
DTYPES: dict[str, np.dtype[Any]] = {
    "F64": np.dtype("<f8"), "F32": np.dtype("<f4"), "F16": np.dtype("<f2"),
    "BF16": np.dtype("<u2"),
}
#: Qwen3's values of the two fields no tensor shape shows (``transformers.Qwen3Config``).
QWEN3_DEFAULTS: dict[str, float] = {"rms_norm_eps": 1e-6, "rope_theta": 1e6}
#: The safetensors reference refuses headers above 100 MB; a real one is a few hundred kB.
MAX_HEADER_BYTES = 100_000_000
#: ``config.json`` is a few kB; anything far larger is not one.
_MAX_CONFIG_JSON = 1_000_000

_LAYER_NAME = re.compile(r"^model\.layers\.(\d+)\.(.+)$")
_ZIP_MAGIC = b"PK\x03\x04"


@dataclass(frozen=True)
class LoadedLayer:
    """A layer read from a file: its weights (config inside), where it came from, and which
    config fields were not in the file's ``config.json`` but Qwen3's defaults."""

    weights: LayerWeights
    path: str
    layer: int
    assumed: tuple[str, ...]
    #: sha256 of the numbers as stored: a session tells the same file from a changed one.
    fingerprint: str

    @property
    def config(self) -> Qwen3Config:
        return self.weights.config


@dataclass(frozen=True)
class _Entry:
    dtype: str
    shape: tuple[int, ...]
    begin: int  # absolute offsets in the file
    end: int


def _is_npz(path: str | os.PathLike[str]) -> bool:
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO would block the read forever
            raise EngineError("file_unreadable", path=path, reason=Phrase("not a regular file"))
        with open(path, "rb") as handle:
            return handle.read(4) == _ZIP_MAGIC
    except FileNotFoundError:
        raise EngineError("file_missing", path=path) from None
    except OSError as exc:
        raise EngineError("file_unreadable", path=path, reason=exc.strerror or exc) from None


def layer_indices(path: str | os.PathLike[str]) -> tuple[int, ...]:
    """The decoder layers a file holds (``model.layers.N.``), ascending; an ``.npz`` of
    :meth:`LayerWeights.save` holds one, layer 0."""
    if _is_npz(path):
        return (0,)
    entries = _read_header(path)
    layers = sorted({int(m.group(1)) for m in map(_LAYER_NAME.match, entries) if m})
    if not layers:
        raise EngineError("st_no_layers", path=path)
    return tuple(layers)


def load_layer(path: str | os.PathLike[str], layer: int = 0, *,
               max_weights: int | None = None) -> LoadedLayer:
    """Read decoder layer ``layer`` of a ``.safetensors`` file (or the one layer of an
    ``.npz`` from :meth:`LayerWeights.save`). ``max_weights`` refuses a larger layer before
    any of its numbers is read."""
    if isinstance(layer, bool) or not isinstance(layer, int) or layer < 0:
        raise EngineError("whole_at_least", name="layer", low=0, value=layer)
    if _is_npz(path):
        if layer != 0:
            raise EngineError("st_layer_absent", path=path, layer=layer, layers="0")
        weights = LayerWeights.load(path)
        _check_size(weights.config, max_weights)
        digest = hashlib.sha256()
        for name in WEIGHT_NAMES:
            digest.update(weights[name].tobytes())
        return LoadedLayer(weights, os.fspath(path), 0, (), digest.hexdigest())
    entries = _read_header(path)
    present = sorted({int(m.group(1)) for m in map(_LAYER_NAME.match, entries) if m})
    if not present:
        raise EngineError("st_no_layers", path=path)
    if layer not in present:
        raise EngineError("st_layer_absent", path=path, layer=layer,
                          layers=_ranges(present))
    prefix = f"model.layers.{layer}."
    mine = {name[len(prefix):]: entry for name, entry in entries.items()
            if name.startswith(prefix)}
    missing = [n for n in WEIGHT_NAMES if n not in mine]
    if missing:
        raise EngineError("weights_missing", names=", ".join(missing))
    # (RoPE's inv_freq, which older checkpoints store, is recomputed from rope_theta)
    extra = sorted(set(mine) - set(WEIGHT_NAMES) - {"self_attn.rotary_emb.inv_freq"})
    if extra:  # a Qwen2 layer's biases, say: not this layer's architecture
        raise EngineError("weights_unexpected", names=", ".join(extra))
    extras, assumed = _config_json(path)
    config = _infer_config({n: e.shape for n, e in mine.items()}, extras)
    _check_size(config, max_weights)
    for name, shape in weight_shapes(config).items():
        if mine[name].shape != shape:
            raise EngineError("shape_expected", name=name, expected=shape,
                              shape=mine[name].shape)
    for name in WEIGHT_NAMES:  # every dtype checked before the first number is read
        if mine[name].dtype not in DTYPES:
            raise EngineError("st_dtype", name=name, dtype=mine[name].dtype,
                              supported=", ".join(DTYPES))
    digest = hashlib.sha256()
    tensors: dict[str, np.ndarray] = {}
    try:
        with open(path, "rb") as handle:
            for name in WEIGHT_NAMES:
                tensors[name] = _read_tensor(handle, name, mine[name], path, digest)
    except OSError as exc:
        raise EngineError("file_unreadable", path=path, reason=exc.strerror or exc) from None
    weights = LayerWeights(tensors, config)  # float64, finite: names a tensor that is not
    return LoadedLayer(weights, os.fspath(path), layer, assumed, digest.hexdigest())


def _check_size(config: Qwen3Config, max_weights: int | None) -> None:
    count = sum(math.prod(s) for s in weight_shapes(config).values())
    if max_weights is not None and count > max_weights:
        raise EngineError("st_too_large", count=f"{count:,}", limit=f"{max_weights:,}")


def _ranges(values: list[int]) -> str:
    """``0–27`` for a contiguous run, else the numbers: the message stays short."""
    if values == list(range(values[0], values[-1] + 1)) and len(values) > 2:
        return f"{values[0]}–{values[-1]}"
    return ", ".join(map(str, values))


def _read_header(path: str | os.PathLike[str]) -> dict[str, _Entry]:
    """Every tensor's entry, checked: a known layout, offsets inside the file."""
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            head = handle.read(8)
            if len(head) < 8:
                raise EngineError("st_truncated", path=path)
            length = int.from_bytes(head, "little")
            if length > MAX_HEADER_BYTES or length < 2:
                raise EngineError("st_not_safetensors", path=path)
            first = handle.read(1)
            if first != b"{":  # the format's header is a JSON object
                raise EngineError("st_not_safetensors", path=path)
            if 8 + length > size:
                raise EngineError("st_truncated", path=path)
            raw = first + handle.read(length - 1)
    except FileNotFoundError:
        raise EngineError("file_missing", path=path) from None
    except OSError as exc:
        raise EngineError("file_unreadable", path=path, reason=exc.strerror or exc) from None
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise EngineError("st_bad_header", path=path, reason=exc) from None
    if not isinstance(header, dict):
        raise EngineError("st_bad_header", path=path, reason=Phrase("not a JSON object"))
    data_start, data_size = 8 + length, size - 8 - length
    entries: dict[str, _Entry] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        entry = _entry(name, info, path)
        if entry.end > data_size:
            raise EngineError("st_outside", path=path, name=name, end=entry.end,
                              size=data_size)
        entries[name] = _Entry(entry.dtype, entry.shape, data_start + entry.begin,
                               data_start + entry.end)
    return entries


def _entry(name: str, info: object, path: str | os.PathLike[str]) -> _Entry:
    def whole(value: object) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and value >= 0

    if not isinstance(info, dict):
        raise EngineError("st_bad_entry", path=path, name=name)
    dtype, shape, offsets = info.get("dtype"), info.get("shape"), info.get("data_offsets")
    if (not isinstance(dtype, str) or not isinstance(shape, list)
            or not all(whole(n) for n in shape) or not isinstance(offsets, list)
            or len(offsets) != 2 or not all(whole(n) for n in offsets)
            or offsets[0] > offsets[1]):
        raise EngineError("st_bad_entry", path=path, name=name)
    begin, end = offsets
    dt = DTYPES.get(dtype)
    if dt is not None and end - begin != math.prod(shape) * dt.itemsize:
        raise EngineError("st_size_mismatch", path=path, name=name, shape=tuple(shape),
                          dtype=dtype, nbytes=end - begin)
    return _Entry(dtype, tuple(shape), begin, end)


def _read_tensor(handle: BinaryIO, name: str, entry: _Entry, path: str | os.PathLike[str],
                 digest: Any) -> np.ndarray:
    """One tensor's numbers, exactly, as float32 or float64 (LayerWeights widens them)."""
    raw = np.empty(entry.end - entry.begin, dtype=np.uint8)
    handle.seek(entry.begin)
    if handle.readinto(memoryview(raw)) != raw.size:  # (the file shrank since its header)
        raise EngineError("st_truncated", path=path)
    digest.update(raw)
    numbers = raw.view(DTYPES[entry.dtype]).reshape(entry.shape)
    if entry.dtype == "BF16":
        # bf16 is float32's top half: shifted into place it is that float32 exactly
        return (numbers.astype(np.uint32) << 16).view(np.float32)
    return numbers


def _config_json(path: str | os.PathLike[str]) -> tuple[dict[str, float], tuple[str, ...]]:
    """``rms_norm_eps`` / ``rope_theta`` from ``config.json`` beside the file, and the names
    of those taken from Qwen3's defaults instead."""
    found: dict[str, Any] = {}
    side = Path(path).with_name("config.json")
    if side.is_file():
        try:
            if side.stat().st_size > _MAX_CONFIG_JSON:
                raise EngineError("st_bad_config_json", path=side,
                                  reason=Phrase("far too large for a config.json"))
            data = json.loads(side.read_text(encoding="utf-8-sig"))
        except (OSError, UnicodeDecodeError, RecursionError) as exc:
            raise EngineError("st_bad_config_json", path=side, reason=exc) from None
        except ValueError as exc:
            if isinstance(exc, EngineError):
                raise
            raise EngineError("st_bad_config_json", path=side, reason=exc) from None
        if not isinstance(data, dict):
            raise EngineError("st_bad_config_json", path=side, reason=Phrase("not a JSON object"))
        found = {k: data[k] for k in QWEN3_DEFAULTS if k in data}
        rope = data.get("rope_parameters") or data.get("rope_scaling")
        if "rope_theta" not in found and isinstance(rope, dict) and "rope_theta" in rope:
            found["rope_theta"] = rope["rope_theta"]  # newer transformers nest it here
    assumed = tuple(k for k in QWEN3_DEFAULTS if k not in found)
    return {**QWEN3_DEFAULTS, **found}, assumed


def _infer_config(shapes: dict[str, tuple[int, ...]], extras: dict[str, Any]) -> Qwen3Config:
    """The config these shapes are a layer of; shapes that fit no layer are named."""
    for name in ("input_layernorm.weight", "self_attn.q_norm.weight"):
        if len(shapes[name]) != 1:
            raise EngineError("ndim", name=name, ndim=1, shape=shapes[name])
    for name in ("self_attn.q_proj.weight", "self_attn.k_proj.weight",
                 "mlp.gate_proj.weight"):
        if len(shapes[name]) != 2:
            raise EngineError("ndim", name=name, ndim=2, shape=shapes[name])
    (hidden,) = shapes["input_layernorm.weight"]
    (head_dim,) = shapes["self_attn.q_norm.weight"]
    q_rows = shapes["self_attn.q_proj.weight"][0]
    k_rows = shapes["self_attn.k_proj.weight"][0]
    if head_dim == 0 or q_rows % head_dim or k_rows % head_dim:
        raise EngineError("st_inconsistent", q_rows=q_rows, k_rows=k_rows, head_dim=head_dim)
    return Qwen3Config(hidden_size=hidden,
                       intermediate_size=shapes["mlp.gate_proj.weight"][0],
                       num_attention_heads=q_rows // head_dim,
                       num_key_value_heads=k_rows // head_dim, head_dim=head_dim,
                       rms_norm_eps=extras["rms_norm_eps"], rope_theta=extras["rope_theta"])
