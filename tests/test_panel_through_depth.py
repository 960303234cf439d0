"""The Through the depth panel on a real forward of the tiny Qwen3 checkpoints: ‖u‖ of every
token after each layer, the logit lens's rows as the engine computes them, the shown layer
marked, and without a model a note saying how to open one."""

import numpy as np
import pytest
from conftest import MODEL_TEXT as TEXT
from conftest import deliver, model_result

from app.bridge import EngineBridge
from app.compute import Result
from app.panels.through_depth import LENS_TOP, ThroughDepthPanel, lens_shift, same_states
from app.state import AppState
from app.widgets.piece_text import shown_pieces
from engine import ops
from engine.logit_lens import logit_lens


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


# ----- with an intervention: the shift at every depth -----
def _softmax(z):
    p = np.exp(z - z.max())
    return p / p.sum()


def test_the_lens_shift_is_the_plain_top_token_before_and_after(tiny):
    from engine import Intervention

    result = model_result(tiny, intervention=Intervention(zero_heads=(0, 3)))
    plain = logit_lens(tiny, result.model_plain, top=LENS_TOP)
    lens = logit_lens(tiny, result.model_run, top=LENS_TOP)
    top, before, after = lens_shift(plain, lens)
    for s in range(tiny.num_layers + 1):
        p_plain, p_iv = _softmax(plain.logits[s]), _softmax(lens.logits[s])
        assert top[s] == int(np.argmax(p_plain))
        assert abs(before[s] - p_plain[top[s]]) <= 1e-15
        assert abs(after[s] - p_iv[top[s]]) <= 1e-15
    # states 0 .. 1 (the embeddings, layer 0's output) are the plain run's bits
    assert same_states(result.model_plain, result.model_run) == 2


def test_with_an_intervention_the_lens_shows_both_runs_at_every_depth(widget, tiny):
    from engine import Intervention

    result = model_result(tiny, layer=2, intervention=Intervention(zero_neurons=(40,)))
    deliver(widget.state, result)
    plain, run = result.model_plain, result.model_run
    lens, plain_lens = (logit_lens(tiny, r, top=LENS_TOP) for r in (run, plain))
    assert np.array_equal(widget.lens.probs, lens.probs)
    assert np.array_equal(widget.plain_lens.probs, plain_lens.probs)
    table = widget.table
    assert table.columnCount() == 5 and table.rowCount() == tiny.num_layers + 1
    top, before, after = lens_shift(plain_lens, lens)
    for s in range(tiny.num_layers + 1):
        (p_top,) = shown_pieces(tiny, [int(top[s])])
        (i_top,) = shown_pieces(tiny, [int(lens.ids[s, 0])])
        assert table.item(s, 0).text().startswith(p_top.text + "  ")
        assert table.item(s, 1).text().startswith(i_top.text + "  ")
        assert f"p = {before[s]:.12g} → {after[s]:.12g}" in table.item(s, 2).toolTip()
        # the last token's ‖u‖ in each run
        assert f"{np.linalg.norm(plain.residual[s, -1]):.12g}" in table.item(s, 3).toolTip()
        assert f"{np.linalg.norm(run.residual[s, -1]):.12g}" in table.item(s, 4).toolTip()
    # the intervention acts in layer 2: the embeddings and layers 0, 1 are the same bits
    assert widget.same == 3
    for s in range(tiny.num_layers + 1):
        same = "The same bits in both runs" in table.item(s, 0).toolTip()
        assert same == (s < 3)
        assert table.item(s, 3).text() == table.item(s, 4).text() or s >= 3
    assert table.item(3, 3).text() != table.item(3, 4).text()
    note = widget.shift_note.text()
    assert widget.shift_note.isVisible() and "layer 1" in note and "layer 2 on" in note
    assert "intervened" in widget.view.plot.titleLabel.text
    # the plain model again: the lens of one run, its own columns
    deliver(widget.state, model_result(tiny, request_id=2))
    assert table.columnCount() == LENS_TOP + 1 and widget.plain_lens is None
    assert not widget.shift_note.isVisible()
    assert "intervened" not in widget.view.plot.titleLabel.text


def test_switching_an_intervention_on_and_off_computes_no_lens_twice(widget, tiny,
                                                                     monkeypatch):
    import app.panels.through_depth as module
    from engine import Intervention

    calls = []
    real = module.logit_lens
    monkeypatch.setattr(module, "logit_lens", lambda m, r, top: calls.append(r) or real(
        m, r, top=top))
    plain = model_result(tiny)
    deliver(widget.state, plain)
    assert calls == [plain.model_run]
    ids = plain.model_run.ids
    run = tiny.forward(ids, layer=1, intervention=Intervention(zero_heads=(1,)),
                       base=plain.model_run)
    on = Result(request_id=2, text=plain.text, tokens=plain.tokens, trace=run.trace,
                model_run=run, model=tiny, model_plain=plain.model_run)
    deliver(widget.state, on)
    assert calls == [plain.model_run, run]  # the plain run's lens was known
    off = Result(request_id=3, text=plain.text, tokens=plain.tokens,
                 trace=plain.model_run.trace, model_run=plain.model_run, model=tiny)
    deliver(widget.state, off)
    assert len(calls) == 2 and widget.plain_lens is None


def test_a_large_models_two_lenses_come_from_the_worker(widget, tiny, qtbot, monkeypatch):
    import app.panels.through_depth as module
    from engine import Intervention

    monkeypatch.setattr(module, "SYNC_WORK", 0)
    result = model_result(tiny, intervention=Intervention(skip=("mlp",)),
                          intervene_layers="all")
    deliver(widget.state, result)
    assert widget.worker_lenses == 1 and widget.lens is None
    assert "computing" in widget.lens_title.text()
    qtbot.waitUntil(lambda: widget.plain_lens is not None, timeout=10000)
    for lens, run in ((widget.lens, result.model_run), (widget.plain_lens, result.model_plain)):
        assert np.array_equal(lens.probs, logit_lens(tiny, run, top=LENS_TOP).probs)
    assert widget.table.columnCount() == 5 and widget.same == 1
    assert "Only the embeddings" in widget.shift_note.text()


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
