"""app.sessions without a window: what is written, what is read back, what is refused and in
which words. Fast (no QApplication, no engine run), so that mutmut can run it once per mutant
of app/sessions.py (docs/testing.md); each test pins a thing a user sees or a file holds."""

import json
import os
import re
import stat
import time
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from app import sessions
from app.compute import MAX_TEXT_CHARS
from app.os_text import os_reason
from app.state import FONT_SCALE_MAX, FONT_SCALE_MIN
from engine import EngineError, Intervention, Qwen3Config

TOY = Qwen3Config.toy()
IV = Intervention(zero_heads=(1,), head_scale=((2, 0.5),), zero_neurons=(3,), skip=("mlp",))


def minimal(**changes):
    """The smallest valid session document, with ``changes`` applied (None: key removed)."""
    data = {"format": "dualview-session", "version": 1, "text": "the cat",
            "config": TOY.to_dict(), "weights": {"kind": "random", "seed": 7}}
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    return data


def refusal(data) -> str:
    with pytest.raises(sessions.SessionError) as info:
        sessions.parse_session(data)
    return str(info.value)


def damaged(detail: str) -> str:
    return f"the session file is damaged or incomplete ({detail})"


# ----- writing: the document -----
def test_defaults_of_a_session():
    s = sessions.Session(text="x")
    assert (s.config, s.seed, s.causal, s.step, s.head, s.query, s.depth_t) == (
        TOY, 0, True, "attn_probs", 0, 0, 1.0)
    assert (s.language, s.palette, s.theme, s.font_scale, s.weights_path) == (None,) * 5
    assert (s.weights_layer, s.weights_sha256, s.weights_relative) == (0, "", "")
    assert (s.model_path, s.model_layer, s.intervention) == (None, 0, None)


def test_to_dict_of_a_plain_session_holds_exactly_these_fields():
    s = sessions.Session(text="猫 sat", seed=5, causal=False, step="q_proj", head=2, query=3,
                         depth_t=0.25)
    assert s.to_dict() == {
        "format": "dualview-session", "version": 1, "text": "猫 sat",
        "config": TOY.to_dict(), "weights": {"kind": "random", "seed": 5}, "causal": False,
        "selection": {"step": "q_proj", "head": 2, "query": 3, "depth_t": 0.25}}


def test_to_dict_with_every_optional_field():
    s = sessions.Session(text="a", seed=9, language="zh", palette="colorblind", theme="dark",
                         font_scale=1.5, weights_path="/w/layer.npz", weights_layer=4,
                         weights_sha256="abc", weights_relative="../layer.npz",
                         model_path="/models/qwen", model_layer=3, intervention=IV)
    data = s.to_dict()
    assert data["weights"] == {"kind": "file", "path": "/w/layer.npz", "layer": 4,
                               "sha256": "abc", "seed": 9, "relative": "../layer.npz"}
    assert data["model"] == {"path": "/models/qwen", "layer": 3}
    assert data["language"] == "zh"
    assert data["view"] == {"palette": "colorblind", "theme": "dark", "font_scale": 1.5}
    assert data["intervention"] == {"zero_heads": [1], "head_scale": [[2, 0.5]],
                                    "zero_neurons": [3], "skip": ["mlp"],
                                    "describe": IV.describe()}
    assert list(data) == ["format", "version", "text", "config", "weights", "causal",
                          "selection", "model", "language", "intervention", "view"]


def test_a_weights_file_without_relative_path_writes_no_relative_field():
    s = sessions.Session(text="a", weights_path="/w.npz", weights_sha256="f")
    assert s.weights_dict() == {"kind": "file", "path": "/w.npz", "layer": 0, "sha256": "f",
                                "seed": 0}


def test_view_holds_only_what_is_set():
    assert sessions.Session(text="a", theme="dark").to_dict()["view"] == {"theme": "dark"}
    assert sessions.Session(text="a", font_scale=1.0).to_dict()["view"] == {"font_scale": 1.0}
    assert sessions.Session(text="a", palette="classic").to_dict()["view"] == {
        "palette": "classic"}


def test_intervention_dict():
    assert sessions.intervention_dict(None) is None
    assert sessions.intervention_dict(Intervention()) is None
    assert sessions.intervention_dict(Intervention(zero_heads=(0, 2))) == {
        "zero_heads": [0, 2], "head_scale": [], "zero_neurons": [], "skip": [],
        "describe": Intervention(zero_heads=(0, 2)).describe()}


