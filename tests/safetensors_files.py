"""Small Hugging Face ``.safetensors`` files written by hand (numpy only), for the tests.

The format: an 8-byte little-endian header length, a JSON header
``{name: {dtype, shape, data_offsets}}`` (plus ``__metadata__``), then the raw numbers.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from engine import Qwen3Config, weight_shapes

#: A small layer with head_dim != hidden / heads and GQA, like the real ones.
SMALL = Qwen3Config(hidden_size=12, intermediate_size=20, num_attention_heads=4,
                    num_key_value_heads=2, head_dim=6, rms_norm_eps=1e-6, rope_theta=1e6)


def to_bf16(values: np.ndarray) -> np.ndarray:
    """float32 -> the top 16 bits (truncation: the tests need exact values, not rounding)."""
    return (np.ascontiguousarray(values, dtype="<f4").view("<u4") >> 16).astype("<u2")


def bf16_values(bits: np.ndarray) -> np.ndarray:
    """What a bf16 tensor's bits mean, in float64 (independently of the reader under test)."""
    return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def layer_tensors(config: Qwen3Config, seed: int, dtype: str) -> tuple[dict, dict]:
    """``(stored, float64)``: one layer's tensors as stored in ``dtype`` and their values."""
    rng = np.random.default_rng(seed)
    stored, values = {}, {}
    for name, shape in weight_shapes(config).items():
        x = (1.0 + 0.2 * rng.standard_normal(shape) if len(shape) == 1
             else rng.standard_normal(shape) / np.sqrt(shape[-1])).astype(np.float32)
        if dtype == "BF16":
            stored[name] = to_bf16(x)
            values[name] = bf16_values(stored[name])
        else:
            stored[name] = x.astype({"F32": "<f4", "F16": "<f2", "F64": "<f8"}[dtype])
            values[name] = stored[name].astype(np.float64)
    return stored, values


def write_safetensors(path: Path, tensors: dict[str, tuple[str, np.ndarray]],
                      metadata: dict | None = None, *, header_extra: dict | None = None) -> None:
    """``tensors``: name -> (safetensors dtype, array with that dtype's bytes)."""
    header: dict = {"__metadata__": metadata or {"format": "pt"}}
    blobs, offset = [], 0
    for name, (dtype, array) in tensors.items():
        data = np.ascontiguousarray(array).tobytes()
        header[name] = {"dtype": dtype, "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    header.update(header_extra or {})
    raw = json.dumps(header).encode()
    raw += b" " * (-len(raw) % 8)  # the reference writer pads the header to 8 bytes
    path.write_bytes(len(raw).to_bytes(8, "little") + raw + b"".join(blobs))


def write_model(path: Path, config: Qwen3Config = SMALL, *, dtype: str = "BF16",
                layers: int = 2) -> dict[int, dict[str, np.ndarray]]:
    """A checkpoint with ``layers`` decoder layers plus unrelated tensors (embeddings, the
    final norm); returns each layer's float64 values under HF names."""
    tensors: dict[str, tuple[str, np.ndarray]] = {}
    rng = np.random.default_rng(99)
    embed = rng.standard_normal((7, config.hidden_size)).astype(np.float32)
    tensors["model.embed_tokens.weight"] = ("BF16", to_bf16(embed))
    values = {}
    for n in range(layers):
        stored, values[n] = layer_tensors(config, seed=n, dtype=dtype)
        for name, array in stored.items():
            tensors[f"model.layers.{n}.{name}"] = (dtype, array)
    tensors["model.norm.weight"] = ("F32", np.ones(config.hidden_size, np.float32))
    write_safetensors(path, tensors)
    return values
