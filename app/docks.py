"""The one registry of dockable panels: object name, title, factory, default place.

The main window builds every dock from here, lists their toggle actions in the View menu and
lays them out by ``DEFAULT_LAYOUT``; ``saveState`` keys on the object names, so never rename one
without bumping ``LAYOUT_VERSION``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QT_TRANSLATE_NOOP

from app.panels.base import Panel
from app.state import AppState

#: Bump when object names or the default arrangement change, so old saved layouts are ignored.
LAYOUT_VERSION = 1


@dataclass(frozen=True)
class DockSpec:
    object_name: str
    #: English source title; shown through ``QCoreApplication.translate("Docks", title)``.
    title: str
    #: "module:Class" of a :class:`Panel` subclass, imported when the window is built.
    factory: str
    #: Shown when the window first opens (the rest are in the View menu).
    visible: bool = True
    #: Docks outside ``DEFAULT_COLUMNS`` open as a tab behind this dock.
    tab_with: str | None = None

    def create(self, state: AppState) -> Panel:
        module, _, cls = self.factory.partition(":")
        return getattr(importlib.import_module(module), cls)(state)


DOCKS: tuple[DockSpec, ...] = (
    DockSpec("stepListDock", QT_TRANSLATE_NOOP("Docks", "Steps"),
             "app.panels.step_list:StepListPanel"),
    DockSpec("heatmapDock", QT_TRANSLATE_NOOP("Docks", "Step heatmap"),
             "app.panels.step_heatmap:StepHeatmapPanel"),
    DockSpec("attentionDock", QT_TRANSLATE_NOOP("Docks", "Attention flow"),
             "app.panels.attention_graph:AttentionGraphPanel"),
    DockSpec("normDock", QT_TRANSLATE_NOOP("Docks", "LayerNorm vs RMSNorm"),
             "app.panels.norm_compare:NormComparePanel"),
    DockSpec("depthDock", QT_TRANSLATE_NOOP("Docks", "Depth time"),
             "app.panels.depth_time:DepthTimePanel"),
    DockSpec("causalityDock", QT_TRANSLATE_NOOP("Docks", "Causality"),
             "app.panels.causality:CausalityPanel"),
    # what is switched off (issue 23): in the View menu, tabbed behind Depth time (the widest
    # column: its controls never widen a narrower one)
    DockSpec("interventionsDock", QT_TRANSLATE_NOOP("Docks", "Interventions"),
             "app.panels.interventions:InterventionsPanel", visible=False,
             tab_with="depthDock"),
    # the paper and physics lenses (issue 6): in the View menu, tabbed behind Depth time
    DockSpec("lensTemperatureDock", QT_TRANSLATE_NOOP("Docks", "Lens: softmax temperature"),
             "app.panels.lens_temperature:TemperaturePanel", visible=False,
             tab_with="depthDock"),
    DockSpec("lensEnergyDock", QT_TRANSLATE_NOOP("Docks", "Lens: energy through depth"),
             "app.panels.lens_energy:EnergyPanel", visible=False, tab_with="depthDock"),
    DockSpec("lensSplittingDock", QT_TRANSLATE_NOOP("Docks", "Lens: splitting = block"),
             "app.panels.lens_splitting:SplittingPanel", visible=False, tab_with="depthDock"),
    DockSpec("lensProjectionDock", QT_TRANSLATE_NOOP("Docks", "Lens: projection geometry"),
             "app.panels.lens_projection:ProjectionPanel", visible=False,
             tab_with="depthDock"),
    DockSpec("lensConvergenceDock", QT_TRANSLATE_NOOP("Docks", "Lens: convergence"),
             "app.panels.lens_convergence:ConvergencePanel", visible=False,
             tab_with="depthDock"),
    DockSpec("lensAnalogiesDock", QT_TRANSLATE_NOOP("Docks", "Lens: analogies"),
             "app.panels.lens_analogies:AnalogiesPanel", visible=False, tab_with="depthDock"),
    # a real Qwen3 model's panels (issue 22): hidden with the toy layer (they would only say
    # "open a model"); the window shows them when a model is opened (MODEL_DOCKS)
    DockSpec("nextTokenDock", QT_TRANSLATE_NOOP("Docks", "Next token"),
             "app.panels.next_token:NextTokenPanel", visible=False, tab_with="depthDock"),
    DockSpec("throughDepthDock", QT_TRANSLATE_NOOP("Docks", "Through the depth"),
             "app.panels.through_depth:ThroughDepthPanel", visible=False,
             tab_with="depthDock"),
)

#: Docks that show what only a whole model computes: shown when a model is opened.
MODEL_DOCKS: tuple[str, ...] = ("nextTokenDock", "throughDepthDock")

#: Default arrangement below the token editor: three columns of two docks each.
#: (first, second, orientation) pairs applied in order with ``splitDockWidget``; the first
#: dock of the list is added to the bottom area, the rest split off it.
DEFAULT_COLUMNS: tuple[tuple[str, ...], ...] = (
    ("stepListDock", "normDock"),
    ("heatmapDock", "depthDock"),
    ("attentionDock", "causalityDock"),
)
#: Relative widths of the columns.
DEFAULT_COLUMN_WIDTHS: tuple[int, ...] = (26, 42, 32)
#: Share of each column's height given to its upper dock (the 23 steps fit in ~45%).
DEFAULT_TOP_SHARE: tuple[float, ...] = (0.45, 0.4, 0.5)


class PanelMap(dict[str, Panel]):
    """The docks' panels by dock object name. A dock hidden at start-up (the lens docks) gets
    its panel when it is first shown, or when it is looked up here (``[name]``, ``get``);
    iterating goes over the panels made so far, which are all the ones that can be visible."""

    def __init__(self, build: Callable[[str], Panel]) -> None:
        super().__init__()
        self._build = build
        self._deferred: set[str] = set()

    def defer(self, name: str) -> None:
        self._deferred.add(name)

    def add(self, name: str, panel: Panel) -> None:
        self._deferred.discard(name)
        super().__setitem__(name, panel)

    @property
    def deferred(self) -> frozenset[str]:
        """Docks whose panel is not made yet."""
        return frozenset(self._deferred)

    def __missing__(self, name: str) -> Panel:
        if name not in self._deferred:
            raise KeyError(name)
        return self._build(name)

    def get(self, name: str, default: Panel | None = None) -> Panel | None:  # type: ignore[override]
        return self[name] if name in self or name in self._deferred else default
