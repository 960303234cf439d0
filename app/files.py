"""The window's files: sessions (open, save, examples), layer weights, the autosave and crash
recovery, and exports (panels as PNG / SVG, the step matrix as CSV / .npy, every step as .npz).

Every failure says why in the window (:meth:`MainWindow.notify`) and changes nothing: a
session opens whole or not at all (its weights are read before anything of it is applied),
and no file error escapes a menu action.
"""

from __future__ import annotations

import os
import sys
import traceback
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QLockFile, QObject, Qt, QTimer
from PySide6.QtWidgets import QApplication, QFileDialog, QInputDialog, QMessageBox, QWidget

from app import export as exporting
from app import sessions
from app.compute import Result
from app.engine_text import exception_text
from app.os_text import file_error_text, os_error_text, os_reason
from app.settings import settings_dir
from app.state import WeightsSource
from engine.checkpoint import LoadedLayer, layer_indices, load_layer
from engine.errors import EngineError
from engine.intervention import Intervention
from engine.model_files import read_config

if TYPE_CHECKING:
    from app.mainwindow import MainWindow

#: (the strings keep the main window's translation context, where they were first written)
translate = QCoreApplication.translate

#: Autosave this long after the last change (ms).
AUTOSAVE_DELAY_MS = 1000


class SessionWeights:
    """What a session's layer will be, decided before anything of the session is applied:
    its random weights, a file's layer read again, or (the file gone, unreadable or changed)
    random weights of its shape with the reason."""

    def __init__(self, loaded: LoadedLayer | None = None, *,
                 error: EngineError | MemoryError | None = None, changed: bool = False,
                 keep: bool = False) -> None:
        self.loaded = loaded
        #: why the file's layer could not be read, or that it changed since the session
        self.error = error
        self.changed = changed
        #: the session's file layer is on screen already: not read again
        self.keep = keep

    def problem(self) -> str:
        """The reason, worded in the language on screen (the session may have switched it)."""
        if self.changed:
            return translate("MainWindow", "the file has changed since the session was saved")
        return (exception_text(self.error) if self.error is not None else "") \
            or translate("MainWindow", "not enough memory")


