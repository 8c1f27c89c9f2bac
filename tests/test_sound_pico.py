"""``[sound] buzzer = "pico"``: each cue goes to the LED controller as one TONE message.

The cue steps come from the one cue table; ``PicoCues`` gates them by volume, mute and
quiet hours as the Pi-pin buzzer does; ``PicoLink.play_tones`` sends them over a real
pseudo-terminal to the firmware's controller (``firmware/emulator.py``), whose buzzer
(``firmware/buzzer.py``) drives a recording PWM; and the service sends the commit click
and the undo figure when a button commits or undoes an entry.
"""

from __future__ import annotations

import datetime
import importlib
import logging
import re
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from gpiozero.pins.mock import MockFactory

from boardctl.config import PICO_BUZZER, parse_config
from boardctl.errors import ConfigError, ProtocolError
from boardctl.link import RecordingLink, open_link, protocol
from boardctl.link.serial_link import PicoLink
from boardctl.sound.announcer import Announcer
from boardctl.sound.build import build_announcer
from boardctl.sound.buzzer import QuietHours
from boardctl.sound.cues import CUES, HIGHEST, LOWEST, tone_steps
from boardctl.sound.pico import PicoCues, tone_level
from tests.conftest import REPO
from tests.test_e2e import FAST, ManualClock, Rig
from tests.test_sound_buzzer import expected

sys.path.insert(0, str(REPO / "firmware"))
emulator = importlib.import_module("emulator")  # (first: it provides `import protocol`)
buzzer = importlib.import_module("buzzer")
if TYPE_CHECKING:
    from emulator import PtyDevice


# --- the steps: the same table as the TonalBuzzer back-end ----------------------------


@pytest.mark.parametrize("name", sorted(CUES))
def test_a_cue_s_steps_are_its_notes_in_whole_hz_and_ms(name: str) -> None:
    steps = tone_steps(name)
    notes = CUES[name]
    assert len(steps) == len(notes) <= protocol.MAX_TONE_STEPS
    for (hz, ms), note in zip(steps, notes, strict=True):
        assert ms == round(note.seconds * 1000) >= 1
        assert hz == (0 if note.frequency is None else round(note.frequency))
        assert hz == 0 or LOWEST <= hz <= HIGHEST
    # What the Pi-pin back-end plays (tests/test_sound_buzzer.py's expectation), in order.
    sounding = [hz or None for hz, _ms in steps]
    folded = [None] + [f for i, f in enumerate(sounding) if i == 0 or f != sounding[i - 1]]
    assert [*folded, None] == expected(name)
    protocol.tone_payload(255, steps)  # it fits one TONE message


# --- PicoCues on a recording link -------------------------------------------------------


class ToneRecorder:
    """A link (as ``PicoLink.play_tones``) that keeps every TONE it is asked for."""

    def __init__(self, up: bool = True) -> None:
        self.up = up
        self.tones: list[tuple[int, list[tuple[int, int]]]] = []
        self.threads: list[str] = []

    def play_tones(self, level: int, steps: list[tuple[int, int]]) -> bool:
        self.threads.append(threading.current_thread().name)
        if self.up:
            self.tones.append((level, steps))
        return self.up


def test_each_cue_is_one_tone_at_the_volume_s_level() -> None:
    link = ToneRecorder()
    cues = PicoCues(link, volume=0.5)
    for name in CUES:
        assert cues.play(name)
    assert link.tones == [(128, tone_steps(name)) for name in CUES]
    assert set(link.threads) == {threading.current_thread().name}  # no thread of its own
    assert len(link.threads) == len(CUES)  # each handed to the link once
    assert [tone_level(v) for v in (0.0, 0.25, 1.0, 1.5, -1.0)] == [0, 64, 255, 255, 0]


def test_mute_quiet_hours_and_volume_zero_send_nothing() -> None:
    link = ToneRecorder()
    at_night = PicoCues(
        link,
        quiet_hours=QuietHours.parse("22:00-08:00"),
        local_time=lambda: datetime.time(23, 30),
    )
    assert not at_night.play("commit")
    cues = PicoCues(link, muted=True)
    assert not cues.play("commit")
    cues.muted, cues.volume = False, 0.0
    assert not cues.play("win")
    assert link.tones == []
    cues.volume = 1.0
    assert cues.play("win") and link.tones == [(255, tone_steps("win"))]
    with pytest.raises(ConfigError, match="no cue named 'fanfare'"):
        cues.play("fanfare")


