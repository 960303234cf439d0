"""The depth panel's convergence section: the layer sub-stepped n = 1…64 times converging to
its flow (docs/continuous.md, E13), or why that sweep is not there yet.

The sweep comes from the worker after each result (``state.convergence``); until it arrives
the section says what it waits for, keeps the previous sweep dimmed while typing, or says why
it never comes (too much work for this layer, or the sweep failed). Its sentences keep the
depth panel's translation context, where they were first written.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QObject, Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QStackedWidget, QVBoxLayout, QWidget

from app import theme
from app.compute import SWEEP_LAYER_RUNS, Result, convergence_max_tokens, convergence_skipped
from app.engine_text import exception_text
from app.state import AppState
from app.widgets.claim_badge import ClaimBadge
from app.widgets.convergence_plot import ConvergencePlot
from engine.continuous import Convergence

#: (the depth panel's context: the catalogue keeps these sentences there)
translate = QCoreApplication.translate


class ConvergenceSection(QObject):
    """The convergence plot with its waiting text (``box``) and its caption row
    (``caption_box``, laid out by the panel under all its plots)."""

    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        self.plot = ConvergencePlot()
        self.plot.setObjectName("depthConvPlot")
        self.waiting = QLabel()
        self.waiting.setObjectName("depthConvWaiting")
        self.waiting.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.waiting.setWordWrap(True)
        theme.make_quiet(self.waiting)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.waiting)
        self.stack.addWidget(self.plot)
        self.badge = ClaimBadge("EXACT", "E13")
        self.caption = QLabel()
        self.caption.setObjectName("depthConvCaption")
        self.caption.setTextFormat(Qt.TextFormat.RichText)
        self.caption.setWordWrap(True)
        self.box = QWidget()
        layout = QVBoxLayout(self.box)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.stack, 1)
        # the caption runs under all the plots, at the panel's full width: under the plot
        # alone it wrapped to 4-8 lines in its column (1366 x 768, presentation mode, the tour
        # open) and left the plot a strip whose axis title was cut
        self.caption_box = QWidget()
        self.caption_box.setObjectName("depthConvCaptionBox")
        row = QHBoxLayout(self.caption_box)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.badge, 0, Qt.AlignmentFlag.AlignTop)
        row.addWidget(self.caption, 1)
        self._shown: Convergence | None = None
        self._waiting_state: tuple | None = None  # what the waiting picture shows

    def retranslate(self) -> None:
        self.badge.setToolTip(translate(
            "DepthTimePanel",
            "E13 (exact, tested): sub-stepping the layer n times with Δt = 1/n converges to "
            "its flow at first order; a second-order scheme at second order."))
        self.plot.titles = (translate("DepthTimePanel", "sub-steps n (Δt = 1/n)"),
                            translate("DepthTimePanel", "sub-steps n"), "n")
        self.plot.layer_label = translate("DepthTimePanel", "the real layer (n = 1)")
        self.plot.left_titles = (translate("DepthTimePanel", "distance to flow"),
                                 translate("DepthTimePanel", "distance"))
        self.plot.fit_ticks()  # the label beside n = 1, in this language

    def skipped_text(self, result: Result) -> str:
        """Why the convergence plot stays empty: the sweep's work budget (see app.compute)."""
        limit = convergence_max_tokens(result.trace.config)  # type: ignore[union-attr]
        if limit == 0:
            return translate(
                "DepthTimePanel",
                "Convergence is not computed for a layer this large: it runs the layer ~%1 "
                "times, seconds of CPU even for one token.").replace(
                    "%1", str(SWEEP_LAYER_RUNS))
        return translate(
            "DepthTimePanel",
            "Convergence is computed up to %1 tokens at this layer size (it runs the layer ~%2 "
            "times); shorten the text to see it.").replace(
                "%1", str(limit)).replace("%2", str(SWEEP_LAYER_RUNS))

    def show(self, state: AppState, force: bool = False) -> None:
        """The state's sweep, or what the section waits for (each picture set once)."""
        conv = state.convergence
        if conv is not None and conv is self._shown and not force:
            return
        self._shown = conv
        result = state.result
        skipped = convergence_skipped(result)  # too much work: the sweep never comes
        failed = state.convergence_error  # the sweep raised: it never comes either
        computing = conv is None and result is not None and not skipped and failed is None
        # a result and then its "no sweep yet" each ask for the same waiting picture: once
        shown = (None if conv is not None else
                 (computing, self.plot.has_data(), result is None, skipped, failed))
        if shown is not None and shown == self._waiting_state and not force:
            return
        self._waiting_state = shown
        if computing and self.plot.has_data():
            # typing: keep the last sweep, dimmed, until the new one arrives (no flicker)
            for item in self.plot.items():
                item.setOpacity(0.3)
            self.caption.setText(translate(
                "DepthTimePanel", "computing… (the sweep of the previous input is shown "
                "dimmed)"))
            return
        for item in self.plot.items():
            item.setOpacity(1.0)
        if conv is None:
            self._show_waiting(result, skipped, failed)
            return
        scheme = conv.second_order_scheme.capitalize()
        e1 = self.plot.show_sweep(conv)
        # short: the caption says the rest
        self.plot.set_legend(translate("DepthTimePanel", "Euler"), scheme)
        self.stack.setCurrentWidget(self.plot)
        order1 = float(conv.orders_euler[-1]) if len(conv.ns) > 1 else float("nan")
        order2 = float(conv.orders_second_order[-1]) if len(conv.ns) > 1 else float("nan")
        last = conv.ns[-2:] if len(conv.ns) > 1 else conv.ns * 2  # (not a least-squares fit)
        self.caption.setText(translate(
            "DepthTimePanel",
            "Order from n = %5 to %6 (log₂ of the error ratio): <b>%1</b> for Euler, <b>%3</b> "
            "for %2. The real layer is <b>n = 1</b>, %4 from its own flow.").replace(
            "%1", f"{order1:.2f}").replace("%2", scheme).replace(
            "%3", f"{order2:.2f}").replace("%4", f"{e1:.3g}").replace(
            "%5", str(last[0])).replace("%6", str(last[1])))
        # what an order means, kept off the caption: in a short dock it took the plot's room
        self.caption.setToolTip(translate(
            "DepthTimePanel",
            "Order 1: the error halves as n doubles; order 2: it falls to a quarter."))

    def _show_waiting(self, result: Result | None, skipped: bool,
                      failed: BaseException | None) -> None:
        self.plot.clear_data()
        if skipped:
            self.waiting.setText(self.skipped_text(result))  # type: ignore[arg-type]
        elif failed is not None and result is not None:
            self.waiting.setText(translate(
                "DepthTimePanel", "Not computed: the sweep could not run: %1").replace(
                    "%1", exception_text(failed)))
        elif result is None:
            self.waiting.setText("")
        else:
            self.waiting.setText(translate(
                "DepthTimePanel", "computing… (the layer sub-stepped n = 1…64 times)"))
        self.stack.setCurrentWidget(self.waiting)
        self.caption.setText(translate(
            "DepthTimePanel",
            "Sub-stepping the layer n times with Δt = 1/n converges to the flow "
            "u′ = A(u) + M(u). The real layer is n = 1."))
