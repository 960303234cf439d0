"""What every dockable panel shares: subscribe to the state, redraw only when visible, and a
friendly empty state."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, QEvent, Qt, Signal
from PySide6.QtGui import QResizeEvent, QShowEvent
from PySide6.QtWidgets import QLabel, QStackedLayout, QWidget

from app import i18n
from app.compute import Result
from app.engine_text import engine_text, exception_text
from app.state import SELECTION_FIELDS, AppState
from app.widgets.plotting import one_clip_rect, settle
from engine import EngineError, Intervention
from engine.intervention import Part

#: The intervention badge's look: white on red, so no screenshot passes for the plain model.
BADGE_STYLE = ("QLabel#interventionBadge { background: #c62828; color: white; "
               "font-weight: bold; padding: 2px 6px; border-radius: 3px; }")
#: ... and back on the plain layer after one: quiet, in the same strip
PLAIN_STYLE = ("QLabel#interventionBadge { background: #e0e0e0; color: #333333; "
               "padding: 2px 6px; border-radius: 3px; }")


def part_text(part: Part) -> str:
    """One switched part in the interface's language ("head 1 off")."""
    if part.kind == "skip":
        if part.branch == "attention":
            return QCoreApplication.translate("Intervention", "attention skipped")
        return QCoreApplication.translate("Intervention", "MLP skipped")
    index = str(part.index)
    if part.kind == "zero_head":
        return QCoreApplication.translate("Intervention", "head %1 off").replace("%1", index)
    if part.kind == "scale_head":
        return (QCoreApplication.translate("Intervention", "head %1 × %2")
                .replace("%1", index).replace("%2", f"{part.factor:g}"))
    return QCoreApplication.translate("Intervention", "neuron %1 off").replace("%1", index)


def intervention_text(iv: Intervention | None) -> str:
    """What is off, every part, in the interface's language ("" for the plain layer)."""
    if iv is None or iv.is_empty:
        return ""
    return ", ".join(part_text(p) for p in iv.parts())


def layers_text(result: Result | None) -> str:
    """With a real model: which layers the intervention ran in ("in every layer", "in layer
    3"); "" on the toy layer (it is one layer) or without an intervention."""
    run = getattr(result, "model_run", None)
    model = getattr(result, "model", None)
    if run is None or model is None or not run.intervened_layers:
        return ""
    if len(run.intervened_layers) == model.num_layers > 1:
        return QCoreApplication.translate("Intervention", "in every layer")
    return QCoreApplication.translate("Intervention", "in layer %1").replace(
        "%1", ", ".join(str(k) for k in run.intervened_layers))


def badge_text(iv: Intervention | None, layers: str = "") -> str:
    """The INTERVENED badge's words ("" for the plain layer); ``layers``: :func:`layers_text`."""
    what = intervention_text(iv)
    if what and layers:
        what = f"{what}, {layers}"
    return (QCoreApplication.translate("Intervention", "INTERVENED: %1").replace("%1", what)
            if what else "")


