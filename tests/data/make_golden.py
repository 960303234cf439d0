"""Regenerate the Hugging Face golden data that ``tests/test_golden.py`` checks the engine against.

Needs the ``golden`` extra (``pip install '.[golden]'``: torch==2.13.0 and transformers). Run from
anywhere::

    python tests/data/make_golden.py            # writes tests/data/golden_<case>.npz

For every case it builds transformers' own ``Qwen3DecoderLayer`` in float64 with eager attention,
loads *our* weights into it (``engine.LayerWeights.random(config, seed)``: HF state-dict names,
``[out, in]`` layout, so they go in with ``load_state_dict(strict=True)``), feeds it
``engine.embed(engine.tokenize(text), hidden_size)`` and records all 23 steps
(the input and the 22 of ``docs/steps.md``) from inside HF's forward:

- forward hooks on HF's submodules (norms, projections, ``act_fn``, ``o_proj``'s input, ...);
- a wrapper around HF's ``eager_attention_forward`` that sees the post-RoPE q and k, expands K and
  V with HF's ``repeat_kv`` and repeats HF's one line for the raw scores (the local itself is
  unreachable), then calls HF's function unchanged;
- a wrapper around ``torch.nn.functional.softmax`` that records its input: HF's masked scores,
  whose masked entries hold ``finfo(float64).min`` (HF adds a min-valued mask) where ours hold
  ``-inf``.

Stock HF computes RMSNorm, the RoPE tables (``inv_freq`` and the angles) and the softmax in
float32 even in a float64 model. For the golden steps those three places are held in float64
(RMSNorm's forward with float64 in place of float32, a rotary embedding subclass that builds
``inv_freq`` and the angles in float64, softmax asked for float64); everything else is HF's code
as installed. The untouched stock layer's output is stored too (``stock.resid_mlp``), as a loose
(~1e-5) second check.

Each file holds (``np.savez_compressed``, nothing needs pickle): ``config_json``, ``tokens_json``,
``text_json`` and ``versions_json`` as UTF-8 bytes in uint8 arrays; ``seed``; ``causal``;
``weight.<HF name>`` for the layer's tensors; ``step.<name>`` for the 23 steps (batch axis
dropped, in our layouts); ``stock.resid_mlp``.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np
import torch
import transformers
from transformers.masking_utils import create_causal_mask
from transformers.models.qwen3 import modeling_qwen3 as hf

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # import the engine from this checkout, installed or not

import engine  # noqa: E402

DATA_DIR = Path(__file__).resolve().parent
FORMAT = 1

_LONG_TEXT = ("Depth is time and attention is an integral over tokens. "
              "深度就是时间，注意力是对词元的积分。 Each residual is one explicit Euler step, "
              "每个残差都是一次显式欧拉步。 ")


@dataclass(frozen=True)
class Case:
    name: str
    config: engine.Qwen3Config
    text: str
    seed: int
    causal: bool = True


def _long_text(n_tokens: int) -> str:
    """Exactly ``n_tokens`` tokens of bilingual text (repeats are fine: RoPE tells them apart)."""
    tokens = engine.tokenize(_LONG_TEXT * (n_tokens // 20 + 1))[:n_tokens]
    text = " ".join(tokens)
    assert engine.tokenize(text) == tokens
    return text


def cases() -> list[Case]:
    config = engine.Qwen3Config
    return [
        Case("mha_en", config(hidden_size=16, intermediate_size=32, num_attention_heads=4,
                              num_key_value_heads=4, head_dim=4, rms_norm_eps=1e-5,
                              rope_theta=1e4),
             "The cat sat on the mat.", seed=11),
        Case("toy_gqa2_zh", config.toy(), "我爱北京天安门。", seed=0),
        Case("gqa3_head_dim_en_zh", config(hidden_size=24, intermediate_size=48,
                                           num_attention_heads=6, num_key_value_heads=2,
                                           head_dim=8, rope_theta=1e6),
             "Attention is all you need, 注意力就是一切!", seed=3),
        Case("mqa_en", config(hidden_size=32, intermediate_size=64, num_attention_heads=4,
                              num_key_value_heads=1, head_dim=8, rope_theta=1e4),
             "Transformers read every token at once.", seed=4),
        Case("t1_zh", config.toy(), "猫", seed=5),
        # long T: kept narrow so the three [H, T, T] attention steps stay small on disk
        Case("long_t200_mqa", config(hidden_size=16, intermediate_size=32,
                                     num_attention_heads=2, num_key_value_heads=1,
                                     head_dim=8, rope_theta=1e6),
             _long_text(200), seed=6),
        # Qwen3-0.6B's layer scaled down with its ratios kept: hidden 1024 -> 32, heads 16 -> 4,
        # kv heads 8 -> 2 (GQA group 2), head_dim = 2 x hidden/heads as in the real model
        # (128 = 2 x 1024/16, here 16 = 2 x 32/4), intermediate = 3 x hidden, theta 1e6, eps 1e-6.
        Case("qwen3_0_6b_scaled", config(hidden_size=32, intermediate_size=96,
                                         num_attention_heads=4, num_key_value_heads=2,
                                         head_dim=16, rms_norm_eps=1e-6, rope_theta=1e6),
             "Qwen3 的一层：RMSNorm, attention, SwiGLU.", seed=7),
        Case("noncausal_toy_en", config.toy(), "bidirectional attention sees the future",
             seed=8, causal=False),
    ]


def hf_config(config: engine.Qwen3Config) -> transformers.Qwen3Config:
    hf_cfg = transformers.Qwen3Config(
        vocab_size=8, hidden_size=config.hidden_size,
        intermediate_size=config.intermediate_size, num_hidden_layers=1,
        num_attention_heads=config.num_attention_heads,
        num_key_value_heads=config.num_key_value_heads, head_dim=config.head_dim,
        rms_norm_eps=config.rms_norm_eps, hidden_act="silu", attention_bias=False,
        attention_dropout=0.0, max_position_embeddings=4096,
        rope_parameters={"rope_type": "default", "rope_theta": config.rope_theta},
    )
    hf_cfg._attn_implementation = "eager"
    return hf_cfg


def hf_layer(config: engine.Qwen3Config, weights: engine.LayerWeights) -> hf.Qwen3DecoderLayer:
    """HF's decoder layer in float64 holding our weights."""
    layer = hf.Qwen3DecoderLayer(hf_config(config), layer_idx=0).to(torch.float64).eval()
    state = {name: torch.from_numpy(np.array(value)) for name, value in weights.items()}
    layer.load_state_dict(state, strict=True)
    return layer


