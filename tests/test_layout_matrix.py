"""Every visible text of the window fits, at projector and laptop sizes, in both languages,
with and without presentation mode and the tour: one test over the whole matrix (5 sizes × 2
languages × presentation on/off × tour on/off = 40 cases), one window resized between them.

A case fails on any visible text cut off or overlapped: a one-line label, button, check box or
tab title narrower than its text (or elided where the text had no "…"), a wrapping label
shorter than its text needs at its width, text running past the edge of what shows it, two
labels or buttons of one parent on top of each other, a dock's title cut, a plot axis title
longer than its axis, a status-bar message cut, a plot squeezed to a sliver, or a horizontal
scroll bar in any panel. Every panel is checked: a dock behind a tab (the window's automatic
layout stacks columns on a small screen, presentation mode always) is raised in turn and
checked too. The screenshots go into one contact sheet (``tools/contact_sheet.py``;
``DUALVIEW_CONTACT_SHEET=path`` keeps it, else it is written to the test's temporary folder).
"""

from __future__ import annotations

import os
import time
from itertools import product
from pathlib import Path
from types import SimpleNamespace

import pyqtgraph as pg
import pytest
from PySide6.QtCore import QCoreApplication, QRect, QSize, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractScrollArea,
    QApplication,
    QCheckBox,
    QDockWidget,
    QLabel,
    QPushButton,
    QRadioButton,
    QStyle,
    QStyleOptionButton,
    QStyleOptionTab,
    QTabBar,
    QToolButton,
    QWidget,
)

from app.widgets.elided_label import ElidedLabel
from tools.contact_sheet import ENV, Shot, build

pytestmark = pytest.mark.usefixtures("restore_view")

SIZES = ((1280, 720), (1366, 768), (1600, 900), (1600, 1000), (1920, 1080))
LANGUAGES = ("en", "zh")
#: A plot smaller than this (either side, px) is a sliver nobody in a class can read.
MIN_PLOT_PX = 60
#: Pixels of slack for rounding between font metrics and layouts.
SLACK = 1

def _where(widget: QWidget) -> str:
    names = []
    w: QWidget | None = widget
    while w is not None and len(names) < 3:
        names.append(w.objectName() or type(w).__name__)
        w = w.parentWidget()
    return "/".join(reversed(names))


def _shows(widget: QWidget, window: QWidget) -> bool:
    # a scroll area's (a plot's) own region is empty: its viewport covers it
    seen = widget.viewport() if isinstance(widget, QAbstractScrollArea) else widget
    return (widget.isVisible() and widget.window() is window
            and not seen.visibleRegion().isEmpty())


def _cut_at_edge(widget: QWidget, text_rect: QRect) -> bool:
    """The text's rectangle runs past what of the widget is drawn, left or right (a parent or
    the window cutting it off; vertical scrolling in a scroll area is not cut)."""
    shown = widget.visibleRegion().boundingRect()
    return (text_rect.left() < shown.left() - SLACK
            or text_rect.right() > shown.right() + SLACK)


def _label_problem(label: QLabel) -> str | None:
    text = label.text()
    if not text.strip() or (label.pixmap() is not None and not label.pixmap().isNull()):
        return None
    room = label.contentsRect()
    if isinstance(label, ElidedLabel):
        shown = label.shown_text()
        if "…" in shown and "…" not in text:
            return f"elided “{shown}”"
        need = label.fontMetrics().horizontalAdvance(shown)
    elif label.wordWrap():
        need = label.minimumSizeHint().width() - (label.width() - room.width())
        if label.heightForWidth(label.width()) > label.height() + SLACK:
            return (f"wrapped text needs {label.heightForWidth(label.width())} px of height, "
                    f"has {label.height()}")
    else:
        need = label.minimumSizeHint().width() - (label.width() - room.width())
    if need > room.width() + SLACK:
        return f"needs {need} px, has {room.width()}"
    # the width the text takes (a wrapped one: its lines', up to the label's width)
    used = min(max(need, label.sizeHint().width() - (label.width() - room.width())),
               room.width())
    aligned = QStyle.alignedRect(label.layoutDirection(), label.alignment(),
                                 QSize(used, room.height()), room)
    if _cut_at_edge(label, aligned):
        return "cut at the edge of its parent"
    return None


