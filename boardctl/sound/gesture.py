"""The score on request: a track's encoder turned back with nothing pending (it does nothing on the
LEDs) asks the board to say the score; the keyboard sends the same turn."""

from __future__ import annotations

from collections.abc import Callable

from boardctl.inputs.events import InputEvent, Turn
from boardctl.inputs.panel import Panel


def score_gesture(panel: Panel, say_score: Callable[[], None]) -> Callable[[InputEvent], None]:
    """An input listener (``ServiceLoop.input_listeners``) that calls ``say_score`` if an event
    (not yet given to the panel) is the score gesture."""

    def listener(event: InputEvent) -> None:
        if not isinstance(event, Turn) or event.steps >= 0 or panel.mode != "entry":
            return
        if 0 <= event.track < panel.tracks and panel.pending[event.track] == 0:
            say_score()

    return listener
