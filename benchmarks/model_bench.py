"""Whole-model figures of engine.model at Qwen3-0.6B's exact shapes, against HF in float64.

    python benchmarks/model_bench.py [--repeats 5] [--cache-dir /tmp/dualview_model_bench]

Writes (once, then reuses) a random-weight checkpoint with Qwen3-0.6B's shapes (28 layers,
hidden 1024, 16 heads, 8 kv heads, head_dim 128, intermediate 3072, vocab 151936, bf16, tied
head; ~1.2 GB) under the cache dir, never in the repository. Then, each in its own
subprocess so peak memory is each one's own:

- ours: open the folder -> first result (load + forward at T = 16), page cache warm; full
  forwards at T = 16 and 64; an edit of the last token at T = 64 with the KV cache; peak RSS
  (VmHWM) and how much of it is weights; an intervention on layer 20 from the plain run
  (``base=``, recomputing layers 20 .. 27 only) against a full forward, T = 16 and 64;
- HF: ``Qwen3ForCausalLM.from_pretrained(..., dtype=torch.float64)``, forwards at T = 16 and 64
  (``logits_to_keep=1``, no_grad, no cache), peak RSS;
- the floor under ``full_ratio``: the layers' matrix products alone, numpy (OpenBLAS) against
  torch (HF's float64 products) on the same memory (``floor_matmul_ratio_cpu_T*``), and the
  transposed ``[in, out]`` weight layout against the stored one (``layout_nn_over_nt_cpu_T*``)
  and the stored matrices' 4 kB pages against numpy's memory (huge pages where the kernel gives
  them, ``numpy_pages_over_stored_cpu_T*``); and over HF's own products, torch's seven
  ``F.linear`` calls a layer on HF's ``[out, in]`` layout (``floor_hf_products_ratio_cpu_T*``:
  torch on our transposed memory is slower than on its own, so the first is no floor for HF).

Both run as the app runs the engine: ``OPENBLAS_NUM_THREADS=1`` (and torch on one thread, to
match). Times are medians over repeats, with the fastest run too. The last line is JSON.

The BLAS kernels: the app runs on whatever kernels numpy's OpenBLAS detects for the CPU (on
an AVX-512 machine, ``SkylakeX``). This workplace's machines set ``OPENBLAS_CORETYPE=Haswell``
and ``OPENBLAS_L2_SIZE`` for every process (for older OpenBLAS builds), which a teacher's
machine does not; to measure what the app runs there, unset both for this command alone:
``env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/model_bench.py``. The JSON's
``openblas_kernels`` says which kernels ran, and the script warns when the variable is set.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

# the app's one BLAS thread (app/__main__.py); set before numpy or torch is imported
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_name] = "1"
# --openblas-coretype X: OpenBLAS's kernels for CPU X instead of the ones it detects; not
# the app's setting, so reported as its own figures (see the docstring)
if "OPENBLAS_CORETYPE" in os.environ and "--openblas-coretype" not in sys.argv:
    print(f"note: OPENBLAS_CORETYPE={os.environ['OPENBLAS_CORETYPE']} is set: OpenBLAS runs "
          "those kernels, not the ones it detects for this CPU (see the docstring)")
if "--openblas-coretype" in sys.argv:
    os.environ["OPENBLAS_CORETYPE"] = sys.argv[sys.argv.index("--openblas-coretype") + 1]

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SHAPE = {
    "architectures": ["Qwen3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
    "bos_token_id": 151643, "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu",
    "hidden_size": 1024, "initializer_range": 0.02, "intermediate_size": 3072,
    "max_position_embeddings": 40960, "max_window_layers": 28, "model_type": "qwen3",
    "num_attention_heads": 16, "num_hidden_layers": 28, "num_key_value_heads": 8,
    "rms_norm_eps": 1e-06, "rope_scaling": None, "rope_theta": 1000000, "sliding_window": None,
    "tie_word_embeddings": True, "torch_dtype": "bfloat16", "transformers_version": "4.51.0",
    "use_cache": True, "use_sliding_window": False, "vocab_size": 151936,
}
TOKENIZER = ROOT / "tests" / "data" / "model_bf16_sharded" / "tokenizer.json"


def write_checkpoint(folder: Path) -> None:
    """Random bf16 weights at Qwen3-0.6B's shapes in one model.safetensors (written tensor by
    tensor, ~1.2 GB)."""
    from engine.config import QWEN3_0_6B
    from engine.weights import weight_shapes

    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    shapes = {"model.embed_tokens.weight": (SHAPE["vocab_size"], SHAPE["hidden_size"])}
    for layer in range(SHAPE["num_hidden_layers"]):
        for name, shape in weight_shapes(QWEN3_0_6B).items():
            shapes[f"model.layers.{layer}.{name}"] = shape
    shapes["model.norm.weight"] = (SHAPE["hidden_size"],)
    header, offset = {"__metadata__": {"format": "pt"}}, 0
    for name, shape in shapes.items():
        size = int(np.prod(shape)) * 2
        header[name] = {"dtype": "BF16", "shape": list(shape),
                        "data_offsets": [offset, offset + size]}
        offset += size
    raw = json.dumps(header).encode()
    raw += b" " * (-len(raw) % 8)
    tmp = folder / "model.safetensors.tmp"
    with open(tmp, "wb") as handle:
        handle.write(len(raw).to_bytes(8, "little") + raw)
        for shape in shapes.values():
            if len(shape) == 1:
                values = 1.0 + 0.1 * rng.standard_normal(shape, dtype=np.float32)
            else:
                values = rng.standard_normal(shape, dtype=np.float32) * np.float32(0.02)
            handle.write((values.view(np.uint32) >> 16).astype("<u2").tobytes())
    tmp.replace(folder / "model.safetensors")
    (folder / "config.json").write_text(json.dumps(SHAPE, indent=2))
    (folder / "tokenizer.json").write_bytes(TOKENIZER.read_bytes())


def blas_architecture() -> str:
    from threadpoolctl import threadpool_info

    return ", ".join(str(lib.get("architecture")) for lib in threadpool_info()
                     if lib.get("internal_api") == "openblas")


def peak_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def minor_faults() -> int:
    """Page faults so far served without I/O: fresh memory the process touched."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def timed(function, repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return times


