"""How a match is set up (variant, players, target, mode, preset, match format), and the checks of
single values shared by the commands' parser and the engine."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from boardctl.cribbage.rules import RULE_SETS, house_rules_value, muggins_for
from boardctl.cribbage.variants import (
    DEFAULT_VARIANT,
    MAX_TARGET,
    MIN_TARGET,
    TARGET_RANGE,
    VARIANTS,
    Variant,
)
from boardctl.errors import EntryError, unknown
from boardctl.game import JsonValue
from boardctl.view import lines_failed

if TYPE_CHECKING:
    from boardctl.game.commands import NewGame

# --- What a won game is worth: the skunk presets (with sources: docs/scorekeeping.md, "The game").

PresetValue = int | bool  # a number of game points, or triple_wins_match


@dataclass(frozen=True, slots=True)
class Preset:
    """Game points for a win by the lines the loser failed to cross (``lurch``: under half the
    target, 0 = none; ``triple_wins_match``: a triple skunk ends the match)."""

    name: str
    win: int
    skunk: int
    double: int
    triple: int
    lurch: int = 0
    triple_wins_match: bool = False

    def game_points(self, target: int, loser_score: int, *, fractions: bool = False) -> int:
        """Game points the winner earns over ``loser_score`` (``fractions``: lines at 3/4, 1/2)."""
        failed = lines_failed(target, loser_score, fractions=fractions)
        points = (self.win, self.skunk, self.double, self.triple)[failed]
        if self.lurch and loser_score * 2 < target:
            points = max(points, self.lurch)
        return points

    def ends_match(self, target: int, loser_score: int, *, fractions: bool = False) -> bool:
        """True when this result wins the match outright (a casual triple skunk)."""
        failed = lines_failed(target, loser_score, fractions=fractions)
        return self.triple_wins_match and failed >= 3

    def to_dict(self) -> dict[str, JsonValue]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset("acc", win=2, skunk=3, double=3, triple=3),
        Preset("casual", win=1, skunk=2, double=4, triple=4, triple_wins_match=True),
        Preset("lurch", win=1, skunk=1, double=1, triple=1, lurch=2),
        Preset("custom", win=1, skunk=2, double=3, triple=4),  # set with "points"
        Preset("finnish", win=1, skunk=2, double=3, triple=3, triple_wins_match=True),
        Preset("czech", win=1, skunk=2, double=2, triple=2),
        Preset("english", win=1, skunk=2, double=4, triple=4),
    )
}

DEFAULT_PRESET = "acc"
VALUE_KEYS = tuple(f.name for f in fields(Preset) if f.name != "name")


def get_preset(name: str, points: Mapping[str, object] | None = None) -> Preset:
    """The preset called ``name``, with custom ``points`` applied (custom only)."""
    preset = PRESETS[known(name, PRESETS, "preset")]
    if not points:
        return preset
    if name != "custom":
        raise EntryError(f"points can only be set for the custom preset, not {name!r}")
    changes = {key: check_value(key, value) for key, value in points.items()}
    preset = replace(preset, **changes)  # type: ignore[arg-type]
    if preset.win < 1:
        raise EntryError("a win must be worth at least 1 game point")
    return preset


def check_value(key: str, value: object) -> PresetValue:
    """One custom preset value: game points 0-99, or ``triple_wins_match`` true/false."""
    if key not in VALUE_KEYS:
        raise EntryError(unknown("preset value", key, VALUE_KEYS))
    if key == "triple_wins_match":
        if not isinstance(value, bool):
            raise EntryError("triple_wins_match must be true or false")
        return value
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 99:
        raise EntryError(f"preset value {key} must be a whole number 0-99, not {value!r}")
    return value


#: A custom preset's values as sorted ``(name, value)`` pairs.
PresetPoints = tuple[tuple[str, PresetValue], ...]

#: guided (phases cut, deal, play, show) or free (any entry, any order).
MODES = ("guided", "free")
#: The usual variant for each number of players: the first the variants table lists.
DEFAULT_FOR_PLAYERS = {v.players: v.name for v in reversed(VARIANTS.values())}


def bad_players(players: object) -> EntryError:
    """The error for a player count no variant is for."""
    low, high = min(DEFAULT_FOR_PLAYERS), max(DEFAULT_FOR_PLAYERS)
    return EntryError(f"players must be {low}-{high}, not {players!r}")


@dataclass(frozen=True, slots=True)
class GameSetup:
    """Everything chosen before the first deal (``match``: game points that win, 0 = one game)."""

    variant_name: str = DEFAULT_VARIANT
    target: int = 121
    mode: str = "guided"
    preset_name: str = DEFAULT_PRESET
    match: int = 0
    muggins: bool = False
    names: tuple[str, ...] = ()
    points: PresetPoints = ()
    roster: tuple[str, ...] = ()  # the players known across games (boardctl.game.setup)
    best_of: int = 0  # a match of this many games (boardctl.game.setup); 0 = by game points
    confirm_result: bool = False  # a finished game waits for each side's confirm (machine.py)
    rules: str = "acc"  # a rule set of boardctl.cribbage.rules (old journals: acc)
    house_rules: tuple[str, ...] = ()  # the house rules in force (the set's own, or as set)

    @property
    def variant(self) -> Variant:
        """The variant played (with its usual ``target``: this setup's own is :attr:`target`)."""
        return VARIANTS[self.variant_name]

    @property
    def preset(self) -> Preset:
        return _preset(self.preset_name, self.points)

    @property
    def players(self) -> int:
        return VARIANTS[self.variant_name].players

    @property
    def tracks(self) -> int:
        return VARIANTS[self.variant_name].tracks

    def checked(self) -> GameSetup:
        """This setup, once its preset is allowed (the target is checked on its way in)."""
        _preset(self.preset_name, self.points)
        return self

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
            "names": list(self.names),
            "points": dict(self.points),
            "roster": list(self.roster),
            "best_of": self.best_of,
            "confirm_result": self.confirm_result,
            "rules": self.rules,
            "house_rules": list(self.house_rules),
        }
        return {key: value for key, value in data.items() if value or key not in _LEFT_OUT}


