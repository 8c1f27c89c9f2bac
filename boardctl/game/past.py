"""The history rows of a writer's finished games, kept as JSON text (``history --all``).

A history row is the event and the state right after it, so the rows of a
journal only ever grow at the end: those of a finished game never change.
The service's scorekeeper used to replay the whole journal for every
``history --all`` (0.4 s here for 200 games, about 3 s on a Pi Zero 2 W, with
the board's loop waiting); once asked, it keeps the finished games' rows
here instead, one compact JSON text per game (about 2.4 MB for 200 games;
the rows as Python objects would be five times that), adds each game as the
next one starts, and answers from them and the current game's entries.
"""

from __future__ import annotations

import json

from boardctl.game.readout import row_time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from boardctl.game.history import Row


class PastGames:
    """The rows of the games before the current one, oldest first."""

    def __init__(self) -> None:
        self._games: list[bytes] = []

    def add(self, rows: list[Row]) -> None:
        """Keep the rows of one more finished game (their local ``time`` is made when read)."""
        kept = [{key: value for key, value in row.items() if key != "time"} for row in rows]
        self._games.append(json.dumps(kept, separators=(",", ":"), ensure_ascii=False).encode())

    def rows(self) -> list[Row]:
        """Every kept row, as :func:`~boardctl.game.history.history_row` made it."""
        out: list[Row] = []
        for text in self._games:
            out += [
                {"seq": r["seq"], "at": r["at"], "time": row_time(r["at"]), **r}
                for r in json.loads(text)
            ]
        return out

    @property
    def size(self) -> int:
        """Bytes kept."""
        return sum(len(text) for text in self._games)
