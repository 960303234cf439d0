"""Session files (``.dualview.json``): what is on screen, saved and reopened exactly.

A session holds the text, the layer config and weight seed (or the weights file and layer),
the causal flag, the selection (step, head, query token, depth time), the language and the
view options. It carries a ``format`` tag and a ``version``; :func:`read_session` checks
everything before anything is applied, so opening a newer, corrupt or foreign file changes
nothing and raises :class:`SessionError` with a message a person can act on.

Every write is atomic (:func:`write_atomic`): a temporary file in the same folder, flushed and
fsynced, then ``os.replace``-d over the target, so a crash never leaves half a file. A write that
is killed half-way leaves its temporary file behind; :func:`remove_stale_temp_files` removes
those of ours at the next start and after every save, so they never pile up.

Any text that loads saves again and loads back equal: a lone surrogate (``"\\ud800"`` in a
file, or a file name that is not UTF-8 as Python decodes it) has no UTF-8 form, so it is written
as the same JSON escape it was read from (:func:`session_bytes`).

Crash recovery: the window autosaves to :data:`AUTOSAVE_NAME` and writes :data:`CLEAN_EXIT_NAME`
when it closes normally. At the next start an autosave without that marker means the last run
crashed or was killed; :func:`take_crash_autosave` moves it aside so it can be offered.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication

from app.compute import MAX_TEXT_CHARS, text_length
from app.engine_text import exception_text
from app.os_text import os_reason
from app.state import FONT_SCALE_MAX, FONT_SCALE_MIN, THEMES
from engine import STEP_NAMES, EngineError, Intervention, Qwen3Config
from engine.weights import weight_shapes

FORMAT = "dualview-session"
VERSION = 1
SUFFIX = ".dualview.json"
AUTOSAVE_NAME = "autosave" + SUFFIX
RECOVERED_NAME = "recovered" + SUFFIX
CLEAN_EXIT_NAME = "clean-exit"
#: Held while a window autosaves (QLockFile): a second running copy of the app stays out.
LOCK_NAME = "autosave.lock"
#: A session file is a few kilobytes; anything far larger is not one.
MAX_BYTES = 5_000_000
#: Temporary files of :func:`write_atomic`: ``.dualview-<pid>-<random>.tmp`` (the writer's
#: process id, so a leftover of a killed writer can be told from a write under way). Older
#: versions wrote ``.dualview-<random>.tmp``; mkstemp's random part has no "-" in it.
TEMP_PREFIX = ".dualview-"
TEMP_SUFFIX = ".tmp"
_TEMP_NAME = re.compile(r"\.dualview-(?:(\d+)-)?[A-Za-z0-9_]+\.tmp")
#: A leftover whose writer is gone is removed once it is this old (seconds): the grace covers a
#: writer on another machine sharing the folder (its process id means nothing here), whose
#: write of a few kilobytes takes milliseconds, or seconds on a slow network drive.
STALE_TEMP_DEAD_WRITER_S = 30.0
#: ... and any leftover of ours once it is this old, whoever wrote it (a process id may have
#: been reused by another program since).
STALE_TEMP_S = 300.0

LANGUAGES = ("en", "zh")
#: ``app.palettes.PALETTES`` keys (kept here so reading a file needs no pyqtgraph).
PALETTE_KEYS = ("classic", "colorblind")


def intervention_dict(iv: Intervention | None,
                      layers: str | list[int] | None = None) -> dict[str, Any] | None:
    """An intervention as plain JSON (sessions, exports' metadata); None for the plain layer.
    ``describe`` says it in words (English) for a reader of the file. ``layers``: with a real
    model, where it ran ("all" in a session; the layer indices in an export)."""
    if iv is None or iv.is_empty:
        return None
    data: dict[str, Any] = {
        "zero_heads": list(iv.zero_heads),
        "head_scale": [[head, factor] for head, factor in iv.scales],
        "zero_neurons": list(iv.zero_neurons), "skip": list(iv.skip),
        "describe": iv.describe()}
    if layers is not None:
        data["layers"] = layers
    return data


def intervention_from_dict(data: dict[str, Any],
                           config: Qwen3Config | None) -> Intervention | None:
    """The intervention a file's ``"intervention"`` field holds, checked against ``config``
    (None: its form only, the layer it is for not known yet); ``EngineError`` (a ValueError
    naming what is wrong) for one the layer cannot take."""
    scale = data.get("head_scale", [])
    if not isinstance(scale, list) or not all(isinstance(p, list) and len(p) == 2
                                              for p in scale):
        raise EngineError("intervention_scale_type", value=scale)
    iv = Intervention(zero_heads=tuple(data.get("zero_heads", ())),
                      head_scale=tuple((p[0], p[1]) for p in scale),
                      zero_neurons=tuple(data.get("zero_neurons", ())),
                      skip=tuple(data.get("skip", ())))
    if iv.is_empty:
        return None
    return iv if config is None else iv.check(config)


class SessionError(ValueError):
    """A session file that cannot be opened; the message says why, for a person."""


#: The largest layer a session may ask for: its random weights are made on the interface's
#: thread when the session opens (Qwen3-0.6B's layer: 15.7 M weights, ~0.2 s), and a file could
#: otherwise ask for gigabytes (a MemoryError, or the window frozen for many seconds).
MAX_SESSION_LAYER = Qwen3Config.qwen3_0_6b()


def weight_count(config: Qwen3Config) -> int:
    """How many numbers the layer's weights hold."""
    return sum(math.prod(shape) for shape in weight_shapes(config).values())


class _Invalid(SessionError):
    """A field-level problem; :func:`parse_session` words it for a person."""


def _tr(text: str, *args: object) -> str:
    """``text`` (already translated) with %1, %2 … filled in."""
    out = text
    for i, arg in enumerate(args, 1):
        out = out.replace(f"%{i}", str(arg))
    return out


@dataclass(frozen=True)
class Session:
    """What a session file holds. Language and view options may be absent (None): opening
    such a file (the shipped examples) keeps the reader's own language and view."""

    text: str
    config: Qwen3Config = field(default_factory=Qwen3Config.toy)
    seed: int = 0
    causal: bool = True
    step: str = "attn_probs"
    head: int = 0
    query: int = 0
    depth_t: float = 1.0
    language: str | None = None
    palette: str | None = None
    theme: str | None = None
    font_scale: float | None = None
    #: The file the layer's weights are read from (None: random weights from ``seed``), which
    #: layer of it, and the sha256 of its numbers (a changed file is told on opening).
    weights_path: str | None = None
    weights_layer: int = 0
    weights_sha256: str = ""
    #: ``weights_path`` relative to the session file's folder, written beside it: a lesson
    #: folder moved (or copied to the classroom machine) with its model still finds it.
    weights_relative: str = ""
    #: A real model's folder (None: the toy layer) and the layer shown; ``config``, ``seed``
    #: and the weights fields are then the toy layer's, used when the folder is gone.
    model_path: str | None = None
    model_layer: int = 0
    #: What was switched off (issue 23); None: the plain layer (and every older session).
    #: With a model it is checked against the model's layer when the session opens (the
    #: toy layer's ``config`` says nothing of the model's heads and neurons).
    intervention: Intervention | None = None
    #: With a model: "all" when the intervention runs in every layer (None: the shown one).
    intervene_layers: str | None = None

    def weights_dict(self) -> dict[str, Any]:
        """The ``"weights"`` field: random from a seed, or a layer of a file (whose seed is
        the random layer used when the file is gone)."""
        if self.weights_path is None:
            return {"kind": "random", "seed": self.seed}
        found = {"kind": "file", "path": self.weights_path, "layer": self.weights_layer,
                 "sha256": self.weights_sha256, "seed": self.seed}
        return {**found, "relative": self.weights_relative} if self.weights_relative else found

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "format": FORMAT,
            "version": VERSION,
            "text": self.text,
            "config": self.config.to_dict(),
            "weights": self.weights_dict(),
            "causal": self.causal,
            "selection": {"step": self.step, "head": self.head, "query": self.query,
                          "depth_t": self.depth_t},
        }
        if self.model_path is not None:
            data["model"] = {"path": self.model_path, "layer": self.model_layer}
        if self.language is not None:
            data["language"] = self.language
        intervention = intervention_dict(self.intervention, self.intervene_layers)
        if intervention is not None:
            data["intervention"] = intervention
        view = {"palette": self.palette, "theme": self.theme, "font_scale": self.font_scale}
        view = {k: v for k, v in view.items() if v is not None}
        if view:
            data["view"] = view
        return data