#: The settings :meth:`GameSetup.to_dict` leaves out when empty, false or 0.
_LEFT_OUT = ("names", "points", "roster", "best_of", "confirm_result")


@lru_cache(maxsize=64)
def _track_names(names: tuple[str, ...], tracks: int) -> tuple[str, ...]:
    given = list(names[:tracks])
    return tuple(given + [f"Track {i + 1}" for i in range(len(given), tracks)])


@lru_cache(maxsize=64)
def _preset(name: str, points: PresetPoints) -> Preset:
    return get_preset(name, dict(points))


def known(name: object, names: Collection[str], what: str) -> str:
    """``name`` if it is one of ``names``; else refused, listing them."""
    if not isinstance(name, str) or name not in names:
        raise EntryError(unknown(what, name, names))
    return name


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


def check_flag(value: object, key: str) -> bool:
    if not isinstance(value, bool):
        raise EntryError(f"{key} must be true or false, not {value!r}")
    return value


def check_mode(mode: object) -> str:
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


def track_names_of(
    names: tuple[str, ...], variant: Variant, roster: tuple[str, ...]
) -> tuple[str, ...]:
    """Checked track names, spelt as the ``roster`` has them; names per seat are made names per
    team (partners: seats 0 and 2, so ``Alice, Bob, Carol, Dave`` make ``Alice & Carol`` and
    ``Bob & Dave``)."""
    if len(names) == variant.players != variant.tracks:
        names = tuple(team_name([names[seat].strip() for seat in team]) for team in variant.teams)
    return on_roster(check_names(names, variant.tracks), roster, variant.teams)


def check_names(names: object, tracks: int) -> tuple[str, ...]:
    """Validate track names (one short string per track, or fewer)."""
    given = check_name_list(names)
    if len(given) > tracks:
        raise EntryError(f"{len(given)} names given for {tracks} tracks")
    cleaned = tuple(n.strip()[:MAX_NAME] for n in given)
    if any(not n for n in cleaned):
        raise EntryError("a track name may not be empty")
    return cleaned


def check_points(points: object) -> PresetPoints:
    """Validate the shape of custom preset values: an object of numbers (or true/false)."""
    if not isinstance(points, Mapping):
        raise EntryError('points must be an object such as {"win": 1, "skunk": 2}')
    return tuple(sorted((str(key), check_value(str(key), value)) for key, value in points.items()))


def _variant_for(cmd: NewGame, base: GameSetup) -> str:
    """The variant a new game asks for: named, picked by ``players``, or kept."""
    players, name = cmd.players, cmd.variant
    if name is None:
        if players is None:
            return base.variant_name
        name = DEFAULT_FOR_PLAYERS.get(players)
        if name is None:
            raise bad_players(players)
    variant = VARIANTS[known(name, VARIANTS, "variant")]
    if players is not None and players != variant.players:
        raise EntryError(f"variant {name!r} is for {variant.players} players, not {players!r}")
    return name


