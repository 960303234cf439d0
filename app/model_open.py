"""Opening a real model folder (File ▸ Open model…, ``dualview --model DIR``) and the layer
picker: the folder is read on a thread of its own while the window keeps working (a busy
message in the status bar); a folder that cannot be opened says why, naming the file, and the
app keeps what it had.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QObject, Signal
from PySide6.QtWidgets import QFileDialog, QLabel, QSpinBox

from app.engine_text import exception_text
from app.os_text import os_error_text
from engine.errors import EngineError
from engine.model import Qwen3Model

if TYPE_CHECKING:
    from app.mainwindow import MainWindow

translate = QCoreApplication.translate


class ModelController(QObject):
    """Opens models off the main thread and keeps the layer picker in step with the state."""

    #: (folder, model or None, the reason it failed or ""), emitted by the loading thread and
    #: queued to the main thread (this object lives there)
    _loaded = Signal(str, object, str, int, int)
    #: a model was opened (True) or refused (False): tests and sessions wait on it
    finished = Signal(bool)

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.state = window.state
        self.loading = ""  # the folder being read, "" when none
        self._generation = 0
        self.layer_label = QLabel()
        self.layer_spin = QSpinBox()
        self.layer_spin.setObjectName("modelLayerSpin")
        self.layer_spin.setKeyboardTracking(False)  # typing "12" is one change, not two
        bar = window.statusBar()
        bar.addPermanentWidget(self.layer_label)
        bar.addPermanentWidget(self.layer_spin)
        self.layer_spin.valueChanged.connect(self.state.set_model_layer)
        self._loaded.connect(self._on_loaded)
        self.state.model_changed.connect(self.sync)
        self.sync()

    def retranslate(self) -> None:
        self.layer_label.setText(translate("MainWindow", "Layer:"))
        self.layer_spin.setToolTip(translate(
            "MainWindow", "Which layer of the model the panels show (0 is the first)"))

    def sync(self) -> None:
        """The picker shows the state's layer (hidden on the toy layer)."""
        model = self.state.model
        shown = model is not None
        self.layer_label.setVisible(shown)
        self.layer_spin.setVisible(shown)
        if model is not None:
            self.layer_spin.blockSignals(True)
            self.layer_spin.setRange(0, model.num_layers - 1)
            self.layer_spin.setValue(self.state.model_layer)
            self.layer_spin.blockSignals(False)
        toy = getattr(self.window, "toy_layer_action", None)
        if toy is not None:
            toy.setEnabled(shown)

    def open_model(self, folder: str | os.PathLike[str], layer: int = 0, *,
                   wait: bool = False) -> bool:
        """Read ``folder`` on a thread, then show its layer ``layer``. ``wait``: read it on
        this thread instead (scripts, tests) and return whether it opened."""
        path = os.path.abspath(folder)
        self._generation += 1
        generation = self._generation
        self.loading = path
        self.window.show_message(lambda: translate("MainWindow", "Opening the model in %1…")
                                 .replace("%1", Path(path).name), 600_000)
        if wait:
            self._load(path, layer, generation)
            return self.state.model is not None and self.state.model.folder == Path(path)
        threading.Thread(target=self._load, args=(path, layer, generation),
                         name="dualview-open-model", daemon=True).start()
        return True

    def _load(self, path: str, layer: int, generation: int) -> None:
        try:
            model = Qwen3Model.load(path)
            if not 0 <= layer < model.num_layers:
                raise EngineError("model_layer", last=model.num_layers - 1, value=layer)
        except (EngineError, OSError, MemoryError) as exc:
            reason = (os_error_text(exc) if isinstance(exc, OSError)
                      else exception_text(exc) or translate("MainWindow", "not enough memory"))
            self._emit_or_call(path, None, reason, layer, generation)
            return
        except Exception as exc:  # a bug must not leave "Opening…" on screen for ever
            self._emit_or_call(path, None, f"{type(exc).__name__}: {exc}", layer, generation)
            return
        self._emit_or_call(path, model, "", layer, generation)

    def _emit_or_call(self, path: str, model: Qwen3Model | None, reason: str, layer: int,
                      generation: int) -> None:
        if threading.current_thread() is threading.main_thread():
            self._on_loaded(path, model, reason, layer, generation)
        else:
            try:
                self._loaded.emit(path, model, reason, layer, generation)
            except RuntimeError:  # the window closed while the folder was read
                pass

    def _on_loaded(self, path: str, model: object, reason: str, layer: int,
                   generation: int) -> None:
        if generation != self._generation:  # a later open superseded this one
            return
        self.loading = ""
        if not isinstance(model, Qwen3Model):
            self.window.notify(translate("MainWindow", "Cannot open the model in %1: %2")
                               .replace("%1", path).replace("%2", reason),
                               title=translate("MainWindow", "Open model"), error=True)
            self.finished.emit(False)
            return
        self.state.open_model(model, layer)
        self.window.show_message(lambda: translate(
            "MainWindow", "Opened %1: %2 layers, showing layer %3").replace(
                "%1", Path(path).name).replace("%2", str(model.num_layers)).replace(
                "%3", str(self.state.model_layer)), 8000)
        self.finished.emit(True)

    def close_model(self) -> None:
        """File ▸ Back to the toy layer."""
        self.state.close_model()

    def open_model_interactive(self) -> None:
        folder = QFileDialog.getExistingDirectory(
            self.window, translate("MainWindow", "Open a model folder (config.json, "
                                                 "tokenizer.json, *.safetensors)"))
        if folder:
            self.open_model(folder)

