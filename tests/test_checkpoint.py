"""Reading one decoder layer from a Hugging Face ``.safetensors`` file (engine.checkpoint):
exact values for every stored dtype, the config from the shapes (and ``config.json``), the
layer running exactly as the same numbers given as a state dict, and one EngineError code for
each way a file can be bad."""

import json
import os

import numpy as np
import pytest

from engine import LayerWeights, Qwen3Config, embed, run_layer, tokenize
from engine.checkpoint import QWEN3_DEFAULTS, layer_indices, load_layer
from engine.errors import EngineError
from tests.safetensors_files import (
    SMALL,
    layer_tensors,
    to_bf16,
    write_model,
    write_safetensors,
)


def code_of(call, *args, **kwargs):
    with pytest.raises(EngineError) as info:
        call(*args, **kwargs)
    return info.value.code


@pytest.mark.parametrize("dtype", ["BF16", "F32", "F16", "F64"])
def test_each_layer_is_read_exactly(tmp_path, dtype):
    path = tmp_path / "model.safetensors"
    values = write_model(path, dtype=dtype, layers=2)
    assert layer_indices(path) == (0, 1)
    for n in (0, 1):
        loaded = load_layer(path, n)
        assert loaded.layer == n and loaded.config == SMALL
        for name, expected in values[n].items():
            got = loaded.weights[name]
            assert got.dtype == np.float64 and got.shape == expected.shape
            assert np.array_equal(got, expected), name  # bf16 -> float64 is exact
    assert not np.array_equal(load_layer(path, 0).weights["mlp.up_proj.weight"],
                              load_layer(path, 1).weights["mlp.up_proj.weight"])


def test_bf16_is_the_top_half_of_float32(tmp_path):
    # values a bf16 holds exactly, including a negative, a tiny and a huge one
    exact = np.array([1.0, -2.5, 0.15625, 3.0e38, -1.1754943508222875e-38], np.float32)
    exact = (exact.view(np.uint32) & 0xFFFF0000).view(np.float32)
    stored, _ = layer_tensors(SMALL, 0, "BF16")
    stored["input_layernorm.weight"][:5] = to_bf16(exact)
    path = tmp_path / "m.safetensors"
    write_safetensors(path, {f"model.layers.0.{n}": ("BF16", a) for n, a in stored.items()})
    got = load_layer(path, 0).weights["input_layernorm.weight"][:5]
    assert got.tolist() == exact.astype(np.float64).tolist()


def test_the_layer_runs_exactly_as_the_same_numbers_given_as_a_state_dict(tmp_path):
    path = tmp_path / "model.safetensors"
    values = write_model(path, dtype="BF16")
    loaded = load_layer(path, 1)
    direct = LayerWeights.from_state_dict(
        {f"model.layers.1.{n}": v for n, v in values[1].items()}, SMALL)
    x = embed(tokenize("the cat sat on the mat"), SMALL.hidden_size)
    ours, theirs = run_layer(x, loaded.weights, SMALL), run_layer(x, direct, SMALL)
    for a, b in zip(ours, theirs, strict=True):
        assert a.name == b.name and np.array_equal(a.array, b.array), a.name


def test_config_comes_from_the_shapes_and_config_json(tmp_path):
    path = tmp_path / "model.safetensors"
    write_model(path, dtype="F32", layers=1)
    loaded = load_layer(path)
    assert loaded.assumed == ("rms_norm_eps", "rope_theta")
    assert (loaded.config.rms_norm_eps, loaded.config.rope_theta) == (
        QWEN3_DEFAULTS["rms_norm_eps"], QWEN3_DEFAULTS["rope_theta"])
    (tmp_path / "config.json").write_text(json.dumps(
        {"model_type": "qwen3", "hidden_size": 12, "rms_norm_eps": 1e-5}))
    loaded = load_layer(path)
    assert loaded.assumed == ("rope_theta",) and loaded.config.rms_norm_eps == 1e-5
    (tmp_path / "config.json").write_text(json.dumps(
        {"rms_norm_eps": 1e-6, "rope_parameters": {"rope_theta": 5e5, "rope_type": "default"}}))
    loaded = load_layer(path)
    assert loaded.assumed == () and loaded.config.rope_theta == 5e5
    assert loaded.config == Qwen3Config(hidden_size=12, intermediate_size=20,
                                        num_attention_heads=4, num_key_value_heads=2,
                                        head_dim=6, rms_norm_eps=1e-6, rope_theta=5e5)
    (tmp_path / "config.json").write_text("{not json")
    assert code_of(load_layer, path) == "st_bad_config_json"
    (tmp_path / "config.json").write_text("[1, 2]")
    assert code_of(load_layer, path) == "st_bad_config_json"