def test_intervention_from_dict():
    back = sessions.intervention_from_dict(sessions.intervention_dict(IV), TOY)
    assert back == IV
    assert sessions.intervention_from_dict({}, TOY) is None
    assert sessions.intervention_from_dict({"zero_heads": [], "head_scale": []}, TOY) is None
    assert sessions.intervention_from_dict({"head_scale": [[1, 2.0]]}, TOY) == Intervention(
        head_scale=((1, 2.0),))
    assert sessions.intervention_from_dict({"zero_neurons": [5]}, TOY) == Intervention(
        zero_neurons=(5,))
    assert sessions.intervention_from_dict({"skip": ["attention"]}, TOY) == Intervention(
        skip=("attention",))
    for scale in (3, [[1]], [[1, 2, 3]], [(1, 2.0)], [1, 2]):
        with pytest.raises(EngineError, match="head_scale must map head indices to factors"):
            sessions.intervention_from_dict({"head_scale": scale}, TOY)
    with pytest.raises(EngineError, match="there is no 9"):  # checked against the layer
        sessions.intervention_from_dict({"zero_heads": [9]}, TOY)


def test_weight_count():
    # q, k and v (2 KV heads of 4), o, the MLP's three, two layer norms, q/k norms
    shapes_total = 16 * 16 + 2 * (8 * 16) + 16 * 16 + 3 * (32 * 16) + 2 * 16 + 2 * 4
    assert sessions.weight_count(TOY) == shapes_total


def test_tr_fills_in_numbered_arguments():
    assert sessions._tr("%1 of %2, %1", "a", 3) == "a of 3, a"
    assert sessions._tr("none") == "none"


def test_session_from_state_of_a_toy_layer_and_of_a_model():
    source = SimpleNamespace(path="/w.npz", layer=2, fingerprint="sha")
    state = SimpleNamespace(
        weights_source=source, config=TOY, seed=4, model=None, text="t", causal=False,
        step="k_proj", head=1, query=2, depth_t=0.5, language="en", palette="classic",
        theme="light", font_scale=1.25, model_layer=7, intervention=IV)
    assert sessions.session_from_state(state) == sessions.Session(
        text="t", config=TOY, seed=4, causal=False, step="k_proj", head=1, query=2, depth_t=0.5,
        language="en", palette="classic", theme="light", font_scale=1.25,
        weights_path="/w.npz", weights_layer=2, weights_sha256="sha", intervention=IV)
    small = Qwen3Config(hidden_size=8, intermediate_size=8, num_attention_heads=2,
                        num_key_value_heads=1, head_dim=4, rms_norm_eps=1e-6, rope_theta=1e4)
    model_state = replace_ns(state, weights_source=None, seed=1,
                             model=SimpleNamespace(folder=Path("/models/q")),
                             inputs=SimpleNamespace(toy=(small, 11, None)))
    got = sessions.session_from_state(model_state)
    assert (got.config, got.seed, got.weights_path, got.weights_layer, got.weights_sha256) == (
        small, 11, None, 0, "")
    assert (got.model_path, got.model_layer) == (str(Path("/models/q")), 7)
    no_iv = SimpleNamespace(**{k: v for k, v in vars(state).items() if k != "intervention"})
    assert sessions.session_from_state(no_iv).intervention is None


def replace_ns(ns, **changes):
    return SimpleNamespace(**{**vars(ns), **changes})


# ----- reading: accepted -----
def test_the_minimal_document_and_its_defaults():
    assert sessions.parse_session(minimal()) == sessions.Session(text="the cat", seed=7)


def test_every_field_is_read():
    s = sessions.Session(text="a", seed=9, causal=False, step="v_proj", head=3, query=1,
                         depth_t=0.5, language="zh", palette="colorblind", theme="dark",
                         font_scale=FONT_SCALE_MAX, weights_path="/w.npz", weights_layer=4,
                         weights_sha256="abc", weights_relative="w.npz",
                         model_path="/m", model_layer=2, intervention=IV)
    assert sessions.parse_session(s.to_dict()) == s


def test_bounds_that_are_accepted():
    for key, value in (("depth_t", 0), ("depth_t", 1), ("depth_t", 0.0)):
        got = sessions.parse_session(minimal(selection={key: value}))
        assert got.depth_t == float(value) and isinstance(got.depth_t, float)
    for scale in (FONT_SCALE_MIN, FONT_SCALE_MAX, 1):
        got = sessions.parse_session(minimal(view={"font_scale": scale}))
        assert got.font_scale == scale and isinstance(got.font_scale, float)
    assert sessions.parse_session(minimal(weights={"kind": "random", "seed": 2**32 - 1})).seed \
        == 2**32 - 1
    assert sessions.parse_session(minimal(text="x" * MAX_TEXT_CHARS)).text == "x" * MAX_TEXT_CHARS
    assert sessions.parse_session(minimal(
        config=Qwen3Config.qwen3_0_6b().to_dict())).config == Qwen3Config.qwen3_0_6b()


