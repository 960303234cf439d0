"""The Through the depth panel on a real forward of the tiny Qwen3 checkpoints: ‖u‖ of every
token after each layer, the logit lens's rows as the engine computes them, the shown layer
marked, and without a model a note saying how to open one."""

from pathlib import Path

import numpy as np
import pytest

from app.bridge import EngineBridge
from app.compute import Result
from app.panels.through_depth import LENS_TOP, ThroughDepthPanel
from app.state import AppState
from app.widgets.piece_text import shown_pieces
from engine import ops
from engine.logit_lens import logit_lens
from engine.model import Qwen3Model

DATA = Path(__file__).parent / "data"
TEXT = "我爱北京 the cat"


@pytest.fixture(scope="module")
def tiny():
    return Qwen3Model.load(DATA / "model_bf16_sharded")


def model_result(model, text=TEXT, request_id=1, layer=1):
    ids = model.encode(text)
    run = model.forward(ids, layer=layer)
    tokens = tuple(p.text or p.raw for p in model.pieces(ids))
    return Result(request_id=request_id, text=text, tokens=tokens, trace=run.trace,
                  model_run=run, model=model)


def deliver(state, result):
    state.results.pending_id = result.request_id
    state._on_result_ready(result)


@pytest.fixture
def widget(qtbot):
    panel = ThroughDepthPanel(AppState(EngineBridge(sync=True)))
    qtbot.addWidget(panel)
    panel.resize(900, 700)
    panel.show()
    qtbot.waitExposed(panel)
    return panel


def test_the_norms_are_every_tokens_norm_in_every_state(widget, tiny):
    result = model_result(tiny)
    deliver(widget.state, result)
    residual = result.model_run.residual
    assert widget.view.data.shape == (tiny.num_layers + 1, len(result.tokens))
    for s in range(tiny.num_layers + 1):
        for t in range(len(result.tokens)):
            assert abs(widget.norms[s, t] - np.linalg.norm(residual[s, t])) <= 1e-12
    assert widget.view.row_labels[0] == "embed"


def test_the_logit_lens_rows_are_the_engines_and_drawn(widget, tiny):
    result = model_result(tiny)
    deliver(widget.state, result)
    run = result.model_run
    lens = logit_lens(tiny, run, top=LENS_TOP)
    assert np.array_equal(widget.lens.ids, lens.ids)
    assert np.array_equal(widget.lens.probs, lens.probs)
    # the last row is the model's own prediction; an early row is read from its own state
    assert widget.lens.ids[-1, 0] == int(np.argmax(run.logits))
    x = run.residual[0, -1]
    first = tiny.lm_head(ops.rms_norm(x[None], tiny.norm_weight,
                                      tiny.layer_config.rms_norm_eps)[0])
    assert widget.lens.ids[0, 0] == int(np.argmax(first))
    table = widget.table
    assert table.rowCount() == tiny.num_layers + 1
    for s in range(tiny.num_layers + 1):
        for c in range(LENS_TOP):
            token_id = int(lens.ids[s, c])
            (piece,) = shown_pieces(tiny, [token_id])
            assert table.item(s, c).text().startswith(piece.text)
            assert f"id {token_id} " in table.item(s, c).toolTip()
        assert table.item(s, LENS_TOP).toolTip() == f"p = {lens.final_prob[s]:.12g}"


def test_the_shown_layer_is_marked(widget, tiny, qtbot):
    for layer in (0, 2):
        deliver(widget.state, model_result(tiny, layer=layer, request_id=layer + 1))
        assert widget.shown_layer == layer
        labels = widget.view.row_labels
        assert [i for i, label in enumerate(labels) if label.startswith("▶")] == [layer + 1]
        assert widget.mark.isVisible() and widget.mark.rect().top() == layer + 1
        headers = [widget.table.verticalHeaderItem(s).text()
                   for s in range(widget.table.rowCount())]
        assert [i for i, h in enumerate(headers) if h.startswith("▶")] == [layer + 1]
        tinted = [s for s in range(widget.table.rowCount())
                  if widget.table.item(s, LENS_TOP).background().color().alpha() > 0]
        assert tinted == [layer + 1]


def test_the_badges_say_exact_numbers_and_an_interpretive_reading(widget, tiny):
    deliver(widget.state, model_result(tiny))
    assert [b.kind for b in widget.header.badges] == ["EXACT"]
    assert widget.note_badge.kind == "ANALOGY"
    assert "interpretation" in widget.caveat.text()