class FileController(QObject):
    """Sessions, weights, autosave, recovery and exports of one window."""

    def __init__(self, window: MainWindow, *, autosave: bool) -> None:
        super().__init__(window)
        self.window = window
        self.state = window.state
        self.autosave_enabled = autosave
        self.session_path: Path | None = None
        self.recovery_path: Path | None = None
        self.recovery_box: QMessageBox | None = None
        self._instance_lock: QLockFile | None = None
        #: a session's (text, query, head), applied once its text's result with its layer is in
        self.pending_query: tuple[str, int, int] | None = None
        #: a session's intervention and its layers, applied once its model has opened (its
        #: heads and neurons are the model's, which the toy layer on screen may not have)
        self.pending_intervention: tuple[Intervention | None, str | None] | None = None
        self._watching_models = False
        self._autosave_timer = QTimer(self)
        self._autosave_timer.setSingleShot(True)
        self._autosave_timer.setInterval(AUTOSAVE_DELAY_MS)
        self._autosave_timer.timeout.connect(self.autosave_now)
        self._last_autosave = b""
        # crash recovery: decide before this run's autosave can overwrite the last one
        if self.autosave_enabled:
            self._start_autosave_and_recovery()

    def _notify(self, text: str, **kwargs: object) -> None:
        self.window.notify(text, **kwargs)  # type: ignore[arg-type]

    def _parent(self) -> QWidget:
        return self.window

    # ----- sessions -----
    def current_session(self) -> sessions.Session:
        return sessions.session_from_state(self.state)

    def save_session(self, path: str | os.PathLike[str]) -> bool:
        try:
            sessions.write_session(path, self.current_session())
        except OSError as exc:
            self._notify(translate("MainWindow", "Could not save the session: %1").replace(
                "%1", os_error_text(exc)), error=True)
            return False
        self.session_path = Path(path)
        self.window.show_message(lambda: translate("MainWindow", "Saved %1").replace(
            "%1", str(path)), 5000)
        return True

    def open_session(self, path: str | os.PathLike[str]) -> bool:
        """Open a session whole, or (a newer, corrupt or foreign file, weights that cannot be
        read at all) change nothing and say why."""
        try:
            session = sessions.read_session(path)
        except sessions.SessionError as exc:
            self._refuse_session(path, str(exc))
            return False
        problem = self._intervention_problem(session)
        if problem:
            self._refuse_session(path, problem)
            return False
        try:
            weights = self._session_weights(session)
        except OSError as exc:  # not the documented fallback: nothing of the session applied
            self._refuse_session(path, os_error_text(exc))
            return False
        except Exception as exc:  # a bug, not the file: still never half a session
            traceback.print_exc()
            self._refuse_session(path, exception_text(exc) or type(exc).__name__)
            return False
        self.apply_session(session, weights)
        # an example opens untitled, like a recovered autosave: Save asks for a name instead
        # of writing over the shipped example (or failing in a read-only install)
        self.session_path = None if sessions.is_example(path) else Path(path)
        return True

    def _refuse_session(self, path: str | os.PathLike[str], reason: str) -> None:
        self._notify(translate("MainWindow", "Cannot open %1: %2").replace(
            "%1", Path(path).name).replace("%2", reason),
            title=translate("MainWindow", "Open session"), error=True)

    def _intervention_problem(self, session: sessions.Session) -> str:
        """Why the session's intervention does not fit the layer it is for ("" when it does):
        with a model, the model's layer (its config.json read if the model is not open yet;
        a folder that cannot be read is told when the model fails to open), else the
        session's own layer, checked when the file was read."""
        iv = session.intervention
        if iv is None or session.model_path is None:
            return ""
        model = self.state.model
        if model is not None and str(model.folder) == session.model_path:
            config = model.layer_config
        else:
            try:
                config = read_config(Path(session.model_path)).layer
            except (EngineError, OSError):
                return ""
        try:
            iv.check(config)
        except EngineError as exc:
            return translate("Sessions", "its intervention is invalid: %1").replace(
                "%1", exception_text(exc))
        return ""

    def _session_weights(self, session: sessions.Session) -> SessionWeights:
        """Read the session's file layer (if it names one) before anything is applied. A
        file gone, damaged or changed since is no failure: the session runs random weights of
        its shape and says why. Anything else raised here refuses the whole session."""
        state = self.state
        if session.weights_path is None:
            return SessionWeights()
        source = state.weights_source
        if source is not None and state.config == session.config \
                and (source.path, source.layer, source.fingerprint) == (
                    session.weights_path, session.weights_layer, session.weights_sha256):
            return SessionWeights(keep=True)
        try:
            loaded = self._read_weights(session.weights_path, session.weights_layer)
        except (EngineError, MemoryError) as exc:
            return SessionWeights(error=exc)
        if loaded.config == session.config and (
                not session.weights_sha256 or loaded.fingerprint == session.weights_sha256):
            return SessionWeights(loaded)
        return SessionWeights(changed=True)

    def apply_session(self, session: sessions.Session,
                      weights: SessionWeights | None = None) -> None:
        """Apply a read session (its weights decided by :meth:`_session_weights` first)."""
        if weights is None:
            weights = self._session_weights(session)
        window, state = self.window, self.state
        if session.language is not None and session.language != state.language:
            window.set_language(session.language)
        if session.palette is not None:
            state.set_palette(session.palette)
        if session.theme is not None:
            state.set_theme(session.theme)
        if session.font_scale is not None and not state.presentation:
            state.set_font_scale(session.font_scale)
        models = window.models
        if session.model_path is None or (
                state.model is not None and str(state.model.folder) != session.model_path):
            state.close_model()
        self._apply_session_weights(session, weights)
        self.pending_intervention = None
        opening = session.model_path is not None and state.model is None
        if session.model_path is not None:
            if state.model is not None:
                state.set_model_layer(session.model_layer)
            else:  # read on its thread; a moved or missing folder says so, the toy stays
                models.open_model(session.model_path, session.model_layer)
        window.causal_action.setChecked(session.causal)
        if opening:  # the intervention is the model's: it waits for the model
            state.set_intervention(None)
            self.pending_intervention = (session.intervention, session.intervene_layers)
            if not self._watching_models:
                models.finished.connect(self._apply_pending_intervention)
                self._watching_models = True
        else:  # checked against the layer now on screen (the model's, or the session's own)
            state.set_intervene_all(session.intervene_layers == "all")
            state.set_intervention(session.intervention)
        state.set_step(session.step)
        state.set_depth_t(session.depth_t)
        # the head too waits for the result: a layer with more heads than the one on screen
        # has heads that result does not (set_head clamps to the result on screen)
        self.pending_query = (session.text, session.query, session.head)
        window.editor.set_text(session.text)
        if state.result is not None:
            self.apply_pending_query(state.result)
        else:  # no result on screen for the head to be out of (and maybe none coming: no text)
            state.set_head(session.head)

    def _apply_pending_intervention(self, _opened: bool) -> None:
        """The session's model opened (or failed to, the toy layer stays): its intervention
        now, checked against the layer on screen; one that does not fit is told, not run."""
        pending, self.pending_intervention = self.pending_intervention, None
        if pending is None:
            return
        iv, layers = pending
        self.state.set_intervene_all(layers == "all")
        try:
            self.state.set_intervention(iv)
        except EngineError as exc:
            self._notify(translate("MainWindow", "The session's intervention was not applied: "
                                   "%1").replace("%1", exception_text(exc)),
                         title=translate("MainWindow", "Open session"), error=True)

    def _apply_session_weights(self, session: sessions.Session, weights: SessionWeights) -> None:
        state = self.state
        if session.weights_path is None:
            if session.config != state.config or session.seed != state.seed \
                    or state.weights_source is not None:
                state.set_model(session.config, session.seed)
            return
        if weights.keep:
            return  # that layer is on screen already: not read again
        if weights.loaded is not None:
            self._use_loaded(weights.loaded)
            return
        state.set_model(session.config, session.seed)
        self._notify(translate("MainWindow", "The session's weights (%1, layer %2) could not be "
                               "loaded: %3. It runs on random weights of the same shape instead.")
                     .replace("%1", session.weights_path)
                     .replace("%2", str(session.weights_layer)).replace("%3", weights.problem()),
                     title=translate("MainWindow", "Open session"), error=True)

    def apply_pending_query(self, result: Result) -> None:
        pending = self.pending_query
        if pending is not None and pending[0] == result.text \
                and result.trace.config == self.state.config:
            self.state.set_query(pending[1])
            self.state.set_head(pending[2])
            self.pending_query = None

    # ----- layer weights from a file -----
    def _read_weights(self, path: str | os.PathLike[str], layer: int) -> LoadedLayer:
        """Read one layer, with a busy cursor: a Qwen3-0.6B layer (15.7 M numbers) takes
        ~0.1-0.3 s, too short for a worker thread to pay off, too long to show nothing."""
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            return load_layer(path, layer,
                              max_weights=sessions.weight_count(sessions.MAX_SESSION_LAYER))
        finally:
            QApplication.restoreOverrideCursor()

    def _use_loaded(self, loaded: LoadedLayer) -> None:
        self.state.set_model(loaded.config, self.state.seed, weights=loaded.weights,
                             source=WeightsSource(loaded.path, loaded.layer, loaded.fingerprint,
                                                  loaded.assumed))

    def _cannot_load(self, path: str | os.PathLike[str], exc: BaseException) -> None:
        reason = (os_error_text(exc) if isinstance(exc, OSError)
                  else exception_text(exc) or translate("MainWindow", "not enough memory"))
        self._notify(translate("MainWindow", "Cannot load weights from %1: %2")
                     .replace("%1", Path(path).name).replace("%2", reason),
                     title=translate("MainWindow", "Open layer weights"), error=True)

    def load_weights(self, path: str | os.PathLike[str], layer: int = 0) -> bool:
        """Run layer ``layer`` of a ``.safetensors`` (or the engine's ``.npz``) file. A file
        that cannot be read says why and leaves the layer on screen as it was."""
        try:
            loaded = self._read_weights(os.path.abspath(path), layer)
        except (EngineError, MemoryError, OSError) as exc:
            self._cannot_load(path, exc)
            return False
        self._use_loaded(loaded)
        self._notify(translate("MainWindow", "Loaded layer %1 of %2").replace("%1", str(layer))
                     .replace("%2", Path(path).name), dialog=False)
        return True

    def use_random_weights(self) -> None:
        """Back to random weights (the session's seed) for the same layer shape."""
        if self.state.weights_source is not None:
            self.state.set_model(self.state.config, self.state.seed)

    def _ask_layer(self, path: str, layers: tuple[int, ...]) -> int | None:
        # (asked only when there are several layers: no singular needed)
        label = translate("MainWindow", "%1 holds %3 decoder layers: %2. Which one should "
                          "run?").replace("%1", Path(path).name).replace(
            "%3", str(len(layers))).replace(
            "%2", f"{layers[0]}–{layers[-1]}"
            if len(layers) > 2 and list(layers) == list(range(layers[0], layers[-1] + 1))
            else ", ".join(map(str, layers)))
        value, ok = QInputDialog.getInt(self._parent(),
                                        translate("MainWindow", "Open layer weights"), label,
                                        layers[0], layers[0], layers[-1], 1)
        return value if ok else None

    def open_weights_interactive(self) -> None:
        source = self.state.weights_source
        start = str(Path(source.path).parent) if source else str(Path.home())
        path, _ = QFileDialog.getOpenFileName(
            self._parent(), translate("MainWindow", "Open layer weights"), start,
            translate("MainWindow", "Layer weights (*.safetensors *.npz);;All files (*)"))
        if not path:
            return
        try:
            layers = layer_indices(path)
        except (EngineError, OSError) as exc:
            self._cannot_load(path, exc)
            return
        layer = self._ask_layer(path, layers) if len(layers) > 1 else layers[0]
        if layer is not None:
            self.load_weights(path, layer)

    # ----- autosave and crash recovery -----
    def _start_autosave_and_recovery(self) -> None:
        """Own the autosave of the config folder for this run. A second copy of the app
        running at the same time neither autosaves nor mistakes the first for a crash."""
        folder = settings_dir()
        try:
            folder.mkdir(parents=True, exist_ok=True)
            lock = QLockFile(str(folder / sessions.LOCK_NAME))
            lock.setStaleLockTime(0)  # stale only when its process is gone (a crash or a kill)
            if not lock.tryLock(0):
                self.autosave_enabled = False
                return
            self._instance_lock = lock
            self.recovery_path = sessions.take_crash_autosave(folder)
            sessions.mark_running(folder)
        except OSError as exc:
            print(f"dualview: autosave is off ({exc})", file=sys.stderr)
            self.autosave_enabled = False
            # in the window too: work will not be kept if the app is closed by accident
            self._notify(translate("MainWindow", "Autosave is off: the settings folder %1 "
                                   "cannot be used (%2)")
                         .replace("%1", str(folder)).replace("%2", os_reason(exc)),
                         dialog=False)

    def schedule_autosave(self, *_args: object) -> None:
        if self.autosave_enabled:
            self._autosave_timer.start()

    def autosave_now(self) -> Path | None:
        """Write the autosave (atomically) if anything changed since the last one."""
        if not self.autosave_enabled:
            return None
        self._autosave_timer.stop()
        data = sessions.session_bytes(self.current_session())
        path = sessions.autosave_path(settings_dir())
        if data != self._last_autosave or not path.exists():
            try:
                sessions.write_atomic(path, data)
            except OSError as exc:
                print(f"dualview: autosave failed: {exc}", file=sys.stderr)
                return None
            self._last_autosave = data
        return path

    def close(self) -> None:
        """The window closes: last autosave, the clean-exit marker, the instance lock."""
        if self.autosave_enabled:
            self.autosave_now()
            try:
                sessions.mark_clean_exit(settings_dir())
            except OSError as exc:
                print(f"dualview: could not write the clean-exit marker: {exc}", file=sys.stderr)
        if self._instance_lock is not None:
            self._instance_lock.unlock()
            self._instance_lock = None

    def offer_recovery(self) -> QMessageBox | None:
        """After a crash: a non-modal question whether to restore the last autosaved session."""
        if self.recovery_path is None or not self.recovery_path.exists():
            return None
        box = QMessageBox(QMessageBox.Icon.Question,
                          translate("MainWindow", "Restore the last session?"),
                          translate("MainWindow", "Dual View did not close normally last time. "
                                    "Restore the session it was showing?"),
                          QMessageBox.StandardButton.NoButton, self._parent())
        box.setObjectName("recoveryBox")
        restore = box.addButton(translate("MainWindow", "Restore"),
                                QMessageBox.ButtonRole.AcceptRole)
        box.addButton(translate("MainWindow", "Discard"), QMessageBox.ButtonRole.RejectRole)
        box.setWindowModality(Qt.WindowModality.NonModal)
        box.buttonClicked.connect(
            lambda button: self.restore_recovered() if button is restore
            else self.discard_recovered())
        box.show()
        self.recovery_box = box
        return box

    def restore_recovered(self) -> bool:
        if self.recovery_path is None:
            return False
        ok = self.open_session(self.recovery_path)
        if ok:
            self.session_path = None  # the recovered copy is not the user's file
            self.window.show_message(
                lambda: translate("MainWindow", "Restored the last session"), 5000)
        return ok

    def discard_recovered(self) -> None:
        if self.recovery_path is not None:
            try:
                self.recovery_path.unlink()
            except OSError:
                pass
        self.recovery_path = None

    # ----- the interactive paths: file dialogs (tests call the functions above directly) ----
    def _ask_save(self, caption: str, filters: str, suggestion: str) -> str:
        path, _ = QFileDialog.getSaveFileName(self._parent(), caption, suggestion, filters)
        return path

    def open_session_interactive(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self._parent(), translate("MainWindow", "Open session"),
            str(self.session_path or Path.home()),
            translate("MainWindow", "Dual View sessions (*.dualview.json);;All files (*)"))
        if path:
            self.open_session(path)

    def save_session_interactive(self, ask: bool = False) -> None:
        path = None if ask else self.session_path
        if path is None:
            chosen = self._ask_save(translate("MainWindow", "Save session"),
                                    translate("MainWindow", "Dual View sessions (*.dualview.json)"),
                                    str(Path.home() / ("session" + sessions.SUFFIX)))
            if not chosen:
                return
            if not chosen.endswith(sessions.SUFFIX):
                chosen += sessions.SUFFIX
            path = Path(chosen)
        self.save_session(path)

    def export_panel_interactive(self, name: str | None, fmt: str) -> None:
        stem = (name or "window").removesuffix("Dock")
        path = self._ask_save(translate("MainWindow", "Export image"),
                              "PNG (*.png)" if fmt == "png" else "SVG (*.svg)",
                              str(Path.home() / f"dualview-{stem}-{self.state.step}.{fmt}"))
        if path:
            self.export_panel(name, path)

    def export_step_interactive(self, fmt: str) -> None:
        path = self._ask_save(translate("MainWindow", "Export step matrix"),
                              "CSV (*.csv)" if fmt == "csv" else "NumPy (*.npy)",
                              str(Path.home() / f"dualview-{self.state.step}.{fmt}"))
        if path:
            self.export_step(path)

    def export_all_interactive(self) -> None:
        path = self._ask_save(translate("MainWindow", "Export all steps"), "NumPy (*.npz)",
                              str(Path.home() / "dualview-steps.npz"))
        if path:
            self.export_all_steps(path)

    # ----- exports -----
    def meta(self, *, step: bool = True) -> dict[str, object]:
        """The provenance an export carries: input, layer, step and head shown."""
        heat = self.window.panels.get("heatmapDock")
        state = self.state
        info_step = state.step if step else None
        head = query_head = None
        result = state.result
        shown = result.trace.step(state.step) if step and result is not None else None
        if shown is not None and "head" in shown.axes:
            head = state.head
            if shown.array.shape[shown.axes.index("head")] != \
                    result.trace.config.num_attention_heads:
                # a key/value step: the matrix is the kv head this query head reads (GQA);
                # "head" indexes the step's own head axis, as trace[step][head] does
                query_head, head = head, head // result.trace.config.group_size
            if heat is not None and getattr(heat, "all_heads", None) is not None \
                    and heat.all_heads.isChecked():
                head, query_head = "all", None
        source = state.weights_source
        weights = None if source is None else {  # (the file's name: an export travels)
            "kind": "file", "file": Path(source.path).name, "layer": source.layer,
            "sha256": source.fingerprint}
        model = state.model
        if model is not None:  # an export of a real model says which model and layer
            weights = {"kind": "model", "folder": model.folder.name,
                       "layer": state.model_layer}
        return exporting.provenance(result, seed=state.seed, causal=state.causal,
                                    step=info_step, head=head,  # type: ignore[arg-type]
                                    query_head=query_head, weights=weights)

    def _export_failed(self, exc: BaseException) -> bool:
        self._notify(translate("MainWindow", "Export failed: %1").replace(
            "%1", file_error_text(exc)), error=True)
        return False

    def _exported(self, path: str | os.PathLike[str]) -> bool:
        self.window.show_message(lambda: translate("MainWindow", "Exported %1").replace(
            "%1", str(path)), 5000)
        return True

    def export_panel(self, name: str | None, path: str | os.PathLike[str]) -> bool:
        """A dock's panel (or the whole window when ``name`` is None) as PNG or SVG, by the
        file's extension."""
        window = self.window
        if name is not None:
            window.panels.get(name)  # a dock never opened has no panel yet
        widget: QWidget = window if name is None else window.docks[name]
        fmt = Path(path).suffix.lower()
        meta = self.meta()
        meta["panel"] = name or "window"
        try:
            if fmt == ".svg":
                exporting.widget_svg(widget, path, meta)
            elif fmt == ".png":
                exporting.widget_png(widget, path, meta)
            else:
                raise exporting.ExportError(
                    translate("MainWindow", "choose a .png or .svg file name"))
        except (exporting.ExportError, OSError) as exc:
            return self._export_failed(exc)
        return self._exported(path)

    def current_matrix(self) -> tuple[object, list[str], list[str] | None, str] | None:
        """The step matrix on screen (float64), its row and column labels, the column kind."""
        heat = self.window.panels.get("heatmapDock")
        result = self.state.result
        if result is None or heat is None:
            return None
        step = result.trace.step(self.state.step)
        matrix, col_labels, col_kind = heat.matrix_for(step, result.tokens)
        rows = [f"{i} {t}" for i, t in enumerate(result.tokens)]
        return matrix, rows, col_labels, col_kind

    def export_step(self, path: str | os.PathLike[str]) -> bool:
        """The step matrix on screen as CSV or .npy (by extension), with its provenance."""
        current = self.current_matrix()
        if current is None:
            self._notify(translate("MainWindow", "Nothing to export yet: type a sentence first."),
                         error=True)
            return False
        matrix, rows, cols, col_kind = current
        meta = self.meta()
        meta["columns"] = col_kind
        fmt = Path(path).suffix.lower()
        try:
            if fmt == ".csv":
                exporting.write_csv(path, matrix, meta, rows, cols)  # type: ignore[arg-type]
            elif fmt == ".npy":
                exporting.write_npy(path, matrix, meta, rows, cols)  # type: ignore[arg-type]
            else:
                raise exporting.ExportError(
                    translate("MainWindow", "choose a .csv or .npy file name"))
        except (exporting.ExportError, OSError) as exc:
            return self._export_failed(exc)
        return self._exported(path)

    def export_all_steps(self, path: str | os.PathLike[str]) -> bool:
        try:
            exporting.write_all_steps(path, self.state.result,  # type: ignore[arg-type]
                                      self.meta(step=False))
        except (exporting.ExportError, OSError) as exc:
            return self._export_failed(exc)
        return self._exported(path)