def test_a_file_weights_entry_reads_its_optional_fields():
    got = sessions.parse_session(minimal(weights={"kind": "file", "path": "/w", "layer": 0}))
    assert (got.weights_path, got.weights_layer, got.weights_sha256, got.weights_relative,
            got.seed) == ("/w", 0, "", "", 0)
    got = sessions.parse_session(minimal(weights={"kind": "file", "path": "/w", "layer": 1,
                                                  "seed": 3, "sha256": "s", "relative": "r"}))
    assert (got.weights_layer, got.seed, got.weights_sha256, got.weights_relative) == (
        1, 3, "s", "r")


def test_a_model_entry_without_layer_reads_layer_zero():
    got = sessions.parse_session(minimal(model={"path": "/m"}))
    assert (got.model_path, got.model_layer) == ("/m", 0)


def test_an_empty_intervention_reads_as_none_and_language_en():
    got = sessions.parse_session(minimal(intervention={}, language="en"))
    assert got.intervention is None and got.language == "en"


# ----- reading: refused, in words -----
@pytest.mark.parametrize("data", [None, [], "x", {"format": "other"}, {"version": 1}])
def test_not_a_session(data):
    assert refusal(data) == "this is not a Dual View session file"


@pytest.mark.parametrize("version", [None, True, 0, -1, "1", 1.0])
def test_no_valid_version(version):
    assert refusal(minimal(version=version)) == \
        "the session file has no valid version number"


def test_a_newer_version():
    assert refusal(minimal(version=2)) == (
        "it was saved by a newer Dual View (file version 2; this app reads up to version 1). "
        "Please update the app.")


