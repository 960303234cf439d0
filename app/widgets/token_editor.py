"""The central token editor: a line of text, live token chips, preset sentences."""

from __future__ import annotations

import html

from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt, Signal
from PySide6.QtGui import QCursor
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QScrollArea,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

import engine
from app.compute import MAX_TEXT_CHARS, isolated, short_token, text_length

#: (label, text). The last one is set up for the causality demo: edit its final token. The
#: labels are translated when shown (a Chinese label is its own translation).
PRESETS: tuple[tuple[str, str], ...] = (
    ("中文：我爱北京天安门", "我爱北京天安门"),
    (QT_TRANSLATE_NOOP("TokenEditor", "English: The cat sat on the mat."),
     "The cat sat on the mat."),
    ("中文：注意力只看过去", "注意力只能看见过去的词"),
    (QT_TRANSLATE_NOOP("TokenEditor", "Causality demo: change the last word"),
     "Attention never reads the future tokens"),
)
DEFAULT_TEXT = PRESETS[0][1]

#: Chips shown at most; a longer input says how many more there are.
MAX_CHIPS = 160


def chips_html(tokens: list[str], special: list[bool] | None = None) -> str:
    """Rich text: each token in a tinted box with its index, so token starts are visible.

    The chips run left to right in token order whatever the script: the paragraph is
    left-to-right (a Hebrew first token made it right-to-left, chip 0 on the right) and each
    token's text is isolated (Hebrew or Arabic tokens next to each other formed one
    right-to-left run, drawn last token first)."""
    parts = []
    for i, token in enumerate(tokens[:MAX_CHIPS]):
        # a model's special tokens (<|im_start|>) are styled apart from text
        odd = special is not None and special[i]
        colours = "#f3e3c3; color:#5c3a00" if odd else "#dfe8f5; color:#12325c"
        # each chip a link, so hovering it can show its id (QLabel has no per-span tooltip)
        parts.append(
            f'<a href="chip:{i}" style="text-decoration:none;">'
            f'<span style="background-color:{colours};">'
            f'&nbsp;<sub style="color:#6a7f99;">{i}</sub>&nbsp;'
            f'{isolated(html.escape(short_token(token)))}&nbsp;</span></a>'
        )
    more = len(tokens) - MAX_CHIPS
    tail = f" <i>… +{more}</i>" if more > 0 else ""
    return '<p dir="ltr">' + "&nbsp; ".join(parts) + tail + "</p>"


