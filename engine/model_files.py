"""The files of a Hugging Face Qwen3 model folder, read and checked: ``config.json``,
``tokenizer.json`` and the safetensors weights (one ``model.safetensors``, or shards named by
``model.safetensors.index.json``).

Everything here is bounded before it is read: only regular files, JSON files below a size
limit, a tensor's bytes only after its header entry was checked against the shape the config
gives it and against the file's size. Nothing is unpickled and nothing reaches the network.
"""

from __future__ import annotations

import json
import math
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from engine.checkpoint import DTYPES, _read_header
from engine.config import Qwen3Config
from engine.errors import EngineError
from engine.weights import WEIGHT_NAMES, weight_shapes

CONFIG_JSON = "config.json"
TOKENIZER_JSON = "tokenizer.json"
SINGLE_FILE = "model.safetensors"
INDEX_JSON = "model.safetensors.index.json"

#: A real config.json is ~1 kB, an index ~30 kB, Qwen3's tokenizer.json ~11 MB.
_MAX_JSON = {CONFIG_JSON: 1 << 20, INDEX_JSON: 16 << 20, TOKENIZER_JSON: 64 << 20}
#: Tensors the loader reads but does not need: RoPE's tables are rebuilt from rope_theta.
_IGNORED_SUFFIX = ".self_attn.rotary_emb.inv_freq"
#: The largest vocabulary and width accepted: far above Qwen3's (151936, 1024-5120) and small
#: enough that a config.json cannot make the loader allocate without bound.
_MAX_VOCAB, _MAX_LAYERS = 1 << 20, 512


@dataclass(frozen=True)
class ModelConfig:
    """The fields of a Qwen3 ``config.json`` the forward needs."""

    layer: Qwen3Config
    num_hidden_layers: int
    vocab_size: int
    tie_word_embeddings: bool


@dataclass(frozen=True)
class TensorRef:
    """Where one tensor's bytes are: a file, its dtype and shape, absolute offsets."""

    path: Path
    name: str
    dtype: str
    shape: tuple[int, ...]
    begin: int
    end: int


def _regular_file(path: Path) -> int:
    """The size of ``path``, a regular file (a FIFO or device would block or never end)."""
    try:
        info = path.stat()
    except FileNotFoundError:
        raise EngineError("model_missing_file", path=path) from None
    except OSError as exc:
        raise EngineError("model_unreadable", path=path, reason=exc.strerror or exc) from None
    if not stat.S_ISREG(info.st_mode):
        raise EngineError("model_not_file", path=path)
    return info.st_size


def read_json(path: Path) -> dict[str, Any]:
    """A JSON object from a small regular file."""
    size = _regular_file(path)
    limit = _MAX_JSON[path.name if path.name in _MAX_JSON else CONFIG_JSON]
    if size > limit:
        raise EngineError("model_file_too_large", path=path, size=size, limit=limit)
    try:
        data = json.loads(path.read_bytes().decode("utf-8-sig"))
    except OSError as exc:
        raise EngineError("model_unreadable", path=path, reason=exc.strerror or exc) from None
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise EngineError("model_bad_json", path=path, reason=exc) from None
    if not isinstance(data, dict):
        raise EngineError("model_bad_json", path=path, reason="not a JSON object")
    return data


def _field(data: dict[str, Any], path: Path, name: str, default: Any = None) -> Any:
    if name in data and data[name] is not None:
        return data[name]
    if default is None:
        raise EngineError("model_config_field", path=path, name=name,
                          expected="present", value=None)
    return default


def _whole(data: dict[str, Any], path: Path, name: str, default: int | None = None,
           limit: int = 1 << 20) -> int:
    value = _field(data, path, name, default)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= limit:
        raise EngineError("model_config_field", path=path, name=name,
                          expected=f"a whole number from 1 to {limit}", value=value)
    return value


