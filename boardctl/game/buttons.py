"""What a button press means in the phase the game is in (docs/scorekeeping.md, "Buttons").

During the cut a track's entry deals and ``next`` draws; in the show ``next`` enters a 0 count;
while the board asks (``state.ask``) redo refiles; while a result waits (``confirm_result``) a
track's press confirms it (:func:`result_signoff`).
"""

from __future__ import annotations

from boardctl.game.commands import BoardCommand, Cut, Next, Peg, Redo, Refile
from boardctl.game.machine import awaiting
from boardctl.game.state import GameState


def button_meaning(command: BoardCommand, state: GameState, *, can_redo: bool) -> BoardCommand:
    """``command`` from the panel as the engine should get it in ``state`` (``can_redo``:
    an undone event waits to be redone)."""
    if isinstance(command, Redo) and state.ask is not None and not can_redo:
        return Refile()  # the board asks: the one press that files the entry as the other kind
    if not isinstance(command, Peg | Next):
        return command
    if state.phase == "cut":
        if isinstance(command, Next):
            return Cut()
        teams = state.setup.variant.teams  # a track's press: the cut of its first seat
        return Cut(teams[command.track][0] if command.track < len(teams) else command.track)
    to_count = state.to_count
    if state.phase == "show" and isinstance(command, Next) and to_count is not None:
        return Peg(to_count, 0)
    return command


def result_signoff(state: GameState) -> tuple[int, ...] | None:
    """The tracks that confirmed while the result waits (``confirm_result``), else None."""
    return state.confirmed if awaiting(state) else None
