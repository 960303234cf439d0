"""The logit lens (engine.logit_lens): each state of a real forward of the tiny checkpoints,
read out through the final RMSNorm and the LM head, against an independent computation from the
safetensors files themselves, and its last row against the model's own logits."""

from pathlib import Path

import numpy as np
import pytest

from engine.logit_lens import logit_lens, softmax, top_tokens
from engine.model import Qwen3Model
from tests.test_model import read_tensors

DATA = Path(__file__).parent / "data"
SHARDED, UNTIED = DATA / "model_bf16_sharded", DATA / "model_f32_untied"
TEXT = "我爱北京 the cat"


def stored(folder):
    """name -> float64 array, read from every .safetensors file of a folder by the test's own
    reader (bf16 widened by hand: its bits are float32's top half)."""
    out = {}
    for path in sorted(folder.glob("*.safetensors")):
        for name, (dtype, array) in read_tensors(path).items():
            if dtype == "BF16":
                array = (array.astype(np.uint32) << 16).view(np.float32)
            out[name] = array.astype(np.float64)
    return out


@pytest.fixture(scope="module", params=[SHARDED, UNTIED], ids=["bf16_sharded", "f32_untied"])
def case(request):
    model = Qwen3Model.load(request.param)
    run = model.forward(model.encode(TEXT), layer=1)
    return request.param, model, run


def test_the_last_row_is_the_models_own_logits(case):
    _folder, model, run = case
    lens = logit_lens(model, run, top=5)
    assert lens.num_states == model.num_layers + 1
    assert lens.logits.shape == (model.num_layers + 1, model.config.vocab_size)
    scale = float(np.abs(run.logits).max())
    assert np.abs(lens.logits[-1] - run.logits).max() <= 1e-12 * max(scale, 1.0)
    assert lens.final_id == int(np.argmax(run.logits))
    assert lens.ids[-1, 0] == lens.final_id


def test_each_row_is_the_final_norm_and_head_of_that_state_computed_independently(case):
    folder, model, run = case
    tensors = stored(folder)
    head = tensors.get("lm_head.weight", tensors["model.embed_tokens.weight"])
    if folder == SHARDED:
        assert "lm_head.weight" not in tensors  # tied: the head is the embedding
    norm = tensors["model.norm.weight"]
    eps = model.layer_config.rms_norm_eps
    lens = logit_lens(model, run, top=7)
    for s in range(model.num_layers + 1):
        x = run.residual[s, -1]
        normed = norm * x / np.sqrt(np.mean(x * x) + eps)
        logits = head @ normed
        assert np.abs(lens.logits[s] - logits).max() <= 1e-12 * max(np.abs(logits).max(), 1)
        p = np.exp(logits - logits.max())
        p /= p.sum()
        order = sorted(range(len(p)), key=lambda i: (-p[i], i))[:7]
        assert lens.ids[s].tolist() == order
        assert np.abs(lens.probs[s] - p[order]).max() <= 1e-12
        assert abs(lens.final_prob[s] - p[lens.final_id]) <= 1e-12
        assert np.all(np.diff(lens.probs[s]) <= 0)


def test_intermediate_rows_differ_from_the_last():
    # the readout follows the state it reads: a lens that read the last layer for every row
    # would pass the last-row test alone
    model = Qwen3Model.load(SHARDED)
    run = model.forward(model.encode(TEXT), layer=0)
    lens = logit_lens(model, run)
    assert not np.allclose(lens.logits[0], lens.logits[-1])
    assert not np.allclose(lens.logits[1], lens.logits[2])


def test_top_tokens_and_softmax():
    probs = softmax(np.array([[1.0, 3.0, 3.0, -2.0, 0.5]]))
    assert abs(probs.sum() - 1.0) < 1e-15
    assert top_tokens(probs, 3).tolist() == [[1, 2, 0]]  # a tie goes to the lower id
    assert top_tokens(probs, 10).shape == (1, 5)
    assert softmax(np.array([1000.0, 0.0]))[0] == 1.0  # no overflow


def test_a_top_below_one_is_refused(case):
    _folder, model, run = case
    with pytest.raises(ValueError, match="top must be at least 1"):
        logit_lens(model, run, top=0)
