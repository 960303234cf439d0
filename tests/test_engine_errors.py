"""Every kind of engine error has a code, an English template and a Chinese translation, and
reaches the Chinese interface (status bar, a panel that cannot draw, a session file) in
Chinese. A new kind the engine raises without a code, or without a translation, fails here."""

import ast
import pickle
import re
import string
from pathlib import Path

import numpy as np
import pytest

import engine
from app import i18n
from app.engine_text import engine_text, exception_text
from engine.errors import MESSAGES, PHRASES, EngineError, Phrase

pytestmark = pytest.mark.usefixtures("restore_view")

ENGINE = Path(engine.__file__).parent
CJK = re.compile(r"[\u4e00-\u9fff]")


def fields(template):
    """(name, format spec, conversion) of every replacement field."""
    return {(n, s, c) for _, n, s, c in string.Formatter().parse(template) if n is not None}


def sample(spec):
    """A value a field of this kind formats (numbers for numeric specs)."""
    return 1.5 if spec and spec[-1] in "gef" else "X7"


def engine_error_calls():
    """(file, line, first argument node) of every ``EngineError(...)`` in the engine."""
    for path in sorted(ENGINE.rglob("*.py")):
        if path.name == "errors.py":
            continue  # (its unpickling helper passes a code through)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "EngineError"):
                yield path.name, node.lineno, node.args[0] if node.args else None


def test_every_engine_error_is_raised_with_a_catalogued_code():
    calls = list(engine_error_calls())
    assert len(calls) > 90
    bad = [(f, line) for f, line, arg in calls
           if not (isinstance(arg, ast.Constant) and arg.value in MESSAGES)]
    assert bad == [], "raise EngineError(code, **params) with a code in engine.errors.MESSAGES"
    used = {arg.value for _, _, arg in calls}
    assert set(MESSAGES) - used == set(), "a catalogued kind no code raises"


def test_the_english_message_is_the_template_filled_in():
    exc = EngineError("token_cap", count=2049, limit=2048)
    assert str(exc) == "2049 tokens is more than the 2048 the engine takes; shorten the text"
    assert (exc.code, exc.params) == ("token_cap", {"count": 2049, "limit": 2048})
    assert isinstance(exc, ValueError)
    again = pickle.loads(pickle.dumps(exc))
    assert (str(again), again.code, again.params) == (str(exc), exc.code, exc.params)
    with pytest.raises(KeyError):
        EngineError("no such kind")
    with pytest.raises(KeyError):
        Phrase("a phrase nobody listed")


def test_every_kind_reads_in_chinese_with_its_parameters():
    untranslated, lost = [], []
    for code, template in MESSAGES.items():
        params = {name: sample(spec) for name, spec, _ in fields(template)}
        english = str(EngineError(code, **params))
        assert engine_text(english, code, params) == english  # the English interface
        i18n.translations().apply("zh")
        chinese = engine_text(english, code, params)
        i18n.translations().apply("en")
        if chinese == english or not CJK.search(chinese):
            untranslated.append(code)
        for name, spec, conversion in fields(template):  # every parameter said, alike
            value = params[name]
            if (repr(value) if conversion == "r" else format(value, spec)) not in chinese:
                lost.append((code, name))
    assert untranslated == [], "translate them: python -m app.i18n, then the .ts"
    assert lost == []


def test_every_phrase_reads_in_chinese():
    i18n.translations().apply("zh")
    untranslated = []
    for phrase in sorted(PHRASES):
        params = {"what": Phrase(phrase)}
        shown = engine_text(str(EngineError("overflow_gamma", **params)), "overflow_gamma",
                            params)
        if phrase in shown or not CJK.search(shown.split("溢出")[0]):
            untranslated.append(phrase)
    assert untranslated == []


def test_an_error_without_a_kind_stays_in_english():
    i18n.translations().apply("zh")
    assert exception_text(ValueError("plain")) == "plain"
    assert engine_text("internal error: boom") == "internal error: boom"


def test_a_layer_error_reaches_the_chinese_status_bar_and_follows_the_language(make_window):
    from engine import LayerWeights, Qwen3Config

    window = make_window(sync=True, text="a b")
    config = Qwen3Config.from_dict({**Qwen3Config.toy().to_dict(), "rms_norm_eps": 0.0})
    tensors = dict(LayerWeights.random(config, 0))
    tensors["self_attn.q_proj.weight"] = np.zeros_like(tensors["self_attn.q_proj.weight"])
    window.set_language("zh")
    window.state.set_model(config, weights=LayerWeights(tensors, config))
    assert window.state.error.startswith("the layer divided by zero at step 5 (q_norm)")
    shown = window.status.error.text()
    assert shown.startswith("未计算：这一层在第 5 步（q_norm）除以了零：q_proj 中某个头的切片为零")
    assert "a head's slice" not in shown and "rms_norm_eps > 0" in shown
    window.set_language("en")
    assert window.status.error.text() == f"Not computed: {window.state.error}"


def test_a_panel_that_cannot_draw_says_why_in_chinese(make_window):
    from engine import Qwen3Config

    window = make_window(sync=True, text="a b")
    panel = window.panels["normDock"]
    window.set_language("zh")
    window.state.set_model(Qwen3Config(hidden_size=1, intermediate_size=1,
                                       num_attention_heads=1, num_key_value_heads=1,
                                       head_dim=2))
    assert panel.is_current and panel._stack.currentIndex() == 0
    assert "至少需要 2 个分量" in panel._empty.text()
    assert "at least 2 entries" not in panel._empty.text()
    window.set_language("en")
    assert panel.is_current and "at least 2 entries" in panel._empty.text()


def test_a_session_with_an_invalid_layer_config_is_refused_in_chinese(make_window, tmp_path):
    import json

    from app import sessions

    window = make_window(sync=True, text="a")
    window.set_language("zh")
    data = sessions.Session(text="a").to_dict()
    data["config"]["rms_norm_eps"] = -1.0
    bad = tmp_path / "bad.dualview.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    assert not window.open_session(bad)
    assert "层配置无效：rms_norm_eps 必须 >= 0，得到的是 -1.0" in window.last_message
    data["config"]["rms_norm_eps"] = 1e-6
    data["selection"]["depth_t"] = 2
    bad.write_text(json.dumps(data), encoding="utf-8")
    assert not window.open_session(bad)
    assert "depth_t 必须在 0 到 1 之间" in window.last_message