REFUSED = [
    ({"text": None}, "the session has no 'text' field"),
    ({"text": 3}, "'text' has the wrong type (int)"),
    ({"config": None}, "the session has no 'config' field"),
    ({"config": []}, "'config' has the wrong type (list)"),
    ({"weights": None}, "the session has no 'weights' field"),
    ({"causal": 1}, "'causal' has the wrong type (int)"),
    ({"selection": {"head": True}}, "selection.'head' must be a number, not true/false"),
    ({"selection": {"head": 1.0}}, "selection.'head' has the wrong type (float)"),
    ({"selection": {"step": "nope"}}, "unknown step 'nope' in the selection"),
    ({"selection": {"head": -1}}, "selection head and query must not be negative"),
    ({"selection": {"query": -1}}, "selection head and query must not be negative"),
    ({"selection": {"depth_t": 1.5}}, "selection depth_t must be between 0 and 1"),
    ({"selection": {"depth_t": -0.1}}, "selection depth_t must be between 0 and 1"),
    ({"selection": {"depth_t": float("nan")}}, "selection depth_t must be between 0 and 1"),
    ({"selection": {"depth_t": "1"}}, "selection.'depth_t' has the wrong type (str)"),
    ({"language": "fr"}, "unknown language 'fr'"),
    ({"view": {"palette": "pink"}}, "unknown palette 'pink'"),
    ({"view": {"theme": "neon"}}, "unknown theme 'neon'"),
    ({"view": {"font_scale": FONT_SCALE_MAX + 0.01}}, "view font_scale is out of range"),
    ({"view": {"font_scale": FONT_SCALE_MIN - 0.01}}, "view font_scale is out of range"),
    ({"view": {"font_scale": float("inf")}}, "view font_scale is out of range"),
    ({"view": {"font_scale": False}}, "view.'font_scale' must be a number, not true/false"),
    ({"model": {"layer": 1}}, "the session has no model.'path' field"),
    ({"model": {"path": ""}}, "its model folder or layer number is invalid"),
    ({"model": {"path": "/m", "layer": -1}}, "its model folder or layer number is invalid"),
    ({"model": "/m"}, "'model' has the wrong type (str)"),
    ({"intervention": {"zero_heads": [9]}},
     "its intervention is invalid: zero_heads: there is no 9; valid indices are 0 to 3"),
    ({"intervention": {"head_scale": 2}},
     "its intervention is invalid: head_scale must map head indices to factors, got 2"),
    ({"weights": {"kind": "random"}}, "the session has no weights.'seed' field"),
    ({"weights": {"kind": "random", "seed": -1}}, "the weight seed -1 is out of range"),
    ({"weights": {"kind": "random", "seed": 2**32}},
     "the weight seed 4294967296 is out of range"),
    ({"weights": {"kind": "hub", "seed": 0}}, "it refers to weights this version cannot load"),
    ({"weights": {"seed": 0}}, "it refers to weights this version cannot load"),
    ({"weights": {"kind": "file", "layer": 0}}, "the session has no weights.'path' field"),
    ({"weights": {"kind": "file", "path": "/w"}}, "the session has no weights.'layer' field"),
    ({"weights": {"kind": "file", "path": "", "layer": 0}},
     "its weights file or layer number is invalid"),
    ({"weights": {"kind": "file", "path": "/w", "layer": -1}},
     "its weights file or layer number is invalid"),
    ({"weights": {"kind": "file", "path": "/w", "layer": 0, "sha256": 1}},
     "weights.'sha256' has the wrong type (int)"),
    ({"weights": {"kind": "file", "path": "/w", "layer": 0, "relative": 1}},
     "weights.'relative' has the wrong type (int)"),
    ({"weights": {"kind": "file", "path": "/w", "layer": 0, "seed": 2**32}},
     "the weight seed 4294967296 is out of range"),
    ({"text": "x" * (MAX_TEXT_CHARS + 1)},
     "its text has 200,001 characters, more than the 200,000 the text field holds"),
    ({"text": "😀" * (MAX_TEXT_CHARS // 2 + 1)},  # counted as the text field does (UTF-16)
     "its text has 200,002 characters, more than the 200,000 the text field holds"),
    ({"weights": {"kind": "file", "path": "/w", "layer": 0, "seed": "1"}},
     "weights.'seed' has the wrong type (str)"),
    ({"selection": []}, "'selection' has the wrong type (list)"),
    ({"selection": {"step": 1}}, "selection.'step' has the wrong type (int)"),
    ({"selection": {"query": "1"}}, "selection.'query' has the wrong type (str)"),
    ({"language": 1}, "'language' has the wrong type (int)"),
    ({"view": []}, "'view' has the wrong type (list)"),
    ({"view": {"palette": 1}}, "view.'palette' has the wrong type (int)"),
    ({"view": {"theme": 1}}, "view.'theme' has the wrong type (int)"),
    ({"model": {"path": "/m", "layer": "1"}}, "model.'layer' has the wrong type (str)"),
    ({"intervention": []}, "'intervention' has the wrong type (list)"),
    ({"config": {**TOY.to_dict(), "hidden_size": -1}},
     "the layer config is invalid: hidden_size must be at least 1, got -1"),
    ({"config": {**Qwen3Config.qwen3_0_6b().to_dict(), "intermediate_size": 3073}},
     "its layer has 15,734,016 weights, more than the 15,730,944 of the largest layer this "
     "app runs (Qwen3-0.6B's)"),
]


@pytest.mark.parametrize(("changes", "detail"), REFUSED)
def test_refused_fields(changes, detail):
    assert refusal(minimal(**changes)) == damaged(detail)


def test_a_config_of_the_wrong_types_is_refused_in_words():
    assert refusal(minimal(config={**TOY.to_dict(), "hidden_size": "8"})).startswith(
        damaged("the layer config is invalid: ")[:-1])


def test_a_layer_larger_than_qwen3_0_6b_is_refused():
    big = {**Qwen3Config.qwen3_0_6b().to_dict(), "intermediate_size": 3073}
    limit = sessions.weight_count(Qwen3Config.qwen3_0_6b())
    asked = sessions.weight_count(Qwen3Config.from_dict(big))
    assert refusal(minimal(config=big)) == damaged(
        f"its layer has {asked:,} weights, more than the {limit:,} of the largest layer this "
        "app runs (Qwen3-0.6B's)")


# ----- files -----
def write(path: Path, data) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def read_refusal(path) -> str:
    with pytest.raises(sessions.SessionError) as info:
        sessions.read_session(path)
    return str(info.value)


def test_read_session_and_its_refusals(tmp_path):
    good = write(tmp_path / "a.dualview.json", minimal())
    assert sessions.read_session(good) == sessions.Session(text="the cat", seed=7)
    assert sessions.read_session(str(good)).seed == 7
    bom = tmp_path / "bom.json"
    bom.write_bytes(b"\xef\xbb\xbf" + good.read_bytes())
    assert sessions.read_session(bom).text == "the cat"
    assert read_refusal(tmp_path / "gone.json") == "the file gone.json does not exist"
    assert read_refusal(tmp_path) == f"{tmp_path.name} is not a file"
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (sessions.MAX_BYTES + 1))
    assert read_refusal(big) == "the file is far too large to be a Dual View session"
    exactly = tmp_path / "exactly.json"  # the limit itself is read (and is not JSON here)
    exactly.write_bytes(b" " * sessions.MAX_BYTES)
    not_json = "the file is damaged or is not a session (it is not valid JSON)"
    assert read_refusal(exactly) == not_json
    valid = json.dumps(minimal()).encode()  # the limit itself, a valid session to its end
    exactly.write_bytes(b" " * (sessions.MAX_BYTES - len(valid)) + valid)
    assert sessions.read_session(exactly).text == "the cat"
    for raw in (b"{", b"\xff\xfe", b"[" * 100_000, b"1" * 5000):
        bad = tmp_path / "bad.json"
        bad.write_bytes(raw)
        assert read_refusal(bad) == not_json
    assert read_refusal(write(tmp_path / "list.json", [1])) == \
        "this is not a Dual View session file"


def test_an_unreadable_file_is_refused_with_the_reason(tmp_path, monkeypatch):
    good = write(tmp_path / "a.dualview.json", minimal())

    def denied(*_args, **_kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "open", denied)
    reason = os_reason(PermissionError(13, "Permission denied"))
    assert reason and read_refusal(good) == f"the file a.dualview.json cannot be read ({reason})"


def test_a_moved_folder_finds_its_weights_beside_the_session(tmp_path):
    folder = tmp_path / "lesson"
    folder.mkdir()
    (folder / "w.npz").write_bytes(b"x")
    data = minimal(weights={"kind": "file", "path": str(tmp_path / "old" / "w.npz"),
                            "layer": 0, "relative": "w.npz"})
    got = sessions.read_session(write(folder / "s.dualview.json", data))
    assert got.weights_path == str((folder / "w.npz").resolve())
    # the saved path still exists: kept
    data["weights"]["path"] = str(folder / "w.npz")
    data["weights"]["relative"] = "elsewhere.npz"
    assert sessions.read_session(write(folder / "s.dualview.json", data)).weights_path == \
        str(folder / "w.npz")
    # the saved path exists and so does one beside: the saved one is kept
    (folder / "elsewhere.npz").write_bytes(b"y")
    assert sessions.read_session(write(folder / "s.dualview.json", data)).weights_path == \
        str(folder / "w.npz")
    (folder / "elsewhere.npz").unlink()
    # nothing beside it either: the saved path is kept (and told missing later)
    data["weights"]["path"] = "/nowhere/w.npz"
    assert sessions.read_session(write(folder / "s.dualview.json", data)).weights_path == \
        "/nowhere/w.npz"
    # no relative path recorded: nothing is looked for
    del data["weights"]["relative"]
    data["weights"]["path"] = str(tmp_path / "gone" / "w.npz")
    assert sessions.read_session(write(folder / "s.dualview.json", data)).weights_path == \
        str(tmp_path / "gone" / "w.npz")
    # a folder of that name beside it is not a weights file
    (folder / "dir.npz").mkdir()
    data["weights"]["relative"] = "dir.npz"
    assert sessions.read_session(write(folder / "s.dualview.json", data)).weights_path == \
        str(tmp_path / "gone" / "w.npz")


def test_session_bytes_are_indented_utf8_json_with_a_final_newline():
    raw = sessions.session_bytes(sessions.Session(text="猫\ud800"))
    assert raw.endswith(b"}\n") and b'\n  "format": "dualview-session",\n' in raw
    assert "猫".encode() in raw and b"\\ud800" in raw
    assert json.loads(raw.decode("utf-8"))["text"] == "猫\ud800"


def test_write_session_records_the_relative_path_and_reads_back(tmp_path):
    target = tmp_path / "sub" / "s.dualview.json"
    s = sessions.Session(text="a", weights_path=str(tmp_path / "w.npz"))
    sessions.write_session(target, s)
    data = json.loads(target.read_text(encoding="utf-8"))
    assert data["weights"]["relative"] == os.path.join("..", "w.npz")
    assert sessions.read_session(target) == replace(
        s, weights_relative=os.path.join("..", "w.npz"))
    plain = sessions.Session(text="b", seed=3)
    sessions.write_session(target, plain)
    assert target.read_bytes() == sessions.session_bytes(plain)
    assert not [p for p in target.parent.iterdir() if p.name.endswith(".tmp")]


def test_write_atomic_keeps_permissions_follows_links_and_names_the_target(tmp_path):
    target = tmp_path / "t.json"
    sessions.write_atomic(target, b"one")
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask
    target.chmod(0o640)
    sessions.write_atomic(target, b"two")
    assert target.read_bytes() == b"two" and stat.S_IMODE(target.stat().st_mode) == 0o640
    link = tmp_path / "link.json"
    link.symlink_to(target)
    sessions.write_atomic(link, b"three")
    assert link.is_symlink() and target.read_bytes() == b"three"
    sessions.write_atomic(tmp_path / "new" / "deeper" / "f", b"x")  # folders are made
    assert (tmp_path / "new" / "deeper" / "f").read_bytes() == b"x"
    blocker = tmp_path / "file"
    blocker.write_bytes(b"")
    with pytest.raises(OSError) as info:
        sessions.write_atomic(blocker / "f", b"x")
    assert info.value.filename == os.fspath(blocker / "f")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "link.json", "new", "t.json"]


