"""The results of a board's journal for the broker, read as the journal grows.

Each result is :mod:`boardctl.results`' record of a finished game
(:class:`~boardctl.results.model.GameResult`, documented in docs/results.md),
derived from the journal by the results module's own fold; this module adds
only the game's id (:func:`game_id`) and reads incrementally.

Reading incrementally: a ``new_game`` event clears the undo stacks and
carries the whole setup, so a match can be folded from its ``new_game`` on.
:class:`ResultFeed` keeps the events of the current match only; when the next
match starts, the results of the one before are final and kept as they are.
Only the match number is counted across matches (a fold that starts at a
``new_game`` numbers it 1).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path
from typing import Any

from boardctl.results.board import board_id as _board_id
from boardctl.results.derive import Row, journal_rows, played_games
from boardctl.results.model import GameResult
from boardctl.results.sign import sign_record
from boardctl.store.journal import Journal
from boardctl.store.journal_file import kept_here


def board_id(journal_path: Path) -> str:
    """The board's id (docs/results.md): the ``board-id`` file beside the journal, else derived."""
    return _board_id(Path(journal_path).parent)


def game_id(first_seq: int, first_crc: int) -> str:
    """A game's id: its first event's number and chained checksum (unique across journals)."""
    return f"{first_seq}-{first_crc:08x}"


def digest(record: dict[str, Any]) -> str:
    """A short digest of a record's canonical JSON (what the acknowledgements remember)."""
    body = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(body.encode()).hexdigest()[:16]


class ResultFeed:
    """Every result of one journal as ``{game id: record}``; only new events are read."""

    def __init__(self, journal_path: Path, board: str, key: bytes | None = None) -> None:
        self.path = Path(journal_path)
        self.board = board
        self.key = key  # the board key: every record is signed with it (docs/results.md)
        self._journal: Journal | None = None
        self._match: list[Row] = []  # the current match's events (seq, at, event, crc)
        self._matches_before = 0  # new_game events before the current match
        self._starts: dict[int, int] = {}  # first event of each game -> its chained checksum
        self._done: dict[str, dict[str, Any]] = {}  # results of earlier matches (final)
        self.results: dict[str, dict[str, Any]] = {}
        self.read = False  # the journal exists and its last reading succeeded

    def refresh(self) -> bool:
        """Read the events written since the last call; True if :attr:`results` changed.

        A journal that does not exist yet has no results (the service creates it).
        """
        self.read = False
        if self._journal is None:
            if not kept_here(self.path):  # missing, and never kept here: none yet
                return False
            self._journal = Journal.open(self.path, readonly=True)
        rows = list(journal_rows(self._journal))
        self.read = True
        if not rows:
            return False
        for row in rows:
            seq, _, event, crc = row
            op = event.get("op")
            if op == "new_game" and self._match:
                self._done.update(self._fold([*self._match, row]))
                self._matches_before += 1
                self._match = []
            if op in ("new_game", "next"):
                self._starts[seq] = crc
            self._match.append(row)
        before = self.results
        self.results = {**self._done, **self._fold(self._match)}
        return before != self.results

    def _fold(self, rows: list[Row]) -> dict[str, dict[str, Any]]:
        out = {}
        for game in played_games(rows, board=self.board, path=str(self.path)):
            result: GameResult = game.result
            result = dataclasses.replace(result, match=result.match + self._matches_before)
            key = game_id(result.first_seq, self._starts[result.first_seq])
            record = {"id": key, **result.to_dict()}
            out[key] = record if self.key is None else sign_record(record, self.key)
        return out

    def close(self) -> None:
        if self._journal is not None:
            self._journal.close()
            self._journal = None


def finished_results(
    journal_path: Path, board: str | None = None, key: bytes | None = None
) -> list[dict[str, Any]]:
    """Every result of the journal at ``journal_path``, in the order the games were played."""
    feed = ResultFeed(Path(journal_path), board or board_id(Path(journal_path)), key)
    try:
        feed.refresh()
        return sorted(feed.results.values(), key=lambda r: int(r["first_seq"]))
    finally:
        feed.close()
