"""Update spin boxes and combo boxes without the side effects that cost a window relayout.

``QSpinBox.setRange`` always invalidates the box's size hint, and Qt passes that up to the main
window's dock layout even when the range is the one it had; ``QComboBox.clear`` + ``addItems``
rebuilds every item when one token changed. These helpers touch only what differs, with the
widgets' signals blocked (the state, not the widget, is the source of truth).
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtWidgets import QComboBox, QSpinBox, QWidget


def set_tooltip(widget: QWidget, text: str) -> None:
    """``widget.setToolTip(text)`` unless that is its tooltip already: every call sends the
    widget a ToolTipChange event, and redraws set the same tooltip again on most edits."""
    if widget.toolTip() != text:
        widget.setToolTip(text)


def sync_spin(box: QSpinBox, maximum: int, value: int) -> None:
    """Range 0..maximum and ``value``, without emitting ``valueChanged``."""
    box.blockSignals(True)
    try:
        if box.minimum() != 0 or box.maximum() != maximum:
            box.setRange(0, maximum)
        if box.value() != value:
            box.setValue(value)
    finally:
        box.blockSignals(False)


def sync_combo(box: QComboBox, texts: Sequence[str], current: int) -> None:
    """Items ``texts`` (changed ones renamed in place) and ``current`` selected, silently."""
    # Reading every item's text back from the model costs ~1.5 µs an item (0.8 ms per edit
    # at 512 tokens): compare with the texts this function set last instead, as long as the
    # box still holds that many items (only this function fills these boxes).
    synced: list[str] | None = getattr(box, "_dv_synced_texts", None)
    box.blockSignals(True)
    try:
        count = box.count()
        if synced is not None and len(synced) == count:
            for i in range(min(count, len(texts))):
                if synced[i] != texts[i]:
                    box.setItemText(i, texts[i])
        else:
            for i in range(min(count, len(texts))):
                if box.itemText(i) != texts[i]:
                    box.setItemText(i, texts[i])
        if len(texts) > count:
            box.addItems(list(texts[count:]))
        for i in range(count - 1, len(texts) - 1, -1):
            box.removeItem(i)
        box._dv_synced_texts = list(texts)  # type: ignore[attr-defined]
        if box.currentIndex() != current:
            box.setCurrentIndex(current)
    finally:
        box.blockSignals(False)
