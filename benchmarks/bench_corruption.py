"""Frames that pass a corrupted check: random multi-bit damage to link frames.

    PYTHONPATH=. python benchmarks/bench_corruption.py [--frames 10000000] [--seed 1]

Each trial takes a DELTA of a peg move (a few LEDs, as the service sends them) or a
BRIGHTNESS/PING frame, flips 2-16 random bits anywhere in it (delimiters included, so
a damaged byte may become 0x00 and cut the frame, or a 0x00 may vanish and join it to
garbage), and feeds it to a fresh ``Decoder``. A frame "passes" if the decoder returns
a protocol-2 message that differs from the one sent. Protocol-1-looking messages (the
CRC-16 fallback that only exists to recognise an old peer) are counted apart: they are
never applied by either side.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from boardctl.link import protocol as p  # noqa: E402


def sample_frames(rng: random.Random) -> list[tuple[bytes, p.Message]]:
    frames = []
    for seq in range(64):
        runs = [(rng.randrange(256), bytes(rng.randrange(256) for _ in range(3)))]
        runs.append((rng.randrange(256), bytes(rng.randrange(256) for _ in range(3))))
        runs.sort()
        payload = p.delta_payload(runs)
        frames.append((p.encode(p.DELTA, seq, payload), p.Message(p.DELTA, seq, payload)))
    for seq in range(8):
        payload = p.brightness_payload(rng.randrange(256), 2000, 55)
        frames.append((p.encode(p.BRIGHTNESS, seq, payload), p.Message(p.BRIGHTNESS, seq, payload)))
        payload = p.ping_payload(rng.randrange(65536))
        frames.append((p.encode(p.PING, seq, payload), p.Message(p.PING, seq, payload)))
    return frames


def trials(count: int, seed: int) -> tuple[int, int, int]:
    """(passed, legacy, dropped) over ``count`` damaged frames."""
    rng = random.Random(seed)
    frames = sample_frames(rng)
    passed = legacy = dropped = 0
    for _ in range(count):
        wire, sent = frames[rng.randrange(len(frames))]
        damaged = bytearray(wire)
        bits = 8 * len(damaged)
        for _ in range(rng.randint(2, 16)):
            bit = rng.randrange(bits)
            damaged[bit >> 3] ^= 1 << (bit & 7)
        got = p.Decoder().feed(bytes(damaged))
        if not got:
            dropped += 1
        for message in got:
            if message.version != p.PROTOCOL_VERSION:
                legacy += 1
            elif message != sent:
                passed += 1
    return passed, legacy, dropped


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--frames", type=int, default=10_000_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    started = time.perf_counter()
    passed, legacy, dropped = trials(args.frames, args.seed)
    elapsed = time.perf_counter() - started
    print(
        f"{args.frames:,} frames with 2-16 bit errors: {passed} passed the CRC-32 as a wrong "
        f"frame, {legacy} looked like protocol 1 (never applied), {dropped:,} dropped whole; "
        f"{elapsed:.0f} s"
    )


if __name__ == "__main__":
    main()
