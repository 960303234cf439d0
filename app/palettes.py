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


#: Our own maps. Probabilities start at white: a zero weight (a masked future key) reads as
#: "nothing here" instead of a heavy black block.
_CUSTOM: dict[str, tuple[tuple[float, ...], tuple[tuple[int, int, int], ...]]] = {
    "dv-blues": ((0.0, 0.35, 0.7, 1.0),
                 ((255, 255, 255), (158, 202, 225), (49, 130, 189), (8, 48, 107))),
}


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


def map_for(kind: str, palette: str = DEFAULT_PALETTE) -> str:
    """The colour map name for a step kind ("signed" or "probability")."""
    p = PALETTES.get(palette, PALETTES[DEFAULT_PALETTE])
    return p.sequential if kind == "probability" else p.diverging
