"""One decoder layer's weights under Hugging Face state-dict names, ``[out, in]`` layout."""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import struct
import tokenize
import zipfile
import zlib
from collections.abc import Iterator, Mapping
from typing import IO, Any

import numpy as np

from engine._checks import as_array, check_config, check_max_weights, open_regular
from engine.config import Qwen3Config
from engine.errors import EngineError, Phrase

_PREFIX = re.compile(r"^model\.layers\.(\d+)\.")
_CONFIG_KEY = "__config__"


def weight_shapes(config: Qwen3Config) -> dict[str, tuple[int, ...]]:
    """Every tensor of one layer with its expected shape, in HF's order."""
    check_config(config)
    d_model, ffn = config.hidden_size, config.intermediate_size
    q_out = config.num_attention_heads * config.head_dim
    kv_out = config.num_key_value_heads * config.head_dim
    return {
        "input_layernorm.weight": (d_model,),
        "self_attn.q_proj.weight": (q_out, d_model),
        "self_attn.k_proj.weight": (kv_out, d_model),
        "self_attn.v_proj.weight": (kv_out, d_model),
        "self_attn.o_proj.weight": (d_model, q_out),
        "self_attn.q_norm.weight": (config.head_dim,),
        "self_attn.k_norm.weight": (config.head_dim,),
        "post_attention_layernorm.weight": (d_model,),
        "mlp.gate_proj.weight": (ffn, d_model),
        "mlp.up_proj.weight": (ffn, d_model),
        "mlp.down_proj.weight": (d_model, ffn),
    }


WEIGHT_NAMES: tuple[str, ...] = tuple(weight_shapes(Qwen3Config()))

#: Projections that read the same input, row-stacked in HF's layout and stored in
#: one buffer (see :meth:`LayerWeights.stacked`): one matrix product then computes them all.
STACKS: dict[str, tuple[str, ...]] = {
    "qkv": ("self_attn.q_proj.weight", "self_attn.k_proj.weight", "self_attn.v_proj.weight"),
    "gate_up": ("mlp.gate_proj.weight", "mlp.up_proj.weight"),
}


def _checked(name: str, value: Any, shape: tuple[int, ...]) -> np.ndarray:
    """``value`` as an array of real numbers of ``shape`` (not yet copied or widened)."""
    if hasattr(value, "detach"):  # a torch tensor: no torch import needed here
        value = value.detach().cpu().double().numpy()
    array = as_array(value, name)
    if array.dtype.kind not in "fiu" or array.dtype == np.bool_:
        raise EngineError("weight_dtype", name=name, dtype=array.dtype)
    if array.shape != shape:
        raise EngineError("shape_expected", name=name, expected=shape, shape=array.shape)
    return array


def _max_abs(array: np.ndarray) -> float:
    """``max |array|`` as a float64 (NaN if any entry is NaN, inf if any is infinite or beyond
    float64's range; 0 for no entries)."""
    if not array.size:
        return 0.0
    with np.errstate(over="ignore"):  # (a longdouble beyond float64's range: inf, refused)
        high = float(np.maximum.reduce(array, axis=None))
        low = float(np.minimum.reduce(array, axis=None))
    return max(high, -low) if high == high and low == low else math.nan


def _check_mapping(tensors: object) -> None:
    if not isinstance(tensors, Mapping):
        raise EngineError("weights_mapping", got=type(tensors).__name__)


