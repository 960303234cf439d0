"""The launch baseline of issue 4: a minimal four-dock pyqtgraph window, nothing else.

Four docks, each a plot with a 16 × 64 heatmap. It prints the same first-paint line as
``dualview --selftest`` so ``benchmarks/launch_bench.py --baseline`` can time it beside the
app (from source and as its own PyInstaller onedir bundle): the ratio tells what the app adds
on top of Qt and pyqtgraph on this machine, whatever its speed.
"""

from __future__ import annotations

import os
import sys
import time

os.environ.setdefault("QT_API", "pyside6")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QDockWidget, QMainWindow


def main() -> int:
    pg.setConfigOptions(imageAxisOrder="row-major")
    app = QApplication(sys.argv[:1])
    window = QMainWindow()
    window.resize(1600, 1000)
    rng = np.random.default_rng(0)
    areas = (Qt.DockWidgetArea.LeftDockWidgetArea, Qt.DockWidgetArea.RightDockWidgetArea)
    for i in range(4):
        dock = QDockWidget(f"dock {i}", window)
        dock.setObjectName(f"dock{i}")
        plot = pg.PlotWidget()
        plot.addItem(pg.ImageItem(rng.standard_normal((16, 64)).astype(np.float32)))
        dock.setWidget(plot)
        window.addDockWidget(areas[i % 2], dock)
    window.show()
    app.processEvents()  # expose and paint, as the self-test's last step does
    print(f"selftest: first full paint at {time.time():.4f}", flush=True)
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
