"""Every weights loader, given any bytes, either returns a valid layer or raises EngineError,
in bounded time (the deadline) and memory (traced): arbitrary bytes, bytes that start like
each format, and mutations of valid files (flipped bytes, cuts, inserted bytes, edited zip
entries and safetensors headers).

Property tests run from a fixed seed with no example database, so a run is reproducible;
``SETTINGS`` says their size and the per-example deadline (generous: it catches a loader that
blocks or reads without end, not a slow machine)."""

import functools
import io
import json
import struct
import tempfile
import tracemalloc
import zipfile
from datetime import timedelta
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from engine import LayerWeights
from engine.checkpoint import layer_indices, load_layer, safetensors_header
from engine.errors import EngineError
from tests.safetensors_files import SMALL, layer_tensors, write_safetensors

SETTINGS = settings(max_examples=60, deadline=timedelta(seconds=2), database=None,
                    suppress_health_check=[HealthCheck.too_slow])
#: No loader may take more than this much memory for files of a few kB (the valid layer is
#: ~13 kB of float64); a loader that trusts a size in a header would take far more.
PEAK_BYTES = 16_000_000


def outcome(call, path):
    """'ok' or the EngineError's code; anything else propagates and fails the property."""
    try:
        result = call(path)
    except EngineError as exc:
        return exc.code
    if isinstance(result, LayerWeights):
        assert result.config.hidden_size >= 1
    return "ok"


LOADERS = {"LayerWeights.load": LayerWeights.load, "load_layer": load_layer,
           "layer_indices": layer_indices, "safetensors_header": safetensors_header}


def check_all(data, suffix):
    """Every loader on ``data``: each an outcome, none past the memory bound."""
    path = directory() / f"fuzz{suffix}"
    path.write_bytes(data)
    tracemalloc.start()
    try:
        results = {name: outcome(call, path) for name, call in LOADERS.items()}
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < PEAK_BYTES, (peak, results)
    return results


@functools.cache
def directory():
    """One folder for every example's file (each example overwrites it)."""
    return Path(tempfile.mkdtemp(prefix="dualview-fuzz-"))


def valid_npz(method):
    buffer = io.BytesIO()
    weights = LayerWeights.random(SMALL, 2)
    config = np.frombuffer(json.dumps(SMALL.to_dict()).encode(), np.uint8)
    with zipfile.ZipFile(buffer, "w", method) as archive:
        for name, array in [*weights.items(), ("__config__", config)]:
            member = io.BytesIO()
            np.lib.format.write_array(member, np.asarray(array), allow_pickle=False)
            archive.writestr(f"{name}.npy", member.getvalue())
    return buffer.getvalue()


def valid_safetensors():
    path = directory() / "valid.safetensors"
    stored, _ = layer_tensors(SMALL, 0, "BF16")
    write_safetensors(path, {f"model.layers.0.{n}": ("BF16", a) for n, a in stored.items()})
    return path.read_bytes()


@functools.cache
def valid():
    """The valid files the mutations start from (module state, not fixtures: an example's
    report then shows the edits, not 30 kB of file)."""
    return {"stored": valid_npz(zipfile.ZIP_STORED),
            "deflated": valid_npz(zipfile.ZIP_DEFLATED),
            "safetensors": valid_safetensors()}


def test_the_valid_files_are_valid():
    for kind, data in valid().items():
        suffix = ".safetensors" if kind == "safetensors" else ".npz"
        results = check_all(data, suffix)
        assert results["load_layer"] == results["layer_indices"] == "ok", kind


# ----- arbitrary bytes, and bytes that start like each format -----
PREFIXES = st.sampled_from([b"", b"PK\x03\x04", b"PK\x05\x06",
                            (100).to_bytes(8, "little") + b"{", b"\x93NUMPY\x01\x00"])


@seed(1901)
@SETTINGS
@given(prefix=PREFIXES, tail=st.binary(max_size=2048), suffix=st.sampled_from([".npz",
                                                                               ".safetensors"]))
def test_any_bytes_are_a_layer_or_an_engine_error(prefix, tail, suffix):
    check_all(prefix + tail, suffix)


# ----- mutations of valid files -----
EDITS = st.lists(st.tuples(st.integers(min_value=0), st.integers(0, 255)), min_size=1,
                 max_size=8)


def mutated(data, flips, cut, insert):
    raw = bytearray(data)
    for position, value in flips:
        raw[position % len(raw)] = value
    if cut is not None:
        raw = raw[:cut % (len(raw) + 1)]
    if insert is not None:
        at, chunk = insert
        at %= len(raw) + 1
        raw[at:at] = chunk
    return bytes(raw)


MUTATION = dict(
    kind=st.sampled_from(["stored", "deflated", "safetensors"]), flips=EDITS,
    cut=st.none() | st.integers(min_value=0),
    insert=st.none() | st.tuples(st.integers(min_value=0), st.binary(min_size=1, max_size=64)))


@seed(1902)
@SETTINGS
@given(**MUTATION)
def test_a_damaged_valid_file_is_a_layer_or_an_engine_error(kind, flips, cut,
                                                              insert):
    data = mutated(valid()[kind], flips, cut, insert)
    check_all(data, ".safetensors" if kind == "safetensors" else ".npz")


