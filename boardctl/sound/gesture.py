"""The score on request: a track's encoder turned back with nothing pending (it does nothing on the
LEDs) asks the board to say the score; the keyboard sends the same turn."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from boardctl.inputs.events import InputEvent, Turn
from boardctl.inputs.panel import Panel


@dataclass(frozen=True, slots=True)
class ScoreGesture:
    """An input listener (``ServiceLoop.input_listeners``) that calls ``say_score``."""

    panel: Panel
    say_score: Callable[[], None]

    def __call__(self, event: InputEvent) -> None:
        """Say the score if ``event`` (not yet given to the panel) is the score gesture."""
        panel = self.panel
        if not isinstance(event, Turn) or event.steps >= 0 or panel.mode != "entry":
            return
        if 0 <= event.track < panel.tracks and panel.pending[event.track] == 0:
            self.say_score()
