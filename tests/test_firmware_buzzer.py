"""The TONE message and the Pico's buzzer (firmware/buzzer.py): the protocol's round trip,
the player on CPython with a manual clock, the controller's hook, and the same firmware
files under a real MicroPython (wasm) playing every cue of the host's table."""

from __future__ import annotations

import importlib
import json
import sys
from typing import TYPE_CHECKING

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.link import protocol as p
from boardctl.sound.cues import CUES, tone_steps
from tests.conftest import REPO
from tests.test_firmware_micropython import run_micropython
from tests.test_protocol import _single_bit_errors_all_caught

sys.path.insert(0, str(REPO / "firmware"))
emulator = importlib.import_module("emulator")  # (provides the firmware's `import protocol`)
ledctl = importlib.import_module("ledctl")
buzzer = importlib.import_module("buzzer")
if TYPE_CHECKING:
    from emulator import ManualClock, MemoryStream
    from ledctl import Controller

steps_strategy = st.lists(
    st.tuples(
        st.one_of(st.just(0), st.integers(p.MIN_TONE_HZ, p.MAX_TONE_HZ)),
        st.integers(1, p.MAX_STEP_MS),
    ),
    max_size=p.MAX_TONE_STEPS,
)


@settings(deadline=None)
@given(st.integers(0, 255), st.integers(0, 255), steps_strategy)
def test_tone_round_trip(seq: int, level: int, steps: list[tuple[int, int]]) -> None:
    payload = p.tone_payload(level, steps)
    assert len(payload) == 1 + 4 * len(steps) <= 1 + 4 * p.MAX_TONE_STEPS
    (message,) = p.Decoder().feed(p.encode(p.TONE, seq, payload))
    assert message == p.Message(p.TONE, seq, payload)
    assert p.parse_tone(message.payload) == (level, steps)


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 255), st.integers(0, 255), steps_strategy)
def test_every_single_bit_error_in_a_tone_is_caught(
    seq: int, level: int, steps: list[tuple[int, int]]
) -> None:
    _single_bit_errors_all_caught(p.encode(p.TONE, seq, p.tone_payload(level, steps)))


def test_tone_kind_is_new_and_the_old_kinds_keep_their_numbers() -> None:
    assert p.TONE == 0x0A and p.KIND_NAMES[p.TONE] == "TONE"
    old = [p.HELLO, p.FULL, p.DELTA, p.BRIGHTNESS, p.PING, p.PONG, p.NAK, p.ERROR, p.UPDATE]
    assert old == list(range(1, 10))
    assert ledctl.FIRMWARE_VERSION >= p.TONE_FIRMWARE  # the HELLO tells the host it plays


@pytest.mark.parametrize(
    ("level", "steps", "message"),
    [
        (256, [], "tone level 256 is out of range"),
        (-1, [], "tone level -1 is out of range"),
        (255, [(440, 10)] * 17, "17 tone steps are more than 16"),
        (255, [(19, 10)], "tone of 19 Hz is out of range 20-20000"),
        (255, [(20001, 10)], "tone of 20001 Hz"),
        (255, [(440, 0)], "tone step of 0 ms is out of range 1-10000"),
        (255, [(0, 10001)], "tone step of 10001 ms"),
    ],
)
def test_a_bad_tone_is_refused_before_it_is_sent(
    level: int, steps: list[tuple[int, int]], message: str
) -> None:
    with pytest.raises(p.ProtocolError, match=message):
        p.tone_payload(level, steps)


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (b"", "TONE payload must be 1 \\+ 4 x"),
        (b"\xff\x01\xb8", "got 3"),
        (b"\xff" + b"\x01\xb8\x00\x0a" * 17, "got 69"),
        (b"\xff\x00\x13\x00\x0a", "19 Hz"),
        (b"\xff\x01\xb8\x00\x00", "0 ms"),
    ],
)
def test_a_bad_tone_payload_is_named(payload: bytes, message: str) -> None:
    with pytest.raises(p.ProtocolError, match=message):
        p.parse_tone(payload)


