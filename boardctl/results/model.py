"""One game's result: the stable, documented format of ``boardctl results`` (docs/results.md,
"The format"): :class:`GameResult`'s fields are its CSV columns and JSON fields, in order."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, NamedTuple

from boardctl.errors import ResultsError

#: Version of the result format (the ``format`` field of every row).
FORMAT = 1


@dataclass(frozen=True, slots=True)
class GameResult:
    """How one finished game ended, with the journal rows that prove it.

    Lists hold one item per track (a player or a team); ``players`` names each track's
    members; ``winner`` and ``match_winner`` are track indices. Times are UTC, ISO 8601.
    """

    format: int
    board: str
    match: int
    game: int
    variant: str
    rules: str
    target: int
    mode: str
    preset: str
    match_format: str
    names: tuple[str, ...]
    players: tuple[tuple[str, ...], ...]
    scores: tuple[int, ...]
    winner: int
    winner_name: str
    spread: int
    skunk: int
    game_points: int
    match_points: tuple[int, ...]
    match_winner: int | None
    deals: int
    start: str
    end: str
    first_seq: int
    won_seq: int
    seq: int
    crc: str
    final: bool
    confirm: bool
    confirmed: tuple[int, ...]
    key: str
    hmac: str

    def to_dict(self) -> dict[str, Any]:
        """The result as JSON-able data (lists for the per-track tuples)."""
        data = {name: getattr(self, name) for name in FIELDS}  # flat: no deep copy needed
        for name in _LISTS:
            data[name] = list(data[name])
        for name in _TEAMS:
            data[name] = [list(team) for team in data[name]]
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameResult:
        """Rebuild a result from :meth:`to_dict` data; :class:`ResultsError` if malformed."""
        missing = [name for name in FIELDS if name not in data]
        if missing:
            raise ResultsError(f"a result row lacks {', '.join(missing)}")
        extra = [name for name in data if name not in FIELDS]
        if extra:
            raise ResultsError(f"a result row has unknown fields {', '.join(map(str, extra))}")
        values = {name: _checked(name, data[name]) for name in FIELDS}
        if values["format"] != FORMAT:
            raise ResultsError(
                f"result format {values['format']} is not the one this boardctl reads ({FORMAT})"
            )
        return cls(**values)


def canonical(row: Mapping[str, Any]) -> bytes:
    """The bytes an HMAC signs: the row as compact JSON, sorted keys, UTF-8, ``hmac`` empty."""
    data = {**row, "hmac": ""}
    return json.dumps(data, separators=(",", ":"), sort_keys=True, ensure_ascii=False).encode()


#: The field names, in column order.
FIELDS: tuple[str, ...] = tuple(f.name for f in fields(GameResult))

# Each field's type, as the readers check it, from its annotation: a scalar type,
# "ints"/"strs" for per-track lists, "teams" for a list of lists of names; "int?" may be None.
_KINDS = {
    "int": "int",
    "int | None": "int?",
    "str": "str",
    "bool": "bool",
    "tuple[int, ...]": "ints",
    "tuple[str, ...]": "strs",
    "tuple[tuple[str, ...], ...]": "teams",
}
TYPES = {f.name: _KINDS[str(f.type)] for f in fields(GameResult)}
_LISTS = tuple(name for name, kind in TYPES.items() if kind in ("strs", "ints"))
_TEAMS = tuple(name for name, kind in TYPES.items() if kind == "teams")


_ITEMS = {"ints": "int", "strs": "str", "teams": "strs"}  # a list's kind: its items' kind
_SCALARS = {"int": int, "str": str, "bool": bool}


def _is(kind: str, value: Any) -> bool:
    """True if ``value`` is of ``kind`` (a bool is no int)."""
    if kind in _ITEMS:
        return isinstance(value, list | tuple) and all(_is(_ITEMS[kind], item) for item in value)
    if kind == "int?":
        return value is None or _is("int", value)
    return isinstance(value, _SCALARS[kind]) and not (kind == "int" and isinstance(value, bool))


def _checked(name: str, value: Any) -> Any:
    kind = TYPES[name]
    if not _is(kind, value):
        raise ResultsError(f"result field {name} must be {kind}, not {value!r}")
    if kind == "teams":
        return tuple(tuple(team) for team in value)
    return tuple(value) if kind in _ITEMS else value


class Entry(NamedTuple):
    """A score entry that stands in a game's final state.

    ``deal``: 0 before the first deal and in free mode; ``seat``: the seat that counted a
    hand or crib in the guided show, or a one-player track's, else None; ``scores``: every
    track's just after it; ``cards`` and ``starter``: those a hand or crib entry named.
    """

    seq: int
    at: float
    track: int
    points: int
    kind: str
    deal: int
    seat: int | None
    scores: tuple[int, ...]
    cards: tuple[str, ...] = ()  # a hand or crib entered with its cards (then ``starter`` too)
    starter: str = ""


@dataclass(frozen=True, slots=True)
class PlayedGame:
    """A finished game: its result, the entries that stand, and who sat where."""

    result: GameResult
    entries: tuple[Entry, ...]
    seat_players: tuple[str, ...]  # the player at each seat (a team's name if not known)
    teams: tuple[tuple[int, ...], ...]  # the seats of each track