def ids_for(t: int, seed: int = 1) -> list[int]:
    return np.random.default_rng(seed).integers(0, 280, t).tolist()


def child_ours(folder: Path, repeats: int) -> dict:
    from engine.model import Qwen3Model

    start, cpu = time.perf_counter(), time.process_time()
    model = Qwen3Model.load(folder)
    loaded = time.perf_counter()
    model.forward(ids_for(16), layer=13)
    first, first_cpu = time.perf_counter(), time.process_time()
    weights = model._embed.nbytes + model.norm_weight.nbytes + sum(
        w.stacked("qkv").nbytes + w.stacked("gate_up").nbytes
        + w["self_attn.o_proj.weight"].nbytes + w["mlp.down_proj.weight"].nbytes
        + sum(w[n].nbytes for n in w if n.endswith("norm.weight")) for w in model.layers)
    out = {"open_s": first - start, "open_cpu_s": first_cpu - cpu, "load_s": loaded - start,
           "weights_mb": weights / 2**20}
    for t in (16, 64):
        ids = ids_for(t)
        before = minor_faults()
        out[f"full_T{t}"] = timed(lambda ids=ids: model.forward(ids, layer=13), repeats)
        out[f"faults_per_forward_T{t}"] = (minor_faults() - before) // repeats
    ids = ids_for(64)
    base = model.forward(ids, layer=13)
    edits = iter(range(1000))

    def edit() -> None:
        run = model.forward([*ids[:-1], 100 + next(edits)], layer=13, cache=base)
        assert run.reused_rows == 63

    out["kv_edit_T64"] = timed(edit, repeats)
    last = model.forward([*ids[:-1], 7], layer=13, cache=base)
    out["kv_rows"] = [last.rows_recomputed, last.rows_total]
    out.update(intervene_times(model, repeats))
    out["peak_rss_mb"] = peak_rss_mb()
    return out


