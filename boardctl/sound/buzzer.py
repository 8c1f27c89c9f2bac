"""Play cues on a buzzer without ever holding up the service loop: :class:`CuePlayer`'s worker
plays a cue on gpiozero's ``TonalBuzzer``, a newer cue cutting it short; :class:`CueGate` (shared
with :class:`boardctl.sound.pico.PicoCues`) applies volume, mute and quiet hours."""

from __future__ import annotations

import datetime
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from boardctl.errors import ConfigError
from boardctl.sound.cues import CUES, MID_TONE


class TonalBuzzerOutput:
    """A piezo buzzer on a GPIO pin (gpiozero ``TonalBuzzer``, two octaves around A5)."""

    def __init__(self, pin: int, *, pin_factory: Any = None) -> None:
        from gpiozero import TonalBuzzer
        from gpiozero.tones import Tone

        self.buzzer = TonalBuzzer(
            pin, mid_tone=Tone.from_frequency(MID_TONE), octaves=2, pin_factory=pin_factory
        )

    def tone(self, frequency: float | None, volume: float) -> None:
        """Sound ``frequency`` Hz at ``volume`` (0-1), or go silent for ``None``."""
        if frequency is None or volume <= 0:
            self.buzzer.stop()
            return
        pwm = self.buzzer.pwm_device  # as TonalBuzzer.play(), with the duty cycle by volume
        pwm.pin.frequency = frequency  # (every cue is within its range: cues.LOWEST-HIGHEST)
        pwm.value = 0.5 * min(volume, 1.0)  # duty 50 % is the loudest

    def close(self) -> None:
        self.buzzer.close()


@dataclass(frozen=True, slots=True)
class QuietHours:
    """A daily span (``22:00-08:00`` may pass midnight) when cues stay silent."""

    start: datetime.time
    end: datetime.time

    @classmethod
    def parse(cls, text: str) -> QuietHours | None:
        """``"22:00-08:00"`` -> a span (it may end at ``24:00``); ``""`` -> None (never quiet)."""
        if not text.strip():
            return None
        try:
            first, second = (part.strip() for part in text.split("-"))
            end = datetime.time(0) if second == "24:00" else datetime.time.fromisoformat(second)
            return cls(datetime.time.fromisoformat(first), end)
        except ValueError:
            raise ConfigError(
                f"sound.quiet_hours: {text!r} is not a span of the day like '22:00-08:00'"
            ) from None

    def __contains__(self, moment: datetime.time) -> bool:
        if self.start <= self.end:
            return self.start <= moment < self.end
        return moment >= self.start or moment < self.end


def wall_time() -> datetime.time:
    return datetime.datetime.now().time()


@dataclass(eq=False, kw_only=True)
class CueGate:
    """Whether a cue sounds now (volume, mute, quiet hours); ``play`` and ``close`` are
    the back-end's."""

    volume: float = 1.0
    muted: bool = False
    quiet_hours: QuietHours | None = None
    local_time: Callable[[], datetime.time] = wall_time

    def audible(self) -> bool:
        """Whether a cue would sound now (not muted, volume above 0, outside quiet hours)."""
        quiet = self.quiet_hours is not None and self.local_time() in self.quiet_hours
        return not self.muted and self.volume > 0 and not quiet

    def sounds(self, name: str) -> bool:
        """Whether cue ``name`` should sound now; a ConfigError for an unknown cue."""
        if name not in CUES:
            raise ConfigError(f"no cue named {name!r} (known: {', '.join(CUES)})")
        return self.audible()

    def play(self, name: str) -> bool:
        """Start cue ``name`` (cutting short the one playing); ``False`` if silent now."""
        raise NotImplementedError

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until nothing plays on the Pi's side (for tests and a clean exit)."""
        return True

    def close(self) -> None:
        """Go silent and release the buzzer."""


class CuePlayer(CueGate):
    """Plays named cues on ``output`` in a worker thread (see the module docstring)."""

    def __init__(self, output: TonalBuzzerOutput, *, tempo: float = 1.0, **gate: Any) -> None:
        super().__init__(**gate)
        self.output = output
        self._tempo = tempo
        self._wake = threading.Condition()
        self._next: str | None = None
        self._generation = 0
        self._closed = False
        self._idle = threading.Event()
        self._idle.set()
        self._thread = threading.Thread(target=self._run, name="boardctl-buzzer", daemon=True)
        self._thread.start()

    def play(self, name: str) -> bool:
        if not self.sounds(name):
            return False
        with self._wake:
            self._next = name
            self._generation += 1
            self._idle.clear()
            self._wake.notify()
        return True

    def wait_idle(self, timeout: float | None = None) -> bool:
        return self._idle.wait(timeout)

    def close(self) -> None:
        """Stop the worker and release the output."""
        with self._wake:
            self._closed = True
            self._generation += 1
            self._wake.notify()
        self._thread.join(2)
        self.output.close()

    def _run(self) -> None:
        while True:
            with self._wake:
                while self._next is None and not self._closed:
                    self._idle.set()
                    self._wake.wait()
                if self._closed:
                    self.output.tone(None, 0)
                    self._idle.set()
                    return
                name, generation, self._next = self._next, self._generation, None
            self._play(name, generation)

    def _play(self, name: str | None, generation: int) -> None:
        assert name is not None
        for note in CUES[name]:
            self.output.tone(note.frequency, self.volume)
            with self._wake:
                if self._wake.wait_for(
                    lambda: self._generation != generation, note.seconds * self._tempo
                ):
                    return  # cut short: the next cue (or close) takes over
        self.output.tone(None, 0)
