"""Layer shapes with Hugging Face's Qwen3 field names."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields
from typing import Any

from engine.errors import EngineError

#: Longest input the engine accepts. Attention is T x T per head, so 2048 tokens is already
#: 4 M scores a head; beyond that a classroom demo stops being interactive.
MAX_TOKENS = 2048


@dataclass(frozen=True)
class Qwen3Config:
    """The shape of one Qwen3 decoder layer. Field names match ``transformers.Qwen3Config``.

    ``head_dim`` is its own field: real Qwen3 models use ``head_dim != hidden_size / heads``.
    The default is a toy small enough to read every number.
    """

    hidden_size: int = 16
    intermediate_size: int = 32
    num_attention_heads: int = 4
    num_key_value_heads: int = 2
    head_dim: int = 4
    rms_norm_eps: float = 1e-6
    rope_theta: float = 10000.0

    def __post_init__(self) -> None:
        for name in ("hidden_size", "intermediate_size", "num_attention_heads",
                     "num_key_value_heads", "head_dim"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise EngineError("whole_number", name=name, value=value)
            if value < 1:
                raise EngineError("at_least_one", name=name, value=value)
        if self.num_attention_heads % self.num_key_value_heads:
            raise EngineError("gqa_multiple", heads=self.num_attention_heads,
                              kv_heads=self.num_key_value_heads)
        if self.head_dim % 2:
            raise EngineError("head_dim_odd", value=self.head_dim)
        for name in ("rms_norm_eps", "rope_theta"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise EngineError("number_type", name=name, value=value)
            if isinstance(value, int) and abs(value) > 1e308:  # isfinite would raise
                raise EngineError("int_too_large", name=name)
            if not math.isfinite(value):
                raise EngineError("not_finite", name=name, value=value)
        if self.rms_norm_eps < 0:
            raise EngineError("below_limit", name="rms_norm_eps", op=">=", low=0,
                              value=self.rms_norm_eps)
        if self.rope_theta <= 1:
            raise EngineError("below_limit", name="rope_theta", op=">", low=1,
                              value=self.rope_theta)

    @property
    def group_size(self) -> int:
        """Query heads that share one key/value head (GQA)."""
        return self.num_attention_heads // self.num_key_value_heads

    @classmethod
    def toy(cls) -> Qwen3Config:
        """The default toy layer: hidden 16, 4 heads, 2 kv heads, head_dim 4, intermediate 32."""
        return cls()

    @classmethod
    def qwen3_0_6b(cls) -> Qwen3Config:
        """The real Qwen3-0.6B layer shape."""
        return cls(hidden_size=1024, intermediate_size=3072, num_attention_heads=16,
                   num_key_value_heads=8, head_dim=128, rms_norm_eps=1e-6, rope_theta=1e6)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Qwen3Config:
        """Build from a mapping; unknown keys are an error so typos do not pass silently."""
        if not isinstance(data, dict):
            raise EngineError("config_mapping", got=type(data).__name__)
        for key in data:
            if not isinstance(key, str):
                raise EngineError("config_key_type", key=key)
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise EngineError("config_unknown", fields=", ".join(unknown))
        return cls(**data)


#: Convenience instances.
TOY_CONFIG = Qwen3Config.toy()
QWEN3_0_6B = Qwen3Config.qwen3_0_6b()