#: the intervened layer of the intervention figures (of Qwen3-0.6B's 28)
INTERVENE_LAYER = 20


def intervene_times(model, repeats: int) -> dict:
    """An intervention on one layer (head 3 zeroed in layer 20, shown) from the plain run of
    the same ids (``base=``), which recomputes layer 20 and the 7 after it, against a full
    forward; the two take turns so both see the same load. Wall and CPU seconds."""
    from engine import Intervention

    iv, layer = Intervention(zero_heads=(3,)), INTERVENE_LAYER
    out: dict = {}
    for t in (16, 64):
        ids = ids_for(t)
        plain = model.forward(ids, layer=layer)
        run = model.forward(ids, layer=layer, intervention=iv, base=plain)
        assert run.rows_recomputed == (model.num_layers - layer) * t
        assert run.intervened_layers == (layer,)
        for key in ("full", "intervene"):
            out[f"iv_{key}_T{t}"], out[f"iv_{key}_cpu_T{t}"] = [], []
        for _ in range(repeats):
            for key, call in (
                    ("full", lambda ids=ids: model.forward(ids, layer=layer)),
                    ("intervene", lambda ids=ids, plain=plain: model.forward(
                        ids, layer=layer, intervention=iv, base=plain))):
                wall, cpu = time.perf_counter(), time.process_time()
                call()
                out[f"iv_{key}_T{t}"].append(time.perf_counter() - wall)
                out[f"iv_{key}_cpu_T{t}"].append(time.process_time() - cpu)
        out[f"iv_rows_T{t}"] = [run.rows_recomputed, run.rows_total]
    return out


def hf_model(folder: Path):
    import torch
    from transformers import Qwen3ForCausalLM

    torch.set_num_threads(1)
    return Qwen3ForCausalLM.from_pretrained(folder, dtype=torch.float64).eval()


def hf_forward(model, ids: list[int]) -> None:
    import torch

    with torch.no_grad():
        model(torch.tensor([ids]), use_cache=False, logits_to_keep=1)


def child_hf(folder: Path, repeats: int) -> dict:
    """HF's peak memory: its float64 model opened and run once at T = 64."""
    model = hf_model(folder)
    hf_forward(model, ids_for(64))
    return {"peak_rss_mb": peak_rss_mb(), "attn": model.config._attn_implementation}


def child_compare(folder: Path, repeats: int) -> dict:
    """Full forwards of ours and HF's in one process, taking turns, so both see the same
    load: wall and CPU time (one thread each, so CPU time is what an idle core would take)."""
    import torch

    from engine.model import Qwen3Model

    ours, hf = Qwen3Model.load(folder), hf_model(folder)
    out: dict = {"torch_threads": torch.get_num_threads()}
    for t in (16, 64):
        ids = ids_for(t)
        hf_forward(hf, ids)  # (first call: torch's one-time setup)
        ours.forward(ids, layer=13)
        for name in ("ours", "hf"):
            out[f"{name}_T{t}"], out[f"{name}_cpu_T{t}"] = [], []
        for _ in range(repeats):
            for name, run in (("ours", lambda ids=ids: ours.forward(ids, layer=13)),
                              ("hf", lambda ids=ids: hf_forward(hf, ids))):
                wall, cpu = time.perf_counter(), time.process_time()
                run()
                out[f"{name}_T{t}"].append(time.perf_counter() - wall)
                out[f"{name}_cpu_T{t}"].append(time.process_time() - cpu)
    return out


