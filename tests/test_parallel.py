"""engine.parallel: the big products shared out by columns over threads.

``split_everything`` lowers the size threshold to 0 so that every 2-D product and every
multi-block attention of the small test layers takes the threaded path; each test then checks
that path against what it must equal.
"""

import ctypes
import os
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

from engine import (
    EngineError,
    LayerWeights,
    Qwen3Config,
    compare_traces,
    embed,
    fastpath,
    parallel,
    run_layer,
)
from engine.continuous import attention_branch, mlp_branch
from tests.test_golden import ATOL, FILES, load_case, step_diffs

ROOT = Path(__file__).resolve().parents[1]
MEDIUM = Qwen3Config(hidden_size=64, intermediate_size=192, num_attention_heads=4,
                     num_key_value_heads=2, head_dim=32, rms_norm_eps=1e-6, rope_theta=1e6)


@pytest.fixture
def split_everything(monkeypatch):
    before = parallel.workers()
    monkeypatch.setattr(parallel, "MIN_WORK", 0)
    parallel.set_workers(2)
    assert parallel.workers() == 2, "numpy's OpenBLAS was not found: nothing is shared out"
    yield
    parallel.set_workers(before)


def tokens(n: int, last: str = "end") -> list[str]:
    return [f"w{i}" for i in range(n - 1)] + [last]


@pytest.mark.parametrize(("columns", "parts"), [(1, 1), (7, 2), (8, 2), (3072, 2), (5, 3)])
def test_even_slices_cover_every_index_once(columns, parts):
    slices = parallel.even_slices(columns, parts)
    assert len(slices) == parts
    covered = np.concatenate([np.arange(columns)[s] for s in slices])
    assert np.array_equal(covered, np.arange(columns))
    sizes = [s.stop - s.start for s in slices]
    assert max(sizes) - min(sizes) <= 1


def test_linear_many_gives_each_product_whole(split_everything):
    rng = np.random.default_rng(8)
    x = rng.standard_normal((5, 6))
    weights = [rng.standard_normal((rows, 6)) for rows in (1, 2, 7)]  # 1 row: fewer than parts
    for parts in (2, 3):
        outs = parallel.linear_many(x, weights, parts)
        for w, out in zip(weights, outs, strict=True):
            assert out.flags.c_contiguous
            np.testing.assert_allclose(out, x @ w.T, rtol=1e-14, atol=1e-14)


def test_set_workers_rejects_nonsense():
    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(ValueError, match="whole number"):
            parallel.set_workers(bad)


def test_small_inputs_and_batches_are_not_split():
    before = parallel.workers()
    parallel.set_workers(2)
    try:
        assert parallel.shares(np.zeros((8, 16)), 32) == 1  # the toy layer: far below MIN_WORK
        big = 1 + int(np.sqrt(parallel.MIN_WORK))
        assert parallel.shares(np.zeros((big, big)), big) == 2
        assert parallel.shares(np.zeros((2, big, big)), big) == 1  # a batch keeps one product
    finally:
        parallel.set_workers(before)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem.removeprefix("golden_"))
def test_split_path_matches_hugging_face(split_everything, path):
    case = load_case(path)
    golden = case["steps"]
    trace = run_layer(golden["embed"], case["weights"], case["config"], causal=case["causal"])
    diffs = step_diffs(trace, golden)
    bad = [f"{name} by {d:.3e}" for name, d in diffs.items() if d > ATOL]
    assert not bad, f"{case['name']}: {', '.join(bad)}"
    for step in trace:
        assert step.array.flags.c_contiguous and not step.array.flags.writeable, step.name


@pytest.mark.parametrize("causal", [True, False])
def test_split_path_agrees_with_one_thread(split_everything, causal):
    weights = LayerWeights.random(MEDIUM, seed=3)
    x = embed(tokens(150), MEDIUM.hidden_size)  # several attention blocks
    shared = run_layer(x, weights, MEDIUM, causal=causal)
    parallel.set_workers(1)
    alone = run_layer(x, weights, MEDIUM, causal=causal)
    for a, b in zip(shared, alone, strict=True):
        finite = np.isfinite(b.array)
        assert np.array_equal(finite, np.isfinite(a.array)), a.name
        scale = max(1.0, float(np.abs(b.array[finite]).max()))
        assert np.abs(a.array[finite] - b.array[finite]).max() <= 1e-13 * scale, a.name


