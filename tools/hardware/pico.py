"""The Raspberry Pi Pico's pins and the firmware's settings, for the wiring guide.

The firmware's settings live in ``firmware/config.py`` (MicroPython, copied to
the Pico). The guide reads them from that file — it is parsed, not imported,
since it is not part of the ``boardctl`` package.
"""

from __future__ import annotations

import ast
from pathlib import Path

from boardctl.errors import HardwareError
from tools import REPO

FIRMWARE_CONFIG = REPO / "firmware" / "config.py"

# Pico GPn -> physical pin of the 40-pin module (GP23-25 are not on the edge).
PICO_PIN: dict[int, int] = {
    0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12, 10: 14,
    11: 15, 12: 16, 13: 17, 14: 19, 15: 20, 16: 21, 17: 22, 18: 24, 19: 25,
    20: 26, 21: 27, 22: 29, 26: 31, 27: 32, 28: 34,
}  # fmt: skip
PICO_GROUND_PINS = (3, 8, 13, 18, 23, 28, 33, 38)
PICO_VSYS, PICO_VBUS = 39, 40

# RP2040 UART function of each pin: (uart id, "TX" or "RX").
PICO_UART: dict[int, tuple[int, str]] = {
    0: (0, "TX"), 1: (0, "RX"), 4: (1, "TX"), 5: (1, "RX"), 8: (1, "TX"), 9: (1, "RX"),
    12: (0, "TX"), 13: (0, "RX"), 16: (0, "TX"), 17: (0, "RX"),
}  # fmt: skip


def firmware_settings(path: Path = FIRMWARE_CONFIG) -> dict[str, object]:
    """The constant settings (``NAME = literal``) of the firmware's config file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    settings: dict[str, object] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                settings[target.id] = ast.literal_eval(node.value)
    return settings


def pico_pin(gp: object) -> int:
    """The physical pin of ``GPn``; ValueError for a pin not on the module's edge."""
    if not isinstance(gp, int) or gp not in PICO_PIN:
        raise HardwareError(f"GP{gp} is not a GPIO on the Pico's edge")
    return PICO_PIN[gp]


def nearest_pico_ground(pin: int) -> int:
    """The Pico ground pin nearest to physical ``pin``."""
    return min(PICO_GROUND_PINS, key=lambda g: (abs(g - pin), g))
