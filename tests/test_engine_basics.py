"""Config, weights, tokenizer and the shape contract of run_layer."""

import io
import subprocess
import sys
import zipfile

import numpy as np
import pytest

import engine
from engine import (
    STEP_INFO,
    STEP_NAMES,
    EngineError,
    LayerWeights,
    Qwen3Config,
    embed,
    ops,
    run_layer,
    tokenize,
)
from engine import weights as weights_module


@pytest.fixture
def toy():
    config = Qwen3Config.toy()
    return config, LayerWeights.random(config, seed=1)


def test_engine_imports_no_qt():
    code = ("import sys, engine, engine.layer; "
            "bad = [m for m in sys.modules if m.split('.')[0] in "
            "('PySide6', 'PyQt5', 'PyQt6', 'PySide2', 'pyqtgraph', 'shiboken6')]; "
            "print(','.join(bad)); sys.exit(1 if bad else 0)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("kwargs, fragment", [
    ({"num_attention_heads": 4, "num_key_value_heads": 3}, "multiple of"),
    ({"head_dim": 5}, "even"),
    ({"hidden_size": 0}, "at least 1"),
    ({"hidden_size": 16.0}, "whole number"),
    ({"rms_norm_eps": -1.0}, ">= 0"),
    ({"rope_theta": float("nan")}, "finite"),
])
def test_config_rejects_invalid(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment):
        Qwen3Config(**kwargs)


def test_presets():
    real = Qwen3Config.qwen3_0_6b()
    assert (real.hidden_size, real.num_attention_heads, real.num_key_value_heads,
            real.head_dim, real.intermediate_size, real.rope_theta) == (1024, 16, 8, 128, 3072, 1e6)
    assert real.head_dim != real.hidden_size // real.num_attention_heads
    assert Qwen3Config.from_dict(real.to_dict()) == real
    with pytest.raises(EngineError, match="unknown config field"):
        Qwen3Config.from_dict({"hiden_size": 3})


def test_random_weights_are_seeded_and_not_trivial(toy):
    config, weights = toy
    again = LayerWeights.random(config, seed=1)
    other = LayerWeights.random(config, seed=2)
    assert all(np.array_equal(weights[n], again[n]) for n in weights)
    assert not np.array_equal(weights["self_attn.q_proj.weight"], other["self_attn.q_proj.weight"])
    for name in ("input_layernorm.weight", "self_attn.q_norm.weight", "self_attn.k_norm.weight",
                 "post_attention_layernorm.weight"):
        assert not np.all(weights[name] == 1.0)
    assert set(weights) == set(engine.WEIGHT_NAMES)
    with pytest.raises(ValueError):
        weights["input_layernorm.weight"][0] = 3.0  # read-only


def test_from_state_dict_prefix_and_errors(toy):
    config, weights = toy
    prefixed = {f"model.layers.7.{k}": v for k, v in weights.items()}
    loaded = LayerWeights.from_state_dict(prefixed, config)
    assert np.array_equal(loaded["mlp.up_proj.weight"], weights["mlp.up_proj.weight"])

    missing = dict(weights)
    del missing["mlp.up_proj.weight"]
    with pytest.raises(EngineError, match=r"mlp\.up_proj\.weight"):
        LayerWeights.from_state_dict(missing, config)
    with pytest.raises(EngineError, match=r"unexpected weight.*lm_head"):
        LayerWeights.from_state_dict({**weights, "lm_head.weight": np.zeros(2)}, config)
    wrong = {**weights, "self_attn.k_proj.weight": np.zeros((3, 16))}
    with pytest.raises(EngineError, match=r"self_attn.k_proj.weight: expected shape \(8, 16\)"):
        LayerWeights.from_state_dict(wrong, config)
    bad = np.array(weights["self_attn.o_proj.weight"])
    bad[0, 0] = np.nan
    with pytest.raises(EngineError, match=r"self_attn\.o_proj\.weight: contains NaN"):
        LayerWeights.from_state_dict({**weights, "self_attn.o_proj.weight": bad}, config)
    text = np.array(weights["mlp.gate_proj.weight"]).astype(str)
    with pytest.raises(EngineError, match=r"mlp\.gate_proj\.weight: expected real numbers"):
        LayerWeights.from_state_dict({**weights, "mlp.gate_proj.weight": text}, config)
    two_layers = {**prefixed, "model.layers.8.input_layernorm.weight": np.ones(16)}
    with pytest.raises(EngineError, match="several layers"):
        LayerWeights.from_state_dict(two_layers, config)


