"""Test configuration: Qt runs offscreen with the app's bundled fonts; settings go to a
temporary folder."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

import pytest

from app.pgimport import import_pyqtgraph

import_pyqtgraph()  # as the app does (lazy Qt mirrors): every test runs with what ships


@pytest.fixture(scope="session")
def qapp(qapp):
    """pytest-qt's QApplication with the fonts the app bundles installed as the app installs
    them (app/__main__.py's build_app), before any test makes a widget: text metrics and
    Chinese glyphs then do not depend on the fonts this machine happens to have.

    Cyclic garbage is collected on the main thread's timer only, as in the app
    (app/collector.py), from the first widget on. With automatic collection on, a collection
    that started inside a Qt call froze the suite: a PySide object's Python override lookup in
    ``QObject::disconnect`` (pyqtgraph moving an item to a new view) allocated, the collector
    ran there and freed a closed window's QObject, whose destructor waited for the signal lock
    that ``disconnect`` held. The app turns automatic collection off at start; the tests did
    only once some test made an asynchronous engine bridge."""
    from app.collector import collect_on_main_thread
    from app.fonts import install_app_font

    install_app_font(qapp)
    collect_on_main_thread()
    return qapp


@pytest.fixture(autouse=True)
def _settings_in_tmp(tmp_path, monkeypatch):
    """Layouts and sessions never touch the real user's config."""
    monkeypatch.setenv("DUALVIEW_CONFIG_DIR", str(tmp_path / "config"))


def _reset_view() -> None:
    from PySide6.QtCore import QCoreApplication, QEvent

    from app import i18n, presentation, theme

    if i18n.translations().language != "en":
        i18n.translations().apply("en")
        # removing the translator posts LanguageChange to every window: delivered now, not
        # in the next test's first wait
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LanguageChange)
    theme.apply_theme("light")  # (nothing to do when it is light)
    presentation.apply_app_font(1.0)  # (nothing to do when the font is the base one)


def _delete_closed_widgets() -> None:
    """Delete now the widgets this test closed. pytest-qt closes every widget of
    ``qtbot.addWidget`` and calls deleteLater() outside any event loop, and Qt runs such a
    deletion only inside a later event loop: a test whose waits never ran one (a sync window,
    a condition already true) left its window alive, hidden, with its ~900 widgets, and the
    first later test that waited for something deleted all of them (20 and more windows of
    earlier tests) in its own timed wait. Until then every hidden window also took each
    app-wide change (language, style, text size) of the tests between."""
    from PySide6.QtCore import QCoreApplication, QEvent

    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


@pytest.fixture(autouse=True)
def _app_wide_view_reset():
    """After every test that made the QApplication: its closed widgets deleted, then English,
    light theme, normal text size. These are app-wide (the translator, the style, the
    application font): a test that left Chinese on made the next one's window Chinese, so the
    suite passed in one order only. (Autouse: torn down after the test's own fixtures, so
    the windows of ``make_window`` are gone before the reset restyles what is left.)"""
    yield
    from PySide6.QtWidgets import QApplication

    if QApplication.instance() is not None:
        _delete_closed_widgets()
        _reset_view()
        from app.collector import collect_on_main_thread

        # between tests, outside any Qt call: a safe point to collect, and automatic collection
        # off again if a test turned it on
        collect_on_main_thread().collect_due()


@pytest.fixture
def restore_view(qapp):
    """Kept for the tests that ask for it by name: every test gets the app-wide view
    (language, theme, text size) put back by _app_wide_view_reset, after its windows are
    deleted (a reset here ran first and restyled the closed windows too)."""
    return None


@pytest.fixture
def shown_heatmap(qtbot):
    """Make a HeatmapView of a given size, shown and exposed (closed after the test)."""
    from app.widgets.heatmap import HeatmapView

    def make(width: int, height: int) -> HeatmapView:
        view = HeatmapView()
        qtbot.addWidget(view)
        view.resize(width, height)
        view.show()
        qtbot.waitExposed(view)
        return view

    return make


