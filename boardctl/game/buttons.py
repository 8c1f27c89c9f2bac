"""What a button press means in the phase the game is in: the engine's, from its state.

Buttons cannot name every engine command, so the phase decides: during the
cut, a track's entry means "this track deals" and ``next`` draws the dealer
at random; during the show, ``next`` with nothing pending enters a count of 0
for the track whose count is due. While the board asks about the last entry
(``state.ask``, see :func:`boardctl.game.entries.ask_about`), the redo gesture
(undo held), which has nothing to redo then, files that entry as the other
kind (``refile``). And while a finished game's result waits for each side's
confirmation (``confirm_result``), a track's press is that side's ``confirm``
(the panel asks :func:`result_signoff`, through the keeper).
"""

from __future__ import annotations

from boardctl.game.commands import BoardCommand, Cut, Next, Peg, Redo, Refile
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
        teams = state.setup.variant.teams
        track = command.track
        return Cut(teams[track][0] if track < len(teams) else track)
    to_count = state.to_count
    if state.phase == "show" and isinstance(command, Next) and to_count is not None:
        return Peg(to_count, 0)
    return command


def result_signoff(state: GameState) -> tuple[int, ...] | None:
    """The tracks that have confirmed while the finished game's result waits for every
    side's confirmation (``confirm_result`` on); None when no result waits (no game over,
    no confirmation asked, or every side confirmed)."""
    if not state.setup.confirm_result or state.winner is None:
        return None
    done = state.confirmed
    return done if len(done) < len(state.tracks) else None
