"""What the causality inspector says about one result, decided without Qt.

Plain data in (the result's tokens and text, its mask, the engine's
:class:`~engine.causality.CausalityReport`, the :class:`~app.compute.Baseline` it was compared
with), plain data out (:class:`Verdict`): the verdict's colour key, the claim it rests on (E11
or E12, docs/continuous.md), its words as message ids with parameters, the edited position
where the dashed line goes, and the baseline it names. The panel only translates and draws.

The cases, in order (docs/continuous.md E11, E12):

- the input was just pinned: nothing is compared on screen, the pin is named;
- nothing compared: the first input, the mask switched, another layer, or a pin made under the
  other mask;
- the same tokens as the baseline: nothing changed;
- the first token changed: no earlier rows to check;
- with the mask on, a change of length: the common prefix agrees up to rounding (E12, "info");
- with the mask on, same length: every earlier row bitwise equal (E11, "good") — or, if not,
  a "warn" that something is wrong;
- with the mask off: earlier rows change ("warn", which is the point of that demo).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from app.compute import Baseline, InterventionDiff
from engine import STEP_NAMES
from engine.causality import CausalityReport

Level = Literal["good", "warn", "info", "quiet"]

#: E12's tolerance: after a change of length the common prefix agrees to this (allclose).
E12_ATOL = 1e-12
#: Tokens of a sentence quoted in the verdict's words, at most.
MAX_QUOTED_TOKENS = 12


@dataclass(frozen=True)
class Token:
    """One token named in the words (the panel shortens and escapes it)."""

    text: str


@dataclass(frozen=True)
class Quote:
    """A sentence quoted as it was typed: ``head``, the ``marked`` (edited) token, ``tail``;
    ``cut_start`` / ``cut_end``: more of the sentence is left out before / after."""

    head: str
    marked: str = ""
    tail: str = ""
    cut_start: bool = False
    cut_end: bool = False

    @property
    def plain(self) -> str:
        """As a reader sees it, the edited token in [brackets]."""
        marked = f"[{self.marked}]" if self.marked else ""
        return (("… " if self.cut_start else "") + self.head + marked + self.tail
                + (" …" if self.cut_end else ""))


@dataclass(frozen=True)
class Message:
    """A sentence by id (the panel holds the translatable text of each), and the values of
    its %1, %2 … in order. A value is a number, a step name, a :class:`Token`, a
    :class:`Quote` or another :class:`Message` (a word such as "on")."""

    id: str
    params: tuple[object, ...] = ()
    #: for a message with a plural form (%n)
    count: int | None = None


@dataclass(frozen=True)
class Verdict:
    level: Level
    claim: str  # "E11" or "E12"
    title: Message
    detail: tuple[Message, ...]
    hint: Message
    #: The big page shown instead of the three views ("big_hint": the suggestion with the pin
    #: explained); None while the views show.
    page: Message | None = None
    #: Where the dashed line between unchanged and changed rows goes (the first edited token
    #: k), None when there is no such line (0 < k < common tokens).
    edited: int | None = None
    #: The baseline the words name (None: none).
    baseline: Baseline | None = None
    #: The largest |Δ| on earlier rows the verdict quotes (None: it quotes none).
    earlier_max: float | None = None
    #: Whether the report is shown (False just after pinning, or with nothing compared).
    compared: bool = False


def fmt_diff(value: float) -> str:
    """Short: ``0``, ``2.5``, ``0.031``, ``8.9e-16``."""
    return "0" if value == 0 else f"{value:.2g}"


def token_spans(text: str, tokens: Sequence[str]) -> list[tuple[int, int]] | None:
    """Where each token stands in ``text`` (NFC, as the tokenizer reads it): (start, end)
    indices into ``unicodedata.normalize("NFC", text)``; None if the tokens are not found in
    order (tokens of another text)."""
    spans = []
    at = 0
    for token in tokens:
        start = text.find(token, at)
        if start < 0:
            return None
        at = start + len(token)
        spans.append((start, at))
    return spans


def quote(text: str, tokens: Sequence[str], mark: int | None = None,
          most: int = MAX_QUOTED_TOKENS) -> Quote:
    """``text`` as typed, at most ``most`` tokens of it (a window holding token ``mark``),
    with token ``mark`` marked (None or out of range: nothing marked)."""
    text = unicodedata.normalize("NFC", text)
    n = len(tokens)
    spans = token_spans(text, tokens)
    if spans is None or n == 0:  # not this text's tokens: quote the tokens themselves
        return Quote(" ".join(tokens[:most]), cut_end=n > most)
    marked = mark is not None and 0 <= mark < n
    start = 0
    if marked and n > most and mark >= most - 2:  # the edit near the window's right end
        start = min(mark - (most - 3), n - most)
    end = min(n, start + most)
    first, last = spans[start][0], spans[end - 1][1]
    if not marked:
        return Quote(text[first:last], cut_start=start > 0, cut_end=end < n)
    a, b = spans[mark]  # type: ignore[index]
    return Quote(text[first:a], text[a:b], text[b:last], cut_start=start > 0, cut_end=end < n)


def _on_off(on: bool) -> Message:
    return Message("on" if on else "off")


def _suggestion(causal: bool) -> Message:
    return Message("suggest_on" if causal else "suggest_off")


def decide(tokens: Sequence[str], text: str, causal: bool, report: CausalityReport | None,
           baseline: Baseline | None, *, just_pinned: bool = False) -> Verdict:
    """The verdict on a result of ``tokens`` (typed as ``text``) under the mask ``causal``,
    compared (``report``) with ``baseline``; ``just_pinned``: this result is the pin itself."""
    tokens = tuple(tokens)
    if just_pinned:
        detail = Message("pinned_detail", (quote(text, tokens), len(tokens)))
        return Verdict("quiet", "E11", Message("pinned_title"), (detail,), _suggestion(causal),
                       page=detail)
    if report is None:
        return _nothing_compared(causal, baseline)
    kind = baseline.kind if baseline is not None else "previous"
    before_tokens = baseline.tokens if baseline is not None else ()
    before_text = baseline.text if baseline is not None else " ".join(before_tokens)
    k = report.first_changed
    compared = Message("before", (
        quote(before_text, before_tokens, k if report.changed else None),
        Message(f"source_{kind}"), report.num_tokens_before))
    if not report.changed:
        return Verdict("quiet", "E11", Message("same_tokens"), (compared,), _suggestion(causal),
                       page=Message("big_hint"), baseline=baseline)
    if k < len(tokens):
        k_token = Message("token_k", (k, Token(tokens[k])))
    else:  # the last token(s) deleted: k is past the end, named as it was before
        k_token = Message("removed_token_k", (k, Token(before_tokens[k])))
    earlier = report.max_earlier_diff
    common = report.common
    edited = k if 0 < k < common else None

    def shown(level: Level, claim: str, title: Message, detail: tuple[Message, ...],
              hint: Message, earlier_max: float = earlier) -> Verdict:
        return Verdict(level, claim, title, detail, hint, edited=edited, baseline=baseline,
                       earlier_max=earlier_max, compared=True)

    if k == 0:
        return shown("quiet", "E11", Message("first_changed"), (compared,),
                     Message("edit_later"))
    if causal and report.num_tokens_before != report.num_tokens_after:
        # E12: a new shape; the common prefix agrees only up to rounding (with the mask off
        # the earlier rows read the new tokens: the mask-off verdict below)
        what = Message("appended" if report.num_tokens_after > report.num_tokens_before
                       else "removed")
        if k >= common:
            title = Message("length_end", (report.num_tokens_before, report.num_tokens_after,
                                           what, fmt_diff(earlier)))
        else:
            title = Message("length_mid", (report.num_tokens_before, report.num_tokens_after,
                                           k_token, fmt_diff(earlier)))
        detail = (compared, Message("e12_detail"),
                  *((Message("here_zero"),) if earlier == 0 else ()))
        return shown("info", "E12", title, detail, Message("keep_count"))
    n_steps = len(report.step_names) - 1  # the report holds embed too: 22 steps after it
    if causal and report.exact:
        scores = Message("scores_all", (n_steps,))
        if report.scores_changed_count:
            scores = (Message("scores_future", (n_steps,), count=report.scores_changed_count)
                      if report.scores_changed_future_only else Message("scores_unexpected"))
        return shown("good", "E11", Message("bitwise", (k_token,)), (scores, compared),
                     Message("next_mask_off"))
    # after a change of length, rounding (E12: up to ~1e-12) is not a change
    floor = 0.0 if report.num_tokens_before == report.num_tokens_after else E12_ATOL
    changed_steps = [n for n in report.step_names
                     if report.earlier_max_abs_diff[n] > floor
                     and (n != "attn_scores" or not causal)]
    first_step = changed_steps[0] if changed_steps else ""
    if causal:
        title = Message("unexpected_on", (fmt_diff(earlier),))
    else:
        earlier = max(earlier, report.earlier_max_abs_diff["attn_scores"])
        title = Message("mask_off_changed", (fmt_diff(earlier), k_token))
    steps = Message("steps_changed", (
        len(changed_steps), n_steps,
        str(STEP_NAMES.index(first_step)) if first_step else "–", first_step))
    return shown("warn", "E11", title, (steps, compared), Message("mask_back_on"), earlier)


def _nothing_compared(causal: bool, baseline: Baseline | None) -> Verdict:
    """No report: say why (the page says it larger when only releasing the pin helps)."""
    title = Message("none_title")
    if baseline is None:
        reason = Message("first_input")
    elif baseline.kind == "pinned" and baseline.trace is not None \
            and baseline.trace.causal != causal:
        # every edit stays uncompared until the pin is released: the page says so
        reason = Message("pin_blocks", (_on_off(baseline.trace.causal),))
        return Verdict("quiet", "E11", title, (reason,), _suggestion(causal), page=reason,
                       baseline=baseline)
    elif baseline.trace is not None and baseline.trace.causal != causal:
        reason = Message("mask_switched", (_on_off(causal),))
    else:
        reason = Message("layer_changed")
    return Verdict("quiet", "E11", title, (reason,), _suggestion(causal),
                   page=Message("big_hint"), baseline=None)


# ----- an intervention against the plain layer (issue 23) -----
#: Where each kind of intervention first acts: the first step it may change.
ACTS_AT = {"zero_head": "attn_context", "scale_head": "attn_context",
           "zero_neuron": "gated", "skip": None}
SKIP_ACTS_AT = {"attention": "resid_attn", "mlp": "resid_mlp"}


@dataclass(frozen=True)
class InterventionVerdict:
    """What the causality panel says of an intervened run against the plain layer.

    ``title`` and ``detail`` are :class:`Message` s: "iv_same" (no step differs), "iv_steps"
    (%1 = the last identical step's number, %2 = the first differing step), "iv_heads_only"
    (%1 = the heads, %2 = max |Δ| there), "iv_heads_more" (other heads' columns changed: a
    fault), "iv_rows" (%1 rows of %2 change in %3, max |Δ| %4), "iv_early" (a step before
    the intervention acts differs: a fault)."""

    level: Level
    title: Message
    detail: tuple[Message, ...]
    #: the first step that differs (None: none does), and where the intervention acts
    first_changed: str | None
    acts_at: str
    #: the steps bit-for-bit equal to the plain run's, in order, before the first change
    identical_before: tuple[str, ...]


def acts_at(parts: Sequence[object]) -> str:
    """The earliest step an intervention's parts act on."""
    steps = []
    for part in parts:
        kind, branch = getattr(part, "kind", ""), getattr(part, "branch", None)
        steps.append(SKIP_ACTS_AT[branch] if kind == "skip" else ACTS_AT[kind])
    return min(steps, key=STEP_NAMES.index)


def decide_intervention(diff: InterventionDiff) -> InterventionVerdict:
    """The verdict on ``diff`` (:func:`app.compute.compare_with_plain`): every step before
    the one the intervention acts on must be bit-for-bit the plain layer's, and a head
    intervention changes only that head's columns of ``attn_context``."""
    iv = diff.intervention
    start = acts_at(iv.parts())
    first = diff.first_changed
    if first is None:
        return InterventionVerdict("info", Message("iv_same"), (), None, start, diff.steps)
    cut = diff.steps.index(first)
    before = diff.steps[:cut]
    title = Message("iv_steps", (STEP_NAMES.index(before[-1]) if before else -1, first))
    detail: list[Message] = []
    level: Level = "good"
    if cut < diff.steps.index(start):
        level = "warn"
        detail.append(Message("iv_early", (first, start)))
    touched = set(iv.zero_heads) | {h for h, _ in iv.scales}
    if touched and not diff.identical["attn_context"]:
        heads = ", ".join(str(h) for h in diff.context_heads)
        if set(diff.context_heads) <= touched:
            detail.append(Message("iv_heads_only", (heads, diff.max_abs["attn_context"]),
                                  count=len(diff.context_heads)))
        else:
            level = "warn"
            detail.append(Message("iv_heads_more", (heads,)))
    last = diff.steps[-1]
    detail.append(Message("iv_rows", (diff.rows_changed[last], diff.num_tokens, last,
                                      diff.max_abs[last])))
    return InterventionVerdict(level, title, tuple(detail), first, start, before)