def _button_problem(button: QAbstractButton) -> str | None:
    text = button.text().replace("&&", "\0").replace("&", "").replace("\0", "&")
    if not text.strip():
        return None
    metrics = QFontMetrics(button.font())
    need = max(metrics.horizontalAdvance(line) for line in text.splitlines())
    if isinstance(button, QPushButton):
        option = QStyleOptionButton()
        option.initFrom(button)
        option.rect = button.rect()
        room = button.style().subElementRect(QStyle.SubElement.SE_PushButtonContents, option,
                                             button)
        if not button.icon().isNull():
            need += button.iconSize().width() + 4
        # the contents rectangle has the style's margins; the text itself needs ``need``
        room = room.adjusted(2, 0, -2, 0)
    elif isinstance(button, QCheckBox | QRadioButton):
        need = button.sizeHint().width()
        room = button.rect()
    elif isinstance(button, QToolButton):
        if button.toolButtonStyle() == Qt.ToolButtonStyle.ToolButtonIconOnly:
            return None
        need = button.sizeHint().width()
        room = button.rect()
    else:
        return None
    if need > room.width() + SLACK:
        return f"needs {need} px, has {room.width()}"
    aligned = QStyle.alignedRect(button.layoutDirection(), Qt.AlignmentFlag.AlignCenter,
                                 QSize(need, room.height()), room)
    if _cut_at_edge(button, aligned):
        return "cut at the edge of its parent"
    return None


def _tab_problems(bar: QTabBar) -> list[str]:
    metrics = QFontMetrics(bar.font())
    found = []
    for i in range(bar.count()):
        option = QStyleOptionTab()
        option.initFrom(bar)
        option.shape = bar.shape()
        option.text = bar.tabText(i)
        option.rect = bar.tabRect(i)
        room = bar.style().subElementRect(QStyle.SubElement.SE_TabBarTabText, option, bar)
        if room.width() + SLACK < metrics.horizontalAdvance(bar.tabText(i)):
            found.append(f"tab “{bar.tabText(i)}” elided ({room.width()} px)")
    return found


def _dock_title_problem(dock: QDockWidget) -> str | None:
    if dock.titleBarWidget() is not None or not dock.windowTitle():
        return None
    style = dock.style()
    buttons = 2 * (style.pixelMetric(QStyle.PixelMetric.PM_DockWidgetTitleBarButtonMargin)
                   + style.pixelMetric(QStyle.PixelMetric.PM_SmallIconSize) + 2)
    margin = 2 * style.pixelMetric(QStyle.PixelMetric.PM_DockWidgetTitleMargin)
    need = QFontMetrics(dock.font()).horizontalAdvance(dock.windowTitle())
    room = dock.width() - buttons - margin
    return f"title needs {need} px, has {room}" if need > room + SLACK else None


def _axis_problems(view: pg.GraphicsView) -> list[str]:
    found = []
    scene = view.scene()
    if scene is None:
        return found
    for item in scene.items():
        if not isinstance(item, pg.AxisItem) or not item.isVisible() or not item.label.isVisible():
            continue
        if not item.label.toPlainText().strip():
            continue
        vertical = item.orientation in ("left", "right")
        length = item.geometry().height() if vertical else item.geometry().width()
        # (the text item's bounding rectangle has its document's margin around the text)
        margin = int(item.label.document().documentMargin())
        need = item.label.boundingRect().width() - 2 * margin
        name = item.label.toPlainText().strip()
        if need > length + SLACK:
            found.append(f"axis title “{name}” needs {need:.0f} px, axis is {length:.0f}")
        shown = view.mapFromScene(item.label.sceneBoundingRect()).boundingRect().adjusted(
            margin, margin, -margin, -margin)
        if not view.viewport().rect().adjusted(-SLACK, -SLACK, SLACK, SLACK).contains(shown):
            found.append(f"axis title “{name}” cut at the plot's edge")
    # the plot's data area (its largest view box: a colour bar's is narrow by design)
    boxes = [view.mapFromScene(i.sceneBoundingRect()).boundingRect() for i in scene.items()
             if isinstance(i, pg.ViewBox) and i.isVisible()]
    if boxes:
        size = max(boxes, key=lambda r: r.width() * r.height())
        if min(size.width(), size.height()) < MIN_PLOT_PX:
            found.append(f"a plot squeezed to {size.width()} × {size.height()} px")
    return found


