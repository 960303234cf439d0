"""Colour lookup tables: 256-entry uint8, one diverging (signed data, centred at 0) and one
sequential (probabilities 0..1) per palette."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import pyqtgraph as pg


@dataclass(frozen=True)
class Palette:
    key: str
    label: str
    diverging: str
    sequential: str


PALETTES: dict[str, Palette] = {
    "classic": Palette("classic", "Blue–red", "CET-D1", "dv-blues"),
    # CET's colour-blind-safe maps: distinguishable under deuteranopia and protanopia
    "colorblind": Palette("colorblind", "Colour-blind safe", "CET-CBD1", "cividis"),
}
DEFAULT_PALETTE = "classic"


#: Our own maps. Probabilities start at the plot's background: a zero weight (a masked future
#: key) reads as "nothing here" instead of a heavy block — white on the light theme, the dark
#: plot background (app.theme.PLOT_COLOURS) on the dark one, where weight grows toward light.
_CUSTOM: dict[str, tuple[tuple[float, ...], tuple[tuple[int, int, int], ...]]] = {
    "dv-blues": ((0.0, 0.35, 0.7, 1.0),
                 ((255, 255, 255), (158, 202, 225), (49, 130, 189), (8, 48, 107))),
    "dv-blues-dark": ((0.0, 0.35, 0.7, 1.0),
                      ((30, 31, 34), (33, 94, 150), (80, 155, 215), (214, 234, 250))),
}
#: Sequential maps that are white at 0, and their dark-theme counterparts.
_DARK_SEQUENTIAL = {"dv-blues": "dv-blues-dark"}


@cache
def colormap(map_name: str) -> pg.ColorMap:
    if map_name in _CUSTOM:
        pos, colors = _CUSTOM[map_name]
        return pg.ColorMap(pos=list(pos), color=[list(c) for c in colors], name=map_name)
    return pg.colormap.get(map_name)


@cache
def lut(map_name: str) -> np.ndarray:
    """A [256, 4] uint8 lookup table for a colour map name."""
    return colormap(map_name).getLookupTable(0.0, 1.0, 256, alpha=True)


def map_for(kind: str, palette: str = DEFAULT_PALETTE, theme: str = "light") -> str:
    """The colour map name for a step kind ("signed" or "probability") on a theme."""
    p = PALETTES.get(palette, PALETTES[DEFAULT_PALETTE])
    if kind != "probability":
        return p.diverging
    return _DARK_SEQUENTIAL.get(p.sequential, p.sequential) if theme == "dark" else p.sequential
