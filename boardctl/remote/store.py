"""What each side of a link keeps durably, in SQLite beside the journal (docs/remote.md, 'What
each side stores'; ``synchronous = FULL``: a row is on disk before the call returns)."""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from boardctl.remote.messages import RemoteError, decode

if TYPE_CHECKING:
    from boardctl.results.model import PlayedGame

log = logging.getLogger(__name__)

ANSWERS_FILE = "remote-answers.sqlite"
OUTBOX_FILE = "remote-outbox.sqlite"


class _Store:
    """A store's connection, its tables made if new."""

    def __init__(self, path: Path, *schema: str) -> None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA synchronous = FULL")
            for table in schema:
                self._db.execute(table)
        except sqlite3.Error as exc:
            raise RemoteError(f"cannot open {path}: {exc}") from None

    def close(self) -> None:
        self._db.close()


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True, default=str)


def _one(db: sqlite3.Connection, sql: str, key: str) -> dict[str, Any] | None:
    """The JSON object in ``sql``'s one column for ``key``, None for no row or a NULL."""
    row = db.execute(sql, (key,)).fetchone()
    return None if row is None or row[0] is None else dict(json.loads(row[0]))


class Answers(_Store):
    """The host's answers, by request id (see the module)."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            path,
            "CREATE TABLE IF NOT EXISTS answers ("
            "request_id TEXT PRIMARY KEY, answer TEXT NOT NULL, at REAL NOT NULL)",
        )

    def get(self, request_id: str) -> dict[str, Any] | None:
        return _one(self._db, "SELECT answer FROM answers WHERE request_id = ?", request_id)

    def put(self, request_id: str, answer: dict[str, Any]) -> None:
        """Keep the first answer to ``request_id`` (a later one never replaces it)."""
        self._db.execute(
            "INSERT OR IGNORE INTO answers VALUES (?, ?, ?)",
            (request_id, _dumps(answer), time.time()),
        )


class Outbox(_Store):
    """The joined board's commands until the host answers them (see the module)."""

    def __init__(self, path: Path, game: str = "") -> None:
        self.game = game  # the linked game's id: a board that joins another game starts afresh
        super().__init__(
            path,
            "CREATE TABLE IF NOT EXISTS outbox (number INTEGER PRIMARY KEY AUTOINCREMENT, "
            "game TEXT NOT NULL, request_id TEXT UNIQUE NOT NULL, request TEXT NOT NULL, "
            "made REAL NOT NULL, answer TEXT, after TEXT NOT NULL)",
            "CREATE TABLE IF NOT EXISTS results (game TEXT NOT NULL, key TEXT NOT NULL, "
            "message TEXT NOT NULL, kept REAL NOT NULL, PRIMARY KEY (game, message))",
        )
        self._lock = threading.Lock()  # the sender's thread and the board's
        # rows of the host's results, all games
        self.results_kept = int(self._db.execute("SELECT count(*) FROM results").fetchone()[0])

    def add(self, request: dict[str, Any], request_id: str | None = None) -> str:
        """Keep ``request`` with a new request id (or the one given); returns the id."""
        rid = request_id or uuid.uuid4().hex
        with self._lock:
            self._db.execute(
                "INSERT OR IGNORE INTO outbox (game, request_id, request, made, after) "
                "VALUES (?1, ?2, ?3, ?4, coalesce((SELECT request_id FROM outbox WHERE game = ?1 "
                "ORDER BY number DESC LIMIT 1), ''))",
                (self.game, rid, _dumps(request), time.time()),
            )
        return rid

    def pending(self) -> list[tuple[str, dict[str, Any], str]]:
        """The commands the host has not answered, oldest first: ``(request id, request, the
        request id of the command made before it)`` ("" for the first): the host takes a
        command only once it has answered that one."""
        with self._lock:
            rows = self._db.execute(
                "SELECT request_id, request, after FROM outbox WHERE answer IS NULL AND game = ? "
                "ORDER BY number",
                (self.game,),
            ).fetchall()
        return [(rid, dict(json.loads(text)), after) for rid, text, after in rows]

    def last_entry(self) -> str | None:
        """The request id of this board's last entry in this game (not an undo or a redo)
        that the host has not refused (answered or not yet), None if there is none."""
        with self._lock:
            rows = self._db.execute(
                "SELECT request_id, request, answer FROM outbox WHERE game = ? "
                "ORDER BY number DESC",
                (self.game,),
            )
            for rid, request, answer in rows:
                if json.loads(request).get("op") in ("undo", "redo"):
                    continue
                if answer is None or json.loads(answer).get("ok"):
                    return str(rid)
        return None

    def request(self, request_id: str) -> dict[str, Any] | None:
        """The command kept with ``request_id``, None if there is none."""
        with self._lock:
            return _one(self._db, "SELECT request FROM outbox WHERE request_id = ?", request_id)

    def answer(self, request_id: str) -> dict[str, Any] | None:
        with self._lock:
            return _one(self._db, "SELECT answer FROM outbox WHERE request_id = ?", request_id)

    def answered(self, request_id: str, answer: dict[str, Any]) -> bool:
        """Keep the host's answer; False if the id is not ours or was answered already."""
        with self._lock:
            cursor = self._db.execute(
                "UPDATE outbox SET answer = ? WHERE request_id = ? AND answer IS NULL",
                (_dumps(answer), request_id),
            )
        return cursor.rowcount == 1

    def keep_result(self, message: bytes, key: bytes) -> bool:
        """Keep the host's ``result`` message if it is one signed with ``key`` for this game
        (False, and logged, if not: forged or changed)."""
        try:
            decode(message, key=key, game=self.game, sender="host")
        except RemoteError as exc:
            log.warning("remote: refused the host's results: %s", exc)
            return False
        with self._lock:
            cursor = self._db.execute(
                "INSERT OR IGNORE INTO results VALUES (?, ?, ?, ?)",
                (self.game, key.hex(), message.decode(), time.time()),
            )
            self.results_kept += cursor.rowcount  # 0 for a message kept already
        return True

    def newest_result_end(self, key: bytes) -> str:
        """When the newest finished game of this game's kept results ended ("" for none)."""
        with self._lock:
            messages = self._db.execute(
                "SELECT message FROM results WHERE game = ?", (self.game,)
            ).fetchall()
        rows = [(self.game, key.hex(), message) for (message,) in messages]
        return max((played.result.end for played in _kept_games(rows, entries=False)), default="")


