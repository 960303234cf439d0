"""The guided tour's orchestration in the window: each stop's sentence, mask, step, depth time,
dock and pinned baseline (``app.tour`` holds the stops, their texts and the tour panel).

A stop that changes the causal mask types its sentence only once the result with the new mask
is in, so the causality panel compares like with like; a stop that compares two sentences types
the first, then the second once the first is computed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QTimer

from app.compute import Result
from app.tour import loudest_head
from engine import Intervention

if TYPE_CHECKING:
    from app.mainwindow import MainWindow


class TourDriver(QObject):
    """Runs the window's side of the tour: what a stop sets, and what waits for a result."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.state = window.state
        self.tour = window.tour
        #: a stop's sentence, typed once the result with the stop's mask is in
        self.pending_text: str | None = None
        #: a stop's own sentence, typed once its before_text (pending) has been computed
        self.then_text: str | None = None
        #: a tour stop's sentence to pin as the causality baseline once its result is in
        self.pin_text: str | None = None
        #: the baseline the tour pinned (released when the tour moves on or ends)
        self.pinned: Result | None = None
        #: a stop's sentence whose loudest head is switched off once computed
        self.intervene_text: str | None = None
        #: the intervention the tour made (taken back when the tour moves on or ends)
        self.intervened: Intervention | None = None
        window.editor.line.textEdited.connect(self.drop_pending_text)  # typed, not set
        window.editor.presets.activated.connect(self.drop_pending_text)
        self.tour.stop_changed.connect(self.on_stop)
        self.tour.running_changed.connect(self.on_running)
        window.tour_dock.visibilityChanged.connect(self.on_dock_visibility)

    def start(self, index: int = 0) -> None:
        window = self.window
        dock = window.tour_dock
        if not dock.isVisible() and not dock.isFloating():
            dock.show()
            window.resizeDocks([dock], [int(360 * max(self.state.font_scale, 1.0))],
                               Qt.Orientation.Horizontal)
        dock.show()
        dock.raise_()
        window.docking.place_tour()  # a band in presentation mode, else a column
        self.tour.start(index)

    def on_result(self) -> None:
        """A result is in: a sentence waiting for it goes in, a baseline waiting is pinned."""
        self.apply_pending_text()
        self.pin_baseline()
        if self.intervene_text is not None:
            # after this result's delivery: a request made inside it (the synchronous bridge
            # delivers within its own lock) would wait for that lock for ever
            QTimer.singleShot(0, self, self.intervene)

    def drop_pending_text(self, *_args: object) -> None:
        """The person typed or picked a sentence: a tour stop's sentence waiting for the new
        mask's result must not replace it."""
        self.pending_text = None
        self.then_text = None
        self.pin_text = None
        self.intervene_text = None

    def on_running(self, running: bool) -> None:
        window = self.window
        window.tour_next_action.setEnabled(running)
        window.tour_back_action.setEnabled(running)
        if not running:
            self.drop_pending_text()
            self.release_baseline()
            self.release_intervention()
            window.highlight.highlight(None)
            window.tour_dock.hide()

    def on_dock_visibility(self, visible: bool) -> None:
        window = self.window
        if window.docking.restoring:
            return
        if not visible and self.tour.running and window.tour_dock.isHidden():
            self.tour.stop_tour()  # closed with its × button (not just covered or minimised)

    def on_stop(self, index: int) -> None:
        window, state = self.window, self.state
        editor = window.editor
        stop = self.tour.stops[index]
        # released before a mask change recomputes: a pin under the other mask blocks the
        # comparison the stop is about
        if stop.baseline not in ("pin", "keep"):
            self.release_baseline()
        self.release_intervention()
        self.intervene_text = stop.text if stop.intervene else None
        self.pin_text = stop.text if stop.baseline == "pin" else None
        # Back from the next stop left another sentence in the field: the stop's edit is
        # compared with its before_text, as when it was reached with Next
        first, self.then_text = stop.text, None
        if (stop.before_text is not None and stop.text is not None
                and editor.text() != stop.before_text):
            first, self.then_text = stop.before_text, stop.text
        if stop.causal is not None and window.causal_action.isChecked() != stop.causal:
            window.causal_action.setChecked(stop.causal)
            # type the text once the result with the new mask is in: the causality panel then
            # compares like with like
            self.pending_text = first
            if state.error or not state.tokens:
                # no result is coming for this text (empty, over the cap): nothing to compare
                # with, so the sentence goes in now (else it stayed pending and later replaced
                # whatever the learner typed)
                self.apply_pending_text(now=True)
            elif state.result is not None and state.result.trace.causal == stop.causal \
                    and state.result.text == state.text:
                self.apply_pending_text()
        elif self.then_text is not None:
            self.pending_text = first
            self.apply_pending_text()
        elif stop.text is not None and editor.text() != stop.text:
            editor.set_text(stop.text)
        if stop.step is not None:
            state.set_step(stop.step)
        if stop.depth_t is not None:
            state.set_depth_t(stop.depth_t)
        if stop.depth_plot is not None:
            window.panels["depthDock"].show_small_plot(stop.depth_plot)
        dock = next((window.docks[d] for d in stop.docks if d in window.docks), None)
        if dock is not None:
            if not dock.isVisible():
                dock.show()
            dock.raise_()
        window.highlight.highlight(dock)
        self.pin_baseline()
        window.docking.schedule_tab_title_fit()  # a band as tall as this stop's text
        self.intervene()

    def intervene(self) -> None:
        """The intervention stop: once its sentence is computed (plain, with its mask), the
        head the last token reads most (app.tour.loudest_head) is switched off."""
        state = self.state
        text, result = self.intervene_text, state.result
        if (text is None or result is None or self.pending_text is not None
                or result.text != text or state.text != text
                or result.trace.causal != state.causal
                or result.trace.intervention is not None or state.intervention is not None):
            return
        self.intervene_text = None
        iv = Intervention(zero_heads=(loudest_head(result.trace),))
        state.set_intervention(iv)
        self.intervened = iv

    def release_intervention(self) -> None:
        """Take back the intervention the tour made (one the person made since is theirs)."""
        made, self.intervened = self.intervened, None
        if made is not None and self.state.intervention == made:
            self.state.clear_intervention()

    def pin_baseline(self) -> None:
        """The causality setup stop compares nothing with what was typed before the tour: its
        sentence becomes the pinned baseline once computed (with the stop's mask), so the next
        stop's edit is compared with exactly that sentence."""
        state = self.state
        text, result = self.pin_text, state.result
        if (text is None or result is None or self.pending_text is not None
                or result.text != text or state.text != text
                or result.trace.causal != state.causal):
            return
        self.pin_text = None
        state.pin_baseline(True)
        self.pinned = state.pinned

    def release_baseline(self) -> None:
        """Release the pin the tour made (a pin the person made since is theirs to keep)."""
        pinned, self.pinned = self.pinned, None
        if pinned is not None and self.state.pinned is pinned:
            self.state.pin_baseline(False)

    def apply_pending_text(self, *, now: bool = False) -> None:
        text = self.pending_text
        state = self.state
        result = state.result
        if text is None:
            return
        if not now and (result is None or result.text != state.text
                        or result.trace.causal != state.causal):
            return
        self.pending_text = None
        editor = self.window.editor
        if editor.text() != text:
            editor.set_text(text)
        if self.then_text is not None:  # the stop's own sentence, once this one is in
            self.pending_text, self.then_text = self.then_text, None
            self.apply_pending_text()
