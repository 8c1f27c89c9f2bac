"""Build the sound of ``[sound]``: nothing at all unless a buzzer or a voice is configured."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from boardctl.config import PICO_BUZZER, SoundConfig
from boardctl.errors import ConfigError
from boardctl.sound.announcer import Announcer, Status
from boardctl.sound.buzzer import CueGate, CuePlayer, QuietHours, TonalBuzzerOutput
from boardctl.sound.pico import PicoCues
from boardctl.sound.voice import EspeakVoice, SpeechQueue


def wired(config: SoundConfig) -> bool:
    """Whether ``[sound]`` asks for any sound at all (the default does not)."""
    return config.buzzer is not None or config.voice != "none"


def _buzzer(pin: int, pin_factory: Any) -> TonalBuzzerOutput:
    """The piezo on ``pin``; on mock pins (no Pi) a mock PWM pin, so the virtual board runs."""
    from gpiozero.exc import GPIOZeroError
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    mock = isinstance(pin_factory, MockFactory)
    plain = mock and not issubclass(pin_factory.pin_class, MockPWMPin)
    before = pin_factory.pin_class if mock else None
    try:
        if plain:
            pin_factory.pin_class = MockPWMPin  # only while the buzzer's pin is made
        return TonalBuzzerOutput(pin, pin_factory=pin_factory)
    except GPIOZeroError as exc:
        raise ConfigError(f"sound.buzzer: GPIO {pin} cannot play tones ({exc})") from None
    finally:
        if plain:
            pin_factory.pin_class = before


def build_announcer(
    config: SoundConfig,
    *,
    status: Callable[[], Status] | None = None,
    pin_factory: Any = None,
    link: object = None,
) -> Announcer | None:
    """The announcer of ``config``, or None (no thread) when nothing is wired (``link`` carries
    ``buzzer = "pico"``'s cues)."""
    if not wired(config):
        return None
    quiet = QuietHours.parse(config.quiet_hours)
    gate: dict[str, Any] = {"volume": config.volume, "muted": config.mute, "quiet_hours": quiet}
    cues: CueGate | None = None
    if config.buzzer == PICO_BUZZER:
        cues = PicoCues(link, **gate)
    elif isinstance(config.buzzer, int):
        cues = CuePlayer(_buzzer(config.buzzer, pin_factory), **gate)
    speech = SpeechQueue(EspeakVoice(config)) if config.voice == "espeak" else None
    return Announcer(cues, speech, status=status, muted=config.mute, quiet_hours=quiet)
