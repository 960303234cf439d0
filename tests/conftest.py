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
    Chinese glyphs then do not depend on the fonts this machine happens to have."""
    from app.fonts import install_app_font

    install_app_font(qapp)
    return qapp


@pytest.fixture(autouse=True)
def _settings_in_tmp(tmp_path, monkeypatch):
    """Layouts and sessions never touch the real user's config."""
    monkeypatch.setenv("DUALVIEW_CONFIG_DIR", str(tmp_path / "config"))


@pytest.fixture
def restore_view(qapp):
    """Put the app-wide view settings (language, theme, text size) back after a test."""
    yield
    from app import i18n, presentation, theme

    i18n.translations().apply("en")
    theme.apply_theme("light")
    presentation.apply_app_font(1.0)


@pytest.fixture
def make_window(qtbot):
    """Build a main window (async worker unless sync=True); closed and joined after the test."""
    import pyqtgraph as pg

    pg.setConfigOptions(imageAxisOrder="row-major", background="w", foreground="k")
    from app.bridge import EngineBridge
    from app.mainwindow import MainWindow

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
        window.close()
        window.bridge.shutdown()


def wait_for_text(qtbot, window, text, timeout=5000):
    """Wait until the window shows the result for ``text`` and every visible panel drew it."""
    qtbot.waitUntil(lambda: window.state.result is not None
                    and window.state.result.text == text
                    and window.all_panels_current(), timeout=timeout)
