"""How a match is set up: variant, players, target, mode, preset, match length.

A :class:`GameSetup` is plain immutable data built from a ``new_game``
command (see :func:`setup_with`) and stored in the journal as a dict.
The checks of single values (:func:`whole`, :func:`check_mode`, ...) live
here too, for the commands' parser and the engine alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from boardctl.cribbage.variants import DEFAULT_VARIANT, VARIANTS, Variant, get_variant
from boardctl.errors import EntryError, VariantError
from boardctl.game.house import house_rules_value, muggins_for, rules_of_command
from boardctl.game.jsontypes import JsonValue
from boardctl.game.matches import check_best_of, wins_needed
from boardctl.game.presets import DEFAULT_PRESET, Preset, PresetValue, check_value, get_preset
from boardctl.game.roster import check_roster, on_roster, team_name
from boardctl.game.targets import MAX_TARGET, MIN_TARGET, TARGET_RANGE

if TYPE_CHECKING:
    from boardctl.game.commands import NewGame

#: A custom preset's values as sorted ``(name, value)`` pairs.
PresetPoints = tuple[tuple[str, PresetValue], ...]

#: guided (phases cut, deal, play, show) or free (any entry, any order).
MODES = ("guided", "free")
DEFAULT_FOR_PLAYERS = {
    2: "six-card",
    3: "three-player",
    4: "four-player",
    5: "five-player",
    6: "six-player",
}


@dataclass(frozen=True, slots=True)
class GameSetup:
    """Everything chosen before the first deal.

    ``match`` is the number of game points that wins the match (0 = one game).
    ``points`` holds the values of a custom preset (empty for the named ones).
    """

    variant_name: str = DEFAULT_VARIANT
    target: int = 121
    mode: str = "guided"
    preset_name: str = DEFAULT_PRESET
    match: int = 0
    muggins: bool = False
    names: tuple[str, ...] = ()
    points: PresetPoints = ()
    roster: tuple[str, ...] = ()  # the players known across games (boardctl.game.roster)
    best_of: int = 0  # a match of this many games (boardctl.game.matches); 0 = by game points
    confirm_result: bool = False  # a finished game waits for each side's confirm (confirm.py)
    rules: str = "acc"  # a rule set of boardctl.cribbage.rules (old journals: acc)
    house_rules: tuple[str, ...] = ()  # the house rules in force (the set's own, or as set)

    @property
    def variant(self) -> Variant:
        """The variant with this setup's target and muggins applied."""
        return _variant(self.variant_name, self.target, self.muggins)

    @property
    def preset(self) -> Preset:
        """The skunk preset in force."""
        return _preset(self.preset_name, self.points)

    @property
    def players(self) -> int:
        """Number of seats at the table."""
        return VARIANTS[self.variant_name].players

    @property
    def tracks(self) -> int:
        """Number of tracks (one per team)."""
        return VARIANTS[self.variant_name].tracks

    def track_names(self) -> tuple[str, ...]:
        """A name per track (given names, else "Track 1", "Track 2", ...)."""
        return _track_names(self.names, self.tracks)

    def to_dict(self) -> dict[str, JsonValue]:
        """The setup as a JSON-able ``new_game`` command body."""
        data: dict[str, JsonValue] = {
            "variant": self.variant_name,
            "players": self.players,
            "target": self.target,
            "mode": self.mode,
            "preset": self.preset_name,
            "match": self.match,
            "muggins": self.muggins,
        }
        if self.names:
            data["names"] = list(self.names)
        if self.points:
            data["points"] = dict(self.points)
        if self.roster:
            data["roster"] = list(self.roster)
        if self.best_of:
            data["best_of"] = self.best_of
        if self.confirm_result:
            data["confirm_result"] = True
        data["rules"] = self.rules
        data["house_rules"] = list(self.house_rules)
        return data


@lru_cache(maxsize=64)
def _track_names(names: tuple[str, ...], tracks: int) -> tuple[str, ...]:
    given = list(names[:tracks])
    return tuple(given + [f"Track {i + 1}" for i in range(len(given), tracks)])


@lru_cache(maxsize=64)
def _preset(name: str, points: PresetPoints) -> Preset:
    return get_preset(name, dict(points))


