"""What a button command means in the current phase of a guided game.

Buttons cannot name every engine command, so the phase decides: during the
cut, a track's entry means "this track deals" and ``next`` draws the dealer
at random; during the show, ``next`` with nothing pending enters a count of 0
for the track whose count is due. While the board asks about the last entry
(``status["ask"]``, see :func:`boardctl.game.entries.ask_about`), the redo
gesture (undo held), which has nothing to redo then, files that entry as the
other kind (``refile``). And while a finished game's result waits for each
side's confirmation (``confirm_result``), a track's press is that side's
``confirm`` (the panel asks :func:`waiting_signoff`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from boardctl.cribbage.variants import get_variant
from boardctl.game.commands import BoardCommand, Cut, Next, Peg, Redo, Refile
from boardctl.view import BoardView


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


def result_signoff(status: Mapping[str, object]) -> tuple[int, ...] | None:
    """The tracks that have confirmed while the finished game's result waits for every
    side's confirmation (``confirm_result`` on), given the engine's ``status``; None when
    no result waits (no game over, no confirmation asked, or every side confirmed)."""
    if not status.get("confirm_result") or status.get("winner") is None:
        return None
    tracks, confirmed = status.get("tracks"), status.get("confirmed")
    done = tuple(t for t in confirmed if isinstance(t, int)) if isinstance(confirmed, list) else ()
    count = len(tracks) if isinstance(tracks, list) else 0
    return done if len(done) < count else None


def waiting_signoff(
    view: BoardView, status: Callable[[], Mapping[str, object]]
) -> tuple[int, ...] | None:
    """:func:`result_signoff`, reading the status only when ``view`` shows a game won."""
    return None if view.winner is None else result_signoff(status())
