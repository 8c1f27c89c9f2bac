"""The Adalight back-end over a real pty, read by WLED's own Adalight parser (tests/wled.py,
``handleSerial()`` of wled00/wled_serial.cpp): 4 to 1,500 LEDs, brightness, the zeros that
finish a torn packet, WLED's command bytes inside pixels, and a line drained at 115,200 baud
(11,520 bytes a second), which the link must never outrun, and on which ``show()`` never
waits."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from boardctl.link import open_link
from boardctl.link.adalight import adalight_packet, scale_frame
from boardctl.link.serial_link import AdalightLink
from tests.wled import SerialLine as Line

BAUD = 115_200
LINE_RATE = BAUD / 10  # bytes a second: 8N1 is ten bits a byte


@pytest.fixture
def lines() -> Iterator[Callable[..., Line]]:
    made: list[Line] = []

    def make(leds: int, baud: int | None = None, link: Path | None = None) -> Line:
        made.append(Line(leds, baud, link))
        return made[-1]

    yield make
    for line in made:
        line.close()


def adalight(line: Line, **options: object) -> AdalightLink:
    link = open_link("adalight", device=line.path, **options)
    assert isinstance(link, AdalightLink)
    return link


@pytest.mark.parametrize("leds", [4, 256, 1500])
def test_wleds_parser_shows_exactly_the_frame_the_link_sends(
    lines: Callable[..., Line], leds: int
) -> None:
    line = lines(leds)
    link = adalight(line)
    try:
        frame = bytes((7 * i) % 256 for i in range(3 * leds))
        link.show(frame)
        assert line.wait_for(line.shows(frame))
        link.set_brightness(100)
        assert line.wait_for(line.shows(scale_frame(frame, 100)))  # brightness on the host
        assert line.wled.commands == [] and line.wled.header_rejects == 0
    finally:
        link.close()


def test_wleds_command_bytes_inside_pixels_are_pixels(lines: Callable[..., Line]) -> None:
    line = lines(8)
    link = adalight(line)
    try:
        # WLED's baud-rate commands, 'v', 'l', 'L', '{', 'I' and a TPM2 start byte
        frame = bytes([0xB0, 0xB3, 0xB7, *b"vlL", *b"{I", 0xC9, *b"Ada"]) + bytes(12)
        link.show(frame)
        assert line.wait_for(line.shows(frame))
        assert line.wled.commands == []
    finally:
        link.close()


def test_the_zeros_after_an_open_finish_a_torn_packet_and_wled_takes_no_command(
    lines: Callable[..., Line],
) -> None:
    line = lines(256)
    # A packet torn off by the last session: its header and a third of its pixels.
    torn = adalight_packet(bytes([0xB5]) * 768)[:262]
    line.wled.feed(torn)
    assert line.wled.state.startswith("Data_")  # WLED waits for the rest of the pixels
    link = adalight(line)
    try:
        frame = bytes([0xB1, 0x20, 0x30]) * 256
        link.show(frame)
        assert line.wait_for(line.shows(frame))
        # The zeros made the torn packet whole (one frame of it, then dark), and were then
        # ignored between packets: never taken as 0xB0-0xB7 baud commands.
        assert line.shown[0][1] == bytes([0xB5]) * 256 + bytes(512)
        assert line.wled.commands == [] and line.wled.header_rejects == 0
    finally:
        link.close()


def test_after_a_reconnect_mid_packet_the_zeros_finish_it_and_the_frame_follows(
    lines: Callable[..., Line], tmp_path: Path
) -> None:
    line = lines(1500, baud=BAUD, link=tmp_path / "ttyUSB0")  # 4,506-byte packets: 0.39 s
    link = adalight(line, baud=BAUD, backoff_min=0.05, backoff_max=0.1)
    try:
        first = bytes((1, 2, 3)) * 1500
        link.show(first)
        assert line.wait_for(line.shows(first))
        second = bytes((0xB2, 0x76, 0x7B)) * 1500  # a baud command, 'v' and '{' in every LED
        link.show(second)
        assert line.wait_for(lambda: line.wled.state.startswith("Data_") and line.wled.pixel > 100)
        line.replug()  # the cable pulled mid-packet: WLED waits for the rest of it
        assert line.wait_for(line.shows(second))
        assert link.connects == 2
        assert line.wled.commands == [] and line.wled.header_rejects == 0
    finally:
        link.close()


def test_a_line_at_115200_baud_is_never_outrun_and_the_newest_frame_wins(
    lines: Callable[..., Line],
) -> None:
    line = lines(256, baud=BAUD)
    started = time.monotonic()
    link = adalight(line, baud=BAUD)
    try:
        shown = []
        for burst in range(4):  # the winner's comet: far more frames than the line carries
            for step in range(15):
                frame = bytes([burst + 1, step, 40]) * 256
                link.show(frame)
                shown.append(frame)
            assert line.wait_for(line.shows(shown[-1]))
        elapsed = time.monotonic() - started
        packet = len(adalight_packet(shown[0]))
        # Never more than the line carries: the first zeros and packet, then line rate.
        assert line.written() <= 2 * packet + elapsed * LINE_RATE
        assert link.write_failures == 0  # no write timed out: nothing piled up in the port
        assert link.superseded > 0  # frames the line had no time for were replaced
        # Every frame WLED showed is one the service drew, in order (the first: the zeros'
        # blank, since the line was fresh).
        drawn = [pixels for _at, pixels in line.shown if any(pixels)]
        assert all(show in shown for show in drawn)
        assert [shown.index(show) for show in drawn] == sorted(shown.index(s) for s in drawn)
        assert line.wled.commands == [] and line.wled.header_rejects == 0
    finally:
        link.close()


def test_show_never_waits_on_the_line(lines: Callable[..., Line]) -> None:
    line = lines(256, baud=BAUD)
    link = adalight(line, baud=BAUD)
    done = threading.Event()

    def service_loop() -> None:
        for n in range(100):
            link.show(bytes([n, 1, 2]) * 256)
            link.set_brightness(200)
        done.set()

    try:
        # The link's port held, as by a write stuck on a full line: the loop still runs.
        with link._lock:
            loop = threading.Thread(target=service_loop, daemon=True)
            loop.start()
            assert done.wait(10), "show() waited for the port"
        assert line.wait_for(line.shows(scale_frame(bytes([99, 1, 2]) * 256, 200)))
    finally:
        link.close()
