"""How a match is set up: variant, players, target, mode, preset, match length.

A :class:`GameSetup` is plain immutable data built from a ``new_game``
command (see :func:`setup_from_command`) and stored in the journal as a dict.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from boardctl.cribbage.variants import DEFAULT_VARIANT, VARIANTS, Variant, get_variant
from boardctl.errors import EntryError, VariantError
from boardctl.game.house import muggins_for, rules_of_command
from boardctl.game.presets import DEFAULT_PRESET, Preset, get_preset

MODES = ("guided", "free")
MAX_TARGET = 999  # a sanity bound; the board layout decides what it can show
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
    points: tuple[tuple[str, Any], ...] = ()
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

    def to_dict(self) -> dict[str, Any]:
        """The setup as a JSON-able ``new_game`` command body."""
        data: dict[str, Any] = {
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
        data["rules"] = self.rules
        data["house_rules"] = list(self.house_rules)
        return data


@lru_cache(maxsize=64)
def _track_names(names: tuple[str, ...], tracks: int) -> tuple[str, ...]:
    given = list(names[:tracks])
    return tuple(given + [f"Track {i + 1}" for i in range(len(given), tracks)])


@lru_cache(maxsize=64)
def _preset(name: str, points: tuple[tuple[str, Any], ...]) -> Preset:
    return get_preset(name, dict(points))


@lru_cache(maxsize=64)
def _variant(name: str, target: int, muggins: bool) -> Variant:
    try:
        return get_variant(name).with_options(target=target, muggins=muggins)
    except VariantError as exc:
        raise EntryError(str(exc)) from None


def _int(data: Mapping[str, Any], key: str, default: int) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise EntryError(f"{key} must be a whole number, not {value!r}")
    return value


def check_target(target: int) -> int:
    """Validate a game target (any target from 31 up that the board can show)."""
    if not 31 <= target <= MAX_TARGET:
        raise EntryError(f"target {target} is out of range (use 61 or 121; 31-{MAX_TARGET})")
    return target


def check_mode(mode: Any) -> str:
    """Validate a mode name."""
    if mode not in MODES:
        raise EntryError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    return str(mode)


def check_match(match: Any) -> int:
    """Validate a match length in game points (0 = one game)."""
    if isinstance(match, bool) or not isinstance(match, int) or not 0 <= match <= 99:
        raise EntryError(
            f"match must be 0 (one game) or the game points that win it (1-99), not {match!r}"
        )
    return match


def check_names(names: Any, tracks: int) -> tuple[str, ...]:
    """Validate track names (one short string per track, or fewer)."""
    if not isinstance(names, list | tuple) or not all(isinstance(n, str) for n in names):
        raise EntryError("names must be a list of strings, one per track")
    if len(names) > tracks:
        raise EntryError(f"{len(names)} names given for {tracks} tracks")
    cleaned = tuple(n.strip()[:24] for n in names)
    if any(not n for n in cleaned):
        raise EntryError("a track name may not be empty")
    return cleaned


def setup_from_command(command: Mapping[str, Any], base: GameSetup | None = None) -> GameSetup:
    """Build a setup from a ``new_game`` command; missing keys come from ``base``.

    ``players`` alone picks the usual variant for that many players; a
    variant and a contradicting player count are rejected.
    """
    base = base or GameSetup()
    players = command.get("players")
    name = command.get("variant")
    if name is None:
        if players is None:
            name = base.variant_name
        else:
            name = DEFAULT_FOR_PLAYERS.get(players) if isinstance(players, int) else None
            if name is None:
                raise EntryError(f"players must be 2-6, not {players!r}")
    if not isinstance(name, str) or name not in VARIANTS:
        raise EntryError(f"unknown variant {name!r} (known: {', '.join(VARIANTS)})")
    variant = VARIANTS[name]
    if players is not None and players != variant.players:
        raise EntryError(f"variant {name!r} is for {variant.players} players, not {players!r}")
    default_target = base.target if name == base.variant_name else variant.target
    target = check_target(_int(command, "target", default_target))
    mode = check_mode(command.get("mode", base.mode))
    rules, house_rules, rules_preset = rules_of_command(command, base.rules, base.house_rules)
    preset_name = command.get("preset", rules_preset or base.preset_name)
    if not isinstance(preset_name, str):
        raise EntryError(f"preset must be a name, not {preset_name!r}")
    raw_points = command.get("points", dict(base.points) if preset_name == "custom" else None)
    if raw_points is not None and not isinstance(raw_points, Mapping):
        raise EntryError('points must be an object such as {"win": 1, "skunk": 2}')
    get_preset(preset_name, raw_points)  # validates
    points = tuple(sorted(raw_points.items())) if raw_points else ()
    match = check_match(command.get("match", base.match))
    muggins = command.get("muggins", base.muggins)
    if not isinstance(muggins, bool):
        raise EntryError(f"muggins must be true or false, not {muggins!r}")
    muggins = muggins_for(house_rules, muggins)
    names_raw = command.get("names", list(base.names) if name == base.variant_name else [])
    names = check_names(names_raw, variant.tracks)
    _variant(name, target, muggins)
    return GameSetup(
        variant_name=name,
        target=target,
        mode=mode,
        preset_name=preset_name,
        match=match,
        muggins=muggins,
        names=names,
        points=points,
        rules=rules,
        house_rules=house_rules,
    )
