"""One PNG of many window screenshots: thumbnails in a grid, each with its caption.

``tests/test_layout_matrix.py`` builds one from its 40 cases (5 screen sizes × 2 languages ×
presentation on/off × tour on/off) so the team can see the whole matrix at a glance; a case
with a cut-off or overlapped text gets a red caption naming what. To write it somewhere:

    python -m tools.contact_sheet layout-matrix.png

which runs that test with ``DUALVIEW_CONTACT_SHEET`` set to the path (and keeps each full-size
screenshot beside it, in ``<name>-shots/``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QColor, QFont, QImage, QPainter

#: The environment variable naming where the matrix test writes its sheet.
ENV = "DUALVIEW_CONTACT_SHEET"
ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Shot:
    """One screenshot, its caption, and what was found wrong in it (empty: nothing)."""

    image: QImage
    caption: str
    problems: tuple[str, ...] = ()


def build(shots: Sequence[Shot], columns: int, thumb_width: int = 480) -> QImage:
    """The sheet: ``columns`` thumbnails a row, ``thumb_width`` px wide (aspect kept), each
    captioned below (green: nothing found; red: the first problems found)."""
    if not shots or columns < 1:
        raise ValueError("a contact sheet needs at least one shot and one column")
    scale = [thumb_width / max(s.image.width(), 1) for s in shots]
    thumb_height = max(int(s.image.height() * k) for s, k in zip(shots, scale, strict=True))
    caption_height = 58
    gap = 10
    rows = (len(shots) + columns - 1) // columns
    width = columns * (thumb_width + gap) + gap
    height = rows * (thumb_height + caption_height + gap) + gap
    sheet = QImage(width, height, QImage.Format.Format_RGB32)
    sheet.fill(QColor("#2b2b2b"))
    painter = QPainter(sheet)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    font = QFont()
    font.setPixelSize(13)
    painter.setFont(font)
    for i, shot in enumerate(shots):
        x = gap + (i % columns) * (thumb_width + gap)
        y = gap + (i // columns) * (thumb_height + caption_height + gap)
        thumb = shot.image.scaledToWidth(thumb_width, Qt.TransformationMode.SmoothTransformation)
        painter.drawImage(x, y, thumb)
        painter.setPen(QColor("#ff6b6b") if shot.problems else QColor("#8fd18f"))
        text = shot.caption + ("\n" + "; ".join(shot.problems[:3]) if shot.problems
                               else "\nnothing cut off")
        painter.drawText(QRect(x, y + thumb.height() + 2, thumb_width, caption_height),
                         int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop
                             | Qt.TextFlag.TextWordWrap), text)
    painter.end()
    return sheet


def main(argv: Sequence[str] | None = None) -> int:
    """Run the layout matrix test and have it write its contact sheet to ``argv[0]``."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m tools.contact_sheet OUT.png", file=sys.stderr)
        return 2
    out = Path(args[0]).resolve()
    env = {**os.environ, ENV: str(out)}
    done = subprocess.run([sys.executable, "-m", "pytest", "tests/test_layout_matrix.py", "-q",
                           "-p", "no:randomly"], cwd=ROOT, env=env, check=False)
    print(f"contact sheet: {out}" if out.exists() else "no contact sheet written")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
