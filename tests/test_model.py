"""The whole Qwen3 model (engine.model): HF's numbers on two tiny checkpoints, the KV cache,
the tokenizer and the refusals of a bad model folder.

The checkpoints and golden outputs are written by tests/data/make_golden_model.py (HF's
Qwen3ForCausalLM in float64, save_pretrained, a tiny byte-level BPE tokenizer.json).
"""

import json
import os
import shutil
import struct
from pathlib import Path

import numpy as np
import pytest

from engine import EngineError, LayerTrace
from engine.model import ModelRun, Qwen3Model
from engine.model_tokens import token_pieces
from tests.safetensors_files import write_safetensors

DATA = Path(__file__).parent / "data"
SHARDED, UNTIED = DATA / "model_bf16_sharded", DATA / "model_f32_untied"
NAMES = {"bf16_sharded": SHARDED, "f32_untied": UNTIED}
#: HF runs the same float64 operations (~1e-14 apart here); far below any real error
TOL = 1e-9


def golden(name):
    with np.load(DATA / f"golden_model_{name}.npz") as data:
        return {key: data[key] for key in data.files}


_MODELS = {}


def model(name):
    if name not in _MODELS:
        _MODELS[name] = Qwen3Model.load(NAMES[name])
    return _MODELS[name]


def copy(folder, tmp_path):
    target = tmp_path / folder.name
    shutil.copytree(folder, target)
    return target


def edit_config(folder, **changes):
    path = folder / "config.json"
    data = json.loads(path.read_text())
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    path.write_text(json.dumps(data))


def read_tensors(path):
    """name -> (dtype, array) of a safetensors file (the test's own reader)."""
    raw = Path(path).read_bytes()
    (length,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + length])
    dtypes = {"BF16": "<u2", "F16": "<f2", "F32": "<f4", "F64": "<f8"}
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        data = raw[8 + length + begin:8 + length + end]
        out[name] = (info["dtype"],
                     np.frombuffer(data, dtype=dtypes[info["dtype"]]).reshape(info["shape"]))
    return out


def max_diff(a, b):
    return float(np.max(np.abs(np.asarray(a) - np.asarray(b))))


# --- HF's numbers ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(NAMES))
def test_every_layer_the_final_norm_and_the_logits_match_hf(name):
    gold, m = golden(name), model(name)
    run = m.forward(gold["ids"].tolist(), layer=0)
    assert run.residual.shape == gold["residual"].shape == (m.num_layers + 1,
                                                            len(gold["ids"]),
                                                            m.layer_config.hidden_size)
    for layer in range(m.num_layers + 1):
        assert max_diff(run.residual[layer], gold["residual"][layer]) < TOL, layer
    assert max_diff(run.final_normed, gold["final_normed"]) < TOL
    assert run.logits.shape == (m.config.vocab_size,)
    assert max_diff(run.logits, gold["logits"]) < TOL
    assert run.residual.dtype == run.logits.dtype == np.float64


@pytest.mark.parametrize("name", sorted(NAMES))
def test_the_trace_is_the_shown_layer_and_its_output_the_next_state_bit_for_bit(name):
    gold, m = golden(name), model(name)
    ids = gold["ids"].tolist()
    for layer in range(m.num_layers):
        run = m.forward(ids, layer=layer)
        assert isinstance(run.trace, LayerTrace) and len(run.trace) == 23
        assert np.array_equal(run.trace["embed"], run.residual[layer])
        assert np.array_equal(run.trace.output, run.residual[layer + 1])


@pytest.mark.parametrize("name", sorted(NAMES))
def test_encode_gives_hf_tokenizers_ids(name):
    cases = json.loads(golden(name)["tokenizer_cases_json"].tobytes())
    assert any("<|im_start|>" in text for text, _ in cases)
    for text, ids in cases:
        assert model(name).encode(text) == ids, text
    assert golden(name)["ids"].tolist() == cases[0][1]


