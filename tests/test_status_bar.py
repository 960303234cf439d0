"""The status bar's compute time changes at every edit without laying the bar out again."""

from __future__ import annotations

import dataclasses

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QLabel


class _Watch(QObject):
    """Counts the status bar's layout requests and its labels' paints."""

    def __init__(self) -> None:
        super().__init__()
        self.layouts = 0
        self.painted: list[str] = []

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.LayoutRequest:
            self.layouts += 1
        elif event.type() == QEvent.Type.Paint:
            self.painted.append(watched.objectName() or type(watched).__name__)
        return False


def _show_time(window, result, ms: float) -> None:
    window.status.show_result(dataclasses.replace(result, compute_ms=ms))


def test_a_new_time_repaints_its_label_alone(make_window, qapp):
    """A time of another width ("9.8 ms", "10.2 ms") keeps the label's box once it has held
    the widest: no layout pass of the bar, which would repaint every label on it."""
    window = make_window(sync=True)
    status, bar = window.status, window.statusBar()
    result = window.state.result
    _show_time(window, result, 123.4)  # the widest text first
    qapp.processEvents()
    watch = _Watch()
    labels = [child for child in bar.findChildren(QLabel) if child.isVisible()]
    assert status.time in labels and len(labels) >= 3
    for widget in (bar, *labels):
        widget.installEventFilter(watch)
    for ms in (9.8, 10.2, 3.0, 45.6):
        _show_time(window, result, ms)
        qapp.processEvents()
    assert "45.6" in status.time.text()
    assert watch.layouts == 0
    # (the bar paints its background under the transparent label: the label's rectangle)
    assert set(watch.painted) <= {type(status.time).__name__, "QStatusBar"}, watch.painted
    assert watch.painted  # the time itself was drawn again


def test_the_time_label_grows_for_a_longer_text_and_starts_over_on_a_new_language_or_font(
        make_window, qapp):
    window = make_window(sync=True)
    time_label = window.status.time
    result = window.state.result
    short, short_text = time_label.width(), time_label.text()  # the window's own time
    _show_time(window, result, 123456.7)
    qapp.processEvents()
    wide = time_label.width()
    assert wide > short and wide >= time_label.sizeHint().width()
    _show_time(window, result, result.compute_ms)  # narrower again: the box is held
    qapp.processEvents()
    assert time_label.width() == wide
    # what a language switch calls: the result's own time again, the very text the label
    # holds, which QLabel takes as no change (CI once met this: the size hint stayed wide)
    window.status.retranslate()
    qapp.processEvents()
    assert time_label.text() == short_text
    assert time_label.width() == time_label.sizeHint().width() == short < wide
    font = time_label.font()
    font.setPointSizeF(font.pointSizeF() * 2)
    time_label.setFont(font)  # (the app's text size)
    qapp.processEvents()
    assert time_label.height() >= time_label.sizeHint().height()
    assert time_label.width() >= time_label.sizeHint().width()


def test_the_time_label_shrinks_when_the_text_it_holds_is_set_again_after_let_shrink(qapp):
    """A language switch words the very text the label shows again; QLabel takes an equal
    text as no change and kept the size hint it computed while held wide."""
    from app.widgets.growing_label import GrowingLabel

    label = GrowingLabel()
    label.setText("computed in 12345.6 ms")
    wide = label.width()
    label.setText("computed in 1.2 ms")
    assert label.width() == wide  # held
    label.let_shrink()
    label.setText("computed in 1.2 ms")
    assert label.width() < wide
    fresh = GrowingLabel()
    fresh.setText("computed in 1.2 ms")
    assert label.size() == fresh.size()
