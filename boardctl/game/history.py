"""The game's events as readable rows (``boardctl history``)."""

from __future__ import annotations

import time
from dataclasses import dataclass

from boardctl.game import JsonObject
from boardctl.game.commands import Command, Confirm, Cut, NewGame, Next, Peg, Refile, Set
from boardctl.game.state import GameState
from boardctl.store.journal import span

Row = JsonObject


@dataclass(frozen=True, slots=True)
class Entry:
    """One event as it happened: its record fields and the state right after it."""

    seq: int
    at: float
    event: Command
    after: GameState
    undid: Command | None = None  # for undo and redo: the event undone or redone
    clock: float | None = None  # the wall clock's reading when it was behind (see journal)


def describe(event: Command, names: tuple[str, ...] = ()) -> str:
    """One readable line for an event, e.g. ``"Track 1 +3 (pegging)"``."""

    def name(track: int) -> str:
        return names[track] if 0 <= track < len(names) else f"track {track}"

    if isinstance(event, Peg):
        points = event.points or 0
        sign = "+" if points >= 0 else ""
        return f"{name(event.track)} {sign}{points} ({event.kind}{_shown(event)})"
    if isinstance(event, Cut) and event.dealer is None and event.starter is not None:
        return f"the starter: {event.starter}"
    if isinstance(event, Cut):
        how = "drawn" if event.drawn else "set"
        seat = None if event.dealer is None else event.dealer + 1  # seats count from 1
        if event.cards is not None:
            cut = ", ".join(f"seat {n} {card}" for n, card in enumerate(event.cards, start=1))
            how = f"cut: {cut}; the lowest deals"
        return f"first dealer: seat {seat} ({how})"
    if isinstance(event, NewGame):
        length = f"match to {event.match} game points" if event.match else "one game"
        return (
            f"new game: {event.variant} to {event.target}, "
            f"{event.mode}, preset {event.preset}, {length}"
        )
    if isinstance(event, Set):
        return f"set {event.key} = {event.value!r}"
    if isinstance(event, Refile) and event.track is not None:
        return f"{name(event.track)} {event.points}: filed as {event.kind} (the board asked)"
    if isinstance(event, Confirm):
        return f"{name(event.track)} confirms the result"
    return event.op


def _shown(event: Peg) -> str:
    """The cards an entry named: ``: 5H 5D JS QC, starter 5S`` (or nothing)."""
    if event.cards is not None:
        return f": {' '.join(event.cards)}, starter {event.starter}"
    if event.starter is not None:
        return f": starter {event.starter}"
    return ""


def history_row(entry: Entry) -> Row:
    """One JSON-able row: seq, time, op, text, the event, the scores after it (and ``count``, the
    breakdown of a count that named its cards: items, points, total, spoken)."""
    names = entry.after.setup.track_names()
    row: Row = {
        "seq": entry.seq,
        "at": entry.at,
        "time": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(entry.at)),  # the local time
        "op": entry.event.op,
        "text": _text(entry, names),
        "event": entry.event.to_json(),
        "game": entry.after.game_number,
        "phase": entry.after.phase,
        "scores": [t.front for t in entry.after.tracks],
    }
    if entry.clock is not None:
        row["clock_behind"] = round(entry.at - entry.clock, 3)
    event = entry.event
    if isinstance(event, Peg) and event.cards and event.starter and event.kind in ("hand", "crib"):
        from boardctl.cribbage.hand import score_hand
        from boardctl.cribbage.rules import scoring_for
        from boardctl.cribbage.speech import say_count

        scoring = scoring_for(entry.after.setup.house_rules)
        score = score_hand(event.cards, event.starter, crib=event.kind == "crib", scoring=scoring)
        row["count"] = {**score.as_dict(), "said": say_count(score)}
    return row


_NEXT_PHASE = {"play": "the play", "show": "the show"}  # otherwise "next" began a game


def _text(entry: Entry, names: tuple[str, ...]) -> str:
    text = describe(entry.event, names)
    if isinstance(entry.event, Cut) and entry.event.dealer is not None:
        if entry.after.dealer_track is not None:
            text += f", {names[entry.after.dealer_track]} deals"
        if entry.event.starter is not None:
            text += f", the starter {entry.event.starter}"
    if isinstance(entry.event, Next):
        text += ": " + _NEXT_PHASE.get(entry.after.phase, f"game {entry.after.game_number}")
    if entry.undid is not None:
        text += f": {describe(entry.undid, names)}"
    if entry.clock is not None:
        text += f" [clock {span(entry.at - entry.clock)} behind: the last entry's time kept]"
    return text