def test_save_load_roundtrip_without_pickle(toy, tmp_path):
    config, weights = toy
    path = tmp_path / "layer.npz"
    weights.save(path)
    loaded = LayerWeights.load(path)
    assert loaded.config == config
    assert all(np.array_equal(loaded[n], weights[n]) for n in weights)
    with np.load(path, allow_pickle=False) as data:  # would raise if anything needed pickle
        assert "self_attn.q_norm.weight" in data.files


def test_load_rejects_corrupt_and_foreign_files(tmp_path):
    corrupt = tmp_path / "corrupt.npz"
    corrupt.write_bytes(b"PK\x03\x04 this is not really a zip")
    with pytest.raises(EngineError, match="not a readable weights file"):
        LayerWeights.load(corrupt)
    foreign = tmp_path / "foreign.npz"
    np.savez(foreign, a=np.zeros(3))
    with pytest.raises(EngineError, match="no layer config"):
        LayerWeights.load(foreign)
    with pytest.raises(EngineError, match="no weights file"):
        LayerWeights.load(tmp_path / "absent.npz")



def _rewrite(path, tmp_path, change):
    """A copy of the .npz at ``path`` with ``change(members)`` applied to its name -> bytes."""
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    change(members)
    out = tmp_path / "changed.npz"
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return out


def _npy(array):
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array, allow_pickle=True)
    return buffer.getvalue()


def test_load_checks_names_and_headers_before_reading_numbers(toy, tmp_path, monkeypatch):
    _config, weights = toy
    path = tmp_path / "layer.npz"
    weights.save(path)
    name = "self_attn.q_proj.weight.npy"
    # a header claiming a huge shape: refused from the header, nothing allocated
    huge = bytearray(_npy(np.zeros((16, 16))))
    huge[:128] = _npy(np.zeros((16, 16)))[:128].replace(b"(16, 16)", b"(9999999, 99999)")
    bad = _rewrite(path, tmp_path, lambda m: m.update({name: bytes(huge)}))
    with pytest.raises(EngineError, match=r"q_proj\.weight: expected shape \(16, 16\), got "
                                          r"\(9999999, 99999\)"):
        LayerWeights.load(bad)
    # an unexpected member is refused before any member is inflated (a zip bomb)
    read = []
    monkeypatch.setattr(weights_module, "_read_member",
                        lambda *a, _real=weights_module._read_member: (read.append(a[1]),
                                                                      _real(*a))[1])
    bomb = _rewrite(path, tmp_path, lambda m: m.update({"zz.npy": b"\0" * 2_000_000}))
    with pytest.raises(EngineError, match="unexpected weight"):
        LayerWeights.load(bomb)
    assert read == ["__config__"]
    # a pickled object array is never unpickled
    pickled = _rewrite(path, tmp_path, lambda m: m.update({name: _npy(
        np.array([object()] * 4, dtype=object))}))
    with pytest.raises(EngineError, match="Python objects"):
        LayerWeights.load(pickled)
    # a cut-short member, a plain .npy file, a damaged deflate stream
    short = _rewrite(path, tmp_path, lambda m: m.update({name: m[name][:-8]}))
    with pytest.raises(EngineError, match="cut short"):
        LayerWeights.load(short)
    plain = tmp_path / "plain.npy"
    np.save(plain, np.zeros(3))
    with pytest.raises(EngineError, match=r"not an \.npz archive"):
        LayerWeights.load(plain)


