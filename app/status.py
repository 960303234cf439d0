"""The status bar: what the layer runs on, how many tokens, how long it took, why nothing was
computed, and the transient messages (saved, exported, copied, notices).

A transient message is kept as its source (a callable that words it), not as the words: a
language switch while it shows words it again in the new language (issue #21).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QObject, Qt, QTimer
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QLabel, QMainWindow, QMessageBox

from app import theme
from app.compute import Result
from app.engine_text import engine_text
from app.state import AppState
from app.widgets.elided_label import ElidedLabel
from app.widgets.growing_label import GrowingLabel

#: (the strings keep the main window's translation context, where they were first written)
translate = QCoreApplication.translate

#: A request still computing after this long shows "computing…" (shorter ones would flicker).
BUSY_AFTER_MS = 150

#: Room the status bar keeps between a message and the first permanent label (its own
#: margins and the label's frame).
_STATUS_MESSAGE_MARGIN_PX = 16

#: A message, or what words it in the current language (called again on a language switch).
Message = str | Callable[[], str]


class StatusBar(QObject):
    """The window's status bar labels and messages (one per window)."""

    def __init__(self, window: QMainWindow, state: AppState,
                 tokens_text: Callable[[int], str]) -> None:
        super().__init__(window)
        self.window = window
        self.state = state
        #: "n token(s)" in the interface language (a plural: lupdate marks it as one only in
        #: a ``tr`` of the class it keeps its translation under, the main window)
        self._tokens_text = tokens_text
        #: The last message shown to the person (errors of open/save/export, notices).
        self.last_message = ""
        self.message_box: QMessageBox | None = None
        #: the transient message on the bar, as its source, and the words it was shown in
        self._message: Callable[[], str] | None = None
        self._shown = ""
        self.tokens = QLabel()
        self.time = GrowingLabel()
        self.error = ElidedLabel()  # a long error never runs over its neighbours
        self.error.setObjectName("statusError")
        #: which weights the layer runs on: random (seed) or a file's layer, with its shape
        self.weights = QLabel()
        self.weights.setObjectName("statusWeights")
        bar = window.statusBar()
        bar.addWidget(self.error, 1)
        bar.addPermanentWidget(self.weights)
        bar.addPermanentWidget(self.tokens)
        bar.addPermanentWidget(self.time)
        #: "computing…" while a request takes longer than BUSY_AFTER_MS (a real model's
        #: keystroke); the window keeps working meanwhile and the latest edit wins
        self.busy = QLabel()
        self.busy.setObjectName("statusBusy")
        bar.addPermanentWidget(self.busy)
        self._busy_timer = QTimer(window)
        self._busy_timer.setSingleShot(True)
        self._busy_timer.setInterval(BUSY_AFTER_MS)
        self._busy_timer.timeout.connect(self._show_busy)
        state.inputs_changed.connect(self._busy_timer.start)
        state.result_changed.connect(self._hide_busy)
        state.error_changed.connect(self._hide_busy)
        bar.messageChanged.connect(self._on_message_changed)
        self.colour_error()

    # ----- the permanent labels -----
    def _show_busy(self) -> None:
        result = self.state.result
        if self.state.tokens and (result is None
                                  or result.request_id != self.state.pending_id):
            self.busy.setText(translate("MainWindow", "computing…"))

    def _hide_busy(self, *_args: object) -> None:
        self._busy_timer.stop()
        self.busy.setText("")

    @property
    def is_busy(self) -> bool:
        return bool(self.busy.text())
    def show_result(self, result: Result | None) -> None:
        if result is None:
            self.tokens.setText(translate("MainWindow", "no tokens"))
            self.time.setText("")
            return
        self.tokens.setText(self._tokens_text(len(result.tokens)))
        parts = [translate("MainWindow", "computed in %1 ms").replace(
            "%1", f"{result.compute_ms:.1f}")]
        # the KV cache's savings, in plain sight beside the time they bought; what runs
        # without the mask
        parts += [note for note in (self.cache_note(result), self.mask_note(result)) if note]
        self.time.setText(" · ".join(parts))  # (it only grows: GrowingLabel)

    def mask_note(self, result: Result | None = None) -> str:
        """With a real model and the causal mask switched off: what runs without it ("" with
        the mask on, or on the toy layer)."""
        result = self.state.result if result is None else result
        if (result is None or result.model_run is None or result.trace is None
                or result.trace.causal):
            return ""
        return translate("MainWindow", "Mask off: only layer %1 runs without the mask, on its "
                                       "real input; the other layers and the next token are "
                                       "the causal model's").replace(
            "%1", str(result.model_run.layer))

    def cache_note(self, result: Result | None = None) -> str:
        """What the KV cache saved on a real model's last run ("" on the toy layer)."""
        result = self.state.result if result is None else result
        run = result.model_run if result is not None else None
        if run is None:
            return ""
        layers, tokens = run.rows_total // max(run.num_tokens, 1), run.num_tokens
        # every layer but the shown one reuses the cached rows; the shown one runs whole
        reused_layers = layers - 1 if run.reused_rows else 0
        return (translate("MainWindow", "KV cache: reused %1 of %2 rows in %3 of %4 layers: "
                                        "%5 % of the rows not recomputed")
                .replace("%1", str(run.reused_rows)).replace("%2", str(tokens))
                .replace("%3", str(reused_layers)).replace("%4", str(layers))
                .replace("%5", f"{100 * run.saved_fraction:.0f}"))

    def show_error(self, message: str) -> None:
        self.error.setText(message and translate("MainWindow", "Not computed: %1").replace(
            "%1", engine_text(message, *self.state.error_kind)))
        if self.state.result is None:
            # nothing on screen: "no tokens" beside a refused text of 3000 (the red message
            # says how many) was wrong
            self.tokens.setText("" if message else translate("MainWindow", "no tokens"))

    def show_weights(self) -> None:
        source, config = self.state.weights_source, self.state.config
        model = self.state.model
        if model is not None:
            self.weights.setText(translate("MainWindow", "Model %1, layer %2 of %3").replace(
                "%1", model.folder.name).replace("%2", str(self.state.model_layer)).replace(
                "%3", str(model.num_layers)))
            self.weights.setToolTip(str(model.folder))
            return
        if source is None:
            self.weights.setText(translate("MainWindow", "Random weights (seed %1)").replace(
                "%1", str(self.state.seed)))
            self.weights.setToolTip(translate("MainWindow",
                "File ▸ Open layer weights… runs a real model's layer instead"))
            return
        self.weights.setText(
            translate("MainWindow", "%1, layer %2 — hidden %3, %4 heads (%5 kv) × %6, MLP %7")
            .replace("%1", Path(source.path).name).replace("%2", str(source.layer))
            .replace("%3", str(config.hidden_size))
            .replace("%4", str(config.num_attention_heads))
            .replace("%5", str(config.num_key_value_heads))
            .replace("%6", str(config.head_dim))
            .replace("%7", str(config.intermediate_size)))
        tip = translate("MainWindow", "Weights read from %1").replace("%1", source.path)
        if source.assumed:
            tip += "\n" + translate(
                "MainWindow", "Not in a config.json beside the file, so Qwen3's default "
                "is used: %1").replace("%1", ", ".join(
                                      f"{name} = {getattr(config, name):g}"
                                      for name in source.assumed))
        self.weights.setToolTip(tip)

    def colour_error(self) -> None:
        palette = self.error.palette()
        palette.setColor(QPalette.ColorRole.WindowText,
                         QColor(theme.ERROR_COLOURS[self.state.theme]))
        self.error.setPalette(palette)

    def retranslate(self) -> None:
        """Every label and a transient message still showing, in the current language."""
        self.time.let_shrink()
        self.show_result(self.state.result)
        self.show_error(self.state.error)
        self.show_weights()
        if self._message is not None and self.window.statusBar().currentMessage():
            self._render(self._message, None)

    # ----- transient messages -----
    def show_message(self, message: Message, timeout_ms: int) -> str:
        """Show ``message`` for ``timeout_ms``; a callable is called again to word it anew
        when the language changes while it shows. Returns the words shown."""
        source = message if callable(message) else (lambda text=message: text)
        return self._render(source, timeout_ms)

    def _render(self, source: Callable[[], str], timeout_ms: int | None) -> str:
        text = source()
        self._message = source
        self.last_message = text
        self._shown = self._fit(text)
        bar = self.window.statusBar()
        if timeout_ms is None:  # words it again: the time left stays as it was
            bar.blockSignals(True)  # (messageChanged would drop the source)
            remaining = bar.property("dualview_timeout") or 0
            bar.showMessage(self._shown, int(remaining))
            bar.blockSignals(False)
        else:
            bar.setProperty("dualview_timeout", timeout_ms)
            bar.showMessage(self._shown, timeout_ms)
        return text

    def _on_message_changed(self, text: str) -> None:
        if text != self._shown:  # cleared (its time ran out) or replaced by another's
            self._message = None

    def _fit(self, text: str) -> str:
        """``text`` cut with "…" to the room left of the status bar's permanent labels: Qt
        clips a longer message mid-word at their edge (a file's path made most of them long).
        The whole text is in the dialog and in :attr:`last_message`."""
        bar = self.window.statusBar()
        if not bar.isVisible():  # not laid out yet (a message while the window is made)
            return text
        labels = (self.weights, self.tokens, self.time)
        edge = min((w.x() for w in labels if w.isVisible() and w.width() > 0),
                   default=bar.width())
        return bar.fontMetrics().elidedText(text, Qt.TextElideMode.ElideRight,
                                            max(edge - _STATUS_MESSAGE_MARGIN_PX, 40))

    def notify(self, message: Message, *, title: str = "", error: bool = False,
               dialog: bool = True) -> QMessageBox | None:
        """Tell the person something: status bar always, plus a non-modal box if ``dialog``
        (never blocks: tests and a running class go on)."""
        text = self.show_message(message, 8000)
        if not dialog:
            return None
        if self.message_box is not None:
            self.message_box.close()
        icon = QMessageBox.Icon.Warning if error else QMessageBox.Icon.Information
        box = QMessageBox(icon, title or translate("MainWindow", "Dual View"), text,
                          QMessageBox.StandardButton.Ok, self.window)
        box.setObjectName("notifyBox")
        box.setWindowModality(Qt.WindowModality.NonModal)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.destroyed.connect(lambda *_: setattr(self, "message_box", None))
        box.show()
        self.message_box = box
        return box
