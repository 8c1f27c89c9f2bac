"""The game's events as readable rows (``boardctl history``)."""

from __future__ import annotations

import time
from dataclasses import dataclass

from boardctl.game.commands import Command, Confirm, Cut, NewGame, Next, Peg, Set
from boardctl.game.jsontypes import JsonObject
from boardctl.game.state import GameState

Row = JsonObject


@dataclass(frozen=True, slots=True)
class Entry:
    """One event as it happened: its record fields and the state right after it."""

    seq: int
    at: float
    event: Command
    after: GameState
    undid: Command | None = None  # for undo and redo: the event undone or redone


def describe(event: Command, names: tuple[str, ...] = ()) -> str:
    """One readable line for an event, e.g. ``"Track 1 +3 (pegging)"``."""

    def name(track: int) -> str:
        return names[track] if 0 <= track < len(names) else f"track {track}"

    if isinstance(event, Peg):
        sign = "+" if event.points >= 0 else ""
        return f"{name(event.track)} {sign}{event.points} ({event.kind})"
    if isinstance(event, Cut):
        how = "drawn" if event.drawn else "set"
        seat = None if event.dealer is None else event.dealer + 1  # seats count from 1
        return f"first dealer: seat {seat} ({how})"
    if isinstance(event, NewGame):
        length = f"match to {event.match} game points" if event.match else "one game"
        return (
            f"new game: {event.variant} to {event.target}, "
            f"{event.mode}, preset {event.preset}, {length}"
        )
    if isinstance(event, Set):
        return f"set {event.key} = {event.value!r}"
    if isinstance(event, Confirm):
        return f"{name(event.track)} confirms the result"
    return event.op


def history_row(entry: Entry) -> Row:
    """One JSON-able row: seq, time, op, readable text, the event and the scores after it."""
    names = entry.after.setup.track_names()
    return {
        "seq": entry.seq,
        "at": entry.at,
        "time": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(entry.at)),
        "op": entry.event.op,
        "text": _text(entry, names),
        "event": entry.event.to_json(),
        "game": entry.after.game_number,
        "phase": entry.after.phase,
        "scores": [t.front for t in entry.after.tracks],
    }


_NEXT_PHASE = {"play": "the play", "show": "the show"}  # otherwise "next" began a game


def _text(entry: Entry, names: tuple[str, ...]) -> str:
    text = describe(entry.event, names)
    if isinstance(entry.event, Cut) and entry.after.dealer_track is not None:
        text += f", {names[entry.after.dealer_track]} deals"
    if isinstance(entry.event, Next):
        text += ": " + _NEXT_PHASE.get(entry.after.phase, f"game {entry.after.game_number}")
    if entry.undid is not None:
        text += f": {describe(entry.undid, names)}"
    return text
