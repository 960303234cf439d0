"""One decoder layer read from a real checkpoint: a Hugging Face ``.safetensors`` file, or an
``.npz`` written by :meth:`LayerWeights.save`.

A safetensors file is an 8-byte little-endian header length, a JSON header
``{name: {"dtype", "shape", "data_offsets": [begin, end]}}`` (plus an optional
``"__metadata__"``), then the raw little-endian numbers; offsets count from the end of the
header. Only the header and the chosen layer's 11 tensors are read (a real Qwen3-0.6B
``model.safetensors`` is ~1.5 GB; one layer of it ~32 MB in bf16). Nothing is unpickled.
The header is checked as the format's reference reader checks it (:func:`read_header`:
the tensors tile the data exactly), and only regular files are opened.

For other readers of safetensors files (a whole model): :func:`safetensors_header` /
:func:`read_header` give every tensor's checked :class:`TensorEntry`, :func:`read_tensor`
reads one tensor's numbers from the open file.

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
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from engine._checks import check_max_weights, open_regular
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
class TensorEntry:
    """One tensor of a safetensors file as its header describes it (checked)."""

    dtype: str  # the safetensors name ("BF16", "F32", ...); maybe one this app cannot read
    shape: tuple[int, ...]
    begin: int  # absolute offsets in the file: the tensor's bytes are [begin, end)
    end: int


_Entry = TensorEntry  # (the name this module used before)


def _is_npz(handle: BinaryIO, path: str | os.PathLike[str]) -> bool:
    """Whether the open file starts like a zip archive (then rewound)."""
    try:
        magic = handle.read(4)
        handle.seek(0)
    except OSError as exc:
        raise EngineError("file_unreadable", path=path, reason=exc.strerror or exc) from None
    return magic == _ZIP_MAGIC


def layer_indices(path: str | os.PathLike[str]) -> tuple[int, ...]:
    """The decoder layers a file holds (``model.layers.N.``), ascending; an ``.npz`` of
    :meth:`LayerWeights.save` holds one, layer 0."""
    with open_regular(path) as handle:
        if _is_npz(handle, path):
            return (0,)
        entries = read_header(handle, path)
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
    max_weights = check_max_weights(max_weights)
    with open_regular(path) as handle:
        return _load_layer(handle, path, layer, max_weights)


def _load_layer(handle: BinaryIO, path: str | os.PathLike[str], layer: int,
                max_weights: int | None) -> LoadedLayer:
    if _is_npz(handle, path):
        if layer != 0:
            raise EngineError("st_layer_absent", path=path, layer=layer, layers="0")
        weights = LayerWeights.read(handle, path, max_weights=max_weights)
        digest = hashlib.sha256()
        for name in WEIGHT_NAMES:
            digest.update(weights[name].tobytes())
        return LoadedLayer(weights, os.fspath(path), 0, (), digest.hexdigest())
    entries = read_header(handle, path)
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
        for name in WEIGHT_NAMES:
            tensors[name] = _read_tensor(handle, name, mine[name], path, digest)
        weights = LayerWeights(tensors, config)  # float64, finite: names a tensor that is not
    except OSError as exc:
        raise EngineError("file_unreadable", path=path, reason=exc.strerror or exc) from None
    except MemoryError:  # (a layer the caller allowed, larger than this machine's memory)
        raise EngineError("file_unreadable", path=path,
                          reason=Phrase("a tensor too large for memory")) from None
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


def safetensors_header(path: str | os.PathLike[str]) -> dict[str, TensorEntry]:
    """:func:`read_header` of the file at ``path`` (a regular file, opened without blocking)."""
    with open_regular(path) as handle:
        return read_header(handle, path)


_read_header = safetensors_header  # (the name this module used before)


class _Duplicate(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """json's object hook: a name given twice is refused (``json`` would keep the last)."""
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _Duplicate(key)
        result[key] = value
    return result


def read_header(handle: BinaryIO, path: str | os.PathLike[str]) -> dict[str, TensorEntry]:
    """Every tensor's entry of the safetensors file open in ``handle``, checked as the format
    itself (the reference ``safetensors`` crate) checks a file, before any number is read.

    Only the 8-byte length and the header are read. The header must be at most
    :data:`MAX_HEADER_BYTES` of UTF-8 JSON, one object with each name once; ``__metadata__``,
    if there, maps text to text; every other entry has a dtype name, a shape of whole numbers
    >= 0 and ``data_offsets`` ``[begin, end]``, whole numbers with ``begin <= end``, as many
    bytes as shape x dtype (for every dtype the format defines). Sorted by offset, the
    tensors must tile the data section exactly, from 0 to the end of the file: no two share a
    byte and no byte belongs to none. Raises :class:`EngineError` (``st_*`` codes) naming
    ``path`` and what is wrong; offsets in the result are absolute in the file.
    """
    try:
        size = os.fstat(handle.fileno()).st_size
        handle.seek(0)
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
    except OSError as exc:
        raise EngineError("file_unreadable", path=path, reason=exc.strerror or exc) from None
    if len(raw) != length:  # (the file shrank since its size was read)
        raise EngineError("st_truncated", path=path)
    try:
        header = json.loads(raw.decode("utf-8"), object_pairs_hook=_no_duplicates)
    except _Duplicate as dup:
        raise EngineError("st_duplicate", path=path, name=dup.key) from None
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise EngineError("st_bad_header", path=path, reason=exc) from None
    if not isinstance(header, dict):
        raise EngineError("st_bad_header", path=path, reason=Phrase("not a JSON object"))
    metadata = header.get("__metadata__")
    if metadata is not None and not (isinstance(metadata, dict) and all(
            isinstance(v, str) for v in metadata.values())):
        raise EngineError("st_bad_header", path=path,
                          reason=Phrase("__metadata__ is not a map of text to text"))
    data_start, data_size = 8 + length, size - 8 - length
    entries: dict[str, TensorEntry] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        entry = _entry(name, info, path)
        if entry.end > data_size:
            raise EngineError("st_outside", path=path, name=name, end=entry.end,
                              size=data_size)
        entries[name] = entry
    _check_tiling(entries, data_size, path)
    return {name: TensorEntry(e.dtype, e.shape, data_start + e.begin, data_start + e.end)
            for name, e in entries.items()}