@pytest.fixture
def make_window(qtbot):
    """Build a main window (async worker unless sync=True); closed and joined after the test."""
    import pyqtgraph as pg

    pg.setConfigOptions(imageAxisOrder="row-major", background="w", foreground="k")
    from PySide6.QtWidgets import QApplication

    from app.bridge import EngineBridge
    from app.mainwindow import MainWindow

    # every earlier test's windows are deleted by now (see _delete_closed_widgets): left
    # alive, they made this test's waits slower the more of them there were
    left = [w.windowTitle() for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow)]
    assert left == [], f"{len(left)} windows of earlier tests are still alive"
    windows = []

    def make(*, sync: bool = False, text: str | None = "我爱北京天安门", **kwargs):
        window = MainWindow(bridge=EngineBridge(sync=sync), initial_text=None, **kwargs)
        qtbot.addWidget(window)
        window.show()
        qtbot.waitExposed(window)
        windows.append(window)
        if text is not None:
            window.editor.set_text(text)
            wait_for_text(qtbot, window, text)
        return window

    yield make
    for window in windows:
        # closed, its worker stopped, and deleted now (graphics views first, as the app does
        # at quit): see _delete_closed_widgets for what a window left to deleteLater cost
        window.dispose()


def wait_for_text(qtbot, window, text, timeout=5000):
    """Wait until the window shows the result for ``text`` and every visible panel drew it."""
    qtbot.waitUntil(lambda: window.state.result is not None
                    and window.state.result.text == text
                    and window.all_panels_current(), timeout=timeout)


def wait_stable(qtbot, probe, timeout=10_000):
    """Wait until ``probe()`` gives the same value twice in a row with the event queue run in
    between (a layout or a view's range has settled); return that value. For a position to
    click at: a fixed wait passed on a fast machine and clicked beside the target on a slow one.
    """
    last = [object()]

    def settled():
        value = probe()
        same = value == last[0]
        last[0] = value
        return same

    qtbot.waitUntil(settled, timeout=timeout)
    return last[0]


def wait_idle(qtbot, window, timeout=10_000):
    """Wait until the window's engine worker has nothing left to compute, then deliver what it
    sent: any result still in flight (a stale one, a pending tour sentence's) has arrived."""
    from PySide6.QtCore import QCoreApplication

    worker = window.bridge._worker
    if worker is not None:
        qtbot.waitUntil(worker.idle, timeout=timeout)
    QCoreApplication.processEvents()  # the worker's signals are queued to this thread


# ----- a real model's results for the model panels (Next token, Through the depth) -----
TINY_MODEL = os.path.join(os.path.dirname(__file__), "data", "model_bf16_sharded")
MODEL_TEXT = "我爱北京 the cat"


@pytest.fixture(scope="session")
def tiny():
    """The tiny bf16 sharded Qwen3 checkpoint (3 layers, tests/data), loaded once."""
    from engine.model import Qwen3Model

    return Qwen3Model.load(TINY_MODEL)


def model_result(model, text=MODEL_TEXT, request_id=1, layer=1, intervention=None,
                 intervene_layers=None):
    """A Result as the app makes one with a model open: the run's shown-layer trace and the
    run and model themselves; with an ``intervention``, the intervened run from the plain
    one (``model_plain``), as app.compute.model_runs makes them."""
    from app.compute import Result

    ids = model.encode(text)
    run = plain = model.forward(ids, layer=layer)
    if intervention is not None:
        run = model.forward(ids, layer=layer, intervention=intervention,
                            intervene_layers=intervene_layers, base=plain)
    tokens = tuple(p.text or p.raw for p in model.pieces(ids))
    return Result(request_id=request_id, text=text, tokens=tokens, trace=run.trace,
                  model_run=run, model=model,
                  model_plain=plain if intervention is not None else None)


def deliver(state, result):
    """Through the state's one accepting path, as a worker's result arrives."""
    state.results.pending_id = result.request_id
    state._on_result_ready(result)
