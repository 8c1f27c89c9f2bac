"""The durable journal: every accepted event, one SQLite transaction each, on disk when
:meth:`Journal.append` returns, each row with a CRC-32 chained over every earlier row, checked on
every read; its schema version, snapshots and checks: docs/scorekeeping.md, "The journal".
"""

from __future__ import annotations

import bisect
import collections
import contextlib
import json
import logging
import os
import sqlite3
import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boardctl.errors import JournalError, SchemaError
from boardctl.store import integrity
from boardctl.store.integrity import Damage, Mark, MarkWriter, utc, writer_running
from boardctl.store.journal_file import BACKUP_DIR, backup_name, file_uri, wal_holds_data
from boardctl.store.journal_file import list_backups as list_backups
from boardctl.store.lock import WriterLock

log = logging.getLogger(__name__)

SCHEMA_VERSION = 6  # (what each version added: _migrate)
APPLICATION_ID = 0x42445354  # "BDST": marks a boardctl journal
#: Events a start reads and checks at least (more back to the current game's snapshot):
#: every event of a journal up to about 65 games, a bounded time (30 ms here) for a longer one.
CHECKED_AT_START = 5_000
BACKUPS_KEPT = 10
READ_AT_ONCE = 10_000  # events a reader of every event holds at once (a journal's replay)
#: The kept rows of a game start: the first event they span, the games finished since (with
#: their entries), their results, their CSV rows, and the running totals (None: no totals row
#: written).
Kept = tuple[int, str, str, str, str | None]
_Row = tuple[int, float, str, int]  # seq, time, body, chained checksum
_REQUEST_INDEX = "CREATE UNIQUE INDEX events_request ON events (request) WHERE request IS NOT NULL"
_GAMES = """
CREATE TABLE games (
    seq   INTEGER PRIMARY KEY, -- a game start (a snapshot's event): the games finished before it
    first INTEGER NOT NULL,    -- ... from this event on (the game start before, or 1)
    body  TEXT    NOT NULL,    -- those games as compact JSON (a cache of the results fold)
    crc   INTEGER NOT NULL     -- CRC-32 of body, chained from that event's crc
)
"""
_TALLIES = (
    """
CREATE TABLE results (
    seq   INTEGER PRIMARY KEY, -- a game start with a games row: the results of its games
    body  TEXT    NOT NULL,    -- as compact JSON lists, without entries (what results prints)
    crc   INTEGER NOT NULL     -- CRC-32 of body, chained from that event's crc
)
""",
    """
CREATE TABLE totals (
    seq   INTEGER PRIMARY KEY, -- the latest game start: the records of every game before it
    body  TEXT    NOT NULL,    -- the players' records as compact JSON (stats players)
    crc   INTEGER NOT NULL     -- CRC-32 of body, chained from that event's crc
)
""",
)
_CSV = """
CREATE TABLE csv (
    seq   INTEGER PRIMARY KEY, -- a game start with a games row: the CSV rows of its games
    body  TEXT    NOT NULL,    -- as a JSON list of each row's text after its board cell
    crc   INTEGER NOT NULL     -- CRC-32 of body, chained from that event's crc and from the
)                              -- game start before it (its games row's first: 1 if none)
"""
_CSV_CHAIN = """
CREATE TABLE csv_chain (
    seq   INTEGER PRIMARY KEY, -- the latest game start with a csv row (one row)
    body  TEXT    NOT NULL,    -- the checksum of every csv row to it, in order from the first,
    crc   INTEGER NOT NULL     -- each chained from the one before (decimal); CRC-32 of body,
)                              -- chained from that event's crc
"""
_SCHEMA = (
    """
CREATE TABLE events (
    seq  INTEGER PRIMARY KEY,  -- 1, 2, 3, ... without gaps
    at   REAL    NOT NULL,     -- wall-clock time (Unix seconds)
    body TEXT    NOT NULL,     -- the event as compact JSON
    crc  INTEGER NOT NULL,     -- CRC-32 of seq, at and body, chained over earlier rows
    request TEXT               -- the request id that wrote it (a repeat writes nothing)
)
""",
    _REQUEST_INDEX,
    """
CREATE TABLE snapshots (
    seq  INTEGER PRIMARY KEY,  -- the event after which this state holds (a game start)
    body TEXT    NOT NULL,     -- the state as compact JSON (a cache of the replay)
    crc  INTEGER NOT NULL      -- CRC-32 of body, chained from that event's crc
)
""",
    _GAMES,
    *_TALLIES,
    _CSV,
    _CSV_CHAIN,
)


def span(seconds: float) -> str:
    """A length of time as people say it: ``400 days``, ``3 hours``, ``12 s``."""
    for unit, size in (("days", 86400), ("hours", 3600), ("min", 60)):
        if seconds >= 2 * size:
            return f"{seconds / size:.0f} {unit}"
    return f"{seconds:.0f} s"


