"""Damaged, lying and foreign ``.npz`` files of layer weights: each is refused with an
:class:`EngineError` that names the file and what is wrong (never a zip, zlib or lzma error),
before any number is read when the damage shows in a header, and with memory bounded by what
the caller allows. Every damaged file is built here by hand, with zipfile and byte edits."""

import io
import json
import struct
import threading
import tracemalloc
import zipfile

import numpy as np
import pytest

from engine import LayerWeights, Qwen3Config, weight_shapes
from engine.checkpoint import load_layer
from engine.errors import EngineError
from tests.safetensors_files import SMALL


def code_of(call, *args, **kwargs):
    with pytest.raises(EngineError) as info:
        call(*args, **kwargs)
    return info.value


def npy(array):
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, np.asarray(array), allow_pickle=False)
    return buffer.getvalue()


def members_of(config=SMALL, seed=0):
    """name.npy -> .npy bytes of a valid layer file (what LayerWeights.save writes)."""
    weights = LayerWeights.random(config, seed)
    members = {f"{n}.npy": npy(weights[n]) for n in weights}
    members["__config__.npy"] = npy(np.frombuffer(json.dumps(config.to_dict()).encode(),
                                                  np.uint8))
    return members


def write_zip(path, members, method=zipfile.ZIP_STORED):
    with zipfile.ZipFile(path, "w", method) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def patch_entries(raw, name, **fields):
    """``raw`` (a zip's bytes) with the local and central headers of member ``name`` edited:
    ``flags``, ``method``, ``file_size`` (the uncompressed size), as a zip tool would have
    written them."""
    raw = bytearray(raw)
    encoded = name.encode()
    # local header: sig, version, flags @6, method @8, time, date, crc @14, csize @18,
    # usize @22, name length @26, extra length @28, name @30
    for sig, at in ((b"PK\x03\x04", {"flags": 6, "method": 8, "file_size": 22, "name": 30,
                                      "name_len": 26}),
                    (b"PK\x01\x02", {"flags": 8, "method": 10, "file_size": 24, "name": 46,
                                      "name_len": 28})):
        start = 0
        while (start := raw.find(sig, start)) >= 0:
            (length,) = struct.unpack_from("<H", raw, start + at["name_len"])
            if raw[start + at["name"]:start + at["name"] + length] == encoded:
                for field, value in fields.items():
                    fmt = "<I" if field == "file_size" else "<H"
                    struct.pack_into(fmt, raw, start + at[field], value)
            start += 4
    return bytes(raw)


def data_span(path, name):
    """Where member ``name``'s stored (compressed) bytes are in the file."""
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo(name)
    raw = path.read_bytes()
    name_len, extra_len = struct.unpack_from("<HH", raw, info.header_offset + 26)
    begin = info.header_offset + 30 + name_len + extra_len
    return begin, begin + info.compress_size


Q = "self_attn.q_proj.weight.npy"


# ----- 1. a damaged member: one EngineError naming the file and the member -----
def test_an_encrypted_member_is_named(tmp_path):
    path = write_zip(tmp_path / "layer.npz", members_of())
    path.write_bytes(patch_entries(path.read_bytes(), Q, flags=0x1))
    err = code_of(LayerWeights.load, path)  # zipfile: RuntimeError "password required"
    assert err.code == "npz_encrypted" and err.params["name"] == "self_attn.q_proj.weight"
    assert str(path) in str(err)
    assert code_of(load_layer, path).code == "npz_encrypted"
    path = write_zip(tmp_path / "layer.npz", members_of())
    path.write_bytes(patch_entries(path.read_bytes(), Q, flags=0x40))  # strong encryption
    assert code_of(LayerWeights.load, path).code == "npz_encrypted"


def test_a_patched_member_is_named(tmp_path):
    path = write_zip(tmp_path / "layer.npz", members_of())
    path.write_bytes(patch_entries(path.read_bytes(), Q, flags=0x20))
    err = code_of(LayerWeights.load, path)  # zipfile: NotImplementedError
    assert err.code == "npz_method" and err.params["method"] == "0 (patched data)"


