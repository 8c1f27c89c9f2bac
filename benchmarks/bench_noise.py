"""Noise on the link: bit errors both ways, a wrong frame never shown, quick recovery.

    PYTHONPATH=. python benchmarks/bench_noise.py [--seconds 5] [--rates 1e-3,3e-3,5e-3,1e-2]
        [--chunk-leds 32]

The host's ``PicoLink`` talks through a pseudo-terminal to a proxy that flips every bit
passing in either direction with probability RATE, and on through a second pty to the
firmware's controller (``firmware/emulator.py``'s ``PtyDevice``: the controller code on
CPython). The host shows a new frame every 50 ms (a lit LED walking along the strip: DELTAs)
for ``--seconds``; the strip is sampled every 2 ms. A sample is *wrong* if it equals none
of the frames the host has shown (stale, an earlier frame, is not wrong). Then the noise
stops, and the time until the strip shows the last frame is measured. Before that, still in
the noise, the host shows one dense frame (every LED lit: a FULL of 782 bytes, or FULL_CHUNK
messages of ``--chunk-leds`` LEDs; 0 sends it whole) and the time until the strip shows it is
measured (at most 10 s).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import select
import sys
import tempfile
import threading
import time
import tty
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "firmware"))

from emulator import PtyDevice  # noqa: E402

from boardctl.link import open_link  # noqa: E402
from boardctl.link import protocol as p  # noqa: E402

LEDS = 256


class NoisyProxy:
    """Bytes between two fds, each bit flipped with probability ``rate`` (while on)."""

    def __init__(self, host_fd: int, device_fd: int, rate: float, seed: int) -> None:
        self.fds = (host_fd, device_fd)
        self.rate = rate
        self.noisy = True
        self.rng = random.Random(seed)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def damage(self, data: bytes) -> bytes:
        if not self.noisy:
            return data
        out = bytearray(data)
        bits = 8 * len(out)
        position = -1
        while True:  # geometric gaps between flipped bits
            position += 1 + int(self.rng.expovariate(self.rate))
            if position >= bits:
                break
            out[position >> 3] ^= 1 << (position & 7)
        return bytes(out)

    def run(self) -> None:
        host, device = self.fds
        while not self.stop.is_set():
            ready, _, _ = select.select([host, device], [], [], 0.02)
            for fd in ready:
                try:
                    data = os.read(fd, 65536)
                except OSError:
                    continue
                target = device if fd == host else host
                with contextlib.suppress(OSError):
                    os.write(target, self.damage(data))


def frame(k: int) -> bytes:
    out = bytearray(3 * LEDS)
    out[3 * (k % LEDS) : 3 * (k % LEDS) + 3] = b"\x30\x10\x00"
    out[3 * ((k * 7) % LEDS) + 2] = 0x20
    return bytes(out)


DENSE = bytes((i * 37 + 11) % 200 + 1 for i in range(3 * LEDS))  # every LED lit


def until(device: PtyDevice, want: bytes, limit: float) -> float:
    """Seconds until the strip shows ``want`` (inf after ``limit``)."""
    start = time.monotonic()
    while time.monotonic() - start < limit:
        if device.pixels() == want:
            return time.monotonic() - start
        time.sleep(0.002)
    return float("inf")


def trial(
    rate: float, seconds: float, seed: int, chunk_leds: int
) -> tuple[float, float, float, int]:
    """(longest wrong stretch in s, time to the right frame after the noise in s, time to
    the dense FULL in the noise in s, samples)."""
    with tempfile.TemporaryDirectory() as tmp, PtyDevice(led_count=LEDS, budget_ma=0) as device:
        master, slave = os.openpty()
        tty.setraw(slave)
        link_path = Path(tmp) / "host"
        link_path.symlink_to(os.ttyname(slave))
        device_fd = os.open(device.path, os.O_RDWR | os.O_NOCTTY)
        tty.setraw(device_fd)
        proxy = NoisyProxy(master, device_fd, rate, seed)
        link = open_link("serial", path=str(link_path), chunk_leds=chunk_leds)
        shown: set[bytes] = {bytes(3 * LEDS)}
        longest = wrong_since = 0.0
        wrong = False
        k = 0
        end = time.monotonic() + seconds
        next_frame = 0.0
        samples = 0
        while time.monotonic() < end:
            now = time.monotonic()
            if now >= next_frame:
                shown.add(frame(k))
                link.show(frame(k))
                k += 1
                next_frame = now + 0.05
            pixels = device.pixels()
            samples += 1
            if pixels not in shown:
                if not wrong:
                    wrong, wrong_since = True, now
                longest = max(longest, now - wrong_since)
            else:
                wrong = False
            time.sleep(0.002)
        shown.add(DENSE)
        link.show(DENSE)
        dense = until(device, DENSE, 10.0)
        wrong_at_end = device.pixels() not in shown
        link.show(frame(k))  # the last frame, in the noise (as the walk's were)
        shown.add(frame(k))
        time.sleep(0.05)
        proxy.noisy = False
        recovered = until(device, frame(k), 10.0)
        if wrong_at_end:
            longest = float("inf")  # (a wrong frame at the end of the noise: flagged)
        link.close()
        proxy.stop.set()
        proxy.thread.join(1)
        for fd in (master, slave, device_fd):
            os.close(fd)
    return longest, recovered, dense, samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rates", default="1e-3,3e-3,5e-3,1e-2")
    parser.add_argument("--chunk-leds", type=int, default=p.CHUNK_LEDS, help="0: FULL frames whole")
    args = parser.parse_args()
    for index, rate in enumerate(float(r) for r in args.rates.split(",")):
        longest, recovered, dense, samples = trial(rate, args.seconds, index, args.chunk_leds)
        print(
            f"bit error rate {rate:g} both ways, {args.seconds:g} s: longest wrong frame shown "
            f"{longest * 1000:.0f} ms ({samples} samples); dense FULL shown in the noise "
            f"after {dense:.2f} s; right frame {recovered:.2f} s after the noise stopped"
        )


if __name__ == "__main__":
    main()