def _overlaps(widgets: list[QWidget]) -> list[str]:
    """Text-bearing siblings on top of each other (by the rectangles their layouts gave)."""
    found = []
    for i, a in enumerate(widgets):
        for b in widgets[i + 1:]:
            if a.parentWidget() is not b.parentWidget():
                continue
            overlap = a.geometry().adjusted(1, 1, -1, -1).intersected(
                b.geometry().adjusted(1, 1, -1, -1))
            if not overlap.isEmpty():
                found.append(f"{_where(a)} overlaps {_where(b)}")
    return found


def layout_problems(window: QWidget) -> list[str]:
    """What a reader of ``window`` cannot read: see the module docstring."""
    found: list[str] = []
    texts: list[QWidget] = []
    for widget in window.findChildren(QWidget):
        if not _shows(widget, window):
            continue
        problem = None
        if isinstance(widget, QLabel):
            if widget.text().strip():
                texts.append(widget)
            problem = _label_problem(widget)
        elif isinstance(widget, QAbstractButton):
            if widget.text().strip():
                texts.append(widget)
            problem = _button_problem(widget)
        elif isinstance(widget, QTabBar):
            if widget.count() > 1 or widget.parentWidget() is not window:
                found += [f"{_where(widget)}: {p}" for p in _tab_problems(widget)]
        elif isinstance(widget, QDockWidget):
            problem = _dock_title_problem(widget)
        if isinstance(widget, pg.GraphicsView):
            found += [f"{_where(widget)}: {p}" for p in _axis_problems(widget)]
            if min(widget.width(), widget.height()) < MIN_PLOT_PX:
                found.append(f"{_where(widget)}: a plot squeezed to "
                             f"{widget.width()} × {widget.height()} px")
        elif isinstance(widget, QAbstractScrollArea) and widget.horizontalScrollBar().isVisible():
            found.append(f"{_where(widget)}: a horizontal scroll bar")
        if problem:
            found.append(f"{_where(widget)}: {problem}")
    found += _overlaps(texts)
    bar = window.statusBar()
    message = bar.currentMessage()
    if message:
        edge = min((w.x() for w in bar.findChildren(QLabel) if w.isVisible() and w.width()
                    and w.text().strip() and w.x() > 0), default=bar.width())
        if "…" in message or bar.fontMetrics().horizontalAdvance(message) > edge:
            found.append(f"status bar: the message “{message}” is cut")
    return found


def _on_screen(window: QWidget, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]) -> None:
    """``window`` on a screen of ``size`` (the offscreen test screen is another size): its own
    screen, full screen and normal all say so."""
    screen = SimpleNamespace(availableGeometry=lambda: QRect(0, 0, *size),
                             geometry=lambda: QRect(0, 0, *size))
    monkeypatch.setattr(window, "screen", lambda: screen)
    for name in ("showFullScreen", "showNormal", "showMaximized"):
        monkeypatch.setattr(window, name, lambda: window.resize(*size))


def _tabbed(window: QWidget) -> tuple[list[QDockWidget], list[QDockWidget]]:
    """The panel docks in front of their tab groups, and those behind a tab."""
    by_title = {dock.windowTitle(): dock for dock in window.docks.values()}
    bars = [bar for bar in window.findChildren(
        QTabBar, options=Qt.FindChildOption.FindDirectChildrenOnly)
        if bar.isVisible() and bar.count() > 1]
    front = [by_title[bar.tabText(bar.currentIndex())] for bar in bars
             if bar.tabText(bar.currentIndex()) in by_title]
    behind = [by_title[bar.tabText(i)] for bar in bars for i in range(bar.count())
              if i != bar.currentIndex() and bar.tabText(i) in by_title]
    return front, behind