# --- the player, on CPython ------------------------------------------------------------


class RecordingPwm:
    """``machine.PWM``'s two calls, each change stamped with the clock's time."""

    def __init__(self, clock: ManualClock) -> None:
        self.clock = clock
        self.hz = 0
        self.duty = 0
        self.changes: list[tuple[int, int, int]] = []  # (ms, hz, duty_u16)

    def freq(self, value: int) -> None:
        self.hz = value

    def duty_u16(self, value: int) -> None:
        self.duty = value
        self.changes.append((self.clock.ticks_ms(), self.hz, value))


def sounding(pwm: RecordingPwm) -> list[tuple[int, int]]:
    """What the pin played: ``(hz, ms)`` runs, 0 Hz for silence, from the first sound on."""
    runs: list[tuple[int, int]] = []
    last: tuple[int, int] | None = None  # (start ms, hz)
    for ms, hz, duty in pwm.changes:
        sound = hz if duty else 0
        if last is None:
            if sound:
                last = (ms, sound)
            continue
        if sound != last[1] or sound:  # every step re-sets the PWM (even the same tone)
            runs.append((last[1], ms - last[0]))
            last = (ms, sound)
    return runs


def played(steps: list[tuple[int, int]], level: int = 255) -> RecordingPwm:
    """``steps`` played to the end by a buzzer the loop updates every millisecond."""
    clock = emulator.ManualClock(1000)
    pwm = RecordingPwm(clock)
    player = buzzer.Buzzer(pwm, clock)
    player.play(level, steps, clock.ticks_ms())
    for _ in range(sum(ms for _hz, ms in steps) + 50):
        clock.advance(1)
        player.update(clock.ticks_ms())
    assert not player.playing
    return pwm


@pytest.mark.parametrize("name", sorted(CUES))
def test_each_cue_plays_its_steps_on_the_pwm_and_ends_silent(name: str) -> None:
    steps = tone_steps(name)
    pwm = played(steps)
    assert sounding(pwm) == steps
    assert pwm.changes[-1][2] == 0  # silent when done
    assert {duty for _ms, hz, duty in pwm.changes if duty} == {buzzer.HALF_DUTY}