def _real(data: dict[str, Any], path: Path, name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise EngineError("model_config_field", path=path, name=name,
                          expected="a finite number", value=value)
    return float(value)


def rope_theta(data: dict[str, Any], path: Path) -> float:
    """RoPE's base as transformers reads it: ``rope_scaling`` (its older name) or
    ``rope_parameters`` first, then a top-level ``rope_theta`` (transformers 4.x), then
    Qwen3Config's default 10000. Any RoPE scaling is refused: the engine runs the default."""
    rope = data.get("rope_scaling") or data.get("rope_parameters") or {}
    if not isinstance(rope, dict):
        raise EngineError("model_config_field", path=path, name="rope_parameters",
                          expected="a mapping", value=rope)
    kind = rope.get("rope_type", rope.get("type", "default"))
    if kind != "default":
        raise EngineError("model_unsupported", path=path, name="rope_type", value=kind,
                          supported="default")
    if "rope_theta" in rope and rope["rope_theta"] is not None:
        return _real(data, path, "rope_parameters.rope_theta", rope["rope_theta"])
    return _real(data, path, "rope_theta", data.get("rope_theta", 10000.0))


def read_config(folder: Path) -> ModelConfig:
    """``config.json`` of a Qwen3 causal LM, its variants across transformers versions."""
    path = folder / CONFIG_JSON
    data = read_json(path)
    kind = data.get("model_type")
    architectures = data.get("architectures") or ["Qwen3ForCausalLM"]
    if kind != "qwen3" or not isinstance(architectures, list) or any(
            arch != "Qwen3ForCausalLM" for arch in architectures):
        raise EngineError("model_not_qwen3", path=path,
                          got=f"{kind} ({', '.join(map(str, architectures))})"
                          if isinstance(architectures, list) else kind)
    for name, good in (("hidden_act", "silu"), ("attention_bias", False),
                       ("use_sliding_window", False)):
        if name in data and data[name] not in (good, None):
            raise EngineError("model_unsupported", path=path, name=name, value=data[name],
                              supported=good)
    layer_types = data.get("layer_types")
    if layer_types is not None and (not isinstance(layer_types, list) or any(
            kind != "full_attention" for kind in layer_types)):
        raise EngineError("model_unsupported", path=path, name="layer_types",
                          value="sliding attention", supported="full_attention")
    hidden = _whole(data, path, "hidden_size", limit=1 << 16)
    heads = _whole(data, path, "num_attention_heads", limit=1 << 10)
    tie = data.get("tie_word_embeddings", False)
    if not isinstance(tie, bool):
        raise EngineError("model_config_field", path=path, name="tie_word_embeddings",
                          expected="true or false", value=tie)
    try:
        layer = Qwen3Config(
            hidden_size=hidden,
            intermediate_size=_whole(data, path, "intermediate_size", limit=1 << 18),
            num_attention_heads=heads,
            # transformers' Qwen3Config defaults when a field is absent: 32 kv heads (null:
            # as many as the query heads) and head_dim 128, not hidden_size / heads
            num_key_value_heads=_whole(data, path, "num_key_value_heads",
                                       32 if "num_key_value_heads" not in data else heads,
                                       limit=1 << 10),
            head_dim=_whole(data, path, "head_dim", 128, limit=1 << 12),
            rms_norm_eps=_real(data, path, "rms_norm_eps", data.get("rms_norm_eps", 1e-6)),
            rope_theta=rope_theta(data, path))
    except EngineError as exc:
        if exc.code.startswith("model_"):
            raise
        raise EngineError("model_config_invalid", path=path, reason=exc) from None
    return ModelConfig(layer=layer,
                       num_hidden_layers=_whole(data, path, "num_hidden_layers",
                                                limit=_MAX_LAYERS),
                       vocab_size=_whole(data, path, "vocab_size", limit=_MAX_VOCAB),
                       tie_word_embeddings=tie)


def expected_shapes(config: ModelConfig) -> dict[str, tuple[int, ...]]:
    """Every tensor the forward reads, with the shape config.json gives it."""
    hidden = config.layer.hidden_size
    shapes = {"model.embed_tokens.weight": (config.vocab_size, hidden)}
    layer_shapes = weight_shapes(config.layer)
    for index in range(config.num_hidden_layers):
        for name in WEIGHT_NAMES:
            shapes[f"model.layers.{index}.{name}"] = layer_shapes[name]
    shapes["model.norm.weight"] = (hidden,)
    if not config.tie_word_embeddings:
        shapes["lm_head.weight"] = (config.vocab_size, hidden)
    return shapes


def _shard_files(folder: Path) -> tuple[Path, dict[str, Path]]:
    """The file whose header answers for each tensor: the index's map, or the single file.
    Returns the file to name in messages about a missing tensor, and that map (empty for a
    single file: every tensor is then in it)."""
    single = folder / SINGLE_FILE
    if single.exists():
        _regular_file(single)
        return single, {}
    index = folder / INDEX_JSON
    if not index.exists():
        raise EngineError("model_missing_file", path=single)
    data = read_json(index)
    weight_map = data.get("weight_map")
    if not isinstance(weight_map, dict) or not weight_map:
        raise EngineError("model_bad_json", path=index, reason="no weight_map of tensor names")
    shards: dict[str, Path] = {}
    for name, shard in weight_map.items():
        # a shard is a file of this folder: no path separators, no parent
        if (not isinstance(shard, str) or not shard or shard != Path(shard).name
                or shard in (".", "..")):
            raise EngineError("model_bad_json", path=index,
                              reason=f"{name} names {shard!r}, not a file of this folder")
        shards[name] = folder / shard
    for shard in set(shards.values()):
        if not shard.exists():
            raise EngineError("model_index_shard", path=index, shard=shard.name)
        _regular_file(shard)
    return index, shards


def tensor_refs(folder: Path, config: ModelConfig) -> dict[str, TensorRef]:
    """Each needed tensor's location, every header checked before a number is read: present,
    no unexpected tensors, shapes as config.json says, a readable dtype, inside its file."""
    source, shards = _shard_files(folder)
    expected = expected_shapes(config)
    headers: dict[Path, dict[str, Any]] = {}
    files = sorted(set(shards.values())) if shards else [source]
    for path in files:
        headers[path] = _read_header(path)  # (st_* errors name the file)
    refs: dict[str, TensorRef] = {}
    unexpected: dict[Path, list[str]] = {}
    for path, entries in headers.items():
        for name, entry in entries.items():
            if shards and shards.get(name) != path:
                if name in shards:
                    continue  # a stale copy: the index names the file that holds it
                # a tensor the index does not list is unexpected in the shard that holds it
            if name not in expected:
                if name.endswith(_IGNORED_SUFFIX) or (
                        name == "lm_head.weight" and config.tie_word_embeddings):
                    continue  # (a tied head read from embed_tokens, as transformers does)
                unexpected.setdefault(path, []).append(name)
                continue
            if tuple(entry.shape) != expected[name]:
                raise EngineError("model_tensor_shape", path=path, name=name,
                                  shape=tuple(entry.shape), expected=expected[name])
            if entry.dtype not in DTYPES:
                raise EngineError("model_tensor_dtype", path=path, name=name, dtype=entry.dtype,
                                  supported=", ".join(DTYPES))
            refs[name] = TensorRef(path, name, entry.dtype, tuple(entry.shape),
                                   entry.begin, entry.end)
    for path, names in unexpected.items():
        raise EngineError("model_unexpected", path=path, names=", ".join(sorted(names)[:5]))
    for name in expected:
        if name not in refs:
            where = shards.get(name, source)
            raise EngineError("model_tensor_missing", path=where, name=name)
    return refs


def read_raw(ref: TensorRef, out: np.ndarray | None = None) -> np.ndarray:
    """One tensor's numbers exactly as stored (bf16 as its uint16 bits), read into memory of
    its own (or into ``out``, an array of its dtype and shape): one read, no mapping of the
    whole file."""
    dtype = DTYPES[ref.dtype]
    array = np.empty(ref.shape, dtype=dtype) if out is None else out
    if array.dtype != dtype or array.shape != ref.shape or not array.flags.c_contiguous:
        raise ValueError("read_raw: out must be a C-ordered array of the tensor's dtype and shape")
    try:
        with open(ref.path, "rb") as handle:
            handle.seek(ref.begin)
            got = handle.readinto(memoryview(array.reshape(-1)).cast("B"))
    except OSError as exc:
        raise EngineError("model_unreadable", path=ref.path, reason=exc.strerror or exc) from None
    if got != ref.end - ref.begin:  # the file shrank since its header was read
        raise EngineError("st_truncated", path=ref.path)
    return array


def widen(raw: np.ndarray, dtype: str, out: np.ndarray | None = None) -> np.ndarray:
    """Stored numbers as float64, exactly: bf16 is float32's top half, shifted into place."""
    if dtype == "BF16":
        raw = (raw.astype(np.uint32) << 16).view(np.float32)
    if out is None:
        return raw.astype(np.float64)
    out[...] = raw
    return out


def all_finite(raw: np.ndarray, dtype: str) -> bool:
    """No NaN or Inf among stored numbers, without widening them (bf16: exponent bits)."""
    flat = raw.reshape(-1)
    # in blocks that stay in cache: the check of a 151936 x 1024 embedding then costs ~0.1 s
    # instead of two passes through 300 MB temporaries
    step = 1 << 18
    for start in range(0, flat.size, step):
        block = flat[start:start + step]
        if dtype == "BF16":
            if np.any(np.bitwise_and(block, 0x7F80) == 0x7F80):
                return False
        elif not np.isfinite(block).all():
            return False
    return True


def file_size(path: Path) -> int:
    """The size of a regular file (for the tokenizer's bound)."""
    return _regular_file(path)


def fspath(path: Path) -> str:
    return os.fspath(path)
