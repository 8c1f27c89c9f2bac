"""The standings of a set of games, as ``boardctl standings`` and the page show them: each game
once, ranked (:mod:`.table`), then a bracket (:mod:`.bracket`) once play-offs began."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from boardctl.standings import StandingsError
from boardctl.standings.bracket import Match, bracket, cut, cut_size
from boardctl.standings.games import Game, dedupe
from boardctl.standings.table import Row, standings


@dataclass(frozen=True, slots=True)
class Report:
    """The games counted, the ranked rows, and the bracket (None before the play-offs)."""

    games: tuple[Game, ...]
    rows: tuple[Row, ...]
    bracket: tuple[tuple[Match, ...], ...] | None
    by: str = "entrant"
    best_of: int = 3

    def to_dict(self) -> dict[str, Any]:
        """The page's document: as ``boardctl standings --json``, with the games' outline."""
        return {
            "format": 1,
            "games": len(self.games),
            "by": self.by,
            "best_of": self.best_of,
            "standings": [asdict(row) for row in self.rows],
            "cut": cut_size(len(self.rows)) if len(self.rows) >= 2 else 0,
            "bracket": None
            if self.bracket is None
            else [[asdict(m) for m in r] for r in self.bracket],
            "latest": [game.to_record() for game in reversed(self.games[-10:])],
        }


def report(
    games: Iterable[Game],
    *,
    by: str = "entrant",
    since: str = "",
    playoffs_since: str = "",
    best_of: int = 3,
) -> Report:
    """The standings of ``games`` (each ``(board, id)`` once), see the module."""
    counted = dedupe(games)
    if since:
        counted = [g for g in counted if g.end >= since]
    rows = standings([g for g in counted if not playoffs_since or g.end < playoffs_since], by=by)
    playoff = None
    if playoffs_since:
        if by == "player" and any(
            len(g.members(t)) > 1 for g in counted for t in range(len(g.names))
        ):
            raise StandingsError(
                "partnership play-offs are between teams: rank by entrant (leave out --by player)"
            )
        after = [g for g in counted if g.end >= playoffs_since]
        playoff = tuple(tuple(r) for r in bracket(cut(rows), after, best_of=best_of))
    return Report(tuple(counted), tuple(rows), playoff, by, best_of)
