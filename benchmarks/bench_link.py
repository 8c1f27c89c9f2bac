"""Measure the LED link: send time over a pty, bytes per peg move, firmware parse time.

    PYTHONPATH=. python benchmarks/bench_link.py

1. Encode and send a full 256-LED frame over a pseudo-terminal (median of many):
   the encoder plus ``serial.Serial.write``, and ``Link.show`` until the last byte has
   arrived at the far end.
2. Bytes on the wire for peg moves of a real game (two-121 layout, the renderer), and
   for the plain two-LED case.
3. Firmware time per frame, under MicroPython (WebAssembly build, via node) and
   CPython: parsing alone (``Decoder.feed``) and the whole controller step (parse,
   apply, brightness/power, strip buffer in GRB order).
4. Adalight on WLED's default 115,200-baud line (a pty read at 11,520 bytes a second by
   WLED's own Adalight parser, tests/wled.py) during a 60 fps animation (the winner's
   comet) of 4 s: how long ``show()`` takes (the service loop's wait), the bytes a second
   the link writes, frames superseded, write timeouts, frames WLED showed.

    PYTHONPATH=. python benchmarks/bench_link.py --adalight   (section 4 alone)
"""

from __future__ import annotations

import os
import random
import select
import shutil
import statistics
import sys
import tempfile
import threading
import time
import tty
from pathlib import Path
from typing import cast

from boardctl.game.commands import parse_command

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from boardctl.board.frame import changed_runs  # noqa: E402
from boardctl.board.layout import builtin_layout  # noqa: E402
from boardctl.board.render import Renderer  # noqa: E402
from boardctl.game.keeper import Scorekeeper  # noqa: E402
from boardctl.link import open_link  # noqa: E402
from boardctl.link import protocol as p  # noqa: E402
from boardctl.link.encoder import FrameEncoder  # noqa: E402
from boardctl.link.serial_link import PicoLink  # noqa: E402
from tests.test_firmware_micropython import run_micropython  # noqa: E402

LEDS = 256


class Drain:
    """Reads and counts everything arriving at the controller side of a pty."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.count = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        while not self.stop.is_set():
            ready, _, _ = select.select([self.fd], [], [], 0.05)
            if ready:
                try:
                    self.count += len(os.read(self.fd, 65536))
                except OSError:
                    return


def random_frames(count: int) -> list[bytes]:
    rng = random.Random(7)
    return [rng.randbytes(3 * LEDS) for _ in range(count)]


def bench_send() -> tuple[float, float, int]:
    import serial

    controller_fd, port_fd = os.openpty()
    tty.setraw(port_fd)
    drain = Drain(controller_fd)
    port = serial.Serial(os.ttyname(port_fd), 115200, write_timeout=1)
    encoder = FrameEncoder()
    frames = random_frames(64)
    times = []
    print("measuring encode + write ...", file=sys.stderr)
    for i in range(2000):
        started = time.perf_counter()
        port.write(encoder.full(frames[i % len(frames)], 0.0))
        times.append(time.perf_counter() - started)
    size = len(encoder.full(frames[0], 0.0))
    port.close()

    # Link.show, until every byte is at the far end.
    tmp = tempfile.mkdtemp()
    path = os.path.join(tmp, "leds")
    os.symlink(os.ttyname(port_fd), path)
    print("measuring Link.show ...", file=sys.stderr)
    link = cast(PicoLink, open_link("serial", path=path, full_every=1e9))
    while not link.connected:
        time.sleep(0.01)
    time.sleep(0.1)
    shows = []
    for i in range(500):
        target = drain.count
        frame = frames[i % len(frames)]
        started = time.perf_counter()
        link.show(frame)
        # Every LED changed: a FULL frame, whose COBS size varies by a byte or two.
        expected = target + size - 4
        deadline = started + 1.0
        while drain.count < expected and time.perf_counter() < deadline:
            time.sleep(0)  # let the reading thread run
        if drain.count < expected:
            raise SystemExit(f"Link.show: frame {i} did not arrive ({link.state})")
        shows.append(time.perf_counter() - started)
        while drain.count > expected:  # a heartbeat slipped in: skip the sample
            expected = drain.count
    link.close()
    drain.stop.set()
    drain.thread.join()
    os.close(controller_fd)
    os.close(port_fd)
    shutil.rmtree(tmp)
    return statistics.median(times), statistics.median(shows), size


def bench_peg_moves() -> tuple[list[int], int]:
    rng = random.Random(11)
    keeper = Scorekeeper.memory()
    keeper.apply(parse_command({"op": "new_game", "mode": "free"}))
    renderer = Renderer(builtin_layout("two-121"))
    encoder = FrameEncoder(full_every=1e9)
    previous = renderer.render(keeper.view(), 0.0)
    encoder.frame(previous, 0.0)
    sizes = []
    for _ in range(300):
        if keeper.status()["winner"] is not None:
            keeper.apply(parse_command({"op": "new_game", "mode": "free"}))
            previous = renderer.render(keeper.view(), 0.0)
            encoder.frame(previous, 0.0)
        keeper.apply(
            parse_command({"op": "peg", "track": rng.randrange(2), "points": rng.randint(1, 12)})
        )
        frame = renderer.render(keeper.view(), 0.0)
        if changed_runs(previous, frame):
            sizes.append(len(encoder.frame(frame, 0.0)))
        previous = frame
    # The plain case: one LED dims (back peg), another lights (front peg).
    old = bytearray(3 * LEDS)
    old[30:33] = b"\xff\x00\x00"
    new = bytearray(old)
    new[30:33] = b"\x30\x00\x00"
    new[60:63] = b"\xff\x00\x00"
    two = len(p.encode(p.DELTA, 1, p.delta_payload(changed_runs(bytes(old), bytes(new)))))
    return sizes, two


MICROPYTHON_BENCH = """
import time
import hw
import ledctl
import protocol as p
from doubles import MemoryStream