# --- the three float32 places of stock HF, held in float64 -------------------------------------

def _rms_norm_float64(self: hf.Qwen3RMSNorm, hidden_states: torch.Tensor) -> torch.Tensor:
    """``Qwen3RMSNorm.forward`` with float64 where HF casts to float32."""
    input_dtype = hidden_states.dtype
    hidden_states = hidden_states.to(torch.float64)
    variance = hidden_states.pow(2).mean(-1, keepdim=True)
    hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
    return self.weight * hidden_states.to(input_dtype)


class Float64RotaryEmbedding(hf.Qwen3RotaryEmbedding):
    """HF's rotary embedding with ``inv_freq`` and the angles in float64."""

    @staticmethod
    def compute_default_rope_parameters(config: Any, **kwargs: Any) -> tuple[torch.Tensor, float]:
        base = config.rope_parameters["rope_theta"]
        dim = config.head_dim
        exponents = torch.arange(0, dim, 2, dtype=torch.int64).to(torch.float64) / dim
        return 1.0 / (base ** exponents), 1.0

    def forward(self, x: torch.Tensor, position_ids: torch.Tensor
                ) -> tuple[torch.Tensor, torch.Tensor]:
        freqs = position_ids[..., None].to(torch.float64) * self.inv_freq.to(torch.float64)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos = emb.cos() * self.attention_scaling
        sin = emb.sin() * self.attention_scaling
        return cos.to(dtype=x.dtype), sin.to(dtype=x.dtype)


# --- recording --------------------------------------------------------------------------------

def _np(tensor: torch.Tensor) -> np.ndarray:
    """Drop the batch axis of a ``[1, ...]`` tensor and return a float64 numpy copy."""
    assert tensor.shape[0] == 1 and tensor.dtype == torch.float64, (tensor.shape, tensor.dtype)
    return tensor[0].detach().clone().numpy()


