"""What a won game is worth: the skunk presets.

A preset turns the final scores of a game into game points for the winner.
Lines sit at ``target - 30`` (skunk), ``target - 60`` (double skunk) and
``target - 90`` (triple skunk); a line at or below 0 does not exist. The UK
"lurch" doubles the game when the loser is under half the target.

With three or more tracks the margin is taken against the lowest loser (seed
004:34: the winner gets the skunk "even if one of his opponents is already past
the skunk line"; :func:`boardctl.game.house.skunk_loser`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace

from boardctl.errors import EntryError
from boardctl.game.jsontypes import JsonValue
from boardctl.view import lines_failed, skunk_lines

__all__ = [
    "DEFAULT_PRESET",
    "PRESETS",
    "VALUE_KEYS",
    "Preset",
    "PresetValue",
    "check_value",
    "custom_preset",
    "get_preset",
    "lines_failed",
    "skunk_lines",
]

PresetValue = int | bool  # a number of game points, or triple_wins_match


@dataclass(frozen=True, slots=True)
class Preset:
    """Game points for a win, by the lines the loser failed to cross.

    ``lurch`` is the value of a game whose loser is under half the target
    (0 = no lurch rule). ``triple_wins_match`` ends the match on a triple skunk.
    """

    name: str
    win: int
    skunk: int
    double: int
    triple: int
    lurch: int = 0
    triple_wins_match: bool = False

    def game_points(self, target: int, loser_score: int, *, fractions: bool = False) -> int:
        """Game points the winner earns when the loser has ``loser_score``.

        ``fractions``: the lines sit at 3/4 and 1/2 of the target (house rule
        ``fraction-lines``) instead of 30, 60 and 90 below it.
        """
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
        """The preset as JSON-able data."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        # ACC tournament scoring: 2 for a win, 3 for a skunk, nothing more for a double.
        Preset("acc", win=2, skunk=3, double=3, triple=3),
        # Casual: 1 / 2 / 4, and a triple skunk wins the match.
        Preset("casual", win=1, skunk=2, double=4, triple=4, triple_wins_match=True),
        # UK: a single game, or a double game when the loser is "lurched".
        Preset("lurch", win=1, skunk=1, double=1, triple=1, lurch=2),
        # Custom starts as casual without the match rule; change it with "points".
        Preset("custom", win=1, skunk=2, double=3, triple=4),
        # Seed rule sets (boardctl.cribbage.rules cites the text of each).
        # Finnish: a match point a game, 2 for a skunk, 3 for a double (4 by local
        # agreement: custom), and a triple skunk wins the match.
        Preset("finnish", win=1, skunk=2, double=3, triple=3, triple_wins_match=True),
        # Czech: a point a game, 2 when the winner leads by more than 30.
        Preset("czech", win=1, skunk=2, double=2, triple=2),
        # English: lurched or skunked is a double game, a double skunk a quadruple game.
        Preset("english", win=1, skunk=2, double=4, triple=4),
    )
}

DEFAULT_PRESET = "acc"
VALUE_KEYS = ("win", "skunk", "double", "triple", "lurch", "triple_wins_match")


def get_preset(name: str, points: Mapping[str, PresetValue] | None = None) -> Preset:
    """The preset called ``name``, with custom ``points`` applied (custom only)."""
    try:
        preset = PRESETS[name]
    except KeyError:
        known = ", ".join(PRESETS)
        raise EntryError(f"unknown preset {name!r} (known: {known})") from None
    if points:
        if name != "custom":
            raise EntryError(f"points can only be set for the custom preset, not {name!r}")
        preset = custom_preset(points, base=preset)
    return preset


def check_value(key: str, value: object) -> PresetValue:
    """One custom preset value: game points 0-99, or ``triple_wins_match`` true/false."""
    if key not in VALUE_KEYS:
        raise EntryError(f"unknown preset value {key!r} (known: {', '.join(VALUE_KEYS)})")
    if key == "triple_wins_match":
        if not isinstance(value, bool):
            raise EntryError("triple_wins_match must be true or false")
        return value
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 99:
        raise EntryError(f"preset value {key} must be a whole number 0-99, not {value!r}")
    return value


def custom_preset(points: Mapping[str, object], base: Preset | None = None) -> Preset:
    """A custom preset from a mapping of ``win``/``skunk``/``double``/``triple``/``lurch``."""
    preset = base or PRESETS["custom"]
    changes = {key: check_value(key, value) for key, value in points.items()}
    new = replace(preset, name="custom", **changes)  # type: ignore[arg-type]
    if new.win < 1:
        raise EntryError("a win must be worth at least 1 game point")
    return new
