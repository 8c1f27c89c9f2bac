"""ACC standings: game points, then games won, then spread (skunks shown, not ranked).

In ACC play a win earns the winner the game's points (2, or 3 for a skunk;
the board's preset worked them out) and a loss earns nothing; *spread* is the
sum of margins, plus for a win and minus for a loss. Ties that survive all
three keys share a place (1, 2, 2, 4) and are listed by name.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from boardctl.standings.games import Game


def player_key(name: str) -> str:
    """How names are compared: case and spacing do not matter."""
    return " ".join(name.split()).casefold()


@dataclass(frozen=True, slots=True)
class Row:
    """One player's line in the standings."""

    place: int
    player: str
    games: int
    wins: int
    losses: int
    game_points: int
    spread: int
    skunks_given: int
    skunks_taken: int

    def rank_key(self) -> tuple[int, int, int]:
        return (-self.game_points, -self.wins, -self.spread)


@dataclass
class _Tally:
    player: str
    games: int = 0
    wins: int = 0
    game_points: int = 0
    spread: int = 0
    skunks_given: int = 0
    skunks_taken: int = 0


def standings(games: Iterable[Game]) -> list[Row]:
    """The ranked standings of every player in ``games`` (each game counted once as given)."""
    tallies: dict[str, _Tally] = {}
    for game in games:
        for track, name in enumerate(game.names):
            tally = tallies.setdefault(player_key(name), _Tally(name))
            tally.games += 1
            tally.spread += game.margin(track)
            if track == game.winner:
                tally.wins += 1
                tally.game_points += game.game_points
                tally.skunks_given += 1 if game.skunk else 0
            elif game.skunk:
                tally.skunks_taken += 1
    order = sorted(
        tallies.values(),
        key=lambda t: (-t.game_points, -t.wins, -t.spread, player_key(t.player)),
    )
    rows: list[Row] = []
    for index, t in enumerate(order):
        key = (-t.game_points, -t.wins, -t.spread)
        place = rows[-1].place if rows and rows[-1].rank_key() == key else index + 1
        rows.append(
            Row(
                place=place,
                player=t.player,
                games=t.games,
                wins=t.wins,
                losses=t.games - t.wins,
                game_points=t.game_points,
                spread=t.spread,
                skunks_given=t.skunks_given,
                skunks_taken=t.skunks_taken,
            )
        )
    return rows
