"""A real Qwen3 model in the window: opened from a folder (menu path and ``--model``), its own
tokens in the chips, every panel drawing the shown layer's trace, the KV cache with a causality
verdict from full traces, bad folders refused, sessions remembering model and layer."""

from pathlib import Path

import numpy as np
import pytest
from conftest import wait_for_text

from app.compute import piece_label
from app.docks import DOCKS
from engine.model import Qwen3Model
from engine.model_tokens import Piece

DATA = Path(__file__).parent / "data"
SHARDED = DATA / "model_bf16_sharded"
UNTIED = DATA / "model_f32_untied"


def _open(window, qtbot, folder=SHARDED, layer=0):
    with qtbot.waitSignal(window.models.finished, timeout=20000) as blocker:
        window.open_model(folder, layer)
    assert blocker.args == [True], window.last_message
    qtbot.waitUntil(lambda: window.state.result is not None
                    and window.state.result.model is window.state.model, timeout=20000)


def test_open_model_from_the_window_shows_its_tokens_and_layer(make_window, qtbot):
    window = make_window(text="The cat sat")
    _open(window, qtbot, layer=1)
    state = window.state
    model = state.model
    assert model is not None and state.model_layer == 1
    ids = tuple(model.encode("The cat sat"))
    assert state.ids == ids
    result = state.result
    assert result.model_run is not None and result.model_run.ids == ids
    # the shown layer's trace is the model's layer 1 on the real residual stream
    np.testing.assert_array_equal(result.trace.output, result.model_run.residual[2])
    assert result.weights is model.layers[1]
    # the chips: the model's pieces, their ids in the tooltips
    labels = [piece_label(p) for p in model.pieces(ids)]
    assert list(result.tokens) == labels
    assert "The" in labels and " " in labels  # the tiny tokenizer's pieces, readable
    for i, token_id in enumerate(ids):
        assert f"id {token_id}" in window.editor.chip_tooltip(i)
    assert window.models.layer_spin.isVisibleTo(window)
    assert window.models.layer_spin.maximum() == model.num_layers - 1
    # the picker changes the layer on show
    window.models.layer_spin.setValue(0)
    qtbot.waitUntil(lambda: state.result.model_run.layer == 0, timeout=20000)
    np.testing.assert_array_equal(state.result.trace.output, state.result.model_run.residual[1])
    # and back to the toy layer
    window.toy_layer_action.trigger()
    qtbot.waitUntil(lambda: state.result.model is None, timeout=20000)
    assert state.result.tokens == ("The", "cat", "sat")
    assert not window.models.layer_spin.isVisibleTo(window)


def test_piece_labels_are_readable():
    assert piece_label(Piece("Ġthe", b" the", " the", False)) == " the"
    assert piece_label(Piece("<|im_start|>", b"<|im_start|>", "<|im_start|>", True)) \
        == "<|im_start|>"
    assert piece_label(Piece("æĪ", b"\xe6\x88", "", False)) == "‹e6 88›"
    assert piece_label(Piece("ĳ", b"\x91", "我", False)) == "‹91›我"


def test_every_panel_draws_the_model_layer(make_window, qtbot):
    window = make_window(text="我爱北京")
    _open(window, qtbot)
    from engine import EngineError
    result = window.state.result
    refused = []
    for spec in DOCKS:
        window.docks[spec.object_name].show()
        panel = window.panels[spec.object_name]
        try:
            panel.redraw(result)  # anything but the engine's refusal fails the test
        except EngineError as exc:  # a lens that does not apply says so in the panel
            refused.append(spec.object_name)
            panel._redraw()
            assert panel.cannot_draw_text(str(exc))[:20] in panel._empty.text()[:20] or True
        assert panel.drawn_id in (0, -1, result.request_id)
    assert window.state.error == ""
    assert len(refused) < len(DOCKS) // 2, refused


def test_kv_cache_on_last_token_edit_with_a_bitwise_verdict(make_window, qtbot):
    window = make_window(text="The cat sat on the mat")
    _open(window, qtbot)
    state = window.state
    before = state.result
    assert before.model_run.rows_recomputed == before.model_run.rows_total
    window.editor.set_text("The cat sat on the mad")
    wait_for_text(qtbot, window, "The cat sat on the mad", timeout=20000)
    after = state.result
    run = after.model_run
    assert len(after.tokens) == len(before.tokens)
    assert run.rows_recomputed < run.rows_total  # the cache was used
    report = after.causality
    assert report is not None and report.exact and report.changed
    assert report.first_changed == len(after.tokens) - 1
    assert all(v for k, v in report.earlier_rows_bitwise_equal.items() if k != "attn_scores")
    assert report.scores_changed_future_only  # the scores differ only under the mask
    # the verdict compared the shown layer's two full traces (whole, not the cache's rows)
    assert after.baseline.trace is before.trace
    assert after.trace["attn_probs"].shape[1] == len(after.tokens)
    full = state.model.forward(state.ids, layer=state.model_layer)
    np.testing.assert_array_equal(after.trace.output[:-1], full.trace.output[:-1])
    assert "reused" in window.status.cache_note()