def _settle(qtbot, ms: int = 240) -> None:
    # the presentation layout, tab-title fit and panel redraws run on zero timers in chains
    for _ in range(3):
        qtbot.wait(ms // 3)
        QApplication.processEvents()


def test_every_text_fits_over_the_size_language_presentation_tour_matrix(
        make_window, qtbot, monkeypatch, tmp_path):
    started = time.monotonic()
    window = make_window(sync=True, text="the cat sat on the mat")
    shots: list[Shot] = []
    failures: list[str] = []
    checked: set[str] = set()  # the panel docks checked on screen, over all cases
    cases = list(product(SIZES, LANGUAGES, (False, True), (False, True)))
    for size, language, presenting, touring in cases:
        if window.state.presentation:
            window.presentation_action.trigger()
            _settle(qtbot)
        if window.tour.running and not touring:
            window.tour.stop_tour()
        if window.state.language != language:
            window.set_language(language)
        _on_screen(window, monkeypatch, size)
        window.resize(*size)
        if touring and not window.tour.running:
            window.start_tour(0)  # the welcome stop: the longest text of the tour
        if presenting:
            window.presentation_action.trigger()
        if touring:  # a comparison on screen: the verdict's longest title
            window.editor.set_text("the cat sat on the mat")
            window.editor.set_text("the cat sat on the hat")
        else:  # the first input: "No comparison yet"
            window.editor.set_text("")
            window.editor.set_text("the cat sat on the hat")
        message = QCoreApplication.translate("MainWindow", "Restored the last session")
        window.show_message(message, 60_000)
        _settle(qtbot)
        if presenting and not touring:
            # one dock per column in presentation mode: these cases show the lower ones
            for name in ("normDock", "depthDock", "causalityDock"):
                window.docks[name].raise_()
            _settle(qtbot)
        caption = (f"{size[0]}×{size[1]} {language} "
                   f"{'presentation' if presenting else 'normal'} "
                   f"{'tour' if touring else 'no tour'}")
        assert window.size().toTuple() == size, caption
        causality = window.panels["causalityDock"]
        expected = "none_title" if not touring else "bitwise"
        assert QCoreApplication.translate("CausalityWords", {
            "none_title": "No comparison yet",
            "bitwise": "Every row before %1 is bitwise identical (max |Δ| = 0)"}[expected]
        ).split("%1")[0] in causality.verdict_plain, (caption, causality.verdict_plain)
        problems = layout_problems(window)
        shots.append(Shot(window.grab().toImage(), caption, tuple(problems)))
        checked |= {name for name, dock in window.docks.items()
                    if dock.isVisible() and not dock.visibleRegion().isEmpty()}
        # ... and every panel behind a tab, raised in turn
        front, behind = _tabbed(window)
        found = set(problems)
        for dock in behind:  # (a dock raised stays on screen while the next one is raised)
            dock.raise_()
            _settle(qtbot)
            assert not dock.visibleRegion().isEmpty(), (caption, dock.objectName())
            checked.add(dock.objectName())
            new = [p for p in layout_problems(window) if p not in found]
            found.update(new)
            problems += [f"(with {dock.objectName()} raised) {p}" for p in new]
        for dock in front:
            dock.raise_()
        failures += [f"{caption}: {p}" for p in problems]
    if window.state.presentation:
        window.presentation_action.trigger()
    elapsed = time.monotonic() - started

    out = Path(os.environ.get(ENV) or tmp_path / "layout-matrix.png")
    # a row per language × presentation × tour, a column per size (run in another order: the
    # size changes least often, as a class's screen does)
    order = sorted(range(len(cases)), key=lambda i: (cases[i][1:], SIZES.index(cases[i][0])))
    sheet = build([shots[i] for i in order], columns=len(SIZES), thumb_width=360)
    assert sheet.save(str(out)), out
    if os.environ.get(ENV):
        folder = out.with_name(out.stem + "-shots")
        folder.mkdir(exist_ok=True)
        for i, shot in enumerate(shots):
            shot.image.save(str(folder / f"{i:02d} {shot.caption}.png"))
    print(f"layout matrix: {len(cases)} cases in {elapsed:.1f} s; contact sheet {out}")
    assert len(shots) == 40
    assert not failures, "\n".join(failures)
    # the six docks of the default layout were all on screen and checked
    assert checked >= {"stepListDock", "heatmapDock", "attentionDock", "normDock",
                       "depthDock", "causalityDock"}, checked
