"""Cues on a piezo wired to the LED controller (``[sound] buzzer = "pico"``): each cue of
:data:`boardctl.sound.cues.CUES` as one TONE message, written from the caller's thread and timed by
the Pico; dropped, never sent late, while no controller takes TONE (docs/sound.md, "On the Pico").
"""

from __future__ import annotations

from typing import Any

from boardctl.errors import ConfigError
from boardctl.sound.buzzer import CueGate
from boardctl.sound.cues import tone_steps


def tone_level(volume: float) -> int:
    """A TONE's level (0-255: 255 is a 50 % duty cycle, the loudest) for ``volume`` 0-1."""
    return round(255 * min(max(volume, 0.0), 1.0))


class PicoCues(CueGate):
    """Named cues as TONE messages on ``link`` (see the module docstring)."""

    def __init__(self, link: Any, **gate: Any) -> None:
        if not hasattr(link, "play_tones"):  # (PicoLink.play_tones)
            raise ConfigError(
                'sound.buzzer = "pico" plays on the boardctl LED controller: it needs the '
                f'serial link to it (link.kind = "serial"), not {type(link).__name__}'
            )
        super().__init__(**gate)
        self.link = link

    def play(self, name: str) -> bool:
        """Send cue ``name`` to the controller; ``False`` if silent now or not sent (no
        controller, or an old firmware)."""
        if not self.sounds(name):
            return False
        return bool(self.link.play_tones(tone_level(self.volume), tone_steps(name)))

    def close(self) -> None:
        """Silence the piezo (an empty TONE) if the link is still up; the link is the
        service's to close."""
        self.link.play_tones(0, [])
