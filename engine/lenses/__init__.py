"""The paper and physics lenses (issue 6): each exact statement (docs/continuous.md) live.

Every function here is pure numpy float64 and returns a frozen dataclass whose arrays are
read-only, so a panel can hold a result without copying it. Modules:

- :mod:`engine.lenses.encoder` — the 2017 post-norm encoder block and the six-sub-step Lie
  splitting scheme that equals it (E1–E4).
- :mod:`engine.lenses.stack` — the "energy" mean(u²) through N random layers, post-norm,
  pre-norm and no norm, with a ReZero α (E15, E20, E21).
- :mod:`engine.lenses.temperature` — softmax as a Boltzmann distribution at temperature τ
  (E16–E18).
- :mod:`engine.lenses.attention_facts` — convex combination, q/k-norm logit bound, heads as a
  sum, permutation and RoPE shift (E19, E22–E24).
"""

from engine.lenses.attention_facts import (
    AttentionFacts,
    AttentionTrace,
    attention_facts,
    head_contributions,
    logit_bound,
    qwen3_attention,
    visible_value_range,
)
from engine.lenses.encoder import (
    EncoderBlock,
    SplittingResult,
    SplittingScheme,
    SubStep,
    block_from_scheme,
    encoder_block,
    lie_splitting,
    matched_closing_eps,
    random_block,
    random_scheme,
    scheme_from_block,
    skip_weight,
    splitting_lens,
)
from engine.lenses.stack import (
    MAX_LAYERS,
    VARIANTS,
    EnergySweep,
    StackTrace,
    energy_sweep,
    run_stack,
)
from engine.lenses.temperature import (
    TemperatureResult,
    entropy_curve,
    qk_from_trace,
    random_qk,
    temperature_lens,
)

__all__ = [
    "MAX_LAYERS",
    "VARIANTS",
    "AttentionFacts",
    "AttentionTrace",
    "EncoderBlock",
    "EnergySweep",
    "SplittingResult",
    "SplittingScheme",
    "StackTrace",
    "SubStep",
    "TemperatureResult",
    "attention_facts",
    "block_from_scheme",
    "encoder_block",
    "energy_sweep",
    "entropy_curve",
    "head_contributions",
    "lie_splitting",
    "logit_bound",
    "matched_closing_eps",
    "qk_from_trace",
    "qwen3_attention",
    "random_block",
    "random_qk",
    "random_scheme",
    "run_stack",
    "scheme_from_block",
    "skip_weight",
    "splitting_lens",
    "temperature_lens",
    "visible_value_range",
]
