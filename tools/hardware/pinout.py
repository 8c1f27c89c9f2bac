"""The Raspberry Pi's 40-pin header and the wiring table of the build guide, written from the
default pins (:data:`boardctl.config.DEFAULT_PINS`) and read back by the tests."""

from __future__ import annotations

import re
from collections.abc import Mapping

from boardctl.config import SHUTDOWN_GPIO
from boardctl.errors import HardwareError

# BCM GPIO number -> physical pin on the 40-pin header (same on every Pi with
# a 40-pin header: Zero, Zero 2 W, 3, 4, 5).
HEADER_PIN: dict[int, int] = {
    2: 3, 3: 5, 4: 7, 14: 8, 15: 10, 17: 11, 18: 12, 27: 13, 22: 15, 23: 16,
    24: 18, 10: 19, 9: 21, 25: 22, 11: 23, 8: 24, 7: 26, 0: 27, 1: 28, 5: 29,
    6: 31, 12: 32, 13: 33, 19: 35, 16: 36, 26: 37, 20: 38, 21: 40,
}  # fmt: skip
GROUND_PINS = (6, 9, 14, 20, 25, 30, 34, 39)

#: Never wired: the HAT ID EEPROM's I2C bus (ID_SD, ID_SC), which the Pi's boot
#: firmware reads on every Pi with a 40-pin header.
RESERVED: dict[int, str] = {
    0: "ID_SD: the HAT ID EEPROM's I2C data (the Pi reads it at boot)",
    1: "ID_SC: the HAT ID EEPROM's I2C clock (the Pi reads it at boot)",
}

#: Kept free by the default pins, for what the board may use next.
KEPT_FREE: dict[int, str] = {
    2: "I2C1 SDA; a fixed 1.8 kOhm pull-up to 3.3 V on the Pi's board",
    SHUTDOWN_GPIO: "I2C1 SCL, fixed 1.8 kOhm pull-up; the shutdown/wake button",
    12: "PWM0: PWM audio or a buzzer",
    13: "PWM1: PWM audio (second channel)",
    14: "UART TXD: the UART link to the Pico",
    15: "UART RXD: the UART link to the Pico",
    16: "UART0 CTS: hardware flow control for the UART link",
    17: "UART0 RTS: hardware flow control for the UART link",
    18: "I2S BCLK (PCM_CLK): an I2S amplifier or DAC",
    19: "I2S LRCLK (PCM_FS)",
    20: "I2S DIN (PCM_DIN): a microphone, if ever",
    21: "I2S DOUT (PCM_DOUT)",
}

#: The pins an I2S amplifier (e.g. a MAX98357A) needs, and the PWM audio pins.
I2S_PINS = (18, 19, 21)
PWM_AUDIO_PINS = (12, 13)
POWER_5V_PINS = (2, 4)
POWER_3V3_PINS = (1, 17)

ROLE_TEXT: dict[str, str] = {
    "undo": "Undo button (press: undo; hold: redo; shared)",
    "menu": "Menu button (next phase, settings, new game; shared)",
    "plus1": "+1 button",
    "plus5": "+5 button",
    "encoder_a": "KY-040 encoder CLK (A)",
    "encoder_b": "KY-040 encoder DT (B)",
    "encoder_push": "KY-040 encoder SW (push = commit)",
}

TABLE_HEADER = (
    "| config key | role | BCM GPIO | header pin | nearest GND pin | wire to |",
    "|---|---|---|---|---|---|",
)
_ROW = re.compile(
    r"^\|\s*`pins\.(?P<key>[a-z0-9_.]+)`\s*\|[^|]*\|\s*GPIO(?P<bcm>\d+)\s*\|\s*(?P<pin>\d+)\s*\|"
)


def nearest_ground(header_pin: int) -> int:
    """The ground pin closest to ``header_pin`` on the header (ties: the lower)."""
    return min(GROUND_PINS, key=lambda g: (abs(g - header_pin), g))


def pin_assignments(pins: Mapping[str, Mapping[str, int | None]]) -> list[tuple[str, str, int]]:
    """``(config_key, role, bcm)`` for every wired pin of a table shaped like
    :data:`boardctl.config.DEFAULT_PINS`, shared roles first."""
    rows: list[tuple[str, str, int]] = []
    for group, roles in pins.items():
        for role, bcm in roles.items():
            if bcm is None:
                continue
            if bcm not in HEADER_PIN:
                raise HardwareError(f"GPIO {bcm} ({group}.{role}) is not on the 40-pin header")
            key = role if group == "shared" else f"{group}.{role}"
            rows.append((key, role, bcm))
    return rows


def _role_text(key: str, role: str) -> str:
    text = ROLE_TEXT.get(role, role)
    if "." in key:
        track = key.split(".")[0].removeprefix("track")
        text = f"Track {track} {text}"
    return text


def _wire_to(role: str) -> str:
    if role.startswith("encoder_") and role != "encoder_push":
        return "encoder pin; encoder + to 3V3 (pin 1 or 17), GND to GND"
    if role == "encoder_push":
        return "encoder SW pin (switches to GND)"
    return "one button contact; other contact to GND"


def wiring_table(pins: Mapping[str, Mapping[str, int | None]]) -> str:
    """The Markdown pin table of ``hardware/wiring.md`` for a pin table."""
    lines = list(TABLE_HEADER)
    for key, role, bcm in pin_assignments(pins):
        header = HEADER_PIN[bcm]
        lines.append(
            f"| `pins.{key}` | {_role_text(key, role)} | GPIO{bcm} | {header} "
            f"| {nearest_ground(header)} | {_wire_to(role)} |"
        )
    return "\n".join(lines) + "\n"


def kept_free_table() -> str:
    """The Markdown table of the pins the defaults leave alone, and why."""
    lines = ["| BCM GPIO | header pin | kept for |", "|---|---|---|"]
    for bcm, why in sorted({**RESERVED, **KEPT_FREE}.items()):
        lines.append(f"| GPIO{bcm} | {HEADER_PIN[bcm]} | {why} |")
    return "\n".join(lines) + "\n"


def parse_wiring_table(markdown: str) -> dict[str, tuple[int, int]]:
    """Read the pin table back: ``{config_key: (bcm, header_pin)}`` (a key twice: an error)."""
    found: dict[str, tuple[int, int]] = {}
    for line in markdown.splitlines():
        m = _ROW.match(line.strip())
        if m is None:
            continue
        key = m["key"]
        if key in found:
            raise HardwareError(f"pins.{key} appears twice in the wiring table")
        found[key] = (int(m["bcm"]), int(m["pin"]))
    return found
