"""The results of a board's journal for the broker, read as the journal grows (docs/mqtt.md,
"Topics"): each is :mod:`boardctl.results`' record of a finished game with the game's id
(:func:`game_id`); a game the board has left is final."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from boardctl.results.derive import GameFold
from boardctl.results.kept import follow
from boardctl.results.model import GameResult
from boardctl.results.sign import sign_record
from boardctl.store.journal import Journal
from boardctl.store.journal_file import kept_here

DAY = 86400.0  # seconds: how much older than asked the first read goes


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
        self._fold: GameFold | None = None  # the journal's events since the kept results
        self._done: dict[str, dict[str, Any]] = {}  # results of the games left (final)
        self._since: float | None = None  # the time the kept results were read from
        self.results: dict[str, dict[str, Any]] = {}
        self.read = False  # the journal exists and its last reading succeeded

    def refresh(self, since: float | None = None) -> bool:
        """Read the events written since the last call; True if :attr:`results` changed.

        A journal that does not exist yet has no results (the service creates it). With
        ``since`` (a Unix time) :attr:`results` holds at least every game that ended after it
        (and may hold older ones); the first read reads from a day before it, and again from
        the start if a later ``since`` is earlier than that (the wall clock set back).
        """
        self.read = False
        if self._journal is None:
            if not kept_here(self.path):  # missing, and never kept here: none yet
                return False
            self._journal = Journal.open(self.path, readonly=True)
        journal = self._journal
        if self._since is not None and (since is None or since < self._since):
            self._fold = None  # older games wanted than those read: read them again
        if self._fold is None:
            self._since = None if since is None else since - DAY
            kept, self._fold = follow(journal, board=self.board, since=self._since)
            self._done = self._records(journal, kept)
        else:
            rows = journal.event_rows()
            if not rows:
                self.read = True
                return False
            self._fold.add(rows)
        self.read = True
        self._done.update(self._records(journal, [g.result for g in self._fold.take_final()]))
        before = self.results
        current = self._records(journal, [g.result for g in self._fold.games()])
        self.results = {**self._done, **current}
        return before != self.results

    def _records(self, journal: Journal, results: list[GameResult]) -> dict[str, dict[str, Any]]:
        crcs = journal.event_crcs(result.first_seq for result in results)
        out = {}
        for result in results:
            key = game_id(result.first_seq, crcs[result.first_seq])
            record = {"id": key, **result.to_dict()}
            out[key] = record if self.key is None else sign_record(record, self.key)
        return out

    def close(self) -> None:
        if self._journal is not None:
            self._journal.close()
            self._journal = None
        self._fold = self._since = None  # a later refresh starts again from the kept results