def test_the_fingerprint_tells_a_changed_layer(tmp_path):
    path = tmp_path / "model.safetensors"
    write_model(path, layers=2)
    first = load_layer(path, 0).fingerprint
    assert load_layer(path, 0).fingerprint == first != load_layer(path, 1).fingerprint
    stored, _ = layer_tensors(SMALL, 5, "BF16")
    write_safetensors(path, {f"model.layers.0.{n}": ("BF16", a) for n, a in stored.items()})
    assert load_layer(path, 0).fingerprint != first


def test_an_npz_of_layer_weights_save_is_read_too(tmp_path):
    weights = LayerWeights.random(SMALL, seed=3)
    path = tmp_path / "layer.npz"
    weights.save(path)
    assert layer_indices(path) == (0,)
    loaded = load_layer(path)
    assert loaded.config == SMALL and loaded.assumed == ()
    assert all(np.array_equal(loaded.weights[n], weights[n]) for n in weights)
    assert code_of(load_layer, path, 1) == "st_layer_absent"


def test_only_the_chosen_layer_is_read(tmp_path, monkeypatch):
    path = tmp_path / "model.safetensors"
    write_model(path, layers=3)
    reads = []
    import engine.checkpoint as checkpoint

    original = checkpoint._read_tensor

    def counting(handle, name, entry, *args):
        reads.append((name, entry.end - entry.begin))
        return original(handle, name, entry, *args)

    monkeypatch.setattr(checkpoint, "_read_tensor", counting)
    load_layer(path, 2)
    assert len(reads) == 11
    layer_bytes = sum(n for _, n in reads)
    assert layer_bytes * 3 < path.stat().st_size


# ----- bad files: one code each -----
def layer_file(tmp_path, **overrides):
    """Layer 0 in bf16, with tensors replaced (name -> (dtype, array)) or removed (None)."""
    stored, _ = layer_tensors(SMALL, 0, "BF16")
    tensors = {f"model.layers.0.{n}": ("BF16", a) for n, a in stored.items()}
    for name, value in overrides.items():
        key = f"model.layers.0.{name.replace('__', '.')}"
        if value is None:
            del tensors[key]
        else:
            tensors[key] = value
    path = tmp_path / "bad.safetensors"
    write_safetensors(path, tensors)
    return path


def test_not_a_safetensors_file(tmp_path):
    path = tmp_path / "notes.safetensors"
    path.write_text("Just some notes about attention, not weights at all.")
    assert code_of(load_layer, path) == "st_not_safetensors"
    assert code_of(layer_indices, path) == "st_not_safetensors"
    path.write_bytes((2**40).to_bytes(8, "little") + b"{}")
    assert code_of(load_layer, path) == "st_not_safetensors"