@contextmanager
def recording(layer: hf.Qwen3DecoderLayer, float64: bool) -> Iterator[dict[str, np.ndarray]]:
    """Record every step of the next forward of ``layer``.

    ``float64`` also swaps in the float64 RMSNorm and softmax; the rotary tables are the caller's
    (see :class:`Float64RotaryEmbedding`).
    """
    steps: dict[str, np.ndarray] = {}
    attn, mlp = layer.self_attn, layer.mlp

    def output_of(name: str) -> Callable[..., None]:
        def hook(module: torch.nn.Module, args: tuple[Any, ...], output: Any) -> None:
            steps[name] = _np(output[0] if isinstance(output, tuple) else output)
        return hook

    def input_of(name: str) -> Callable[..., None]:
        def hook(module: torch.nn.Module, args: tuple[Any, ...], output: Any) -> None:
            steps[name] = _np(args[0])
        return hook

    def layer_hook(module: torch.nn.Module, args: tuple[Any, ...], kwargs: dict[str, Any],
                   output: Any) -> None:
        steps["embed"] = _np(args[0] if args else kwargs["hidden_states"])
        steps["resid_mlp"] = _np(output[0] if isinstance(output, tuple) else output)

    hf_attention = hf.eager_attention_forward
    hf_softmax = torch.nn.functional.softmax

    def attention(module: torch.nn.Module, query: torch.Tensor, key: torch.Tensor,
                  value: torch.Tensor, attention_mask: torch.Tensor | None, scaling: float,
                  dropout: float = 0.0, **kwargs: Any) -> tuple[torch.Tensor, torch.Tensor]:
        steps["q_rope"] = _np(query)  # [H, T, d]
        steps["k_rope"] = _np(key)  # [Hkv, T, d]
        key_states = hf.repeat_kv(key, module.num_key_value_groups)
        value_states = hf.repeat_kv(value, module.num_key_value_groups)
        steps["kv_repeat"] = _np(torch.cat([key_states, value_states], dim=-1))  # [H, T, 2d]
        # HF's first line of eager attention, repeated: the unmasked scores are a local there
        steps["attn_scores"] = _np(torch.matmul(query, key_states.transpose(2, 3)) * scaling)
        out, weights = hf_attention(module, query, key, value, attention_mask, scaling,
                                    dropout=dropout, **kwargs)
        steps["attn_probs"] = _np(weights)
        return out, weights

    def softmax(input: torch.Tensor, dim: int | None = None, _stacklevel: int = 3,
                dtype: torch.dtype | None = None) -> torch.Tensor:
        steps["causal_mask"] = _np(input)  # HF's masked scores: scores + mask
        if float64 and input.dtype == torch.float64 and dtype == torch.float32:
            dtype = torch.float64
        return hf_softmax(input, dim=dim, _stacklevel=_stacklevel, dtype=dtype)

    hooks = [
        layer.register_forward_hook(layer_hook, with_kwargs=True),
        layer.input_layernorm.register_forward_hook(output_of("input_layernorm")),
        attn.q_proj.register_forward_hook(output_of("q_proj")),
        attn.k_proj.register_forward_hook(output_of("k_proj")),
        attn.v_proj.register_forward_hook(output_of("v_proj")),
        attn.q_norm.register_forward_hook(output_of("q_norm")),  # [T, H, d]
        attn.k_norm.register_forward_hook(output_of("k_norm")),  # [T, Hkv, d]
        attn.o_proj.register_forward_hook(input_of("attn_context")),
        attn.o_proj.register_forward_hook(output_of("o_proj")),
        layer.post_attention_layernorm.register_forward_hook(input_of("resid_attn")),
        layer.post_attention_layernorm.register_forward_hook(
            output_of("post_attention_layernorm")),
        mlp.gate_proj.register_forward_hook(output_of("gate_proj")),
        mlp.up_proj.register_forward_hook(output_of("up_proj")),
        mlp.act_fn.register_forward_hook(output_of("silu_gate")),
        mlp.down_proj.register_forward_hook(input_of("gated")),
        mlp.down_proj.register_forward_hook(output_of("down_proj")),
    ]
    try:
        with ExitStack() as stack:
            stack.enter_context(mock.patch.object(hf, "eager_attention_forward", attention))
            stack.enter_context(mock.patch.object(torch.nn.functional, "softmax", softmax))
            if float64:
                stack.enter_context(mock.patch.object(hf.Qwen3RMSNorm, "forward",
                                                      _rms_norm_float64))
            yield steps
    finally:
        for handle in hooks:
            handle.remove()