@pytest.mark.parametrize("method", [99, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA])
def test_a_member_compressed_another_way_is_named(tmp_path, method):
    path = write_zip(tmp_path / "layer.npz", members_of())
    path.write_bytes(patch_entries(path.read_bytes(), Q, method=method))
    err = code_of(LayerWeights.load, path)  # zipfile: NotImplementedError, OSError, LZMAError
    assert err.code == "npz_method" and err.params == {
        "path": path, "name": "self_attn.q_proj.weight", "method": method}
    assert code_of(load_layer, path).code == "npz_method"


def test_an_lzma_member_is_refused_before_it_is_inflated(tmp_path):
    members = members_of()
    path = tmp_path / "layer.npz"
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data, zipfile.ZIP_LZMA if name == Q else zipfile.ZIP_STORED)
    begin, end = data_span(path, Q)
    raw = bytearray(path.read_bytes())
    raw[begin + 20:end - 4] = b"\xa5" * (end - 24 - begin)  # damaged: lzma.LZMAError
    path.write_bytes(bytes(raw))
    assert code_of(LayerWeights.load, path).code == "npz_method"


def test_a_damaged_deflate_stream_is_named(tmp_path):
    path = write_zip(tmp_path / "layer.npz", members_of(), zipfile.ZIP_DEFLATED)
    begin, _ = data_span(path, Q)
    raw = bytearray(path.read_bytes())
    raw[begin] = 0xFF  # a block of the reserved type 3: zlib.error "invalid block type"
    path.write_bytes(bytes(raw))
    err = code_of(LayerWeights.load, path)
    assert err.code == "npz_damaged" and err.params["name"] == "self_attn.q_proj.weight"
    assert "invalid block type" in err.params["reason"]


def test_a_deflate_stream_that_ends_early_is_named(tmp_path):
    path = write_zip(tmp_path / "layer.npz", members_of(), zipfile.ZIP_DEFLATED)
    _, end = data_span(path, Q)
    raw = bytearray(path.read_bytes())
    # the stream's last bytes zeroed: it inflates short, or into garbage that fails its CRC
    raw[end - 12:end] = bytes(12)
    path.write_bytes(bytes(raw))
    err = code_of(LayerWeights.load, path)
    assert err.code == "npz_damaged" and err.params["name"] == "self_attn.q_proj.weight"


def test_a_bad_crc_is_named(tmp_path):
    path = write_zip(tmp_path / "layer.npz", members_of())
    _, end = data_span(path, Q)
    raw = bytearray(path.read_bytes())
    raw[end - 3] ^= 0x01  # one bit of the last number: only the CRC tells
    path.write_bytes(bytes(raw))
    err = code_of(LayerWeights.load, path)  # zipfile: BadZipFile "Bad CRC-32"
    assert err.code == "npz_damaged" and "CRC" in err.params["reason"]
    assert err.params["name"] == "self_attn.q_proj.weight"


def test_a_member_named_twice_is_refused(tmp_path):
    members = members_of()
    path = write_zip(tmp_path / "layer.npz", members)
    with pytest.warns(UserWarning, match="Duplicate name"):
        with zipfile.ZipFile(path, "a") as archive:
            archive.writestr(Q, npy(np.zeros((24, 12))))
    err = code_of(LayerWeights.load, path)
    assert err.code == "npz_twice" and err.params["name"] == "self_attn.q_proj.weight"


def test_a_member_that_is_not_an_npy_array_is_named(tmp_path):
    members = members_of()
    members[Q] = b"\x93NUMPY\x01\x00" + b"\x10\x00" + b"{'descr': <<<<}\n"
    err = code_of(LayerWeights.load, write_zip(tmp_path / "layer.npz", members))
    assert err.code == "npz_damaged" and err.params["name"] == "self_attn.q_proj.weight"


def test_weights_stored_as_complex_numbers_are_refused_from_the_header(tmp_path):
    members = members_of()
    members[Q] = npy(np.zeros((24, 12), np.complex128))
    err = code_of(LayerWeights.load, write_zip(tmp_path / "layer.npz", members))
    assert err.code == "weight_dtype"


