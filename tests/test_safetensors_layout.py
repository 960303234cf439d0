"""A ``.safetensors`` header is checked as the format itself checks it (the reference
``safetensors`` crate): tensors tile the data section from byte 0 to the end of the file,
no two share a byte, each name once, whole offsets, a known dtype and a size that fits it.
Each bad header here is written by hand; files from the ``safetensors`` library pass."""

import json
from pathlib import Path

import numpy as np
import pytest

from engine.checkpoint import (
    MAX_HEADER_BYTES,
    TensorEntry,
    layer_indices,
    load_layer,
    read_header,
    safetensors_header,
)
from engine.errors import EngineError
from tests.safetensors_files import SMALL, layer_tensors, write_model, write_safetensors


def raw_file(path, header, data_size, *, raw_header=None):
    """A file with ``header`` (a dict, or bytes as given) and ``data_size`` zero bytes."""
    raw = raw_header if raw_header is not None else json.dumps(header).encode()
    path.write_bytes(len(raw).to_bytes(8, "little") + raw + bytes(data_size))
    return path


def t(begin, end, dtype="F32"):
    size = {"F32": 4, "F64": 8, "BF16": 2, "U8": 1}[dtype]
    return {"dtype": dtype, "shape": [(end - begin) // size], "data_offsets": [begin, end]}


def error(path):
    with pytest.raises(EngineError) as info:
        safetensors_header(path)
    for call in (layer_indices, load_layer):  # the public loaders refuse alike
        with pytest.raises(EngineError) as again:
            call(path)
        assert again.value.code == info.value.code
    return info.value


def test_contiguous_tensors_in_any_header_order_are_read(tmp_path):
    path = raw_file(tmp_path / "a.safetensors",
                    {"b": t(8, 16), "__metadata__": {"format": "pt"}, "a": t(0, 8),
                     "empty": t(8, 8), "c": t(16, 24, "U8")}, 24)
    entries = safetensors_header(path)
    start = path.stat().st_size - 24
    assert entries["a"] == TensorEntry("F32", (2,), start, start + 8)
    assert entries["c"] == TensorEntry("U8", (8,), start + 16, start + 24)
    assert entries["empty"].begin == entries["empty"].end == start + 8
    with open(path, "rb") as handle:
        assert read_header(handle, path) == entries


def test_overlapping_tensors_are_refused(tmp_path):
    path = raw_file(tmp_path / "o.safetensors", {"a": t(0, 16), "b": t(8, 24)}, 24)
    err = error(path)
    assert err.code == "st_overlap"
    assert (err.params["name"], err.params["other"]) == ("b", "a")
    assert (err.params["begin"], err.params["end"]) == (8, 16)


def test_tensors_sharing_the_same_bytes_are_refused(tmp_path):
    path = raw_file(tmp_path / "s.safetensors", {"a": t(0, 8), "b": t(0, 8)}, 8)
    assert error(path).code == "st_overlap"
    # an empty tensor inside another one's bytes shares them too
    path = raw_file(tmp_path / "e.safetensors", {"a": t(0, 8), "z": t(4, 4)}, 8)
    assert error(path).code == "st_overlap"


@pytest.mark.parametrize("header, size, gap", [
    ({"a": t(0, 8), "b": t(12, 20)}, 20, (8, 12)),  # between two tensors
    ({"a": t(4, 12)}, 12, (0, 4)),  # at the start of the data
    ({"a": t(0, 8)}, 12, (8, 12)),  # at the end: bytes after the last tensor
    ({}, 4, (0, 4)),  # data and no tensor
])
def test_gaps_are_refused(tmp_path, header, size, gap):
    err = error(raw_file(tmp_path / "g.safetensors", header, size))
    assert err.code == "st_gap" and (err.params["begin"], err.params["end"]) == gap


def test_a_name_given_twice_is_refused(tmp_path):
    raw = (b'{"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}, '
           b'"a": {"dtype": "F32", "shape": [2], "data_offsets": [8, 16]}}')
    err = error(raw_file(tmp_path / "d.safetensors", None, 16, raw_header=raw))
    assert err.code == "st_duplicate" and err.params["name"] == "a"


@pytest.mark.parametrize("offsets", [[-8, 0], [0.0, 8.0], [0, 8.0], ["0", "8"], [True, 8],
                                     [0, 8, 16], [8], None, [0, 1e400]])
def test_offsets_that_are_not_two_whole_numbers_are_refused(tmp_path, offsets):
    entry = {"dtype": "F32", "shape": [2], "data_offsets": offsets}
    raw = json.dumps({"a": entry}).encode().replace(b"Infinity", b"1e400")
    assert error(raw_file(tmp_path / "n.safetensors", None, 8, raw_header=raw)).code \
        == "st_bad_entry"


@pytest.mark.parametrize("entry, code", [
    ({"dtype": "Q4", "shape": [2], "data_offsets": [0, 8]}, "st_bad_entry"),  # no such dtype
    ({"dtype": "F32", "shape": [2.0], "data_offsets": [0, 8]}, "st_bad_entry"),
    ({"dtype": "F32", "shape": 2, "data_offsets": [0, 8]}, "st_bad_entry"),
    ({"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}, "st_size_mismatch"),
    ({"dtype": "I64", "shape": [2], "data_offsets": [0, 8]}, "st_size_mismatch"),
    ({"dtype": "F4", "shape": [3], "data_offsets": [0, 8]}, "st_size_mismatch"),  # 1.5 bytes
])
def test_dtype_shape_and_size_must_agree(tmp_path, entry, code):
    assert error(raw_file(tmp_path / "m.safetensors", {"a": entry}, 8)).code == code


def test_sub_byte_dtypes_are_sized_in_bits(tmp_path):
    # 16 F4 numbers are 8 bytes, 4 F6 numbers 3 bytes: the crate's own rule
    path = raw_file(tmp_path / "f.safetensors",
                    {"a": {"dtype": "F4", "shape": [4, 4], "data_offsets": [0, 8]},
                     "b": {"dtype": "F6_E2M3", "shape": [4], "data_offsets": [8, 11]}}, 11)
    assert set(safetensors_header(path)) == {"a", "b"}


@pytest.mark.parametrize("metadata", [[1, 2], {"format": 1}, "pt"])
def test_metadata_must_map_text_to_text(tmp_path, metadata):
    err = error(raw_file(tmp_path / "md.safetensors",
                         {"__metadata__": metadata, "a": t(0, 8)}, 8))
    assert err.code == "st_bad_header" and "__metadata__" in str(err)


def test_a_header_that_is_not_utf8_is_refused(tmp_path):
    raw = b'{"caf\xe9": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}'
    assert error(raw_file(tmp_path / "u.safetensors", None, 8, raw_header=raw)).code \
        == "st_bad_header"


def test_a_header_too_large_is_refused_unread(tmp_path):
    path = tmp_path / "big.safetensors"
    path.write_bytes((MAX_HEADER_BYTES + 1).to_bytes(8, "little") + b"{" + bytes(100))
    assert error(path).code == "st_not_safetensors"


#: Written by the ``safetensors`` library itself (0.8.0): ``safetensors.numpy.save_file`` of
#: ``layer_tensors(SMALL, 4, "F32")`` as ``model.layers.3.*``, an F16 ``model.embed_tokens``
#: [5, 12] of ones and an empty F16 ``model.empty`` [0, 3], metadata ``{"format": "pt"}``. The
#: same library refuses the two edits below ("invalid offset for tensor", "incomplete
#: metadata, file not fully covered").
LIBRARY_FILE = Path(__file__).parent / "data" / "written_by_safetensors.safetensors"


def test_a_file_written_by_the_safetensors_library_passes(tmp_path):
    _, values = layer_tensors(SMALL, 4, "F32")
    loaded = load_layer(LIBRARY_FILE, 3)
    assert all(np.array_equal(loaded.weights[n], v) for n, v in values.items())
    assert safetensors_header(LIBRARY_FILE)["model.empty"].shape == (0, 3)
    # what the reference reader refuses, this one refuses too
    raw = LIBRARY_FILE.read_bytes()
    length = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + length])
    name = "model.layers.3.mlp.up_proj.weight"
    begin, end = header[name]["data_offsets"]
    header[name]["data_offsets"] = [begin - 4, end - 4]  # overlaps its neighbour
    new = json.dumps(header).encode()
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(len(new).to_bytes(8, "little") + new + raw[8 + length:])
    assert error(bad).code == "st_overlap"
    bad.write_bytes(raw + bytes(4))  # four bytes past the last tensor
    assert error(bad).code == "st_gap"


def test_a_model_written_by_the_test_helper_still_passes(tmp_path):
    path = tmp_path / "model.safetensors"
    write_model(path, layers=2)
    write_safetensors(tmp_path / "one.safetensors",
                      {"x": ("F32", np.ones(3, np.float32))})
    assert layer_indices(path) == (0, 1)
    assert set(safetensors_header(tmp_path / "one.safetensors")) == {"x"}