def test_a_failed_save_leaves_no_temporary_file(toy, tmp_path, monkeypatch):
    _config, weights = toy
    path = tmp_path / "layer.npz"

    def fail(*_args, **_kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "savez", fail)
    with pytest.raises(OSError):
        weights.save(path)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("text, expected", [
    ("Hello, world!", ["Hello", ",", "world", "!"]),
    ("我爱北京", ["我", "爱", "北", "京"]),
    ("我爱AI模型", ["我", "爱", "AI", "模", "型"]),
    ("don't stop", ["don't", "stop"]),
    ("thumbs 👍🏽 family 👨\u200d👩\u200d👧 flag 🇨🇳",
     ["thumbs", "👍🏽", "family", "👨\u200d👩\u200d👧", "flag", "🇨🇳"]),
    ("café naïve", ["café", "naïve"]),
    ("  \t\n ", []),
    ("a\u200bb\x00c", ["a", "b", "c"]),  # zero-width space and NUL carry no token
    # a joiner or variation selector with nothing to join is drawn as nothing: no token
    ("\u200d\u200d \ufe0f word\u200d \U000e0041", ["word"]),
    ("\u2764\ufe0f", ["\u2764\ufe0f"]),  # with its base it stays
    ("3.14", ["3", ".", "14"]),
])
def test_tokenize(text, expected):
    assert tokenize(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("ab'' 'cd ''", ["ab", "'", "'", "'cd", "'", "'"]),  # trailing apostrophes stand alone
    ("a_b x\x7fy w12 ~#", ["a_b", "x", "y", "w12", "~", "#"]),
    ("rock'n'roll’s', no", ["rock'n'roll’s", "'", ",", "no"]),
])
def test_tokenize_ascii_words_and_punctuation(text, expected):
    assert tokenize(text) == expected


def test_tokenize_piece_by_piece_is_the_character_scan_of_the_whole_text():
    """tokenize scans each whitespace-separated piece alone (plain ASCII without the
    character loop): the same tokens as scanning the whole normalised text."""
    import random
    import unicodedata

    from engine.tokens import _scan

    alphabet = [*"aZ09_'’.,!-#~ \t\n\x1c\x00\x7f\x85\xa0", "\u2000", "\u3000", "\u200b",
                "\u200d", "\ufe0f", "\u0301", "我", "の", "\U0001F44D", "\U0001F3FD",
                "\U0001F1E8", "\U0001F1F3", "\U000E0041", "é", "١", "²", "\u00ad", "\u2028"]
    rng = random.Random(0)
    for _ in range(20_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 10)))
        assert tokenize(text) == _scan(unicodedata.normalize("NFC", text)), repr(text)


def test_tokenize_decomposed_accents_are_normalised():
    assert tokenize("cafe\u0301") == tokenize("café")


def test_embedding_is_stable_and_depends_only_on_text():
    rows = embed(["猫", "cat", "猫"], 16)
    assert rows.dtype == np.float64 and rows.shape == (3, 16)
    assert np.array_equal(rows[0], rows[2])
    assert not np.array_equal(rows[0], rows[1])
    assert np.array_equal(embed(["cat"], 1024)[0, :16], rows[1])  # prefix-stable in width
    assert np.array_equal(embed(["x"], 7)[0], embed(["x"], 8)[0, :7])
    # a fixed value guards against accidental changes to the hash recipe
    assert abs(embed(["cat"], 16).mean()) < 1.5 and np.all(np.isfinite(rows))
    odd = embed(["\ud800"], 4)  # a lone surrogate still gets a vector
    assert np.all(np.isfinite(odd))


def test_run_layer_shapes_and_metadata(toy):
    config, weights = toy
    t = 5
    trace = run_layer(embed(tokenize("one two three four five"), 16), weights, config)
    h, hkv, d = 4, 2, 4
    expected = {
        "embed": (t, 16), "input_layernorm": (t, 16), "q_proj": (t, h * d),
        "k_proj": (t, hkv * d), "v_proj": (t, hkv * d), "q_norm": (t, h, d),
        "k_norm": (t, hkv, d), "q_rope": (h, t, d), "k_rope": (hkv, t, d),
        "kv_repeat": (h, t, 2 * d), "attn_scores": (h, t, t), "causal_mask": (h, t, t),
        "attn_probs": (h, t, t), "attn_context": (t, h * d), "o_proj": (t, 16),
        "resid_attn": (t, 16), "post_attention_layernorm": (t, 16), "gate_proj": (t, 32),
        "up_proj": (t, 32), "silu_gate": (t, 32), "gated": (t, 32), "down_proj": (t, 16),
        "resid_mlp": (t, 16),
    }
    assert [s.name for s in trace.steps] == list(expected) == list(engine.STEP_NAMES)
    assert len(trace) == 23
    for i, step in enumerate(trace.steps):
        assert step.index == i
        assert step.array.shape == expected[step.name]
        assert step.array.dtype == np.float64
        assert not step.array.flags.writeable
        assert step.array.flags.c_contiguous
        assert step.formula and step.meaning and step.meaning_zh
        assert len(step.axes) == step.array.ndim
    assert trace.output is trace["resid_mlp"]
    probs = trace["attn_probs"]
    np.testing.assert_allclose(probs.sum(-1), 1.0, rtol=0, atol=1e-15)
    assert np.all(probs[:, np.triu_indices(t, 1)[0], np.triu_indices(t, 1)[1]] == 0.0)
    assert trace.step("attn_probs").kind == "probability"


