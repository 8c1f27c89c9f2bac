"""Turning game state into light: layouts, rendering, power limiting; the pictures live in
:mod:`boardctl.board.terminal` and :mod:`boardctl.board.snapshot`."""

from boardctl.board.frame import Frame, blank_frame, changed_runs, pixel
from boardctl.board.layout import LAYOUT_NAMES, Layout, builtin_layout, load_layout
from boardctl.board.power import DEFAULT_BUDGET, PowerBudget, estimate_ma, limit_power
from boardctl.board.render import Renderer
from boardctl.board.theme import DEFAULT_THEME, Theme

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
