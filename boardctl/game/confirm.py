"""Signing off a result: with ``confirm_result`` on, each side confirms a finished game.

When a track reaches the target the game is over but not yet *final*: one
``confirm`` per track (a player, or a team) is awaited. Until every track
has confirmed, undo still takes back a confirmation or the win, and ``next``
is refused; once every track has, the result is settled and only ``next`` or
``new_game`` are accepted (nothing can change it any more).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from boardctl.errors import EntryError
from boardctl.refusals import Refusal

if TYPE_CHECKING:
    from boardctl.game.state import GameState

#: What may follow a settled result.
AFTER_SETTLED = ("next", "new_game")


def awaiting(state: GameState) -> tuple[int, ...]:
    """Tracks whose confirmation of the finished game is still awaited (none if not asked)."""
    if not state.setup.confirm_result or state.winner is None:
        return ()
    return tuple(t for t in range(len(state.tracks)) if t not in state.confirmed)


def settled(state: GameState) -> bool:
    """True once every track has confirmed the finished game (confirmation on)."""
    return state.setup.confirm_result and state.winner is not None and not awaiting(state)


def check_open(state: GameState, op: str) -> None:
    """Refuse what a settled result or an awaited confirmation does not allow."""
    if state.winner is None or not state.setup.confirm_result:
        return  # the common case, on every command: nothing to check
    if op == "next" and awaiting(state):
        names = state.setup.track_names()
        wait = ", ".join(names[t] for t in awaiting(state))
        raise EntryError(f"the result waits for {wait} to confirm it (`boardctl confirm TRACK`)")
    if settled(state) and op not in AFTER_SETTLED:
        raise EntryError(
            "the result is confirmed by every side; press menu (`boardctl next`) for the next game",
            Refusal.GAME_OVER,
        )


def confirmed(state: GameState, track: int) -> GameState:
    """``state`` with ``track``'s confirmation; :class:`EntryError` if it is not due."""
    if not state.setup.confirm_result:
        raise EntryError(
            "results need no confirmation (`boardctl set confirm_result true` asks for it)"
        )
    if state.winner is None:
        raise EntryError("there is no result to confirm: the game is not over")
    tracks = len(state.tracks)
    if not 0 <= track < tracks:
        raise EntryError(
            f"there is no track {track + 1}: this game has {tracks} tracks", Refusal.NO_SUCH_TRACK
        )
    if track in state.confirmed:
        raise EntryError(f"{state.setup.track_names()[track]} has already confirmed the result")
    return state.evolve(confirmed=tuple(sorted((*state.confirmed, track))))
