"""The buzzer on an emulated RP2040: TONE messages in, the PWM pin's edges decoded back
into tones (frequency, duty cycle, length, in emulated time) and checked against the
host's cue table (``tests/rp2040/``: the stock MicroPython image on rp2040js, whose PWM
peripheral drives the pin). Select these alone with ``pytest -m rp2040``.

One chip is booted for the cues and shared by the tests in file order; the whole chain
(the service on mock buttons -> ``PicoLink`` over a pty -> the chip) gets its own.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from boardctl.link import protocol as p
from boardctl.sound.cues import CUES, tone_steps
from tests.rp2040.chip import Chip, PinTone
from tests.test_e2e import Rig
from tests.test_firmware_rp2040 import Booted, pattern, service_on_chip

pytestmark = pytest.mark.rp2040

LATE_MS = 5.0  # idle, a step ends at most this late: the loop's 2 ms wait and one turn


def shortest_ms(hz: int, ms: int) -> float:
    """The shortest a note of ``ms`` can be heard: a new frequency takes effect at a wrap
    of the counter and the cycle where the period changes is not counted (up to two
    periods), and steps are timed in whole milliseconds (``time.ticks_ms``): a step that
    began late in its millisecond (the loop held by a frame) ends on the tick, up to 1 ms
    short."""
    return ms - 2000 / hz - 1.0


def heard(tones: list[PinTone]) -> list[PinTone]:
    """The tones, without the one-cycle runs where the PWM changes period mid-cycle."""
    return [t for t in tones if t.cycles >= 3]


def play(booted: Booted, steps: list[tuple[int, int]], level: int = 255) -> list[PinTone]:
    """Send one TONE, let it play out, and return what the pin played after it arrived."""
    chip = booted.chip
    mark = len(chip.tones)
    booted.host.send(p.TONE, p.tone_payload(level, steps))
    arrived = chip.arrived_at(emu_s=1)
    chip.run_for(sum(ms for _hz, ms in steps) / 1000 + 0.15)
    tones = chip.tones[mark:]
    assert all(t.start_ns >= arrived for t in tones)
    return tones


@pytest.fixture(scope="module")
def usb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Booted]:
    with Chip(tmp_path_factory.mktemp("buzzer")) as chip:
        yield Booted(chip)


@pytest.mark.parametrize("name", list(CUES))
def test_each_cue_plays_its_steps_on_the_pwm_pin(usb: Booted, name: str) -> None:
    steps = tone_steps(name)
    chip = usb.chip
    tones = heard(play(usb, steps))
    notes = [(hz, ms) for hz, ms in steps if hz]
    assert len(tones) == len(notes), [(round(t.hz), round(t.ms, 1)) for t in tones]
    assert tones[0].start_ns - chip.arrived_at() < 20e6  # the first note at once
    for tone, (hz, ms) in zip(tones, notes, strict=True):
        assert abs(tone.hz - hz) <= 0.002 * hz  # the PWM's divider: within 0.2 %
        # Full volume: a 50 % duty cycle. The pin's edges are seen at the emulator's event
        # steps, which a busy host can shift: mean high times 1.2 % and 2.8 % long were
        # seen, so the decoder gives the tone's median high time (tests/rp2040/pico.mjs).
        assert abs(tone.duty - 0.5) < 0.02
        assert shortest_ms(hz, ms) <= tone.ms <= ms + LATE_MS, (hz, ms, tone.ms)
    # Rests are silences of their length; notes that follow each other have no gap.
    index = 0
    for (hz, _ms), following in itertools.pairwise(steps):
        if not hz:
            continue
        if index + 1 < len(tones):
            gap = (tones[index + 1].start_ns - tones[index].end_ns) / 1e6
            periods = 2000 / min(hz, round(tones[index + 1].hz))  # (the change's cycles)
            if following[0]:
                assert gap <= periods + 0.3, (index, gap)
            else:
                rest = following[1]
                assert rest - periods - 0.3 <= gap <= rest + LATE_MS + periods, (index, gap)
        index += 1
    # Silent when done: the pin stays low.
    mark = len(chip.tones)
    chip.run_for(0.1)
    assert chip.tones[mark:] == [] and chip.tone_level == 0


def test_the_level_sets_the_duty_cycle_and_zero_is_silence(usb: Booted) -> None:
    (tone,) = heard(play(usb, [(1000, 60)], level=64))
    assert abs(tone.hz - 1000) < 2
    assert abs(tone.duty - 64 * 32768 / 255 / 65536) < 0.005  # 12.5 %: quieter
    assert play(usb, [(1000, 60)], level=0) == []


def test_a_new_tone_cuts_the_one_playing_short(usb: Booted) -> None:
    chip = usb.chip
    mark = len(chip.tones)
    usb.host.send(p.TONE, p.tone_payload(255, tone_steps("win")))
    chip.run_for(0.06)
    usb.host.send(p.TONE, p.tone_payload(255, tone_steps("commit")))
    chip.run_for(0.6)
    cut, click = heard(chip.tones[mark:])  # the fanfare went no further
    assert round(cut.hz) == 1047 and cut.ms < 100
    assert round(click.hz) == 2093 and abs(click.ms - 20) < LATE_MS
    mark = len(chip.tones)
    usb.host.send(p.TONE, p.tone_payload(255, tone_steps("win")))
    chip.run_for(0.05)
    usb.host.send(p.TONE, p.tone_payload(255, []))  # no steps: silence now
    chip.run_for(0.5)
    (cut,) = heard(chip.tones[mark:])
    assert round(cut.hz) == 1047 and cut.ms < 100 and chip.tone_level == 0


def test_frames_keep_flowing_while_a_figure_plays_and_no_note_is_dropped(usb: Booted) -> None:
    chip = usb.chip
    mark, frames = len(chip.tones), len(chip.frames)
    usb.host.send(p.TONE, p.tone_payload(255, tone_steps("win")))
    shown = [pattern(10 + i) for i in range(6)]
    for rgb in shown:
        usb.host.send(p.FULL, rgb)  # a full frame every 100 ms meanwhile
        chip.run_for(0.1)
    chip.run_for(0.8)
    assert {f.rgb for f in chip.frames[frames:]} >= set(shown)
    tones = heard(chip.tones[mark:])
    notes = [(hz, ms) for hz, ms in tone_steps("win") if hz]
    assert [round(t.hz) for t in tones] == [hz for hz, _ms in notes]
    for tone, (hz, ms) in zip(tones, notes, strict=True):
        # A step starts when the loop sees the last one end: a full frame arriving over
        # USB holds the loop up to ~60 ms, which makes a step longer; it is timed from the
        # tick the loop read then, so it comes out short by no more than for an idle chip.
        assert shortest_ms(hz, ms) <= tone.ms <= ms + 100, (hz, ms, tone.ms)


def test_a_malformed_tone_is_naked_and_plays_nothing(usb: Booted) -> None:
    chip = usb.chip
    chip.run_for(0.2)
    mark, messages = len(chip.tones), len(chip.messages)
    usb.host.send(p.TONE, b"\xff\x00\x13\x00\x0a")  # 19 Hz
    nak = chip.message(p.NAK, after=messages, emu_s=1)
    assert p.parse_nak(nak.payload)[1] == p.NAK_BAD_PAYLOAD
    chip.run_for(0.1)
    assert chip.tones[mark:] == []


# --- the whole chain ----------------------------------------------------------------------


@pytest.fixture
def board_on_chip(tmp_path: Path, mock_factory: MockFactory) -> Iterator[tuple[Rig, Chip]]:
    """``boardctl run`` with ``buzzer = "pico"`` -> serial link over a pty -> the chip."""
    with service_on_chip(tmp_path, mock_factory, {"sound": {"buzzer": "pico"}}) as pair:
        yield pair


def test_a_commit_from_the_buttons_clicks_on_the_chip_s_buzzer(
    board_on_chip: tuple[Rig, Chip],
) -> None:
    rig, chip = board_on_chip
    chip.message(p.HELLO, emu_s=5)
    link = rig.loop.link
    assert chip.wait(lambda: getattr(link, "device", None) is not None, emu_s=5)
    # The greeting over: every HELLO the controller answers brings a BRIGHTNESS, and
    # the redraw it causes (IRQs off, ~8 ms) would hold the loop that ends a note.
    chip.run_for(0.5)
    mark = len(chip.tones)
    rig.enter(1, 5)  # (+5, then the encoder's push: two presses)
    rig.wait_for(lambda: rig.status()["tracks"][0]["front"] == 5)
    assert chip.wait(lambda: heard(chip.tones[mark:]), emu_s=3)
    chip.run_for(0.1)
    (click,) = heard(chip.tones[mark:])
    # The commit click: the service sends its TONE after the commit's frame, and the
    # frame is drawn before the note is due to end, so the click is its own 20 ms
    # (measured 20.5-21.5 ms in 12 runs), not a frame's handling longer.
    assert abs(click.hz - 2093) < 3 and abs(click.ms - 20) < LATE_MS
    mark = len(chip.tones)
    rig.press("undo")
    rig.wait_for(lambda: rig.status()["tracks"][0]["front"] == 0)
    assert chip.wait(lambda: len(heard(chip.tones[mark:])) >= 2, emu_s=3)
    undo = heard(chip.tones[mark:])
    assert [round(t.hz) for t in undo] == [hz for hz, _ms in tone_steps("undo")]