def test_the_level_sets_the_duty_cycle_and_zero_is_silent() -> None:
    assert buzzer.duty_of(255) == 32768 and buzzer.duty_of(0) == 0
    assert buzzer.duty_of(128) == 128 * 32768 // 255
    pwm = played([(1000, 10)], level=64)
    assert {duty for _ms, _hz, duty in pwm.changes} == {0, 64 * 32768 // 255}
    assert [duty for _ms, _hz, duty in played([(1000, 10)], level=0).changes] == [0, 0, 0]


def test_a_late_loop_lengthens_a_step_and_never_drops_one() -> None:
    clock = emulator.ManualClock()
    pwm = RecordingPwm(clock)
    player = buzzer.Buzzer(pwm, clock)
    steps = [(494, 80), (0, 60), (494, 80), (0, 60), (494, 80)]  # three beeps
    player.play(255, steps, 0)
    clock.advance(300)  # the loop held up past the first three steps' ends
    player.update(clock.ticks_ms())
    for _ in range(400):
        clock.advance(1)
        player.update(clock.ticks_ms())
    runs = sounding(pwm)
    assert [hz for hz, _ms in runs] == [494, 0, 494, 0, 494]  # all three beeps
    assert runs[0] == (494, 300) and runs[1:] == steps[1:]


def test_a_new_figure_cuts_the_one_playing_short_and_no_steps_is_silence() -> None:
    clock = emulator.ManualClock()
    pwm = RecordingPwm(clock)
    player = buzzer.Buzzer(pwm, clock)
    player.play(255, tone_steps("win"), 0)
    clock.advance(50)
    player.play(255, tone_steps("commit"), clock.ticks_ms())
    for _ in range(100):
        clock.advance(1)
        player.update(clock.ticks_ms())
    assert [hz for _ms, hz, duty in pwm.changes if duty] == [1047, 2093]
    assert pwm.changes[-1] == (70, 2093, 0)
    player.play(255, tone_steps("win"), clock.ticks_ms())
    player.play(255, [], clock.ticks_ms())
    assert pwm.duty == 0 and not player.playing and player.figures == 4


def test_open_buzzer_is_none_without_a_pin() -> None:
    assert buzzer.open_buzzer(-1, emulator.ManualClock()) is None


# --- the controller's hook -------------------------------------------------------------


def controller_with(
    piezo: object | None,
) -> tuple[Controller, MemoryStream, ManualClock]:
    stream = emulator.MemoryStream()
    clock = emulator.ManualClock()
    controller = ledctl.Controller(
        stream, emulator.RecordingStrip(8), clock, led_count=8, boot_ms=0, buzzer=piezo
    )
    stream.sent.clear()
    return controller, stream, clock


def test_the_controller_plays_a_tone_while_it_keeps_handling_frames() -> None:
    clock = emulator.ManualClock()
    pwm = RecordingPwm(clock)
    piezo = buzzer.Buzzer(pwm, clock)
    stream = emulator.MemoryStream()
    controller = ledctl.Controller(
        stream, emulator.RecordingStrip(8), clock, led_count=8, boot_ms=0, buzzer=piezo
    )
    steps = tone_steps("refusal.not_your_turn")
    stream.inbox += p.encode(p.TONE, 0, p.tone_payload(255, steps))
    frames = [bytes([i]) * 24 for i in range(1, 29)]
    for tick in range(300):
        if tick % 10 == 5 and frames:  # a FULL frame every 10 ms meanwhile
            stream.inbox += p.encode(p.FULL, 1 + tick // 10, frames.pop(0))
        controller.step()
        clock.advance(1)
    assert sounding(pwm) == steps
    assert controller.applied == 28 and controller.bad == 0
    assert controller.pixels() == bytes([28]) * 24


def test_a_bad_tone_is_naked_and_changes_nothing() -> None:
    clock = emulator.ManualClock()
    pwm = RecordingPwm(clock)
    controller, stream, clock = controller_with(buzzer.Buzzer(pwm, clock))
    before = list(pwm.changes)
    controller.feed(p.encode(p.TONE, 0, b"\xff\x00\x13\x00\x0a"))  # 19 Hz
    (nak,) = p.Decoder().feed(bytes(stream.sent))
    assert nak.kind == p.NAK and p.parse_nak(nak.payload)[1] == p.NAK_BAD_PAYLOAD
    assert pwm.changes == before and controller.bad == 1


def test_without_a_buzzer_a_tone_gets_one_error_saying_so() -> None:
    controller, stream, _clock = controller_with(None)
    for seq in range(3):
        controller.feed(p.encode(p.TONE, seq, p.tone_payload(255, tone_steps("commit"))))
    (error,) = p.Decoder().feed(bytes(stream.sent))
    code, text = p.parse_error(error.payload)
    assert code == p.ERR_NO_BUZZER and "BUZZER_PIN" in text
    assert controller.bad == 0  # a well-formed message, not noise


def test_the_firmware_config_names_a_free_buzzer_pin() -> None:
    from tools.hardware.pico import PICO_PIN, firmware_settings

    settings = firmware_settings()
    pin = settings["BUZZER_PIN"]
    assert pin in PICO_PIN  # on the module's edge
    taken = {settings["LED_PIN"], settings["UART_TX"], settings["UART_RX"], 25}
    assert pin not in taken


# --- under MicroPython -------------------------------------------------------------------


def test_the_buzzer_plays_every_cue_under_micropython() -> None:
    cues = {name: tone_steps(name) for name in CUES}
    script = REPO / "tests" / "micropython" / "check_buzzer.py"
    result = run_micropython(script, json.dumps(cues))
    assert result.returncode == 0, result.stderr + result.stdout
    heard = json.loads(result.stdout.split("RESULT ", 1)[1])
    assert heard["cues"] == {name: [list(step) for step in steps] for name, steps in cues.items()}
    assert heard["checks"] >= 6