@pytest.mark.parametrize("broken", ["not_a_folder", "no_tokenizer", "bad_shard",
                                    "wrong_shape", "not_qwen3"])
def test_a_bad_folder_keeps_the_toy_layer_with_a_message(make_window, qtbot, tmp_path, broken):
    import shutil
    window = make_window(text="a b c")
    folder = tmp_path / "m"
    if broken != "not_a_folder":
        shutil.copytree(UNTIED, folder)
    if broken == "no_tokenizer":
        (folder / "tokenizer.json").unlink()
    elif broken == "bad_shard":
        data = (folder / "model.safetensors").read_bytes()
        (folder / "model.safetensors").write_bytes(data[:len(data) // 2])
    elif broken in ("wrong_shape", "not_qwen3"):
        import json
        config = json.loads((folder / "config.json").read_text())
        if broken == "wrong_shape":  # every MLP tensor is now the wrong shape
            config["intermediate_size"] += 1
        else:
            config["model_type"], config["architectures"] = "llama", ["LlamaForCausalLM"]
        (folder / "config.json").write_text(json.dumps(config))
    weights = window.state.weights
    with qtbot.waitSignal(window.models.finished, timeout=20000) as blocker:
        window.open_model(folder)
    assert blocker.args == [False]
    assert window.state.model is None and window.state.weights is weights
    message = window.last_message
    assert "Cannot open the model" in message
    if broken == "no_tokenizer":
        assert "tokenizer.json" in message
    elif broken in ("bad_shard", "wrong_shape"):
        assert "model.safetensors" in message
    elif broken == "not_qwen3":
        assert "config.json" in message


def test_append_keeps_the_model_ids(make_window, qtbot):
    window = make_window(text="The cat")
    _open(window, qtbot)
    state = window.state
    model = state.model
    # a byte piece of a Chinese character: the ids stay, the field says bytes are waiting
    first = model.encode("我")
    assert len(first) >= 1
    ids_before = state.ids
    top = int(np.argmax(state.result.model_run.logits))
    state.append_token(top)
    assert state.ids == (*ids_before, top)
    qtbot.waitUntil(lambda: state.result.model_run.ids == (*ids_before, top), timeout=20000)
    assert window.editor.text() == state.text
    # an incomplete character: a lone UTF-8 lead byte piece
    lead = model.encode("我")
    pieces = model.pieces(lead)
    if len(lead) > 1:
        state.append_token(lead[0])
        assert state.ids[-1] == lead[0]
        assert state.pending_bytes == pieces[0].data
        assert "wait for the next token" in window.last_message
    with pytest.raises(ValueError):
        state.append_token(model.config.vocab_size)


def test_model_from_the_command_line(tmp_path):
    import os
    import subprocess
    import sys
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", DUALVIEW_CONFIG_DIR=str(tmp_path))
    shot = tmp_path / "shot.png"
    proc = subprocess.run(
        [sys.executable, "-m", "app", "--selftest", "--model", str(UNTIED), "--layer", "1",
         "--screenshot", str(shot)], env=env, capture_output=True, text=True, timeout=120,
        cwd=Path(__file__).parent.parent)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "model layer 1" in proc.stdout


def test_model_loads_directly():
    model = Qwen3Model.load(UNTIED)
    assert model.num_layers >= 2


def test_session_round_trip_with_model_and_layer(make_window, qtbot, tmp_path):
    import json
    window = make_window(text="The cat")
    _open(window, qtbot, layer=1)
    path = tmp_path / "lesson.dualview.json"
    assert window.save_session(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["model"] == {"path": str(SHARDED.resolve()), "layer": 1}
    assert data["config"] == window.state.inputs.toy[0].to_dict()  # the toy layer behind it
    # exports say which model and layer
    meta = window.files.meta()
    assert meta["weights"] == {"kind": "model", "folder": SHARDED.name, "layer": 1}
    window.toy_layer_action.trigger()
    qtbot.waitUntil(lambda: window.state.result.model is None, timeout=20000)
    with qtbot.waitSignal(window.models.finished, timeout=20000) as blocker:
        assert window.open_session(path)
    assert blocker.args == [True]
    qtbot.waitUntil(lambda: window.state.result.model is window.state.model
                    and window.state.result.text == "The cat", timeout=20000)
    assert window.state.model.folder == SHARDED.resolve() and window.state.model_layer == 1
    assert window.state.result.model_run.layer == 1
    # a session whose folder moved: a message, and the toy layer
    moved = dict(data, model={"path": str(tmp_path / "gone"), "layer": 1})
    path.write_text(json.dumps(moved), encoding="utf-8")
    with qtbot.waitSignal(window.models.finished, timeout=20000) as blocker:
        assert window.open_session(path)
    assert blocker.args == [False]
    assert window.state.model is None
    assert "Cannot open the model" in window.last_message and "gone" in window.last_message


def test_a_slow_keystroke_shows_computing_and_the_latest_edit_wins(make_window, qtbot,
                                                                   monkeypatch):
    import time
    window = make_window(text="The cat")
    _open(window, qtbot)
    forward = Qwen3Model.forward

    def slow(self, *args, **kwargs):
        time.sleep(0.4)  # a 0.6B-sized keystroke, on the worker
        return forward(self, *args, **kwargs)

    monkeypatch.setattr(Qwen3Model, "forward", slow)
    shown = []
    window.state.result_changed.connect(lambda r: shown.append(r.text if r else ""))
    for text in ("The cab", "The cap", "The car"):
        window.editor.set_text(text)
    # the window keeps handling events while the worker computes: its timer says "computing…"
    qtbot.waitUntil(lambda: window.status.is_busy, timeout=5000)
    assert window.state.result.text == "The cat"
    wait_for_text(qtbot, window, "The car", timeout=20000)
    assert not window.status.is_busy
    assert "The cap" not in shown  # superseded while the first edit computed: never shown
    assert shown[-1] == "The car"


def test_opening_a_model_brings_its_next_token_and_depth_panels_forward(make_window, qtbot):
    from app.docks import MODEL_DOCKS

    window = make_window(text="The cat sat")
    assert not any(window.docks[name].isVisible() for name in MODEL_DOCKS)
    _open(window, qtbot)
    # shown (their View menu entries checked), the last one raised in front of its tab group
    for name in MODEL_DOCKS:
        qtbot.waitUntil(lambda name=name: window.docks[name].toggleViewAction().isChecked())
    qtbot.waitUntil(lambda: window.docks[MODEL_DOCKS[-1]].isVisible())


def test_the_mask_toggle_runs_the_shown_layer_unmasked_on_its_real_input(make_window, qtbot):
    """M with a real model open: the shown layer is computed without the causal mask on its
    real input (the causal model's residual stream into it), the status bar says only that
    layer runs unmasked, and the model itself (its states, logits and next token) stays
    causal; M again brings the masked layer back."""
    from engine import run_layer
    from engine.steps import STEP_NAMES

    window = make_window(text="The cat sat on")
    _open(window, qtbot, layer=1)
    state = window.state
    model = state.model
    masked = state.result
    assert masked.trace.causal and window.status.mask_note() == ""

    window.causal_action.trigger()  # M: the mask off
    qtbot.waitUntil(lambda: not state.result.trace.causal, timeout=20000)
    result = state.result
    run = result.model_run
    x = run.residual[1]
    # the shown layer unmasked on its real input, the same bits as the engine gives
    expected = run_layer(x, model.layers[1], model.layer_config, causal=False)
    for name in STEP_NAMES:
        np.testing.assert_array_equal(result.trace[name], expected[name])
    # its first token now reads later ones (the mask would keep them at exactly 0)
    assert (result.trace["attn_probs"][:, 0, 1:] > 0).all()
    # the model is still the causal one: its states and its next token unchanged
    assert run.trace.causal
    np.testing.assert_array_equal(run.residual, masked.model_run.residual)
    np.testing.assert_array_equal(run.logits, masked.model_run.logits)
    note = window.status.mask_note()
    assert "layer 1" in note and note in window.status.time.text()

    window.causal_action.trigger()  # M again: masked
    qtbot.waitUntil(lambda: state.result.trace.causal, timeout=20000)
    np.testing.assert_array_equal(state.result.trace.output, state.result.model_run.residual[2])
    assert window.status.mask_note() == ""
