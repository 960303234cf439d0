"""Overflow bookkeeping of the fast forward: which step overflowed first, read as rarely as
possible.

The layer reports overflow once, in words, naming the first step whose values passed 1e150 (an
RMSNorm squaring such a value would overflow and quietly give 0, so that counts too). Most
steps need no reading for that: a bound on their max |value| follows from the bounds of the
steps they are made of and the weights' (a product of K terms is at most K times the largest
factors, a convex combination at most its largest term). Only when such a bound is not small
enough (or there is none: the input, and the RMSNorms at ε = 0) is the step itself read.
"""

from __future__ import annotations

import math

import numpy as np

from engine.errors import EngineError, Phrase
from engine.steps import STEP_INFO
from engine.weights import LayerWeights

#: Beyond this a value would overflow when an RMSNorm squares it.
OVERFLOW = 1e150

#: Steps never read for overflow, because they cannot be the first to overflow: causal_mask
#: (holds -inf by design, else the scores), kv_repeat (copies of k_rope and v_proj), attn_probs
#: (in [0, 1] once attn_scores passed: each row's largest entry gives exp(0) = 1, so the sum is
#: >= 1) and silu_gate (|g / (1 + exp(-g))| <= |g|, and gate_proj passed).
_NOT_CHECKED = frozenset({"causal_mask", "kv_repeat", "attn_probs", "silu_gate"})

#: A bound on a step's max |value| proven from earlier steps spares reading the step when it is
#: below this: half the overflow limit, a margin far wider than the rounding of the sums and
#: products the bound stands for (relative K·2⁻⁵³ for a K-term sum).
_PROVEN = OVERFLOW / 2


#: Up to this many entries OpenBLAS computes a dot product on one thread (its ddot threshold).
_ONE_THREAD_DOT = 10_000


def magnitude(array: np.ndarray) -> float:
    """An upper bound on ``max |array|`` that is >= 1e150 exactly when some value is past 1e150
    (an RMSNorm squaring it would overflow and quietly give 0, so that counts as overflow too),
    and NaN or Inf for NaN or Inf.

    A small array is pre-screened by one dot product: a sum of squares below 1e300 bounds every
    value by its square root, the cheapest single call. Otherwise max and min decide (two SIMD
    reductions, NaN propagates): for a big array a multithreaded BLAS dot would wait for a
    second core, which on a busy machine costs more than it saves.
    """
    if array.size <= _ONE_THREAD_DOT:
        squares = np.vdot(array, array)
        if squares < OVERFLOW**2:
            return math.sqrt(squares)
    return float(np.maximum(np.maximum.reduce(array, axis=None),
                            -np.minimum.reduce(array, axis=None)))


class Recorder:
    """Collects the 23 step arrays in order and checks each for overflow as it comes.

    ``record(array, proven)``: ``proven`` is an upper bound on the step's max |value| from
    earlier steps (:meth:`product`, :meth:`norm`, or arithmetic on :attr:`bound`); the step is
    read only when there is none or it is not below ``_PROVEN``. Each array is made
    C-contiguous (display code wants C order; the fast path's q/k/v and gate/up views stay
    internal).
    """

    def __init__(self, weights: LayerWeights, eps: float) -> None:
        self.weights, self.eps = weights, eps
        self.steps: list[np.ndarray] = []
        self.bound: dict[str, float] = {}  # step -> an upper bound on its max |value|, < 1e150

    def record(self, array: np.ndarray, proven: float | None = None, *,
               norm_of: Phrase | None = None, norm_input: np.ndarray | None = None) -> None:
        info = STEP_INFO[len(self.steps)]
        array = np.ascontiguousarray(array)
        if proven is not None and proven < _PROVEN:
            self.bound[info.name] = proven
        elif info.name not in _NOT_CHECKED:
            self.bound[info.name] = size = magnitude(array)
            if not size < OVERFLOW:
                # an RMSNorm's input is below 1e150 (checked), so its squares cannot overflow:
                # at ε = 0 a zero sum of squares is 0/0 (or x/0 after underflow), not overflow
                if (norm_input is not None and self.eps == 0
                        and not np.all(np.add.reduce(norm_input * norm_input, axis=-1))):
                    fix = Phrase("a non-zero input" if info.index == 1
                                 else "inputs and weights that keep it non-zero")
                    raise EngineError("layer_zero_rms", index=info.index, step=info.name,
                                      norm_of=norm_of, fix=fix)
                raise EngineError("layer_overflow", index=info.index, step=info.name)
        self.steps.append(array)

    def product(self, step: str, weight: str, terms: int) -> float:
        """A bound on ``step @ weight.T`` with ``terms`` products per entry."""
        return terms * self.bound[step] * self.weights.max_abs(weight)

    def norm(self, weight: str, width: int) -> float | None:
        """A bound on an RMSNorm's output: |x_i| <= sqrt(width · mean(x²)), so
        |w_i x_i / sqrt(mean(x²) + ε)| <= max|w|·√width; at ε = 0 a zero row gives 0/0, which
        only reading the step finds (None)."""
        return math.sqrt(width) * self.weights.max_abs(weight) if self.eps > 0 else None


def proven_layer(weights: LayerWeights, input_bound: float, head_gain: float = 1.0) -> bool:
    """Whether ``run_layer`` on an input with ``max |value| <= input_bound`` proves every step
    below the limit from bounds alone, reading no step but the input (so it cannot raise):
    the bounds ``engine.fastpath.fast_forward`` hands :class:`Recorder`, step by step.
    ``head_gain``: the largest |factor| an intervention puts on a head's output (at least 1).
    False also when a bound is not small enough (or there is none: ε = 0), where run_layer
    would read the step; a caller then runs it, which reads what it must."""
    config = weights.config
    if not (input_bound < OVERFLOW and config.rms_norm_eps > 0):
        return False
    top, d, width = weights.max_abs, config.head_dim, config.hidden_size
    norm1 = math.sqrt(width) * top("input_layernorm.weight")
    q, k, v = (width * norm1 * top(f"self_attn.{name}_proj.weight") for name in "qkv")
    q_rope = 2 * math.sqrt(d) * top("self_attn.q_norm.weight")  # x·cos ± x'·sin
    k_rope = 2 * math.sqrt(d) * top("self_attn.k_norm.weight")
    scores = d * q_rope * k_rope * d**-0.5
    o_proj = config.num_attention_heads * d * (v * head_gain) * top("self_attn.o_proj.weight")
    resid_attn = input_bound + o_proj
    norm2 = math.sqrt(width) * top("post_attention_layernorm.weight")
    gate = width * norm2 * top("mlp.gate_proj.weight")
    up = width * norm2 * top("mlp.up_proj.weight")
    down = config.intermediate_size * (gate * up) * top("mlp.down_proj.weight")
    return all(bound < _PROVEN for bound in (
        norm1, q, k, v, q_rope / 2, k_rope / 2, q_rope, k_rope, scores, v * head_gain, o_proj,
        resid_attn, norm2, gate, up, gate * up, down, resid_attn + down))
