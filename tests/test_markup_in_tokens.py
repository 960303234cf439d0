"""Tokens are text, never markup: a typed "<" or "&" reads as itself in every label that is
rich text (a "<" token as the strongest key swallowed the rest of the attention caption)."""

from PySide6.QtGui import QTextDocumentFragment

from app.compute import FSI, LRM, PDI

#: the invisible bidi marks around quoted tokens (tests/test_rtl_order.py checks them)
NO_BIDI_MARKS = str.maketrans("", "", FSI + PDI + LRM)


def plain(html):
    return (QTextDocumentFragment.fromHtml(html).toPlainText().replace("\u00a0", " ")
            .translate(NO_BIDI_MARKS))


def test_a_typed_angle_bracket_or_ampersand_reads_as_itself(make_window, qtbot):
    window = make_window(sync=True, text="<")  # one token: its own strongest key
    attention = window.panels["attentionDock"]
    qtbot.waitUntil(lambda: attention.is_current)
    caption = plain(attention.caption.text())
    assert "strongest: 0 “<” 1.000000" in caption
    assert "grey dashed = masked future token" in caption  # the key line after it survives

    window.editor.set_text("a & b <")
    window.editor.set_text("a & b >")  # the last token edited: the verdict names it
    causality = window.panels["causalityDock"]
    qtbot.waitUntil(lambda: causality.is_current and causality.report is not None)
    assert "Every row before token 3 “>” is bitwise identical" in causality.verdict_plain
    assert "Before: “a & b [<]”" in plain(causality.detail.text())

    window.state.set_query(3)
    depth = window.panels["depthDock"]
    qtbot.waitUntil(lambda: depth.is_current)
    assert depth.norm_plot.getPlotItem().titleLabel.item.toPlainText() == "bold: token 3 “>”"

    qtbot.waitUntil(lambda: attention.is_current and attention.shown_query == 3)
    attention._show_hover(1, tooltip=False)
    assert "key 1 “&” → query 3 “>”" in attention.readout.text().translate(NO_BIDI_MARKS)
    assert attention.readout.textFormat().name == "PlainText"