def test_split_path_keeps_causality_bitwise(split_everything):
    weights = LayerWeights.random(MEDIUM, seed=4)
    before = run_layer(embed(tokens(130, "cat"), MEDIUM.hidden_size), weights, MEDIUM)
    after = run_layer(embed(tokens(130, "dog"), MEDIUM.hidden_size), weights, MEDIUM)
    report = compare_traces(before, after)
    assert report.first_changed == 129
    assert report.exact and report.scores_changed_future_only
    assert all(report.earlier_rows_bitwise_equal[name] for name in report.step_names
               if name != "attn_scores")
    assert max(report.earlier_max_abs_diff[name] for name in report.step_names
               if name != "attn_scores") == 0.0
    assert np.abs(after.output[-1] - before.output[-1]).max() > 1e-3  # the edit did something


def test_continuous_branches_reproduce_the_split_layer(split_everything):
    weights = LayerWeights.random(MEDIUM, seed=5)
    x = embed(tokens(70), MEDIUM.hidden_size)
    trace = run_layer(x, weights, MEDIUM)
    assert np.array_equal(attention_branch(x, weights, MEDIUM), trace["o_proj"])
    assert np.array_equal(mlp_branch(trace["resid_attn"], weights, MEDIUM), trace["down_proj"])


def test_overflow_in_a_worker_thread_is_reported_in_words(split_everything):
    # exp(-gate) overflows inside the threads' SiLU: the caller's np.errstate must hold there
    # (pytest turns a RuntimeWarning into an error), and the layer names the step in words
    tensors = dict(LayerWeights.random(MEDIUM, seed=6).items())
    tensors["mlp.gate_proj.weight"] = tensors["mlp.gate_proj.weight"] * 1e300
    weights = LayerWeights.from_state_dict(tensors, MEDIUM)
    with pytest.raises(EngineError, match=r"overflowed at step 17 \(gate_proj\)"):
        run_layer(embed(tokens(20), MEDIUM.hidden_size), weights, MEDIUM)


def test_blas_threads_are_restored(split_everything):
    blas_threads = parallel._blas.get_num_threads()
    run_layer(embed(tokens(40), MEDIUM.hidden_size), LayerWeights.random(MEDIUM, seed=7), MEDIUM)
    assert parallel._blas.get_num_threads() == blas_threads


def test_first_use_may_be_a_shared_product():
    # A fresh process whose first call into engine.parallel is linear_many (an outside script
    # may start there): the thread pool is made under the module's lock, and sizing it must
    # not take that lock again (it deadlocked once).
    code = ("import numpy as np; from engine import parallel; x = np.ones((4, 8)); "
            "w = np.ones((6, 8)); out = parallel.linear_many(x, [w], 2)[0]; "
            "assert np.array_equal(out, x @ w.T); print('ok')")
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "2"}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_a_worker_thread_gets_the_same_bits_and_blas_is_restored():
    # threadpoolctl lets only the first thread that sets OpenBLAS's thread count change it;
    # the engine's shares must still run on one BLAS thread whichever thread calls run_layer
    # (else other bits), and leave BLAS as it found it. A fresh process: that state is global.
    code = """
import threading
import numpy as np
from engine import LayerWeights, Qwen3Config, parallel, run_layer
config = Qwen3Config(hidden_size=512, intermediate_size=1536, num_attention_heads=8,
                     num_key_value_heads=4, head_dim=64, rope_theta=1e6)
weights = LayerWeights.random(config, 2)
x = np.random.default_rng(72).standard_normal((70, 512))
assert parallel.workers() == 2 and parallel.shares(x, 1536) == 2  # the split path
on_main = run_layer(x, weights, config)
out = []
threads = [threading.Thread(target=lambda: out.append(run_layer(x, weights, config)))
           for _ in range(2)]
[t.start() for t in threads]
[t.join() for t in threads]
assert len(out) == 2
for trace in out:
    for a, b in zip(on_main.steps, trace.steps, strict=True):
        assert np.array_equal(a.array, b.array), a.name
assert parallel._blas.get_num_threads() == 2, parallel._blas.get_num_threads()
print("ok")
"""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "2"}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


