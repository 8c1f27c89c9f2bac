"""The default pins leave free what the board may need next, on every layout."""

from __future__ import annotations

from pathlib import Path

import pytest

from boardctl.board.layout import LAYOUT_NAMES, builtin_layout
from boardctl.config import DEFAULT_PINS, SHUTDOWN_GPIO
from tools.hardware import docs
from tools.hardware.pinout import (
    HEADER_PIN,
    I2S_PINS,
    KEPT_FREE,
    PWM_AUDIO_PINS,
    RESERVED,
    kept_free_table,
)

HARDWARE = Path(__file__).resolve().parent.parent / "hardware"


def pins_for(track_count: int) -> set[int]:
    groups = ["shared", *(f"track{i + 1}" for i in range(track_count))]
    return {bcm for g in groups for bcm in DEFAULT_PINS[g].values() if bcm is not None}


@pytest.mark.parametrize("name", LAYOUT_NAMES)
def test_sound_pins_stay_free_on_every_layout(name: str) -> None:
    used = pins_for(len(builtin_layout(name).tracks))
    assert not used & set(I2S_PINS), "an I2S amplifier needs GPIO18, 19 and 21"
    assert not used & set(PWM_AUDIO_PINS)
    assert not used & (set(RESERVED) | set(KEPT_FREE))


def test_the_named_pins_are_the_ones_the_issue_of_sound_needs() -> None:
    assert I2S_PINS == (18, 19, 21)
    assert PWM_AUDIO_PINS == (12, 13)
    assert set(RESERVED) == {0, 1}
    assert {*I2S_PINS, *PWM_AUDIO_PINS, SHUTDOWN_GPIO, 2, 14, 15, 16, 17} <= set(KEPT_FREE)
    assert SHUTDOWN_GPIO == 3  # the only pin that wakes a halted Pi


def test_every_button_has_a_pin_of_its_own_on_the_header() -> None:
    used = [bcm for roles in DEFAULT_PINS.values() for bcm in roles.values() if bcm is not None]
    assert len(used) == len(set(used))
    assert set(used) <= set(HEADER_PIN)
    # Everything on the header is either a default pin or kept free: nothing is forgotten.
    assert set(used) | set(RESERVED) | set(KEPT_FREE) == set(HEADER_PIN)


def test_kept_free_table_is_generated_into_the_wiring_guide() -> None:
    text = (HARDWARE / "wiring.md").read_text(encoding="utf-8")
    assert docs.read_block(text, "kept-free") == kept_free_table()
    for bcm in (*RESERVED, *KEPT_FREE):
        assert f"| GPIO{bcm} | {HEADER_PIN[bcm]} |" in kept_free_table()


def test_uart_setup_names_the_mini_uart_models_and_hciuart() -> None:
    text = (HARDWARE / "wiring.md").read_text(encoding="utf-8")
    for model in ("Zero W", "Zero 2 W", "Pi 3 Model B", "3 B+", "3 A+", "Pi 4 Model B", "Pi 400"):
        assert model in text
    assert "dtoverlay=disable-bt" in text
    assert "sudo systemctl disable hciuart" in text
