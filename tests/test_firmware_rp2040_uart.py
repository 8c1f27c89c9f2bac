"""The UART link at full rate on the emulated RP2040, while the strip refreshes.

The rig's UART RX is modelled at the wire (``tests/rp2040/pico.mjs``): a byte comes off
the line every 10 us at 1 Mbaud whether or not the 32-byte RX FIFO has room, and one
arriving at a full FIFO is lost (an overrun, as on the PL011). Frames written back to
back reach the firmware while it refreshes the strip: with the PIO + DMA driver (the
default) none is lost; with MicroPython's ``neopixel`` (``STRIP_DRIVER = "bitstream"``,
interrupts off for each 7.7 ms refresh) bytes are lost, which shows the model is real.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator

import pytest

from boardctl.board.frame import changed_runs
from boardctl.link import protocol as p
from tests.conftest import REPO
from tests.rp2040.chip import Chip, Host
from tests.test_protocol import parse_pong_drawn

pytestmark = pytest.mark.rp2040

sys.path.insert(0, str(REPO / "firmware"))
importlib.import_module("emulator")  # (provides the firmware's `import protocol`)
ledctl = importlib.import_module("ledctl")

LEDS = 256
FRAMES = 12  # FULL frames in the stream, each followed by a DELTA on it
BUDGET_MA = 2000  # firmware/config.py
LED_MA = 60


def dim(k: int) -> bytes:
    """A frame within the power budget, different for every ``k``."""
    return bytes(v for i in range(LEDS) for v in ((i + k) % 9, (i * k) % 7, (i + 3 * k) % 5))


def limited(rgb: bytes) -> bytes:
    """What the firmware's own power limit makes of ``rgb`` (full brightness)."""
    scale = ledctl.power_scale(sum(rgb), LEDS, LED_MA, BUDGET_MA)
    if scale >= 256:
        return rgb
    out = bytearray(len(rgb))
    ledctl.scale_bytes(out, bytearray(rgb), len(rgb), 255 * scale)
    return bytes(out)


def stream() -> tuple[list[tuple[int, bytes]], list[bytes]]:
    """The messages of the stream (FULL, then a DELTA moving a peg on it, ...; a bright
    last FULL the power limit must scale) and the frame after each of them."""
    messages: list[tuple[int, bytes]] = []
    states: list[bytes] = []
    for k in range(FRAMES):
        full = dim(k)
        moved = bytearray(full)
        moved[3 * k : 3 * k + 3] = b"\x09\x09\x09"
        moved[3 * (k + 40)] ^= 1
        runs = changed_runs(full, bytes(moved))
        # and a run across the strip's end, one past it: cut there, dropped
        runs += [(LEDS - 1, bytes([k, 1, 2]) + b"\x05" * 6), (LEDS + 10, b"\x07\x07\x07")]
        moved[-3:] = bytes([k, 1, 2])
        messages.append((p.FULL, full))
        messages.append((p.DELTA, p.delta_payload(runs)))
        states += [full, bytes(moved)]
    white = b"\xc0" * (3 * LEDS)
    messages.append((p.FULL, white))
    states.append(white)
    return messages, states


class Streamed:
    """One chip on the UART link, the whole stream written to it at once."""

    def __init__(self, chip: Chip) -> None:
        self.chip = chip
        chip.message(p.HELLO, emu_s=5)
        host = Host(chip)
        host.hello()
        chip.message(p.HELLO, after=1)
        chip.run_for(0.05)
        self.said = len(chip.messages)
        self.refreshes = len(chip.frames)
        messages, self.states = stream()
        self.last = self.states[-1]
        self.sent = len(messages)
        wire = b""
        for kind, payload in messages:  # back to back on the wire: one write
            wire += p.encode(kind, host.seq, payload)
            host.seq = (host.seq + 1) & 0xFF
        self.bytes = len(wire)
        first = chip.written
        self.end = chip.arrived_at(chip.send(wire))  # the last byte off the wire
        self.start = chip.write_seen_at(first)  # the write, as the chip's clock saw it
        chip.run_for(0.1)
        mark = len(chip.messages)
        host.send(p.PING, p.ping_payload(0x5A))
        pong = chip.message(p.PONG, after=mark).payload
        token, self.applied, self.bad = p.parse_pong(pong)
        assert token == 0x5A
        self.drawn = parse_pong_drawn(pong)
        self.replies = [m.kind for m in chip.messages[self.said : mark]]


@pytest.fixture(scope="module")
def pio(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Streamed]:
    with Chip(tmp_path_factory.mktemp("pio"), link="uart") as chip:
        yield Streamed(chip)


@pytest.fixture(scope="module")
def bitstream(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Streamed]:
    config: dict[str, object] = {"STRIP_DRIVER": "bitstream"}
    with Chip(tmp_path_factory.mktemp("bitstream"), link="uart", config=config) as chip:
        yield Streamed(chip)


def test_the_stream_fills_the_wire_while_the_strip_refreshes(pio: Streamed) -> None:
    # 1 Mbaud, 10 bits a byte: the stream took its full time on the wire ...
    assert (pio.end - pio.start) / 1e3 >= 10 * pio.bytes * 0.99
    # ... and the strip refreshed all along, each refresh 7.7 ms of bits.
    during = [f for f in pio.chip.frames[pio.refreshes :] if f.end_ns < pio.end]
    assert len(during) >= FRAMES // 2
    assert all(7.6e6 <= f.end_ns - f.start_ns <= 7.8e6 for f in during)


def test_with_pio_and_dma_no_byte_is_lost_and_every_frame_is_drawn_or_superseded(
    pio: Streamed,
) -> None:
    assert pio.chip.uart_lost == []  # no overrun at the RX FIFO
    assert pio.bad == 0  # no frame failed its check
    assert p.NAK not in pio.replies  # nothing to ask again: no corrupt frame, no gap
    assert pio.applied == pio.sent  # (none before the stream: a HELLO is not a frame)
    # What the pin showed: frames of the stream, in order, each once; as many as the
    # firmware says it drew (the rest were superseded, on purpose, by newer ones).
    wanted = [limited(state) for state in pio.states]
    shown = [wanted.index(f.rgb) for f in pio.chip.frames[pio.refreshes :]]
    assert shown == sorted(set(shown)) and shown[-1] == len(wanted) - 1
    assert len(shown) == pio.drawn
    assert 0 < pio.drawn < pio.applied


def test_the_pin_ends_on_the_last_frame_after_the_power_limit(pio: Streamed) -> None:
    want = limited(pio.last)
    assert want != pio.last  # the limit did scale it
    last = pio.chip.frames[-1]
    assert last.rgb == want
    assert 300 <= last.t0h_ns[0] <= last.t0h_ns[1] <= 500  # WS2812B: T0H 0.4 us +- 0.15
    assert 650 <= last.t1h_ns[0] <= last.t1h_ns[1] <= 950  # T1H 0.8 us +- 0.15


def test_with_the_bitstream_driver_the_same_stream_loses_bytes(bitstream: Streamed) -> None:
    # Interrupts off for each refresh: the RX FIFO overflows and the model shows it.
    lost = bitstream.chip.uart_lost
    assert len(lost) > 100
    assert all(bitstream.start <= t <= bitstream.end for t in lost)
    assert bitstream.bad > 0 or p.NAK in bitstream.replies
    assert bitstream.applied < bitstream.sent
