"""Dual View's engine: one exact Qwen3 decoder layer in float64, pure numpy, no Qt."""

from engine.causality import CausalityReport, compare_traces
from engine.config import MAX_TOKENS, QWEN3_0_6B, TOY_CONFIG, Qwen3Config
from engine.continuous import (
    Convergence,
    DepthStates,
    attention_branch,
    convergence,
    depth_states,
    mlp_branch,
    rezero_layer,
    substep_layer,
)
from engine.errors import EngineError
from engine.intervention import Intervention
from engine.layer import STEP_INFO, STEP_NAMES, LayerTrace, Step, StepInfo, run_layer
from engine.norms import (
    NormComparison,
    Projection,
    compare_norms,
    layernorm_miss,
    project_to_layernorm_set,
    rmsnorm_radial_projection,
)
from engine.tokens import embed, tokenize
from engine.weights import WEIGHT_NAMES, LayerWeights, weight_shapes

__all__ = [
    "MAX_TOKENS",
    "QWEN3_0_6B",
    "STEP_INFO",
    "STEP_NAMES",
    "TOY_CONFIG",
    "WEIGHT_NAMES",
    "CausalityReport",
    "Convergence",
    "DepthStates",
    "EngineError",
    "Intervention",
    "LayerTrace",
    "LayerWeights",
    "NormComparison",
    "Projection",
    "Qwen3Config",
    "Step",
    "StepInfo",
    "attention_branch",
    "compare_norms",
    "compare_traces",
    "convergence",
    "depth_states",
    "embed",
    "layernorm_miss",
    "mlp_branch",
    "project_to_layernorm_set",
    "rezero_layer",
    "rmsnorm_radial_projection",
    "run_layer",
    "substep_layer",
    "tokenize",
    "weight_shapes",
]
