"""The finished games of a journal file, and the filters ``boardctl results`` offers."""

from __future__ import annotations

import datetime
import os
from collections.abc import Iterable, Iterator
from itertools import chain
from pathlib import Path

from boardctl.errors import ResultsError
from boardctl.game.setup import player_key
from boardctl.results.board import board_id
from boardctl.results.kept import each_kept_game, kept_csv, kept_records, kept_results
from boardctl.results.model import GameResult, PlayedGame
from boardctl.results.records import Records, records
from boardctl.store.journal import Journal


def load_games(path: str | os.PathLike[str], *, board: str | None = None) -> list[PlayedGame]:
    """Every finished game of the journal at ``path`` (:mod:`.kept`), then the games this
    board played linked to a host's (their copies, signed by the host). ``board`` overrides
    the board id."""
    path = Path(path)
    with Journal.open(path, readonly=True) as journal:
        games = list(each_kept_game(journal, board=board or board_id(path.parent)))
    return games + _linked(path)


def load_results(path: str | os.PathLike[str], *, board: str | None = None) -> list[GameResult]:
    """The results of :func:`load_games`, read from the journal's kept results."""
    path = Path(path)
    with Journal.open(path, readonly=True) as journal:
        kept = kept_results(journal, board=board or board_id(path.parent))
    return kept + [game.result for game in _linked(path)]


def load_csv(
    path: str | os.PathLike[str], *, board: str | None = None, key: bytes | None = None
) -> str:
    """``boardctl results --csv`` of the journal at ``path``: :func:`journal_csv`, joined."""
    path = Path(path)
    with Journal.open(path, readonly=True) as journal:
        return "".join(journal_csv(journal, board=board, key=key))


def journal_csv(
    journal: Journal, *, board: str | None = None, key: bytes | None = None
) -> Iterator[str]:
    """The CSV text of :func:`load_results` of ``journal`` (open read-only), in pieces of whole
    lines: unsigned, the kept CSV rows as stored (no work per game); with ``key``, every row
    signed with it."""
    board = board or board_id(journal.path.parent)
    linked = [game.result for game in _linked(journal.path)]
    if key is None:
        return kept_csv(journal, board=board, more=linked)
    from boardctl.results.export import csv_lines
    from boardctl.results.sign import sign

    results = kept_results(journal, board=board) + linked
    return csv_lines((), (sign(result, key) for result in results))


def load_records(path: str | os.PathLike[str]) -> Records:
    """The records of every finished game, from the journal's running totals (:mod:`.kept`)
    and the linked games' copies."""
    path = Path(path)
    with Journal.open(path, readonly=True) as journal:
        return journal_records(journal)


def journal_records(journal: Journal) -> Records:
    """:func:`load_records` of ``journal``, open (read-only)."""
    return records(_linked(journal.path), kept_records(journal))


def _linked(path: Path) -> list[PlayedGame]:
    """The games this board played linked to a host's (their copies, signed by the host:
    docs/remote.md)."""
    from boardctl.remote.store import linked_games

    return linked_games(path.parent)


def parse_since(text: str) -> str:
    """A ``--since`` date or time (ISO 8601, UTC unless it says otherwise) as a result time."""
    try:
        moment = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ResultsError(
            f"--since {text!r} is not a date (use 2026-12-01 or 2026-12-01T18:00)"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.UTC)
    moment = moment.astimezone(datetime.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def chosen(result: GameResult, *, since: str | None = None, player: str | None = None) -> bool:
    """True if the game ended at or after ``since`` (a :func:`parse_since` time) with
    ``player`` in it."""
    if since is not None and result.end < since:
        return False
    if player is None:
        return True
    wanted = player_key(player)
    return any(player_key(name) == wanted for name in chain(*result.players, result.names))


def select(
    games: Iterable[PlayedGame], *, since: str | None = None, player: str | None = None
) -> list[PlayedGame]:
    """The games :func:`chosen` keeps."""
    return [game for game in games if chosen(game.result, since=since, player=player)]
