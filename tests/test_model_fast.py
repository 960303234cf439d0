"""The whole model's untraced layers (engine.model: every layer but the shown one runs through
engine.fastpath.layer_output, without recording its steps): run_layer's numbers bit for bit,
on the tiny checkpoints and on a wider one whose attention runs in row blocks and whose layers
are shared over two threads, and run_layer's overflow errors, because a layer runs untraced
only where the overflow bounds prove that run_layer would read nothing but its input. And a
forward after the model is opened takes no fresh pages from the kernel (glibc keeps what the
last one freed: engine.memory.keep_freed_memory, called by Qwen3Model.load).
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import engine.bounds
import engine.model
from engine import EngineError, Intervention, parallel, run_layer
from engine.bounds import magnitude, proven_layer
from engine.fastpath import head_gain
from engine.model import Qwen3Model
from tests.safetensors_files import write_safetensors
from tests.test_model import NAMES, UNTIED

#: wide enough that attention runs in blocks of query rows (engine.blocking) at T = 70 and a
#: layer is shared over two threads when the engine has them (engine.parallel.MIN_WORK)
WIDE = {"hidden_size": 256, "intermediate_size": 512, "num_attention_heads": 4,
        "num_key_value_heads": 2, "head_dim": 64, "num_hidden_layers": 3}


def write_wide(folder, scale=None):
    """The untied tiny checkpoint's tokenizer with random float32 weights of WIDE's shapes;
    ``scale``: (layer, name, factor) stored as float64 times factor (beyond float32)."""
    shutil.copytree(UNTIED, folder)
    config = json.loads((folder / "config.json").read_text())
    config.update(WIDE)
    (folder / "config.json").write_text(json.dumps(config))
    hidden, ffn, vocab = WIDE["hidden_size"], WIDE["intermediate_size"], config["vocab_size"]
    q, kv = WIDE["num_attention_heads"] * 64, WIDE["num_key_value_heads"] * 64
    shapes = {"input_layernorm.weight": (hidden,), "self_attn.q_proj.weight": (q, hidden),
              "self_attn.k_proj.weight": (kv, hidden), "self_attn.v_proj.weight": (kv, hidden),
              "self_attn.o_proj.weight": (hidden, q), "self_attn.q_norm.weight": (64,),
              "self_attn.k_norm.weight": (64,), "post_attention_layernorm.weight": (hidden,),
              "mlp.gate_proj.weight": (ffn, hidden), "mlp.up_proj.weight": (ffn, hidden),
              "mlp.down_proj.weight": (hidden, ffn)}
    rng = np.random.default_rng(5)
    tensors = {"model.embed_tokens.weight": ("F32", rng.standard_normal((vocab, hidden),
                                                                       dtype=np.float32)),
               "lm_head.weight": ("F32", rng.standard_normal((vocab, hidden), dtype=np.float32)
                                  * np.float32(0.05))}
    for layer in range(WIDE["num_hidden_layers"]):
        for name, shape in shapes.items():
            values = (1.0 + 0.2 * rng.standard_normal(shape) if len(shape) == 1
                      else rng.standard_normal(shape) / np.sqrt(shape[-1])).astype(np.float32)
            key = f"model.layers.{layer}.{name}"
            if scale is not None and scale[:2] == (layer, name):
                tensors[key] = ("F64", values.astype(np.float64) * scale[2])
            else:
                tensors[key] = ("F32", values)
    tensors["model.norm.weight"] = ("F32", np.ones(hidden, np.float32))
    write_safetensors(folder / "model.safetensors", tensors)
    return folder


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    wide = write_wide(tmp_path_factory.mktemp("wide") / "wide")
    out = {name: (Qwen3Model.load(folder), 9) for name, folder in NAMES.items()}
    out["wide"] = (Qwen3Model.load(wide), 70)
    return out


@pytest.fixture
def two_threads():
    before = parallel.workers()
    parallel.set_workers(2)
    yield
    parallel.set_workers(before)


@pytest.fixture
def run_layer_calls(monkeypatch):
    calls = []

    def counted(*args, **kwargs):
        calls.append(args)
        return run_layer(*args, **kwargs)

    monkeypatch.setattr(engine.model, "run_layer", counted)
    return calls


def check_layers(m, run, iv, where):
    config = m.layer_config
    t = run.num_tokens
    for index in range(m.num_layers):
        trace = run_layer(run.residual[index], m.layers[index], config,
                          intervention=iv if index in where else None)
        assert np.array_equal(trace.output, run.residual[index + 1]), index
        assert np.array_equal(trace["k_rope"], run.keys[index]), index
        values = trace["v_proj"].reshape(t, config.num_key_value_heads, config.head_dim)
        assert np.array_equal(values.transpose(1, 0, 2), run.values[index]), index
        assert run.keys[index].flags.c_contiguous and run.values[index].flags.c_contiguous


CASES = [(None, None), (Intervention(zero_heads=(1,), zero_neurons=(3, 9)), "all"),
         (Intervention(head_scale={0: 2.5}, skip=("mlp",)), (0,)),
         (Intervention(skip=("attention",)), None)]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("name", [*sorted(NAMES), "wide"])
def test_untraced_layers_are_run_layer_bit_for_bit(models, name, threads, run_layer_calls,
                                                    request):
    if threads == 2:
        request.getfixturevalue("two_threads")
    m, t = models[name]
    ids = (np.arange(t) * 37 % m.config.vocab_size).tolist()
    for iv, layers in CASES:
        shown = m.num_layers - 1
        run_layer_calls.clear()
        run = m.forward(ids, layer=shown, intervention=iv, intervene_layers=layers)
        assert len(run_layer_calls) == 1  # the shown layer only: the others ran untraced
        where = run.intervened_layers
        check_layers(m, run, iv, where)
        assert np.array_equal(run.trace.output, run.residual[shown + 1])


def test_untraced_layers_after_an_intervened_one_from_the_plain_run(models):
    m, t = models["wide"]
    ids = (np.arange(t) * 11 % m.config.vocab_size).tolist()
    plain = m.forward(ids, layer=0)
    iv = Intervention(zero_heads=(2,))
    run = m.forward(ids, layer=0, intervention=iv, intervene_layers=(1,), base=plain)
    check_layers(m, run, iv, (1,))
    again = m.forward(ids, layer=0, intervention=iv, intervene_layers=(1,))
    assert np.array_equal(again.residual, run.residual)
    assert np.array_equal(again.logits, run.logits)


def count_reads(monkeypatch):
    reads = []

    def counted(array):
        reads.append(array.shape)
        return magnitude(array)

    monkeypatch.setattr(engine.bounds, "magnitude", counted)
    return reads


@pytest.mark.parametrize("factor", [1.0, 1e145, 1e200])
def test_a_proven_layer_reads_only_its_input_and_one_that_is_not_reads_more(
        tmp_path, monkeypatch, factor):
    m = Qwen3Model.load(write_wide(tmp_path / "wide", (1, "mlp.down_proj.weight", factor)))
    x = m.embed((np.arange(20) * 7 % m.config.vocab_size).tolist())
    reads = count_reads(monkeypatch)
    for iv in (None, Intervention(head_scale={1: 3.0})):
        for weights in m.layers:
            proven = proven_layer(weights, magnitude(x), head_gain(iv, 4))
            reads.clear()
            try:
                run_layer(x, weights, m.layer_config, intervention=iv)
            except EngineError:
                assert not proven
            assert (len(reads) == 1) == proven
            assert proven == (weights is not m.layers[1] or factor == 1.0)


def test_an_overflow_in_an_untraced_layer_is_named_as_run_layer_names_it(tmp_path):
    m = Qwen3Model.load(write_wide(tmp_path / "wide", (1, "mlp.down_proj.weight", 1e200)))
    ids = (np.arange(12) * 5 % m.config.vocab_size).tolist()
    layer0 = run_layer(m.embed(ids), m.layers[0], m.layer_config).output
    with pytest.raises(EngineError) as expected:
        run_layer(layer0, m.layers[1], m.layer_config)
    assert expected.value.code == "layer_overflow"
    for shown in (0, 2):
        with pytest.raises(EngineError) as got:
            m.forward(ids, layer=shown)
        assert got.value.code == "layer_overflow"
        assert str(got.value) == str(expected.value)


def test_a_layer_whose_bound_is_not_proven_runs_through_run_layer(tmp_path, run_layer_calls):
    m = Qwen3Model.load(write_wide(tmp_path / "wide", (1, "mlp.down_proj.weight", 1e145)))
    ids = (np.arange(12) * 5 % m.config.vocab_size).tolist()
    run = m.forward(ids, layer=0)
    assert [args[1] for args in run_layer_calls] == [m.layers[0], m.layers[1]]
    check_layers(m, run, None, ())


FAULTS = """
import resource, sys
import engine.memory
from engine.model import Qwen3Model
model = Qwen3Model.load(sys.argv[1])
faults = []
for _ in range(3):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    model.forward([i * 7 % 320 for i in range(100)], layer=1)
    faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
print(engine.memory._kept, *faults)
"""


def test_after_a_model_is_opened_a_forward_reuses_the_memory_the_last_one_freed(tmp_path):
    # in a process of its own: the allocator's settings are the process's; by default glibc
    # returned ~16 MB to the kernel after each of these forwards (~4000 page faults each)
    folder = write_wide(tmp_path / "wide")
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-c", FAULTS, str(folder)], cwd=root, check=True,
                          capture_output=True, text=True)
    kept, *faults = done.stdout.split()
    glibc = (getattr(os, "confstr", lambda name: None)("CS_GNU_LIBC_VERSION") or "")
    assert kept == str(glibc.startswith("glibc"))
    if kept == "True":
        assert max(map(int, faults[1:])) < 100, faults