def session_from_state(state: object) -> Session:
    s: Any = state
    source = s.weights_source
    config, seed = s.config, s.seed
    model = s.model
    if model is not None:  # the toy layer behind it is what the fields below describe
        config, seed, source = s.inputs.toy
    return Session(text=s.text, config=config, seed=seed, causal=s.causal, step=s.step,
                   head=s.head, query=s.query, depth_t=s.depth_t, language=s.language,
                   palette=s.palette, theme=s.theme, font_scale=s.font_scale,
                   weights_path=source.path if source else None,
                   weights_layer=source.layer if source else 0,
                   weights_sha256=source.fingerprint if source else "",
                   model_path=str(model.folder) if model is not None else None,
                   model_layer=s.model_layer if model is not None else 0,
                   intervention=getattr(s, "intervention", None),
                   intervene_layers=(getattr(s, "intervene_layers", None)
                                     if model is not None else None))


# ----- reading: check everything, build nothing half-way -----
def _need(mapping: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in mapping:
        raise _Invalid(_tr(QCoreApplication.translate(
            "Sessions", "the session has no %1 field"), f"{where}{key!r}"))
    value = mapping[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        raise _Invalid(_tr(QCoreApplication.translate(
            "Sessions", "%1 must be a number, not true/false"), f"{where}{key!r}"))
    if not isinstance(value, kind):
        raise _Invalid(_tr(QCoreApplication.translate(
            "Sessions", "%1 has the wrong type (%2)"), f"{where}{key!r}", type(value).__name__))
    return value


def _opt(mapping: dict[str, Any], key: str, kind: type | tuple[type, ...], default: Any,
         where: str) -> Any:
    return _need(mapping, key, kind, where) if key in mapping else default


def parse_session(data: object) -> Session:
    """Validate a decoded JSON document; raise :class:`SessionError` on anything off."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SessionError(QCoreApplication.translate(
            "Sessions", "this is not a Dual View session file"))
    version = data.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise SessionError(QCoreApplication.translate(
            "Sessions", "the session file has no valid version number"))
    if version > VERSION:
        raise SessionError(_tr(QCoreApplication.translate(
            "Sessions", "it was saved by a newer Dual View (file version %1; this app reads "
            "up to version %2). Please update the app."), version, VERSION))
    try:
        return _parse_fields(data)
    except _Invalid as exc:
        raise SessionError(_tr(QCoreApplication.translate(
            "Sessions", "the session file is damaged or incomplete (%1)"), exc)) from exc


def _parse_fields(data: dict[str, Any]) -> Session:
    text = _need(data, "text", str, "")
    if text_length(text) > MAX_TEXT_CHARS:  # the text field would cut it without a word
        raise _Invalid(_tr(QCoreApplication.translate(
            "Sessions", "its text has %1 characters, more than the %2 the text field holds"),
            f"{text_length(text):,}", f"{MAX_TEXT_CHARS:,}"))
    try:
        config = Qwen3Config.from_dict(_need(data, "config", dict, ""))
    except (EngineError, TypeError) as exc:
        raise _Invalid(_tr(QCoreApplication.translate(
            "Sessions", "the layer config is invalid: %1"), exception_text(exc))) from exc
    if weight_count(config) > weight_count(MAX_SESSION_LAYER):
        raise _Invalid(_tr(QCoreApplication.translate(
            "Sessions", "its layer has %1 weights, more than the %2 of the largest layer "
            "this app runs (Qwen3-0.6B's)"),
            f"{weight_count(config):,}", f"{weight_count(MAX_SESSION_LAYER):,}"))
    weights = _need(data, "weights", dict, "")
    kind = weights.get("kind")
    weights_path, weights_layer, weights_sha256, weights_relative = None, 0, "", ""
    if kind == "file":
        weights_path = _need(weights, "path", str, "weights.")
        weights_layer = _need(weights, "layer", int, "weights.")
        weights_sha256 = _opt(weights, "sha256", str, "", "weights.")
        weights_relative = _opt(weights, "relative", str, "", "weights.")
        if not weights_path or weights_layer < 0:
            raise _Invalid(QCoreApplication.translate(
                "Sessions", "its weights file or layer number is invalid"))
    elif kind != "random":
        raise _Invalid(QCoreApplication.translate(
            "Sessions", "it refers to weights this version cannot load"))
    seed = _opt(weights, "seed", int, 0, "weights.") if kind == "file" \
        else _need(weights, "seed", int, "weights.")
    if not 0 <= seed < 2**32:
        raise _Invalid(_tr(QCoreApplication.translate(
            "Sessions", "the weight seed %1 is out of range"), seed))
    causal = _opt(data, "causal", bool, True, "")
    sel = _opt(data, "selection", dict, {}, "")
    step = _opt(sel, "step", str, "attn_probs", "selection.")
    if step not in STEP_NAMES:
        raise _Invalid(_tr(QCoreApplication.translate(
            "Sessions", "unknown step %1 in the selection"), repr(step)))
    head = _opt(sel, "head", int, 0, "selection.")
    query = _opt(sel, "query", int, 0, "selection.")
    if head < 0 or query < 0:
        raise _Invalid(QCoreApplication.translate(
            "Sessions", "selection head and query must not be negative"))
    depth_t = float(_opt(sel, "depth_t", (int, float), 1.0, "selection."))
    if not (math.isfinite(depth_t) and 0.0 <= depth_t <= 1.0):
        raise _Invalid(QCoreApplication.translate(
            "Sessions", "selection depth_t must be between 0 and 1"))
    language = _opt(data, "language", str, None, "")
    if language is not None and language not in LANGUAGES:
        raise _Invalid(_tr(QCoreApplication.translate(
            "Sessions", "unknown language %1"), repr(language)))
    view = _opt(data, "view", dict, {}, "")
    palette = _opt(view, "palette", str, None, "view.")
    theme = _opt(view, "theme", str, None, "view.")
    font_scale = _opt(view, "font_scale", (int, float), None, "view.")
    if palette is not None and palette not in PALETTE_KEYS:
        raise _Invalid(_tr(QCoreApplication.translate(
            "Sessions", "unknown palette %1"), repr(palette)))
    if theme is not None and theme not in THEMES:
        raise _Invalid(_tr(QCoreApplication.translate(
            "Sessions", "unknown theme %1"), repr(theme)))
    if font_scale is not None:
        font_scale = float(font_scale)
        if not (math.isfinite(font_scale) and FONT_SCALE_MIN <= font_scale <= FONT_SCALE_MAX):
            raise _Invalid(QCoreApplication.translate(
            "Sessions", "view font_scale is out of range"))
    model = _opt(data, "model", dict, None, "")
    model_path, model_layer = None, 0
    if model is not None:
        model_path = _need(model, "path", str, "model.")
        model_layer = _opt(model, "layer", int, 0, "model.")
        if not model_path or model_layer < 0:
            raise _Invalid(QCoreApplication.translate(
                "Sessions", "its model folder or layer number is invalid"))
    intervention, intervene_layers = None, None
    held = _opt(data, "intervention", dict, None, "")
    if held is not None:
        try:
            # a model's intervention is for the model's layer, not the toy layer ``config``
            # describes: its ranges are checked when the session opens (FileController)
            intervention = intervention_from_dict(held, config if model is None else None)
        except (EngineError, TypeError) as exc:
            raise _Invalid(_tr(QCoreApplication.translate(
                "Sessions", "its intervention is invalid: %1"), exception_text(exc))) from exc
        intervene_layers = _opt(held, "layers", str, None, "intervention.")
        if intervene_layers not in (None, "all"):
            raise _Invalid(_tr(QCoreApplication.translate(
                "Sessions", "its intervention's layers are %1; only “all” is known"),
                repr(intervene_layers)))
    return Session(text=text, config=config, seed=seed, causal=causal, step=step, head=head,
                   query=query, depth_t=depth_t, language=language, palette=palette,
                   theme=theme, font_scale=font_scale, weights_path=weights_path,
                   weights_layer=weights_layer, weights_sha256=weights_sha256,
                   weights_relative=weights_relative, model_path=model_path,
                   model_layer=model_layer, intervention=intervention,
                   intervene_layers=intervene_layers)


def read_session(path: str | os.PathLike[str]) -> Session:
    path = Path(path)
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):  # /dev/zero reads forever, a FIFO blocks
            raise SessionError(_tr(QCoreApplication.translate(
                "Sessions", "%1 is not a file"), path.name))
        if info.st_size > MAX_BYTES:
            raise SessionError(QCoreApplication.translate(
                "Sessions", "the file is far too large to be a Dual View session"))
        with path.open("rb") as f:
            raw = f.read(MAX_BYTES + 1)  # (it may have grown since)
    except FileNotFoundError as exc:
        raise SessionError(_tr(QCoreApplication.translate(
            "Sessions", "the file %1 does not exist"), path.name)) from exc
    except OSError as exc:
        raise SessionError(_tr(QCoreApplication.translate(
            "Sessions", "the file %1 cannot be read (%2)"), path.name, os_reason(exc))) from exc
    try:
        # utf-8-sig: an editor may have put a byte-order mark in front
        data = json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        # (ValueError: also an integer of thousands of digits; RecursionError: deep nesting)
        raise SessionError(QCoreApplication.translate(
            "Sessions", "the file is damaged or is not a session (it is not valid JSON)")) \
            from exc
    return _found_beside(parse_session(data), path)


def _found_beside(session: Session, path: Path) -> Session:
    """The session's weights file where it was saved, else at the same place relative to the
    session file (the folder of both moved or copied)."""
    if session.weights_path is None or not session.weights_relative \
            or os.path.exists(session.weights_path):
        return session
    beside = path.parent / session.weights_relative
    return replace(session, weights_path=str(beside.resolve())) if beside.is_file() else session


# ----- writing: atomic -----
def _file_mode(path: Path) -> int:
    """The existing file's permissions, else what a plain ``open(path, "w")`` would give."""
    try:
        return path.stat().st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def write_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` so a reader sees the old file or the new one, never half.
    An error names ``path`` (not the temporary file)."""
    try:
        _write_atomic(Path(path), data)
    except OSError as exc:
        if exc.errno is None:
            raise
        raise OSError(exc.errno, exc.strerror, os.fspath(path)) from exc


def _process_gone(pid: int) -> bool:
    """Whether no process ``pid`` runs on this machine (False when it cannot be told)."""
    if os.name != "posix" or pid <= 0:
        return False  # on Windows os.kill(pid, 0) would send the process a Ctrl+C
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # PermissionError: it runs, as another user
        return False
    return False


def remove_stale_temp_files(folder: str | os.PathLike[str], now: float | None = None) -> int:
    """Remove the temporary files killed writes of :func:`write_atomic` left in ``folder``:
    ours by name, and older than :data:`STALE_TEMP_S`, or than :data:`STALE_TEMP_DEAD_WRITER_S`
    when the process that wrote it is gone. A write under way keeps its file. Returns how many
    were removed; never raises (a folder that cannot be listed has nothing to clean)."""
    now = time.time() if now is None else now
    removed = 0
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    for entry in entries:
        match = _TEMP_NAME.fullmatch(entry.name)
        if match is None:
            continue
        try:
            info = entry.stat(follow_symlinks=False)
            if not stat.S_ISREG(info.st_mode):
                continue
            age = now - info.st_mtime
            writer = int(match.group(1)) if match.group(1) else 0
            if age > STALE_TEMP_S or (age > STALE_TEMP_DEAD_WRITER_S and _process_gone(writer)):
                os.unlink(entry.path)
                removed += 1
        except (OSError, ValueError):  # gone meanwhile, not ours to remove; ValueError: pid
            continue
    return removed


def _write_atomic(path: Path, data: bytes) -> None:
    # through a symbolic link to the file it names (replacing the link would leave that file
    # as it was); a short temporary name, so a name near the 255-byte limit still saves
    path = Path(os.path.realpath(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-", suffix=TEMP_SUFFIX,
                               dir=path.parent)
    try:
        if hasattr(os, "fchmod"):  # mkstemp makes 0600; give the file the usual permissions
            os.fchmod(fd, _file_mode(path))
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    remove_stale_temp_files(path.parent)
    try:  # make the rename itself durable (not possible on every platform)
        dir_fd = os.open(path.parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)


_SURROGATE = re.compile(r"[\ud800-\udfff]")


def session_bytes(session: Session) -> bytes:
    """The session file's bytes: UTF-8 JSON, readable Chinese. A lone surrogate (it has no
    UTF-8 form) is written as its JSON escape ``\\udXXX``: JSON's own text is ASCII outside its
    strings, so every surrogate in the dump is inside a string, and reading the escape gives
    back the same character. (A high and a low surrogate next to each other read back as the
    one character they encode; a decoded file never holds such a pair.)"""
    text = json.dumps(session.to_dict(), ensure_ascii=False, indent=2) + "\n"
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text).encode("utf-8")


def write_session(path: str | os.PathLike[str], session: Session) -> None:
    if session.weights_path is not None:
        try:
            relative = os.path.relpath(session.weights_path, Path(path).parent)
        except ValueError:  # another drive (Windows): there is no relative path
            relative = ""
        session = replace(session, weights_relative=relative)
    write_atomic(path, session_bytes(session))


# ----- autosave and crash recovery -----
def autosave_path(folder: Path) -> Path:
    return folder / AUTOSAVE_NAME


def mark_running(folder: Path) -> None:
    """The app started: remove the clean-exit marker (it is written back on a normal close)
    and what killed writes left in the folder."""
    remove_stale_temp_files(folder)
    try:
        (folder / CLEAN_EXIT_NAME).unlink()
    except FileNotFoundError:
        pass


def mark_clean_exit(folder: Path) -> None:
    write_atomic(folder / CLEAN_EXIT_NAME, b"closed normally\n")


def take_crash_autosave(folder: Path) -> Path | None:
    """If the last run left an autosave but no clean-exit marker, move the autosave aside
    (so this run's autosave cannot overwrite it) and return where it went; else None."""
    auto = autosave_path(folder)
    if not auto.exists() or (folder / CLEAN_EXIT_NAME).exists():
        return None
    target = folder / RECOVERED_NAME
    os.replace(auto, target)
    return target


def example_sessions() -> list[Path]:
    """The example sessions shipped under ``resources/sessions``."""
    from app.resources import resource_path

    folder = resource_path("sessions")
    return sorted(folder.glob("*" + SUFFIX)) if folder.is_dir() else []


def is_example(path: str | os.PathLike[str]) -> bool:
    """``path`` is one of the shipped example sessions (however it was reached)."""
    try:
        real = Path(path).resolve()
        return any(real == example.resolve() for example in example_sessions())
    except OSError:
        return False


def example_title(path: Path, language: str = "en") -> str:
    """The menu title of an example session: its ``title`` field in the language, else the
    file name."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        title = data.get("title", {})
        if isinstance(title, dict):
            text = title.get(language) or title.get("en")
            if isinstance(text, str) and text:
                return text
    except (OSError, ValueError):
        pass
    return Path(path).name.removesuffix(SUFFIX).replace("-", " ")
