"""Operating-system errors (a file that cannot be written or read) in the interface language.

Python words an ``OSError`` in English (``[Errno 13] Permission denied: '/x/a.png'``). The
common reasons a teacher meets when saving, exporting or opening a file are translated here by
their ``errno``; any other reason keeps the system's own words. The file name is always said.
"""

from __future__ import annotations

import errno
import os

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

CONTEXT = "OsError"

#: errno -> the reason in English (the source text of its translation).
REASONS: dict[int, str] = {
    errno.EACCES: QT_TRANSLATE_NOOP("OsError", "permission denied"),
    errno.EPERM: QT_TRANSLATE_NOOP("OsError", "not permitted"),
    errno.ENOENT: QT_TRANSLATE_NOOP("OsError", "no such file or folder"),
    errno.ENOTDIR: QT_TRANSLATE_NOOP("OsError", "part of the path is not a folder"),
    errno.EISDIR: QT_TRANSLATE_NOOP("OsError", "it is a folder, not a file"),
    # (also a folder that cannot be made because a file of its name is there)
    errno.EEXIST: QT_TRANSLATE_NOOP("OsError", "a file or folder of that name is in the way"),
    errno.ENOSPC: QT_TRANSLATE_NOOP("OsError", "the disk is full"),
    errno.EDQUOT: QT_TRANSLATE_NOOP("OsError", "the disk quota is used up"),
    errno.EROFS: QT_TRANSLATE_NOOP("OsError", "the disk is read-only"),
    errno.ENAMETOOLONG: QT_TRANSLATE_NOOP("OsError", "the file name is too long"),
    errno.EIO: QT_TRANSLATE_NOOP("OsError", "the disk could not be read or written"),
    errno.EBUSY: QT_TRANSLATE_NOOP("OsError", "the file is in use"),
    errno.EINVAL: QT_TRANSLATE_NOOP("OsError", "the name is not allowed here"),
}


def os_reason(exc: OSError) -> str:
    """Why ``exc`` happened, without the file name: translated for a common ``errno``."""
    source = REASONS.get(exc.errno) if exc.errno is not None else None
    if source is not None:
        return QCoreApplication.translate(CONTEXT, source)
    return exc.strerror or str(exc)


def translate_strerror(text: str) -> str:
    """``text`` translated when it is this platform's ``os.strerror`` of a listed ``errno``
    (what the engine, which has no Qt, passes on as a reason); else ``text`` unchanged."""
    for number, source in REASONS.items():
        if text == os.strerror(number):
            return QCoreApplication.translate(CONTEXT, source)
    return text


def os_error_text(exc: OSError) -> str:
    """``exc`` for a message: the reason in the interface language, then the file it names."""
    reason = os_reason(exc)
    if exc.filename is None:
        return reason if exc.errno in REASONS or exc.strerror else str(exc)
    return QCoreApplication.translate("OsError", "%1: %2").replace(
        "%1", os.fsdecode(exc.filename)).replace("%2", reason)


def file_error_text(exc: BaseException) -> str:
    """An error from saving or exporting: an ``OSError`` worded by :func:`os_error_text`,
    anything else (already in the interface language) as it is."""
    return os_error_text(exc) if isinstance(exc, OSError) else str(exc)
