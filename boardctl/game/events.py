"""Commands and events: the JSON-able dicts that drive the game.

A *command* comes from the control socket, the buttons or the demo; the
state machine turns an accepted command into an *event* (the same dict with
every default filled in, e.g. the inferred kind of an entry or the drawn
dealer) which is what the journal stores and what replay folds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from boardctl.errors import EntryError

#: Kinds of score entry. ``last`` is the five-card game's "three for last".
KINDS = ("pegging", "hand", "crib", "heels", "muggins", "correction", "last")

#: Every operation, with the fields it may carry.
OPS: dict[str, tuple[str, ...]] = {
    "peg": ("track", "points", "kind"),
    "undo": (),
    "redo": (),
    "next": (),
    "cut": ("dealer", "drawn"),
    "new_game": (
        "variant",
        "players",
        "target",
        "mode",
        "preset",
        "match",
        "muggins",
        "names",
        "points",
        "rules",
        "house_rules",
    ),
    "set": ("key", "value"),
}

#: Keys a ``set`` command may change.
SETTINGS = ("mode", "muggins", "preset", "points", "match", "target", "names", "house_rules")


def check_command(command: Any) -> dict[str, Any]:
    """Check the shape of a command: a dict with a known ``op`` and known fields.

    Returns a shallow copy; values are checked later, against the state.
    """
    if not isinstance(command, Mapping):
        raise EntryError(f"a command must be an object with an 'op', not {command!r}")
    op = command.get("op")
    if not isinstance(op, str) or op not in OPS:
        raise EntryError(f"unknown op {op!r} (known: {', '.join(OPS)})")
    allowed = OPS[op]
    for key in command:
        if key != "op" and key not in allowed:
            fields = ", ".join(allowed) or "none"
            raise EntryError(f"unknown field {key!r} for {op} (fields: {fields})")
    return dict(command)


def whole(value: Any, what: str) -> int:
    """``value`` as an int, rejecting bools, floats and text."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise EntryError(f"{what} must be a whole number, not {value!r}")
    return value


def describe(event: Mapping[str, Any], names: tuple[str, ...] = ()) -> str:
    """One readable line for an event, e.g. ``"Track 1 +3 (pegging)"``."""
    op = event.get("op")

    def name(track: Any) -> str:
        if isinstance(track, int) and 0 <= track < len(names):
            return names[track]
        return f"track {track}"

    if op == "peg":
        points = event.get("points", 0)
        sign = "+" if isinstance(points, int) and points >= 0 else ""
        return f"{name(event.get('track'))} {sign}{points} ({event.get('kind')})"
    if op == "cut":
        how = "drawn" if event.get("drawn") else "set"
        dealer = event.get("dealer")
        seat = dealer + 1 if isinstance(dealer, int) else dealer  # seats count from 1, as tracks do
        return f"first dealer: seat {seat} ({how})"
    if op == "new_game":
        match = event.get("match")
        length = f"match to {match} game points" if match else "one game"
        return (
            f"new game: {event.get('variant')} to {event.get('target')}, "
            f"{event.get('mode')}, preset {event.get('preset')}, {length}"
        )
    if op == "set":
        return f"set {event.get('key')} = {event.get('value')!r}"
    return str(op)