def setup_with(cmd: NewGame, base: GameSetup) -> GameSetup:
    """The setup of a ``new_game`` command over ``base`` (``players`` alone picks the usual variant;
    a contradicting count is refused)."""
    name = _variant_for(cmd, base)
    variant = VARIANTS[name]
    same = name == base.variant_name
    target = check_target(
        cmd.target if cmd.target is not None else (base.target if same else variant.target)
    )
    rules = known(base.rules if cmd.rules is None else cmd.rules, RULE_SETS, "rule set")
    rule_set = RULE_SETS[rules]
    if cmd.house_rules is not None:
        house_rules = house_rules_value(cmd.house_rules)
    else:
        house_rules = base.house_rules if cmd.rules is None else rule_set.house_rules
    preset_name = cmd.preset if cmd.preset is not None else base.preset_name
    if cmd.rules is not None and cmd.preset is None:
        preset_name = rule_set.preset  # a rule set brings its game points preset
    points = base.points if cmd.points is None and preset_name == "custom" else cmd.points or ()
    muggins = muggins_for(house_rules, base.muggins if cmd.muggins is None else cmd.muggins)
    roster = base.roster if cmd.roster is None else cmd.roster
    # names stay with a game seated alike (docs/scorekeeping.md, "Commands": new_game)
    seated_alike = (base.tracks, base.players) == (variant.tracks, variant.players)
    kept = base.names if seated_alike else ()
    names = track_names_of(kept if cmd.names is None else cmd.names, variant, roster)
    match = base.match if cmd.match is None else cmd.match
    best_of = (
        cmd.best_of if cmd.best_of is not None else (0 if cmd.match is not None else base.best_of)
    )
    if best_of:  # a best-of match is won with more than half of its games
        if cmd.match is not None and cmd.match != wins_needed(best_of):
            raise EntryError(f"match {cmd.match} and best_of {best_of} disagree; give one of them")
        match = wins_needed(best_of)
    return GameSetup(
        variant_name=name,
        target=target,
        mode=base.mode if cmd.mode is None else cmd.mode,
        preset_name=preset_name,
        match=match,
        muggins=muggins,
        names=names,
        points=points,
        roster=roster,
        best_of=best_of,
        confirm_result=base.confirm_result if cmd.confirm_result is None else cmd.confirm_result,
        rules=rules,
        house_rules=house_rules,
    ).checked()


def setup_from_dict(data: object) -> GameSetup:
    """The setup stored by :meth:`GameSetup.to_dict` (a journal snapshot); strict."""
    if not isinstance(data, Mapping):
        raise EntryError(f"a setup must be an object, not {data!r}")
    name = known(data.get("variant"), VARIANTS, "variant")
    preset_name = data.get("preset")
    if not isinstance(preset_name, str):
        raise EntryError(f"preset must be a name, not {preset_name!r}")
    rules = known(data.get("rules", "acc"), RULE_SETS, "rule set")  # older journals: none
    return GameSetup(
        variant_name=name,
        target=check_target(whole(data.get("target"), "target")),
        mode=check_mode(data.get("mode")),
        preset_name=preset_name,
        match=check_match(data.get("match")),
        muggins=check_flag(data.get("muggins"), "muggins"),
        names=check_names(data.get("names", []), VARIANTS[name].tracks),
        points=check_points(data.get("points", {})),
        roster=check_roster(data.get("roster", [])),
        best_of=check_best_of(data.get("best_of", 0)),
        confirm_result=data.get("confirm_result") is True,
        rules=rules,
        house_rules=house_rules_value(data.get("house_rules", [])),
    ).checked()


# --- Match formats: one game, to N game points, or best of N games (docs/scorekeeping.md). ---


MAX_GAMES = 99
_BEST_OF = re.compile(r"best-?of-?(\d+)", re.IGNORECASE)
_POINTS = re.compile(r"(?:points-?)?(\d+)", re.IGNORECASE)


def wins_needed(best_of: int) -> int:
    """Games a track must win to take a best-of-``best_of`` match (more than half)."""
    return best_of // 2 + 1


