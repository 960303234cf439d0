"""Render the app icon from resources/icons/dualview.svg to PNG, ICO (Windows) and ICNS (macOS).

Run after editing the SVG: ``python packaging/make_icons.py``. Uses Qt only (QtSvg renders,
the .ico is PNG entries in an ICO
directory, Qt's icns plugin writes the .icns), so no Pillow is needed. The outputs are committed.
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ICONS = Path(__file__).resolve().parent.parent / "resources" / "icons"
SVG = ICONS / "dualview.svg"
PNG_SIZES = (16, 32, 48, 256)  # what a window, a .desktop file and Windows' .ico use


def render(size: int) -> object:
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(SVG))
    if not renderer.isValid():
        raise SystemExit(f"make_icons: cannot read {SVG}")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter)
    painter.end()
    return image


def png_bytes(size: int) -> bytes:
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice

    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    render(size).save(buffer, "PNG")
    buffer.close()
    return bytes(data.data())


def write_ico(path: Path, sizes: tuple[int, ...]) -> None:
    """A multi-size .ico whose entries are PNGs (the format Windows Vista and later read)."""
    blobs = [png_bytes(size) for size in sizes]
    header = struct.pack("<HHH", 0, 1, len(sizes))
    offset = len(header) + 16 * len(sizes)
    entries = b""
    for size, blob in zip(sizes, blobs, strict=True):
        side = 0 if size >= 256 else size  # 0 means 256 in an ICONDIRENTRY
        entries += struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(blob), offset)
        offset += len(blob)
    path.write_bytes(header + entries + b"".join(blobs))


def main() -> int:
    from PySide6.QtGui import QGuiApplication

    _app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    written = []
    for size in PNG_SIZES:
        path = ICONS / ("dualview.png" if size == 256 else f"dualview-{size}.png")
        if not render(size).save(str(path), "PNG"):
            raise SystemExit(f"make_icons: could not write {path}")
        written.append(path)
    # Windows: one .ico holding every size, each entry a PNG.
    ico = ICONS / "dualview.ico"
    write_ico(ico, PNG_SIZES)
    written.append(ico)
    # macOS: Qt's ICNS writer (qicns plugin) from a 512 px image.
    icns = ICONS / "dualview.icns"
    if not render(512).save(str(icns), "ICNS"):
        raise SystemExit(f"make_icons: could not write {icns} (Qt icns plugin missing?)")
    written.append(icns)
    for path in written:
        print(f"{path.relative_to(ICONS.parent.parent)}  {path.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
