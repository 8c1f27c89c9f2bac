"""A finished game as the standings see it, read from a result record (the bridge's or
:mod:`.by_hand`'s); a track named ``Ann & Cat`` without ``players`` is that team, and :func:`dedupe`
keeps the last copy of each ``(board, id)``."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from boardctl.cribbage.variants import MAX_TARGET, MIN_TARGET
from boardctl.game.setup import PRESETS, player_key
from boardctl.standings import StandingsError

MAX_TRACKS = 6  # the six-player game
MAX_NAME = 100  # a track's name: a team of three of the board's 24-character names, and more
MAX_GAME_POINTS = 99  # a custom preset's largest value (boardctl.game.setup.check_value)
MAX_SKUNK = 3  # a triple skunk


@dataclass(frozen=True, slots=True)
class Game:
    """One finished game: each track's members (``teams``; empty: :func:`split_team`), the scores
    and the winner."""

    board: str
    id: str
    names: tuple[str, ...]
    scores: tuple[int, ...]
    winner: int
    game_points: int
    skunk: int = 0
    end: str = ""
    teams: tuple[tuple[str, ...], ...] = ()
    final: bool = True

    @property
    def key(self) -> tuple[str, str]:
        return (self.board, self.id)

    def members(self, track: int) -> tuple[str, ...]:
        """The players of ``track``: one, or a team's partners."""
        return self.teams[track] if self.teams else split_team(self.names[track])

    @property
    def entrants(self) -> tuple[str, ...]:
        """Each track's entrant as compared (:func:`entrant_key`)."""
        return tuple(entrant_key(self.members(t)) for t in range(len(self.names)))

    def margin(self, track: int) -> int:
        """The spread for ``track``: the winner's lead over the best loser, a loser's deficit."""
        if track == self.winner:
            best = max((s for i, s in enumerate(self.scores) if i != self.winner), default=0)
            return self.scores[self.winner] - best
        return self.scores[track] - self.scores[self.winner]

    def to_record(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "board": self.board,
            "names": list(self.names),
            "players": [list(self.members(t)) for t in range(len(self.names))],
            "scores": list(self.scores),
            "winner": self.winner,
            "winner_name": self.names[self.winner],
            "spread": self.margin(self.winner),
            "skunk": self.skunk,
            "game_points": self.game_points,
            "end": self.end,
            "final": self.final,
        }


def split_team(name: str) -> tuple[str, ...]:
    """``Ann & Cat`` -> (Ann, Cat), ``Al, Bea & Cy`` -> three; any other name is one player."""
    parts = tuple(part.strip() for part in re.split(r",|&", name))
    return parts if len(parts) > 1 and all(parts) else (name.strip(),)


def entrant_key(members: Sequence[str]) -> str:
    """How entrants compare: a player by :func:`player_key`, a team by its players' set."""
    return " & ".join(sorted(player_key(m) for m in members))


def _teams(record: Mapping[str, Any], count: int) -> tuple[tuple[str, ...], ...]:
    """The record's ``players`` (one list of names per track), or read from its names."""
    teams = record.get("players")
    if teams is None:
        return tuple(split_team(str(n)) for n in record["names"])
    if (
        not isinstance(teams, list)
        or len(teams) != count
        or not all(
            isinstance(team, list) and team and all(isinstance(n, str) and n.strip() for n in team)
            for team in teams
        )
    ):
        raise StandingsError(
            f"result {record.get('id')!r}: players must be one list of names per track"
        )
    keys = [player_key(n) for team in teams for n in team]
    if len(set(keys)) != len(keys):
        raise StandingsError(f"result {record.get('id')!r}: a player is on two tracks")
    return tuple(tuple(n.strip() for n in team) for team in teams)


def _int(record: Mapping[str, Any], key: str) -> int:
    value = record.get(key)
    if type(value) is not int:
        raise StandingsError(f"result {record.get('id')!r}: {key} must be a whole number")
    return value


def from_record(record: Mapping[str, Any]) -> Game:
    """The game of one result record, every field bounded as the rules allow;
    :class:`StandingsError` if it is not one."""
    if not isinstance(record, Mapping):
        raise StandingsError("a result must be a JSON object")
    what = f"result {str(record.get('id'))[:40]!r}"
    names = record.get("names")
    scores = record.get("scores")
    if (
        not isinstance(names, list)
        or not 2 <= len(names) <= MAX_TRACKS
        or not all(isinstance(n, str) and n.strip() and len(n) <= MAX_NAME for n in names)
    ):
        raise StandingsError(f"{what}: names must be a list of 2-{MAX_TRACKS} names")
    if (
        not isinstance(scores, list)
        or len(scores) != len(names)
        or not all(type(s) is int and 0 <= s <= MAX_TARGET for s in scores)
    ):
        raise StandingsError(f"{what}: scores must be one number 0-{MAX_TARGET} per name")
    if len({player_key(n) for n in names}) != len(names):
        raise StandingsError(f"{what}: needs two or more different names")
    winner = _int(record, "winner")
    if (
        not 0 <= winner < len(names)
        or scores.count(scores[winner]) != 1
        or scores[winner] != max(scores)
    ):
        raise StandingsError(f"{what}: the winner must have the top score, alone")
    if "target" in record:
        target = _int(record, "target")
        if not MIN_TARGET <= target <= MAX_TARGET or scores[winner] != target:
            raise StandingsError(f"{what}: the winner must be on the target ({MIN_TARGET}-"
                                 f"{MAX_TARGET})")  # fmt: skip
    points = _int(record, "game_points")
    preset = PRESETS.get(str(record.get("preset", "")))
    if preset is None or preset.name == "custom":  # a custom skunk may be worth 0-99
        least, most = 0, MAX_GAME_POINTS
    else:
        least, most = 1, max(preset.win, preset.skunk, preset.double, preset.triple, preset.lurch)
    if not least <= points <= most:
        raise StandingsError(f"{what}: game points must be {least}-{most}")
    skunk = record.get("skunk", 0)
    if type(skunk) is not int or not 0 <= skunk <= MAX_SKUNK:
        raise StandingsError(f"{what}: skunk must be 0-{MAX_SKUNK}")
    final = record.get("final", True)
    if not isinstance(final, bool):
        raise StandingsError(f"{what}: final must be true or false")
    game = Game(
        board=str(record.get("board", "")),
        id=str(record.get("id", "")),
        names=tuple(n.strip() for n in names),
        scores=tuple(scores),
        winner=winner,
        game_points=points,
        skunk=skunk,
        end=str(record.get("end", ""))[:40],
        teams=_teams(record, len(names)),
        final=final,
    )
    if "spread" in record and record["spread"] != game.margin(winner):
        raise StandingsError(f"{what}: the spread is not the scores' ({game.margin(winner)})")
    if "winner_name" in record and record["winner_name"] != names[winner]:
        raise StandingsError(f"{what}: winner_name is not the winner's name")
    return game


def dedupe(games: Iterable[Game]) -> list[Game]:
    """Each ``(board, id)`` once (the last copy), in order of end time then board and id."""
    seen = {game.key: game for game in games}
    return sorted(seen.values(), key=lambda g: (g.end, g.board, g.id))