@pytest.mark.parametrize("head_dim", [4, 32])  # the gathered and the half-slice RoPE
def test_q_and_k_norm_and_rope_are_each_heads_formula_bit_for_bit(head_dim):
    # a small input takes q/k-norm and RoPE of all heads side by side in one call each: every
    # head must still get its own weight and the numbers of a call of its own
    config = Qwen3Config(hidden_size=24, intermediate_size=16, num_attention_heads=6,
                         num_key_value_heads=2, head_dim=head_dim)
    weights = LayerWeights.random(config, 4)
    t, h, hkv, d, eps = 7, 6, 2, head_dim, config.rms_norm_eps
    trace = run_layer(embed(list("abcdefg"), 24), weights, config)
    q_norm = ops.rms_norm(trace["q_proj"].reshape(t, h, d), weights["self_attn.q_norm.weight"],
                          eps)
    k_norm = ops.rms_norm(trace["k_proj"].reshape(t, hkv, d),
                          weights["self_attn.k_norm.weight"], eps)
    assert np.array_equal(trace["q_norm"], q_norm) and np.array_equal(trace["k_norm"], k_norm)
    cos, sin = ops.rope_tables(np.arange(t), d, config.rope_theta)
    assert np.array_equal(trace["q_rope"], ops.apply_rope(q_norm.swapaxes(0, 1), cos, sin))
    assert np.array_equal(trace["k_rope"], ops.apply_rope(k_norm.swapaxes(0, 1), cos, sin))
    rows = weights.head_norms()
    assert rows.shape == (h + hkv, d) and not rows.flags.writeable
    assert np.array_equal(rows[:h], np.tile(weights["self_attn.q_norm.weight"], (h, 1)))
    assert np.array_equal(rows[h:], np.tile(weights["self_attn.k_norm.weight"], (hkv, 1)))


def test_run_layer_does_not_freeze_the_callers_array(toy):
    config, weights = toy
    x = embed(["a", "b"], 16)
    run_layer(x, weights, config)
    x[0, 0] = 1.0  # still writable


