"""Commands and events: small frozen dataclasses, parsed from JSON once at the edges.

An accepted command becomes its *event* (every default filled in), journalled as JSON and parsed
back by :func:`parse_command` on replay; the game-dependent checks are the engine's.

    >>> parse_command({"op": "peg", "track": 0, "points": 3})
    Peg(track=0, points=3, kind=None, cards=None, starter=None)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import ClassVar, TypeVar

from boardctl.cribbage.rules import house_rules_value
from boardctl.cribbage.variants import VARIANTS
from boardctl.errors import EntryError
from boardctl.game import JsonValue
from boardctl.game.entries import KINDS
from boardctl.game.setters import SETTINGS
from boardctl.game.setup import (
    GameSetup,
    PresetPoints,
    bad_players,
    check_best_of,
    check_flag,
    check_match,
    check_mode,
    check_name_list,
    check_points,
    check_roster,
    known,
    whole,
)

Json = dict[str, JsonValue]
_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class _Command:
    """A command's JSON: its ``op`` and each field that is not None (tuples as lists)."""

    op: ClassVar[str]

    def to_json(self) -> Json:
        data: Json = {"op": self.op}
        for field in fields(self):
            value = getattr(self, field.name)
            if isinstance(value, tuple):  # cards, names, roster; a custom preset's points
                value = dict(value) if field.name == "points" else list(value)
            if value is not None:
                data[field.name] = value
        return data


@dataclass(frozen=True, slots=True)
class Peg(_Command):
    """Score ``points`` on ``track`` (``kind`` None: from the phase); a count may name its ``cards``
    and ``starter`` (:mod:`boardctl.game.shown`), then ``points`` None = their count."""

    op: ClassVar[str] = "peg"
    track: int
    points: int | None
    kind: str | None = None
    cards: tuple[str, ...] | None = None
    starter: str | None = None


@dataclass(frozen=True, slots=True)
class Undo(_Command):
    """Take back the last change of this game."""

    op: ClassVar[str] = "undo"


@dataclass(frozen=True, slots=True)
class Redo(_Command):
    """Bring back the last change undone."""

    op: ClassVar[str] = "redo"


@dataclass(frozen=True, slots=True)
class Next(_Command):
    """Guided: the next phase; after a game: the next game (or a new match)."""

    op: ClassVar[str] = "next"


@dataclass(frozen=True, slots=True)
class Cut(_Command):
    """The first dealer (a seat; None = a random draw, recorded in the event); ``cards``: one cut
    card per seat, the lowest deals (a tie is refused); ``starter``: the deal's starter, with the
    cut or alone once the dealer is known (docs/scorekeeping.md)."""

    op: ClassVar[str] = "cut"
    dealer: int | None = None
    drawn: bool | None = None
    starter: str | None = None
    cards: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class NewGame(_Command):
    """A new match; a field left None keeps the setting (``points``: sorted pairs)."""

    op: ClassVar[str] = "new_game"
    variant: str | None = None
    players: int | None = None
    target: int | None = None
    mode: str | None = None
    preset: str | None = None
    match: int | None = None
    muggins: bool | None = None
    names: tuple[str, ...] | None = None
    points: PresetPoints | None = None
    roster: tuple[str, ...] | None = None
    best_of: int | None = None
    confirm_result: bool | None = None
    rules: str | None = None
    house_rules: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class Set(_Command):
    """Change one setting of the match (see :data:`~boardctl.game.setters.SETTINGS`; a value is
    never None: every setter refuses it)."""

    op: ClassVar[str] = "set"
    key: str
    value: JsonValue


@dataclass(frozen=True, slots=True)
class Brightness:
    """A board setting the engine does not keep: LED brightness 0-255 (``set brightness``)."""

    op: ClassVar[str] = "set"
    level: int

    def to_json(self) -> Json:
        return {"op": self.op, "key": "brightness", "value": self.level}


@dataclass(frozen=True, slots=True)
class Confirm(_Command):
    """``track`` signs off the finished game (with ``confirm_result`` on)."""

    op: ClassVar[str] = "confirm"
    track: int


@dataclass(frozen=True, slots=True)
class Refile(_Command):
    """File the asked-about last entry as ``kind`` (None: the other kind offered; the same kind
    keeps it); the event records the kind, ``track`` and ``points``."""

    op: ClassVar[str] = "refile"
    kind: str | None = None
    track: int | None = None
    points: int | None = None


Command = Peg | Undo | Redo | Next | Cut | NewGame | Set | Confirm | Refile
BoardCommand = Command | Brightness  # what the buttons and the control socket may ask


def _peg(data: Mapping[str, object]) -> Peg:
    track = whole(data.get("track"), "track")
    cards = _cards(data.get("cards"))
    starter = _starter(data)
    points = data.get("points")
    if points is not None or (cards is None and starter is None):
        points = whole(points, "points")
    return Peg(track, points, _kind(data), cards, starter)


def _cards(value: object) -> tuple[str, ...] | None:
    """A peg's ``cards``: a list of card texts, or one text (``"5H 5D JS QC"``)."""
    if value is None:
        return None
    if isinstance(value, str):
        value = value.replace(",", " ").split()
    if not isinstance(value, list | tuple) or not all(isinstance(c, str) for c in value):
        raise EntryError(f'cards must be a list of cards such as ["5H", "JS"], not {value!r}')
    return tuple(value)


