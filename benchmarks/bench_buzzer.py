"""The Pico's buzzer on the emulated RP2040 (tests/rp2040/), in emulated time.

    PYTHONPATH=. python benchmarks/bench_buzzer.py [--link usb|uart]

Every cue of ``boardctl.sound.cues`` goes to the chip as one TONE message; the PWM pin's
edges are decoded into tones (runs of cycles of one period). Printed:

1. idle (nothing else on the link): each note's frequency and length against its step,
   the worst deviations over all cues, and the first note's delay after the TONE's last
   byte reached the chip;
2. loaded: the ``win`` fanfare while a full 256-LED frame arrives every 100 ms: how much
   longer than its step each note lasts (a step starts when the main loop sees the last
   one end), and whether any note is missing.

Emulated time counts the RP2040's cycles at 125 MHz without flash wait states. rp2040js
runs at about 0.4x real time: one run takes about a minute.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from boardctl.link import protocol as p  # noqa: E402
from boardctl.sound.cues import CUES, tone_steps  # noqa: E402
from tests.rp2040.chip import Chip, Host, PinTone  # noqa: E402

LEDS = 256


def notes(tones: list[PinTone]) -> list[PinTone]:
    """Without the one-cycle runs where the PWM changes period mid-cycle."""
    return [t for t in tones if t.cycles >= 3]


def play(chip: Chip, host: Host, name: str, frames: bool = False) -> tuple[list[PinTone], float]:
    """The notes the pin played for cue ``name``, and the first one's delay (ms)."""
    steps = tone_steps(name)
    mark = len(chip.tones)
    host.send(p.TONE, p.tone_payload(255, steps))
    arrived = chip.arrived_at(emu_s=1)
    length = sum(ms for _hz, ms in steps) / 1000
    if frames:
        for k in range(int(length * 10) + 1):
            host.send(p.FULL, bytes((k + i) % 7 for i in range(3 * LEDS)))
            chip.run_for(0.1)
    chip.run_for(length + 0.3)
    played = notes(chip.tones[mark:])
    return played, (played[0].start_ns - arrived) / 1e6 if played else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--link", choices=("usb", "uart"), default="usb")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, Chip(Path(tmp), link=args.link) as chip:
        chip.message(p.HELLO, emu_s=5)
        host = Host(chip)
        host.hello()
        chip.message(p.HELLO, after=1)
        hz_error, ms_error, delays = [], [], []
        for name in CUES:
            played, delay = play(chip, host, name)
            wanted = [(hz, ms) for hz, ms in tone_steps(name) if hz]
            assert len(played) == len(wanted), (name, [round(t.hz) for t in played])
            delays.append(delay)
            for tone, (hz, ms) in zip(played, wanted, strict=True):
                hz_error.append(tone.hz - hz)
                ms_error.append(tone.ms - ms)
        print(f"{args.link}, idle, {len(hz_error)} notes of {len(CUES)} cues:")
        print(f"  frequency - step: {min(hz_error):+.2f} .. {max(hz_error):+.2f} Hz")
        print(f"  length - step: {min(ms_error):+.2f} .. {max(ms_error):+.2f} ms")
        print(f"  first note after the last byte: {min(delays):.1f} .. {max(delays):.1f} ms")
        played, _delay = play(chip, host, "win", frames=True)
        wanted = [(hz, ms) for hz, ms in tone_steps("win") if hz]
        print(f"{args.link}, a full frame every 100 ms, 'win':")
        print(f"  notes {[round(t.hz) for t in played]} (steps {[hz for hz, _ in wanted]})")
        longer = [t.ms - ms for t, (_hz, ms) in zip(played, wanted, strict=False)]
        print(f"  length - step: {min(longer):+.1f} .. {max(longer):+.1f} ms")


if __name__ == "__main__":
    main()
