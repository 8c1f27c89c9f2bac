"""What a button command means in the current phase of a guided game.

Buttons cannot name every engine command, so the phase decides: during the
cut, a track's entry means "this track deals" and ``next`` draws the dealer
at random; during the show, ``next`` with nothing pending enters a count of 0
for the track whose count is due. While the board asks about the last entry
(``status["ask"]``, see :func:`boardctl.game.entries.ask_about`), the redo
gesture (undo held), which has nothing to redo then, files that entry as the
other kind (``refile``).
"""

from __future__ import annotations

from collections.abc import Mapping

from boardctl.cribbage.variants import get_variant
from boardctl.game.commands import BoardCommand, Cut, Next, Peg, Redo, Refile


def button_command(command: BoardCommand, status: Mapping[str, object]) -> BoardCommand:
    """``command`` from the panel as the engine should get it, given the ``status`` now."""
    if isinstance(command, Redo) and status.get("ask") and not status.get("redo"):
        return Refile()  # the board asks: the one press that files the entry as the other kind
    if not isinstance(command, Peg | Next):
        return command
    phase = status.get("phase")
    if phase == "cut":
        if isinstance(command, Next):
            return Cut()
        teams = get_variant(str(status.get("variant"))).teams
        track = command.track
        return Cut(teams[track][0] if track < len(teams) else track)
    to_count = status.get("to_count")
    if phase == "show" and isinstance(command, Next) and isinstance(to_count, int):
        return Peg(to_count, 0)
    return command
