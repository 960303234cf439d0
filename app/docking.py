"""Where the docks are: the default layout, the saved one, and presentation mode's docking.

Presentation mode (F11) goes full screen with larger text (``app.presentation``); the tour
becomes a band across the window as tall as its text; it shows one dock per column with the
other as a tab behind it (a small screen also gets a smaller text scale), and widens columns
whose tab titles would be cut.
Leaving it restores the layout from before.

Out of presentation mode the default layout follows the room the columns get (the window less
a tour column beside them, in text lines so it follows the text size): three columns of two
docks on a large screen; on a smaller one the left and middle columns show one dock each with
the other as a tab behind it, and with little room every column does (:func:`arrangement_for`,
with hysteresis). It adapts only while the layout is the automatic one: a dock the person
moved or floated, or a layout they restored, is kept as it is until View ▸ Reset layout.
"""

from __future__ import annotations

from itertools import pairwise
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QObject, Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QDockWidget, QTabBar

from app import presentation
from app.docks import (
    DEFAULT_COLUMN_WIDTHS,
    DEFAULT_COLUMNS,
    DEFAULT_TOP_SHARE,
    DOCKS,
    LAYOUT_VERSION,
)
from app.settings import open_settings
from app.widgets.arrangement import Hysteresis

if TYPE_CHECKING:
    from app.mainwindow import MainWindow


#: The default arrangements, roomiest first: which default columns show one dock with the
#: others as tabs behind it, and the columns' relative widths.
ARRANGEMENTS: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = {
    "full": ((), DEFAULT_COLUMN_WIDTHS),
    # the steps with the norm panel behind them (as wide as before: its table's columns fit
    # at 1366 x 768), the step heatmap with Depth time behind it, and the attention and
    # causality column, which keeps its two docks
    "compact": ((0, 1), (26, 38, 36)),
    "stacked": ((0, 1, 2), (22, 40, 38)),
}
#: Presentation mode's column widths (one dock a column, the larger text): the causality
#: panel's three views need a third of a 1280-px screen, the norm panel's table its stacked
#: form below ~350 px anyway
PRESENTATION_COLUMN_WIDTHS = (24, 40, 36)
#: Room for the columns in text lines (width, height) below which the six docks are no longer
#: all side by side: at 1366 x 768 (98 x 46 lines) or 1600 x 900 with the tour column (89 x 55)
#: the depth panel's heatmap, the norm chart and the causality overview were squeezed to
#: slivers; 1600 x 900 without the tour (114 x 55) has room. (Leave: a few lines more.)
FULL_WIDTH = Hysteresis(enter=100, leave=104)
FULL_HEIGHT = Hysteresis(enter=50, leave=52)
#: ... and below which every column shows one dock (a band of the tour over the columns
#: leaves 1366 x 768 36 lines of height, where the causality panel's views were strips;
#: 1280 x 720 without it has 42)
STACKED_WIDTH = Hysteresis(enter=80, leave=84)
STACKED_HEIGHT = Hysteresis(enter=40, leave=41)
#: A window narrower than this many text lines shows the tour as a band over the columns, as
#: presentation mode does: beside them, its column took 360 of 1280 px and left the depth and
#: causality panels' plots slivers however the docks were arranged (wider again: a column)
TOUR_BAND = Hysteresis(enter=104, leave=108)


def arrangement_for(width: float, height: float, now: str) -> str:
    """The default arrangement for columns ``width`` x ``height`` text lines of room
    (``now``: the arrangement on screen, for the hysteresis)."""
    stacked_now = now == "stacked"
    if STACKED_WIDTH.compact(width, stacked_now) or STACKED_HEIGHT.compact(height, stacked_now):
        return "stacked"
    full_now = now == "full"
    if FULL_WIDTH.compact(width, not full_now) or FULL_HEIGHT.compact(height, not full_now):
        return "compact"
    return "full"


