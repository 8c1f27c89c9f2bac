"""The game's events as readable rows (``boardctl history``)."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from boardctl.game.events import describe
from boardctl.game.state import GameState


@dataclass(frozen=True, slots=True)
class Entry:
    """One event as it happened: its record fields and the state right after it."""

    seq: int
    at: float
    event: dict[str, Any]
    after: GameState
    undid: dict[str, Any] | None = None  # for undo and redo: the event undone or redone


def history_row(entry: Entry) -> dict[str, Any]:
    """One JSON-able row: seq, time, op, readable text, the event and the scores after it."""
    names = entry.after.setup.track_names()
    return {
        "seq": entry.seq,
        "at": entry.at,
        "time": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(entry.at)),
        "op": entry.event.get("op"),
        "text": _text(entry, names),
        "event": entry.event,
        "game": entry.after.game_number,
        "phase": entry.after.phase,
        "scores": [t.front for t in entry.after.tracks],
    }


_NEXT_PHASE = {"play": "the play", "show": "the show"}  # otherwise "next" began a game


def _text(entry: Entry, names: tuple[str, ...]) -> str:
    text = describe(entry.event, names)
    if entry.event.get("op") == "cut" and entry.after.dealer_track is not None:
        text += f", {names[entry.after.dealer_track]} deals"
    if entry.event.get("op") == "next":
        text += ": " + _NEXT_PHASE.get(entry.after.phase, f"game {entry.after.game_number}")
    if entry.undid is not None:
        text += f": {describe(entry.undid, names)}"
    return text


def format_history(rows: Iterable[dict[str, Any]]) -> str:
    """A plain-text table of history rows, one line each."""
    lines = []
    for row in rows:
        scores = "-".join(str(s) for s in row["scores"])
        lines.append(f"{row['seq']:>6}  {row['time']}  {row['text']:<48}  {scores}")
    if not lines:
        return "no events yet"
    return "\n".join(lines)
