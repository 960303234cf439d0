"""How fast is the engine? Median time of one full ``engine.run_layer`` (all 23 steps recorded).

    python benchmarks/engine_bench.py [--quick] [--threads N]

Sizes: the toy default at T = 8, hidden 256 at T = 128, and the real Qwen3-0.6B layer shape at
T = 64. Separately it times the continuous-view calls (``depth_states`` of a trace and
``substep_layer`` with n = 8) when ``engine/continuous.py`` provides them, and what the GUI
does per keystroke on a long input: the toy layer at T = 512 (``run_layer``, and
``compare_traces`` of a pinned baseline against the input with its last token edited, or with
one token appended; JSON key ``gui_toy_T512``). When torch and transformers are importable it
also times Hugging Face's ``Qwen3DecoderLayer`` (float64, eager attention, the same weights,
``torch.no_grad``, given ``position_embeddings`` and a causal mask made the way ``Qwen3Model``
makes them, outside the timed call) and prints ours/HF. Ours and HF's take turns in blocks (see
:func:`median_ms`).
Targets: ours <= 0.5x HF at the toy size, <= 1.0x at the 0.6B shape.

Ours runs as the app runs it: ``engine.parallel.configure_threads()`` (BLAS on one thread, the
engine's threads as the app has them; see there why), so the figures are what a user gets.
``--threads N`` caps torch's threads (it sets ``OMP_NUM_THREADS``, ``MKL_NUM_THREADS`` and
``OPENBLAS_NUM_THREADS`` for this process before numpy and torch load); ``--threads 1`` compares
one core with one core and gives steadier ratios on a busy machine. By default torch uses
every core.

The last line printed is one JSON object with every figure (milliseconds).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _threads_from_argv(argv: list[str]) -> str | None:
    for i, arg in enumerate(argv):
        if arg == "--threads" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--threads="):
            return arg.split("=", 1)[1]
    return None


if __name__ == "__main__" and (_threads := _threads_from_argv(sys.argv[1:])):
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_var] = _threads  # must precede the first numpy / torch import

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # run from a checkout, installed or not

from engine import LayerWeights, Qwen3Config, compare_traces, embed, parallel, run_layer  # noqa: E402

try:
    from engine.continuous import depth_states, substep_layer
except ImportError:  # another part of the engine; absent in older checkouts
    depth_states = substep_layer = None

SUBSTEPS = 8
TARGETS = {"toy": 0.5, "qwen3_0_6b": 1.0}
GUI_T = 512  # the GUI's long-input case: the toy layer, where the [H, T, T] steps dominate


def sizes() -> list[tuple[str, Qwen3Config, int]]:
    return [
        ("toy", Qwen3Config.toy(), 8),
        ("hidden256", Qwen3Config(hidden_size=256, intermediate_size=512, num_attention_heads=8,
                                  num_key_value_heads=4, head_dim=32), 128),
        ("qwen3_0_6b", Qwen3Config.qwen3_0_6b(), 64),
    ]


#: Pause before each block of calls: BLAS and OpenMP worker threads spin for a while after a
#: call, and one library's spinning threads would steal the cores the other one needs.
SETTLE = 0.15


def median_ms(calls: dict[str, Callable[[], Any]], budget: float, min_runs: int = 5,
              block: float = 0.25) -> dict[str, float]:
    """Median wall time in ms of each call over ~``budget`` seconds, after one warm-up each;
    also ``<name>_min``, the fastest run, which is what an idle machine gives.

    The calls take turns in blocks of ~``block`` seconds (a a a, b b b, a a a, ...) with a short
    settle before each block, so a busy spell slows them alike and neither library's idle
    threads get in the other's way.
    """
    times: dict[str, list[float]] = {name: [] for name in calls}
    start = time.perf_counter()
    warm = False
    while not warm or (time.perf_counter() - start < budget
                       or min(len(ts) for ts in times.values()) < min_runs):
        for name, fn in calls.items():
            time.sleep(SETTLE)
            if not warm:
                fn()
            block_start = time.perf_counter()
            while True:
                t0 = time.perf_counter()
                fn()
                t1 = time.perf_counter()
                times[name].append(t1 - t0)
                if t1 - block_start >= block:
                    break
        warm = True
    figures = {name: statistics.median(ts) * 1e3 for name, ts in times.items()}
    figures.update({f"{name}_min": min(ts) * 1e3 for name, ts in times.items()})
    return figures


def hf_timer(config: Qwen3Config, weights: LayerWeights,
             x: np.ndarray) -> Callable[[], Any] | str:
    """A zero-argument call of HF's layer on ``x``, or why there is none."""
    try:
        import torch
        import transformers
        from transformers.masking_utils import create_causal_mask
        from transformers.models.qwen3 import modeling_qwen3 as hf
    except ImportError as exc:
        return f"n/a ({exc.name} not installed)"
    hf_cfg = transformers.Qwen3Config(
        vocab_size=8, hidden_size=config.hidden_size,
        intermediate_size=config.intermediate_size, num_hidden_layers=1,
        num_attention_heads=config.num_attention_heads,
        num_key_value_heads=config.num_key_value_heads, head_dim=config.head_dim,
        rms_norm_eps=config.rms_norm_eps, hidden_act="silu", attention_bias=False,
        max_position_embeddings=4096,
        rope_parameters={"rope_type": "default", "rope_theta": config.rope_theta})
    hf_cfg._attn_implementation = "eager"
    layer = hf.Qwen3DecoderLayer(hf_cfg, layer_idx=0).to(torch.float64).eval()
    layer.load_state_dict({k: torch.from_numpy(np.array(v)) for k, v in weights.items()},
                          strict=True)
    hidden_states = torch.from_numpy(np.array(x))[None]  # [1, T, D]
    position_ids = torch.arange(x.shape[0])[None]
    position_embeddings = hf.Qwen3RotaryEmbedding(hf_cfg)(hidden_states, position_ids)
    mask = create_causal_mask(config=hf_cfg, inputs_embeds=hidden_states, attention_mask=None,
                              cache=None, position_ids=position_ids)

    def call() -> Any:
        with torch.no_grad():
            return layer(hidden_states, attention_mask=mask, position_ids=position_ids,
                         position_embeddings=position_embeddings)

    out = call().numpy()[0]
    ours = run_layer(x, weights, config).output
    assert np.abs(out - ours).max() < 1e-4, "HF and the engine disagree: wrong set-up"
    return call