def child_floor(folder: Path, repeats: int) -> dict:
    """The floor under the full-forward ratio: the 28 layers' four matrix products alone
    (q/k/v stacked, o_proj, gate/up stacked, down_proj) on the engine's stored weights,
    numpy's ``x @ W.T`` (OpenBLAS, as the engine calls it) against torch's ``F.linear`` (HF's
    float64 products) on the very same memory, taking turns; then layouts and pages layer by
    layer (below). CPU seconds (one thread each)."""
    import torch

    from engine.model import Qwen3Model

    torch.set_num_threads(1)
    model = Qwen3Model.load(folder)
    width, ffn = model.layer_config.num_attention_heads * model.layer_config.head_dim, \
        model.layer_config.intermediate_size
    mats = [(w.stacked("qkv"), w["self_attn.o_proj.weight"], w.stacked("gate_up"),
             w["mlp.down_proj.weight"]) for w in model.layers]
    as_torch = [tuple(torch.from_numpy(m) for m in layer) for layer in mats]

    def layer_nt(x: np.ndarray, qkv: np.ndarray, o: np.ndarray, gate_up: np.ndarray,
                 down: np.ndarray) -> None:
        (x @ qkv.T)[:, :width] @ o.T
        (x @ gate_up.T)[:, :ffn] @ down.T

    def layer_nn(x: np.ndarray, qkv: np.ndarray, o: np.ndarray, gate_up: np.ndarray,
                 down: np.ndarray) -> None:  # the weights given as [in, out]
        (x @ qkv)[:, :width] @ o
        (x @ gate_up)[:, :ffn] @ down

    def ours(x: np.ndarray) -> None:
        for layer in mats:
            layer_nt(x, *layer)

    def theirs(x: torch.Tensor) -> None:
        linear = torch.nn.functional.linear
        with torch.no_grad():
            for qkv, o, gate_up, down in as_torch:
                linear(linear(x, qkv)[:, :width], o)
                linear(linear(x, gate_up)[:, :ffn], down)

    out: dict = {}
    for t in (16, 64):
        x = np.random.default_rng(t).standard_normal((t, model.layer_config.hidden_size))
        runs = (("numpy_stored", ours, x), ("torch", theirs, torch.from_numpy(x)))
        for name, call, arg in runs:
            call(arg)
            out[f"{name}_cpu_T{t}"] = []
        for _ in range(repeats):
            for name, call, arg in runs:
                cpu = time.process_time()
                call(arg)
                out[f"{name}_cpu_T{t}"].append(time.process_time() - cpu)
    # layouts and pages, one layer at a time (never two copies of the model): the stored
    # matrices (the loader's 4 kB pages, engine.model._small_pages) against fresh copies in
    # numpy's own memory (2 MB transparent huge pages where the kernel gives them: fewer TLB
    # misses while streaming) in HF's layout ("NT", x @ W.T with W [out, in] C-ordered) and
    # transposed ("NN", x @ Wt, Wt [in, out] C-ordered); the copies are made the same way,
    # so NN / NT compares layouts alone, and the copy in the stored layout / the stored
    # matrices the pages alone
    # And HF's own products: torch's seven F.linear calls of a Qwen3 layer (q, k, v, o, gate,
    # up, down) on [out, in] C-ordered copies, the layout HF's model holds (torch's BLAS on our
    # transposed memory, above, is slower than on its own: that comparison is not HF's floor)
    kinds = ("stored", "NT", "NN")
    layerwise = {f"numpy_{kind}_layerwise_cpu_T{t}": 0.0 for kind in kinds for t in (16, 64)}
    layerwise.update({f"torch_hf_layerwise_cpu_T{t}": 0.0 for t in (16, 64)})
    names = [f"self_attn.{n}_proj.weight" for n in "qkvo"] + [
        f"mlp.{n}_proj.weight" for n in ("gate", "up", "down")]

    def layer_hf(x: torch.Tensor, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                 o: torch.Tensor, gate: torch.Tensor, up: torch.Tensor,
                 down: torch.Tensor) -> None:
        linear = torch.nn.functional.linear
        with torch.no_grad():
            query = linear(x, q)
            linear(x, k), linear(x, v)
            linear(query, o)  # (the shape of the attention's context)
            gated = linear(x, gate)
            linear(x, up)
            linear(gated, down)

    for weights_of, layer in zip(model.layers, mats, strict=True):
        same = [np.array(m, order="C") for m in layer]
        transposed = [np.ascontiguousarray(m.T) for m in layer]
        hf_layer = [torch.from_numpy(np.ascontiguousarray(weights_of[n])) for n in names]
        for t in (16, 64):
            x = np.random.default_rng(t).standard_normal((t, model.layer_config.hidden_size))
            for _ in range(repeats):
                for kind, call, weights in (("stored", layer_nt, layer), ("NT", layer_nt, same),
                                            ("NN", layer_nn, transposed)):
                    cpu = time.process_time()
                    call(x, *weights)
                    layerwise[f"numpy_{kind}_layerwise_cpu_T{t}"] += (
                        time.process_time() - cpu) / repeats
                cpu = time.process_time()
                layer_hf(torch.from_numpy(x), *hf_layer)
                layerwise[f"torch_hf_layerwise_cpu_T{t}"] += (
                    time.process_time() - cpu) / repeats
    out.update(layerwise)
    # the engine's own layout: HF's [out, in] C-ordered ("NT") or transposed ("NN")
    out["stored_layout"] = "NT" if mats[0][0].flags.c_contiguous else "NN"
    return out


