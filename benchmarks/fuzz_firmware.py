"""Fuzz the LED controller firmware's parser with random byte streams.

    PYTHONPATH=. python benchmarks/fuzz_firmware.py [--streams 100000] [--seed 1]
        [--micropython 10000]

Every stream goes into ``ledctl.Controller.feed`` (then ``step``) of the real firmware
code on CPython. Streams are pure noise, valid frames with random payloads (runs past
the end of the strip, odd lengths, wrong kinds, any brightness), and valid frames
damaged by bit flips, cuts, splices and stray delimiters. After each stream it checks:
no exception escaped, the frame buffer kept its size (a slice write past the end would
grow it), the strip was only ever shown whole frames, and, for undamaged streams, the
controller's frame equals a reference model of what the messages ask for.

``--micropython N`` also feeds N streams (noise, valid and damaged frames) to the same
firmware files under a real MicroPython (the WebAssembly build, via node).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "firmware"))

import emulator  # noqa: E402
import ledctl  # noqa: E402
import protocol as p  # noqa: E402

from tests.test_protocol import parse_runs  # noqa: E402

LEDS = 64


def random_runs(rng: random.Random) -> list[tuple[int, bytes]]:
    runs = []
    for _ in range(rng.randint(1, 4)):
        start = rng.choice([rng.randrange(LEDS), rng.randrange(LEDS, 70000 // 1), LEDS - 1])
        start = min(start, 0xFFFF - 300)
        count = rng.randint(1, 20)
        runs.append((start, rng.randbytes(3 * count)))
    return runs


class Sync:
    """The reference model's view of sequence numbers: DELTAs apply only after a FULL
    with no gap since (protocol 2)."""

    def __init__(self) -> None:
        self.expect = -1
        self.synced = False

    def see(self, kind: int, seq: int) -> bool:
        """Note a valid message; True if it may change the frame."""
        if kind == p.HELLO:
            self.expect = (seq + 1) & 0xFF
            return False
        if self.expect >= 0 and seq != self.expect:
            self.synced = False
        self.expect = (seq + 1) & 0xFF
        if kind == p.FULL:
            self.synced = True
            return True
        return kind == p.DELTA and self.synced


def model_apply(frame: bytearray, kind: int, payload: bytes) -> None:
    """What a valid message must do to the frame (reference model)."""
    if kind == p.FULL:
        size = len(frame)
        data = payload[:size]
        frame[:] = data + bytes(size - len(data))
    elif kind == p.DELTA:
        for start, rgb in parse_runs(payload):
            for i in range(len(rgb) // 3):
                led = start + i
                if led < LEDS:
                    frame[3 * led : 3 * led + 3] = rgb[3 * i : 3 * i + 3]


def valid_message(rng: random.Random, seq: int) -> tuple[int, bytes]:
    kind = rng.choice([p.FULL, p.FULL, p.DELTA, p.DELTA, p.BRIGHTNESS, p.PING, p.HELLO])
    if kind == p.FULL:
        payload = rng.randbytes(3 * rng.choice([LEDS, LEDS, rng.randrange(0, 2 * LEDS)]))
    elif kind == p.DELTA:
        payload = p.delta_payload(random_runs(rng))
    elif kind == p.BRIGHTNESS:
        payload = p.brightness_payload(rng.randrange(256), rng.randrange(3000), rng.randint(1, 80))
    elif kind == p.PING:
        payload = p.ping_payload(rng.randrange(65536))
    else:
        payload = p.hello_payload(p.PROTOCOL_VERSION, (0, 1, 0), LEDS, "RGB")
    return kind, payload


def damage(rng: random.Random, data: bytes) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        how = rng.randrange(5)
        if how == 0 and out:
            i = rng.randrange(len(out))
            out[i] ^= 1 << rng.randrange(8)
        elif how == 1 and out:
            del out[rng.randrange(len(out)) :]
        elif how == 2:
            i = rng.randrange(len(out) + 1)
            out[i:i] = rng.randbytes(rng.randint(1, 8))
        elif how == 3 and out:
            out[rng.randrange(len(out))] = 0
        elif out:
            i = rng.randrange(len(out))
            j = rng.randrange(len(out))
            out[i:i] = out[j : j + rng.randint(1, 20)]
    return bytes(out)


def fuzz(streams: int, seed: int) -> dict[str, int]:
    rng = random.Random(seed)
    stats = {"streams": 0, "noise": 0, "valid": 0, "damaged": 0, "bytes": 0, "bad_frames": 0}
    controller = None
    seq = 0
    for n in range(streams):
        if n % 200 == 0:
            stream = emulator.MemoryStream()
            strip = emulator.RecordingStrip(LEDS)  # raises on a wrong-sized show
            clock = emulator.ManualClock()
            if controller is not None:
                stats["bad_frames"] += controller.bad
            controller = ledctl.Controller(
                stream, strip, clock, led_count=LEDS, budget_ma=rng.choice([0, 500, 2000])
            )
            model = bytearray(3 * LEDS)
            sync = Sync()
            seq = 0
        assert controller is not None  # (made at the first stream)
        flavour = rng.randrange(3)
        if flavour == 0:
            data = rng.randbytes(rng.randint(1, 300))
            stats["noise"] += 1
            exact = False
        else:
            messages = [valid_message(rng, seq + i) for i in range(rng.randint(1, 3))]
            data = b"".join(p.encode(k, seq + i, pl) for i, (k, pl) in enumerate(messages))
            seq = (seq + len(messages)) & 0xFF
            if flavour == 1:
                stats["valid"] += 1
                exact = True
                for i, (kind, payload) in enumerate(messages):
                    if sync.see(kind, (seq - len(messages) + i) & 0xFF):
                        model_apply(model, kind, payload)
            else:
                data = damage(rng, data)
                stats["damaged"] += 1
                exact = False
        stats["bytes"] += len(data)
        # Split the stream at random points, as a serial port would deliver it.
        cut = rng.randrange(len(data) + 1)
        controller.feed(data[:cut])
        controller.feed(data[cut:])
        # A delimiter ends the stream, as the next frame's leading 0x00 would.
        controller.feed(b"\x00")
        clock.advance(rng.randrange(0, 5000))
        controller.step()
        if len(controller.frame) != 3 * LEDS or len(controller.out) != 3 * LEDS:
            raise AssertionError(f"stream {n}: the frame buffer changed size")
        if exact and bytes(controller.frame) != bytes(model):
            raise AssertionError(f"stream {n}: frame differs from the model")
        if not exact:
            model[:] = controller.frame  # resync the model after damage
            sync.expect, sync.synced = controller.expect, controller.synced
        stats["streams"] += 1
    if controller is not None:
        stats["bad_frames"] += controller.bad
    return stats


MICROPYTHON_FUZZ = """
import random
import sys
import ledctl
import protocol as p
from doubles import ManualClock, MemoryStream