def versions() -> dict[str, str]:
    found = {"python": platform.python_version(), "numpy": np.__version__}
    for name in ("torch", "transformers"):
        try:
            found[name] = __import__(name).__version__
        except ImportError:
            found[name] = "n/a"
    if found["torch"] != "n/a":
        found["torch_threads"] = str(__import__("torch").get_num_threads())
    found["cpus"] = str(os.cpu_count())
    found["OPENBLAS_NUM_THREADS"] = os.environ.get("OPENBLAS_NUM_THREADS", "default")
    found["engine_threads"] = str(parallel.workers())  # engine.parallel's share-out
    return found


def load_average() -> float | None:
    """The 1-minute load average: figures taken while other work runs are not comparable."""
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):
        return None


def gui_figures(budget: float) -> dict[str, Any]:
    """The toy layer at T = ``GUI_T``: ``run_layer`` and the causality comparison the GUI runs
    against a pinned baseline (last token edited; one token appended)."""
    config = Qwen3Config.toy()
    weights = LayerWeights.random(config, seed=0)
    tokens = [f"tok{i}" for i in range(GUI_T)]
    x = embed(tokens, config.hidden_size)
    baseline = run_layer(x, weights, config)
    edited = run_layer(embed([*tokens[:-1], "edited"], config.hidden_size), weights, config)
    shorter = run_layer(x[:-1], weights, config)  # the baseline, before the last token came
    row: dict[str, Any] = {"T": GUI_T, "config": config.to_dict()}
    row.update(median_ms({
        "run_layer": lambda: run_layer(x, weights, config),
        "compare_traces": lambda: compare_traces(baseline, edited),
        "compare_traces_append": lambda: compare_traces(shorter, baseline),
    }, budget))
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="shorter timing budget")
    parser.add_argument("--budget", type=float, default=None, help="seconds per figure")
    parser.add_argument("--threads", type=int, default=None,
                        help="torch's threads (default: all cores); ours runs as the app does")
    args = parser.parse_args(argv)
    parallel.configure_threads()  # what the app runs
    budget = args.budget if args.budget is not None else (0.3 if args.quick else 2.0)

    figures: dict[str, Any] = {"unit": "ms", "versions": versions(),
                               "load_average_before": load_average(), "sizes": {}}
    print(f"engine_bench: median ms per call; {figures['versions']}; "
          f"load average {figures['load_average_before']}")
    for name, config, t in sizes():
        weights = LayerWeights.random(config, seed=0)
        x = embed([f"tok{i}" for i in range(t)], config.hidden_size)
        row: dict[str, Any] = {"T": t, "config": config.to_dict()}
        calls = {"run_layer": lambda x=x, w=weights, c=config: run_layer(x, w, c)}
        hf_call = hf_timer(config, weights, x)
        if callable(hf_call):
            calls["hf"] = hf_call
        row.update(median_ms(calls, budget))
        if callable(hf_call):
            row["ratio_ours_over_hf"] = row["run_layer"] / row["hf"]
            row["ratio_ours_over_hf_min"] = row["run_layer_min"] / row["hf_min"]
            if name in TARGETS:
                row["target_ratio"] = TARGETS[name]
                row["meets_target"] = row["ratio_ours_over_hf"] <= TARGETS[name]
        else:
            row["hf"] = row["ratio_ours_over_hf"] = hf_call

        trace = run_layer(x, weights, config)
        continuous: dict[str, Callable[[], Any]] = {}
        if depth_states is not None:
            continuous["depth_states"] = lambda tr=trace: depth_states(tr)
        if substep_layer is not None:
            continuous[f"substep_layer_n{SUBSTEPS}"] = (
                lambda x=x, w=weights, c=config: substep_layer(x, w, c, SUBSTEPS))
        row.update(median_ms(continuous, budget) if continuous else {})
        for key in ("depth_states", f"substep_layer_n{SUBSTEPS}"):
            row.setdefault(key, "n/a")
        figures["sizes"][name] = row

        def fmt(value: Any) -> str:
            return f"{value:9.3f}" if isinstance(value, float) else f"{value:>9}"

        ratio, ratio_min = row["ratio_ours_over_hf"], row.get("ratio_ours_over_hf_min")
        target = f" (target <= {TARGETS[name]})" if name in TARGETS else ""
        shown = ratio if isinstance(ratio, str) else f"{ratio:.2f} (min/min {ratio_min:.2f})"
        print(f"{name:11s} T={t:<4d} run_layer {fmt(row['run_layer'])}  HF {fmt(row['hf'])}  "
              f"ours/HF {shown}{target}  depth_states {fmt(row['depth_states'])}  "
              f"substep_layer(n={SUBSTEPS}) {fmt(row[f'substep_layer_n{SUBSTEPS}'])}")
    figures["gui_toy_T512"] = gui_figures(budget)
    gui = figures["gui_toy_T512"]
    print(f"gui toy    T={GUI_T:<4d} run_layer {gui['run_layer']:9.3f}  compare_traces: last token "
          f"edited {gui['compare_traces']:9.3f}, one token appended "
          f"{gui['compare_traces_append']:9.3f}")
    figures["load_average_after"] = load_average()
    print(json.dumps(figures, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
