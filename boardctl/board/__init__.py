"""Turning game state into light: layouts, rendering, power limiting; the pictures live in
:mod:`boardctl.board.terminal` and :mod:`boardctl.board.snapshot`."""

from boardctl.board.frame import Frame, pixel
from boardctl.board.layout import builtin_layout, load_layout
from boardctl.board.power import PowerBudget, limit_power
from boardctl.board.render import Renderer

__all__ = [
    "Frame",
    "PowerBudget",
    "Renderer",
    "builtin_layout",
    "limit_power",
    "load_layout",
    "pixel",
]
