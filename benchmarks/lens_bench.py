"""Time one update of each lens computation at default sizes (issue 6: < 16 ms a slider move,
< 100 ms a 64-layer energy sweep). Prints one line per lens; the last line is one JSON object
of milliseconds (median of repeated runs after a warm-up).

    python benchmarks/lens_bench.py
"""

import json
import os
import platform
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from engine import LayerWeights, Qwen3Config, embed, ops, parallel, run_layer, tokenize
from engine.lenses import (
    attention_facts,
    energy_sweep,
    entropy_curve,
    qk_from_trace,
    random_qk,
    random_scheme,
    splitting_lens,
    temperature_lens,
)

SENTENCE = "The cat sat on the mat because it was warm 我爱 AI ."


def median_ms(fn, repeats=50, warmup=3):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times)


def projection_geometry(v, eps, sigma1=0.0, sigma2=1.0):
    """What the d = 3 panel needs per drag: LN(v), antipode, RMSNorm(v), distances, circle."""
    d = v.shape[-1]
    m, s = v.mean(), v.std()
    ln = ops.layer_norm(v, eps, sigma2, sigma1)
    antipode = 2 * sigma1 - ops.layer_norm(v, 0.0, sigma2, sigma1)  # σ₁ − σ₂(v − m)/s
    rms = ops.rms_norm(v, 1.0, eps)
    distances = [float(np.linalg.norm(p - v)) for p in (ln, antipode, rms)]
    # the constraint circle: centre σ₁·1, radius σ₂√d, in the plane ⟂ (1, 1, 1)
    basis = np.linalg.qr(np.array([[1.0, 1, 1], [1, -1, 0], [1, 1, -2]]).T)[0][:, 1:]
    angles = np.linspace(0, 2 * np.pi, 256)
    circle = sigma1 + sigma2 * np.sqrt(d) * (np.cos(angles)[:, None] * basis[:, 0]
                                            + np.sin(angles)[:, None] * basis[:, 1])
    return ln, antipode, rms, distances, circle, m, s


def main():
    parallel.configure_threads()  # what the app runs
    config = Qwen3Config.toy()
    weights = LayerWeights.random(config, seed=1)
    x = embed(tokenize(SENTENCE), config.hidden_size)
    trace = run_layer(x, weights, config)
    q, k = qk_from_trace(trace)
    q_big, k_big = random_qk(16, 64, 128, seed=0)
    multipliers = np.geomspace(1e-3, 1e2, 200)
    scheme = random_scheme(16, 4, seed=0)
    u0 = np.random.default_rng(0).standard_normal((x.shape[0], 16))
    v = np.array([0.3, -1.2, 2.0])

    results = {
        "temperature_toy_ms": median_ms(lambda: temperature_lens(q, k, multiplier=0.7)),
        "temperature_16h_64t_128d_ms": median_ms(
            lambda: temperature_lens(q_big, k_big, multiplier=0.7)),
        "entropy_curve_200tau_toy_ms": median_ms(lambda: entropy_curve(q, k, multipliers)),
        "energy_sweep_64_layers_ms": median_ms(lambda: energy_sweep(n_layers=64), repeats=20),
        "splitting_ms": median_ms(lambda: splitting_lens(u0, scheme, omega=0.6, eps=1e-5)),
        "projection_geometry_ms": median_ms(lambda: projection_geometry(v, 1e-2)),
        "attention_facts_toy_ms": median_ms(lambda: attention_facts(trace, weights)),
    }
    sizes = {
        "temperature_toy_ms": f"H={q.shape[0]}, T={q.shape[1]}, d={q.shape[2]}",
        "temperature_16h_64t_128d_ms": "H=16, T=64, d=128 (Qwen3-0.6B head size)",
        "entropy_curve_200tau_toy_ms": "200 temperatures, toy trace",
        "energy_sweep_64_layers_ms": "3 variants × 64 layers, T=8, d=16, 4 heads, d_ff=64",
        "splitting_ms": f"T={u0.shape[0]}, d=16, 4 heads: six sub-steps + two blocks",
        "projection_geometry_ms": "d=3: LN, antipode, RMSNorm, distances, 256-point circle",
        "attention_facts_toy_ms": "E19/E22/E23 on the toy trace",
    }
    for name, ms in results.items():
        print(f"{name:32s} {ms:8.3f} ms   ({sizes[name]})")
    print(json.dumps({"machine": f"{platform.machine()} {os.cpu_count()} cpu",
                      **{name: round(ms, 3) for name, ms in results.items()}}))


if __name__ == "__main__":
    main()