@lru_cache(maxsize=64)
def _variant(name: str, target: int, muggins: bool) -> Variant:
    try:
        return get_variant(name).with_options(target=target, muggins=muggins)
    except VariantError as exc:
        raise EntryError(str(exc)) from None


def whole(value: object, what: str) -> int:
    """``value`` as an int, rejecting bools, floats and text."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise EntryError(f"{what} must be a whole number, not {value!r}")
    return value


def check_target(target: int) -> int:
    """Validate a game target (any target from 31 up that the board can show)."""
    if not MIN_TARGET <= target <= MAX_TARGET:
        raise EntryError(f"target {target} is out of range (use 61 or 121; {TARGET_RANGE})")
    return target


def check_mode(mode: object) -> str:
    """Validate a mode name."""
    if not isinstance(mode, str) or mode not in MODES:
        raise EntryError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    return mode


def check_match(match: object) -> int:
    """Validate a match length in game points (0 = one game)."""
    if isinstance(match, bool) or not isinstance(match, int) or not 0 <= match <= 99:
        raise EntryError(
            f"match must be 0 (one game) or the game points that win it (1-99), not {match!r}"
        )
    return match


def check_name_list(names: object) -> tuple[str, ...]:
    """Validate the shape of track names: a list of strings."""
    if not isinstance(names, list | tuple) or not all(isinstance(n, str) for n in names):
        raise EntryError("names must be a list of strings, one per track")
    return tuple(names)


def seat_names(names: tuple[str, ...], variant: Variant) -> tuple[str, ...]:
    """A name per seat made into a name per team: four names in partnerships make two teams.

    Seats 0 and 2 are a team, so ``Alice, Bob, Carol, Dave`` name the tracks
    ``Alice & Carol`` and ``Bob & Dave`` (six players: ``Al, Cy & Ed``). Other
    counts are track names already and stay as they are.
    """
    if len(names) != variant.players or variant.players == variant.tracks:
        return names
    return tuple(team_name([names[seat].strip() for seat in team]) for team in variant.teams)


def check_names(names: object, tracks: int) -> tuple[str, ...]:
    """Validate track names (one short string per track, or fewer)."""
    given = check_name_list(names)
    if len(given) > tracks:
        raise EntryError(f"{len(given)} names given for {tracks} tracks")
    cleaned = tuple(n.strip()[:24] for n in given)
    if any(not n for n in cleaned):
        raise EntryError("a track name may not be empty")
    return cleaned


def check_points(points: object) -> PresetPoints:
    """Validate the shape of custom preset values: an object of numbers (or true/false)."""
    if not isinstance(points, Mapping):
        raise EntryError('points must be an object such as {"win": 1, "skunk": 2}')
    return tuple(sorted((str(key), check_value(str(key), value)) for key, value in points.items()))


def check_fits(variant_name: str, target: int, muggins: bool) -> None:
    """Refuse a target or muggins setting the variant does not allow."""
    _variant(variant_name, target, muggins)


def _variant_for(cmd: NewGame, base: GameSetup) -> str:
    """The variant a new game asks for: named, picked by ``players``, or kept."""
    players, name = cmd.players, cmd.variant
    if name is None:
        if players is None:
            return base.variant_name
        name = DEFAULT_FOR_PLAYERS.get(players)
        if name is None:
            raise EntryError(f"players must be 2-6, not {players!r}")
    if name not in VARIANTS:
        raise EntryError(f"unknown variant {name!r} (known: {', '.join(VARIANTS)})")
    variant = VARIANTS[name]
    if players is not None and players != variant.players:
        raise EntryError(f"variant {name!r} is for {variant.players} players, not {players!r}")
    return name


def _seated_alike(before: Variant, after: Variant) -> bool:
    """Whether a game of ``after`` seats its players on the tracks as ``before`` did."""
    return before.tracks == after.tracks and before.players == after.players


def setup_with(cmd: NewGame, base: GameSetup | None = None) -> GameSetup:
    """The setup of a ``new_game`` command; fields it leaves out come from ``base``.

    ``players`` alone picks the usual variant for that many players; a
    variant and a contradicting player count are rejected.
    """
    base = base or GameSetup()
    name = _variant_for(cmd, base)
    variant = VARIANTS[name]
    same = name == base.variant_name
    target = check_target(
        cmd.target if cmd.target is not None else (base.target if same else variant.target)
    )
    chosen = {
        k: v for k, v in (("rules", cmd.rules), ("house_rules", cmd.house_rules)) if v is not None
    }
    if cmd.preset is not None:
        chosen["preset"] = cmd.preset
    rules, house_rules, rules_preset = rules_of_command(chosen, base.rules, base.house_rules)
    preset_name = cmd.preset if cmd.preset is not None else (rules_preset or base.preset_name)
    points = cmd.points
    if points is None and preset_name == "custom":
        points = base.points
    get_preset(preset_name, dict(points or ()))  # validates
    muggins = muggins_for(house_rules, base.muggins if cmd.muggins is None else cmd.muggins)
    roster = base.roster if cmd.roster is None else cmd.roster
    names = on_roster(
        check_names(
            # names stay with the tracks: kept by a new game seated alike (as many tracks
            # and players: "Alice & Carol" is no name for a singles track)
            seat_names(cmd.names, variant)
            if cmd.names is not None
            else (base.names if _seated_alike(base.variant, variant) else ()),
            variant.tracks,
        ),
        roster,
        variant.teams,
    )
    match = base.match if cmd.match is None else cmd.match
    best_of = (
        cmd.best_of if cmd.best_of is not None else (0 if cmd.match is not None else base.best_of)
    )
    if best_of:  # a best-of match is won with more than half of its games
        if cmd.match is not None and cmd.match != wins_needed(best_of):
            raise EntryError(f"match {cmd.match} and best_of {best_of} disagree; give one of them")
        match = wins_needed(best_of)
    _variant(name, target, muggins)
    return GameSetup(
        variant_name=name,
        target=target,
        mode=base.mode if cmd.mode is None else cmd.mode,
        preset_name=preset_name,
        match=match,
        muggins=muggins,
        names=names,
        points=points or (),
        roster=roster,
        best_of=best_of,
        confirm_result=base.confirm_result if cmd.confirm_result is None else cmd.confirm_result,
        rules=rules,
        house_rules=house_rules,
    )


def setup_from_dict(data: object) -> GameSetup:
    """The setup stored by :meth:`GameSetup.to_dict` (a journal snapshot); strict."""
    if not isinstance(data, Mapping):
        raise EntryError(f"a setup must be an object, not {data!r}")
    name = data.get("variant")
    if not isinstance(name, str) or name not in VARIANTS:
        raise EntryError(f"unknown variant {name!r} (known: {', '.join(VARIANTS)})")
    preset_name = data.get("preset")
    if not isinstance(preset_name, str):
        raise EntryError(f"preset must be a name, not {preset_name!r}")
    muggins = data.get("muggins")
    if not isinstance(muggins, bool):
        raise EntryError(f"muggins must be true or false, not {muggins!r}")
    target = check_target(whole(data.get("target"), "target"))
    points = check_points(data.get("points", {}))
    get_preset(preset_name, dict(points))
    _variant(name, target, muggins)
    return GameSetup(
        variant_name=name,
        target=target,
        mode=check_mode(data.get("mode")),
        preset_name=preset_name,
        match=check_match(data.get("match")),
        muggins=muggins,
        names=check_names(data.get("names", []), VARIANTS[name].tracks),
        points=points,
        roster=check_roster(data.get("roster", [])),
        best_of=check_best_of(data.get("best_of", 0)),
        confirm_result=data.get("confirm_result") is True,
        rules=_stored_rules(data.get("rules", "acc")),
        house_rules=house_rules_value(data.get("house_rules", [])),
    )


def _stored_rules(value: object) -> str:
    """A stored rule-set name (journals before rule sets have none: acc)."""
    from boardctl.cribbage.rules import RULE_SETS

    if not isinstance(value, str) or value not in RULE_SETS:
        raise EntryError(f"unknown rule set {value!r} (known: {', '.join(RULE_SETS)})")
    return value
