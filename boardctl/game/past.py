"""The history rows of a writer's finished games, kept as JSON text (``history --all``).

A history row is the event and the state right after it, so the rows of a
journal only ever grow at the end: those of a finished game never change.
The service's scorekeeper used to replay the whole journal for every
``history --all`` (0.4 s here for 200 games, about 3 s on a Pi Zero 2 W, with
the board's loop waiting); once asked, it keeps the finished games' rows
here instead, one compact JSON text per game (about 2.9 MB for 200 games;
the rows as Python objects would be four times that), adds each game as the
next one starts, and answers from them and the current game's entries: as
rows, or as the JSON text the control socket sends (:meth:`PastGames.encoded`,
no decoding). A row's local ``time`` is kept as the service made it (its own
time zone, as when it made the row for the reply).

The service builds them off its loop: a thread replays the journal on a
read-only connection of its own (:mod:`boardctl.service.history_all`), so the
first ``history --all`` after a start holds up no button press.
"""

from __future__ import annotations

import json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from boardctl.game.history import Row


def encoded(rows: list[Row]) -> bytes:
    """Rows as compact JSON text (what the control socket would send for them)."""
    return json.dumps(rows, separators=(",", ":"), ensure_ascii=False, default=str).encode()


class PastGames:
    """The rows of the games before the current one, oldest first."""

    def __init__(self) -> None:
        self._games: list[bytes] = []

    def add(self, rows: list[Row]) -> None:
        """Keep the rows of one more finished game, as they are (their ``time`` too)."""
        if rows:
            self._games.append(encoded(rows)[1:-1])  # the rows, without the list's brackets

    def rows(self) -> list[Row]:
        """Every kept row, as :func:`~boardctl.game.history.history_row` made it."""
        return list(json.loads(b"[" + b",".join(self._games) + b"]")) if self._games else []

    def encoded(self, rows: list[Row]) -> bytes:
        """Every kept row and then ``rows`` (the current game's), as one JSON list."""
        tail = encoded(rows)[1:-1] if rows else b""
        return b"[" + b",".join([*self._games, *([tail] if tail else [])]) + b"]"

    def copy(self) -> PastGames:
        """The games kept so far (the texts are shared: they never change)."""
        kept = PastGames()
        kept._games = list(self._games)
        return kept

    @property
    def games(self) -> int:
        """Games kept."""
        return len(self._games)

    @property
    def size(self) -> int:
        """Bytes kept."""
        return sum(len(text) for text in self._games)
