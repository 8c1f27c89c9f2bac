"""The firmware's speed on the emulated RP2040 (tests/rp2040/), in emulated time.

    PYTHONPATH=. python benchmarks/bench_chip.py [--frames 20] [--link usb|uart] [--chunk-leds N]
        [--strip-driver pio|bitstream]

1. FULL and DELTA frames of 256 LEDs, one at a time: from the last byte of the frame
   reaching the chip (USB: the packet holding it in the device's endpoint buffer; UART:
   the last byte off the wire) to the last bit of the refresh that shows it on the LED
   pin, p50 and max, against the strip's own refresh (6,144 bits at 800 kbit/s: ~7.7 ms);
   and from the host's write (the chip's time when the rig got the bytes).
2. A burst of 10 different FULL frames written back to back: which ones the pin shows
   (in order?), and what the firmware's PONG says it applied and drew (the rest were
   superseded, on purpose: a newer frame was applied before the strip was free).

Emulated time counts the RP2040's cycles at 125 MHz without flash wait states (XIP cache
misses cost nothing here), so a real Pico is somewhat slower. rp2040js runs at about
0.4x real time: 20 frames of each kind take about a minute.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from boardctl.board.frame import changed_runs  # noqa: E402
from boardctl.link import protocol as p  # noqa: E402
from tests.rp2040.chip import Chip, Host  # noqa: E402
from tests.test_protocol import parse_pong_drawn  # noqa: E402

LEDS = 256


def rgb(k: int) -> bytes:
    """A dim frame (within the power budget), different for every ``k``."""
    return bytes(v for i in range(LEDS) for v in ((i + k) % 9, (i * k) % 7, (i + 3 * k) % 5))


def timed(
    chip: Chip, host: Host, kind: int, payload: bytes, want: bytes, chunk_leds: int = 0
) -> tuple[float, float]:
    """ms from the last byte arriving, and from the host's write, to the last bit of the
    refresh showing ``want`` (a FULL as FULL_CHUNK messages of ``chunk_leds`` LEDs,
    written at once, if that is set)."""
    first, frames = chip.written, len(chip.frames)
    if kind == p.FULL and chunk_leds:
        wire = b""
        for chunk in p.full_chunks(host.seq, payload, chunk_leds):
            wire += p.encode(p.FULL_CHUNK, host.seq, chunk)
            host.seq = (host.seq + 1) & 0xFF
        chip.send(wire)
    else:
        host.send(kind, payload)
    shown = chip.frame_showing(want, emu_s=5, after=frames)
    arrived, written = chip.arrived_at(emu_s=1), chip.write_seen_at(first, emu_s=1)
    return (shown.end_ns - arrived) / 1e6, (shown.end_ns - written) / 1e6


def summary(name: str, times: list[tuple[float, float]]) -> str:
    arrived = [t[0] for t in times]
    written = [t[1] for t in times]
    return (
        f"{name}: last byte in -> last bit out p50 {statistics.median(arrived):.1f} ms, max "
        f"{max(arrived):.1f} ms; host's write -> last bit out p50 "
        f"{statistics.median(written):.1f} ms, max {max(written):.1f} ms ({len(times)} frames)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--frames", type=int, default=20)
    parser.add_argument("--link", choices=("usb", "uart"), default="usb")
    parser.add_argument("--chunk-leds", type=int, default=0, help="FULL as FULL_CHUNKs (0: whole)")
    parser.add_argument(
        "--strip-driver", choices=("pio", "bitstream"), default=None, help="config.STRIP_DRIVER"
    )
    args = parser.parse_args()
    config: dict[str, object] = {}
    if args.strip_driver:
        config["STRIP_DRIVER"] = args.strip_driver
    with (
        tempfile.TemporaryDirectory() as tmp,
        Chip(Path(tmp), link=args.link, config=config) as chip,
    ):
        chip.message(p.HELLO, emu_s=5)
        host = Host(chip)
        host.hello()
        chip.message(p.HELLO, after=1)
        fulls, deltas = [], []
        for k in range(args.frames):
            fulls.append(timed(chip, host, p.FULL, rgb(k), rgb(k), args.chunk_leds))
        current = rgb(args.frames - 1)
        for k in range(args.frames):
            new = bytearray(current)
            new[3 * (k % LEDS) : 3 * (k % LEDS) + 3] = b"\x09\x09\x09"  # a peg moves:
            new[3 * ((k + 40) % LEDS)] ^= 1  # two LEDs change
            payload = p.delta_payload(changed_runs(current, bytes(new)))
            deltas.append(timed(chip, host, p.DELTA, payload, bytes(new)))
            current = bytes(new)
        refresh = chip.frames[-1].end_ns - chip.frames[-1].start_ns
        print(f"{args.link}: one refresh of {LEDS} LEDs on the pin: {refresh / 1e6:.2f} ms")
        how = f" in chunks of {args.chunk_leds} LEDs" if args.chunk_leds else ""
        print(summary(f"FULL{how}", fulls))
        print(summary("DELTA (a peg move)", deltas))
        # A burst: 10 FULL frames back to back.
        burst = [rgb(100 + k) for k in range(10)]
        mark = len(chip.frames)
        before = len(chip.messages)
        for f in burst:
            host.send(p.FULL, f)
        chip.frame_showing(burst[-1], emu_s=10, after=mark)
        shown = [burst.index(f.rgb) for f in chip.frames[mark:] if f.rgb in burst]
        host.send(p.PING, p.ping_payload(1))
        pong = chip.message(p.PONG, after=before)
        applied, drawn = p.parse_pong(pong.payload)[1], parse_pong_drawn(pong.payload)
        print(
            f"burst of 10 FULL frames: the pin showed frames {shown} (in order: "
            f"{shown == sorted(shown)}); PONG since boot: applied {applied}, drawn {drawn}, "
            f"superseded {applied - drawn}"
        )


if __name__ == "__main__":
    main()