def _kind(data: Mapping[str, object]) -> str | None:
    kind = data.get("kind") or None  # "" too: inferred
    if kind is not None and (not isinstance(kind, str) or kind not in KINDS):
        raise EntryError(f"unknown kind {kind!r} (kinds: {', '.join(KINDS)})")
    return kind


def _refile(data: Mapping[str, object]) -> Refile:
    return Refile(_kind(data), _number(data, "track"), _number(data, "points"))


def _cut(data: Mapping[str, object]) -> Cut:
    drawn = None if "drawn" not in data else bool(data["drawn"])
    return Cut(_number(data, "dealer"), drawn, _starter(data), _cards(data.get("cards")))


def _optional(data: Mapping[str, object], key: str, check: Callable[[object], _T]) -> _T | None:
    """``data[key]`` checked, or None when it is left out."""
    value = data.get(key)
    return None if value is None else check(value)


def _number(data: Mapping[str, object], key: str) -> int | None:
    return _optional(data, key, lambda value: whole(value, key))


def _flag(data: Mapping[str, object], key: str) -> bool | None:
    return _optional(data, key, lambda value: check_flag(value, key))


def _text(data: Mapping[str, object], key: str, message: str) -> str | None:
    value = data.get(key)
    if value is None or isinstance(value, str):
        return value
    raise EntryError(message.format(value=value))


def _starter(data: Mapping[str, object]) -> str | None:
    return _text(data, "starter", "starter must be a card such as 5S, not {value!r}")


def _new_game(data: Mapping[str, object]) -> NewGame:
    players = data.get("players")
    if players is not None and (isinstance(players, bool) or not isinstance(players, int)):
        raise bad_players(players)
    known = ", ".join(VARIANTS)
    return NewGame(
        variant=_text(data, "variant", "unknown variant {value!r} (known: " + known + ")"),
        players=players,
        target=_number(data, "target"),
        mode=_optional(data, "mode", check_mode),
        preset=_text(data, "preset", "preset must be a name, not {value!r}"),
        match=_optional(data, "match", check_match),
        muggins=_flag(data, "muggins"),
        names=_optional(data, "names", check_name_list),
        points=_optional(data, "points", check_points),
        roster=_optional(data, "roster", check_roster),
        best_of=_optional(data, "best_of", check_best_of),
        confirm_result=_flag(data, "confirm_result"),
        rules=_text(data, "rules", "rules must be a rule set's name, not {value!r}"),
        house_rules=_optional(data, "house_rules", house_rules_value),
    )


def _set(data: Mapping[str, object]) -> Set:
    key = known(data.get("key"), SETTINGS, "setting")
    if "value" not in data:
        raise EntryError(f"set {key}: a value is required")
    return Set(key, _json_value(data["value"]))


def _json_value(value: object) -> JsonValue:
    """``value`` as JSON data (what the control socket and the journal carry)."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, list | tuple):
        return [_json_value(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _json_value(v) for k, v in value.items()}
    raise EntryError(f"{value!r} is not a JSON value")


_PARSERS: dict[str, tuple[Callable[[Mapping[str, object]], Command], type]] = {
    "peg": (_peg, Peg),
    "undo": (lambda _: Undo(), Undo),
    "redo": (lambda _: Redo(), Redo),
    "next": (lambda _: Next(), Next),
    "cut": (_cut, Cut),
    "new_game": (_new_game, NewGame),
    "set": (_set, Set),
    "confirm": (lambda data: Confirm(whole(data.get("track"), "track")), Confirm),
    "refile": (_refile, Refile),
}

#: Every operation of the engine, with the fields it may carry.
OPS: dict[str, tuple[str, ...]] = {
    op: tuple(f.name for f in fields(cls)) for op, (_, cls) in _PARSERS.items()
}


def parse_command(data: object) -> Command:
    """The command a JSON object stands for (a known ``op`` and its fields, :data:`OPS`); raise
    :class:`EntryError` saying what is wrong."""
    if not isinstance(data, Mapping):
        raise EntryError(f"a command must be an object with an 'op', not {data!r}")
    op = known(data.get("op"), OPS, "op")
    check_fields(data, op)
    return _PARSERS[op][0](data)


def new_game_event(setup: GameSetup | NewGame | Mapping[str, JsonValue]) -> NewGame:
    """The ``new_game`` command of ``setup`` (a setup's: every choice written out)."""
    if isinstance(setup, NewGame):
        return setup
    body = setup.to_dict() if isinstance(setup, GameSetup) else setup
    command = parse_command({**body, "op": "new_game"})
    assert isinstance(command, NewGame)
    return command


def check_fields(data: Mapping[str, object], op: str) -> None:
    """Refuse a field that ``op`` (one of :data:`OPS`) does not take."""
    allowed = OPS[op]
    for key in data:
        if key != "op" and key not in allowed:
            known = ", ".join(allowed) or "none"
            raise EntryError(f"unknown field {key!r} for {op} (fields: {known})")


def parse_board_command(data: object) -> BoardCommand:
    """:func:`parse_command`, plus ``set brightness`` (which the service keeps, not the engine)."""
    if isinstance(data, Mapping) and data.get("op") == "set" and data.get("key") == "brightness":
        check_fields(data, "set")
        value = data.get("value")
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value)  # digits in text, as the CLI sends them
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 255:
            raise EntryError(f"brightness must be a whole number 0-255, not {value!r}")
        return Brightness(value)
    return parse_command(data)
