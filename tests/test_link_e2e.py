"""End to end over a real pseudo-terminal: engine -> renderer -> serial Link -> pty ->
the firmware's controller loop (on CPython) -> pixels. Also a pulled cable and a
firmware reset."""

from __future__ import annotations

import importlib
import logging
import random
import sys
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from boardctl.board.layout import builtin_layout
from boardctl.board.render import Renderer
from boardctl.game.commands import parse_command
from boardctl.game.keeper import Scorekeeper
from boardctl.link import open_link
from boardctl.link.serial_link import PicoLink
from tests.conftest import REPO

sys.path.insert(0, str(REPO / "firmware"))
emulator = importlib.import_module("emulator")
if TYPE_CHECKING:
    from emulator import PtyDevice

LEDS = 256  # the two-121 layout


@pytest.fixture
def device() -> Iterator[PtyDevice]:
    # budget_ma=0: no clamping, so the pixels must equal the rendered frame exactly.
    with emulator.PtyDevice(led_count=LEDS, budget_ma=0) as pty_device:
        yield pty_device


@pytest.fixture
def link(device: PtyDevice) -> Iterator[PicoLink]:
    serial_link = open_link("serial", path=device.path, backoff_min=0.1, backoff_max=0.4)
    assert isinstance(serial_link, PicoLink)
    yield serial_link
    serial_link.close()


def game_frames(count: int, seed: int = 3) -> Iterator[bytes]:
    """Frames of a game in progress: random pegging rendered on the two-121 board."""
    rng = random.Random(seed)
    keeper = Scorekeeper.memory()
    keeper.apply(parse_command({"op": "new_game", "mode": "free"}))
    renderer = Renderer(builtin_layout("two-121"))
    for _ in range(count):
        status = keeper.status()
        if status["winner"] is not None:
            keeper.apply(parse_command({"op": "new_game", "mode": "free"}))
        track = rng.randrange(2)
        keeper.apply(
            parse_command(
                {"op": "peg", "track": track, "points": rng.randint(1, 12), "kind": "hand"}
            )
        )
        yield renderer.render(keeper.view(), now=0.0)


def test_rendered_frames_reach_the_pixels(device: PtyDevice, link: PicoLink) -> None:
    frames = list(game_frames(40))
    assert all(len(frame) == 3 * LEDS for frame in frames)
    for frame in frames:
        link.show(frame)
        assert device.wait_for(frame, timeout=1.0)
    controller = device.controller
    assert controller is not None
    assert controller.bad == 0 and controller.gaps == 0
    assert controller.applied >= len(frames)
    assert link.connected


def test_a_pulled_cable_is_recovered_within_a_second(
    device: PtyDevice, link: PicoLink, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="boardctl.link")
    frames = game_frames(3)
    first = next(frames)
    link.show(first)
    assert device.wait_for(first, timeout=1.0)
    device.unplug()  # the Pico loses power: blank strip
    assert device.pixels() == bytes(3 * LEDS)
    second = next(frames)
    link.show(second)  # while unplugged: remembered, no exception
    deadline = time.monotonic() + 2.0
    # the reader notices the pulled cable, and a try to open it again fails (else the port is
    # back before the link tries: no "waiting" line to count)
    while link.state != "waiting" and time.monotonic() < deadline:
        time.sleep(0.005)
    assert not link.connected and link.state == "waiting"
    device.plug()
    started = time.monotonic()
    assert device.wait_for(second, timeout=1.0), "frame not back within 1 s"
    assert time.monotonic() - started < 1.0
    assert link.connected and link.connects == 2
    messages = [r.getMessage() for r in caplog.records]
    assert sum("lost" in m for m in messages) == 1
    assert sum("waiting" in m for m in messages) == 1  # one line, however many retries


def test_a_firmware_reset_gets_the_full_frame_again(device: PtyDevice, link: PicoLink) -> None:
    frames = list(game_frames(5))
    for frame in frames:
        link.show(frame)
    assert device.wait_for(frames[-1], timeout=1.0)
    hellos = link.hellos
    device.reset()  # blank, and a new HELLO
    assert device.wait_for(frames[-1], timeout=1.0)
    assert link.hellos >= hellos + 1  # (the answer to its own HELLO may come late too)
    assert device.controller is not None and device.controller.applied >= 1


def test_garbage_on_the_line_is_dropped_and_repaired(device: PtyDevice, link: PicoLink) -> None:
    frames = list(game_frames(2))
    link.show(frames[0])
    assert device.wait_for(frames[0], timeout=1.0)
    # Line noise towards the controller, then a change sent as a DELTA.
    with link._lock:
        link._port.write(b"\x13\x37\xfe\x01\x00\x99\x42")
    link.show(frames[1])
    assert device.wait_for(frames[1], timeout=1.0)
    assert device.controller is not None and device.controller.bad >= 1
    deadline = time.monotonic() + 1.0
    while link.naks == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert link.naks >= 1  # the controller said so, and the host resent in full