LEDS = 64
STREAMS = int(sys.argv[1])
random.seed(int(sys.argv[2]))


def rand(n):
    return random.getrandbits(16) % n


def randbytes(n):
    return bytes(random.getrandbits(8) for _ in range(n))


class Strip:
    def show(self, rgb):
        if len(rgb) != 3 * LEDS:
            raise AssertionError("strip shown " + str(len(rgb)) + " bytes")


def message(seq):
    kind = (p.FULL, p.DELTA, p.BRIGHTNESS, p.PING)[rand(4)]
    if kind == p.FULL:
        payload = randbytes(3 * rand(2 * LEDS))
    elif kind == p.DELTA:
        payload = p.delta_payload([(rand(3 * LEDS), randbytes(3 * (1 + rand(20))))])
    elif kind == p.BRIGHTNESS:
        payload = p.brightness_payload(rand(256), rand(3000), 1 + rand(80))
    else:
        payload = p.ping_payload(rand(65536))
    return p.encode(kind, seq, payload)


controller = None
clock = ManualClock()
bad = 0
for n in range(STREAMS):
    if n % 200 == 0:
        if controller is not None:
            bad += controller.bad
        controller = ledctl.Controller(MemoryStream(), Strip(), clock, led_count=LEDS, boot_ms=0)
    how = rand(3)
    if how == 0:
        data = randbytes(1 + rand(200))
    else:
        data = bytearray(message(n & 255))
        if how == 2:
            for _ in range(1 + rand(3)):
                i = rand(len(data))
                data[i] ^= 1 << rand(8)
            data = bytes(data[: len(data) - rand(4)])
    controller.feed(data)
    controller.feed(b"\\x00")
    clock.now += rand(5000)
    controller.step()
    if len(controller.frame) != 3 * LEDS or len(controller.out) != 3 * LEDS:
        raise AssertionError("frame buffer changed size at stream " + str(n))
print(STREAMS, bad + controller.bad)
"""


def fuzz_micropython(streams: int, seed: int) -> str:
    import tempfile

    from tests.test_firmware_micropython import run_micropython

    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "fuzz.py"
        script.write_text(MICROPYTHON_FUZZ)
        result = run_micropython(script, str(streams), str(seed))
    if result.returncode:
        raise SystemExit("MicroPython fuzz failed:\n" + result.stderr)
    return result.stdout.strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--micropython", type=int, default=0, metavar="N")
    args = parser.parse_args()
    started = time.perf_counter()
    stats = fuzz(args.streams, args.seed)
    elapsed = time.perf_counter() - started
    print(
        f"{stats['streams']} streams ({stats['noise']} noise, {stats['valid']} valid, "
        f"{stats['damaged']} damaged; {stats['bytes'] / 1e6:.1f} MB) in {elapsed:.1f} s: "
        f"no exception, no write outside the strip, valid streams matched the model; "
        f"{stats['bad_frames']} bad frames counted and dropped"
    )
    if args.micropython:
        started = time.perf_counter()
        streams, bad = fuzz_micropython(args.micropython, args.seed).split()
        print(
            f"MicroPython 1.27 (wasm): {streams} streams in {time.perf_counter() - started:.1f} s:"
            f" no exception, no write outside the strip; {bad} bad frames counted and dropped"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