class TokenEditor(QWidget):
    """Emits ``text_edited`` on every keystroke; the state recomputes (latest wins)."""

    text_edited = Signal(str)
    #: the text reached the field's limit (a longer paste was cut there)
    text_full = Signal()
    #: Set by an owner that gives the chips their tokens (:meth:`show_chips`, from the state):
    #: the editor then does not tokenize the text itself.
    chips_from_owner = False

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.line = QLineEdit()
        self.line.setObjectName("tokenLine")
        self.line.setClearButtonEnabled(True)
        self.line.setMaxLength(MAX_TEXT_CHARS)
        self.presets = QComboBox()
        self.presets.setObjectName("presetBox")
        for label, text in PRESETS:
            self.presets.addItem(label, text)
        self.presets.setCurrentIndex(-1)  # the field starts empty: no example in it yet
        self.chips = QLabel()
        self.chips.setObjectName("tokenChips")
        self.chips.setWordWrap(True)
        self.chips.setTextFormat(Qt.TextFormat.RichText)
        self._chips: list[tuple[str, str, bool]] = []
        self._shown: tuple = ()  # what the strip shows now (see show_chips)
        self.count = QLabel()
        self.prompt = QLabel()

        top = QHBoxLayout()
        top.addWidget(self.prompt)
        top.addWidget(self.line, 1)
        top.addWidget(self.presets)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 4)
        layout.addLayout(top)
        # chips scroll inside a fixed two-line strip, so the editor never pushes the docks down
        strip = QScrollArea()
        strip.setWidget(self.chips)
        strip.setWidgetResizable(True)
        strip.setFrameShape(QFrame.Shape.NoFrame)
        strip.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        strip.setFixedHeight(2 * self.fontMetrics().height() + 14)
        row = QHBoxLayout()
        row.addWidget(strip, 1)
        row.addWidget(self.count, 0, Qt.AlignmentFlag.AlignTop)
        layout.addLayout(row)

        self.setFixedHeight(self.sizeHint().height())
        self.line.textChanged.connect(self._on_text_changed)
        self.presets.activated.connect(self._on_preset_activated)
        self.chips.linkHovered.connect(self._on_chip_hovered)
        self.retranslate()

    def retranslate(self) -> None:
        self.prompt.setText(self.tr("Text:"))
        self.line.setPlaceholderText(self.tr("Type a sentence in Chinese or English…"))
        self.presets.setToolTip(self.tr("Example sentences"))
        self.presets.setPlaceholderText(self.tr("Example sentences…"))
        for index, (label, _text) in enumerate(PRESETS):
            self.presets.setItemText(index, self.tr(label))
        if self.chips_from_owner:
            self.show_chips(self._chips)
        else:
            self._on_tokens(engine.tokenize(self.line.text()))

    def show_chips(self, chips: list[tuple[str, str, bool]]) -> None:
        """Chips for (label, tooltip, special) per token, as the owner tokenized them (a real
        model's pieces: ids in the tooltips, special tokens styled apart)."""
        self._chips = list(chips)
        # what the strip shows: the first MAX_CHIPS chips and the count. An edit past them
        # (the last token of a long text) changes neither, and their HTML (~0.6 ms for 160
        # chips) is not built again.
        count = self.tr("%n token(s)", "", len(self._chips))
        shown = (tuple(self._chips[:MAX_CHIPS]), count, self.tr("No tokens yet"))
        if shown == self._shown:
            return
        self._shown = shown
        labels = [c[0] for c in self._chips]
        self.chips.setText(chips_html(labels, [c[2] for c in self._chips]) if labels else
                           "<i>" + self.tr("No tokens yet") + "</i>")
        self.count.setText(count)
        tips = [c[1] for c in self._chips[:MAX_CHIPS] if c[1]]
        self.chips.setToolTip("\n".join(f"{i} {t}" for i, t in enumerate(tips)) if tips else "")

    def chip_tooltip(self, index: int) -> str:
        """What hovering chip ``index`` shows (its id for a model's token)."""
        return self._chips[index][1] if 0 <= index < len(self._chips) else ""

    def _on_chip_hovered(self, link: str) -> None:
        if link.startswith("chip:"):
            tip = self.chip_tooltip(int(link[5:]))
            if tip:
                QToolTip.showText(QCursor.pos(), tip, self.chips)

    def set_text(self, text: str) -> None:
        self.line.setText(text)

    def text(self) -> str:
        return self.line.text()

    def _on_tokens(self, tokens: list[str]) -> None:
        self.chips.setText(chips_html(tokens) if tokens else
                           "<i>" + self.tr("No tokens yet") + "</i>")
        self.count.setText(self.tr("%n token(s)", "", len(tokens)))

    def _on_text_changed(self, text: str) -> None:
        # the recompute first: the worker starts while this thread tokenizes for the chips
        # (~5 ms at 512 tokens) and lays them out
        self.text_edited.emit(text)
        if not self.chips_from_owner:
            self._on_tokens(engine.tokenize(text))
        # the box names the example in the field, or none: it kept showing the last one picked
        # (or the first) beside any other text
        self.presets.setCurrentIndex(self.presets.findData(text))
        if 2 * len(text) >= MAX_TEXT_CHARS and text_length(text) >= MAX_TEXT_CHARS:
            self.text_full.emit()  # Qt cuts a longer paste here without a word: say so

    def _on_preset_activated(self, index: int) -> None:
        self.line.setText(self.presets.itemData(index))
