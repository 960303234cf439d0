"""The causality verdict's sentences in the interface language: :mod:`app.verdict` decides
what to say as message ids, this turns them into (rich) text.

Every sentence is a literal ``self.tr()`` call here, so ``pyside6-lupdate`` finds it and the
Chinese catalogue covers it (context ``CausalityWords``).
"""

from __future__ import annotations

import html

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QObject

from app.compute import LRM, isolated, short_token, token_html
from app.verdict import Message, Quote, Token, fmt_diff

#: Characters of a quoted sentence kept either side of its edited token (a token may be as
#: long as the whole text; the quote stays a line or two).
QUOTE_CHARS = 60


def quote_html(quote: Quote) -> str:
    """The sentence as typed, its edited token in bold within brackets; a bidi isolate after a
    left-to-right mark, so a Hebrew or Arabic sentence neither reorders nor is reordered with
    the interface's left-to-right words around it."""
    head = quote.head if len(quote.head) <= QUOTE_CHARS else "…" + quote.head[-QUOTE_CHARS:]
    tail = quote.tail if len(quote.tail) <= QUOTE_CHARS else quote.tail[:QUOTE_CHARS] + "…"
    marked = (f"<b>[{html.escape(short_token(quote.marked), quote=False)}]</b>"
              if quote.marked else "")
    return LRM + isolated(("… " if quote.cut_start else "") + html.escape(head, quote=False)
                          + marked + html.escape(tail, quote=False)
                          + (" …" if quote.cut_end else ""))


#: The sentences by message id, translated when used (``_template``): one catalogue lookup
#: per sentence shown, not the whole table per verdict (~0.3 ms of every edit).
TEMPLATES: dict[str, str] = {
    "on": QT_TRANSLATE_NOOP("CausalityWords", "on"),
    "off": QT_TRANSLATE_NOOP("CausalityWords", "off"),
    "pinned_title": QT_TRANSLATE_NOOP("CausalityWords", "Baseline pinned"),
    "pinned_detail": QT_TRANSLATE_NOOP(
        "CausalityWords",
        "“%1” (%2 tokens) is the baseline now: edit the text and every input is "
        "compared with it until you release the pin."),
    "suggest_on": QT_TRANSLATE_NOOP(
        "CausalityWords",
        "Try it: <b>edit the last word</b> (keep the number of tokens) — every earlier "
        "row should stay exactly the same."),
    "suggest_off": QT_TRANSLATE_NOOP(
        "CausalityWords",
        "The mask is off: <b>edit the last word</b> and see the earlier rows change."),
    "none_title": QT_TRANSLATE_NOOP("CausalityWords", "No comparison yet"),
    "pin_blocks": QT_TRANSLATE_NOOP(
        "CausalityWords",
        "The pinned baseline was computed with the mask %1: release the pin to compare "
        "this layer with itself."),
    "mask_switched": QT_TRANSLATE_NOOP(
        "CausalityWords",
        "The causal mask was just switched %1: the new layer has nothing of its own "
        "kind to compare with yet."),
    "layer_changed": QT_TRANSLATE_NOOP(
        "CausalityWords",
        "The layer itself changed (config or weights): there is nothing of the same "
        "layer to compare with yet."),
    "first_input": QT_TRANSLATE_NOOP(
        "CausalityWords",
        "This is the first input: there is nothing to compare it with yet."),
    "before": QT_TRANSLATE_NOOP("CausalityWords", "Before: “%1” (%2, %3 tokens)."),
    "source_previous": QT_TRANSLATE_NOOP("CausalityWords", "previous input"),
    "source_pinned": QT_TRANSLATE_NOOP("CausalityWords", "pinned baseline"),
    "source_earlier": QT_TRANSLATE_NOOP(
        "CausalityWords",
        "the sentence before this edit: the last input of as many tokens"),
    "same_tokens": QT_TRANSLATE_NOOP(
        "CausalityWords",
        "Same tokens as the baseline: nothing changed"),
    "token_k": QT_TRANSLATE_NOOP("CausalityWords", "token %1 “%2”"),
    "removed_token_k": QT_TRANSLATE_NOOP("CausalityWords", "removed token %1 “%2”"),
    "first_changed": QT_TRANSLATE_NOOP(
        "CausalityWords",
        "The first token changed: there are no earlier rows to check"),
    "edit_later": QT_TRANSLATE_NOOP(
        "CausalityWords",
        "Edit a later token — e.g. <b>the last word</b> — and watch the rows before "
        "it."),
    "appended": QT_TRANSLATE_NOOP("CausalityWords", "appended"),
    "removed": QT_TRANSLATE_NOOP("CausalityWords", "removed"),
    "length_end": QT_TRANSLATE_NOOP(
        "CausalityWords",
        "%1 → %2 tokens (%3 at the end): the common prefix agrees up to rounding, "
        "max |Δ| = %4"),
    "length_mid": QT_TRANSLATE_NOOP(
        "CausalityWords",
        "%1 → %2 tokens: rows before %3 agree up to rounding, max |Δ| = %4"),
    "e12_detail": QT_TRANSLATE_NOOP(
        "CausalityWords",
        "E12: allclose (1e-12), <b>not</b> bitwise — a new shape may change how the "
        "matrix products are blocked."),
    "here_zero": QT_TRANSLATE_NOOP("CausalityWords", "(Here it happens to be 0.)"),
    "keep_count": QT_TRANSLATE_NOOP(
        "CausalityWords",
        "For the bitwise test keep the token count: <b>edit the last word</b> instead "
        "of adding or removing one."),
    "bitwise": QT_TRANSLATE_NOOP(
        "CausalityWords",
        "Every row before %1 is bitwise identical (max |Δ| = 0)"),
    "scores_all": QT_TRANSLATE_NOOP("CausalityWords", "In the input and all %1 steps."),
    "scores_unexpected": QT_TRANSLATE_NOOP(
        "CausalityWords",
        "Unexpected: raw scores outside the future columns changed."),
    "next_mask_off": QT_TRANSLATE_NOOP(
        "CausalityWords",
        "Next: turn the mask off (View ▸ Causal mask, key M) and edit the last word "
        "again."),
    "unexpected_on": QT_TRANSLATE_NOOP(
        "CausalityWords",
        "Unexpected: earlier rows changed although the mask is on (max |Δ| = %1)"),
    "mask_off_changed": QT_TRANSLATE_NOOP(
        "CausalityWords",
        "Mask off: earlier rows changed (max |Δ| = %1 before %2)"),
    "steps_changed": QT_TRANSLATE_NOOP(
        "CausalityWords",
        "%1 of %2 steps changed rows before k, from step %3 %4 on: nothing removes the "
        "future key any more."),
    "mask_back_on": QT_TRANSLATE_NOOP(
        "CausalityWords",
        "Turn the mask back on (View ▸ Causal mask, key M) and edit again: the earlier "
        "rows return to exactly 0."),
}


