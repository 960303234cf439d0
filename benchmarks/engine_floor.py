"""How close to the hardware is the engine at the Qwen3-0.6B shape, and where is the rest?

    python benchmarks/engine_floor.py [--budget SECONDS]

``engine_bench.py`` gives the ratio ours / Hugging Face. This script says what bounds it, in
the same run, with the same interleaved timing (``engine_bench.median_ms``):

- ``products``: the layer's seven matrix products alone (q, k, v, o, gate, up, down; T = 64),
  shared over the threads exactly as ``run_layer`` shares them (whole kv-head groups, then
  whole MLP columns; BLAS on one thread in each; as many threads as the app uses,
  ``engine.parallel.configure_threads``), with nothing else computed. No layer that
  runs these products can take less; ours and HF's run the same ones.
- ``run_layer`` (all 23 steps recorded) and HF's ``Qwen3DecoderLayer`` (float64, eager), and
  each one's time above ``products``.
- one 64 x 1024 x 3072 product on one thread, numpy (OpenBLAS) and torch (its BLAS): the
  libraries' matrix products side by side.
- float64 ``exp`` per element, numpy and torch, on a SiLU-sized array, and what the layer's
  exps (SiLU on T x F, softmax on H x T x T) cost at each rate. numpy has a vectorised float64
  ``exp`` only with AVX-512; elsewhere it calls libm once per element, while torch uses SLEEF's
  AVX2 ``exp``. ``cpu_avx512f`` says which case this machine is.

Needs torch and transformers (the ``golden`` extra) for the HF and torch figures; without them
those are ``null``. The last line printed is one JSON object of every figure (milliseconds,
nanoseconds per element for ``exp``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
for _path in (ROOT, ROOT / "benchmarks"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

import engine_bench  # noqa: E402  (its timing, HF set-up and version report)

from engine import LayerWeights, Qwen3Config, parallel, run_layer  # noqa: E402
from engine.fastpath import _head_columns, kv_groups  # noqa: E402

T = 64


def products_only(x: np.ndarray, weights: LayerWeights,
                  config: Qwen3Config) -> Callable[[], None]:
    """A call that runs the layer's seven products as ``run_layer`` shares them, and no more.

    The inputs of the later products are ``x`` itself (the same shapes: [T, H·d] for o_proj,
    [T, F] for down_proj, cut from ``x`` tiled), so nothing but the products is timed.
    """
    d = config.head_dim
    w_q, w_k, w_v, w_o = (weights[f"self_attn.{n}_proj.weight"] for n in "qkvo")
    w_gate, w_up, w_down = (weights[f"mlp.{n}_proj.weight"] for n in ("gate", "up", "down"))
    groups = kv_groups(x, config)
    width = config.intermediate_size
    mlp_columns = parallel.even_slices(width, parallel.shares(x, 2 * width))
    wide = np.tile(x, (1, -(-max(width, config.num_attention_heads * d) // x.shape[1])))
    context, gated = wide[:, :config.num_attention_heads * d], wide[:, :width]

    def attention(i: int) -> None:
        kv = groups[i]
        cols, kv_cols = _head_columns(kv, config), slice(kv.start * d, kv.stop * d)
        x @ w_q[cols].T
        x @ w_k[kv_cols].T
        x @ w_v[kv_cols].T
        context[:, cols] @ w_o[:, cols].T

    def mlp(i: int) -> None:
        cols = mlp_columns[i]
        x @ w_gate[cols].T
        x @ w_up[cols].T
        gated[:, cols] @ w_down[:, cols].T

    def call() -> None:
        parallel.run([lambda i=i: attention(i) for i in range(len(groups))])
        parallel.run([lambda i=i: mlp(i) for i in range(len(mlp_columns))])

    return call


def one_thread_each(numpy_call: Callable[[], Any], torch_call: Callable[[Any], Callable[[], Any]],
                    budget: float) -> dict[str, float]:
    """``engine_bench.median_ms`` of ``numpy_call`` and, when torch is importable, of
    ``torch_call(torch)``, each library on one thread."""
    calls: dict[str, Callable[[], Any]] = {"numpy": numpy_call}
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        calls["torch"] = torch_call(torch)
    try:
        with parallel.single_threaded_blas():
            return engine_bench.median_ms(calls, budget)
    finally:
        if torch is not None:
            torch.set_num_threads(threads)


def one_product_ms(budget: float) -> dict[str, float | None]:
    """One 64 x 1024 x 3072 product on one thread: numpy's BLAS and torch's."""
    rng = np.random.default_rng(0)
    a, w = rng.standard_normal((T, 1024)), rng.standard_normal((3072, 1024))
    out = np.empty((T, 3072))

    def torch_product(torch: Any) -> Callable[[], Any]:
        ta, tw = torch.from_numpy(a), torch.from_numpy(w)
        return lambda: torch.matmul(ta, tw.T)

    figures = one_thread_each(lambda: np.matmul(a, w.T, out=out), torch_product, budget)
    return {"numpy": figures["numpy"], "numpy_min": figures["numpy_min"],
            "torch": figures.get("torch"), "torch_min": figures.get("torch_min")}


def exp_ns_per_element(budget: float) -> dict[str, float | None]:
    """float64 ``exp`` in ns per element, numpy and torch (one thread), on 64 x 3072 values."""
    values = np.random.default_rng(1).standard_normal((T, 3072)) * 4
    out = np.empty_like(values)

    def torch_exp(torch: Any) -> Callable[[], Any]:
        tv, tout = torch.from_numpy(values), torch.from_numpy(np.empty_like(values))
        return lambda: torch.exp(tv, out=tout)

    figures = one_thread_each(lambda: np.exp(values, out=out), torch_exp, budget)
    per = 1e6 / values.size  # ms per call -> ns per element
    return {"numpy": figures["numpy_min"] * per,
            "torch": figures["torch_min"] * per if "torch_min" in figures else None}


def cpu_has_avx512f() -> bool | None:
    """Whether the CPU has AVX-512F (numpy's vectorised float64 exp needs it); None: unknown."""
    try:
        flags = Path("/proc/cpuinfo").read_text().split()
    except OSError:
        return None
    return "avx512f" in flags


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", type=float, default=12.0,
                        help="seconds of timing for the layer figures (default 12)")
    args = parser.parse_args(argv)
    parallel.configure_threads()  # what the app runs

    config = Qwen3Config.qwen3_0_6b()
    weights = LayerWeights.random(config, 0)
    x = np.random.default_rng(1).standard_normal((T, config.hidden_size))
    calls: dict[str, Callable[[], Any]] = {
        "products": products_only(x, weights, config),
        "run_layer": lambda: run_layer(x, weights, config),
    }
    hf = engine_bench.hf_timer(config, weights, x)
    if callable(hf):
        calls["hf"] = hf
    load_before = engine_bench.load_average()
    started = time.perf_counter()
    layer = engine_bench.median_ms(calls, args.budget)
    product = one_product_ms(args.budget / 4)
    exp = exp_ns_per_element(args.budget / 4)
    heads, width = config.num_attention_heads, config.intermediate_size
    exps = T * width + heads * T * T  # SiLU, and softmax over whole rows
    threads = parallel.workers()

    def exp_ms(ns: float | None) -> float | None:  # wall time, the exps shared over the threads
        return None if ns is None else exps * ns / 1e6 / threads

    figures: dict[str, Any] = {
        "unit": "ms", "shape": "qwen3_0_6b", "T": T, "threads": threads,
        "versions": engine_bench.versions(), "cpu_avx512f": cpu_has_avx512f(),
        "load_average_before": load_before,
        "layer": layer,
        "above_products": {
            name: {"median": layer[name] - layer["products"],
                   "min": layer[f"{name}_min"] - layer["products_min"]}
            for name in ("run_layer", "hf") if name in layer},
        "one_product_one_thread": product,
        "exp_ns_per_element": exp,
        "layer_exps": exps,
        "layer_exp_ms": {"numpy": exp_ms(exp["numpy"]), "torch": exp_ms(exp["torch"])},
        "seconds": time.perf_counter() - started,
        "load_average_after": engine_bench.load_average(),
    }

    def fmt(value: float | None, digits: int = 2) -> str:
        return "n/a" if value is None else f"{value:.{digits}f}"

    print(f"engine_floor: Qwen3-0.6B layer, T = {T}, {threads} thread(s); "
          f"{figures['versions']}; load average {load_before}")
    for name, label in (("products", "the 7 products alone"), ("run_layer", "run_layer"),
                        ("hf", "HF Qwen3DecoderLayer")):
        if name in layer:
            above = figures["above_products"].get(name)
            extra = (f"   above the products: median {fmt(above['median'])}, "
                     f"min {fmt(above['min'])}") if above else ""
            print(f"  {label:22s} median {fmt(layer[name]):>7s}  min "
                  f"{fmt(layer[name + '_min']):>7s}{extra}")
    if "hf" not in layer:
        print(f"  HF Qwen3DecoderLayer   {hf}")
    print(f"  one 64x1024x3072 product, one thread: numpy {fmt(product['numpy'])} "
          f"(min {fmt(product['numpy_min'])}), torch {fmt(product['torch'])} "
          f"(min {fmt(product['torch_min'])})")
    print(f"  float64 exp, ns per element (fastest run): numpy {fmt(exp['numpy'])}, torch "
          f"{fmt(exp['torch'])}; the layer's {exps} exps over {threads} thread(s): numpy "
          f"{fmt(figures['layer_exp_ms']['numpy'])} ms, torch "
          f"{fmt(figures['layer_exp_ms']['torch'])} ms; AVX-512F: {figures['cpu_avx512f']}")
    print(f"  the products' median is {fmt(layer['products'] / layer['products_min'])}x their "
          "fastest run: how much this machine's speed varies")
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