def test_the_tokenizer_leaves_padding_rows_and_recognises_typed_special_tokens():
    m = model("bf16_sharded")
    vocab = m.tokenizer._tokenizer.get_vocab(with_added_tokens=True)
    assert max(vocab.values()) < m.config.vocab_size - 10  # padding rows exist
    ids = m.encode("<|im_start|>hi<|im_end|>")
    assert ids[0] == vocab["<|im_start|>"] and ids[-1] == vocab["<|im_end|>"]
    pieces = m.pieces(ids)
    assert pieces[0].special and pieces[-1].special and not pieces[1].special
    assert "".join(p.text for p in pieces) == "<|im_start|>hi<|im_end|>"


# --- head tying, RoPE's theta, shards ------------------------------------------------------

def test_an_untied_head_is_its_own_matrix_and_tying_it_changes_the_logits(tmp_path):
    gold, m = golden("f32_untied"), model("f32_untied")
    run = m.forward(gold["ids"].tolist())
    embed = read_tensors(UNTIED / "model.safetensors")["model.embed_tokens.weight"][1]
    tied_logits = embed.astype(np.float64) @ run.final_normed[-1]
    assert max_diff(tied_logits, gold["logits"]) > 0.1  # so the golden test tells them apart
    folder = copy(UNTIED, tmp_path)
    edit_config(folder, tie_word_embeddings=True)  # lm_head.weight then unused, as in HF
    tied = Qwen3Model.load(folder).forward(gold["ids"].tolist())
    assert max_diff(tied.logits, tied_logits) < 1e-12