def test_missing_and_truncated_files(tmp_path):
    assert code_of(load_layer, tmp_path / "gone.safetensors") == "file_missing"
    assert code_of(layer_indices, tmp_path / "gone.safetensors") == "file_missing"
    assert code_of(load_layer, tmp_path) == "file_unreadable"  # a folder
    if hasattr(os, "mkfifo"):  # (POSIX)
        fifo = tmp_path / "pipe.safetensors"
        os.mkfifo(fifo)  # opening it to read would wait for a writer forever
        with pytest.raises(EngineError) as info:
            load_layer(fifo)
        assert info.value.code == "file_unreadable" and "not a regular file" in str(info.value)
    path = tmp_path / "short.safetensors"
    path.write_bytes(b"\x10\x00")
    assert code_of(load_layer, path) == "st_truncated"
    good = tmp_path / "model.safetensors"
    write_model(good, layers=1)
    raw = good.read_bytes()
    length = int.from_bytes(raw[:8], "little")
    path.write_bytes(raw[:8 + length // 2])  # cut inside the header
    assert code_of(load_layer, path) == "st_truncated"
    path.write_bytes(raw[:-10])  # cut inside the data: the last tensor ends outside
    assert code_of(load_layer, path) == "st_outside"


def test_a_corrupt_header(tmp_path):
    path = tmp_path / "bad.safetensors"
    raw = b'{"model.layers.0.x": {"dtype": "F32", '
    path.write_bytes(len(raw).to_bytes(8, "little") + raw)
    assert code_of(load_layer, path) == "st_bad_header"
    raw = b'{"a": 1}'
    path.write_bytes(len(raw).to_bytes(8, "little") + raw)
    assert code_of(load_layer, path) == "st_bad_entry"
    for entry in ({"dtype": "F32", "shape": [2]},
                  {"dtype": "F32", "shape": [2], "data_offsets": [8, 0]},
                  {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]},
                  {"dtype": 5, "shape": [2], "data_offsets": [0, 8]}):
        raw = json.dumps({"model.layers.0.input_layernorm.weight": entry}).encode()
        path.write_bytes(len(raw).to_bytes(8, "little") + raw + bytes(8))
        assert code_of(load_layer, path) == "st_bad_entry", entry
    raw = json.dumps({"t": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}).encode()
    path.write_bytes(len(raw).to_bytes(8, "little") + raw + bytes(8))
    assert code_of(load_layer, path) == "st_size_mismatch"


def test_offsets_outside_the_file(tmp_path):
    path = tmp_path / "bad.safetensors"
    raw = json.dumps({"model.layers.0.input_layernorm.weight":
                      {"dtype": "F32", "shape": [4], "data_offsets": [1000, 1016]}}).encode()
    path.write_bytes(len(raw).to_bytes(8, "little") + raw + bytes(16))
    assert code_of(load_layer, path) == "st_outside"


def test_an_unsupported_dtype_names_the_tensor(tmp_path):
    path = layer_file(tmp_path, self_attn__k_norm__weight=("I32", np.ones(6, "<i4")))
    with pytest.raises(EngineError) as info:
        load_layer(path)
    assert info.value.code == "st_dtype"
    assert info.value.params["name"] == "self_attn.k_norm.weight"
    # an unsupported dtype in a tensor the layer does not need is fine
    stored, values = layer_tensors(SMALL, 0, "F32")
    tensors = {f"model.layers.0.{n}": ("F32", a) for n, a in stored.items()}
    tensors["lm_head.quant"] = ("I8", np.zeros(4, np.int8))
    write_safetensors(path, tensors)
    assert np.array_equal(load_layer(path).weights["mlp.down_proj.weight"],
                          values["mlp.down_proj.weight"])


def test_no_decoder_layer_and_an_absent_layer(tmp_path):
    path = tmp_path / "embed.safetensors"
    write_safetensors(path, {"model.embed_tokens.weight": ("F32", np.ones((3, 4), np.float32))})
    assert code_of(layer_indices, path) == "st_no_layers"
    assert code_of(load_layer, path) == "st_no_layers"
    model = tmp_path / "model.safetensors"
    write_model(model, layers=2)
    with pytest.raises(EngineError) as info:
        load_layer(model, 7)
    assert info.value.code == "st_layer_absent" and info.value.params["layers"] == "0, 1"
    assert code_of(load_layer, model, -1) == "whole_at_least"


def test_a_missing_an_extra_or_a_wrong_shaped_tensor(tmp_path):
    with pytest.raises(EngineError) as info:
        load_layer(layer_file(tmp_path, mlp__up_proj__weight=None))
    assert info.value.code == "weights_missing" and "mlp.up_proj.weight" in str(info.value)
    bias = ("BF16", to_bf16(np.ones(24, np.float32)))
    with pytest.raises(EngineError) as info:
        load_layer(layer_file(tmp_path, self_attn__q_proj__bias=bias))
    assert info.value.code == "weights_unexpected" and "q_proj.bias" in str(info.value)
    wrong = ("BF16", to_bf16(np.ones((12, 19), np.float32)))
    with pytest.raises(EngineError) as info:
        load_layer(layer_file(tmp_path, mlp__down_proj__weight=wrong))
    assert info.value.code == "shape_expected"
    assert info.value.params["name"] == "mlp.down_proj.weight"


def test_inconsistent_shapes(tmp_path):
    odd = ("BF16", to_bf16(np.ones(5, np.float32)))  # q_norm 5: q_proj's 24 rows not whole
    assert code_of(load_layer, layer_file(tmp_path, self_attn__q_norm__weight=odd)) \
        == "st_inconsistent"
    flat = ("BF16", to_bf16(np.ones(24 * 12, np.float32)))
    assert code_of(load_layer, layer_file(tmp_path, self_attn__q_proj__weight=flat)) == "ndim"
    k3 = ("BF16", to_bf16(np.ones((18, 12), np.float32)))  # 3 kv heads for 4 query heads
    assert code_of(load_layer, layer_file(tmp_path, self_attn__k_proj__weight=k3)) \
        == "gqa_multiple"


def test_non_finite_values_name_the_tensor(tmp_path):
    stored, _ = layer_tensors(SMALL, 0, "F32")
    stored["mlp.gate_proj.weight"][3, 4] = np.nan
    path = tmp_path / "nan.safetensors"
    write_safetensors(path, {f"model.layers.0.{n}": ("F32", a) for n, a in stored.items()})
    with pytest.raises(EngineError) as info:
        load_layer(path)
    assert info.value.code == "weight_nan" and info.value.params["name"] == "mlp.gate_proj.weight"


def test_a_layer_too_large_is_refused_before_its_numbers_are_read(tmp_path):
    path = tmp_path / "model.safetensors"
    write_model(path, layers=1)
    count = sum(v.size for v in LayerWeights.random(SMALL, 0).values())
    assert load_layer(path, max_weights=count).config == SMALL
    assert code_of(load_layer, path, max_weights=count - 1) == "st_too_large"