class CausalityWords(QObject):
    """``render(message)``: the message's sentence with its parameters filled in."""

    def render(self, message: Message) -> str:
        text = self._template(message)
        for i, value in enumerate(message.params, start=1):
            text = text.replace(f"%{i}", self._value(value))
        return text

    def _value(self, value: object) -> str:
        if isinstance(value, Message):
            return self.render(value)
        if isinstance(value, Quote):
            return quote_html(value)
        if isinstance(value, Token):
            return token_html(value.text)
        return str(value)

    def _template(self, message: Message) -> str:
        key = message.id
        if key == "scores_future":  # the one sentence with a plural form
            return self.tr(
                "In the input and all %1 steps, except %n raw score(s) in attn_scores "
                "(step 10): all in the future column(s) j ≥ k — exactly what causal_mask "
                "(step 11) removes.", "", message.count or 0)
        return QCoreApplication.translate("CausalityWords", TEMPLATES[key])

    def intervention(self, message: Message) -> str:
        """A sentence of the intervened-vs-plain verdict (app.verdict.decide_intervention)."""
        p = message.params
        if message.id == "iv_same":
            return self.tr("Intervention vs the plain layer: every step identical (it changes "
                      "nothing on this input)")
        if message.id == "iv_steps":
            return self.tr("Intervention vs the plain layer: steps 0–%1 identical; %2 is the first "
                      "that differs").replace("%1", str(p[0])).replace("%2", f"<b>{p[1]}</b>")
        if message.id == "iv_heads_only":
            text = (self.tr("attn_context differs only in head %1's columns (max |Δ| = %2).")
                    if (message.count or 1) == 1 else
                    self.tr("attn_context differs only in the columns of heads %1 (max |Δ| = %2)."))
            return text.replace("%1", str(p[0])).replace(
                "%2", fmt_diff(float(p[1])))  # type: ignore[arg-type]
        if message.id == "iv_heads_more":
            return self.tr("Unexpected: attn_context differs in the columns of heads %1, not only "
                      "the ones switched.").replace("%1", str(p[0]))
        if message.id == "iv_early":
            return self.tr("Unexpected: %1 differs before %2, where the intervention "
                           "acts.").replace("%1", str(p[0])).replace("%2", str(p[1]))
        return self.tr("%1 of %2 token rows change in %3 (max |Δ| = %4).").replace(
            "%1", str(p[0])).replace("%2", str(p[1])).replace("%3", str(p[2])).replace(
            "%4", fmt_diff(float(p[3])))  # type: ignore[arg-type]
