"""Session files on disk: what killed writes leave behind is cleaned up, and every session that
loads saves back to the same session (odd Unicode included, checked as a property)."""

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app import sessions
from app.state import FONT_SCALE_MAX, FONT_SCALE_MIN, THEMES
from engine import STEP_NAMES, Qwen3Config

ROOT = Path(__file__).resolve().parents[1]


def age(path, seconds):
    """Make ``path`` look ``seconds`` old."""
    then = time.time() - seconds
    os.utime(path, (then, then))


def dead_pid():
    """The process id of a process that has exited (and been reaped)."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait(timeout=60)
    return proc.pid


# ----- temporary files of killed writes -----

def test_stale_temporary_files_of_ours_are_removed_at_the_next_save(tmp_path):
    gone = dead_pid()
    stale = {
        ".dualview-k3x_9abc.tmp": 400,          # an older version's name, long ago
        f".dualview-{gone}-a1b2c3d4.tmp": 60,   # its writer is gone
    }
    kept = {
        ".dualview-fresh123.tmp": 10,                 # an older version's name, maybe writing
        f".dualview-{gone}-e5f6g7h8.tmp": 5,          # writer gone, but within the grace
        f".dualview-{os.getpid()}-zz99yy88.tmp": 60,  # a write of this process, under way
        f".dualview-{os.getppid()}-ww11vv22.tmp": 60,  # its writer still runs
        "notes.tmp": 4000,                            # not ours
        ".dualview-k3x_9abc.tmp.bak": 4000,           # not ours
        "other.dualview.json": 4000,                  # a session, not a temporary file
    }
    for name, seconds in {**stale, **kept}.items():
        (tmp_path / name).write_bytes(b"half a sess")
        age(tmp_path / name, seconds)
    (tmp_path / ".dualview-adir.tmp").mkdir()  # a folder: never ours to remove
    age(tmp_path / ".dualview-adir.tmp", 4000)

    sessions.write_session(tmp_path / "lesson.dualview.json", sessions.Session(text="hi"))

    names = {p.name for p in tmp_path.iterdir()}
    assert names == set(kept) | {".dualview-adir.tmp", "lesson.dualview.json"}
    assert sessions.read_session(tmp_path / "lesson.dualview.json").text == "hi"


def test_stale_temporary_files_are_removed_at_start(tmp_path):
    name = f".dualview-{dead_pid()}-abcdefgh.tmp"
    (tmp_path / name).write_bytes(b"{")
    age(tmp_path / name, 60)
    sessions.mark_running(tmp_path)  # what the window calls for its config folder at start
    assert not (tmp_path / name).exists()


def test_the_temporary_file_names_its_writer(tmp_path, monkeypatch):
    seen = []
    real_replace = os.replace

    def look(src, dst):
        seen.append(Path(src).name)
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", look)
    sessions.write_atomic(tmp_path / "x.json", b"data")
    assert len(seen) == 1 and seen[0].startswith(f".dualview-{os.getpid()}-")
    assert sessions._TEMP_NAME.fullmatch(seen[0])


KILLED_WRITER = textwrap.dedent("""
    import os, sys, time
    sys.path.insert(0, sys.argv[1])
    from app import sessions

    def hang(fd):  # the write is killed between writing its temporary file and the rename
        print("writing", flush=True)
        time.sleep(600)

    os.fsync = hang
    sessions.write_session(sys.argv[2], sessions.Session(text="never finished"))
