"""The one exception type the engine raises for input a person can fix, and its catalogue.

Every :class:`EngineError` has a stable ``code`` (a key of :data:`MESSAGES`) and the
``params`` its English template is filled with. The engine speaks English; an interface in
another language looks the code up in its own catalogue (the template is the source text) and
fills in the same parameters, so it never has to parse an English sentence. An English phrase
passed as a parameter (which branch overflowed, what to change) is a :class:`Phrase`, listed in
:data:`PHRASES`, so it can be translated too.
"""

from __future__ import annotations

from typing import Any

#: code -> English template (``str.format`` fields). The code is the contract with callers;
#: the wording may change (a translation then shows as out of date, not wrong).
MESSAGES: dict[str, str] = {
    # argument types and numbers, any function
    "array_ragged": "{name} must be an array of numbers with rows of equal length ({reason})",
    "config_type": "config must be a Qwen3Config, got {got}",
    "real_type": "{name} must be a real number, got {value!r}",
    "real_too_large": "{name} is too large for float64; use a value below 1e308",
    "not_finite": "{name} must be finite, got {value}",
    "below_limit": "{name} must be {op} {low}, got {value}",
    "number_type": "{name} must be a number, got {value!r}",
    "int_too_large": "{name} must be finite (below 1e308), got a larger int",
    "whole_number": "{name} must be a whole number, got {value!r}",
    "at_least_one": "{name} must be at least 1, got {value}",
    "whole_at_least": "{name} must be a whole number >= {low}, got {value!r}",
    "positive": "{name} must be a finite number > 0, got {value}",
    "non_negative": "{name} must be a finite number >= 0, got {value}",
    "flag_type": "{name} must be True or False, got {value!r}",
    "one_of": "{name} must be one of {choices}, got {value!r}",
    "dtype_not_real": "{name} must be real numbers, got dtype {dtype}",
    "ndim": "{name} must have {ndim} dimensions, got shape {shape}",
    "nan_inf": "{name} contains NaN or Inf",
    "shape_expected": "{name}: expected shape {expected}, got {shape}",
    # text and tokens
    "text_type": "text must be a string, got {got}",
    "tokens_is_text": "tokens must be a list of strings; pass tokenize(text), not the text",
    "tokens_type": "tokens must be a list of strings, got {got}",
    "token_type": "tokens must be strings, got {token!r}",
    "no_tokens": "no tokens: type at least one word or character",
    "token_cap": "{count} tokens is more than the {limit} the engine takes; shorten the text",
    # config
    "gqa_multiple": "num_attention_heads ({heads}) must be a multiple of num_key_value_heads "
                    "({kv_heads}) for grouped-query attention",
    "head_dim_odd": "head_dim must be even for RoPE's half split, got {value}",
    "config_mapping": "a config must be a mapping of fields, got {got}",
    "config_key_type": "config field names must be strings, got {key!r}",
    "config_unknown": "unknown config field(s): {fields}",
    # the layer
    "input_shape": "input must be [tokens, hidden_size], got shape {shape}",
    "hidden_mismatch": "input has {d} features but the layer's hidden_size is {hidden_size}",
    "weights_type": "weights must be LayerWeights, got {got}",
    "weights_config": "weights were made for {made_for}, not {config}",
    "layer_zero_rms": "the layer divided by zero at step {index} ({step}): {norm_of} is zero (or "
                      "too small to square in float64), and a zero vector has no RMS at "
                      "rms_norm_eps = 0; use rms_norm_eps > 0 or {fix}",
    # interventions (engine.Intervention)
    "intervention_type": "intervention must be an engine.Intervention or None, got {got}",
    "intervention_indices": "{name} must be whole numbers (head or neuron indices), got {value!r}",
    "intervention_negative": "{name}: indices count from 0, got {index}",
    "intervention_repeat": "{name} lists an index twice: {value}",
    "intervention_range": "{name}: there is no {index}; valid indices are 0 to {last}",
    "intervention_scale_type": "head_scale must map head indices to factors, got {value!r}",
    "intervention_scale": "head_scale: the factor of head {head} must be a finite number, "
                          "got {value!r}",
    "intervention_zero_and_scale": "heads {heads} are both zeroed and scaled; choose one",
    "intervention_skip": "skip names branches to skip, from {choices}; got {value!r}",
    "layer_overflow": "the layer overflowed at step {index} ({step}); use smaller inputs or "
                      "weights",
    # traces
    "trace_type": "{name} must be a LayerTrace, got {got}",
    "layer_trace_type": "trace must be a LayerTrace from run_layer, got {got}",
    "expected_trace": "expected a LayerTrace, got {got}",
    "traces_config_differ": "the two traces come from different layer configs; compare traces "
                            "of the same layer",
    "traces_causal_differ": "one trace is causal and the other is not; compare like with like",
    # the continuous view
    "overflow_alpha": "{what} overflowed; use smaller inputs, weights or α",
    "input_past_1e150": "the input has values past 1e150, where RMSNorm's squares overflow; use "
                        "smaller inputs",
    "zero_row_rms": "a row of the input is zero (or too small to square in float64), and a zero "
                    "vector has no RMS at rms_norm_eps = 0; use rms_norm_eps > 0 or a non-zero "
                    "input",
    "depth_t_range": "depth time t must be in [0, 1], got {t}",
    "n_points": "n_points must be an odd whole number >= 3 (so t = ½ is on the grid), got "
                "{value!r}",
    "substeps_max": "{name} = {n} sub-steps is more than this demo needs (max 100000)",
    "ns_type": "ns must be a list of sub-step counts such as (1, 2, 4), got {value!r}",
    "ns_empty": "ns must list at least one sub-step count",
    "ns_order": "ns must be strictly increasing, got {ns}",
    "ns_max": "n = {n} sub-steps is more than the sweep needs (max 4096)",
    "second_order": "second_order must be a second-order scheme: heun or strang",
    # weights
    "weight_dtype": "{name}: expected real numbers, got dtype {dtype}",
    "weight_nan": "{name}: contains NaN or Inf",
    "weights_mapping": "weights must be a mapping of names to arrays (a dict or a state dict), "
                       "got {got}",
    "weights_missing": "missing weight(s): {names}",
    "weights_unexpected": "unexpected weight(s): {names}",
    "weight_name_type": "weight names must be strings, got {key!r}",
    "weights_layers": "tensors from several layers ({layers}); pass one layer's tensors",
    "weight_twice": "weight {name} given twice",
    "weights_for_config": "weights must be LayerWeights made for this config",
    # weights files
    "file_unexpected": "{path}: unexpected weight(s): {names}",
    "file_missing": "no weights file at {path}",
    "file_unreadable": "{path} is not a readable weights file: {reason}",
    "file_no_config": "{path} has no layer config; was it written by LayerWeights.save?",
    "file_bad_config": "{path}: unreadable layer config ({reason})",
    "file_npy_version": "{path}: {name} is stored in an unknown .npy version {version}",
    "file_objects": "{path}: {name} holds Python objects; only numbers are read",
    "file_config_not_json": "{path}: the layer config is not JSON text",
    "file_cut_short": "{path}: {name} is cut short",
    "npz_damaged": "{path}: {name} is damaged ({reason}); copy the file again",
    "npz_twice": "{path} holds {name} twice; a file of LayerWeights.save holds each once",
    "npz_encrypted": "{path}: {name} is encrypted; this app reads files without a password, "
                     "as LayerWeights.save writes them",
    "npz_method": "{path}: {name} is compressed with zip method {method}; this app reads "
                  "stored or deflated members (numpy.savez, numpy.savez_compressed)",
    "npz_inflates": "{path}: {name} claims {size} bytes from {compressed} compressed bytes, "
                    "more than deflate can give; the file is damaged",
    "npz_size": "{path}: {name} is cut short or damaged: it holds {size} bytes, but its "
                "header (shape {shape}, {dtype}) needs {needed}",
    # checkpoints: safetensors files (engine.checkpoint)
    "st_truncated": "{path} is cut short: it ends before the data its header describes; "
                    "copy the file again",
    "st_not_safetensors": "{path} is not a .safetensors file (nor an .npz of layer weights)",
    "st_bad_header": "{path}: the safetensors header is damaged ({reason})",
    "st_bad_entry": "{path}: the header's entry for {name} is damaged (it needs a dtype, a "
                    "shape and two data offsets)",
    "st_outside": "{path}: {name}'s data would end at byte {end} of the data, but there are "
                  "only {size} bytes; the file is cut short or damaged",
    "st_duplicate": "{path}: the safetensors header names {name} twice; the file is damaged",
    "st_overlap": "{path}: {name} and {other} share bytes {begin}–{end} of the data; the file "
                  "is damaged",
    "st_gap": "{path}: bytes {begin}–{end} of the data belong to no tensor; the file is "
              "damaged or was not written as a safetensors file",
    "st_size_mismatch": "{path}: {name} claims shape {shape} in {dtype} but holds {nbytes} "
                        "bytes",
    "st_dtype": "{name} is stored as {dtype}; this app reads {supported}",
    "st_no_layers": "{path} holds no decoder layer (no tensor named model.layers.N.…)",
    "st_layer_absent": "{path} has no layer {layer}; it holds layer(s) {layers}",
    "st_too_large": "this layer has {count} weights, more than the {limit} of the largest "
                    "layer this app runs (Qwen3-0.6B's)",
    "st_inconsistent": "the layer's shapes do not fit together: q_proj has {q_rows} rows and "
                       "k_proj {k_rows}, not whole heads of head_dim {head_dim} (q_norm's size)",
    "st_bad_config_json": "{path} cannot be read as a model config ({reason}); fix or remove "
                          "it",
    # whole models: a Hugging Face model folder (engine.model, engine.model_files)
    "model_not_folder": "{path} is not a folder; open a model folder (config.json, "
                        "tokenizer.json and the .safetensors weights)",
    "model_missing_file": "{path} is missing; a model folder needs config.json, tokenizer.json "
                          "and model.safetensors (or its shards and model.safetensors.index.json)",
    "model_not_file": "{path} is not a regular file",
    "model_unreadable": "{path} cannot be read: {reason}",
    "model_file_too_large": "{path} is {size} bytes, more than the {limit} such a file can be",
    "model_bad_json": "{path} is not valid JSON of its kind ({reason})",
    "model_not_qwen3": "{path} describes a {got} model; the engine runs Qwen3 (model_type "
                       "qwen3, Qwen3ForCausalLM)",
    "model_config_field": "{path}: {name} must be {expected}, got {value!r}",
    "model_unsupported": "{path}: {name} = {value!r} is not supported; the engine runs "
                         "{supported}",
    "model_config_invalid": "{path}: the layer shape it gives is invalid ({reason})",
    "model_index_shard": "{path} names the shard {shard}, which is not in the folder",
    "model_tensor_missing": "{path} has no tensor {name}, which the model needs",
    "model_tensor_shape": "{path}: {name} has shape {shape}, but config.json makes it "
                          "{expected}",
    "model_tensor_dtype": "{path}: {name} is stored as {dtype}; the engine reads {supported}",
    "model_tensor_nan": "{path}: {name} contains NaN or Inf",
    "model_unexpected": "{path} holds tensors a Qwen3 model does not have: {names}",
    "model_tokenizer": "{path} cannot be read as a tokenizer ({reason})",
    "model_tokenizer_vocab": "{path}: token {token!r} has id {id}, beyond the model's "
                             "vocab_size {vocab_size}",
    "model_ids": "ids must be a list of token ids from 0 to {last}, got {value!r}",
    "model_layer": "layer must be a whole number from 0 to {last}, got {value!r}",
    "model_cache": "cache must be an earlier run of this same model, got {got}",
    "model_intervene_layers": "intervene_layers must be \"all\", a layer index or a list of "
                              "different layer indices from 0 to {last}, got {value!r}",
    "model_intervene_layer": "intervene_layers: there is no layer {index}; valid layers are 0 "
                             "to {last}",
    "model_base": "base must be the plain run (no intervention) of the same ids on this same "
                  "model, got {got}",
    "model_base_and_cache": "pass either base (the plain run of the same ids) or cache (an "
                            "earlier run), not both",
    "model_overflow": "the model's logits overflowed float64; its weights are too large",
    # lenses: temperature
    "qk_shape": "q and k must both be [heads, tokens, head_dim] and non-empty, got {q_shape} "
                "and {k_shape}",
    "qk_overflow": "q·k overflows float64; use smaller q and k (the layer's own are bounded by "
                   "q/k-norm)",
    "too_cold": "multiplier = {multiplier:g} is too small for these logits: s/τ overflows "
                "float64; use a multiplier of at least {safe:.3g}",
    "multipliers": "multipliers must be a non-empty list of numbers > 0",
    "rows_range": "rows must be a non-empty list of query rows 0 … {last}",
    # lenses: encoder block and splitting
    "norm_param_shape": "{name}: expected a scalar or shape ({d},), got {shape}",
    "splitting_d_ff": "the splitting scheme reads FFN weights as I + ΔtW, so it needs d_ff = "
                      "d_model; this block has d_ff = {d_ff}, d = {d}",
    "omega_range": "relaxation ω must be in [0, 1), got {omega}",
    "overflow_before": "the state overflowed before {what}; use smaller inputs or weights",
    "layernorm_zero_variance": "{what} is 0/0 at ε = 0: a token's row has all its features equal "
                               "(an all-zero input, say), or so nearly equal that the variance "
                               "underflows; use ε > 0 or a non-constant input",
    "overflow_gamma": "{what} overflowed; use smaller inputs, weights or γ",
    "model_type": "{name} must be of type {kind}, got {got}",
    "encoder_input_shape": "input must be [tokens ≥ 1, {d}], got shape {shape}",
    "model_kind": "model must be an EncoderBlock or SplittingScheme, got {got}",
    # lenses: stacks of layers
    "n_layers_range": "n_layers must be a whole number from 1 to {limit}, got {value!r}",
    "stack_input_shape": "input must be [tokens ≥ 1, features ≥ 1], got shape {shape}",
    "heads_divide": "n_heads ({n_heads}) must divide the feature count ({d})",
    "stack_zero_row": "a row of the input is zero (or too small to square in float64), and its "
                      "norm at eps = 0 is 0/0; use eps > 0 or a non-zero input",
    # lenses: attention facts
    "offset_range": "position_offset must be at most 2**52 in size (RoPE's positions are "
                    "float64, exact below 2**53), got {value}",
    "heads_split": "context [T, {width}] and o_proj.weight {shape} do not split into {n_heads} "
                   "heads",
    "values_shape": "values must be a non-empty [heads, tokens, head_dim], got {shape}",
    # norms
    "vector_1d": "{name} must be one vector (1-D), got shape {shape}",
    "min_entries": "{name} needs at least {min_size} entries, got {size}",
    "entry_too_large": "{name} has an entry of size {largest:.3g}; past 1e150 its square "
                       "overflows float64: use smaller values",
    "entry_too_small": "{name}'s largest entry is {largest:.3g}; below 1e-150 its square "
                       "underflows float64 to 0: scale {name} up or use exact zeros",
    "spread_too_small": "{name}'s entries differ from their mean by at most {spread:.3g}; below "
                        "1e-150 the variance underflows float64: spread them further apart or "
                        "make {name} exactly constant",
    "value_too_large": "{name} must be at most 1e150 in size (its square overflows float64), "
                       "got {value:g}",
    "lengths_differ": "v and u must have the same length, got {v} and {u}",
    "gamma_entries": "gamma must have {d} entries like v, got {size}",
    "ln_constant_eps": "LayerNorm of a constant vector is 0/0 at ε = 0; use ε > 0",
    "eps_shrinks": "ε = {eps:g} shrinks v to entries of size {shrunk:.3g}, below 1e-150 where "
                   "their squares underflow float64: use a smaller ε",
    "gamma_beta_entries": "gamma and beta must have {d} entries like v",
    "gamma_zero": "gamma is all zeros: the image set is one point",
    "ln_constant": "LayerNorm of a constant vector is 0/0 at ε = 0",
}