# zip entry fields a tool might get wrong: (signature, offset, struct format)
ZIP_FIELDS = [(b"PK\x03\x04", 6, "<H"), (b"PK\x03\x04", 8, "<H"), (b"PK\x03\x04", 18, "<I"),
              (b"PK\x03\x04", 22, "<I"), (b"PK\x03\x04", 26, "<H"), (b"PK\x03\x04", 28, "<H"),
              (b"PK\x01\x02", 8, "<H"), (b"PK\x01\x02", 10, "<H"), (b"PK\x01\x02", 16, "<I"),
              (b"PK\x01\x02", 20, "<I"), (b"PK\x01\x02", 24, "<I"), (b"PK\x01\x02", 42, "<I"),
              (b"PK\x05\x06", 10, "<H"), (b"PK\x05\x06", 12, "<I"), (b"PK\x05\x06", 16, "<I")]
FIELD_VALUES = st.one_of(st.sampled_from([0, 1, 8, 9, 12, 14, 99, 0x41, 0xFFFF, 0xFFFFFFFF,
                                          1 << 31]), st.integers(0, 0xFFFF))


@seed(1903)
@SETTINGS
@given(kind=st.sampled_from(["stored", "deflated"]),
       edits=st.lists(st.tuples(st.sampled_from(ZIP_FIELDS), st.integers(0, 11), FIELD_VALUES),
                      min_size=1, max_size=4))
def test_edited_zip_entries_are_a_layer_or_an_engine_error(kind, edits):
    raw = bytearray(valid()[kind])
    for (signature, offset, fmt), nth, value in edits:
        starts = [i for i in range(len(raw) - 3) if raw[i:i + 4] == signature]
        at = starts[nth % len(starts)] + offset
        value &= 0xFFFF if fmt == "<H" else 0xFFFFFFFF
        if at + struct.calcsize(fmt) <= len(raw):
            struct.pack_into(fmt, raw, at, value)
    check_all(bytes(raw), ".npz")


@seed(1904)
@SETTINGS
@given(kind=st.sampled_from(["stored", "deflated"]), member=st.integers(0, 11),
       header=st.one_of(
           st.binary(max_size=40),
           st.sampled_from([
               "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000, 1000000000), }",
               "{'descr': '|O', 'fortran_order': False, 'shape': (24, 12), }",
               "{'descr': '<c16', 'fortran_order': False, 'shape': (24, 12), }",
               "{'descr': '<f8', 'fortran_order': True, 'shape': (24, 12), }",
               "{'descr': '<f2', 'fortran_order': False, 'shape': (12,), }",
               "{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (12,), }",
               "{'descr': '<f8', 'fortran_order': False, 'shape': (-12,), }",
               "{'descr': '<f8', 'fortran_order': False, 'shape': " + "(" * 200 + ")" * 200
               + ", }"]).map(str.encode)))
def test_edited_npy_headers_are_a_layer_or_an_engine_error(kind, member,
                                                            header):
    with zipfile.ZipFile(io.BytesIO(valid()[kind])) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    name = sorted(members)[member % len(members)]
    data = members[name]
    length = struct.unpack_from("<H", data, 8)[0]
    members[name] = (data[:8] + struct.pack("<H", len(header) + 1) + header + b"\n"
                     + data[10 + length:])
    buffer = io.BytesIO()
    method = zipfile.ZIP_STORED if kind == "stored" else zipfile.ZIP_DEFLATED
    with zipfile.ZipFile(buffer, "w", method) as archive:
        for n, d in members.items():
            archive.writestr(n, d)
    check_all(buffer.getvalue(), ".npz")


def header_edit():
    """A function editing one tensor's entry of a safetensors header dict."""
    value = st.one_of(st.integers(-2, 10**12), st.floats(allow_nan=True), st.text(max_size=4),
                      st.none(), st.booleans(), st.lists(st.integers(-1, 50), max_size=3))
    field = st.sampled_from(["dtype", "shape", "data_offsets", "extra"])
    return st.tuples(st.integers(0, 12), field, value,
                     st.sampled_from(["set", "delete", "duplicate", "shift"]))


@seed(1905)
@SETTINGS
@given(edits=st.lists(header_edit(), min_size=1, max_size=3), pad=st.integers(0, 16))
def test_edited_safetensors_headers_are_a_layer_or_an_engine_error(edits,
                                                                     pad):
    raw = valid()["safetensors"]
    length = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + length])
    names = sorted(header)
    text_parts = []
    for index, field, value, how in edits:
        name = names[index % len(names)]
        entry = header.get(name)
        if how == "delete":
            header.pop(name, None)
        elif how == "duplicate" and isinstance(entry, dict):
            text_parts.append(f'"{name}": {json.dumps(entry)}')
        elif how == "shift" and isinstance(entry, dict) and isinstance(
                entry.get("data_offsets"), list):
            shift = value if isinstance(value, int) and not isinstance(value, bool) else 2
            entry["data_offsets"] = [o + shift if isinstance(o, int) else o
                                     for o in entry["data_offsets"]]
        elif isinstance(entry, dict):
            entry[field] = value
    text = json.dumps(header)  # (a float NaN or Infinity is written as such: JSON's edge)
    if text_parts:
        text = text[:-1] + ", " + ", ".join(text_parts) + "}"
    new = text.encode() + b" " * pad
    data = len(new).to_bytes(8, "little") + new + raw[8 + length:]
    check_all(data, ".safetensors")
