"""ACC standings: game points, then games won, then spread (skunks shown, not ranked), by
entrant (a player or a team) or by player (every partner credited): docs/standings.md."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from boardctl.game.setup import player_key, team_name
from boardctl.standings import BY, StandingsError
from boardctl.standings.games import Game, entrant_key


@dataclass(frozen=True, slots=True)
class Row:
    """One entrant's line in the standings (``player`` is a player's or a team's name)."""

    place: int
    player: str
    games: int
    wins: int
    losses: int
    game_points: int
    spread: int
    skunks_given: int
    skunks_taken: int


@dataclass
class _Tally:
    player: str
    games: int = 0
    wins: int = 0
    game_points: int = 0
    spread: int = 0
    skunks_given: int = 0
    skunks_taken: int = 0

    def rank(self) -> tuple[int, int, int]:
        return (-self.game_points, -self.wins, -self.spread)


def _credited(game: Game, by: str) -> Iterator[tuple[int, str, str]]:
    """(track, key, shown name) for everyone a game counts for."""
    for track in range(len(game.names)):
        members = game.members(track)
        if by == "player":
            for name in members:
                yield track, player_key(name), name
        else:
            yield track, entrant_key(members), team_name(members)


def standings(games: Iterable[Game], *, by: str = "entrant") -> list[Row]:
    """The ranked standings of ``games`` (each game counted once as given), see the module."""
    if by not in BY:
        raise StandingsError(f"standings are by entrant or by player, not {by!r}")
    tallies: dict[str, _Tally] = {}
    for game in games:
        for track, key, name in _credited(game, by):
            tally = tallies.setdefault(key, _Tally(name))
            tally.games += 1
            tally.spread += game.margin(track)
            if track == game.winner:
                tally.wins += 1
                tally.game_points += game.game_points
                tally.skunks_given += bool(game.skunk)
            elif game.skunk:
                tally.skunks_taken += 1
    order = sorted(tallies.values(), key=lambda t: (t.rank(), player_key(t.player)))
    rows: list[Row] = []
    for index, t in enumerate(order):
        tied = index > 0 and order[index - 1].rank() == t.rank()
        place = rows[-1].place if tied else index + 1
        rows.append(Row(place=place, losses=t.games - t.wins, **vars(t)))
    return rows
