"""The top-quarter cut and a seeded play-off bracket with byes (docs/standings.md, "Cut and
play-off bracket"). A seed is a player or a team (``Ann & Cat``): a game counts for a match
when its two entrants are the match's two, whatever the order of the partners' names.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from boardctl.standings import BEST_OF, StandingsError
from boardctl.standings.games import Game, entrant_key, split_team
from boardctl.standings.table import Row

BYE = "(bye)"  # the other side of a seed that goes through without playing


def cut_size(entrants: int) -> int:
    """How many qualify from ``entrants``: a quarter, rounded up, at least two."""
    return min(entrants, max(2, math.ceil(entrants / 4)))


def cut(rows: Sequence[Row]) -> list[str]:
    """The qualifiers, best first."""
    if len(rows) < 2:
        raise StandingsError("a play-off needs at least two players in the standings")
    return [row.player for row in rows[: cut_size(len(rows))]]


def seed_order(size: int) -> list[int]:
    """The seeds (1-based) in bracket order for ``size`` places, a power of two."""
    if size < 1 or size & (size - 1):
        raise StandingsError(f"a bracket has a power of two of places, not {size}")
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [s for seed in order for s in (seed, total - seed)]
    return order


@dataclass(frozen=True, slots=True)
class Match:
    """One play-off match: a player is :data:`BYE`, or ``None`` while not yet known."""

    round: int
    first: str | None
    second: str | None
    first_wins: int
    second_wins: int
    winner: str | None


def bracket(seeds: Sequence[str], games: Iterable[Game], *, best_of: int = 3) -> list[list[Match]]:
    """Every round of the bracket for ``seeds`` (best first), filled in from ``games``."""
    if best_of not in BEST_OF:
        raise StandingsError(f"play-off matches are best of 3 or 5, not {best_of}")
    if len(seeds) < 2:
        raise StandingsError("a bracket needs at least two players")
    if len({_key(s) for s in seeds}) != len(seeds) or BYE in seeds:
        raise StandingsError(f"the seeds must be different players (and none called {BYE})")
    size = 1 << (len(seeds) - 1).bit_length()
    need = best_of // 2 + 1
    played = list(games)
    slots: list[str | None] = [seeds[s - 1] if s <= len(seeds) else BYE for s in seed_order(size)]
    rounds: list[list[Match]] = []
    while len(slots) > 1:
        pairs = zip(slots[::2], slots[1::2], strict=True)
        rounds.append([_match(len(rounds) + 1, a, b, played, need) for a, b in pairs])
        slots = [m.winner for m in rounds[-1]]
    return rounds


def _key(seed: str) -> str:
    return entrant_key(split_team(seed))


def _match(number: int, a: str | None, b: str | None, games: list[Game], need: int) -> Match:
    if a == BYE or b == BYE:
        return Match(number, a, b, 0, 0, a if b == BYE else b)
    if a is None or b is None:
        return Match(number, a, b, 0, 0, None)  # waits for an earlier match
    wins = {_key(a): 0, _key(b): 0}
    for game in games:
        keys = game.entrants
        # games after the match was decided do not count
        if len(keys) == 2 and set(keys) == set(wins) and max(wins.values()) < need:
            wins[keys[game.winner]] += 1
    first, second = wins[_key(a)], wins[_key(b)]
    return Match(number, a, b, first, second, a if first >= need else b if second >= need else None)