def test_a_failed_write_leaves_no_temporary_file(tmp_path, monkeypatch):
    def fail(_fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", fail)
    with pytest.raises(OSError) as info:
        sessions.write_atomic(tmp_path / "t.json", b"x")
    assert info.value.filename == os.fspath(tmp_path / "t.json") and info.value.errno == 28
    assert info.value.strerror == "No space left on device"  # (the words the user reads)
    assert list(tmp_path.iterdir()) == []


def test_file_mode():
    assert sessions._file_mode(Path("/nonexistent/x")) == 0o666 & ~_umask()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_process_gone():
    assert sessions._process_gone(os.getpid()) is False
    assert sessions._process_gone(0) is False
    assert sessions._process_gone(-5) is False
    assert sessions._process_gone(1) is False  # init runs
    assert sessions._process_gone(2**22 + 12345) is True  # beyond pid_max


def aged(path: Path, seconds: float, now: float) -> Path:
    path.write_bytes(b"x")
    os.utime(path, (now - seconds, now - seconds))
    return path


def test_remove_stale_temp_files(tmp_path):
    now = time.time()
    dead = 2**22 + 12345
    live = os.getpid()
    keep = [aged(tmp_path / f".dualview-{live}-abc.tmp", 200, now),   # its writer runs
            aged(tmp_path / f".dualview-{dead}-abc.tmp", 29, now),    # too young
            aged(tmp_path / ".dualview-abc.tmp", 299, now),           # old name, young
            aged(tmp_path / "dualview-abc.tmp", 1000, now),           # not ours
            aged(tmp_path / ".dualview-abc.tmp.bak", 1000, now)]
    gone = [aged(tmp_path / f".dualview-{dead}-def.tmp", 31, now),
            aged(tmp_path / f".dualview-{live}-def.tmp", 301, now),
            aged(tmp_path / ".dualview-xyz.tmp", 301, now)]
    (tmp_path / ".dualview-dir.tmp").mkdir()  # not a file: left
    os.utime(tmp_path / ".dualview-dir.tmp", (now - 1000, now - 1000))
    assert sessions.remove_stale_temp_files(tmp_path, now=now) == 3
    assert all(p.exists() for p in keep) and not any(p.exists() for p in gone)
    assert (tmp_path / ".dualview-dir.tmp").is_dir()
    assert sessions.remove_stale_temp_files(tmp_path / "missing") == 0
    old = aged(tmp_path / ".dualview-old.tmp", 1000, time.time())
    assert sessions.remove_stale_temp_files(tmp_path) == 1 and not old.exists()


def test_autosave_and_crash_recovery(tmp_path):
    assert sessions.autosave_path(tmp_path) == tmp_path / "autosave.dualview.json"
    assert sessions.take_crash_autosave(tmp_path) is None  # nothing saved
    sessions.mark_clean_exit(tmp_path)
    assert (tmp_path / "clean-exit").read_bytes() == b"closed normally\n"
    auto = sessions.autosave_path(tmp_path)
    auto.write_bytes(b"{}")
    assert sessions.take_crash_autosave(tmp_path) is None  # closed normally
    stale = aged(tmp_path / f".dualview-{2**22 + 12345}-a.tmp", 100, time.time())
    sessions.mark_running(tmp_path)
    assert not (tmp_path / "clean-exit").exists() and not stale.exists()
    sessions.mark_running(tmp_path)  # no marker to remove: fine
    assert sessions.take_crash_autosave(tmp_path) == tmp_path / "recovered.dualview.json"
    assert not auto.exists() and (tmp_path / "recovered.dualview.json").read_bytes() == b"{}"


def test_example_sessions_titles_and_membership(tmp_path):
    examples = sessions.example_sessions()
    assert [p.name for p in examples] == sorted(p.name for p in examples)
    assert len(examples) >= 6 and all(p.name.endswith(".dualview.json") for p in examples)
    for path in examples:
        sessions.read_session(path)  # every shipped example opens
        assert sessions.is_example(path)
        titles = json.loads(path.read_text(encoding="utf-8"))["title"]
        assert sessions.example_title(path) == titles["en"]
        assert sessions.example_title(path, "zh") == titles["zh"]
    copy = tmp_path / examples[0].name
    copy.write_bytes(examples[0].read_bytes())
    assert not sessions.is_example(copy)
    assert sessions.is_example(examples[0].parent / ".." / "sessions" / examples[0].name)
    assert sessions.example_title(copy, "fr") == json.loads(copy.read_text())["title"]["en"]
    for title in ({"en": ""}, {}, "x", {"en": 3}):
        write(tmp_path / "my-own-lesson.dualview.json", {"title": title})
        assert sessions.example_title(tmp_path / "my-own-lesson.dualview.json") == \
            "my own lesson"
    write(tmp_path / "zh-only.dualview.json", {"title": {"en": "E", "zh": ""}})
    assert sessions.example_title(tmp_path / "zh-only.dualview.json", "zh") == "E"
    (tmp_path / "broken.dualview.json").write_bytes(b"{")
    assert sessions.example_title(tmp_path / "broken.dualview.json") == "broken"
    assert sessions.example_title(tmp_path / "missing.dualview.json") == "missing"


def test_process_gone_only_looks_and_a_permission_error_means_it_runs(monkeypatch):
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert sessions._process_gone(child.pid) is False  # it runs
        time.sleep(0.2)
        assert child.poll() is None  # looked at (signal 0), not signalled
    finally:
        child.kill()
        child.wait()
    assert sessions._process_gone(child.pid) is True  # reaped: gone

    def running_as_another_user(_pid, _signal):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "kill", running_as_another_user)
    assert sessions._process_gone(child.pid) is False