class Panel(QWidget):
    """Base of every dock's widget.

    Subclasses build their widgets in ``__init__`` and put them in :meth:`set_body`, subscribe
    to the state there, and implement :meth:`redraw` (draw ``result``) and :meth:`retranslate`
    (set every visible string; called again when the language changes). A hidden panel skips
    its redraw and catches up when shown.

    ``redraw_epoch`` counts the redraws asked for by anything but a new result (a selection, a
    view option, a language or theme): a panel may skip drawing parts whose inputs read the
    same as last time, keyed on this epoch and on those inputs.

    Selection changes reach :meth:`_on_selection_changed` (the base subscribes) only when the
    panel does not show that value already: a result that moves the query announces it after
    ``result_changed``, which the panel drew with the new query (one redraw per result).
    """

    #: Emitted after a redraw; ``drawn_id`` says which result it drew (0 for the empty state).
    drawn = Signal()

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.drawn_id = -1
        self._dirty = True
        self._views: list[pg.GraphicsView] | None = None
        self.redraw_epoch = 0
        #: (state language, translator generation) the texts were last set for on the state's
        #: language_changed, so the LanguageChange of the same switch does not set them again
        self._language_done: tuple[str, int] | None = None
        self._stack = QStackedLayout(self)
        self._empty = QLabel()
        self._empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._empty.setWordWrap(True)
        self._empty.setObjectName("emptyState")
        self._stack.addWidget(self._empty)
        #: the selection as the panel last drew or was told of it (field -> value)
        self._shown_selection: dict[str, object] = {}
        #: the INTERVENED badge, shown whenever the result drawn ran under an intervention: in
        #: a strip of its own above the body (over it, it hid the controls of the top right
        #: corner: the attention panel's head box and its "off" button)
        self.intervention_badge = QLabel(self)
        self.intervention_badge.setObjectName("interventionBadge")
        self.intervention_badge.setStyleSheet(BADGE_STYLE)
        self.intervention_badge.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.intervention_badge.hide()
        #: True once an intervention was shown: the strip is kept (see _sync_badge)
        self._badge_strip = False
        state.result_changed.connect(self._on_result_changed)
        state.selection_changed.connect(self._on_selection_signal)
        state.language_changed.connect(self._on_language_changed)
        state.error_changed.connect(self._on_error_changed)

    def set_body(self, body: QWidget) -> None:
        self._stack.addWidget(body)
        self._stack.setCurrentWidget(body)
        self.intervention_badge.raise_()

    def _sync_badge(self, result: Result | None) -> None:
        iv = result.trace.intervention if result is not None and result.trace else None
        text = badge_text(iv, layers_text(result))
        badge = self.intervention_badge
        if not text and not self._badge_strip:
            badge.hide()
            return
        if not text:
            # the strip stays once it came (making and removing it re-lays out every plot:
            # toggling a head off and on took 16 -> 75 ms); the plain layer says so in it
            text = QCoreApplication.translate("Intervention", "PLAIN: nothing switched off")
        self._badge_strip = True
        style = BADGE_STYLE if iv is not None and not iv.is_empty else PLAIN_STYLE
        if badge.styleSheet() != style:
            badge.setStyleSheet(style)
        badge.setText(text)
        badge.setToolTip(text)
        badge.adjustSize()
        badge.resize(min(badge.sizeHint().width(), max(self.width(), 1)),
                     badge.sizeHint().height())
        badge.move(max(self.width() - badge.width(), 0), 0)
        self.setContentsMargins(0, badge.height(), 0, 0)
        badge.raise_()
        badge.show()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.intervention_badge.isVisible():
            self._sync_badge(self.state.result)

    def empty_text(self) -> str:
        if self.state.error:
            # there is text, it just cannot be computed (3000 tokens pasted after an empty
            # field): "type a sentence" contradicted the field; say why, as the status bar does
            return QCoreApplication.translate("Panel", "Not computed: %1").replace(
                "%1", engine_text(self.state.error, *self.state.error_kind))
        return self.tr("Type a sentence above to compute the layer.\n在上方输入一句话开始计算。")

    def _on_error_changed(self, _message: str) -> None:
        if self.state.result is None:  # else the last result stays on screen (errors keep it)
            self._empty.setText(self.empty_text())

    # ----- redraw scheduling -----
    def request_redraw(self) -> None:
        """Redraw now if visible, else when next shown; what a panel cached for its last
        inputs is drawn again (see ``redraw_epoch``)."""
        self.redraw_epoch += 1
        self._schedule_redraw()

    def _schedule_redraw(self) -> None:
        if self.isVisible():
            self._redraw()
        else:
            self._dirty = True

    def _on_result_changed(self, _result: Result | None) -> None:
        self._schedule_redraw()

    def _on_selection_signal(self, field: str) -> None:
        value = getattr(self.state, field)
        result = self.state.result
        if (not self._dirty and self._shown_selection.get(field, self) == value
                and self.drawn_id == (result.request_id if result else 0)):
            return  # drawn with this value already (the result that moved it)
        self._shown_selection[field] = value
        self._on_selection_changed(field)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._dirty:
            self._redraw()

    def _on_language_changed(self, language: str) -> None:
        # the state's explanations and Qt's strings change in one switch: set the texts and
        # redraw once here, not again on the LanguageChange that follows (each lens panel
        # did both twice: ~60 ms of a ~200 ms switch with the lenses open)
        self._language_done = (language, i18n.translations().generation)
        self._apply_language()

    def _apply_language(self) -> None:
        self._empty.setText(self.empty_text())
        self.retranslate()
        self.request_redraw()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if (event.type() == QEvent.Type.LanguageChange and self._language_done
                != (self.state.language, i18n.translations().generation)):
            self._apply_language()  # a translator changed without the state's language

    def _redraw(self) -> None:
        self._dirty = False
        result = self.state.result
        self._shown_selection = {name: getattr(self.state, name) for name in SELECTION_FIELDS}
        self._sync_badge(result)
        if result is None:
            self._empty.setText(self.empty_text())
            self._stack.setCurrentIndex(0)
            self.drawn_id = 0
        else:
            if self._stack.currentIndex() == 0 and self._stack.count() > 1:
                self._stack.setCurrentIndex(1)
            try:
                self.redraw(result)
            except EngineError as exc:
                # a layer the panel's own analysis refuses (a session's one-feature layer has
                # no LayerNorm to compare): say why here; the exception escaped on every
                # redraw and the panel never caught up with the result
                self._empty.setText(self.cannot_draw_text(exception_text(exc)))
                self._stack.setCurrentIndex(0)
            else:
                self.settle_views()
            self.drawn_id = result.request_id
        self.drawn.emit()

    def cannot_draw_text(self, reason: str) -> str:
        """The message shown instead of a drawing the engine refused, with its reason."""
        return QCoreApplication.translate(
            "Panel", "This panel cannot show this layer and input: %1").replace("%1", reason)

    def settle_views(self) -> None:
        """Apply the plots' new ranges now, so Qt paints each changed view once, not twice."""
        if self._views is None:
            self._views = self.findChildren(pg.GraphicsView)
            for view in self._views:
                one_clip_rect(view)
        settle(self._views)

    @property
    def is_current(self) -> bool:
        """True when what is on screen matches the state's current result."""
        result = self.state.result
        return self.drawn_id == (result.request_id if result else 0)

    # ----- for subclasses -----
    def redraw(self, result: Result) -> None:
        raise NotImplementedError

    def _on_selection_changed(self, field: str) -> None:
        """A selection field (``SELECTION_FIELDS``) changed to a value not drawn yet."""

    def retranslate(self) -> None:
        """Set every user-visible string (``self.tr``); called at start, on a language change
        and on a theme switch (rich text may carry the theme's quiet or accent colours)."""