def _check_tiling(entries: dict[str, TensorEntry], data_size: int,
                  path: str | os.PathLike[str]) -> None:
    """The tensors, sorted by offsets, follow each other from byte 0 to ``data_size``
    (offsets relative to the data section), as the safetensors crate requires."""
    reached, last = 0, ""
    for name, entry in sorted(entries.items(), key=lambda item: (item[1].begin, item[1].end)):
        if entry.begin < reached:
            raise EngineError("st_overlap", path=path, name=name, other=last,
                              begin=entry.begin, end=min(entry.end, reached))
        if entry.begin > reached:
            raise EngineError("st_gap", path=path, begin=reached, end=entry.begin)
        reached, last = entry.end, name
    if reached != data_size:
        raise EngineError("st_gap", path=path, begin=reached, end=data_size)


#: Bits per element of every dtype the safetensors format defines (the crate's ``Dtype``).
DTYPE_BITS: dict[str, int] = {
    "BOOL": 8, "F4": 4, "F6_E2M3": 6, "F6_E3M2": 6, "U8": 8, "I8": 8, "F8_E5M2": 8,
    "F8_E4M3": 8, "F8_E8M0": 8, "I16": 16, "U16": 16, "F16": 16, "BF16": 16, "I32": 32,
    "U32": 32, "F32": 32, "C64": 64, "F64": 64, "I64": 64, "U64": 64,
}


def _entry(name: str, info: object, path: str | os.PathLike[str]) -> TensorEntry:
    def whole(value: object) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and value >= 0

    if not isinstance(info, dict):
        raise EngineError("st_bad_entry", path=path, name=name)
    dtype, shape, offsets = info.get("dtype"), info.get("shape"), info.get("data_offsets")
    if (not isinstance(dtype, str) or dtype not in DTYPE_BITS or not isinstance(shape, list)
            or not all(whole(n) for n in shape) or not isinstance(offsets, list)
            or len(offsets) != 2 or not all(whole(n) for n in offsets)
            or offsets[0] > offsets[1]):
        raise EngineError("st_bad_entry", path=path, name=name)
    begin, end = offsets
    bits = math.prod(shape) * DTYPE_BITS[dtype]
    if bits % 8 or end - begin != bits // 8:
        raise EngineError("st_size_mismatch", path=path, name=name, shape=tuple(shape),
                          dtype=dtype, nbytes=end - begin)
    return TensorEntry(dtype, tuple(shape), begin, end)


def read_tensor(handle: BinaryIO, entry: TensorEntry, path: str | os.PathLike[str],
                digest: Any = None) -> np.ndarray:
    """One tensor's numbers, exactly, as float32 or float64 (bf16 widened to the float32 it
    is the top half of); ``entry.dtype`` must be one of :data:`DTYPES`. Reads only
    ``[entry.begin, entry.end)``; ``digest`` (a hashlib object), if given, is fed the bytes."""
    raw = np.empty(entry.end - entry.begin, dtype=np.uint8)
    handle.seek(entry.begin)
    if handle.readinto(memoryview(raw)) != raw.size:  # (the file shrank since its header)
        raise EngineError("st_truncated", path=path)
    if digest is not None:
        digest.update(raw)
    numbers = raw.view(DTYPES[entry.dtype]).reshape(entry.shape)
    if entry.dtype == "BF16":
        # bf16 is float32's top half: shifted into place it is that float32 exactly
        return (numbers.astype(np.uint32) << 16).view(np.float32)
    return numbers


def _read_tensor(handle: BinaryIO, name: str, entry: TensorEntry, path: str | os.PathLike[str],
                 digest: Any) -> np.ndarray:
    return read_tensor(handle, entry, path, digest)


def _config_json(path: str | os.PathLike[str]) -> tuple[dict[str, float], tuple[str, ...]]:
    """``rms_norm_eps`` / ``rope_theta`` from ``config.json`` beside the file, and the names
    of those taken from Qwen3's defaults instead."""
    found: dict[str, Any] = {}
    side = Path(path).with_name("config.json")
    if os.path.lexists(side):
        try:
            with open_regular(side) as handle:
                raw = handle.read(_MAX_CONFIG_JSON + 1)  # (never more, whatever it is)
        except EngineError as exc:
            reason = exc.params.get("reason", exc)
            raise EngineError("st_bad_config_json", path=side, reason=reason) from None
        except OSError as exc:
            raise EngineError("st_bad_config_json", path=side,
                              reason=exc.strerror or exc) from None
        if len(raw) > _MAX_CONFIG_JSON:
            raise EngineError("st_bad_config_json", path=side,
                              reason=Phrase("far too large for a config.json"))
        try:
            data = json.loads(raw.decode("utf-8-sig"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
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
