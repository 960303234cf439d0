"""Dual View's engine: one exact Qwen3 decoder layer in float64, pure numpy, no Qt."""

from engine.config import MAX_TOKENS, QWEN3_0_6B, TOY_CONFIG, Qwen3Config
from engine.errors import EngineError
from engine.layer import STEP_INFO, STEP_NAMES, LayerTrace, Step, StepInfo, run_layer
from engine.tokens import embed, tokenize
from engine.weights import WEIGHT_NAMES, LayerWeights, weight_shapes

__all__ = [
    "MAX_TOKENS",
    "QWEN3_0_6B",
    "STEP_INFO",
    "STEP_NAMES",
    "TOY_CONFIG",
    "WEIGHT_NAMES",
    "EngineError",
    "LayerTrace",
    "LayerWeights",
    "Qwen3Config",
    "Step",
    "StepInfo",
    "embed",
    "run_layer",
    "tokenize",
    "weight_shapes",
]
