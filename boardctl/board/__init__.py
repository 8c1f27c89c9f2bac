"""Turning game state into light: layouts, rendering, power limiting, pictures.

The pure core is importable from here; the pictures live in
:mod:`boardctl.board.terminal` and :mod:`boardctl.board.snapshot`. Names are
imported on first use, so ``import boardctl.board.frame`` (the link needs
only frames) stays light.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from boardctl.board.frame import Frame, blank_frame, changed_runs, pixel
    from boardctl.board.layout import LAYOUT_NAMES, Layout, builtin_layout, load_layout
    from boardctl.board.power import DEFAULT_BUDGET, PowerBudget, estimate_ma, limit_power
    from boardctl.board.render import Renderer
    from boardctl.board.theme import DEFAULT_THEME, Theme

_WHERE = {
    "Frame": "frame",
    "blank_frame": "frame",
    "changed_runs": "frame",
    "pixel": "frame",
    "LAYOUT_NAMES": "layout",
    "Layout": "layout",
    "builtin_layout": "layout",
    "load_layout": "layout",
    "DEFAULT_BUDGET": "power",
    "PowerBudget": "power",
    "estimate_ma": "power",
    "limit_power": "power",
    "Renderer": "render",
    "DEFAULT_THEME": "theme",
    "Theme": "theme",
}

__all__ = [
    "DEFAULT_BUDGET",
    "DEFAULT_THEME",
    "LAYOUT_NAMES",
    "Frame",
    "Layout",
    "PowerBudget",
    "Renderer",
    "Theme",
    "blank_frame",
    "builtin_layout",
    "changed_runs",
    "estimate_ma",
    "limit_power",
    "load_layout",
    "pixel",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