def test_a_cue_the_link_cannot_take_is_dropped_and_close_silences() -> None:
    link = ToneRecorder(up=False)
    cues = PicoCues(link)
    assert not cues.play("commit")
    assert link.tones == [] and len(link.threads) == 1  # handed over once, not taken
    link.up = True
    cues.close()
    assert link.tones == [(0, [])]  # an empty TONE: silence now


def test_a_link_without_a_controller_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"needs the serial link to it .* not RecordingLink"):
        PicoCues(RecordingLink())
    config = parse_config({"sound": {"buzzer": "pico"}}).sound
    with pytest.raises(ConfigError, match=re.escape('link.kind = "serial"')):
        build_announcer(config, link=None)


# --- [sound] buzzer = "pico" --------------------------------------------------------------


def test_the_config_takes_pico_and_needs_the_serial_link() -> None:
    config = parse_config({"sound": {"buzzer": "pico", "volume": 0.3}})
    assert config.sound.buzzer == PICO_BUZZER
    assert parse_config({"sound": {"buzzer": "pico"}, "pins": {"undo": 12}}).sound.buzzer
    with pytest.raises(
        ConfigError, match=re.escape('board.toml: sound.buzzer = "pico" plays on the')
    ):
        parse_config({"sound": {"buzzer": "pico"}, "link": {"kind": "null"}}, "board.toml")
    with pytest.raises(ConfigError, match=r"BCM GPIO number \(2\.\.27\), \"pico\" .* not 'Pico'"):
        parse_config({"sound": {"buzzer": "Pico"}})


# --- PicoLink over a pty to the firmware's controller --------------------------------------


class StampedPwm:
    """``machine.PWM``'s two calls, each change stamped with ``time.monotonic``."""

    def __init__(self) -> None:
        self.hz = 0
        self.changes: list[tuple[float, int, int]] = []
        self._lock = threading.Lock()

    def freq(self, value: int) -> None:
        self.hz = value

    def duty_u16(self, value: int) -> None:
        with self._lock:
            self.changes.append((time.monotonic(), self.hz, value))

    def sounds(self) -> list[int]:
        """The frequencies sounded, in order (0 for a rest)."""
        with self._lock:
            return [hz if duty else 0 for _t, hz, duty in self.changes]

    def wait_silent_after(self, count: int, timeout: float = 5.0) -> bool:
        """Wait until at least ``count`` changes happened and the last is silence."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if len(self.changes) >= count and self.changes[-1][2] == 0:
                    return True
            time.sleep(0.01)
        return False


@pytest.fixture
def device() -> Iterator[tuple[PtyDevice, StampedPwm]]:
    pwm = StampedPwm()
    piezo = buzzer.Buzzer(pwm, emulator.MonotonicClock())
    with emulator.PtyDevice(led_count=8, buzzer=piezo) as dev:
        yield dev, pwm


def connected(link: Any, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while link.device is None or not link.connected:
        assert time.monotonic() < deadline, f"the link never connected: {link.state}"
        time.sleep(0.01)


def figure(steps: list[tuple[int, int]]) -> list[int]:
    """What the PWM is set to for ``steps``: each step's tone (0 a rest), then silence."""
    return [hz for hz, _ms in steps] + [0]


def test_every_cue_reaches_the_controller_s_buzzer_over_the_pty(
    device: tuple[PtyDevice, StampedPwm],
) -> None:
    dev, pwm = device
    link = open_link("serial", path=dev.path, heartbeat=0.2)
    try:
        connected(link)
        cues = PicoCues(link)
        start = len(pwm.changes)
        for name in ("refusal.too_many_points", "commit", "undo"):
            count = len(pwm.changes)
            sent = time.monotonic()
            assert cues.play(name)
            want = figure(tone_steps(name))
            assert pwm.wait_silent_after(count + len(want)), pwm.sounds()[count:]
            assert pwm.sounds()[count:] == want
            # Timed by the controller: each step lasts at least its length.
            stamps = [t for t, _hz, _duty in pwm.changes[count:]]
            for (_hz, ms), begin, end in zip(tone_steps(name), stamps, stamps[1:], strict=False):
                assert end - begin >= ms / 1000 - 0.002
            assert stamps[0] >= sent
        assert link.connected
        assert dev.controller is not None and dev.controller.bad == 0
        assert len(pwm.changes) - start == sum(
            len(figure(tone_steps(n))) for n in ("refusal.too_many_points", "commit", "undo")
        )
    finally:
        link.close()