def test_a_weights_path_with_no_relative_form_saves_no_relative_field(tmp_path, monkeypatch):
    def other_drive(*_args):  # what os.path.relpath says on Windows across drives
        raise ValueError("path is on mount 'D:', start on mount 'C:'")

    monkeypatch.setattr(os.path, "relpath", other_drive)
    target = tmp_path / "s.dualview.json"
    sessions.write_session(target, sessions.Session(text="a", weights_path="/w.npz"))
    assert "relative" not in json.loads(target.read_text(encoding="utf-8"))["weights"]


def test_a_path_that_cannot_be_resolved_is_not_an_example(monkeypatch):
    example = sessions.example_sessions()[0]

    def fails(*_args, **_kwargs):
        raise OSError(40, "Too many levels of symbolic links")

    monkeypatch.setattr(Path, "resolve", fails)
    assert sessions.is_example(example) is False


def test_example_titles_are_read_as_utf8_whatever_the_locale():
    """On a machine whose locale is not UTF-8 (Windows' cp1252, a C locale) the Chinese
    titles still read back, not as the file name."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    example = sessions.example_sessions()[0]
    expected = json.loads(example.read_text(encoding="utf-8"))["title"]["zh"]
    assert sessions.example_title(example, "zh") == expected  # (here, then in the child)
    env = {**os.environ, "LC_ALL": "C", "LANG": "C", "PYTHONCOERCECLOCALE": "0",
           "PYTHONUTF8": "0", "PYTHONPATH": str(root), "PYTHONIOENCODING": "utf-8"}
    code = ("import locale, sys\n"
            "from pathlib import Path\n"
            "from app.sessions import example_title\n"
            "print(locale.getpreferredencoding(False))\n"
            "print(example_title(Path(sys.argv[1]), 'zh'))\n")
    # (cwd: the repository, where mutmut's copy of it finds its configuration)
    out = subprocess.run([sys.executable, "-c", code, str(example)], env=env, cwd=root,
                         capture_output=True, text=True, encoding="utf-8", timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    encoding, title = out.stdout.splitlines()
    assert encoding.lower().replace("-", "") != "utf8"  # the case under test
    assert title == expected


def test_the_temporary_file_is_ours_by_name_and_beside_the_target(tmp_path, monkeypatch):
    seen = []
    real_replace = os.replace

    def look(src, dst):
        seen.append(Path(src))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", look)
    sessions.write_atomic(tmp_path / "x.json", b"data")
    assert len(seen) == 1 and seen[0].parent == tmp_path
    assert seen[0].name.startswith(f".dualview-{os.getpid()}-") and seen[0].name.endswith(".tmp")
    assert sessions._TEMP_NAME.fullmatch(seen[0].name)


def test_a_save_cleans_its_own_folder_not_the_working_one(tmp_path, monkeypatch):
    folder, elsewhere = tmp_path / "saves", tmp_path / "cwd"
    folder.mkdir()
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    now = time.time()
    left = aged(folder / ".dualview-old.tmp", 1000, now)
    other = aged(elsewhere / ".dualview-old.tmp", 1000, now)
    sessions.write_atomic(folder / "s.json", b"x")
    assert not left.exists() and other.exists()


def test_stale_temp_files_are_judged_at_the_time_given(tmp_path):
    at = 1_000_000_000  # whole seconds: the ages below are exact
    boundary = tmp_path / ".dualview-boundary.tmp"
    boundary.write_bytes(b"x")
    os.utime(boundary, (at, at))
    assert sessions.remove_stale_temp_files(tmp_path, now=at + 300.0) == 0  # not older
    assert boundary.exists()
    assert sessions.remove_stale_temp_files(tmp_path, now=at + 300.5) == 1
    fresh = aged(tmp_path / ".dualview-fresh.tmp", 0, time.time())
    assert sessions.remove_stale_temp_files(tmp_path, now=time.time() + 301) == 1
    assert not fresh.exists()


def test_a_link_named_like_ours_is_left_alone(tmp_path):
    now = time.time()
    target = aged(tmp_path / "someone-elses.json", 1000, now)
    link = tmp_path / ".dualview-link.tmp"
    link.symlink_to(target)
    assert sessions.remove_stale_temp_files(tmp_path, now=now) == 0
    assert link.is_symlink() and target.exists()


#: Three English words in a row: a message (or the part of it) left untranslated.
ENGLISH = re.compile(r"[A-Za-z]{2,} [A-Za-z]{2,} [A-Za-z]{2,}")
CHINESE = re.compile(r"[\u4e00-\u9fff]")


def test_every_refusal_is_in_chinese_when_the_interface_is(qapp, tmp_path):
    """Each message is looked up under its own context ("Sessions"): under another, the
    Chinese interface shows it in English."""
    from app import i18n

    assert i18n.translations().apply("zh")
    try:
        messages = [refusal(minimal(**changes)) for changes, _detail in REFUSED[:-3]]
        messages += [refusal(None), refusal(minimal(version=0)), refusal(minimal(version=2))]
        big = tmp_path / "big.json"
        big.write_bytes(b" " * (sessions.MAX_BYTES + 1))
        bad = tmp_path / "bad.json"
        bad.write_bytes(b"{")
        messages += [read_refusal(tmp_path / "gone.json"), read_refusal(tmp_path),
                     read_refusal(big), read_refusal(bad)]
        good = write(tmp_path / "a.dualview.json", minimal())
        real_open = Path.open

        def denied(self, *args, **kwargs):
            if self == good:
                raise PermissionError(13, "Permission denied")
            return real_open(self, *args, **kwargs)

        Path.open = denied
        try:
            messages.append(read_refusal(good))
        finally:
            Path.open = real_open
        config = refusal(minimal(config={**TOY.to_dict(), "hidden_size": -1}))
        size = refusal(minimal(config=REFUSED[-1][0]["config"]))
    finally:
        i18n.translations().apply("en")
    for message in [*messages, size, config]:
        # the detail inside the "damaged or incomplete (...)" frame is Chinese too
        inner = message[message.index("（") + 1:message.rindex("）")] if "（" in message \
            else message
        assert CHINESE.search(inner) and not ENGLISH.search(message), message


def test_the_dead_writer_boundary_and_one_bad_entry_stops_nothing(tmp_path, monkeypatch):
    at = 1_000_000_000
    dead = 2**22 + 12345
    young = tmp_path / f".dualview-{dead}-b.tmp"
    young.write_bytes(b"x")
    os.utime(young, (at, at))
    assert sessions.remove_stale_temp_files(tmp_path, now=at + 30.0) == 0  # not older than 30 s
    assert young.exists()
    (tmp_path / ".dualview-a.tmp").mkdir()  # listed first below: skipped, not the end
    real_scandir = os.scandir
    monkeypatch.setattr(os, "scandir", lambda p: sorted(real_scandir(p), key=lambda e: e.name))
    assert sessions.remove_stale_temp_files(tmp_path, now=at + 30.5) == 1
    assert not young.exists()
    first, second = (aged(tmp_path / f".dualview-{n}.tmp", 1000, time.time()) for n in "bc")
    real_unlink = os.unlink

    def unlink(path):  # the first one went meanwhile
        if Path(path) == first:
            raise FileNotFoundError(2, "No such file or directory")
        real_unlink(path)

    monkeypatch.setattr(os, "unlink", unlink)
    assert sessions.remove_stale_temp_files(tmp_path) == 1 and not second.exists()