#: Three kv heads over two threads: groups of unequal size (two kv heads, then one).
UNEVEN = Qwen3Config(hidden_size=48, intermediate_size=100, num_attention_heads=6,
                     num_key_value_heads=3, head_dim=16, rms_norm_eps=1e-6, rope_theta=1e4)


def count_meetings(monkeypatch) -> list[int]:
    """Each outer :func:`parallel.run` call's task count (nested calls run in their thread)."""
    meetings: list[int] = []
    run = parallel.run

    def counted(tasks):
        if not getattr(parallel._inside, "active", False):
            meetings.append(len(tasks))
        run(tasks)

    monkeypatch.setattr(parallel, "run", counted)
    return meetings


def test_the_split_layer_meets_its_threads_twice(split_everything, monkeypatch):
    # once for the attention sub-step (whole head groups), once for the MLP (whole columns):
    # every meeting waits for a sleeping thread to wake and for the slowest thread
    meetings = count_meetings(monkeypatch)
    trace = run_layer(embed(tokens(150), MEDIUM.hidden_size), LayerWeights.random(MEDIUM, seed=9),
                      MEDIUM)
    assert meetings == [2, 2]
    assert trace["attn_probs"].shape == (4, 150, 150)


@pytest.mark.parametrize("config", [MEDIUM, UNEVEN], ids=["even", "uneven"])
def test_head_groups_agree_with_one_thread_and_keep_causality(split_everything, config):
    weights = LayerWeights.random(config, seed=10)
    x = embed(tokens(90), config.hidden_size)
    assert [g.stop - g.start for g in fastpath.kv_groups(x, config)] == \
        ([1, 1] if config is MEDIUM else [1, 2])
    shared = run_layer(x, weights, config)
    parallel.set_workers(1)
    alone = run_layer(x, weights, config)
    parallel.set_workers(2)
    for a, b in zip(shared, alone, strict=True):  # o_proj, down_proj: sums of shares
        finite = np.isfinite(b.array)
        assert np.array_equal(finite, np.isfinite(a.array)), a.name
        scale = max(1.0, float(np.abs(b.array[finite]).max()))
        assert np.abs(a.array[finite] - b.array[finite]).max() <= 1e-13 * scale, a.name
    edited = run_layer(embed(tokens(90, "dog"), config.hidden_size), weights, config)
    report = compare_traces(shared, edited)
    assert report.first_changed == 89 and report.exact


def test_lens_sums_o_proj_as_the_split_layer_does(split_everything):
    from engine.lenses import qwen3_attention

    weights = LayerWeights.random(UNEVEN, seed=11)
    x = embed(tokens(60), UNEVEN.hidden_size)
    trace = run_layer(x, weights, UNEVEN)
    ours = qwen3_attention(x, weights, UNEVEN)
    assert np.array_equal(ours.output, trace["o_proj"])
    assert np.array_equal(ours.context, trace["attn_context"])


def test_a_task_that_shares_out_again_runs_its_tasks_itself(split_everything):
    # the pool's one thread is busy with the outer task: handing it more would wait forever
    seen: list[tuple[str, int]] = []

    def inner(label):
        return lambda: seen.append((label, threading.get_ident()))

    def outer(i):
        return lambda: parallel.run([inner(f"{i}a"), inner(f"{i}b")])

    done = threading.Event()

    def body():
        parallel.run([outer(0), outer(1)])
        done.set()

    threading.Thread(target=body, daemon=True).start()  # a deadlock fails here, not hangs
    assert done.wait(30), "a share that shared out again waited for the pool's busy thread"
    threads = dict(seen)
    assert sorted(threads) == ["0a", "0b", "1a", "1b"]
    assert threads["0a"] == threads["0b"] and threads["1a"] == threads["1b"]
    assert threads["0a"] != threads["1a"]  # the outer tasks did run in two threads