def test_a_tied_head_is_the_embedding_and_untying_it_needs_lm_head(tmp_path):
    gold = golden("bf16_sharded")
    run = model("bf16_sharded").forward(gold["ids"].tolist())
    embed = np.concatenate([t[1] for p in sorted(SHARDED.glob("*.safetensors"))
                            for n, t in read_tensors(p).items()
                            if n == "model.embed_tokens.weight"])
    values = (embed.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    assert max_diff(values @ run.final_normed[-1], run.logits) < 1e-12
    folder = copy(SHARDED, tmp_path)
    edit_config(folder, tie_word_embeddings=False)
    with pytest.raises(EngineError, match=r"lm_head\.weight") as caught:
        Qwen3Model.load(folder)
    assert caught.value.code == "model_tensor_missing" and str(folder) in str(caught.value)


def test_rope_theta_inside_rope_parameters_wins_over_the_top_level_as_in_transformers(tmp_path):
    gold = golden("bf16_sharded")
    folder = copy(SHARDED, tmp_path)
    edit_config(folder, rope_theta=10.0)  # the nested 1e6 stays and must be the one used
    m = Qwen3Model.load(folder)
    assert m.layer_config.rope_theta == 1e6
    assert max_diff(m.forward(gold["ids"].tolist()).logits, gold["logits"]) < TOL


def test_a_top_level_rope_theta_is_read_when_nothing_is_nested(tmp_path):
    gold = golden("f32_untied")
    folder = copy(UNTIED, tmp_path)
    edit_config(folder, rope_theta=10.0)
    m = Qwen3Model.load(folder)
    assert m.layer_config.rope_theta == 10.0
    assert max_diff(m.forward(gold["ids"].tolist()).residual[1], gold["residual"][1]) > 1e-3
    edit_config(folder, rope_parameters={"rope_type": "default", "rope_theta": 5e5})
    m = Qwen3Model.load(folder)
    assert max_diff(m.forward(gold["ids"].tolist()).logits, gold["logits"]) < TOL


def test_a_layer_split_over_two_shards_is_read_from_both():
    index = json.loads((SHARDED / "model.safetensors.index.json").read_text())["weight_map"]
    by_layer = {}
    for name, shard in index.items():
        if name.startswith("model.layers."):
            by_layer.setdefault(int(name.split(".")[2]), set()).add(shard)
    split = [layer for layer, shards in by_layer.items() if len(shards) > 1]
    assert split, "the fixture must split a layer over two shards"
    gold, m = golden("bf16_sharded"), model("bf16_sharded")
    run = m.forward(gold["ids"].tolist(), layer=split[0])
    assert max_diff(run.residual[split[0] + 1], gold["residual"][split[0] + 1]) < TOL
    for name, shard in index.items():  # every tensor equals its shard's numbers exactly
        if name.startswith(f"model.layers.{split[0]}."):
            _dtype, bits = read_tensors(SHARDED / shard)[name]
            values = (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
            assert np.array_equal(m.layers[split[0]][name.split(".", 3)[3]], values)


def test_f32_and_f16_copies_of_the_weights_read_exactly(tmp_path):
    gold = golden("bf16_sharded")
    folder = copy(SHARDED, tmp_path)
    for path in folder.glob("model-*.safetensors"):  # bf16 -> f32 is exact: the same model
        tensors = {name: ("F32", (bits.astype(np.uint32) << 16).view(np.float32))
                   for name, (dtype, bits) in read_tensors(path).items()}
        write_safetensors(path, tensors)
    edit_config(folder, dtype="float32")
    run = Qwen3Model.load(folder).forward(gold["ids"].tolist())
    base = model("bf16_sharded").forward(gold["ids"].tolist())
    assert np.array_equal(run.logits, base.logits)
    f16 = copy(UNTIED, tmp_path / "f16")
    tensors = {name: ("F16", array.astype(np.float16))
               for name, (dtype, array) in read_tensors(f16 / "model.safetensors").items()}
    write_safetensors(f16 / "model.safetensors", tensors)
    m = Qwen3Model.load(f16)
    name = "self_attn.q_proj.weight"
    assert np.array_equal(m.layers[1][name],
                          tensors[f"model.layers.1.{name}"][1].astype(np.float64))
    assert np.array_equal(m.embed([3, 5]), tensors["model.embed_tokens.weight"][1][[3, 5]])


# --- the KV cache ---------------------------------------------------------------------------

def check_cached(m, ids_before, ids_after, layer_before, layer_after):
    before = m.forward(ids_before, layer=layer_before)
    cached = m.forward(ids_after, layer=layer_after, cache=before)
    full = m.forward(ids_after, layer=layer_after)
    common = 0
    for a, b in zip(ids_before, ids_after, strict=False):
        if a != b:
            break
        common += 1
    assert cached.reused_rows == common
    if len(ids_before) == len(ids_after):
        # the reused rows are what a full forward computes, bit for bit
        assert cached.exact_rows == common
        exact = full
    else:
        # with another token count BLAS may round the last cached rows differently (~1e-16;
        # run_layer itself differs so between T and T + 1): after the shown layer only the
        # rows it reproduced are reused, and those are the cached run's numbers
        assert cached.exact_rows <= common
        exact = before
    rows = cached.exact_rows
    assert np.array_equal(cached.residual[:layer_after + 1, :common],
                          exact.residual[:layer_after + 1, :common])
    assert np.array_equal(cached.residual[:, :rows], exact.residual[:, :rows])
    assert np.array_equal(cached.final_normed[:rows], exact.final_normed[:rows])
    for layer in range(m.num_layers):
        assert np.array_equal(cached.keys[layer][:, :rows], exact.keys[layer][:, :rows])
        assert np.array_equal(cached.values[layer][:, :rows], exact.values[layer][:, :rows])
    assert max_diff(cached.residual, full.residual) < 1e-12
    assert max_diff(cached.final_normed, full.final_normed) < 1e-12
    assert max_diff(cached.logits, full.logits) < 1e-12
    assert np.array_equal(cached.trace.output, cached.residual[layer_after + 1])
    assert np.array_equal(cached.trace["embed"], cached.residual[layer_after])
    t = len(ids_after)
    assert cached.rows_total == full.rows_total == m.num_layers * t
    assert full.rows_recomputed == full.rows_total
    assert cached.rows_recomputed == (layer_after * (t - common) + t
                                      + (m.num_layers - 1 - layer_after) * (t - rows))
    return cached, full


@pytest.mark.parametrize("name", sorted(NAMES))
def test_editing_the_last_token_reuses_every_earlier_row(name):
    ids = golden(name)["ids"].tolist()
    edited = [*ids[:-1], (ids[-1] + 7) % 280]
    cached, _ = check_cached(model(name), ids, edited, 1, 1)
    assert cached.saved_fraction > 0.3


@pytest.mark.parametrize("name", sorted(NAMES))
def test_appending_a_token_and_changing_the_shown_layer(name):
    ids = golden(name)["ids"].tolist()
    check_cached(model(name), ids, [*ids, 42], 0, model(name).num_layers - 1)
    check_cached(model(name), ids, [*ids[:5], 17, 18], 1, 0)  # an edit in the middle


def test_a_row_computed_from_the_cache_is_not_reused_as_exact():
    m = model("bf16_sharded")
    ids = golden("bf16_sharded")["ids"].tolist()
    first = m.forward(ids)
    second = m.forward([*ids[:-1], 5], cache=first)
    assert second.exact_rows == len(ids) - 1
    third = m.forward([*ids[:-1], 5, 6], cache=second)  # the edited row is computed again
    assert third.reused_rows == len(ids) - 1
    assert np.array_equal(third.residual[:, :-2], first.residual[:, :-1])
    full = m.forward([*ids[:-1], 5, 6])
    assert max_diff(third.residual, full.residual) < 1e-12
    assert max_diff(third.logits, full.logits) < 1e-12


def test_the_same_ids_reuse_everything_but_the_shown_layers_trace():
    m = model("f32_untied")
    ids = golden("f32_untied")["ids"].tolist()
    first = m.forward(ids, layer=0)
    again = m.forward(ids, layer=1, cache=first)
    assert again.rows_recomputed == len(ids)
    assert np.array_equal(again.residual, first.residual)
    assert np.array_equal(again.logits, first.logits)
    assert np.array_equal(again.trace.output, again.residual[2])
    shorter = m.forward(ids[:4], cache=first)
    assert np.array_equal(shorter.residual, first.residual[:, :4])
    assert max_diff(shorter.logits, m.forward(ids[:4]).logits) < 1e-12


def test_a_cache_from_another_model_or_a_bad_argument_is_refused():
    ids = golden("f32_untied")["ids"].tolist()
    other = model("bf16_sharded").forward(ids)
    m = model("f32_untied")
    for bad in (other, "cache", 3):
        with pytest.raises(EngineError, match="earlier run of this same model"):
            m.forward(ids, cache=bad)
    for bad_ids in ([], [-1], [m.config.vocab_size], "abc", [1.5], [True]):
        with pytest.raises(EngineError):
            m.forward(bad_ids)
    for layer in (-1, m.num_layers, 1.0, True):
        with pytest.raises(EngineError, match="layer must be"):
            m.forward(ids, layer=layer)
    assert isinstance(m.forward(ids), ModelRun)


# --- refusals -------------------------------------------------------------------------------

def refused(folder, code, named):
    with pytest.raises(EngineError) as caught:
        Qwen3Model.load(folder)
    assert caught.value.code == code, str(caught.value)
    assert str(named) in str(caught.value), str(caught.value)
    assert isinstance(caught.value, ValueError)
    return caught.value


def test_another_architecture_is_refused(tmp_path):
    folder = copy(UNTIED, tmp_path)
    edit_config(folder, model_type="qwen2", architectures=["Qwen2ForCausalLM"])
    refused(folder, "model_not_qwen3", folder / "config.json")
    edit_config(folder, model_type="qwen3", architectures=["Qwen3MoeForCausalLM"])
    refused(folder, "model_not_qwen3", folder / "config.json")


@pytest.mark.parametrize("missing", ["config.json", "tokenizer.json", "model.safetensors"])
def test_a_missing_file_is_named(tmp_path, missing):
    folder = copy(UNTIED, tmp_path)
    (folder / missing).unlink()
    refused(folder, "model_missing_file", folder / missing)


def test_a_folder_that_is_not_one_is_refused(tmp_path):
    refused(tmp_path / "nowhere", "model_not_folder", tmp_path / "nowhere")
    refused(UNTIED / "config.json", "model_not_folder", UNTIED / "config.json")


def test_a_tensor_of_the_wrong_shape_is_named_with_its_file(tmp_path):
    folder = copy(SHARDED, tmp_path)
    edit_config(folder, intermediate_size=48)
    error = refused(folder, "model_tensor_shape", folder)
    assert "mlp." in str(error) and ".safetensors" in str(error)


def test_a_cut_short_shard_is_named(tmp_path):
    folder = copy(SHARDED, tmp_path)
    shard = folder / "model-00002-of-00004.safetensors"
    data = shard.read_bytes()
    shard.write_bytes(data[:-100])
    refused(folder, "st_outside", shard)
    shard.write_bytes(data[:5])
    refused(folder, "st_truncated", shard)
    shard.write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{not json}      " + data[100:])
    refused(folder, "st_bad_header", shard)


def test_an_index_naming_a_missing_shard_is_named(tmp_path):
    folder = copy(SHARDED, tmp_path)
    (folder / "model-00003-of-00004.safetensors").unlink()
    error = refused(folder, "model_index_shard", folder / "model.safetensors.index.json")
    assert "model-00003-of-00004.safetensors" in str(error)


def test_an_index_pointing_outside_the_folder_or_at_the_wrong_shard_is_refused(tmp_path):
    folder = copy(SHARDED, tmp_path)
    index_path = folder / "model.safetensors.index.json"
    index = json.loads(index_path.read_text())
    name = "model.layers.1.mlp.down_proj.weight"
    right = index["weight_map"][name]
    index["weight_map"][name] = "../" + right
    index_path.write_text(json.dumps(index))
    refused(folder, "model_bad_json", index_path)
    shards = sorted({*index["weight_map"].values()} - {"../" + right, right})
    index["weight_map"][name] = shards[0]
    index_path.write_text(json.dumps(index))
    error = refused(folder, "model_tensor_missing", folder / shards[0])
    assert name in str(error)


def test_a_tokenizer_whose_ids_do_not_fit_the_vocabulary_is_refused(tmp_path):
    folder = copy(UNTIED, tmp_path)
    edit_config(folder, vocab_size=200)
    error = refused(folder, "model_tokenizer_vocab", folder / "tokenizer.json")
    assert "vocab_size 200" in str(error)


def test_a_broken_tokenizer_json_is_named(tmp_path):
    folder = copy(UNTIED, tmp_path)
    (folder / "tokenizer.json").write_text('{"model": {"type": "nonsense"}}')
    refused(folder, "model_tokenizer", folder / "tokenizer.json")


def test_a_fifo_in_place_of_a_file_is_refused_without_blocking(tmp_path):
    folder = copy(UNTIED, tmp_path)
    (folder / "tokenizer.json").unlink()
    os.mkfifo(folder / "tokenizer.json")
    refused(folder, "model_not_file", folder / "tokenizer.json")


def test_a_config_json_that_is_not_json_or_far_too_large_is_named(tmp_path):
    folder = copy(UNTIED, tmp_path)
    (folder / "config.json").write_text("{oops")
    refused(folder, "model_bad_json", folder / "config.json")
    (folder / "config.json").write_text(" " * (2 << 20))
    refused(folder, "model_file_too_large", folder / "config.json")


@pytest.mark.parametrize(("change", "code"), [
    ({"rope_parameters": {"rope_type": "yarn", "rope_theta": 1e6, "factor": 4.0}},
     "model_unsupported"),
    ({"hidden_act": "gelu"}, "model_unsupported"),
    ({"use_sliding_window": True}, "model_unsupported"),
    ({"hidden_size": "16"}, "model_config_field"),
    ({"num_hidden_layers": 0}, "model_config_field"),
    ({"num_key_value_heads": 3}, "model_config_invalid"),
    ({"rope_theta": float("nan")}, "model_config_field"),
    ({"vocab_size": None}, "model_config_field"),
])
def test_an_unsupported_or_invalid_config_is_named(tmp_path, change, code):
    folder = copy(UNTIED, tmp_path)
    edit_config(folder, **change)
    refused(folder, code, folder / "config.json")


def test_absent_fields_take_transformers_defaults(tmp_path):
    folder = copy(UNTIED, tmp_path)
    edit_config(folder, head_dim=None, num_key_value_heads=None, rms_norm_eps=None,
                tie_word_embeddings=None, num_attention_heads=64)
    from engine.model_files import read_config

    config = read_config(folder)
    # transformers.Qwen3Config: head_dim 128, 32 kv heads, eps 1e-6, an untied head
    assert (config.layer.head_dim, config.layer.num_key_value_heads) == (128, 32)
    assert config.layer.rms_norm_eps == 1e-6 and not config.tie_word_embeddings
    data = json.loads((folder / "config.json").read_text())
    data["num_key_value_heads"] = None
    (folder / "config.json").write_text(json.dumps(data))
    assert read_config(folder).layer.num_key_value_heads == 64  # null: the query heads'


def test_an_unexpected_tensor_nan_weights_and_an_unknown_dtype_are_named(tmp_path):
    folder = copy(UNTIED, tmp_path)
    path = folder / "model.safetensors"
    tensors = read_tensors(path)
    write_safetensors(path, {**tensors,
                             "model.layers.0.self_attn.q_proj.bias": ("F32",
                                                                      np.zeros(16, np.float32))})
    error = refused(folder, "model_unexpected", path)
    assert "q_proj.bias" in str(error)
    bad = dict(tensors)
    weight = bad["model.layers.1.mlp.up_proj.weight"][1].copy()
    weight[3, 4] = np.nan
    bad["model.layers.1.mlp.up_proj.weight"] = ("F32", weight)
    write_safetensors(path, bad)
    error = refused(folder, "model_tensor_nan", path)
    assert "model.layers.1.mlp.up_proj.weight" in str(error)
    bad["model.layers.1.mlp.up_proj.weight"] = ("I32", weight.view(np.int32))
    write_safetensors(path, bad)
    refused(folder, "model_tensor_dtype", path)


def test_a_bf16_nan_is_found_without_widening():
    from engine.model_files import all_finite

    bits = np.array([0x3F80, 0x7F80, 0x0001], dtype=np.uint16)  # 1.0, +inf, a subnormal
    assert not all_finite(bits, "BF16")
    assert all_finite(bits[[0, 2]], "BF16")
    assert not all_finite(np.array([0xFFC1], dtype=np.uint16), "BF16")  # a NaN


# --- readable pieces ------------------------------------------------------------------------

def test_byte_level_pieces_read_as_text():
    pieces = token_pieces(["Ġthe", "Ċ", "Hello"])
    assert [p.text for p in pieces] == [" the", "\n", "Hello"]
    assert [p.data for p in pieces] == [b" the", b"\n", b"Hello"]
    assert not any(p.special for p in pieces)


def test_a_character_split_over_byte_tokens_completes_on_its_last_byte():
    # 我 = e6 88 91, as byte-level characters "æ", "Ī", "ĳ"
    pieces = token_pieces(["æĪ", "ĳ", "çĪ±"])
    assert [p.data for p in pieces] == [b"\xe6\x88", b"\x91", "爱".encode()]
    assert [p.text for p in pieces] == ["", "我", "爱"]


def test_special_and_added_tokens_are_their_own_text():
    pieces = token_pieces(["<|im_start|>", "æĪ", "<think>"], added={"<think>"},
                          special={"<|im_start|>"})
    assert [p.special for p in pieces] == [True, False, False]
    assert pieces[0].text == "<|im_start|>" and pieces[0].raw == "<|im_start|>"
    assert pieces[2].text == "\ufffd<think>"  # the unfinished character before it
    assert pieces[2].data == b"<think>"


def test_pieces_of_a_real_encoding_join_to_the_text():
    m = model("bf16_sharded")
    text = "我爱北京 and the fox<|im_end|>"
    ids = m.encode(text)
    pieces = m.pieces(ids)
    assert "".join(p.text for p in pieces) == text
    assert b"".join(p.data for p in pieces) == text.encode()
    assert [p.raw for p in pieces] == m.raw_tokens(ids)
