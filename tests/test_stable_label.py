"""StableLabel measures a text once: shown again, its height is remembered, not measured."""

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QLabel

from app.widgets.stable_label import StableLabel

FIRST = "to the sphere ‖u‖ = √d = 4, RMSNorm's set: <b>0.4785064</b> = √d·|rms − 1| = 0.4785064"
SECOND = "to the sphere ‖u‖ = √d = 4, RMSNorm's set: <b>0.5216781</b> = √d·|rms − 1| = 0.5216781"


def _label(qtbot) -> StableLabel:
    label = StableLabel()
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setWordWrap(True)
    qtbot.addWidget(label)
    label.resize(180, 60)
    return label


def _count_measures(monkeypatch) -> list[int]:
    measured = []
    real = QLabel.heightForWidth

    def measure(label: QLabel, width: int) -> int:
        measured.append(width)
        return real(label, width)

    monkeypatch.setattr(QLabel, "heightForWidth", measure)
    return measured


def test_a_text_shown_again_is_not_measured_again(qtbot, monkeypatch):
    """A rich-text QLabel parses and lays out its text to answer heightForWidth (each edit's
    numbers: ~0.3-0.6 ms a label); an edit undone or a token picked again brings back texts
    already measured."""
    label = _label(qtbot)
    measured = _count_measures(monkeypatch)
    label.setText(FIRST)
    first = (label.heightForWidth(180), label.heightForWidth(120))
    label.setText(SECOND)
    second = label.heightForWidth(180)
    assert measured == [180, 120, 180]  # each text at each width once
    label.setText(FIRST)
    assert (label.heightForWidth(180), label.heightForWidth(120)) == first
    label.setText(SECOND)
    assert label.heightForWidth(180) == second
    assert measured == [180, 120, 180]  # nothing measured again


def test_a_new_font_or_width_is_measured_anew(qtbot):
    label = _label(qtbot)
    label.setText(FIRST)
    narrow = label.heightForWidth(120)
    assert narrow == QLabel.heightForWidth(label, 120)
    font = QFont(label.font())
    font.setPointSizeF(font.pointSizeF() * 2)
    label.setFont(font)  # a larger text size
    assert label.heightForWidth(120) == QLabel.heightForWidth(label, 120) > narrow
    label.setContentsMargins(0, 10, 0, 10)
    assert label.heightForWidth(120) == QLabel.heightForWidth(label, 120)
    assert label.heightForWidth(400) == QLabel.heightForWidth(label, 400)