class Clock:
    def ticks_ms(self):
        return time.ticks_ms()
    def ticks_diff(self, a, b):
        return time.ticks_diff(a, b)

full = p.encode(p.FULL, 0, bytes(range(256)) * 3)
delta = p.encode(p.DELTA, 0, p.delta_payload([(40, b"\\x30\\x00\\x00"), (45, b"\\xff\\x00\\x00")]))

def per_frame(wire, n, whole):
    # This build's clock ticks in whole milliseconds: time batches of n frames.
    controller = ledctl.Controller(MemoryStream(), hw.NeoStrip(0, 256, "GRB"), Clock(),
                                   led_count=256, budget_ma=0, boot_ms=0)
    decoder = p.Decoder()
    samples = []
    for _ in range(5):
        t = time.ticks_ms()
        for _ in range(n):
            if whole:
                controller.feed(wire)
                controller.dirty = True
                controller.step()
            else:
                decoder.feed(wire)
        samples.append(time.ticks_diff(time.ticks_ms(), t) * 1000 // n)
    samples.sort()
    return samples[len(samples) // 2]

print("full_parse", per_frame(full, 100, False))
print("full_step", per_frame(full, 50, True))
print("delta_parse", per_frame(delta, 1000, False))
print("delta_step", per_frame(delta, 500, True))
"""


def bench_firmware_micropython() -> dict[str, int] | str:
    if shutil.which("node") is None:
        return "node not found"
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "bench.py"
        script.write_text(MICROPYTHON_BENCH)
        result = run_micropython(script)
    if result.returncode:
        return result.stderr.strip()
    return {k: int(v) for k, v in (line.split() for line in result.stdout.splitlines())}


def bench_firmware_cpython() -> dict[str, float]:
    sys.path.insert(0, str(REPO / "firmware"))
    import emulator
    import ledctl

    full = p.encode(p.FULL, 0, bytes(range(256)) * 3)
    delta = p.encode(p.DELTA, 0, p.delta_payload([(40, b"\x30\x00\x00"), (45, b"\xff\x00\x00")]))
    out = {}
    for name, wire in (("full", full), ("delta", delta)):
        decoder = p.Decoder()
        samples = []
        for _ in range(500):
            started = time.perf_counter()
            decoder.feed(wire)
            samples.append(time.perf_counter() - started)
        out[f"{name}_parse"] = statistics.median(samples) * 1e6
        controller = ledctl.Controller(
            emulator.MemoryStream(),
            emulator.RecordingStrip(LEDS),
            emulator.MonotonicClock(),
            led_count=LEDS,
            budget_ma=0,
            boot_ms=0,
        )
        samples = []
        for _ in range(500):
            started = time.perf_counter()
            controller.feed(wire)
            controller.dirty = True
            controller.step()
            samples.append(time.perf_counter() - started)
        out[f"{name}_step"] = statistics.median(samples) * 1e6
    return out


def bench_adalight_comet(seconds: float = 4.0, fps: int = 60) -> None:
    from boardctl.link.serial_link import AdalightLink
    from tests.wled import SerialLine

    line = SerialLine(LEDS, 115_200)
    link = open_link("adalight", path=line.path)
    assert isinstance(link, AdalightLink)
    deadline = time.monotonic() + 5
    while not link.connected and time.monotonic() < deadline:
        time.sleep(0.01)
    waits = []
    frames = [bytes([(n * 7) % 256, 40, n % 200]) * LEDS for n in range(int(seconds * fps))]
    start = time.monotonic()
    for n, frame in enumerate(frames):
        time.sleep(max(0.0, start + n / fps - time.monotonic()))
        began = time.perf_counter()
        link.show(frame)
        waits.append(time.perf_counter() - began)
    elapsed = time.monotonic() - start
    written = line.written()
    line.wait_for(line.shows(frames[-1]), 5)
    link.close()
    line.close()
    print(f"Adalight at 115,200 baud, {len(frames)} frames at {fps} fps over {elapsed:.1f} s:")
    print(
        f"  show(): median {statistics.median(waits) * 1e3:.3f} ms, "
        f"max {max(waits) * 1e3:.3f} ms, total {sum(waits) * 1e3:.1f} ms"
    )
    print(
        f"  written {written / elapsed / 1000:.1f} kB/s (the line carries 11.5 kB/s), "
        f"{link.packets} packets, {link.superseded} frames superseded, "
        f"{link.write_failures} write timeouts"
    )
    print(
        f"  WLED's parser showed {len(line.shown)} frames; the last one is the last drawn: "
        f"{bool(line.shown) and line.shown[-1][1] == frames[-1]}"
    )


def main() -> int:
    if "--adalight" in sys.argv:
        bench_adalight_comet()
        return 0
    bench_adalight_comet()
    encode_send, show, size = bench_send()
    print(f"full 256-LED frame: {size} bytes on the wire")
    print(f"  encode + write to a pty, median:         {encode_send * 1e3:.3f} ms")
    print(f"  Link.show until all bytes arrived, median: {show * 1e3:.3f} ms")
    sizes, two = bench_peg_moves()
    print(f"peg move, two LEDs changing: {two} bytes on the wire")
    print(
        f"peg moves of a rendered game ({len(sizes)} moves): median "
        f"{statistics.median(sizes):.0f} bytes, max {max(sizes)} bytes"
    )
    micropython = bench_firmware_micropython()
    if isinstance(micropython, str):
        print(f"firmware under MicroPython: not measured ({micropython})")
    else:
        print("firmware per frame under MicroPython 1.27 (wasm on this machine), median:")
        print(
            f"  FULL 256 LEDs: parse {micropython['full_parse']} us, "
            f"parse+apply+strip {micropython['full_step']} us"
        )
        print(
            f"  DELTA peg move: parse {micropython['delta_parse']} us, "
            f"parse+apply+strip {micropython['delta_step']} us"
        )
    cpython = bench_firmware_cpython()
    print("firmware per frame under CPython 3.11, median:")
    print(
        f"  FULL 256 LEDs: parse {cpython['full_parse']:.0f} us, "
        f"parse+apply+strip {cpython['full_step']:.0f} us"
    )
    print(
        f"  DELTA peg move: parse {cpython['delta_parse']:.0f} us, "
        f"parse+apply+strip {cpython['delta_step']:.0f} us"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