class DockLayout(QObject):
    """The dock arrangement of one window, in and out of presentation mode."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.state = window.state
        self._before_presentation: tuple[bool, float] = (False, 1.0)
        #: the dock layout before presentation mode stacked the columns (restored after it)
        self._layout_before_presentation: QByteArray | None = None
        #: the layout when presentation mode began, on any screen (the tour band stacks the
        #: columns on a large one too, and leaving restores this)
        self._presentation_start: QByteArray | None = None
        #: True while restoreState runs (its hiding of the tour panel is not the person's)
        self.restoring = False
        #: the layout leaving presentation mode restores on the next event-loop pass
        self._pending_restore: QByteArray | None = None
        #: the text scale presentation mode started at on this screen (Reset text size)
        self.presentation_scale = presentation.PRESENTATION_SCALE
        #: the default arrangement on screen (see ARRANGEMENTS), and whether the layout is
        #: still the automatic one (False once the person moved or floated a dock, or a layout
        #: of theirs was restored: then it is theirs, and a resize never rearranges it)
        self.arrangement = "full"
        self.automatic = True
        #: True while the window is narrow enough for the tour to be a band (TOUR_BAND)
        self._narrow = False
        #: True while this class moves docks itself (their signals are not the person's)
        self._arranging = False
        self._adapt_pending = False
        #: the arrangement and automatic flag when presentation mode began (restored after it)
        self._arrangement_before: tuple[str, bool] = ("full", True)
        for dock in window.docks.values():
            dock.topLevelChanged.connect(self._on_dock_moved)
            dock.dockLocationChanged.connect(self._on_dock_moved)
        window.tour_dock.visibilityChanged.connect(self.schedule_adapt)
        self.state.font_scale_changed.connect(self.schedule_adapt)

    # ----- the default and the saved layout -----
    def apply_default(self) -> None:
        """The default layout for the window's size (see ARRANGEMENTS): the default docks
        shown, the rest hidden; the layout is the automatic one again (View ▸ Reset layout)."""
        window = self.window
        self.automatic = True
        self.arrangement = arrangement_for(*self.room_lines(), now=self.arrangement)
        self._arrange({spec.object_name: spec.visible for spec in DOCKS})
        window.tour_dock.setFloating(False)
        window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, window.tour_dock)
        window.tour_dock.setVisible(window.tour.running)

    def _arrange(self, visible: dict[str, bool]) -> None:
        """Lay the docks out in the columns of :attr:`arrangement`, ``visible`` the docks
        shown (the tour's dock is left where it is)."""
        window = self.window
        stacked, widths = ARRANGEMENTS[self.arrangement]
        columns = [[window.docks[name] for name in column] for column in DEFAULT_COLUMNS]
        tops = [column[0] for column in columns]
        self._arranging = True
        try:
            for dock in window.docks.values():
                dock.setFloating(False)
                window.removeDockWidget(dock)
            window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, tops[0])
            for left, right in pairwise(tops):
                window.splitDockWidget(left, right, Qt.Orientation.Horizontal)
            for i, column in enumerate(columns):
                for upper, lower in pairwise(column):
                    if i in stacked:
                        window.tabifyDockWidget(column[0], lower)
                    else:
                        window.splitDockWidget(upper, lower, Qt.Orientation.Vertical)
            for spec in DOCKS:
                if spec.tab_with is not None:
                    window.tabifyDockWidget(window.docks[spec.tab_with],
                                            window.docks[spec.object_name])
            for name, dock in window.docks.items():
                dock.setVisible(visible.get(name, False))
            for column in columns:
                column[0].raise_()
        finally:
            self._arranging = False
        tour = window.tour_dock.width() if self._tour_beside_columns() else 0
        width = max(window.width() - tour, 800)
        total = sum(widths)
        window.resizeDocks(tops, [width * w // total for w in widths],
                           Qt.Orientation.Horizontal)
        # QMainWindow hands spare height to the central widget; the editor is fixed-height,
        # so give the dock area everything below it instead of an empty band
        spare = max(window.height() - window.editor.height() - 80, 300)
        window.resizeDocks([tops[0]], [spare], Qt.Orientation.Vertical)
        for i, (column, share) in enumerate(zip(columns, DEFAULT_TOP_SHARE, strict=True)):
            if len(column) > 1 and i not in stacked:
                window.resizeDocks(column[:2], [int(spare * share), int(spare * (1 - share))],
                                   Qt.Orientation.Vertical)

    # ----- the automatic layout follows the window's size -----
    def room_lines(self) -> tuple[float, float]:
        """The room the default columns have, in text lines: the window less the tour column
        beside them (wide), less the menu, text field and status bar (high)."""
        window = self.window
        line = max(window.fontMetrics().height(), 1)
        tour = window.tour_dock.width() if self._tour_beside_columns() else 0
        band = window.tour_dock.height() if self._tour_over_columns() else 0
        height = (window.height() - window.menuBar().sizeHint().height() - band
                  - window.editor.sizeHint().height() - window.statusBar().sizeHint().height())
        return (window.width() - tour) / line, height / line

    def _tour_over_columns(self) -> bool:
        window = self.window
        return (window.tour_dock.isVisible() and not window.tour_dock.isFloating()
                and window.dockWidgetArea(window.tour_dock) == Qt.DockWidgetArea.TopDockWidgetArea)

    def tour_band_wanted(self) -> bool:
        """The tour as a band over the columns: in presentation mode, and in a window too
        narrow for a column beside them (TOUR_BAND, in text lines of the window's width)."""
        window = self.window
        line = max(window.fontMetrics().height(), 1)
        self._narrow = TOUR_BAND.compact(window.width() / line, self._narrow)
        return self.state.presentation or self._narrow

    def _on_dock_moved(self, *_args: object) -> None:
        """A dock floated, docked or moved other than by this class: the person arranged
        the layout, and it is theirs from now on."""
        if not (self._arranging or self.restoring or self.state.presentation
                or self._pending_restore is not None):
            self.automatic = False

    def schedule_adapt(self, *_args: object) -> None:
        # deferred: a resize comes in steps (and the tour column gets its width on the next
        # pass); the arrangement is decided once they are in
        if not self._adapt_pending:
            self._adapt_pending = True
            QTimer.singleShot(0, self, self.adapt)

    def adapt(self) -> None:
        """Rearrange the automatic layout when the room has crossed a threshold (never in
        presentation mode, which docks its own way, nor a layout the person arranged)."""
        self._adapt_pending = False
        window = self.window
        if (self.state.presentation or self.restoring or self._pending_restore is not None
                or not window.isVisible()):
            return
        if window.tour_dock.isVisible() and not window.tour_dock.isFloating() \
                and self.tour_band_wanted() != self._tour_over_columns():
            self.place_tour()  # (its dock moving schedules another pass for the columns)
            return
        if not self.automatic:
            return
        arrangement = arrangement_for(*self.room_lines(), now=self.arrangement)
        if arrangement == self.arrangement:
            return
        self.arrangement = arrangement
        # the docks shown stay shown (a model's panels, a lens the tour opened), the dock in
        # front of each tab group too where it still has one
        visible = {name: dock.toggleViewAction().isChecked()
                   for name, dock in window.docks.items()}
        front = {dock for dock in window.docks.values()
                 if dock.isVisible() and not dock.visibleRegion().isEmpty()}
        self._arrange(visible)
        for dock in front:  # in front of a tab it was not in front of (else the column's top)
            if any(other not in front and not other.isHidden()
                   for other in window.tabifiedDockWidgets(dock)):
                dock.raise_()
        self.hide_stale_tab_bars()
        self.schedule_tab_title_fit()

    def save(self) -> None:
        window = self.window
        settings = open_settings()
        settings.setValue("window/geometry", window.saveGeometry())
        # closed in presentation mode on a small screen: keep the layout it will leave to
        state = (self._layout_before_presentation or self._pending_restore
                 or window.saveState(LAYOUT_VERSION))
        settings.setValue("window/state", state)
        settings.setValue("window/version", LAYOUT_VERSION)
        # (in presentation mode: the layout it will leave to)
        arrangement, automatic = (self._arrangement_before if self.state.presentation
                                  else (self.arrangement, self.automatic))
        settings.setValue("window/arrangement", arrangement)
        settings.setValue("window/automatic", automatic)
        settings.sync()

    def restore(self) -> bool:
        """Restore the saved layout; an old version or an off-screen window is ignored."""
        window = self.window
        settings = open_settings()
        if settings.value("window/version", type=int) != LAYOUT_VERSION:
            return False
        # a hand-edited or foreign ini may hold text or a rectangle there: only bytes restore
        geometry = settings.value("window/geometry")
        state = settings.value("window/state")
        if not isinstance(geometry, QByteArray | bytes):
            geometry = None
        if not isinstance(state, QByteArray | bytes):
            state = None
        if geometry is not None:
            window.restoreGeometry(geometry)
            if not any(s.availableGeometry().intersects(window.frameGeometry())
                       for s in QGuiApplication.screens()):
                window.resize(1600, 1000)  # saved on a screen that is gone
                window.move(0, 0)
        self._arranging = True
        try:
            ok = bool(state is not None and window.restoreState(state, LAYOUT_VERSION))
        finally:
            self._arranging = False
        window.tour_dock.setVisible(window.tour.running)  # a tour never resumes by itself
        if ok:
            # a layout saved while it was the automatic one keeps following the window's size
            # (a layout of the person's, or one saved before this was recorded, is theirs)
            arrangement = settings.value("window/arrangement", "", type=str)
            self.automatic = (arrangement in ARRANGEMENTS
                              and settings.value("window/automatic", False, type=bool))
            if self.automatic:
                self.arrangement = arrangement
                self.schedule_adapt()
        return ok

    def hide_stale_tab_bars(self) -> None:
        """A layout applied while the window is hidden (the default one, then the saved one
        restored over it, at every launch after the first) leaves Qt's tab bar of a group it
        no longer shows as tabbed visible once the window shows: "Depth time" drawn over the
        File menu. Qt draws a group's tab bar only when it holds two tabs or more, so a bar
        of the window's with fewer is stale; Qt shows it again itself if it reuses it."""
        for bar in self.window.findChildren(QTabBar,
                                            options=Qt.FindChildOption.FindDirectChildrenOnly):
            if bar.count() < 2 and not bar.isHidden():
                bar.hide()

    # ----- presentation mode -----
    def on_presentation_changed(self, on: bool) -> None:
        window, state = self.window, self.state
        scale_before = state.font_scale
        window.presentation_action.blockSignals(True)
        window.presentation_action.setChecked(on)
        window.presentation_action.blockSignals(False)
        if on:
            self._before_presentation = (window.isMaximized(), state.font_scale)
            screen = window.screen().availableGeometry()
            compact = presentation.compact_screen(screen.width(), screen.height())
            # F11 again before the last restore ran: that restore's layout is the one before
            pending, self._pending_restore = self._pending_restore, None
            before = pending if pending is not None else window.saveState(LAYOUT_VERSION)
            self._layout_before_presentation = before
            self._presentation_start = before
            if pending is None:
                self._arrangement_before = (self.arrangement, self.automatic)
            self.presentation_scale = (presentation.COMPACT_PRESENTATION_SCALE if compact
                                       else presentation.PRESENTATION_SCALE)
            window.showFullScreen()
            state.set_font_scale(max(state.font_scale, self.presentation_scale))
            self.place_tour()
            # six docks at presentation text do not fit on any screen up to 1920 × 1080 (the
            # layout matrix test: the depth and causality plots squeezed to slivers, axis
            # titles cut): one dock per column, the rest as tabs behind it. Once the larger
            # font has reached the dock layout: tabified now, the tab bars were laid out for
            # the old font and a stale one stayed drawn over the panels
            QTimer.singleShot(0, self, self._stack_columns_if_presenting)
        else:
            was_maximized, scale = self._before_presentation
            window.showMaximized() if was_maximized else window.showNormal()
            state.set_font_scale(scale)
            self.place_tour()
            saved, self._layout_before_presentation = self._layout_before_presentation, None
            self._presentation_start = None
            if saved is not None:  # once the window has its normal size again
                self._pending_restore = saved
                QTimer.singleShot(0, self, self._restore_after_presentation)
        if state.font_scale == scale_before:  # else the font-scale change restyled them
            window.restyle_plots()  # (the line factor follows the mode)

    def stack_columns(self) -> None:
        """Each default column shows its upper dock at full height, with the lower one as a
        tab behind it (docks the person closed or floated are left alone)."""
        window = self.window
        for names in DEFAULT_COLUMNS:
            docks = [window.docks[n] for n in names if window.docks[n].isVisible()
                     and not window.docks[n].isFloating()]
            for dock in docks[1:]:
                window.tabifyDockWidget(docks[0], dock)
            if docks:
                docks[0].raise_()
        tops = [window.docks[names[0]] for names in DEFAULT_COLUMNS]
        if self._arrangement_before[1] and all(
                top.isVisible() and not top.isFloating() for top in tops):
            # the automatic layout's widths were for the window's size before (a column of
            # two docks, or one): presentation mode's own, whichever it was
            tour = window.tour_dock.width() if self._tour_beside_columns() else 0
            width, total = window.width() - tour, sum(PRESENTATION_COLUMN_WIDTHS)
            window.resizeDocks(tops, [width * w // total for w in PRESENTATION_COLUMN_WIDTHS],
                               Qt.Orientation.Horizontal)

    def _stack_columns_if_presenting(self) -> None:
        """The deferred :meth:`stack_columns` (skipped if presentation mode ended meanwhile)."""
        if self.state.presentation:
            self.stack_columns()
            self.schedule_tab_title_fit()

    def schedule_tab_title_fit(self, *_args: object) -> None:
        # deferred: the tab bars take the new titles, font or neighbour only on the next pass
        if self._fits_tab_titles() or self._tour_over_columns():
            QTimer.singleShot(0, self, self._fit_presentation)

    def _fits_tab_titles(self) -> bool:
        """Whether the columns hold tab groups of this class's making: presentation mode's,
        or the automatic layout's where it stacks columns."""
        return self.state.presentation or (self.automatic and self.arrangement != "full")

    def _fit_presentation(self) -> None:
        self.fit_tour_band()
        self.fit_tour_to_screen()
        self.fit_tab_titles()

    # ----- the tour: a column at the side, a band in presentation mode -----
    def place_tour(self) -> None:
        """Where the tour goes. Beside the columns, at full height, it held a third of a
        1600 × 1000 projector for five lines of text above an empty area while the panels
        were cut at their right edge. In presentation mode it is a band across the window
        under the menu bar, as tall as its stop's text, the panels keeping the full width;
        otherwise a column at the right. (A floating tour stays where the person put it.)"""
        window = self.window
        dock = window.tour_dock
        band = self.tour_band_wanted()
        window.tour_panel.set_band(band)
        if dock.isFloating():
            return
        area = window.dockWidgetArea(dock)
        top = Qt.DockWidgetArea.TopDockWidgetArea
        self.restoring = True  # re-docking hides and shows it: not the person closing it
        try:
            if band and area != top:
                window.addDockWidget(top, dock)
            elif not band and area == top:
                window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
                window.resizeDocks([dock], [int(360 * max(self.state.font_scale, 1.0))],
                                   Qt.Orientation.Horizontal)
        finally:
            self.restoring = False
        if band and self.state.presentation:
            # under the band two rows of docks at presentation text squeezed the plots to
            # slivers (1600 × 1000): one dock per column, as on a small screen; each tour stop
            # raises its own dock, and leaving presentation mode restores the layout
            if self._layout_before_presentation is None:
                self._layout_before_presentation = self._presentation_start
            QTimer.singleShot(0, self, self._stack_columns_if_presenting)
        if band:
            QTimer.singleShot(0, self, self.fit_tour_band)
        self.schedule_adapt()  # the columns' room changed

    def fit_tour_band(self) -> None:
        """The tour band as tall as its stop's whole text at its width (at most 40 % of the
        window: a longer text scrolls)."""
        window = self.window
        dock = window.tour_dock
        if (not dock.isVisible() or dock.isFloating()
                or window.dockWidgetArea(dock) != Qt.DockWidgetArea.TopDockWidgetArea):
            return
        panel = window.tour_panel
        chrome = max(dock.height() - panel.height(), 0)  # the dock's title bar
        need = panel.band_height(panel.width()) + chrome
        height = min(need, int(window.height() * 0.4))
        if abs(dock.height() - height) > 2:
            window.resizeDocks([dock], [height], Qt.Orientation.Vertical)
        # the band came in above columns that kept their height: the window grew past the
        # screen's bottom edge (a full-screen window on a real screen is held by it)
        QTimer.singleShot(0, self, self._back_onto_screen)

    def fit_tour_to_screen(self) -> None:
        """In presentation mode, move a tour docked beside the columns below them when the
        columns and the tour together are wider than the screen (a 1024 × 768 projector): the
        window would grow past the screen's edge, and with it the tour's Next button. Leaving
        presentation mode restores the layout from before, tour included."""
        window = self.window
        if (not self.state.presentation or self._layout_before_presentation is None
                or not self._tour_beside_columns()):
            return
        screen = window.screen()
        if screen is None or window.minimumSizeHint().width() <= \
                screen.availableGeometry().width():
            return
        # the columns are the bottom area side by side: the tour goes under all of them
        window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, window.tour_dock,
                             Qt.Orientation.Vertical)
        window.resizeDocks([window.tour_dock], [window.tour_dock.minimumSizeHint().height()],
                           Qt.Orientation.Vertical)
        # it grew past the screen while the tour was beside the columns: back to the screen
        # once the dock layout has taken the move (its minimum width is stale until then)
        QTimer.singleShot(0, self, self._back_onto_screen)

    def _back_onto_screen(self) -> None:
        window = self.window
        screen = window.screen()
        if screen is None:
            return
        if self.state.presentation:
            if (window.width() > screen.geometry().width()
                    or window.height() > screen.geometry().height()):
                window.setGeometry(screen.geometry())
        elif window.height() > screen.availableGeometry().height():
            # a band over the columns in a normal window: it grew by the band's height
            window.resize(window.width(), screen.availableGeometry().height())

    def _tour_beside_columns(self) -> bool:
        window = self.window
        return (window.tour_dock.isVisible() and not window.tour_dock.isFloating()
                and window.dockWidgetArea(window.tour_dock)
                == Qt.DockWidgetArea.RightDockWidgetArea)

    def fit_tab_titles(self) -> None:
        """In presentation mode (and where the automatic layout stacks columns), widen each
        column whose tab bar would elide its titles, so a class can read which tab is which
        ("S…" beside "Lay…" on a 1024 × 768 projector or next to the tour). The width comes
        from the columns and the tour with room to spare; a column already wide enough is
        left as it is."""
        window = self.window
        if not self._fits_tab_titles():
            return
        bars = [bar for bar in window.findChildren(
            QTabBar, options=Qt.FindChildOption.FindDirectChildrenOnly)
            if bar.isVisible() and bar.count() > 1]
        tops: list[QDockWidget] = []
        needs: list[int] = []
        for names in DEFAULT_COLUMNS:
            docks = [window.docks[n] for n in names if not window.docks[n].isFloating()
                     and not window.docks[n].visibleRegion().isEmpty()]
            if not docks:
                continue
            top = docks[0]
            bar = next((b for b in bars if top.windowTitle() in
                        {b.tabText(i) for i in range(b.count())}), None)
            tops.append(top)
            needs.append(max(bar.sizeHint().width() if bar is not None else 0,
                             top.minimumSizeHint().width()))
        widths = [top.width() for top in tops]
        short = sum(max(need - width, 0) for need, width in zip(needs, widths, strict=True))
        if short <= 0:
            return
        spare = [max(width - need, 0) for need, width in zip(needs, widths, strict=True)]
        tour = window.tour_dock
        touring = self._tour_beside_columns()  # (below them it has no width to give)
        tour_spare = max(tour.width() - tour.minimumSizeHint().width(), 0) if touring else 0
        # the tour gives up its room first: the columns hold the panels being shown
        from_tour = min(short, tour_spare)
        if from_tour:
            window.resizeDocks([tour], [tour.width() - from_tour], Qt.Orientation.Horizontal)
        rest = short - from_tour
        total_spare = sum(spare)
        targets = []
        for need, width, room in zip(needs, widths, spare, strict=True):
            if width < need:
                targets.append(need)
            else:  # columns with room to spare give it in proportion
                give = rest * room // total_spare if total_spare else 0
                targets.append(width - min(give, room))
        window.resizeDocks(tops, targets, Qt.Orientation.Horizontal)

    def _restore_after_presentation(self) -> None:
        """The dock layout from before presentation mode stacked the columns (unless
        presentation mode came back on meanwhile: it took the layout over)."""
        saved, self._pending_restore = self._pending_restore, None
        if saved is not None:
            self.restore_now(saved)
            self.arrangement, self.automatic = self._arrangement_before
            self.schedule_adapt()  # the window may have another size than before

    def restore_now(self, saved: QByteArray) -> None:
        """restoreState hides and shows docks: a running tour keeps its panel (hiding it
        counts as closing it, which ends the tour)."""
        window = self.window
        touring = window.tour.running
        self.restoring = True
        try:
            window.restoreState(saved, LAYOUT_VERSION)
        finally:
            self.restoring = False
        window.tour_dock.setVisible(touring)
        window.tour_panel.set_band(self.state.presentation
                                   and window.dockWidgetArea(window.tour_dock)
                                   == Qt.DockWidgetArea.TopDockWidgetArea)

    def even_out_columns(self) -> None:
        """Give the docks of each default column equal heights (where they are still there)."""
        window = self.window
        for names in DEFAULT_COLUMNS:
            docks = [window.docks[n] for n in names if window.docks[n].isVisible()
                     and not window.docks[n].isFloating()]
            if len(docks) > 1:
                window.resizeDocks(docks, [1000] * len(docks), Qt.Orientation.Vertical)
