"""The finished games of a board's journal, as result records for the broker.

THE PLACE TO SWITCH: until ``boardctl.results`` (one documented record per
finished game) is available, this module is a minimal stand-in of its own
over the journal: the events are read with :class:`~boardctl.game.journal.Journal`
and folded with the engine's own :class:`~boardctl.game.state.Machine`, so the
rules are not written twice. Everything else in the bridge and in
``boardctl standings`` reads results only through :class:`ResultFeed` and the
field names below (``board, names, scores, winner, spread, skunk,
game_points, start, end, seq, crc, final``), which are the results format's.

A game *has a result* once a track reaches the target; an undo may take that
back (the result is then withdrawn). It is ``final`` once the board leaves
the game (``next`` or ``new_game``).
"""

from __future__ import annotations

import datetime
import hashlib
import json
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boardctl.errors import EntryError, JournalError
from boardctl.game.journal import Journal, Record
from boardctl.game.presets import lines_failed
from boardctl.game.state import GameState, Machine

ID_FILE = "board-id"


def board_id(journal_path: Path) -> str:
    """The board's id: the ``board-id`` file beside the journal, else the host name."""
    try:
        stored = (journal_path.parent / ID_FILE).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        stored = ""
    return stored or socket.gethostname()


def game_id(first_seq: int, first_crc: int) -> str:
    """A game's id: its first event's number and chained checksum (unique across journals)."""
    return f"{first_seq}-{first_crc:08x}"


def digest(record: dict[str, Any]) -> str:
    """A short digest of a record's canonical JSON (what the acknowledgements remember)."""
    body = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(body.encode()).hexdigest()[:16]


def iso_time(at: float) -> str:
    """A Unix time as UTC ISO 8601 to the millisecond."""
    moment = datetime.datetime.fromtimestamp(round(at, 3), datetime.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class _AnyCount:
    """Limits that refuse no count: the journal's events were checked when written."""

    def hand_scores(self, cards: int, *, crib: bool = False) -> frozenset[int]:
        return _ANY

    def max_play_points(self) -> int:
        return 1_000


_ANY = frozenset(range(1_000))


@dataclass
class _Game:
    first_seq: int
    first_crc: int
    start_at: float
    won: tuple[int, float] | None = None
    last: tuple[int, int] = (0, 0)


class ResultFeed:
    """Every result of one journal, read incrementally (only new events are folded)."""

    def __init__(self, journal_path: Path, board: str) -> None:
        self.path = Path(journal_path)
        self.board = board
        self._journal: Journal | None = None
        self._machine = Machine(limits=_AnyCount())
        self._game: _Game | None = None
        self.results: dict[str, dict[str, Any]] = {}

    def refresh(self) -> bool:
        """Fold the events written since the last call; True if :attr:`results` changed.

        A journal that does not exist yet has no results (the service creates it).
        """
        if self._journal is None:
            if not self.path.exists():
                return False
            self._journal = Journal.open(self.path, readonly=True)
        before = dict(self.results)
        for record in self._journal.records():
            self._fold(record, self._journal.last_crc)
        return before != self.results

    def _fold(self, record: Record, crc: int) -> None:
        machine = self._machine
        before = machine.state
        try:
            plan = machine.plan(record.event)
        except EntryError as exc:
            raise JournalError(
                f"{self.path}: event {record.seq} cannot be replayed ({exc})"
            ) from exc
        if plan.reset:
            if self._game is not None and before.winner is not None:
                self._store(self._game, before, final=True)
            self._game = _Game(record.seq, crc, record.at)
        machine.commit(plan)
        game = self._game
        if game is None:
            return
        after = machine.state
        game.last = (record.seq, crc)
        key = game_id(game.first_seq, game.first_crc)
        if after.winner is None:
            game.won = None
            self.results.pop(key, None)
        else:
            if before.winner is None or plan.reset:
                game.won = (record.seq, record.at)
            self._store(game, after, final=False)

    def _store(self, game: _Game, state: GameState, *, final: bool) -> None:
        assert state.winner is not None and game.won is not None
        setup = state.setup
        names = list(setup.track_names())
        scores = [t.front for t in state.tracks]
        winner = state.winner
        best_loser = max((s for i, s in enumerate(scores) if i != winner), default=0)
        key = game_id(game.first_seq, game.first_crc)
        self.results[key] = {
            "id": key,
            "board": self.board,
            "match": state.match_number,
            "game": state.game_number,
            "variant": setup.variant_name,
            "target": setup.target,
            "mode": setup.mode,
            "preset": setup.preset_name,
            "names": names,
            "scores": scores,
            "winner": winner,
            "winner_name": names[winner],
            "spread": scores[winner] - best_loser,
            "skunk": lines_failed(setup.target, best_loser),
            "game_points": state.won_points,
            "match_points": [t.game_points for t in state.tracks],
            "match_winner": state.match_winner,
            "start": iso_time(game.start_at),
            "end": iso_time(game.won[1]),
            "first_seq": game.first_seq,
            "won_seq": game.won[0],
            "seq": game.last[0],
            "crc": f"{game.last[1]:08x}",
            "final": final,
        }

    def close(self) -> None:
        if self._journal is not None:
            self._journal.close()
            self._journal = None


def finished_results(journal_path: Path, board: str | None = None) -> list[dict[str, Any]]:
    """Every result of the journal at ``journal_path``, in the order the games were played."""
    feed = ResultFeed(Path(journal_path), board or board_id(Path(journal_path)))
    try:
        feed.refresh()
        return sorted(feed.results.values(), key=lambda r: int(r["first_seq"]))
    finally:
        feed.close()