def test_without_a_model_the_panel_says_how_to_open_one(widget, tiny):
    run_free = model_result(tiny)
    deliver(widget.state, Result(request_id=1, text=run_free.text, tokens=run_free.tokens,
                                 trace=run_free.trace))
    assert widget.pages.currentIndex() == 0 and widget.note.isVisible()
    assert "Open a model" in widget.note.text()
    assert widget.lens is None
    deliver(widget.state, model_result(tiny, request_id=2))
    assert widget.pages.currentIndex() == 1 and widget.lens is not None


def test_a_large_models_logit_lens_runs_on_the_worker_and_the_newest_wins(widget, tiny, qtbot,
                                                                         monkeypatch):
    import app.panels.through_depth as module

    monkeypatch.setattr(module, "SYNC_WORK", 0)  # every model counts as large
    first = model_result(tiny, request_id=1)
    deliver(widget.state, first)
    second = model_result(tiny, TEXT + " a", request_id=2)
    deliver(widget.state, second)
    assert widget.worker_lenses == 2
    # meanwhile (no event processed yet): the norms are drawn, the table says it computes
    assert widget.lens is None and "computing" in widget.lens_title.text()
    assert widget.view.data.shape[1] == len(second.tokens)
    qtbot.waitUntil(lambda: widget.lens is not None, timeout=10000)
    # the lens drawn is the current run's, never the first one's arriving late
    expected = logit_lens(tiny, second.model_run, top=LENS_TOP)
    assert np.array_equal(widget.lens.ids, expected.ids)
    assert np.array_equal(widget.lens.probs, expected.probs)
    qtbot.wait(200)
    assert np.array_equal(widget.lens.ids, expected.ids)
    assert widget.table.rowCount() == tiny.num_layers + 1
    assert "computing" not in widget.lens_title.text()
    # a lens of the older run arriving late (as the worker delivers it) is dropped
    stale = logit_lens(tiny, first.model_run, top=LENS_TOP)
    assert not np.array_equal(stale.probs, expected.probs)
    widget._lens_ready.emit((tiny, first.model_run), stale)
    qtbot.wait(50)
    assert np.array_equal(widget.lens.probs, expected.probs)


class _DeletedSignal:
    """Stands in for the panel's ``_lens_ready`` as PySide presented it once the panel was
    gone (model_gui_bench at exit): emitting raised a TypeError in the worker thread."""

    def __init__(self) -> None:
        self.emitted = 0

    def connect(self, _slot) -> None:
        pass

    def emit(self, *args) -> None:
        self.emitted += 1
        raise TypeError(f"only accepts 0 argument(s), {len(args)} given!")


def test_a_lens_finishing_after_the_panel_is_gone_is_dropped_quietly(tiny, qtbot, monkeypatch):
    """The lens worker may finish after its panel was deleted (the window closing while a
    large model's lens runs): its result is dropped without an emit, and the worker thread
    raises nothing."""
    import threading

    import shiboken6

    import app.panels.through_depth as module

    monkeypatch.setattr(module, "SYNC_WORK", 0)  # every model counts as large
    started, release = threading.Event(), threading.Event()

    class GatedWorker(module.LatestWinsWorker):
        """The panel's worker, holding each request until the test releases it."""

        def __init__(self, work, name="dualview-test"):
            def gated(request):
                started.set()
                release.wait(10)
                work(request)

            super().__init__(gated, name)

    monkeypatch.setattr(module, "LatestWinsWorker", GatedWorker)
    signal = _DeletedSignal()
    monkeypatch.setattr(module.ThroughDepthPanel, "_lens_ready", signal)
    errors = []
    monkeypatch.setattr(threading, "excepthook", errors.append)
    panel = ThroughDepthPanel(AppState(EngineBridge(sync=True)))
    panel.resize(900, 700)
    panel.show()
    qtbot.waitExposed(panel)
    deliver(panel.state, model_result(tiny))
    worker = panel._worker
    assert worker is not None and started.wait(10)
    shiboken6.delete(panel)  # the panel goes while its lens runs
    release.set()
    worker.join(10)
    assert not worker.alive()
    assert [f"{e.exc_type.__name__}: {e.exc_value}" for e in errors] == []
    assert signal.emitted == 0