class Cancel(BaseException):
    """What the app raises in its worker thread to abandon a compute."""


def test_a_cancel_in_the_calling_thread_does_not_wait_for_the_other_shares(split_everything):
    # a share can be a whole attention sub-step (seconds at 2048 tokens): the caller used to
    # wait for the other thread's share, blocked where the app's cancel could not reach it, so
    # closing the window during a long compute left the worker running for seconds
    other_started, other_done, release = threading.Event(), threading.Event(), threading.Event()

    def other_share():
        other_started.set()
        release.wait(30)
        other_done.set()

    def own_share():
        other_started.wait(30)  # the other share is running when this thread is cancelled

    caller = threading.get_ident()

    waiting_when_cancelled = []

    def caller_waits_for_the_other_share():
        frame = sys._current_frames().get(caller)
        while frame is not None:
            if frame.f_code is parallel._wait.__code__:
                return True
            frame = frame.f_back
        return False

    def cancel_soon():
        other_started.wait(30)
        deadline = time.monotonic() + 30
        while not caller_waits_for_the_other_share() and time.monotonic() < deadline:
            time.sleep(0.001)  # (a fixed nap of 0.1 s cancelled a slow machine's caller early)
        waiting_when_cancelled.append(caller_waits_for_the_other_share())
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(caller),
                                                   ctypes.py_object(Cancel))

    canceller = threading.Thread(target=cancel_soon)
    canceller.start()
    try:
        with pytest.raises(Cancel):
            parallel.run([own_share, other_share])
        assert not other_done.is_set()  # raised while the other share still ran
        assert waiting_when_cancelled == [True]
    finally:
        release.set()
        canceller.join()
    assert other_done.wait(30)
    assert parallel._blas.get_num_threads() == parallel._saved_threads  # BLAS restored


def test_a_task_error_still_waits_for_the_other_shares(split_everything):
    other_done = threading.Event()

    def other_share():
        time.sleep(0.2)  # a fixed wait is the point: a share still running when the other fails
        other_done.set()

    def own_share():
        raise ValueError("bad share")

    with pytest.raises(ValueError, match="bad share"):
        parallel.run([own_share, other_share])
    assert other_done.is_set()


def test_configure_threads_is_the_apps_configuration():
    """The app and every benchmark run the engine through configure_threads: BLAS on one
    thread, APP_WORKERS engine threads (engine/parallel.py says why)."""
    before_workers = parallel.workers()
    before_blas = parallel._blas.get_num_threads()
    try:
        assert parallel.configure_threads() == parallel.APP_WORKERS == parallel.workers()
        assert parallel._blas.get_num_threads() == 1
        with parallel.single_threaded_blas():
            pass
        assert parallel._blas.get_num_threads() == 1  # what it restores
    finally:
        parallel._set_blas_threads(before_blas)
        parallel._saved_threads = before_blas
        parallel.set_workers(before_workers)


def test_a_forked_child_shares_out_products_again(split_everything):
    """A child forked after the pool has run (as mutmut forks each mutant from the process that
    ran the tests) gets its own pool: the inherited one has no threads, and the child's shared
    product would wait for them for ever."""
    x = np.arange(12.0).reshape(3, 4)
    w = np.arange(20.0).reshape(5, 4) / 7
    expected = x @ w.T
    assert np.array_equal(parallel.linear(x, w), expected)  # the parent's pool now exists
    assert parallel._pool is not None
    with warnings.catch_warnings():  # forking a threaded process: this is the case under test
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # the child: exit code 0 if the shared product is right, 1 if not
        code = 2
        try:
            code = 0 if np.array_equal(parallel.linear(x, w), expected) else 1
        finally:
            os._exit(code)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.02)
    else:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        pytest.fail("the forked child's shared product never finished (the parent's pool)")
    assert os.waitstatus_to_exitcode(status) == 0