def _read(folder: Path, sql: str) -> list[Any]:
    """The rows of ``sql`` in the outbox in ``folder``, read only (none without an outbox)."""
    path = folder / OUTBOX_FILE
    if not path.exists():
        return []
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        return db.execute(sql).fetchall()


def linked_kept(folder: Path) -> int:
    """How many result messages of the host :func:`linked_games` reads from (they only grow:
    a reader that counted fewer than :attr:`Outbox.results_kept` reads them again)."""
    try:
        counted = _read(folder, "SELECT count(*) FROM results")
    except sqlite3.Error:
        return 0  # linked_games logs it
    return int(counted[0][0]) if counted else 0


def linked_games(folder: Path) -> list[PlayedGame]:
    """The finished games of the games this board joined (the host's, as kept in its outbox),
    each message checked again with its link key (a changed copy is left out, and logged)."""
    try:
        rows = _read(folder, "SELECT game, key, message FROM results ORDER BY kept")
    except sqlite3.Error as exc:
        log.warning("remote: cannot read the linked games' results: %s", exc)
        return []
    games: dict[tuple[str, str], PlayedGame] = {}  # the newest copy of each game
    for played in _kept_games(rows):
        games[(played.result.board, played.result.start)] = played
    return sorted(games.values(), key=lambda played: played.result.end)


def _kept_games(rows: list[Any], *, entries: bool = True) -> Iterator[PlayedGame]:
    """The games of kept ``result`` messages, ``(game, key hex, message)`` rows, each message
    checked with its link key (a forged or changed one is left out, and logged)."""
    from boardctl.results.kept import decode_games

    for game, key, message in rows:
        try:
            body = decode(message.encode(), key=bytes.fromhex(key), game=game, sender="host").body
            played = decode_games(str(body["games"]), str(body["board"]), entries=entries)
        except (RemoteError, ValueError, KeyError, TypeError) as exc:
            log.warning("remote: a kept result of game %s is refused: %s", game, exc)
            continue
        yield from played
