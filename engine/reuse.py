"""Softmax reuse: the attention rows an earlier trace already holds are not computed again.

A row's probabilities are a function of its masked row alone, so when a masked row keeps every
bit it had in an earlier trace (with the mask on, an edit of token k leaves every row before k
so), its probabilities are that trace's, copied instead of exponentiated again
(``ops.causal_softmax_rows`` does the comparison and the copy, row block by row block). An edit
of the last of 512 tokens reuses 511 of 512 rows, about a third of the layer. The result is the
same bits either way.
"""

from __future__ import annotations

from engine import ops
from engine.errors import EngineError
from engine.intervention import Intervention
from engine.steps import LayerTrace


def reusable(reuse: object, causal: bool, num_tokens: int,
             intervention: Intervention | None) -> ops.Known | None:
    """``masked, probs`` of ``reuse`` (an earlier ``LayerTrace`` or None) for a layer run with
    ``causal`` on ``num_tokens`` tokens under ``intervention``, or None when none can be reused:
    without the mask every row sees every token, another length has other rows, and another
    intervention (``None`` and an empty one are the same) is another computation, whose rows
    are never mixed with this one's.
    """
    if reuse is None:
        return None
    if not isinstance(reuse, LayerTrace):
        raise EngineError("trace_type", name="reuse", got=type(reuse).__name__)
    if (reuse.causal and causal and reuse.num_tokens == num_tokens
            and reuse.intervention == intervention):
        return reuse["causal_mask"], reuse["attn_probs"]
    return None
