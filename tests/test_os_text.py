"""A file that cannot be saved, exported or read is said in the interface language: the common
operating-system reasons are translated, the file is named, any other reason keeps the system's
words."""

import errno
import os
import re

import pytest

from app import i18n
from app.engine_text import exception_text
from app.os_text import REASONS, file_error_text, os_error_text, os_reason
from engine.checkpoint import load_layer
from engine.errors import EngineError

pytestmark = pytest.mark.usefixtures("restore_view")

CJK = re.compile(r"[\u4e00-\u9fff]")


def os_error(number, filename=None):
    return OSError(number, os.strerror(number), filename)


def test_every_listed_reason_has_a_chinese_translation():
    i18n.translations().apply("zh")
    for number in REASONS:
        reason = os_reason(os_error(number))
        assert CJK.search(reason), (errno.errorcode[number], reason)
    i18n.translations().apply("en")
    assert [os_reason(os_error(n)) for n in REASONS] == list(REASONS.values())


def test_the_file_is_named_with_the_reason_in_the_interface_language():
    exc = PermissionError(errno.EACCES, os.strerror(errno.EACCES), "/课堂/热图.png")
    assert os_error_text(exc) == "/课堂/热图.png: permission denied"
    i18n.translations().apply("zh")
    assert os_error_text(exc) == "/课堂/热图.png：没有权限"
    assert os_error_text(os_error(errno.ENOSPC)) == "磁盘已满"  # no file name given


def test_an_unlisted_reason_keeps_the_systems_words():
    i18n.translations().apply("zh")
    assert errno.ELOOP not in REASONS
    assert os_reason(os_error(errno.ELOOP)) == os.strerror(errno.ELOOP)
    assert os_error_text(OSError("no errno at all")) == "no errno at all"
    assert file_error_text(ValueError("already worded")) == "already worded"


def test_saving_a_session_under_a_file_is_said_in_chinese(make_window, tmp_path):
    window = make_window(sync=True, text="a")
    window.set_language("zh")
    blocker = tmp_path / "一个文件"
    blocker.write_text("x")
    target = blocker / "课.dualview.json"
    assert not window.save_session(target)
    assert "无法保存会话" in window.last_message
    assert str(target) in window.last_message
    # (making the folder fails first: a file of its name is there)
    assert "同名的文件或文件夹挡住了路径" in window.last_message
    assert os.strerror(errno.EEXIST) not in window.last_message
    assert "Errno" not in window.last_message


def test_an_export_under_a_file_is_said_in_chinese(make_window, tmp_path):
    window = make_window(sync=True, text="a b")
    window.set_language("zh")
    (tmp_path / "gone").write_text("a file where the folder should be")
    for export, name in ((window.export_step, "step.csv"), (window.export_all_steps, "all.npz"),
                         (lambda path: window.export_panel("heatmapDock", path), "map.png")):
        window.last_message = ""
        assert not export(tmp_path / "gone" / name)
        shown = window.last_message
        assert shown.startswith("导出失败：") and str(tmp_path / "gone" / name) in shown, shown
        assert "同名的文件或文件夹挡住了路径" in shown or "路径中有一部分不是文件夹" in shown, shown
        assert "Errno" not in shown and os.strerror(errno.EEXIST) not in shown


def test_a_session_file_that_cannot_be_read_says_why_in_chinese(make_window, tmp_path,
                                                                 monkeypatch):
    from pathlib import Path

    from app import sessions

    path = tmp_path / "课.dualview.json"
    path.write_text("{}", encoding="utf-8")

    def refuse(self, *args, **kwargs):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(self))

    monkeypatch.setattr(Path, "open", refuse)  # (root may read any file: chmod would not do)
    i18n.translations().apply("zh")
    with pytest.raises(sessions.SessionError, match="没有权限"):
        sessions.read_session(path)


def test_an_unreadable_weights_file_says_why_in_chinese(tmp_path):
    (tmp_path / "a file").write_text("x")
    with pytest.raises(EngineError) as caught:
        load_layer(str(tmp_path / "a file" / "model.safetensors"))
    assert caught.value.code == "file_unreadable"
    assert os.strerror(errno.ENOTDIR) in str(caught.value)  # the engine speaks English
    i18n.translations().apply("zh")
    shown = exception_text(caught.value)
    assert "路径中有一部分不是文件夹" in shown and os.strerror(errno.ENOTDIR) not in shown