def test_a_newer_cue_cuts_the_one_playing_short(device: tuple[PtyDevice, StampedPwm]) -> None:
    dev, pwm = device
    link = open_link("serial", path=dev.path, heartbeat=0.2)
    try:
        connected(link)
        cues = PicoCues(link)
        count = len(pwm.changes)
        assert cues.play("win")
        deadline = time.monotonic() + 5
        while 1047 not in pwm.sounds()[count:]:
            assert time.monotonic() < deadline
            time.sleep(0.005)
        assert cues.play("commit")
        assert pwm.wait_silent_after(count + 3)
        sounds = pwm.sounds()[count:]
        assert sounds[-2:] == [2093, 0]
        assert 2093 not in sounds[:-2] and 1568 not in sounds  # the fanfare stopped early
    finally:
        link.close()


def test_no_tone_before_the_controller_said_hello_nor_to_an_old_firmware(
    device: tuple[PtyDevice, StampedPwm],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    dev, pwm = device
    link = PicoLink(path=dev.path, heartbeat=0.2, start=False)
    assert not link.play_tones(255, tone_steps("commit"))  # not even open
    link.close()
    with pytest.raises(ProtocolError, match="tone of 5 Hz"):
        link.play_tones(255, [(5, 10)])
    ledctl = importlib.import_module("ledctl")
    monkeypatch.setattr(ledctl, "FIRMWARE_VERSION", (2, 0, 0))  # its HELLOs say 2.0.0 now
    old = open_link("serial", path=dev.path, heartbeat=0.2)
    try:
        assert isinstance(old, PicoLink)
        deadline = time.monotonic() + 5
        while old.device is None or old.device[0] != (2, 0, 0):  # (the answer to our HELLO)
            assert time.monotonic() < deadline
            time.sleep(0.01)
        count = len(pwm.changes)
        with caplog.at_level(logging.WARNING, logger="boardctl.link"):
            assert not old.play_tones(255, tone_steps("commit"))
            assert not old.play_tones(255, tone_steps("commit"))
        warnings = [r.getMessage() for r in caplog.records if "has no buzzer" in r.getMessage()]
        assert warnings == [
            "LED controller firmware 2.0.0 has no buzzer (TONE needs 2.1.0): "
            "update it with `boardctl firmware install`"
        ]
        time.sleep(0.1)
        assert len(pwm.changes) == count  # nothing was sent
    finally:
        old.close()


def test_a_controller_without_a_buzzer_says_so_in_the_log(caplog: pytest.LogCaptureFixture) -> None:
    with emulator.PtyDevice(led_count=8) as dev:
        link = open_link("serial", path=dev.path, heartbeat=0.2)
        try:
            connected(link)
            with caplog.at_level(logging.WARNING, logger="boardctl.link"):
                assert PicoCues(link).play("commit")  # sent: the controller decides
                deadline = time.monotonic() + 5
                while not any("no buzzer wired" in r.getMessage() for r in caplog.records):
                    assert time.monotonic() < deadline
                    time.sleep(0.01)
            assert link.connected
        finally:
            link.close()


# --- the service ----------------------------------------------------------------------------


def test_the_service_sends_the_commit_click_and_the_undo_figure(
    tmp_path: Path, mock_factory: MockFactory, device: tuple[PtyDevice, StampedPwm]
) -> None:
    dev, pwm = device
    config = parse_config(
        {
            **FAST,
            "game": {"mode": "free"},
            "link": {"kind": "serial", "device": dev.path},
            "sound": {"buzzer": "pico", "volume": 0.5},
        }
    )
    rig = Rig(tmp_path, mock_factory, config, link=None, clock=ManualClock())
    try:
        assert isinstance(rig.board.sound, Announcer)
        assert isinstance(rig.board.sound.cues, PicoCues)
        connected(rig.loop.link)
        count = len(pwm.changes)
        rig.enter(1, 2)
        rig.wait_for(lambda: rig.status()["tracks"][0]["front"] == 2)
        assert pwm.wait_silent_after(count + 2)
        assert pwm.sounds()[count:] == figure(tone_steps("commit"))
        assert {d for _t, _hz, d in pwm.changes[count:] if d} == {buzzer.duty_of(128)}
        count = len(pwm.changes)
        rig.press("undo")
        rig.wait_for(lambda: rig.status()["tracks"][0]["front"] == 0)
        assert pwm.wait_silent_after(count + 3)
        assert pwm.sounds()[count:] == figure(tone_steps("undo"))
    finally:
        rig.close()
