"""Interventions: switch parts of the layer off (or down) and see what changes.

``Intervention(zero_heads=(1,), head_scale={2: 0.5}, zero_neurons=(3, 7), skip=("mlp",))``:

- ``zero_heads``: those query heads' attention output (their columns of ``attn_context``) is
  zero before ``o_proj``;
- ``head_scale``: a head's attention output times the factor before ``o_proj``;
- ``zero_neurons``: those columns of the gated product ``act(gate) * up`` are zero before
  ``down_proj``;
- ``skip``: ``"attention"`` and/or ``"mlp"``: that branch's residual adds nothing
  (``resid_attn`` is a copy of the input, ``resid_mlp`` of ``resid_attn``). The skipped
  branch's own steps are still computed and recorded, so one can see what was cut off.

Everything upstream of an intervention keeps its bits; ``Intervention()`` is the plain layer.
The object is frozen and hashable; head and neuron ranges are checked against a config by
:meth:`Intervention.check` (``run_layer`` calls it).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from engine.config import Qwen3Config
from engine.errors import EngineError

BRANCHES: tuple[str, ...] = ("attention", "mlp")
_BRANCH_WORDS = {"attention": "attention", "mlp": "MLP"}


def _indices(value: object, name: str) -> tuple[int, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise EngineError("intervention_indices", name=name, value=value)
    out = []
    for item in value:
        if isinstance(item, (bool, np.bool_)) or not isinstance(item, (int, np.integer)):
            raise EngineError("intervention_indices", name=name, value=value)
        if item < 0:
            raise EngineError("intervention_negative", name=name, index=int(item))
        out.append(int(item))
    if len(set(out)) != len(out):
        raise EngineError("intervention_repeat", name=name, value=tuple(out))
    return tuple(sorted(out))


class Part(NamedTuple):
    """One thing an intervention switches: ``kind`` is "zero_head", "scale_head",
    "zero_neuron" or "skip"; ``index`` the head or neuron (or None); ``branch`` for a skip;
    ``factor`` for a scale."""

    kind: str
    index: int | None = None
    branch: str | None = None
    factor: float | None = None


@dataclass(frozen=True)
class Intervention:
    """What to switch off in one layer run (see the module docstring)."""

    zero_heads: tuple[int, ...] = ()
    #: head -> factor; given as a mapping or pairs, kept as sorted ``(head, factor)`` pairs
    head_scale: tuple[tuple[int, float], ...] | Mapping[int, float] = field(default=())
    zero_neurons: tuple[int, ...] = ()
    skip: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # normalised (sorted, plain ints and floats) so equal interventions compare and hash
        # equal however they were written (a dict or pairs, a list or a tuple)
        zero_heads = _indices(self.zero_heads, "zero_heads")
        scale = self.head_scale
        if isinstance(scale, Mapping):
            scale = tuple(scale.items())
        if isinstance(scale, (str, bytes)) or not isinstance(scale, Iterable):
            raise EngineError("intervention_scale_type", value=self.head_scale)
        pairs = []
        for pair in scale:
            if not isinstance(pair, tuple) or len(pair) != 2:
                raise EngineError("intervention_scale_type", value=self.head_scale)
            (head,), factor = _indices((pair[0],), "head_scale"), pair[1]
            if (isinstance(factor, (bool, np.bool_))
                    or not isinstance(factor, (int, float, np.integer, np.floating))
                    or not math.isfinite(float(factor))):
                raise EngineError("intervention_scale", head=head, value=factor)
            pairs.append((head, float(factor)))
        heads = _indices([head for head, _ in pairs], "head_scale")
        both = sorted(set(heads) & set(zero_heads))
        if both:
            raise EngineError("intervention_zero_and_scale", heads=tuple(both))
        if isinstance(self.skip, str) or not isinstance(self.skip, Iterable):
            raise EngineError("intervention_skip", value=self.skip, choices=", ".join(BRANCHES))
        skip = tuple(self.skip)
        if any(name not in BRANCHES for name in skip) or len(set(skip)) != len(skip):
            raise EngineError("intervention_skip", value=skip, choices=", ".join(BRANCHES))
        object.__setattr__(self, "zero_heads", zero_heads)
        object.__setattr__(self, "head_scale", tuple(sorted(pairs)))
        object.__setattr__(self, "zero_neurons", _indices(self.zero_neurons, "zero_neurons"))
        object.__setattr__(self, "skip", tuple(name for name in BRANCHES if name in skip))

    @property
    def scales(self) -> tuple[tuple[int, float], ...]:
        """``head_scale`` as it is kept: sorted ``(head, factor)`` pairs."""
        return tuple(self.head_scale)  # type: ignore[arg-type]  (normalised in __post_init__)

    @property
    def is_empty(self) -> bool:
        """True when nothing is switched: the plain layer, bit for bit."""
        return not (self.zero_heads or self.head_scale or self.zero_neurons or self.skip)

    def skips(self, branch: str) -> bool:
        return branch in self.skip

    def check(self, config: Qwen3Config) -> Intervention:
        """This intervention, or an EngineError naming the valid range of a head or neuron
        that ``config``'s layer does not have."""
        n_heads, width = config.num_attention_heads, config.intermediate_size
        for name, indices, count in (("zero_heads", self.zero_heads, n_heads),
                                     ("head_scale", [h for h, _ in self.scales], n_heads),
                                     ("zero_neurons", self.zero_neurons, width)):
            for index in indices:
                if index >= count:
                    raise EngineError("intervention_range", name=name, index=index,
                                      last=count - 1)
        return self

    def head_factors(self, n_heads: int) -> np.ndarray | None:
        """``[n_heads]``: what each head's attention output is multiplied by before o_proj
        (0: zeroed, 1: left alone), or None when no head is touched."""
        if not (self.zero_heads or self.head_scale):
            return None
        factors = np.ones(n_heads)
        factors[list(self.zero_heads)] = 0.0
        for head, factor in self.scales:
            factors[head] = factor
        return factors

    def neurons(self) -> np.ndarray | None:
        """The zeroed MLP columns as an index array, or None."""
        return np.array(self.zero_neurons, dtype=np.intp) if self.zero_neurons else None

    def parts(self) -> tuple[Part, ...]:
        """What is switched, one :class:`Part` each, for an interface to word in its language."""
        return (tuple(Part("skip", branch=name) for name in self.skip)
                + tuple(Part("zero_head", index=h) for h in self.zero_heads)
                + tuple(Part("scale_head", index=h, factor=f) for h, f in self.scales)
                + tuple(Part("zero_neuron", index=n) for n in self.zero_neurons))

    def describe(self) -> str:
        """What is off, in English ("nothing" for the plain layer)."""
        words = []
        if self.skip:
            words.append(" and ".join(f"{_BRANCH_WORDS[name]} branch skipped"
                                      for name in self.skip))
        if self.zero_heads:
            words.append(f"{_plural('head', self.zero_heads)} zeroed")
        for head, factor in self.scales:
            words.append(f"head {head} scaled by {factor:g}")
        if self.zero_neurons:
            words.append(f"MLP {_plural('neuron', self.zero_neurons)} zeroed")
        return "; ".join(words) if words else "nothing"


def _plural(noun: str, indices: tuple[int, ...]) -> str:
    listed = ", ".join(str(i) for i in indices)
    return f"{noun}s {listed}" if len(indices) > 1 else f"{noun} {listed}"


def check_intervention(value: object, config: Qwen3Config) -> Intervention | None:
    """``value`` (an Intervention or None) checked against ``config``; an empty one is None,
    so every later test of "is there an intervention" sees the plain layer as plain."""
    if value is None:
        return None
    if not isinstance(value, Intervention):
        raise EngineError("intervention_type", got=type(value).__name__)
    return None if value.is_empty else value.check(config)
