"""End to end through the real link: mock pins -> engine -> journal -> Link over a pty ->
the firmware's controller loop -> its pixel buffer."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from boardctl.board import builtin_layout
from boardctl.board.theme import DEFAULT_THEME
from boardctl.config import parse_config
from boardctl.game.keeper import Scorekeeper
from tests.test_e2e import FAST, Rig

FIRMWARE = Path(__file__).resolve().parent.parent / "firmware"


@pytest.fixture
def device() -> Iterator[Any]:
    sys.path.insert(0, str(FIRMWARE))
    try:
        from emulator import PtyDevice

        with PtyDevice(led_count=256) as dev:
            yield dev
    finally:
        sys.path.remove(str(FIRMWARE))


def test_three_presses_light_hole_3_of_track_1_on_the_firmware_strip(
    tmp_path: Path, mock_factory: MockFactory, device: Any
) -> None:
    config = parse_config(
        {
            **FAST,
            "game": {"mode": "free"},
            "board": {"brightness": 255},
            "link": {"kind": "serial", "device": device.path},
        }
    )
    rig = Rig(tmp_path, mock_factory, config, link=None)
    layout = builtin_layout("two-121")
    led = layout.led_of(0, 3)
    try:
        for _ in range(3):
            rig.press("track1.plus1")
        rig.wait_for(lambda: rig.status()["tracks"][0]["front"] == 3)  # the idle commit
        sent = rig.loop.frame
        assert sent is not None
        assert device.wait_for(sent, timeout=5.0), "the firmware never showed the frame"
        pixels = device.pixels()
        assert pixels[3 * led : 3 * led + 3] == bytes(DEFAULT_THEME.track_colour(0))
        other = layout.led_of(1, 3)
        assert pixels[3 * other : 3 * other + 3] == b"\0\0\0"
    finally:
        rig.close()
    # the entry is in the journal, and the strip is dark after the service stopped cleanly
    with Scorekeeper.open(tmp_path / "state" / "journal.sqlite", readonly=True) as keeper:
        assert keeper.status()["tracks"][0]["front"] == 3
    assert device.wait_for(bytes(3 * layout.led_count), timeout=5.0)
