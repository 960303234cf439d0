"""Regenerate the tiny whole-model checkpoints and Hugging Face golden outputs that
``tests/test_model.py`` checks ``engine.model.Qwen3Model`` against.

Needs the ``golden`` extra (``pip install '.[golden]'``: torch==2.13.0 and transformers). Run from
anywhere::

    python tests/data/make_golden_model.py     # writes tests/data/model_*/ and golden_model_*.npz

Two checkpoints, each written by transformers' own ``Qwen3ForCausalLM.save_pretrained`` from
seeded random weights, with a tiny byte-level BPE ``tokenizer.json`` trained here with the
``tokenizers`` library (Qwen's pre-tokenizer regex, Qwen-style special tokens, fewer tokens than
``vocab_size`` so the embedding has padding rows):

- ``model_bf16_sharded``: bf16, tied head, transformers-5 config (``rope_parameters``,
  ``dtype``), saved in shards small enough that one decoder layer's tensors lie in two shards;
- ``model_f32_untied``: float32 in one ``model.safetensors``, its own ``lm_head.weight``, and a
  transformers-4.51 style ``config.json`` (top-level ``rope_theta``, ``torch_dtype``).

The golden outputs come from HF's ``Qwen3ForCausalLM`` loaded back from the folder in float64
with eager attention (``from_pretrained``: so HF reads the same config and the same files), the
three places stock HF computes in float32 held in float64 exactly as ``make_golden.py`` does
(its RMSNorm forward, rotary embedding and softmax are reused from there): every decoder
layer's output (forward hooks), the final norm's output, and the logits of the last position.
The token ids are HF's tokenizer's (``PreTrainedTokenizerFast`` on the same tokenizer.json,
``add_special_tokens=False``), recorded for several texts.

Each ``golden_model_<name>.npz`` holds (no pickle): ``ids``, ``residual [L + 1, T, hidden]``,
``final_normed [T, hidden]``, ``logits [vocab]``, ``text_json``, ``tokenizer_cases_json``
(texts and HF's ids) and ``versions_json`` as UTF-8 bytes.
"""

from __future__ import annotations

import json
import platform
import shutil
import sys
from contextlib import ExitStack
from pathlib import Path
from unittest import mock

import numpy as np
import torch
import transformers
from tokenizers import (
    AddedToken,
    Regex,
    Tokenizer,
    decoders,
    models,
    normalizers,
    pre_tokenizers,
    processors,
    trainers,
)
from transformers.models.qwen3 import modeling_qwen3 as hf

DATA_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(DATA_DIR))

from make_golden import Float64RotaryEmbedding, _rms_norm_float64  # noqa: E402

#: Qwen2/Qwen3's pre-tokenizer split (tokenizer.json of Qwen3-0.6B).
QWEN_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+"
              r"[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
ADDED_NOT_SPECIAL = ["<think>", "</think>"]  # Qwen3 lists these as added, not special
CORPUS = [
    "The quick brown fox jumps over the lazy dog. The dog sleeps; the fox runs on.",
    "Attention is all you need: queries, keys and values, heads and layers.",
    "我爱北京天安门。北京是中国的首都。我们一起学习语言模型。",
    "Hello, world! Hello there, how are you today? I'm fine, thanks.",
    "RMSNorm, RoPE, SwiGLU: a decoder layer of Qwen3 in float64.",
] * 4
TEXT = "我爱北京 and the fox"
TOKENIZER_CASES = [
    TEXT, "我爱北京", "Hello there", " the the  the\n\nend", "<|im_start|>user\n你好<|im_end|>",
    "<think>ok</think>", "emoji 🙂 and ünïcödé", "",
]
#: Tokens the trained vocabulary holds (bytes, merges, added) < vocab_size: padding rows.
TRAINED_VOCAB = 290
VOCAB_SIZE = 320


