"""The ``set`` command: one check per setting of the match, in one table (each returns the new setup
and the value recorded, or raises :class:`~boardctl.errors.EntryError`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from boardctl.cribbage import rules as house
from boardctl.errors import EntryError
from boardctl.game import JsonValue
from boardctl.game.setup import (
    GameSetup,
    check_best_of,
    check_flag,
    check_match,
    check_mode,
    check_name_list,
    check_points,
    check_roster,
    check_target,
    on_roster,
    parse_match,
    track_names_of,
    whole,
    wins_needed,
)
from boardctl.game.state import GameState

Setter = Callable[[GameState, JsonValue], tuple[GameSetup, JsonValue]]


def _mode(state: GameState, value: JsonValue) -> tuple[GameSetup, JsonValue]:
    return replace(state.setup, mode=check_mode(value)), value


def _muggins(state: GameState, value: JsonValue) -> tuple[GameSetup, JsonValue]:
    muggins = check_flag(value, "muggins")
    house.check_muggins_change(state.setup.house_rules, muggins, state.started)
    return replace(state.setup, muggins=muggins), value


def _house_rules(state: GameState, value: JsonValue) -> tuple[GameSetup, JsonValue]:
    rules = house.house_rules_value(value)
    muggins = house.muggins_for(rules, state.setup.muggins)
    return replace(state.setup, house_rules=rules, muggins=muggins), list(rules)


def _preset(state: GameState, value: JsonValue) -> tuple[GameSetup, JsonValue]:
    if not isinstance(value, str):
        raise EntryError(f"preset must be a name, not {value!r}")
    points = state.setup.points if value == "custom" else ()
    return replace(state.setup, preset_name=value, points=points).checked(), value


def _points(state: GameState, value: JsonValue) -> tuple[GameSetup, JsonValue]:
    setup = replace(state.setup, preset_name="custom", points=check_points(value)).checked()
    return setup, dict(setup.points)


def _match(state: GameState, value: JsonValue) -> tuple[GameSetup, JsonValue]:
    fields = parse_match(value)
    best_of = check_best_of(fields.get("best_of", 0))
    match = wins_needed(best_of) if best_of else check_match(fields["match"])
    top = max(t.game_points for t in state.tracks)
    if match and state.winner is None and top >= match:
        raise EntryError(f"match {match} is not above the game points already won ({top})")
    return replace(state.setup, match=match, best_of=best_of), value


def _confirm_result(state: GameState, value: JsonValue) -> tuple[GameSetup, JsonValue]:
    return replace(state.setup, confirm_result=check_flag(value, "confirm_result")), value


def _roster(state: GameState, value: JsonValue) -> tuple[GameSetup, JsonValue]:
    setup = replace(state.setup, roster=check_roster(value))
    setup = replace(setup, names=on_roster(setup.names, setup.roster, setup.variant.teams))
    return setup, list(setup.roster)


def _target(state: GameState, value: JsonValue) -> tuple[GameSetup, JsonValue]:
    target = check_target(whole(value, "target"))
    if state.started:
        raise EntryError(
            "the target can only change before anyone scores; start a new game "
            "(`boardctl new-game --target N`)"
        )
    return replace(state.setup, target=target), value


def _names(state: GameState, value: JsonValue) -> tuple[GameSetup, JsonValue]:
    setup = state.setup
    names = track_names_of(check_name_list(value), setup.variant, setup.roster)  # 4 names: 2 teams
    return replace(setup, names=names), list(names)


#: Keys a ``set`` command may change, each with its check.
SETTERS: dict[str, Setter] = {
    "mode": _mode,
    "muggins": _muggins,
    "preset": _preset,
    "points": _points,
    "match": _match,
    "target": _target,
    "names": _names,
    "roster": _roster,
    "confirm_result": _confirm_result,
    "house_rules": _house_rules,
}
SETTINGS = tuple(SETTERS)
