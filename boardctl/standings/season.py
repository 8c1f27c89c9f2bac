"""A season: several events' archives ranked together by a roster (docs/standings.md, "Events,
closing one, and the season"), each game once."""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path

from boardctl.game.setup import player_key, team_name
from boardctl.standings import StandingsError, archive
from boardctl.standings.games import Game
from boardctl.standings.verify import Checked, check

Roster = dict[str, str]  # player_key(spelling) -> the player's name


def load_roster(path: Path) -> Roster:
    """The roster file's spellings; :class:`StandingsError` saying what is wrong."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise StandingsError(f"{path}: no such roster file") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise StandingsError(f"{path}: not a roster ({exc})") from None
    players = data.get("players")
    if not isinstance(players, dict) or set(data) != {"players"}:
        raise StandingsError(f"{path}: a roster has one table, [players]")
    return roster(players, str(path))


def roster(players: Mapping[str, object], source: str = "roster") -> Roster:
    """``{name: [other spellings]}`` as a lookup; two players may not share a spelling."""
    out: Roster = {}
    for name, spellings in players.items():
        if not isinstance(spellings, list) or not all(isinstance(s, str) for s in spellings):
            raise StandingsError(f"{source}: {name!r} must list its other spellings")
        for spelling in [name, *spellings]:
            key = player_key(spelling)
            if out.setdefault(key, name) != name:
                raise StandingsError(f"{source}: {spelling!r} is both {out[key]} and {name}")
    return out


def named(game: Game, players: Roster) -> Game:
    """``game`` with every player called by the roster's name."""
    teams = tuple(
        tuple(players.get(player_key(m), m) for m in game.members(t))
        for t in range(len(game.names))
    )
    names = tuple(team_name(team) for team in teams)
    return dataclasses.replace(game, names=names, teams=teams)


def season(events: Iterable[str], folder: Path, keys: Mapping[str, bytes]) -> Checked:
    """The events' archived results checked with the director's ``keys``."""
    messages = {}
    for event in events:
        messages.update(archive.load(archive.path_of(folder, event)))
    return check(messages.items(), keys)


def archived(folder: Path) -> list[str]:
    """Every event archived in ``folder``, oldest first."""
    return sorted(p.stem for p in folder.glob("*.jsonl") if not p.name.startswith("."))