class LayerWeights(Mapping[str, np.ndarray]):
    """Read-only float64 tensors of one layer, validated against a config.

    A real checkpoint's tensors drop straight in through :meth:`from_state_dict`.
    """

    def __init__(self, tensors: Mapping[str, Any], config: Qwen3Config) -> None:
        check_config(config)
        _check_mapping(tensors)
        shapes = weight_shapes(config)
        missing = [n for n in shapes if n not in tensors]
        extra = sorted(set(tensors) - set(shapes))
        if missing:
            raise EngineError("weights_missing", names=", ".join(missing))
        if extra:
            raise EngineError("weights_unexpected", names=", ".join(extra))
        self._config = config
        arrays = {n: _checked(n, tensors[n], s) for n, s in shapes.items()}  # HF's order
        # Matrices are stored as HF holds them, ``[out, in]`` C-ordered: ``x @ w.T`` is BLAS's
        # "NT" product. (Stored transposed, as "NN", the same dot products ran no faster: 1-3 %
        # slower at Qwen3-0.6B's T = 16 and 64, interleaved in one process, both in 4 kB
        # pages; benchmarks/model_bench.py's layout_nn_over_nt 1.00-1.06; and the transposing
        # copy cost ~30 ms of CPU a layer at open.) q/k/v (and gate/up) are row blocks of one
        # read-only buffer, each name a C-contiguous view of its block: the layer then runs one
        # BLAS call for all three instead of three, at no extra memory. Each tensor is widened
        # straight into its block (no second copy).
        owned: dict[str, np.ndarray] = {}
        self._stacks: dict[str, np.ndarray] = {}
        for stack, names in STACKS.items():
            block = np.empty((sum(shapes[n][0] for n in names), shapes[names[0]][1]))
            start = 0
            for n in names:
                rows = shapes[n][0]
                owned[n] = block[start:start + rows]
                owned[n][...] = arrays[n]
                start += rows
            block.setflags(write=False)
            self._stacks[stack] = block
        # max |w| of each tensor, read once here: it also finds NaN (max and min propagate it)
        # and inf, instead of a separate isfinite pass, and run_layer's overflow bounds use it
        self._max_abs: dict[str, float] = {}
        self._tensors = {}
        for n in shapes:
            array = owned[n] if n in owned else np.array(arrays[n], dtype=np.float64, order="C")
            top = _max_abs(arrays[n])  # (of the source: widening is exact, keeps the order)
            if not math.isfinite(top):
                raise EngineError("weight_nan", name=n)
            self._max_abs[n] = top
            array.setflags(write=False)
            self._tensors[n] = array
        self._head_norms = np.concatenate([
            np.broadcast_to(self._tensors["self_attn.q_norm.weight"],
                            (config.num_attention_heads, config.head_dim)),
            np.broadcast_to(self._tensors["self_attn.k_norm.weight"],
                            (config.num_key_value_heads, config.head_dim))])
        self._head_norms.setflags(write=False)

    @property
    def config(self) -> Qwen3Config:
        return self._config

    def __getitem__(self, name: str) -> np.ndarray:
        return self._tensors[name]

    def max_abs(self, name: str) -> float:
        """``max |w|`` of one tensor, computed once (the tensors are read-only): ``run_layer``
        bounds its matrix products with it instead of reading them back for overflow."""
        return self._max_abs[name]

    def stacked(self, stack: str) -> np.ndarray:
        """``[sum of out, in]``: the tensors of ``STACKS[stack]`` row-stacked, HF layout, one
        C-ordered read-only block (``x @ stacked.T`` is one product).

        ``"qkv"`` is ``[q_proj; k_proj; v_proj]``, ``"gate_up"`` is ``[gate_proj; up_proj]``;
        ``self[name]`` is a view of its rows, so the two always agree.
        """
        return self._stacks[stack]

    def head_norms(self) -> np.ndarray:
        """``[H + Hkv, head_dim]``, read-only: q_norm's weight for each query head, then k_norm's
        for each kv head (q/k-norm of all heads side by side in one call)."""
        return self._head_norms

    def __iter__(self) -> Iterator[str]:
        return iter(self._tensors)

    def __len__(self) -> int:
        return len(self._tensors)

    def __repr__(self) -> str:
        return f"LayerWeights({self._config})"

    @classmethod
    def random(cls, config: Qwen3Config, seed: int = 0) -> LayerWeights:
        """Seeded weights at a sensible scale; norm weights are near 1 but never all ones."""
        check_config(config)
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise EngineError("whole_at_least", name="seed", low=0, value=seed)
        rng = np.random.default_rng(seed)
        tensors: dict[str, np.ndarray] = {}
        for name, shape in weight_shapes(config).items():
            if len(shape) == 1:
                tensors[name] = 1.0 + 0.2 * rng.standard_normal(shape)
            else:
                tensors[name] = rng.standard_normal(shape) / np.sqrt(shape[1])
        return cls(tensors, config)

    @classmethod
    def from_state_dict(cls, mapping: Mapping[str, Any], config: Qwen3Config) -> LayerWeights:
        """Accept HF names, optionally all under one ``model.layers.N.`` prefix."""
        _check_mapping(mapping)
        for key in mapping:
            if not isinstance(key, str):
                raise EngineError("weight_name_type", key=key)
        layers = {m.group(1) for m in map(_PREFIX.match, mapping) if m}
        if len(layers) > 1:
            raise EngineError("weights_layers", layers=", ".join(sorted(layers)))
        stripped: dict[str, Any] = {}
        for key, value in mapping.items():
            name = _PREFIX.sub("", key)
            if name in stripped:
                raise EngineError("weight_twice", name=name)
            stripped[name] = value
        return cls(stripped, config)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write an ``.npz`` (no pickle) with the config as JSON text beside the tensors."""
        config_json = np.frombuffer(json.dumps(self._config.to_dict()).encode(), dtype=np.uint8)
        tmp = f"{os.fspath(path)}.tmp"
        try:
            with open(tmp, "wb") as handle:
                np.savez(handle, **self._tensors, **{_CONFIG_KEY: config_json})
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)  # a half-written file is not left behind
            raise

    @classmethod
    def load(cls, path: str | os.PathLike[str], *,
             max_weights: int | None = None) -> LayerWeights:
        """Read a file written by :meth:`save`; anything else raises :class:`EngineError`
        that names the file and what is wrong with it (never a zip, zlib or numpy error).

        Only a regular file is opened (see :func:`engine._checks.open_regular`). The config
        is read first, then every member's zip entry and ``.npy`` header (name, dtype, shape,
        declared size) are checked, and only then are numbers read, each member exactly the
        bytes its header declares: a small file cannot make this allocate more than the
        layer's own weights (a header may claim terabytes, a compressed member may inflate).
        ``max_weights`` refuses a larger layer before the first number is read.
        """
        with open_regular(path) as handle:
            return cls.read(handle, path, max_weights=max_weights)

    @classmethod
    def read(cls, handle: IO[bytes], path: str | os.PathLike[str], *,
             max_weights: int | None = None) -> LayerWeights:
        """:meth:`load` from ``handle``, a regular file opened for binary reading (``path``
        names it in messages)."""
        max_weights = check_max_weights(max_weights)
        size = os.fstat(handle.fileno()).st_size
        name = ""  # the member being read, for the message if the archive fails under it
        try:
            with zipfile.ZipFile(handle) as archive:
                members = _members(archive, size, path)
                name = _CONFIG_KEY
                config = _read_config(archive, members, path)
                shapes = weight_shapes(config)
                unexpected = sorted(set(members) - set(shapes) - {_CONFIG_KEY})
                if unexpected:
                    raise EngineError("file_unexpected", path=path,
                                      names=", ".join(unexpected))
                count = sum(math.prod(s) for s in shapes.values())
                if max_weights is not None and count > max_weights:
                    raise EngineError("st_too_large", count=f"{count:,}",
                                      limit=f"{max_weights:,}")
                present = [n for n in shapes if n in members]  # LayerWeights names the rest
                for name in present:  # every header checked before the first number is read
                    with archive.open(members[name]) as member:
                        _read_header(member, name, shapes[name], path, members[name])
                arrays = {}
                for name in present:
                    with archive.open(members[name]) as member:
                        arrays[name] = _read_member(member, name, shapes[name], path,
                                                    members[name])
        except EngineError:
            raise  # (a ValueError: said in words already)
        except _DAMAGED as exc:
            if name and not isinstance(exc, MemoryError):
                raise EngineError("npz_damaged", path=path, name=name,
                                  reason=str(exc) or type(exc).__name__) from None
            raise EngineError("file_unreadable", path=path, reason=_reason(exc)) from None
        try:
            return cls(arrays, config)  # (float64 copies: a large layer's memory twice)
        except MemoryError:
            raise EngineError("file_unreadable", path=path,
                              reason=Phrase("a tensor too large for memory")) from None


#: What the zip, zlib and .npy readers raise for a damaged file (besides EngineError, for
#: what is checked first): zipfile's BadZipFile, RuntimeError and NotImplementedError (an
#: encrypted member, an unknown method: refused before they are met, kept as a backstop),
#: zlib.error and EOFError (a damaged or short deflate stream), OSError, ValueError (a
#: damaged header, a bad name), struct.error, and from an .npy header's Python literal
#: RecursionError (a RuntimeError), MemoryError, OverflowError, SyntaxError and the
#: tokenize.TokenError numpy's fallback parser of old headers lets out (an unclosed "{").
_DAMAGED = (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, RuntimeError,
            struct.error, MemoryError, OverflowError, SyntaxError, tokenize.TokenError)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, zipfile.BadZipFile):
        return Phrase("not an .npz archive")
    if isinstance(exc, MemoryError):
        return Phrase("a tensor too large for memory")
    return str(exc) or type(exc).__name__


#: A deflate stream inflates at most 1032-fold (a 258-byte match in two bits); a member whose
#: declared size is more than that lies about it (plus slack for the stream's framing).
_MAX_INFLATION = 1032
_INFLATION_SLACK = 1024
#: Zip flag bits: encrypted (0), strong encryption (6); compressed patched data (5).
_ENCRYPTED_FLAGS = 0x1 | 0x40
_PATCHED_FLAG = 0x20
_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)


def _members(archive: zipfile.ZipFile, size: int,
             path: str | os.PathLike[str]) -> dict[str, zipfile.ZipInfo]:
    """Each member by its name without ``.npy``, its zip entry checked: readable without a
    password, stored or deflated (what ``numpy.savez`` and ``savez_compressed`` write), its
    compressed bytes inside the file and its declared size one deflate can give."""
    members: dict[str, zipfile.ZipInfo] = {}
    for info in archive.infolist():
        name = info.filename.removesuffix(".npy")
        if name in members:
            raise EngineError("npz_twice", path=path, name=name)
        if info.flag_bits & _ENCRYPTED_FLAGS:
            raise EngineError("npz_encrypted", path=path, name=name)
        if info.compress_type not in _METHODS or info.flag_bits & _PATCHED_FLAG:
            method = (f"{info.compress_type} (patched data)"
                      if info.flag_bits & _PATCHED_FLAG else info.compress_type)
            raise EngineError("npz_method", path=path, name=name, method=method)
        stored = info.compress_type == zipfile.ZIP_STORED
        if info.header_offset + info.compress_size > size or (
                stored and info.compress_size != info.file_size):
            raise EngineError("file_cut_short", path=path, name=name)
        if info.file_size > _MAX_INFLATION * info.compress_size + _INFLATION_SLACK:
            raise EngineError("npz_inflates", path=path, name=name, size=f"{info.file_size:,}",
                              compressed=f"{info.compress_size:,}")
        members[name] = info
    return members


def _read_config(archive: zipfile.ZipFile, members: dict[str, zipfile.ZipInfo],
                 path: str | os.PathLike[str]) -> Qwen3Config:
    if _CONFIG_KEY not in members:
        raise EngineError("file_no_config", path=path)
    info = members[_CONFIG_KEY]
    with archive.open(info) as member:
        raw = _read_member(member, _CONFIG_KEY, None, path, info)
    try:
        return Qwen3Config.from_dict(json.loads(raw.tobytes()))
    except (UnicodeDecodeError, ValueError, TypeError, RecursionError) as exc:
        raise EngineError("file_bad_config", path=path, reason=exc) from None


#: A config's JSON is a few hundred bytes.
_MAX_CONFIG_BYTES = 1 << 16


def _read_header(member: IO[bytes], name: str, shape: tuple[int, ...] | None,
                 path: str | os.PathLike[str],
                 info: zipfile.ZipInfo) -> tuple[tuple[int, ...], bool, np.dtype[Any]]:
    """A member's ``.npy`` header, checked against what the member may be (the layer's shape
    for ``name``, real numbers; the config: at most 64 kB of bytes) and against the member's
    declared size, before any of its numbers is read. No pickle: object arrays are refused."""
    version = np.lib.format.read_magic(member)
    if version == (1, 0):
        found, fortran, dtype = np.lib.format.read_array_header_1_0(member)
    elif version == (2, 0):
        found, fortran, dtype = np.lib.format.read_array_header_2_0(member)
    else:
        raise EngineError("file_npy_version", path=path, name=name, version=version)
    if dtype.hasobject:
        raise EngineError("file_objects", path=path, name=name)
    if shape is None:  # the config: bytes
        if dtype != np.uint8 or len(found) != 1 or found[0] > _MAX_CONFIG_BYTES:
            raise EngineError("file_config_not_json", path=path)
    else:
        if found != shape:
            raise EngineError("shape_expected", name=name, expected=shape, shape=found)
        if dtype.kind not in "fiu" or dtype.itemsize > 8:
            raise EngineError("weight_dtype", name=name, dtype=dtype)
    needed = member.tell() + math.prod(found) * dtype.itemsize
    if info.file_size != needed:
        raise EngineError("npz_size", path=path, name=name, size=f"{info.file_size:,}",
                          shape=found, dtype=dtype, needed=f"{needed:,}")
    return found, fortran, dtype


def _read_member(member: IO[bytes], name: str, shape: tuple[int, ...] | None,
                 path: str | os.PathLike[str], info: zipfile.ZipInfo) -> np.ndarray:
    """One ``.npy`` member: its header checked (:func:`_read_header`), then exactly the bytes
    it declares, and the member's end (where zipfile checks its CRC)."""
    found, fortran, dtype = _read_header(member, name, shape, path, info)
    count = math.prod(found)
    data = member.read(count * dtype.itemsize)
    if len(data) != count * dtype.itemsize:
        raise EngineError("file_cut_short", path=path, name=name)
    if member.read(1):  # (cannot happen: the declared size was checked) and it checks the CRC
        raise EngineError("npz_size", path=path, name=name, size=f"{info.file_size:,}",
                          shape=found, dtype=dtype, needed=f"{len(data):,}")
    array = np.frombuffer(data, dtype=dtype, count=count)
    return array.reshape(found, order="F" if fortran else "C")