# ----- 2. sizes are checked before a byte is inflated -----
def test_a_declared_size_that_does_not_fit_the_header_is_refused(tmp_path):
    path = write_zip(tmp_path / "layer.npz", members_of(), zipfile.ZIP_DEFLATED)
    with zipfile.ZipFile(path) as archive:
        size = archive.getinfo(Q).file_size
    path.write_bytes(patch_entries(path.read_bytes(), Q, file_size=size + 8))
    err = code_of(LayerWeights.load, path)
    assert err.code == "npz_size" and err.params["needed"] == f"{size:,}"


def test_a_declared_size_no_deflate_can_give_is_refused(tmp_path):
    path = write_zip(tmp_path / "layer.npz", members_of(), zipfile.ZIP_DEFLATED)
    path.write_bytes(patch_entries(path.read_bytes(), Q, file_size=4_000_000_000))
    assert code_of(LayerWeights.load, path).code == "npz_inflates"


def test_a_stored_member_past_the_end_of_the_file_is_cut_short(tmp_path):
    path = write_zip(tmp_path / "layer.npz", members_of())
    raw = bytearray(patch_entries(path.read_bytes(), Q, file_size=4_000_000_000))
    # stored: the compressed size is the size; the central directory says 4 GB for both
    start = raw.find(b"PK\x01\x02")
    while start >= 0:
        (length,) = struct.unpack_from("<H", raw, start + 28)
        if raw[start + 46:start + 46 + length] == Q.encode():
            struct.pack_into("<I", raw, start + 20, 4_000_000_000)
        start = raw.find(b"PK\x01\x02", start + 4)
    path.write_bytes(bytes(raw))
    assert code_of(LayerWeights.load, path).code == "file_cut_short"


BIG = Qwen3Config(hidden_size=512, intermediate_size=2048, num_attention_heads=8,
                  num_key_value_heads=4, head_dim=64)


def zip_bomb(path):
    """A real deflate bomb: an honest file of BIG's layer (3.9 M float64 zeros, 31 MB
    inflated) that is ~33 kB on disk. Written in chunks: the test never holds
    the inflated layer."""
    config = json.dumps(BIG.to_dict()).encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("__config__.npy", npy(np.frombuffer(config, np.uint8)))
        for name, shape in weight_shapes(BIG).items():
            header = io.BytesIO()
            np.lib.format.write_array_header_1_0(
                header, {"descr": "<f8", "fortran_order": False, "shape": shape})
            with archive.open(f"{name}.npy", "w") as member:
                member.write(header.getvalue())
                left = int(np.prod(shape)) * 8
                chunk = bytes(1 << 20)
                while left:
                    member.write(chunk[:min(left, len(chunk))])
                    left -= min(left, len(chunk))
    return path


def test_a_small_file_claiming_a_large_layer_is_refused_before_it_inflates(tmp_path):
    path = zip_bomb(tmp_path / "bomb.npz")
    assert path.stat().st_size < 200_000
    count = sum(int(np.prod(s)) for s in weight_shapes(BIG).values())
    assert count * 8 > 30_000_000
    tracemalloc.start()
    try:
        for call in (LayerWeights.load, load_layer):
            with pytest.raises(EngineError) as info:
                call(path, max_weights=count - 1)
            assert info.value.code == "st_too_large"
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4_000_000, f"{peak:,} bytes to refuse a {count:,}-weight layer"
    # allowed, it is an honest layer of zeros (the memory is the caller's choice)
    assert LayerWeights.load(path, max_weights=count).config == BIG


# ----- 3. only regular files -----
def run_briefly(call, *args):
    """``call(*args)`` in a thread: (finished within 10 s, what it raised or returned)."""
    outcome = []

    def target():
        try:
            outcome.append(call(*args))
        except BaseException as exc:  # handed to the test
            outcome.append(exc)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(10)
    return not thread.is_alive(), (outcome or [None])[0]


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="POSIX FIFOs")
@pytest.mark.parametrize("loader", ["LayerWeights.load", "load_layer", "layer_indices",
                                    "safetensors_header"])