def run_child(kind: str, folder: Path, repeats: int) -> dict:
    result = subprocess.run([sys.executable, __file__, "--child", kind, "--folder", str(folder),
                             "--repeats", str(repeats)], capture_output=True, text=True,
                            check=False, env=os.environ.copy())
    if result.returncode:
        sys.stderr.write(result.stderr)
        raise SystemExit(f"{kind} failed")
    return json.loads(result.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--cache-dir", type=Path, default=Path("/tmp/dualview_model_bench"))
    parser.add_argument("--child", choices=["ours", "hf", "compare", "floor"])
    parser.add_argument("--folder", type=Path)
    parser.add_argument("--skip-hf", action="store_true")
    parser.add_argument("--openblas-coretype", help="OPENBLAS_CORETYPE for every run")
    args = parser.parse_args()
    if args.child:
        run = {"ours": child_ours, "hf": child_hf, "compare": child_compare,
               "floor": child_floor}[args.child]
        print(json.dumps(run(args.folder, args.repeats)))
        return
    folder = args.cache_dir / "qwen3-0.6b-random-bf16"
    if not (folder / "model.safetensors").is_file():
        print(f"writing {folder} ...", flush=True)
        write_checkpoint(folder)
    with open(folder / "model.safetensors", "rb") as handle:  # warm the page cache
        while handle.read(1 << 24):
            pass
    print("load before:", os.getloadavg(), flush=True)
    ours = run_child("ours", folder, args.repeats)
    print("ours:", json.dumps(ours), flush=True)
    hf = None if args.skip_hf else run_child("hf", folder, args.repeats)
    print("hf:", json.dumps(hf), flush=True)
    both = None if args.skip_hf else run_child("compare", folder, args.repeats)
    print("compare:", json.dumps(both), flush=True)
    floor = None if args.skip_hf else run_child("floor", folder, args.repeats)
    print("floor:", json.dumps(floor), flush=True)
    print("load after:", os.getloadavg(), flush=True)
    counts = ("kv_rows", "iv_rows_T16", "iv_rows_T64")
    med = {k: float(np.median(v)) for k, v in ours.items() if isinstance(v, list)
           and k not in counts}
    best = {k: float(np.min(v)) for k, v in ours.items() if isinstance(v, list)
            and k not in counts}
    figures = {
        "kv_edit_ratio_T64": med["kv_edit_T64"] / med["full_T64"],
        "kv_edit_ratio_T64_fastest": best["kv_edit_T64"] / best["full_T64"],
        "open_s_warm": ours["open_s"],
        "open_cpu_s_warm": ours["open_cpu_s"],
        "ours_full_T16_s": med["full_T16"], "ours_full_T64_s": med["full_T64"],
        "ours_kv_edit_T64_s": med["kv_edit_T64"],
        "ours_peak_rss_mb": ours["peak_rss_mb"], "ours_weights_mb": ours["weights_mb"],
        "ours_faults_per_forward": [ours["faults_per_forward_T16"],
                                    ours["faults_per_forward_T64"]],
        "kv_rows_recomputed": ours["kv_rows"],
        "openblas_threads": os.environ["OPENBLAS_NUM_THREADS"],
        "openblas_kernels": blas_architecture(),
        "loadavg_after": os.getloadavg(),
    }
    for t in (16, 64):
        # an intervention on layer 20 of 28 from the plain run (base=): layers 20 .. 27 only
        figures[f"intervene_layer{INTERVENE_LAYER}_ratio_T{t}"] = (
            med[f"iv_intervene_T{t}"] / med[f"iv_full_T{t}"])
        figures[f"intervene_layer{INTERVENE_LAYER}_ratio_T{t}_fastest"] = (
            best[f"iv_intervene_T{t}"] / best[f"iv_full_T{t}"])
        figures[f"intervene_layer{INTERVENE_LAYER}_ratio_cpu_T{t}"] = (
            med[f"iv_intervene_cpu_T{t}"] / med[f"iv_full_cpu_T{t}"])
        for key in ("intervene", "full"):
            figures[f"{key}_layer{INTERVENE_LAYER}_T{t}_median_s"] = med[f"iv_{key}_T{t}"]
            figures[f"{key}_layer{INTERVENE_LAYER}_T{t}_fastest_s"] = best[f"iv_{key}_T{t}"]
        figures[f"intervene_layer{INTERVENE_LAYER}_rows_T{t}"] = ours[f"iv_rows_T{t}"]
    if hf is not None and both is not None:
        for t in (16, 64):
            for kind, key in (("", ""), ("cpu_", "_cpu")):
                mine = np.array(both[f"ours{key}_T{t}"])
                theirs = np.array(both[f"hf{key}_T{t}"])
                figures[f"full_ratio{key}_T{t}"] = float(np.median(mine) / np.median(theirs))
                figures[f"full_ratio{key}_T{t}_fastest"] = float(mine.min() / theirs.min())
                figures[f"ours_{kind}T{t}_median_s"] = float(np.median(mine))
                figures[f"hf_{kind}T{t}_median_s"] = float(np.median(theirs))
        figures["rss_ratio"] = ours["peak_rss_mb"] / hf["peak_rss_mb"]
    if floor is not None:
        # the matrix products alone: OpenBLAS (the engine's layout) / torch's float64 products,
        # the floor under full_ratio; and the transposed ("NN") layout / the stored one
        for t in (16, 64):
            figures[f"floor_matmul_ratio_cpu_T{t}"] = float(
                np.median(floor[f"numpy_stored_cpu_T{t}"]) / np.median(floor[f"torch_cpu_T{t}"]))
            figures[f"floor_matmul_ratio_cpu_T{t}_fastest"] = float(
                np.min(floor[f"numpy_stored_cpu_T{t}"]) / np.min(floor[f"torch_cpu_T{t}"]))
            # ... and over HF's own products (torch's BLAS on HF's layout): the true floor
            figures[f"floor_hf_products_ratio_cpu_T{t}"] = (
                floor[f"numpy_stored_layerwise_cpu_T{t}"] / floor[f"torch_hf_layerwise_cpu_T{t}"])
            figures[f"layout_nn_over_nt_cpu_T{t}"] = (
                floor[f"numpy_NN_layerwise_cpu_T{t}"] / floor[f"numpy_NT_layerwise_cpu_T{t}"])
            figures[f"numpy_pages_over_stored_cpu_T{t}"] = (
                floor[f"numpy_{floor['stored_layout']}_layerwise_cpu_T{t}"]
                / floor[f"numpy_stored_layerwise_cpu_T{t}"])
        figures["hf_peak_rss_mb"] = hf["peak_rss_mb"]
        figures["hf_attn"] = hf["attn"]
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
