"""A round-robin schedule by the circle method (a bye for an odd count), each round spread over the
club's boards in waves (docs/standings.md, "Round robin")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from boardctl.game.setup import player_key
from boardctl.standings import StandingsError


@dataclass(frozen=True, slots=True)
class Pairing:
    """One game of the schedule (``board`` from 1)."""

    round: int
    wave: int
    board: int
    first: str
    second: str


@dataclass(frozen=True, slots=True)
class Round:
    number: int
    games: tuple[Pairing, ...]
    bye: str | None


def schedule(players: Sequence[str], boards: int) -> list[Round]:
    names = [p.strip() for p in players]
    if len(names) < 2:
        raise StandingsError("a round robin needs at least two players")
    if len({player_key(n) for n in names}) != len(names) or not all(names):
        raise StandingsError("the players' names must be different and not empty")
    if boards < 1:
        raise StandingsError("a round robin needs at least one board")
    circle: list[str | None] = [*names, None] if len(names) % 2 else list(names)
    n = len(circle)
    rounds: list[Round] = []
    for number in range(1, n):
        pairs: list[tuple[str, str]] = []
        bye: str | None = None
        for i in range(n // 2):
            a, b = circle[i], circle[n - 1 - i]
            if a is None or b is None:
                bye = b if a is None else a
                continue
            pairs.append((a, b) if number % 2 or i else (b, a))  # the fixed player alternates seats
        games = tuple(
            Pairing(number, k // boards + 1, k % boards + 1, a, b) for k, (a, b) in enumerate(pairs)
        )
        rounds.append(Round(number, games, bye))
        circle = [circle[0], circle[-1], *circle[1:-1]]
    return rounds