#: English phrases the engine passes as parameters (translated like the templates).
PHRASES: frozenset[str] = frozenset({
    "the attention branch", "the MLP branch", "the sub-stepped layer", "the ReZero layer",
    "Euler sub-stepping", "the flow", "every n",
    "a row of embed", "a head's slice of q_proj", "a head's slice of k_proj",
    "a row of resid_attn", "a non-zero input", "inputs and weights that keep it non-zero",
    "the block's first LayerNorm", "the block's second LayerNorm",
    "not an .npz archive", "a tensor too large for memory",
    "not a JSON object", "far too large for a config.json", "not a regular file",
    "__metadata__ is not a map of text to text",
})


class Phrase(str):
    """An English phrase used as a message parameter; one of :data:`PHRASES`."""

    def __new__(cls, text: str) -> Phrase:
        if text not in PHRASES:
            raise KeyError(f"{text!r} is not in engine.errors.PHRASES")
        return super().__new__(cls, text)


def _restore(code: str, params: dict[str, Any]) -> EngineError:
    return EngineError(code, **params)


class EngineError(ValueError):
    """Invalid input to the engine. The message says what to change.

    ``EngineError(code, **params)``: ``str(exc)`` is ``MESSAGES[code].format(**params)``;
    ``exc.code`` and ``exc.params`` let an interface word it in another language. A subclass
    of ``ValueError`` so callers that catch ``ValueError`` keep working.
    """

    def __init__(self, code: str, /, **params: Any) -> None:
        # a KeyError here for an unlisted code: every error the engine raises has a kind
        super().__init__(MESSAGES[code].format(**params))
        self.code = code
        self.params = params

    def __reduce__(self) -> tuple[Any, ...]:  # picklable although __init__ takes a code
        return _restore, (self.code, self.params)