def run_hf(layer: hf.Qwen3DecoderLayer, x: np.ndarray, causal: bool,
           float64: bool) -> dict[str, np.ndarray]:
    """One forward of HF's layer on ``x [T, D]`` as ``Qwen3Model`` drives it; every step."""
    hf_cfg = layer.self_attn.config
    hidden_states = torch.from_numpy(np.array(x))[None]  # [1, T, D]
    position_ids = torch.arange(x.shape[0])[None]  # [1, T]
    rotary_cls = Float64RotaryEmbedding if float64 else hf.Qwen3RotaryEmbedding
    position_embeddings = rotary_cls(hf_cfg)(hidden_states, position_ids)
    mask = None
    if causal:
        mask = create_causal_mask(config=hf_cfg, inputs_embeds=hidden_states,
                                  attention_mask=None, cache=None, position_ids=position_ids)
        assert mask is not None and mask.dtype == torch.float64
    with torch.no_grad(), recording(layer, float64) as steps:
        layer(hidden_states, attention_mask=mask, position_ids=position_ids,
              position_embeddings=position_embeddings)
    assert set(steps) == set(engine.STEP_NAMES), sorted(set(engine.STEP_NAMES) ^ set(steps))
    return steps


def _text_array(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-8"), dtype=np.uint8)


def make_case(case: Case) -> tuple[dict[str, np.ndarray], dict[str, float]]:
    """The arrays of one golden file and, for the report, our engine's max |diff| per step."""
    config = case.config
    tokens = engine.tokenize(case.text)
    x = engine.embed(tokens, config.hidden_size)
    weights = engine.LayerWeights.random(config, case.seed)
    layer = hf_layer(config, weights)
    golden = run_hf(layer, x, case.causal, float64=True)
    stock = run_hf(layer, x, case.causal, float64=False)

    # the re-computed raw scores are HF's own: its softmax input equals them where unmasked
    keep = golden["causal_mask"] > np.finfo(np.float64).min / 2
    assert np.array_equal(golden["causal_mask"][keep], golden["attn_scores"][keep])
    assert np.array_equal(golden["embed"], x)

    trace = engine.run_layer(x, weights, config, causal=case.causal)
    diffs = {}
    for name in engine.STEP_NAMES:
        ours, ref = trace[name], golden[name]
        assert ours.shape == ref.shape, (case.name, name, ours.shape, ref.shape)
        finite = np.isfinite(ours)
        diffs[name] = float(np.max(np.abs(ours[finite] - ref[finite]), initial=0.0))
    diffs["stock_output"] = float(np.max(np.abs(trace.output - stock["resid_mlp"])))

    versions = {"transformers": transformers.__version__, "torch": torch.__version__,
                "numpy": np.__version__, "python": platform.python_version(),
                "format": FORMAT}
    arrays: dict[str, np.ndarray] = {
        "config_json": _text_array(json.dumps(config.to_dict())),
        "tokens_json": _text_array(json.dumps(tokens, ensure_ascii=False)),
        "text_json": _text_array(json.dumps(case.text, ensure_ascii=False)),
        "versions_json": _text_array(json.dumps(versions)),
        "seed": np.array(case.seed, dtype=np.int64),
        "causal": np.array(case.causal),
        "stock.resid_mlp": stock["resid_mlp"],
    }
    arrays.update({f"weight.{name}": np.array(value) for name, value in weights.items()})
    arrays.update({f"step.{name}": golden[name] for name in engine.STEP_NAMES})
    return arrays, diffs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DATA_DIR, help="output folder")
    parser.add_argument("--only", nargs="*", help="case names to regenerate")
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    print(f"transformers {transformers.__version__}, torch {torch.__version__}")
    total = 0
    for case in cases():
        if args.only and case.name not in args.only:
            continue
        arrays, diffs = make_case(case)
        path = args.out / f"golden_{case.name}.npz"
        np.savez_compressed(path, **arrays)
        size = path.stat().st_size
        total += size
        worst = max((v, k) for k, v in diffs.items() if k != "stock_output")
        t = len(json.loads(arrays["tokens_json"].tobytes()))
        print(f"{case.name:22s} T={t:<4d} {size / 1024:7.1f} KiB  ours vs HF(float64) max "
              f"{worst[0]:.2e} ({worst[1]}), vs stock HF output {diffs['stock_output']:.2e}")
    print(f"total {total / 1024:.1f} KiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
