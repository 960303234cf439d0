"""Exports: any panel as PNG or SVG, the step matrix on screen as CSV or ``.npy``, all steps of
the current input as one ``.npz``.

Every export carries what is needed to reproduce it — the text, the tokens, the step, the head,
the layer config, the weight seed and the causal flag: PNG text chunks (``QImage.setText``),
the SVG title and description, ``#`` comment lines above the CSV numbers, a ``.json`` beside the
``.npy`` (the format has no room for it), and JSON text fields inside the ``.npz`` (loadable
with ``allow_pickle=False``). Every file is written atomically (``sessions.write_atomic``).
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import QBuffer, QByteArray, QCoreApplication, QIODevice, QPoint, QRect, QSize
from PySide6.QtGui import QImage, QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QWidget

from app import __version__
from app.compute import Result
from app.sessions import intervention_dict, write_atomic

#: Bump when the ``.npz`` layout changes.
NPZ_FORMAT_VERSION = 1


class ExportError(RuntimeError):
    """An export that could not be written; the message is for a person."""


def provenance(result: Result | None, *, seed: int, causal: bool, step: str | None = None,
               head: int | None = None, columns: str | None = None,
               query_head: int | None = None,
               weights: dict[str, Any] | None = None) -> dict[str, Any]:
    """What a figure or a table needs to be reproduced, as plain JSON-able values
    (``weights``: where the layer's weights came from, when not random from ``seed``)."""
    meta: dict[str, Any] = {"app": f"Dual View {__version__}"}
    if result is not None and result.ok:
        meta["text"] = result.text
        meta["tokens"] = list(result.tokens)
        meta["config"] = result.trace.config.to_dict()  # type: ignore[union-attr]
        if result.model_run is not None:  # a real model's own token ids
            meta["ids"] = list(result.model_run.ids)
        # what was switched off: an intervened figure never passes for the plain layer's
        run = result.model_run  # with a model: the layers it ran in
        intervention = intervention_dict(
            result.trace.intervention,  # type: ignore[union-attr]
            list(run.intervened_layers) if run is not None else None)
        if intervention is not None:
            meta["intervention"] = intervention
    meta["weights"] = weights or {"kind": "random", "seed": seed}
    meta["causal"] = causal
    if step is not None and result is not None and result.ok:
        shown = result.trace.step(step)  # type: ignore[union-attr]
        meta["step"] = {"index": shown.index, "name": shown.name, "formula": shown.formula,
                        "axes": list(shown.axes)}
    if head is not None:
        meta["head"] = head  # an index into the step's head axis (kv heads for k/v steps)
    if query_head is not None:
        meta["query_head"] = query_head  # the query head selected, which reads kv head "head"
    if columns is not None:
        meta["columns"] = columns
    return meta


def _one_line(meta: dict[str, Any]) -> dict[str, str]:
    """PNG text chunks: one key per field, JSON for the structured ones."""
    out = {}
    for key, value in meta.items():
        out[key] = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return out


# ----- pictures -----
def widget_png(widget: QWidget, path: str | os.PathLike[str], meta: dict[str, Any]) -> QImage:
    """The widget as it is on screen, as PNG with ``meta`` in its text chunks."""
    image = widget.grab().toImage()
    if image.isNull():
        raise ExportError(QCoreApplication.translate(
            "Export", "the panel has nothing to draw (is it hidden?)"))
    for key, value in _one_line(meta).items():
        image.setText(key, value)
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG"):
        raise ExportError(QCoreApplication.translate("Export", "the PNG encoder failed"))
    write_atomic(path, bytes(buffer.data()))
    return image


def widget_svg(widget: QWidget, path: str | os.PathLike[str], meta: dict[str, Any]) -> None:
    """The widget as vector graphics (text stays text); ``meta`` goes in the description."""
    size = widget.size()
    if size.isEmpty():
        raise ExportError(QCoreApplication.translate(
            "Export", "the panel has no size (is it hidden?)"))
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    generator = QSvgGenerator()
    generator.setOutputDevice(buffer)
    generator.setSize(QSize(size))
    generator.setViewBox(QRect(0, 0, size.width(), size.height()))
    step = meta.get("step")
    generator.setTitle("Dual View" + (f" — {step['index']}. {step['name']}" if step else ""))
    generator.setDescription(json.dumps(meta, ensure_ascii=False))
    painter = QPainter()
    if not painter.begin(generator):
        raise ExportError(QCoreApplication.translate(
            "Export", "could not start the SVG painter"))
    try:
        widget.render(painter, QPoint(0, 0))
    finally:
        painter.end()
    buffer.close()
    write_atomic(path, bytes(data))


# ----- numbers -----
def _number(value: float) -> str:
    return repr(float(value))  # every digit of a float64; inf, -inf and nan as numpy reads them


def matrix_csv(matrix: np.ndarray, meta: dict[str, Any], row_labels: list[str],
               col_labels: list[str] | None) -> str:
    """CSV text: ``#`` comment lines with the provenance, then one line of numbers per row.

    ``np.loadtxt(path, delimiter=",")`` reads the numbers back exactly."""
    if matrix.ndim != 2:
        raise ExportError(f"expected a 2-D matrix, got shape {matrix.shape}")
    lines = [f"# {meta['app']} export"]
    step = meta.get("step")
    if step:
        lines.append(f"# step: {step['index']}. {step['name']}    {step['formula']}")
    if "head" in meta:
        lines.append(f"# head: {meta['head']}")
    for key in ("text", "tokens", "config", "weights", "causal"):
        if key in meta:
            lines.append(f"# {key}: {json.dumps(meta[key], ensure_ascii=False)}")
    lines.append(f"# shape: {matrix.shape[0]} rows x {matrix.shape[1]} columns")
    lines.append(f"# rows: {json.dumps(row_labels, ensure_ascii=False)}")
    columns = col_labels if col_labels else [f"{meta.get('columns', 'column')} {j}"
                                             for j in range(matrix.shape[1])]
    lines.append(f"# columns: {json.dumps(columns, ensure_ascii=False)}")
    lines.append('# read with numpy: np.loadtxt(path, delimiter=",")')
    for row in matrix:
        lines.append(",".join(_number(v) for v in row))
    return "\n".join(lines) + "\n"


def write_csv(path: str | os.PathLike[str], matrix: np.ndarray, meta: dict[str, Any],
              row_labels: list[str], col_labels: list[str] | None = None) -> None:
    write_atomic(path, matrix_csv(matrix, meta, row_labels, col_labels).encode("utf-8"))


def npy_sidecar(path: str | os.PathLike[str]) -> Path:
    """Where the metadata of ``x.npy`` goes: ``x.npy.json``."""
    return Path(f"{os.fspath(path)}.json")


def write_npy(path: str | os.PathLike[str], matrix: np.ndarray, meta: dict[str, Any],
              row_labels: list[str], col_labels: list[str] | None = None) -> Path:
    """The float64 matrix as ``.npy`` plus its provenance in ``<path>.json``; returns that."""
    buffer = io.BytesIO()
    np.save(buffer, np.ascontiguousarray(matrix, dtype=np.float64), allow_pickle=False)
    sidecar = {**meta, "rows": row_labels, "columns_labels": col_labels,
               "shape": list(matrix.shape)}
    write_atomic(path, buffer.getvalue())
    side = npy_sidecar(path)
    write_atomic(side, (json.dumps(sidecar, ensure_ascii=False, indent=2) + "\n").encode())
    return side


def write_all_steps(path: str | os.PathLike[str], result: Result, meta: dict[str, Any]) -> None:
    """All steps of ``result`` in one ``.npz``: one float64 array per step name, plus
    ``tokens``, ``config``, ``meta`` and ``step_names`` as JSON text (no pickled objects)."""
    if result is None or not result.ok:
        raise ExportError(QCoreApplication.translate(
            "Export", "nothing computed yet: type a sentence first"))
    trace = result.trace
    arrays: dict[str, np.ndarray] = {step.name: np.asarray(step.array) for step in trace}
    names = [step.name for step in trace]
    arrays["step_names"] = np.array(json.dumps(names))
    arrays["tokens"] = np.array(json.dumps(list(result.tokens), ensure_ascii=False))
    arrays["config"] = np.array(json.dumps(trace.config.to_dict()))
    arrays["meta"] = np.array(json.dumps({**meta, "npz_format": NPZ_FORMAT_VERSION,
                                          "formulas": [s.formula for s in trace]},
                                         ensure_ascii=False))
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    write_atomic(path, buffer.getvalue())