def test_gqa_heads_share_kv_by_integer_division():
    config = Qwen3Config(hidden_size=12, intermediate_size=8, num_attention_heads=6,
                         num_key_value_heads=2, head_dim=4)
    trace = run_layer(embed(list("abcd"), 12), LayerWeights.random(config, 3), config)
    rep, k = trace["kv_repeat"], trace["k_rope"]
    for h in range(6):
        assert np.array_equal(rep[h, :, :4], k[h // 3])


def test_non_causal_layer_attends_to_the_future(toy):
    config, weights = toy
    x = embed(list("abcd"), 16)
    full = run_layer(x, weights, config, causal=False)
    assert np.all(full["attn_probs"] > 0)
    assert np.array_equal(full["causal_mask"], full["attn_scores"])
    assert not full.causal


@pytest.mark.parametrize("x, fragment", [
    (np.zeros((0, 16)), "no tokens"),
    (np.zeros((engine.MAX_TOKENS + 1, 16)), "more than the 2048"),
    (np.zeros((3, 15)), "hidden_size is 16"),
    (np.zeros(16), r"\[tokens, hidden_size\]"),
    (np.full((2, 16), np.nan), "NaN or Inf"),
    (np.full((2, 16), np.inf), "NaN or Inf"),
    (np.array([["a"] * 16]), "real numbers"),
    (np.zeros((2, 16), dtype=complex), "real numbers"),
])
def test_run_layer_rejects_bad_input(toy, x, fragment):
    config, weights = toy
    with pytest.raises(EngineError, match=fragment):
        run_layer(x, weights, config)


def test_run_layer_rejects_mismatched_weights(toy):
    config, _ = toy
    other = Qwen3Config(hidden_size=16, intermediate_size=64)
    with pytest.raises(EngineError, match="weights were made for"):
        run_layer(np.zeros((2, 16)), LayerWeights.random(other, 0), config)


def test_overflow_is_an_error_not_a_silent_nan(toy):
    config, weights = toy
    huge = {k: np.asarray(v) * (1e150 if v.ndim == 2 else 1.0) for k, v in weights.items()}
    with pytest.raises(EngineError, match="overflowed"):
        run_layer(np.ones((3, 16)), LayerWeights(huge, config), config)


@pytest.mark.parametrize("name, step", [("input_layernorm.weight", "step 1 "),
                                        ("self_attn.q_norm.weight", "step 5 "),
                                        ("self_attn.k_norm.weight", "step 6 "),
                                        ("post_attention_layernorm.weight", "step 16 ")])
def test_an_rmsnorm_whose_weight_overflows_is_named(toy, name, step):
    # at ε > 0 an RMSNorm's output is bounded by max|w|·√width without reading it; a weight
    # that makes that bound too large must still be read and reported at its own step
    config, weights = toy
    assert config.rms_norm_eps > 0
    huge = {k: np.asarray(v) * (1e160 if k == name else 1.0) for k, v in weights.items()}
    with pytest.raises(EngineError, match="overflowed") as info:
        run_layer(embed(tokenize("a b c"), 16), LayerWeights(huge, config), config)
    assert step in str(info.value)


def test_eps_zero_and_a_zero_vector_names_the_real_cause():
    # RMSNorm at ε = 0 of a zero (or underflowing) vector is 0/0, not an overflow: the message
    # must not say "use smaller inputs"
    config = Qwen3Config(rms_norm_eps=0.0)
    weights = LayerWeights.random(config, seed=1)
    x = embed(tokenize("a b c"), 16)
    zero_q = LayerWeights({k: np.zeros(v.shape) if k == "self_attn.q_proj.weight" else v
                           for k, v in weights.items()}, config)
    for inputs, layer_weights, step in ((np.vstack([x, np.zeros((1, 16))]), weights, "step 1 "),
                                        (x * 1e-200, weights, "step 1 "),
                                        (x, zero_q, "step 5 ")):
        with pytest.raises(EngineError, match="rms_norm_eps > 0") as info:
            run_layer(inputs, layer_weights, config)
        assert step in str(info.value) and "smaller" not in str(info.value)
    # the continuous view's branches start with the same RMSNorm
    with pytest.raises(EngineError, match="no RMS at rms_norm_eps = 0"):
        engine.convergence(x * 1e-200, weights, config)
    with pytest.raises(EngineError, match="no RMS at rms_norm_eps = 0"):
        engine.attention_branch(np.vstack([x, np.zeros((1, 16))]), weights, config)
    # a huge input at ε = 0 is still an overflow
    huge = {k: np.asarray(v) * (1e150 if v.ndim == 2 else 1.0) for k, v in weights.items()}
    with pytest.raises(EngineError, match="overflowed"):
        run_layer(np.ones((3, 16)), LayerWeights(huge, config), config)


@pytest.mark.parametrize("causal", [None, "yes", 1, 0.0])
def test_causal_must_be_a_bool(toy, causal):
    # a non-bool ran (None as full attention) and was stored as given, so compare_traces later
    # called a causal=None trace "causal"
    config, weights = toy
    x = embed(tokenize("a b c"), 16)
    with pytest.raises(EngineError, match="causal must be True or False"):
        run_layer(x, weights, config, causal=causal)
    with pytest.raises(EngineError, match="causal must be True or False"):
        engine.substep_layer(x, weights, config, 2, causal=causal)
    assert run_layer(x, weights, config, causal=np.bool_(False)).causal is False


_X = embed(["a", "b", "c"], 16)
_W = LayerWeights.random(Qwen3Config(), seed=0)


@pytest.mark.parametrize("call, fragment", [
    (lambda: run_layer(_X, _W, None), "config must be a Qwen3Config"),
    (lambda: run_layer([[1.0] * 16, [1.0] * 15], _W, Qwen3Config()), "rows of equal length"),
    (lambda: embed(["a"], 16.0), "hidden_size must be a whole number"),
    (lambda: embed(["a"], None), "hidden_size must be a whole number"),
    (lambda: embed(["a", 1], 16), "tokens must be strings"),
    (lambda: embed("a b", 16), "pass tokenize"),
    (lambda: embed(None, 16), "tokens must be a list of strings"),
    (lambda: LayerWeights(None, Qwen3Config()), "mapping of names to arrays"),
    (lambda: LayerWeights(dict(_W), None), "config must be a Qwen3Config"),
    (lambda: LayerWeights.random(Qwen3Config(), seed=-1), "seed must be a whole number >= 0"),
    (lambda: LayerWeights.from_state_dict(None, Qwen3Config()), "mapping of names to arrays"),
    (lambda: Qwen3Config(rope_theta=10**400), "rope_theta must be finite"),
    (lambda: Qwen3Config.from_dict({1: 2}), "field names must be strings"),
    (lambda: engine.convergence(_X, _W, Qwen3Config(), ns=None), "ns must be a list"),
    (lambda: engine.convergence(_X, _W, Qwen3Config(), ns=5), "ns must be a list"),
    (lambda: engine.rezero_layer(_X, _W, Qwen3Config(), 10**400), "too large for float64"),
])
def test_wrong_argument_types_are_engine_errors(call, fragment):
    with pytest.raises(EngineError, match=fragment):
        call()


def test_embed_takes_any_sequence_of_strings():
    assert np.array_equal(embed(np.array(["a", "b"]), 16), embed(["a", "b"], 16))
    assert np.array_equal(embed(("a", "b"), np.int64(16)), embed(["a", "b"], 16))


def test_embed_rejects_empty_and_too_long():
    with pytest.raises(EngineError, match="no tokens"):
        embed([], 16)
    with pytest.raises(EngineError, match="more than"):
        embed(["a"] * (engine.MAX_TOKENS + 1), 16)


def test_step_formulas_say_what_the_engine_computes(toy):
    """The formulas a learner reads: RMSNorm with ε inside the root (it matters: with a large ε
    the rows are visibly not at rms 1), and step 19 named SiLU as step 20 uses it (σ usually
    means the sigmoid itself)."""
    config = Qwen3Config(rms_norm_eps=0.5)
    weights = LayerWeights.random(config, seed=1)
    trace = run_layer(embed(tokenize("one two three"), 16), weights, config)
    for name, source, weight in (("input_layernorm", "embed", "input_layernorm.weight"),
                                 ("post_attention_layernorm", "resid_attn",
                                  "post_attention_layernorm.weight")):
        formula = trace.step(name).formula
        assert "ε" in formula and "√(mean(" in formula, formula
        x = trace[source]
        expected = weights[weight] * x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + 0.5)
        np.testing.assert_allclose(trace[name], expected, rtol=1e-14, atol=0)
    silu = trace.step("silu_gate").formula
    assert silu.startswith("SiLU(G) = G · sigmoid(G)")
    assert "SiLU(G)" in trace.step("gated").formula
    gate = trace["gate_proj"]
    np.testing.assert_allclose(trace["silu_gate"], gate / (1 + np.exp(-gate)), rtol=1e-15)


def test_without_the_mask_causal_mask_describes_itself_as_the_scores():
    """A layer run with causal=False records causal_mask as a copy of the scores; its formula
    and meanings say so (and say −∞ only when the mask is on)."""
    config = Qwen3Config()
    weights = LayerWeights.random(config, seed=2)
    x = embed(tokenize("one two three"), 16)
    masked, open_ = run_layer(x, weights, config), run_layer(x, weights, config, causal=False)
    step = open_.step("causal_mask")
    np.testing.assert_array_equal(step.array, open_["attn_scores"])
    assert step.formula == "S" and "copy of the scores" in step.meaning
    assert "副本" in step.meaning_zh
    assert "−∞" in masked.step("causal_mask").formula
    assert masked.step("causal_mask").meaning == STEP_INFO[11].meaning
    for name in STEP_NAMES:  # every other step reads the same either way
        if name != "causal_mask":
            assert open_.step(name).formula == masked.step(name).formula


def _words(n: int, last: str = "end") -> list[str]:
    return [*(f"w{i % 37}" for i in range(n - 1)), last]


def _same_bits(a, b) -> bool:
    return a.shape == b.shape and np.array_equal(a.view(np.int64), b.view(np.int64))


_HEADS_06B = Qwen3Config(hidden_size=64, intermediate_size=96, num_attention_heads=16,
                        num_key_value_heads=8, head_dim=128, rope_theta=1e6)


@pytest.mark.parametrize(("config", "n"), [
    (Qwen3Config.toy(), 9), (Qwen3Config.toy(), 70), (Qwen3Config.toy(), 300),
    (_HEADS_06B, 9), (_HEADS_06B, 100)], ids=["toy-9", "toy-70", "toy-300", "0.6B-heads-9",
                                              "0.6B-heads-100"])
def test_reusing_an_earlier_trace_gives_the_same_bits(config, n):
    """``reuse=``: whatever trace is given (an edit of the last or a middle token, the same
    input, another length, the mask off, other weights), every step is the same bits."""
    weights = LayerWeights.random(config, seed=4)
    d = config.hidden_size
    tokens = _words(n)
    middle = list(tokens)
    middle[n // 2] = "changed"
    inputs = [embed(tokens, d), embed(_words(n, "other"), d), embed(middle, d)]
    other_weights = LayerWeights.random(config, seed=5)
    for causal in (True, False):
        plain = [run_layer(x, weights, config, causal=causal) for x in inputs]
        earlier = [*plain, run_layer(embed(_words(n + 1), d), weights, config),
                   run_layer(inputs[0], weights, config, causal=not causal),
                   run_layer(inputs[1], other_weights, config, causal=causal)]
        for x, expected in zip(inputs, plain, strict=True):
            for reuse in earlier:
                trace = run_layer(x, weights, config, causal=causal, reuse=reuse)
                for a, b in zip(expected.steps, trace.steps, strict=True):
                    assert _same_bits(a.array, b.array), a.name


def test_reuse_computes_the_softmax_only_of_rows_whose_masked_scores_changed(toy, monkeypatch):
    """An edit of the last of 300 tokens: the exp of the softmax runs on the last block of
    query rows only (the others' masked rows kept their bits: their probabilities are
    copied); without ``reuse`` it runs on every row."""
    config, weights = toy
    before = run_layer(embed(_words(300), config.hidden_size), weights, config)
    x = embed(_words(300, "edited"), config.hidden_size)
    rows = []
    real_exp = np.exp

    def exp(array, *args, **kwargs):
        if np.ndim(array) == 4:  # [kv head, head in group, query rows, keys]: a softmax block
            rows.append(array.shape[2])
        return real_exp(array, *args, **kwargs)

    monkeypatch.setattr(np, "exp", exp)
    run_layer(x, weights, config)
    assert sum(rows) == 300
    rows.clear()
    run_layer(x, weights, config, reuse=before)
    assert 0 < sum(rows) < 64  # the block holding row 299


def test_reuse_must_be_a_trace(toy):
    config, weights = toy
    x = embed(["a", "b"], config.hidden_size)
    with pytest.raises(EngineError, match="reuse must be a LayerTrace"):
        run_layer(x, weights, config, reuse=x)


@pytest.mark.parametrize("causal", [True, False])
def test_every_steps_four_texts_with_and_without_the_mask(causal):
    """formula, formula_zh, meaning, meaning_zh: the step's own, except the mask step of a
    layer run without the mask, which says it is the copy of the scores (in both languages)."""
    from engine.steps import MASK_OFF_FORMULA, MASK_OFF_MEANING, Step

    for info in STEP_INFO:
        step = Step(info, np.zeros((1, 1)), causal=causal)
        texts = (step.formula, step.formula_zh, step.meaning, step.meaning_zh)
        if info.name == "causal_mask" and not causal:
            assert texts == (MASK_OFF_FORMULA, MASK_OFF_FORMULA, *MASK_OFF_MEANING)
        else:
            assert texts == (info.formula, info.formula_zh, info.meaning, info.meaning_zh)
    assert "−∞" in STEP_INFO[11].formula_zh  # the mask step's own Chinese formula differs