def check_best_of(value: Any) -> int:
    """Validate a best-of length in games (0 = the match is counted in game points)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_GAMES:
        raise EntryError(f"best_of must be 0 or the number of games (1-{MAX_GAMES}), not {value!r}")
    return value


def parse_match(value: Any) -> dict[str, int]:
    """A match setting as ``{"match": N}`` or ``{"best_of": N}``, from a number or ``single``,
    ``N``, ``points-N``, ``best-of-N``."""
    if isinstance(value, int) and not isinstance(value, bool):
        return {"match": value}
    if isinstance(value, str):
        text = value.strip()
        if text.lower() in ("single", "one", "none"):
            return {"match": 0}
        if found := _BEST_OF.fullmatch(text):
            return {"best_of": int(found.group(1))}
        if found := _POINTS.fullmatch(text):
            return {"match": int(found.group(1))}
    raise EntryError(
        f"match must be 0 or single (one game), N or points-N (first to N game points) "
        f"or best-of-N (games), not {value!r}"
    )


def match_text(match: int, best_of: int) -> str:
    """``single``, ``points:N`` or ``best-of:N`` (the ``match_format`` of a result)."""
    if best_of:
        return f"best-of:{best_of}"
    return "single" if match == 0 else f"points:{match}"


# --- The roster: the players a board knows (``set roster``; docs/scorekeeping.md, "Commands"). ---


MAX_PLAYERS = 200
MAX_NAME = 24


def player_key(name: str) -> str:
    """How player names are compared: case and spacing do not matter."""
    return " ".join(name.split()).casefold()


def members(name: str, size: int) -> tuple[str, ...]:
    """The players of a track ``name`` with ``size`` seats (``"Alice & Carol"``); a name that does
    not split so is the team's own."""
    if size <= 1:
        return (name,)
    parts = tuple(part.strip() for part in re.split(r",|&", name))
    return parts if len(parts) == size and all(parts) else (name,)


def team_name(players: Sequence[str]) -> str:
    """``Alice``, ``Alice & Carol``, ``Al, Bea & Cy``: a track named after its players."""
    if len(players) == 1:
        return players[0]
    return f"{', '.join(players[:-1])} & {players[-1]}"


def check_roster(value: Any) -> tuple[str, ...]:
    """Validate a player list: distinct names (whatever their case), each 1-24 characters."""
    if not isinstance(value, list | tuple) or not all(isinstance(n, str) for n in value):
        raise EntryError("roster must be a list of player names")
    names = tuple(" ".join(n.split()) for n in value)
    if len(names) > MAX_PLAYERS:
        raise EntryError(f"a roster holds at most {MAX_PLAYERS} players, not {len(names)}")
    seen: dict[str, str] = {}
    for name in names:
        if not name or len(name) > MAX_NAME:
            raise EntryError(f"a player's name is 1-{MAX_NAME} characters, not {name!r}")
        if re.search(r"[,&]", name):
            raise EntryError(f"a player's name may not contain ',' or '&' ({name!r})")
        key = player_key(name)
        if key in seen:
            raise EntryError(f"{name!r} is on the roster twice (as {seen[key]!r})")
        seen[key] = name
    return names


def on_roster(
    names: tuple[str, ...], roster: tuple[str, ...], teams: Sequence[Sequence[int]]
) -> tuple[str, ...]:
    """Track ``names`` spelt as the roster has them; refuse a player not on it (empty: free)."""
    if not roster:
        return names
    known = {player_key(name): name for name in roster}
    written = []
    for name, team in zip(names, teams, strict=False):  # names: one per track, or fewer
        players = members(name, len(team))
        unknown = [p for p in players if player_key(p) not in known]
        if unknown:
            raise EntryError(
                f"{', '.join(map(repr, unknown))} {'is' if len(unknown) == 1 else 'are'} not "
                f"on the roster ({', '.join(roster)}); add players with `boardctl set roster`"
            )
        full = team_name([known[player_key(p)] for p in players])
        if len(full) > MAX_NAME:
            raise EntryError(f"the track name {full!r} is over {MAX_NAME} characters")
        written.append(full)
    return tuple(written)


def check_distinct(names: Sequence[str], teams: Sequence[Sequence[int]]) -> None:
    """Refuse a player on two tracks or twice in a team (on entry only, not on replay)."""
    seen: dict[str, str] = {}
    for name, team in zip(names, teams, strict=False):
        for player in members(name, len(team)):
            key = player_key(player)
            if key in seen:
                where = f"in {name!r}" if seen[key] == name else f"({seen[key]!r} and {name!r})"
                raise EntryError(
                    f"{player!r} is named twice {where}: give each track a different player"
                )
            seen[key] = name