def make_tokenizer() -> Tokenizer:
    tokenizer = Tokenizer(models.BPE())
    tokenizer.normalizer = normalizers.NFC()
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(QWEN_SPLIT), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False),
    ])
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.post_processor = processors.ByteLevel(trim_offsets=False)
    trainer = trainers.BpeTrainer(vocab_size=TRAINED_VOCAB, min_frequency=2,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tokenizer.train_from_iterator(CORPUS, trainer)
    tokenizer.add_special_tokens([AddedToken(t, special=True, normalized=False)
                                  for t in SPECIAL])
    tokenizer.add_tokens([AddedToken(t, special=False, normalized=False)
                          for t in ADDED_NOT_SPECIAL])
    assert tokenizer.get_vocab_size(with_added_tokens=True) < VOCAB_SIZE
    return tokenizer


def hf_config(**fields: object) -> transformers.Qwen3Config:
    return transformers.Qwen3Config(
        vocab_size=VOCAB_SIZE, hidden_act="silu", attention_bias=False,
        max_position_embeddings=512, initializer_range=0.3,
        bos_token_id=None, eos_token_id=None, pad_token_id=None, **fields)


def random_model(config: transformers.Qwen3Config, seed: int) -> hf.Qwen3ForCausalLM:
    torch.manual_seed(seed)
    model = hf.Qwen3ForCausalLM(config).eval()
    with torch.no_grad():
        for name, param in model.named_parameters():
            if name.endswith("norm.weight"):  # never all ones: a norm weight must matter
                param.copy_(1.0 + 0.2 * torch.randn_like(param))
    return model


def split_layers(folder: Path) -> list[int]:
    """Decoder layers whose tensors lie in more than one shard."""
    weight_map = json.loads((folder / "model.safetensors.index.json").read_text())["weight_map"]
    shards: dict[int, set[str]] = {}
    for name, shard in weight_map.items():
        if name.startswith("model.layers."):
            shards.setdefault(int(name.split(".")[2]), set()).add(shard)
    return sorted(layer for layer, files in shards.items() if len(files) > 1)


def write_bf16_sharded(folder: Path) -> None:
    config = hf_config(hidden_size=32, intermediate_size=64, num_hidden_layers=3,
                       num_attention_heads=4, num_key_value_heads=2, head_dim=16,
                       rms_norm_eps=1e-6, tie_word_embeddings=True,
                       rope_parameters={"rope_type": "default", "rope_theta": 1e6})
    model = random_model(config, seed=11).to(torch.bfloat16)
    model.save_pretrained(folder, max_shard_size="30KB")
    assert split_layers(folder), "no layer split over two shards: change max_shard_size"
    saved = json.loads((folder / "config.json").read_text())
    assert "rope_parameters" in saved and "dtype" in saved and saved["tie_word_embeddings"]


def write_f32_untied(folder: Path) -> None:
    config = hf_config(hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                       num_attention_heads=2, num_key_value_heads=1, head_dim=8,
                       rms_norm_eps=1e-5, tie_word_embeddings=False,
                       rope_parameters={"rope_type": "default", "rope_theta": 5e5})
    model = random_model(config, seed=12).to(torch.float32)
    model.save_pretrained(folder)
    assert (folder / "model.safetensors").is_file()
    # rewritten as transformers 4.51 wrote Qwen3-0.6B's: rope_theta at the top, torch_dtype
    saved = json.loads((folder / "config.json").read_text())
    rope = saved.pop("rope_parameters")
    for key in ("dtype", "layer_types", "pad_token_id"):  # (4.51 wrote none of these)
        saved.pop(key, None)
    saved.update(rope_theta=rope["rope_theta"], rope_scaling=None, torch_dtype="float32",
                 transformers_version="4.51.0", use_sliding_window=False, sliding_window=None,
                 max_window_layers=config.num_hidden_layers)
    (folder / "config.json").write_text(json.dumps(saved, indent=2, sort_keys=True) + "\n")


def _softmax64(hf_softmax):
    def softmax(input, dim=None, _stacklevel=3, dtype=None):
        if input.dtype == torch.float64 and dtype == torch.float32:
            dtype = torch.float64
        return hf_softmax(input, dim=dim, _stacklevel=_stacklevel, dtype=dtype)
    return softmax


def golden(folder: Path) -> dict[str, np.ndarray]:
    model = hf.Qwen3ForCausalLM.from_pretrained(folder, dtype=torch.float64,
                                                attn_implementation="eager").eval()
    model.model.rotary_emb = Float64RotaryEmbedding(model.config)
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_file=str(folder /
                                                                        "tokenizer.json"))
    cases = [[text, tokenizer.encode(text, add_special_tokens=False)]
             for text in TOKENIZER_CASES]
    ids = cases[0][1]
    outputs: dict[str, np.ndarray] = {}
    layers = model.model.layers

    def keep(name: str):
        def hook(module, args, output):
            tensor = output[0] if isinstance(output, tuple) else output
            outputs[name] = tensor[0].detach().clone().numpy()
        return hook

    def keep_input(module, args, kwargs, output):
        states = args[0] if args else kwargs["hidden_states"]
        outputs["embed"] = states[0].detach().clone().numpy()

    hooks = [layers[0].register_forward_hook(keep_input, with_kwargs=True),
             model.model.norm.register_forward_hook(keep("final_normed"))]
    hooks += [layer.register_forward_hook(keep(f"layer{i}")) for i, layer in enumerate(layers)]
    with ExitStack() as stack, torch.no_grad():
        stack.enter_context(mock.patch.object(hf.Qwen3RMSNorm, "forward", _rms_norm_float64))
        stack.enter_context(mock.patch.object(torch.nn.functional, "softmax",
                                              _softmax64(torch.nn.functional.softmax)))
        logits = model(torch.tensor([ids]), use_cache=False).logits
    for handle in hooks:
        handle.remove()
    assert logits.dtype == torch.float64
    residual = np.stack([outputs["embed"], *(outputs[f"layer{i}"] for i in range(len(layers)))])
    versions = {"torch": torch.__version__, "transformers": transformers.__version__,
                "python": platform.python_version(), "numpy": np.__version__}
    return {
        "ids": np.array(ids, dtype=np.int64),
        "residual": residual,
        "final_normed": outputs["final_normed"],
        "logits": logits[0, -1].numpy().copy(),
        "text_json": _utf8(json.dumps(TEXT, ensure_ascii=False)),
        "tokenizer_cases_json": _utf8(json.dumps(cases, ensure_ascii=False)),
        "versions_json": _utf8(json.dumps(versions)),
    }


def _utf8(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-8"), dtype=np.uint8)


def main() -> None:
    tokenizer = make_tokenizer()
    for name, write in (("bf16_sharded", write_bf16_sharded), ("f32_untied", write_f32_untied)):
        folder = DATA_DIR / f"model_{name}"
        shutil.rmtree(folder, ignore_errors=True)
        write(folder)
        tokenizer.save(str(folder / "tokenizer.json"))
        (folder / "generation_config.json").unlink(missing_ok=True)  # not read by the engine
        arrays = golden(folder)
        np.savez_compressed(DATA_DIR / f"golden_model_{name}.npz", **arrays)
        size = sum(p.stat().st_size for p in folder.iterdir())
        print(f"{folder.name}: {size} bytes, ids {arrays['ids'].tolist()}, "
              f"|logits| max {np.abs(arrays['logits']).max():.3g}")


if __name__ == "__main__":
    main()
