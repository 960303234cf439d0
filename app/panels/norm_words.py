"""What the norm panel says about one vector, in the interface's language: the projection
reading (how far v lies from LayerNorm's and RMSNorm's constraint sets, docs/continuous.md E5,
E10) and the hover line. Qt-free but for the translation call; the sentences keep the norm
panel's translation context, where they were first written.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QTextDocument

from app.widgets.norm_parts import format_number
from engine.norms import NormComparison

#: (the norm panel's context: the catalogue keeps these sentences there)
translate = QCoreApplication.translate

#: The one-line explanation in both languages (the state's language picks one).
IDENTITY_TEXT = {
    "en": "LayerNorm is RMSNorm of the centred vector: LN(v) = RMSNorm(v − mean v). "
          "RMSNorm does not subtract the mean (it only scales it by 1/rms), LayerNorm "
          "removes it.",
    "zh": "LayerNorm 就是对去均值后的向量做 RMSNorm：LN(v) = RMSNorm(v − mean v)。"
          "RMSNorm 不减去均值（只把它乘以 1/rms），LayerNorm 把它去掉。",
}


@dataclass(frozen=True)
class Reading:
    """One line of the projection reading: its claim badge (EXACT when ``exact``, else the
    word ``failed``) and its text, ``full`` or ``short`` (the compact arrangement)."""

    exact: bool
    claim: str
    failed: str
    full: str
    short: str


def projection_readings(cmp: NormComparison, eps: float) -> tuple[Reading, Reading, Reading]:
    """LayerNorm's set, RMSNorm's sphere, and LN = RMSNorm of the centred vector."""
    d = cmp.vector.size
    ln, rms = cmp.layer_norm_projection, cmp.rms_projection
    mean, rms_v = cmp.input_stats.mean, cmp.input_stats.rms
    check = translate("NormComparePanel", "CHECK")
    not_unique = translate("NormComparePanel", "NOT UNIQUE")

    ln_exact = ln.unique and np.isclose(ln.squared_distance, ln.closed_form_squared_distance,
                                        rtol=1e-9, atol=1e-12)
    text = translate("NormComparePanel",
                     "to S = {mean 0, variance 1}, LayerNorm's set: <b>%1</b> "
                     "= √(d[(1 − s)² + m²]) = %2").replace(
        "%1", format_number(ln.distance)).replace(
        "%2", format_number(float(np.sqrt(ln.closed_form_squared_distance))))
    if not ln.unique:
        text += translate("NormComparePanel",
                          "; v is constant, so every point of S is equally near (E7)")
    elif eps > 0:
        text += translate("NormComparePanel",
                          "; LN with ε = %1 lands %2 off S's nearest point (E8)").replace(
            "%1", f"{eps:g}").replace("%2", f"{cmp.layer_norm_gap:.2g}")
    layer_norm = Reading(
        bool(ln_exact), "E5", not_unique if not ln.unique else check, text,
        translate("NormComparePanel", "to LayerNorm's set: <b>%1</b>").replace(
            "%1", format_number(ln.distance)))

    rms_exact = rms.unique and np.isclose(rms.squared_distance,
                                          rms.closed_form_squared_distance,
                                          rtol=1e-9, atol=1e-12)
    rms_norm = Reading(
        bool(rms_exact), "E10", not_unique if not rms.unique else check,
        translate("NormComparePanel",
                  "to the sphere ‖u‖ = √d = %1, RMSNorm's set: <b>%2</b> = √d·|rms − 1| = %3"
                  ).replace("%1", format_number(float(np.sqrt(d)))).replace(
            "%2", format_number(rms.distance)).replace(
            "%3", format_number(float(np.sqrt(d) * abs(rms_v - 1.0)))),
        translate("NormComparePanel", "to RMSNorm's sphere: <b>%1</b>").replace(
            "%1", format_number(rms.distance)))

    scale = max(1.0, float(np.linalg.norm(cmp.layer_norm)))
    centred = Reading(
        bool(cmp.centred_gap <= 1e-12 * scale), "E10", check,
        translate("NormComparePanel",
                  "LN(v) = RMSNorm(v − mean v) up to %1; RMSNorm only scales the mean "
                  "(mean v = %2, mean of RMSNorm(v) = %3), LN removes it").replace(
            "%1", f"{cmp.centred_gap:.1e}").replace("%2", format_number(mean)).replace(
            "%3", format_number(cmp.rms_norm_stats.mean)),
        translate("NormComparePanel", "LN = RMSNorm(v − mean) ± %1").replace(
            "%1", f"{cmp.centred_gap:.1e}"))
    return layer_norm, rms_norm, centred


def hover_text(cmp: NormComparison | None, layer_rms: np.ndarray | None, i: int) -> str:
    """Feature ``i``'s values in every series ("" off the chart)."""
    if cmp is None or i < 0:
        return ""
    text = translate("NormComparePanel",
                     "feature %1: v = %2 · LN(v) = %3 · RMSNorm(v) = %4").replace(
        "%1", str(i)).replace("%2", format_number(cmp.vector[i])).replace(
        "%3", format_number(cmp.layer_norm[i])).replace("%4", format_number(cmp.rms_norm[i]))
    if layer_rms is not None:
        text += translate("NormComparePanel", " · ·γ = %1").replace(
            "%1", format_number(layer_rms[i]))
    return text


def match_text(layer_rms: np.ndarray | None, layer_row: np.ndarray, norm_step: str,
               query: int) -> str:
    """RMSNorm(v)·γ computed here against the trace's row of ``norm_step`` (max |Δ|, and
    whether bit for bit)."""
    if layer_rms is None:
        return translate("NormComparePanel",
                         "The layer's weights are being replaced; γ will follow.")
    diff = float(np.max(np.abs(layer_rms - layer_row)))
    same = bool(np.array_equal(layer_rms, layer_row))
    return translate(
        "NormComparePanel",
        "RMSNorm(v)·γ with the layer's γ = row %1 of step %2: max |Δ| = %3%4").replace(
        "%1", str(query)).replace("%2", norm_step).replace("%3", f"{diff:.3g}").replace(
        "%4", translate("NormComparePanel", " (bitwise)") if same else "")


def plain_text(html: str) -> str:
    """Rich text as the plain text a tooltip shows (the badge and the bold number kept)."""
    doc = QTextDocument()
    doc.setHtml(html)
    return doc.toPlainText().replace("\u00a0", " ")
