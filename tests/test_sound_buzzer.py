"""Cues on a buzzer: gpiozero's TonalBuzzer on mock PWM pins, played off the caller's thread."""

from __future__ import annotations

import datetime
import threading
import time
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from boardctl.errors import ConfigError
from boardctl.refusals import Refusal
from boardctl.sound.buzzer import CuePlayer, QuietHours, TonalBuzzerOutput
from boardctl.sound.cues import CUES, refusal_cue

BUZZER_PIN = 12  # PWM0 on the 40-pin header


class RecordingPWMPin(MockPWMPin):  # type: ignore[misc]
    """A mock PWM pin that records every (time, frequency, duty) it is set to."""

    def __init__(self, factory: Any, info: Any) -> None:
        super().__init__(factory, info)
        self.played: list[tuple[float, float | None, float]] = []

    def _change_state(self, value: float) -> bool:
        changed: bool = super()._change_state(value)
        self.played.append((time.monotonic(), self._frequency, float(value)))
        return changed


def tones(pin: RecordingPWMPin) -> list[float | None]:
    """The sequence of sounding frequencies (None for silence), repeats folded."""
    out: list[float | None] = [None]
    for _, frequency, duty in pin.played:
        sound = round(frequency) if frequency is not None and duty > 0 else None
        if not out or out[-1] != sound:
            out.append(sound)
    return out


def expected(name: str) -> list[float | None]:
    out: list[float | None] = [None]
    for note in CUES[name]:
        sound = None if note.frequency is None else round(note.frequency)
        if out[-1] != sound:
            out.append(sound)
    if out[-1] is not None:
        out.append(None)
    return out


@pytest.mark.parametrize("name", sorted(CUES))
def test_each_cue_plays_its_tone_sequence_on_the_pwm_pin(factory: MockFactory, name: str) -> None:
    player = CuePlayer(TonalBuzzerOutput(BUZZER_PIN, pin_factory=factory), tempo=0.2)
    pin = factory.pin(BUZZER_PIN)
    pin.played.clear()
    try:
        assert player.play(name)
        assert player.wait_idle(5)
        assert tones(pin) == expected(name)
    finally:
        player.close()


def test_play_returns_at_once_and_the_tone_is_timed_by_the_worker(factory: MockFactory) -> None:
    player = CuePlayer(TonalBuzzerOutput(BUZZER_PIN, pin_factory=factory))
    pin = factory.pin(BUZZER_PIN)
    try:
        pin.played.clear()
        start = time.monotonic()
        player.play("win")
        assert time.monotonic() - start < 0.05  # the fanfare lasts almost a second
        assert player.wait_idle(3)
        sounding = [at for at, freq, duty in pin.played if freq is not None and duty > 0]
        first, last = sounding[0], pin.played[-1][0]
        assert last - first == pytest.approx(sum(n.seconds for n in CUES["win"]), abs=0.15)
        assert threading.current_thread().name != "boardctl-buzzer"
    finally:
        player.close()


def test_a_new_cue_cuts_the_one_playing_short(factory: MockFactory) -> None:
    player = CuePlayer(TonalBuzzerOutput(BUZZER_PIN, pin_factory=factory))
    pin = factory.pin(BUZZER_PIN)
    try:
        player.play("win")
        time.sleep(0.05)
        player.play("commit")
        assert player.wait_idle(2)
        heard = [t for t in tones(pin) if t is not None]
        assert heard[-1] == round(CUES["commit"][0].frequency or 0)
        assert len(heard) < len({n.frequency for n in CUES["win"] if n.frequency}) + 1
    finally:
        player.close()


def test_volume_sets_the_duty_cycle(factory: MockFactory) -> None:
    player = CuePlayer(TonalBuzzerOutput(BUZZER_PIN, pin_factory=factory), volume=0.4)
    pin = factory.pin(BUZZER_PIN)
    try:
        player.play(refusal_cue(Refusal.IMPOSSIBLE))
        assert player.wait_idle(2)
        duties = {duty for _, freq, duty in pin.played if freq is not None and duty > 0}
        assert duties == {0.2}
    finally:
        player.close()


def test_muted_and_zero_volume_are_silent(factory: MockFactory) -> None:
    for kwargs in ({"muted": True}, {"volume": 0.0}):
        player = CuePlayer(TonalBuzzerOutput(BUZZER_PIN, pin_factory=factory), **kwargs)
        pin = factory.pin(BUZZER_PIN)
        pin.played.clear()
        try:
            assert not player.play("commit")
            assert player.wait_idle(1)
            assert all(duty == 0 for _, _, duty in pin.played)
        finally:
            player.close()


def test_quiet_hours_span_midnight() -> None:
    quiet = QuietHours.parse("22:00-08:00")
    assert quiet is not None
    assert datetime.time(23, 30) in quiet and datetime.time(7, 59) in quiet
    assert datetime.time(8, 0) not in quiet and datetime.time(12, 0) not in quiet
    assert QuietHours.parse("") is None
    with pytest.raises(ConfigError, match=r"sound\.quiet_hours"):
        QuietHours.parse("late")


def test_no_cue_sounds_in_quiet_hours(factory: MockFactory) -> None:
    player = CuePlayer(
        TonalBuzzerOutput(BUZZER_PIN, pin_factory=factory),
        quiet_hours=QuietHours.parse("22:00-08:00"),
        local_time=lambda: datetime.time(23, 0),
    )
    try:
        assert not player.play("win")
    finally:
        player.close()


def test_an_unknown_cue_is_refused(factory: MockFactory) -> None:
    player = CuePlayer(TonalBuzzerOutput(BUZZER_PIN, pin_factory=factory))
    try:
        with pytest.raises(ConfigError, match="no cue named"):
            player.play("applause")
    finally:
        player.close()