CLOCK_KEY = "_clock"  # in a stored body: the wall clock's reading when it was behind
CLOCK_JUMP = 1.0  # seconds behind the last event from which a clock's step back is noted


@dataclass(frozen=True, slots=True)
class Record:
    """One journal row: sequence number (from 1), time (never going back), the event, and the
    wall clock's own reading where it was behind (:func:`stamp`; else None)."""

    seq: int
    at: float
    event: dict[str, Any]
    clock: float | None = None
    crc: int = 0  # the chained checksum, where the reader gives it (:meth:`Journal.page`)


def stamp(now: float, last: float) -> tuple[float, float | None]:
    """An event's time after one at ``last`` when the clock reads ``now``, never before
    ``last``, and the clock's reading if it is :data:`CLOCK_JUMP` or more behind (``history``
    shows it)."""
    if now >= last:
        return now, None
    return last, (now if last - now >= CLOCK_JUMP else None)


def encode_event(event: Mapping[str, Any]) -> str:
    """The stored form of an event: compact JSON with sorted keys."""
    return json.dumps(event, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def row_crc(seq: int, at: float, body: str, previous: int) -> int:
    """The checksum stored with a row, chained from the previous row's."""
    return zlib.crc32(f"{seq}\x1f{at!r}\x1f{body}".encode(), previous)


def _damaged(path: str | os.PathLike[str], exc: BaseException) -> JournalError:
    """Damage, unless the surroundings explain the error (read-only, full, permissions)."""
    from boardctl.store.diagnose import environment_problem

    problem = environment_problem(path, exc)
    if problem is not None:
        return JournalError(f"cannot use journal {path}: {problem}")
    return JournalError(
        f"journal {path} is damaged or unreadable ({exc}); move it aside to start afresh "
        "or restore a backup"
    )


def _cannot(what: str, path: str | os.PathLike[str], exc: BaseException) -> JournalError:
    """``cannot <what> journal <path>: <reason and fix>`` (or SQLite's own words)."""
    from boardctl.store.diagnose import environment_problem

    return JournalError(f"cannot {what} journal {path}: {environment_problem(path, exc) or exc}")


def connect(path: str | os.PathLike[str], target: str, *, uri: bool = False) -> sqlite3.Connection:
    """An SQLite connection to ``target`` (autocommit, 5 s busy timeout)."""
    try:
        return sqlite3.connect(
            target, uri=uri, isolation_level=None, timeout=5.0, check_same_thread=False
        )
    except sqlite3.Error as exc:
        raise _cannot("open", path, exc) from exc


def reader(path: str | os.PathLike[str]) -> sqlite3.Connection:
    """A read-only connection, also for a user who may not write beside the file (and so
    cannot create the WAL index: with no writer about, the file is read as immutable)."""
    connection = connect(path, file_uri(path, "ro"), uri=True)
    try:
        connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.OperationalError:
        connection.close()
        if wal_holds_data(path):
            raise JournalError(
                f"cannot read journal {path} while the service writes it "
                "(no permission to share it; ask the service, or run as its user)"
            ) from None
        connection = connect(path, file_uri(path, "ro&immutable=1"), uri=True)
    except (sqlite3.Error, UnicodeDecodeError) as exc:  # a garbled schema: its message too
        connection.close()
        raise _damaged(path, exc) from exc
    return connection


#: The journals this process has open through SQLite (real paths, each with its count). A file
#: descriptor of such a file closed outside SQLite drops every POSIX lock the process holds on
#: it, SQLite's too: another process's connection could then take the writer's WAL away.
_IN_USE: collections.Counter[str] = collections.Counter()


def check_version(path: str | os.PathLike[str]) -> None:
    """Refuse a file we cannot use, changing nothing: its header read as bytes first (not in
    a process that has it open: see :data:`_IN_USE`), then by SQLite, read-only, which sees a
    newer header still in the WAL."""
    if _IN_USE[os.path.realpath(path)] <= 0:
        try:
            with open(path, "rb") as file:
                header = file.read(100)
        except OSError as exc:
            raise JournalError(f"cannot read journal {path}: {exc}") from exc
        if len(header) < 100 or not header.startswith(b"SQLite format 3\x00"):
            raise JournalError(f"{path} is not a boardctl journal (not an SQLite file)")
        version, app_id = (int.from_bytes(header[at : at + 4], "big") for at in (60, 68))
        refuse(path, version, app_id, tables=False)
    with contextlib.closing(reader(path)) as probe:
        check_identity(probe, path)


def check_identity(db: sqlite3.Connection, path: str | os.PathLike[str]) -> int:
    """The schema version as SQLite reads it (a newer header in the WAL too), once
    :func:`refuse` has checked it and the identity."""
    try:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        app_id = db.execute("PRAGMA application_id").fetchone()[0]
        tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    except sqlite3.Error as exc:
        raise _damaged(path, exc) from exc
    refuse(path, version, app_id, tables=bool(tables))
    return int(version)


def refuse(path: str | os.PathLike[str], version: int, app_id: int, *, tables: bool) -> None:
    """Refuse a newer schema (:class:`SchemaError`) and an SQLite file that is not a journal."""
    if version > SCHEMA_VERSION:
        raise SchemaError(
            f"journal {path} has schema version {version}, newer than this boardctl "
            f"understands ({SCHEMA_VERSION}); upgrade boardctl (the file was not changed)"
        )
    if (version or tables) and app_id != APPLICATION_ID:
        raise JournalError(f"{path} is an SQLite file but not a boardctl journal")


def checked_rows(rows: list[_Row], path: str | os.PathLike[str], seq: int, crc: int) -> list[_Row]:
    """``rows`` (following event ``seq`` whose chained checksum is ``crc``), checked: the
    sequence has no gaps and every stored checksum is the chained one (the first that
    fails is named)."""
    crc32 = zlib.crc32
    for row_seq, at, body, stored in rows:
        seq += 1
        if row_seq != seq:
            raise JournalError(
                f"journal {path}: event {seq} is missing (next is {row_seq}); "
                "the file is damaged — move it aside or restore a backup"
            )
        if not isinstance(body, str) or not isinstance(at, float):
            raise _damaged(path, ValueError(f"event {row_seq} has a malformed row"))
        crc = crc32(f"{seq}\x1f{at!r}\x1f{body}".encode(), crc)  # row_crc, inlined
        if crc != stored:
            raise JournalError(
                f"journal {path}: checksum mismatch at event {row_seq}; the file "
                "is damaged — move it aside or restore a backup"
            )
    return rows


def _migrate(db: sqlite3.Connection, version: int) -> None:
    """Bring an older journal up to :data:`SCHEMA_VERSION` (inside the caller's transaction)."""
    if version < 2:  # 1 -> 2: the request id column; old rows have none
        db.execute("ALTER TABLE events ADD COLUMN request TEXT")
        db.execute(_REQUEST_INDEX)
    if version < 3:  # 2 -> 3: the games table (boardctl.results.kept); rebuilt when missing
        db.execute(_GAMES)
    if version < 4:  # 3 -> 4: results and totals beside the games rows; rebuilt when missing
        for statement in _TALLIES:
            db.execute(statement)
    if version < 5:  # 4 -> 5: the results' CSV rows beside them; rebuilt when missing
        db.execute(_CSV)
    if version < 6:  # 5 -> 6: the csv rows' chained checksum; made at the next game start
        db.execute(_CSV_CHAIN)
    db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")


def _csv_crc(body: str, first: int, crc: int) -> int:
    """A ``csv`` row's checksum: its body, chained from its event's ``crc`` and its ``first``."""
    return zlib.crc32(f"{first}{body}".encode(), crc)


def _chained(rows: Iterable[tuple[int, str]]) -> tuple[int, int]:
    """The game start where ``csv`` rows ``(seq, body)`` end (1: none), and their checksums
    chained one from the other from the first, each as if it began where the one before
    ended (the ``csv_chain`` row's body)."""
    covered, value = 1, 0
    crc32 = zlib.crc32
    for seq, body in rows:  # _csv_crc, inlined
        value, covered = crc32(f"{covered}{body}".encode(), value), seq
    return covered, value


def _state(snapshot: tuple[int, str, int] | None, crc: int) -> dict[str, Any] | None:
    """A stored snapshot's state, if its checksum chains from its event's ``crc`` (else None)."""
    if snapshot is None or zlib.crc32(snapshot[1].encode(), crc) != snapshot[2]:
        return None
    try:
        value = json.loads(snapshot[1])
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


@contextlib.contextmanager
def _transaction(db: sqlite3.Connection) -> Iterator[None]:
    """``BEGIN IMMEDIATE`` ... ``COMMIT``; rolled back if anything goes wrong inside."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


class JournalChanged(JournalError):
    """Another process appended to the journal: re-read it (the entry was not saved)."""


class Journal:
    """An open journal file. Use :meth:`open`; close with :meth:`close` or ``with``."""

    def __init__(self, path: Path, connection: sqlite3.Connection, *, readonly: bool) -> None:
        self.path = path
        self.readonly = readonly
        self._db = connection
        self._in_use: str | None = os.path.realpath(path)  # counted in _IN_USE until closed
        _IN_USE[self._in_use] += 1  # (no raw open of the file in this process from now on)
        self.last_seq = 0  # the last event read or written (0: none)
        self.last_crc = 0  # its chained checksum (identifies the whole journal)
        self._last_at = 0.0  # the time of the last event read or written
        self._clock_behind = False  # the wall clock is behind the last event (logged once)
        self.damage: Damage | None = None  # damage found at open (or still standing)
        self.backup_on_close = False  # the service sets it: a backup at every clean shutdown
        self._mark: MarkWriter | None = None
        self._lock: WriterLock | None = None
        self._request: str | None = None  # the request id the next append records
        self.starts_pending = False  # a thread stores the game starts: none keeps rows now

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        *,
        readonly: bool = False,
        owner: str = "cli",
        check_pages: bool = True,
    ) -> Journal:
        """Open (or, unless ``readonly``, create) the journal at ``path``.

        A writer holds the writer lock as ``owner`` (:mod:`.lock`) until :meth:`close`.
        Raises :class:`~boardctl.store.lock.JournalBusy` if another writer has it,
        :class:`SchemaError` for a newer schema (the file is not touched) and
        :class:`JournalError` for anything unreadable. :meth:`check_pages` is left to the
        caller if not ``check_pages``, and to the writer if one runs while a reader opens.
        """
        path = Path(path)
        with contextlib.ExitStack() as undo:  # on failure: the connection closed, the lock let go
            lock: WriterLock | None = None
            if not readonly:
                try:
                    path.parent.mkdir(parents=True, exist_ok=True)
                except OSError as exc:
                    raise _cannot("create the folder for", path, exc) from exc
                lock = WriterLock.acquire(path, owner)
                undo.callback(lock.release)
            found = cls._look_for_damage(path, readonly)  # before SQLite opens anything
            try:
                exists = path.exists() and path.stat().st_size > 0
            except OSError as exc:
                raise _cannot("reach", path, exc) from exc
            if readonly and not exists:
                raise JournalError(
                    f"no journal at {path} (is the service set up? try --journal PATH)"
                )
            if exists:
                check_version(path)
            connection = reader(path) if readonly else connect(path, str(path))
            undo.callback(connection.close)
            journal = cls(path, connection, readonly=readonly)
            undo.callback(journal.close)  # (no longer counted in _IN_USE either)
            if not readonly:
                journal._prepare()
            if check_pages and (not readonly or not writer_running(str(path))):
                journal.check_pages()  # (a running writer checked it)
            journal.damage = found or integrity.read_notice(path)
            if not readonly:
                journal._mark = MarkWriter(path)
                journal._lock = lock
            undo.pop_all()
        return journal

    @staticmethod
    def _look_for_damage(path: Path, readonly: bool) -> Damage | None:
        """The checks of :mod:`.integrity`: a writer sets damaged files aside and logs the
        report; a reader while no writer runs (one that does checked at its open) changes
        nothing and raises :class:`~boardctl.store.integrity.JournalDamaged`."""
        if readonly and writer_running(str(path)):
            return None
        check = integrity.check_read_only if readonly else integrity.check_before_open
        try:
            found = check(path)
        except (OSError, sqlite3.Error) as exc:
            raise _cannot("check for damage", path, exc) from exc
        if found is not None and readonly:
            raise integrity.JournalDamaged(found)
        if found is not None:
            log.error("%s", found.summary())
        return found

    def stored_seq(self) -> int:
        """The last event stored (another process may have written it since this one read)."""
        return int(self._query("SELECT max(seq) FROM events")[0][0] or 0)

    def _prepare(self) -> None:
        """WAL mode, full sync, and the schema for a new file (or the migration of an old one)."""
        db = self._db
        try:
            check_identity(db, self.path)  # before any write
            mode = db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise JournalError(f"journal {self.path}: cannot use WAL mode (got {mode})")
            db.execute("PRAGMA synchronous=FULL")
            with _transaction(db):
                version = check_identity(db, self.path)
                if version == 0:
                    for statement in _SCHEMA:
                        db.execute(statement)
                    db.execute(f"PRAGMA application_id={APPLICATION_ID}")
                    db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
                elif version < SCHEMA_VERSION:
                    _migrate(db, version)
            if version == 0:  # the empty journal goes into the main file at once
                db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        except sqlite3.Error as exc:
            raise _damaged(self.path, exc) from exc

    def check_pages(self) -> None:
        """SQLite's own structural check (the whole file: 0.1-0.4 s for 10,000 games here)."""
        result = [row[0] for row in self._query("PRAGMA quick_check")]
        if result != ["ok"]:
            raise _damaged(self.path, ValueError("; ".join(map(str, result[:3]))))

    def _rows(self, limit: int = -1) -> list[_Row]:
        """Rows not yet read (the next ``limit``), checked (sequence without gaps, chained
        checksum)."""
        rows = self._query(
            "SELECT seq, at, body, crc FROM events WHERE seq > ? ORDER BY seq LIMIT ?",
            (self.last_seq, limit),
        )
        return checked_rows(rows, self.path, self.last_seq, self.last_crc)

    def _record(self, seq: int, at: float, body: str, crc: int = 0) -> Record:
        try:
            event = json.loads(body)
        except ValueError as exc:
            raise _damaged(self.path, exc) from exc
        if not isinstance(event, dict):
            raise _damaged(self.path, ValueError(f"event {seq} is not an object"))
        clock = event.pop(CLOCK_KEY, None)  # (the engine never sees it)
        return Record(seq, at, event, float(clock) if isinstance(clock, int | float) else None, crc)

    def records(self) -> Iterator[Record]:
        """Every event not yet read, in order, checked (read :data:`READ_AT_ONCE` at a time)."""
        while rows := self._rows(READ_AT_ONCE):
            for seq, at, body, crc in rows:
                record = self._record(seq, at, body)
                self.last_seq, self.last_crc, self._last_at = seq, crc, at
                yield record

    def event_rows(self, limit: int = -1) -> list[tuple[int, float, dict[str, Any], int]]:
        """Every event not yet read (the next ``limit``) as ``(seq, time, event, chained
        crc)``, checked: :meth:`records` decoded in one pass (three times faster)."""
        rows = self._rows(limit)
        try:
            events = json.loads("[" + ",".join(body for _, _, body, _ in rows) + "]")
        except ValueError:
            events = []
        if len(events) != len(rows) or not all(isinstance(event, dict) for event in events):
            # a damaged row: decode one by one to name it
            events = [self._record(seq, at, body).event for seq, at, body, _ in rows]
        else:
            for event in events:
                event.pop(CLOCK_KEY, None)
        if rows:
            self.last_seq, self.last_crc, self._last_at = rows[-1][0], rows[-1][3], rows[-1][1]
        return [
            (seq, at, event, crc) for (seq, at, _, crc), event in zip(rows, events, strict=True)
        ]

    def resume(self) -> tuple[dict[str, Any] | None, list[Record]]:
        """The latest snapshot and the events from its own on (``(None, [])`` without one:
        replay :meth:`records`).

        Only the last :data:`CHECKED_AT_START` events (or more, back to the snapshot) are
        read and checked, from the stored checksum of the event before them: a long journal
        resumes as fast as a short one (``docs/performance.md``, "Years of play").
        """
        last = self.stored_seq()
        found = self._snapshot_at(last)
        start = max(1, last - CHECKED_AT_START + 1)
        if found:
            start = min(start, int(found[0]))
        rows = self._rows_from(start, last)
        index = found[0] - start if found else -1
        snapshot = _state(found, rows[index][3]) if 0 <= index < len(rows) else None
        if snapshot is None:  # no usable snapshot: the caller reads every event (records)
            return None, []
        records = [self._record(seq, at, body) for seq, at, body, _ in rows[index:]]
        self.last_seq, self.last_crc, self._last_at = rows[-1][0], rows[-1][3], rows[-1][1]
        return snapshot, records

    def page(self, first: int, last: int) -> tuple[dict[str, Any] | None, Iterator[Record]]:
        """The latest snapshot at or before event ``first`` and the events, with their chained
        checksums, from its own to ``last`` (without one: ``None``, from the first event).

        Only these rows are read, checked from the stored checksum of the row before: a
        page of ``history --all`` costs the game it starts in and the page, not the journal.
        The records are decoded as they are taken (a reader may pause between them).
        """
        found = self._snapshot_at(first)
        start = int(found[0]) if found else 1
        rows = self._rows_from(start, last)
        snapshot = _state(found, rows[0][3]) if rows else None
        if snapshot is None and start > 1:  # an unusable snapshot: from the first event
            rows = self._rows_from(1, last)
        return snapshot, (self._record(*row) for row in rows)

    def _snapshot_at(self, seq: int) -> tuple[int, str, int] | None:
        """The latest stored snapshot at or before event ``seq``: (seq, body, crc)."""
        found = self._query(
            "SELECT seq, body, crc FROM snapshots WHERE seq <= ? ORDER BY seq DESC LIMIT 1", (seq,)
        )
        return found[0] if found else None

    def _query(self, sql: str, parameters: tuple[int | str, ...] = ()) -> list[Any]:
        try:
            return self._db.execute(sql, parameters).fetchall()
        except sqlite3.Error as exc:
            raise _damaged(self.path, exc) from exc

    def _rows_from(self, start: int, last: int) -> list[_Row]:
        """Rows ``start`` to ``last``, checked from the stored checksum of the row before."""
        before = self._query("SELECT crc FROM events WHERE seq = ?", (start - 1,))
        rows = self._query(
            "SELECT seq, at, body, crc FROM events WHERE seq >= ? AND seq <= ? ORDER BY seq",
            (start, last),
        )
        return checked_rows(rows, self.path, start - 1, int(before[0][0]) if before else 0)

    def _insert_games(self, seq: int, crc: int, kept: Kept) -> None:
        first, body, results, rows, totals = kept
        db = self._db
        db.execute(
            "INSERT OR REPLACE INTO games (seq, first, body, crc) VALUES (?, ?, ?, ?)",
            (seq, first, body, zlib.crc32(body.encode(), crc)),
        )
        self._put("results", seq, results, crc)
        db.execute(
            "INSERT OR REPLACE INTO csv (seq, body, crc) VALUES (?, ?, ?)",
            (seq, rows, _csv_crc(rows, first, crc)),
        )
        self._chain_csv(seq, crc, first, rows)
        if totals is not None:  # one row: the latest
            db.execute("DELETE FROM totals")
            self._put("totals", seq, totals, crc)

    def _put(self, table: str, seq: int, body: str, crc: int) -> None:
        """Store ``body`` as the row of event ``seq`` in ``table``, chained from its ``crc``."""
        self._db.execute(
            f"INSERT OR REPLACE INTO {table} (seq, body, crc) VALUES (?, ?, ?)",
            (seq, body, zlib.crc32(body.encode(), crc)),
        )

    def _chain_csv(self, seq: int, crc: int, first: int, rows: str) -> None:
        """The ``csv_chain`` row for a csv row just stored at game start ``seq``: the chain at
        the game start before it (``first``) carried on, else made from the rows themselves,
        each checked (after a migration, or where a rebuild begins); none if they do not
        reach ``first``."""
        found = self.latest("csv_chain")
        if found is not None and found[0] == first < seq:
            before: int | None = int(found[1])
        else:
            covered, before = _chained(self._checked_csv(min(first + 1, seq)))
            before = before if covered == first else None
        self._db.execute("DELETE FROM csv_chain")
        if before is not None:
            self._put("csv_chain", seq, str(_csv_crc(rows, first, before)), crc)

    def latest(self, table: str) -> tuple[int, str] | None:
        """The latest row of ``table`` (one of a single row: ``totals``, ``csv_chain``), (seq,
        body), if its checksum chains from its event's."""
        for seq, body, stored, crc in self._query(
            f"SELECT t.seq, t.body, t.crc, e.crc FROM {table} t JOIN events e USING (seq) "
            "ORDER BY t.seq DESC LIMIT 1"
        ):
            if zlib.crc32(body.encode(), crc) == stored:
                return int(seq), body
        return None

    def _checked_csv(self, end: int = 1 << 62) -> list[tuple[int, str]]:
        """The ``csv`` rows (before event ``end``) from the first on, while each one begins at
        the game start of the one before and chains from its own event's checksum."""
        covered, rows = 1, []
        for seq, body, stored, crc in self._query(
            "SELECT t.seq, t.body, t.crc, e.crc FROM csv t JOIN events e USING (seq) "
            "WHERE t.seq < ? ORDER BY t.seq",
            (end,),
        ):
            if _csv_crc(body, covered, crc) != stored:
                break
            rows.append((seq, body))
            covered = seq
        return rows

    def game_rows(self, after: int = 0, table: str = "games") -> Iterator[tuple[int, int, str]]:
        """The stored ``games`` rows after game start ``after`` (0 or 1: from the first event
        on), (seq, first, body), in order, read a few at a time, while each begins where the
        one before ended and its checksum chains from its event's (:mod:`boardctl.results.kept`).
        ``table="results"``: the results rows, with the ``first`` of their games rows."""
        covered = max(after, 1)
        try:
            cursor = self._db.execute(
                f"SELECT t.seq, g.first, t.body, t.crc, e.crc FROM {table} t "
                "JOIN games g USING (seq) JOIN events e USING (seq) WHERE t.seq > ? ORDER BY t.seq",
                (after,),
            )
            while rows := cursor.fetchmany(64):
                for seq, first, body, stored, crc in rows:
                    if first != covered or zlib.crc32(body.encode(), crc) != stored:
                        return
                    yield seq, first, body
                    covered = seq
        except sqlite3.Error as exc:
            raise _damaged(self.path, exc) from exc

    def csv_rows(self) -> tuple[int, list[str]]:
        """The ``csv`` rows from the first event on while each begins at the game start of the
        one before and chains from its event's checksum: the game start where they end (1:
        none) and their bodies (none before schema 5). One checksum checks them all when the
        ``csv_chain`` row holds; else each row is checked against its own event."""
        version = int(self._query("PRAGMA user_version")[0][0])
        if version < 5:
            return 1, []
        found = self.latest("csv_chain") if version >= 6 else None
        rows = []
        if found is not None:
            sql = "SELECT seq, body FROM csv WHERE seq <= ? ORDER BY seq"
            rows = self._query(sql, (found[0],))
        if found is None or _chained(rows) != (found[0], int(found[1])):
            rows = self._checked_csv()
        return (rows[-1][0] if rows else 1), [body for _, body in rows]

    def start_before(self, at: float) -> int:
        """The last game start with a ``games`` row whose event is before time ``at`` (1:
        none): a binary search over the events' times, which never go back (about 20
        lookups by seq, at 10,000 games as at 10)."""
        before = bisect.bisect_left(  # the events up to this one are before at
            range(1, self.stored_seq() + 1),
            at,
            key=lambda seq: self._query("SELECT at FROM events WHERE seq = ?", (seq,))[0][0],
        )
        found = self._query("SELECT max(seq) FROM games WHERE seq <= ?", (before,))[0][0]
        return int(found or 1)

    def event_crcs(self, seqs: Iterable[int]) -> dict[int, int]:
        """The stored chained checksums of events ``seqs`` (one query)."""
        found = self._query(
            "SELECT seq, crc FROM events WHERE seq IN (SELECT value FROM json_each(?))",
            (json.dumps(list(seqs)),),
        )
        return {int(seq): int(crc) for seq, crc in found}

    def kept_in_doubt(self) -> bool:
        """True unless a snapshot is stored at event 1 (or there are no events), the last
        snapshot has a games, a results, a csv and the totals row and no later event has one,
        and its games row begins at the snapshot before it (1: none). A few lookups: the
        rows' checksums and gaps are their readers' to find (:mod:`boardctl.results.kept`)."""
        found = self._query(
            "SELECT (SELECT max(seq) FROM events), (SELECT min(seq) FROM snapshots), "
            "(SELECT max(seq) FROM snapshots), (SELECT max(seq) FROM games), "
            "(SELECT max(seq) FROM results), (SELECT max(seq) FROM csv), "
            "(SELECT max(seq) FROM totals), "
            "(SELECT first FROM games ORDER BY seq DESC LIMIT 1), "
            "(SELECT seq FROM snapshots ORDER BY seq DESC LIMIT 1 OFFSET 1)"
        )[0]
        events, first, last, games, results, rows, totals, begins, before = found
        if first is None:
            return bool(events)
        kept = last == games == results == rows == totals
        return first != 1 or not kept or begins != (before or 1)

    def store_starts(self, starts: Iterable[tuple[int, str, Kept]]) -> None:
        """Store, in one durable transaction (or in the one :meth:`append_all` runs ``then``
        in), ``(seq, snapshot, kept rows)`` for game starts read back from the journal."""
        if self.readonly:
            raise JournalError(f"journal {self.path} is open read-only")
        db = self._db
        within = contextlib.nullcontext() if db.in_transaction else _transaction(db)
        try:
            with within:
                for seq, state, kept in starts:
                    crc = int(self._query("SELECT crc FROM events WHERE seq = ?", (seq,))[0][0])
                    self._put("snapshots", seq, state, crc)
                    self._insert_games(seq, crc, kept)
        except sqlite3.Error as exc:
            raise _cannot("write", self.path, exc) from exc

    def sibling(self) -> Journal:
        """A second connection of this writer, for a thread that stores game starts beside it
        (the writer lock stays with this one; closing the sibling closes its connection)."""
        return Journal(self.path, connect(self.path, str(self.path)), readonly=self.readonly)

    def rewind(self) -> None:
        """Forget what was read, so that :meth:`records` starts again from the first event."""
        self.last_seq, self.last_crc, self._last_at = 0, 0, 0.0

    def append(
        self,
        event: Mapping[str, Any],
        *,
        at: float | None = None,
        snapshot: Mapping[str, Any] | None = None,
        games: Kept | None = None,
    ) -> Record:
        """Append one event in its own durable transaction; return its record.

        ``snapshot`` (the state right after it, JSON-able) is stored in the same
        transaction for :meth:`resume`, and so are the kept rows ``games`` with it.
        """
        if self.readonly:
            raise JournalError(f"journal {self.path} is open read-only")
        at, clock = self._stamp(time.time() if at is None else float(at))
        body = encode_event(event if clock is None else {**event, CLOCK_KEY: clock})
        seq = self.last_seq + 1
        crc = row_crc(seq, at, body, self.last_crc)
        row = (seq, at, body, crc, self._request)
        self._request = None  # one request, one event
        insert = "INSERT INTO events (seq, at, body, crc, request) VALUES (?, ?, ?, ?, ?)"
        db = self._db
        try:
            if snapshot is None:
                db.execute(insert, row)
            else:
                state = encode_event(snapshot)
                with _transaction(db):
                    db.execute(insert, row)
                    self._put("snapshots", seq, state, crc)
                    if games is not None:
                        self._insert_games(seq, crc, games)
        except sqlite3.IntegrityError as exc:
            raise JournalChanged(
                f"journal {self.path} was written by another process; entry not saved"
            ) from exc
        except sqlite3.Error as exc:
            raise _cannot("write", self.path, exc) from exc
        self.last_seq, self.last_crc, self._last_at = seq, crc, at
        if self._mark is not None:
            self._mark.write(Mark(seq, crc, at))
        if snapshot is not None and self.damage is not None and seq > 1:
            # a new game the players chose (not a journal's first, as one rebuilt empty
            # begins): the sign goes, the copies stay
            integrity.clear_notice(self.path)
            self.damage = None
        return self._record(seq, at, body)

    def _stamp(self, now: float) -> tuple[float, float | None]:
        """:func:`stamp` after the last event; a step back of the clock is logged once."""
        at, clock = stamp(now, self._last_at)
        if clock is not None and not self._clock_behind:
            log.warning(
                "the wall clock went back %s (it reads %s, the last entry was at %s): "
                "entries keep the last entry's time until the clock catches up",
                span(self._last_at - now),
                utc(now),
                utc(self._last_at),
            )
            self._clock_behind = True
        elif now >= self._last_at and self._clock_behind:
            log.warning("the wall clock has caught up with the journal (%s)", utc(now))
            self._clock_behind = False
        return at, clock

    def reopen(self) -> None:
        """A new connection after a failed write, so that what is read is what the file holds.

        After an fsync error the frames of the failed commit can be in the WAL, invisible
        now and replayed by the next process to open it. Closing the connection and opening
        a fresh one settles it; the caller reads on from :attr:`last_seq` to learn whether
        the entry is there.
        """
        with contextlib.suppress(sqlite3.Error):
            self._db.close()
        self._db = connect(self.path, str(self.path))
        try:
            self._db.execute("PRAGMA synchronous=FULL")
        except sqlite3.Error as exc:
            raise _cannot("reopen", self.path, exc) from exc

    def tag_next(self, request: str | None) -> None:
        """Record ``request`` (a client's request id) with the next event appended."""
        self._request = request

    def find_request(self, request: str) -> Record | None:
        """The event written by ``request``, if any (a repeat must not write again)."""
        try:
            row = self._db.execute(
                "SELECT seq, at, body FROM events WHERE request = ?", (request,)
            ).fetchone()
        except sqlite3.Error as exc:
            raise _cannot("read", self.path, exc) from exc
        return None if row is None else self._record(int(row[0]), float(row[1]), row[2])

    def backup(self, reason: str = "manual") -> Path:
        """A consistent copy in ``backups/`` (SQLite's backup API); keep the last few."""
        folder = self.path.parent / BACKUP_DIR
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        target = folder / backup_name(self.path, stamp, self.last_seq, reason)
        temporary = target.with_suffix(".tmp")
        try:
            folder.mkdir(mode=0o750, exist_ok=True)
            with contextlib.closing(sqlite3.connect(temporary)) as copy:
                self._db.backup(copy)
                copy.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
            with temporary.open("rb") as file:
                os.fsync(file.fileno())
            os.replace(temporary, target)
        except (OSError, sqlite3.Error) as exc:
            with contextlib.suppress(OSError):
                temporary.unlink()
            raise JournalError(f"cannot back up journal {self.path} into {folder}: {exc}") from exc
        for old in list_backups(self.path)[:-BACKUPS_KEPT]:
            with contextlib.suppress(OSError):
                old.unlink()
        return target

    def append_all(
        self,
        events: Iterable[tuple[Mapping[str, Any], float]],
        *,
        then: Callable[[], object] | None = None,
    ) -> int:
        """Append many ``(event, at)`` pairs in one durable transaction (all or none); return
        the last seq. ``then`` runs inside it once the events are in, reading on from the
        journal's position to store their snapshots (:func:`boardctl.results.kept.import_events`).
        """
        if self.readonly:
            raise JournalError(f"journal {self.path} is open read-only")
        seq, crc, last = self.last_seq, self.last_crc, self._last_at
        rows = []
        for event, given in events:
            at, clock = stamp(float(given), last)
            body = encode_event(event if clock is None else {**event, CLOCK_KEY: clock})
            seq += 1
            crc = row_crc(seq, at, body, crc)
            rows.append((seq, at, body, crc))
            last = at
        db = self._db
        position = self.last_seq, self.last_crc, self._last_at
        try:
            with _transaction(db):
                db.executemany("INSERT INTO events (seq, at, body, crc) VALUES (?, ?, ?, ?)", rows)
                if then is not None:
                    try:
                        then()
                    finally:  # it read on: the position is set below, or stays as it was
                        self.last_seq, self.last_crc, self._last_at = position
        except sqlite3.IntegrityError as exc:
            raise JournalError(
                f"journal {self.path} was written by another process; reopen it"
            ) from exc
        except sqlite3.Error as exc:
            raise JournalError(f"cannot write journal {self.path}: {exc}") from exc
        self.last_seq, self.last_crc, self._last_at = seq, crc, last
        if self._mark is not None and rows:
            self._mark.write(Mark(seq, crc, rows[-1][1]))
        return seq

    def close(self) -> None:
        """Close the file (idempotent); a service's writer backs it up first."""
        if self.backup_on_close and not self.readonly:
            self.backup_on_close = False
            try:
                self.backup("shutdown")
            except JournalError as exc:
                log.warning("%s", exc)
        if self._mark is not None:
            self._mark.close()
            self._mark = None
        self._db.close()
        if self._in_use is not None:
            _IN_USE[self._in_use] -= 1
            self._in_use = None
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