def test_a_fifo_is_refused_at_once(tmp_path, loader):
    import os

    from engine import checkpoint

    call = {"LayerWeights.load": LayerWeights.load, "load_layer": load_layer,
            "layer_indices": checkpoint.layer_indices,
            "safetensors_header": checkpoint.safetensors_header}[loader]
    fifo = tmp_path / "pipe.npz"
    os.mkfifo(fifo)
    done, outcome = run_briefly(call, fifo)
    if not done:  # let the blocked reader go: a writer opens and closes the pipe
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    assert done, f"{loader} blocked on a FIFO"
    assert isinstance(outcome, EngineError) and outcome.code == "file_unreadable"
    assert "not a regular file" in str(outcome) and str(fifo) in str(outcome)


@pytest.mark.parametrize("loader", ["LayerWeights.load", "load_layer", "layer_indices",
                                    "safetensors_header"])
def test_a_link_to_an_endless_device_is_refused(tmp_path, loader):
    from engine import checkpoint

    call = {"LayerWeights.load": LayerWeights.load, "load_layer": load_layer,
            "layer_indices": checkpoint.layer_indices,
            "safetensors_header": checkpoint.safetensors_header}[loader]
    link = tmp_path / "zeros.npz"
    link.symlink_to("/dev/zero")
    done, outcome = run_briefly(call, link)
    assert done, f"{loader} kept reading /dev/zero"
    assert isinstance(outcome, EngineError) and outcome.code == "file_unreadable"
    assert "not a regular file" in str(outcome)


def test_a_link_to_a_regular_file_is_followed(tmp_path):
    path = tmp_path / "layer.npz"
    LayerWeights.random(SMALL, 1).save(path)
    link = tmp_path / "link.npz"
    link.symlink_to(path)
    assert LayerWeights.load(link).config == SMALL
    assert load_layer(link).config == SMALL


def test_a_config_json_that_is_not_a_regular_file_is_refused(tmp_path):
    from tests.safetensors_files import write_model

    path = tmp_path / "model.safetensors"
    write_model(path, layers=1)
    (tmp_path / "config.json").symlink_to("/dev/zero")
    done, outcome = run_briefly(load_layer, path)
    assert done and isinstance(outcome, EngineError)
    assert outcome.code == "st_bad_config_json" and "not a regular file" in str(outcome)


def test_running_out_of_memory_is_an_engine_error(tmp_path, monkeypatch):
    """A layer the caller allowed but this machine cannot hold: said in words, for both
    formats (a MemoryError is never what a caller sees)."""
    from engine import checkpoint
    from engine import weights as weights_module
    from tests.safetensors_files import write_model

    npz = tmp_path / "layer.npz"
    LayerWeights.random(SMALL, 1).save(npz)
    model = tmp_path / "model.safetensors"
    write_model(model, layers=1)

    def no_memory(*_args, **_kwargs):
        raise MemoryError

    monkeypatch.setattr(weights_module.np, "frombuffer", no_memory)
    for call in (LayerWeights.load, load_layer):
        err = code_of(call, npz)
        assert err.code == "file_unreadable" and "too large for memory" in str(err)
    monkeypatch.undo()
    monkeypatch.setattr(checkpoint, "read_tensor", no_memory)
    err = code_of(load_layer, model)
    assert err.code == "file_unreadable" and "too large for memory" in str(err)
    monkeypatch.undo()
    monkeypatch.setattr(LayerWeights, "__init__", no_memory)
    for call, path in ((LayerWeights.load, npz), (load_layer, npz), (load_layer, model)):
        err = code_of(call, path)
        assert err.code == "file_unreadable" and "too large for memory" in str(err)


@pytest.mark.parametrize("bad", [-1, 2.5, "1000", True])
def test_max_weights_must_be_a_whole_number(tmp_path, bad):
    path = tmp_path / "layer.npz"
    LayerWeights.random(SMALL, 1).save(path)
    for call in (LayerWeights.load, load_layer):
        err = code_of(call, path, max_weights=bad)
        assert err.code == "whole_at_least" and err.params["name"] == "max_weights"