""")


def test_a_killed_save_leaves_a_file_that_the_next_save_removes(tmp_path):
    target = tmp_path / "lesson.dualview.json"
    sessions.write_session(target, sessions.Session(text="saved before"))
    proc = subprocess.Popen([sys.executable, "-c", KILLED_WRITER, str(ROOT), str(target)],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "writing"
        leftovers = list(tmp_path.glob(".dualview-*.tmp"))
        assert [p.name.split("-")[1] for p in leftovers] == [str(proc.pid)]
        # while its writer runs, a save here (another window, another program) keeps it
        age(leftovers[0], sessions.STALE_TEMP_DEAD_WRITER_S + 1)
        sessions.write_session(tmp_path / "other.dualview.json", sessions.Session(text="b"))
        assert leftovers[0].exists()
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        proc.stdout.close()
    assert leftovers[0].read_bytes().startswith(b"{")  # the killed write, left behind
    assert sessions.read_session(target).text == "saved before"  # the file itself is whole
    age(leftovers[0], sessions.STALE_TEMP_DEAD_WRITER_S + 1)
    sessions.write_session(target, sessions.Session(text="saved after"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lesson.dualview.json",
                                                          "other.dualview.json"]
    assert sessions.read_session(target).text == "saved after"


# ----- what loads saves: lone surrogates -----

def test_a_lone_surrogate_loads_saves_and_loads_back_the_same(tmp_path):
    path = tmp_path / "odd.dualview.json"
    data = sessions.Session(text="x").to_dict()
    data["text"] = "half an emoji \ud83d, a stray \udc80 and 我"
    data["weights"] = {"kind": "file", "path": "/models/\udcff\udcfe.safetensors", "layer": 0,
                       "seed": 0}  # a file name that is not UTF-8, as Python decodes it
    path.write_text(json.dumps(data), encoding="ascii")  # JSON escapes, as another tool writes
    loaded = sessions.read_session(path)
    assert loaded.text == "half an emoji \ud83d, a stray \udc80 and 我"

    again = tmp_path / "again.dualview.json"
    sessions.write_session(again, loaded)
    raw = again.read_bytes()
    raw.decode("utf-8")  # strict UTF-8
    assert "我".encode() in raw  # Chinese stays readable in the file
    assert replace(sessions.read_session(again), weights_relative="") == \
        replace(loaded, weights_relative="")
    # the non-UTF-8 name comes back as the same bytes on disk
    assert os.fsencode(sessions.read_session(again).weights_path) == \
        b"/models/\xff\xfe.safetensors"


def test_a_window_saves_and_autosaves_a_session_with_a_lone_surrogate(make_window, tmp_path,
                                                                        restore_view):
    path = tmp_path / "odd.dualview.json"
    data = sessions.Session(text="x").to_dict()
    data["text"] = "ab\ud800cd"
    path.write_text(json.dumps(data), encoding="ascii")
    window = make_window(sync=True, text="a")
    assert window.open_session(path)
    assert window.save_session(tmp_path / "saved.dualview.json")
    assert window.files.autosave_now() is not None
    for saved in (tmp_path / "saved.dualview.json", window.files.autosave_now()):
        assert sessions.read_session(saved).text == window.state.text


# ----- the property: any session that loads saves back to the same session -----

ODD = ["\x00", "\x1f", "\x7f", "\u200b", "\u200d", "\ufeff", "\u202e", "\ufffd", "\uffff",
       "\U0010ffff", "🚀", "👍🏽", "我", "e\u0301", "\r\n", '"', "\\", "/", "\ud800", "\udfff",
       "\ud83d", "\ude80"]
_PAIR = re.compile(r"[\ud800-\udbff][\udc00-\udfff]")
# Any character, lone surrogates included. A high surrogate right before a low one is left out:
# JSON reads the two as the one character they encode, and no file decodes to such a pair.
odd_text = st.lists(st.one_of(st.characters(), st.characters(categories=["Cs"]),
                              st.sampled_from(ODD)), max_size=12) \
    .map("".join).filter(lambda text: not _PAIR.search(text))


@st.composite
def configs(draw):
    kv = draw(st.integers(1, 4))
    return Qwen3Config(
        hidden_size=draw(st.integers(1, 64)), intermediate_size=draw(st.integers(1, 64)),
        num_attention_heads=kv * draw(st.integers(1, 3)), num_key_value_heads=kv,
        head_dim=2 * draw(st.integers(1, 16)),
        rms_norm_eps=draw(st.one_of(st.integers(0, 10**6),
                                    st.floats(0, 1e300, allow_nan=False))),
        rope_theta=draw(st.one_of(st.integers(2, 10**9),
                                  st.floats(1, 1e300, exclude_min=True))))


@st.composite
def session_files(draw):
    weights = draw(st.one_of(st.none(), st.tuples(odd_text.filter(bool), st.integers(0, 10**6),
                                                   odd_text, odd_text)))
    path, layer, sha, relative = weights or (None, 0, "", "")
    return sessions.Session(
        text=draw(odd_text), config=draw(configs()), seed=draw(st.integers(0, 2**32 - 1)),
        causal=draw(st.booleans()), step=draw(st.sampled_from(STEP_NAMES)),
        head=draw(st.integers(0, 10**20)), query=draw(st.integers(0, 10**20)),
        depth_t=draw(st.floats(0, 1)),
        language=draw(st.sampled_from([None, *sessions.LANGUAGES])),
        palette=draw(st.sampled_from([None, *sessions.PALETTE_KEYS])),
        theme=draw(st.sampled_from([None, *THEMES])),
        font_scale=draw(st.one_of(st.none(), st.floats(FONT_SCALE_MIN, FONT_SCALE_MAX))),
        weights_path=path, weights_layer=layer, weights_sha256=sha, weights_relative=relative)


# 100 examples, each two atomic writes and three reads in a temporary folder: ~1 s of CPU.
# fsync only makes a write durable, not different, and on a busy disk it took seconds here.
@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(session=session_files(), ascii_file=st.booleans())
def test_any_session_that_loads_saves_back_to_the_same_session(tmp_path, monkeypatch, session,
                                                               ascii_file):
    monkeypatch.setattr(os, "fsync", lambda _fd: None)
    first = tmp_path / "first.dualview.json"
    # the file as this app writes it, or with every character escaped (as other tools write)
    if ascii_file:
        first.write_text(json.dumps(session.to_dict()), encoding="ascii")
    else:
        first.write_bytes(sessions.session_bytes(session))
    loaded = sessions.read_session(first)
    assert loaded == session

    second = tmp_path / "second.dualview.json"
    sessions.write_session(second, loaded)
    reloaded = sessions.read_session(second)
    # write_session records where the weights file is relative to the session file
    assert replace(reloaded, weights_relative="") == replace(loaded, weights_relative="")
    if loaded.weights_path is not None:
        assert reloaded.weights_relative == os.path.relpath(loaded.weights_path, tmp_path)
    assert sessions.session_bytes(reloaded) == sessions.session_bytes(
        replace(loaded, weights_relative=reloaded.weights_relative))


@pytest.mark.parametrize("text", ["\ud800", "a\udc00b", "\ud83d\ud83d"])
def test_session_bytes_are_strict_utf8(text):
    raw = sessions.session_bytes(sessions.Session(text=text))
    assert sessions.parse_session(json.loads(raw.decode("utf-8"))).text == text
