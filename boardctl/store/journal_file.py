"""Opening a journal file read-only and checking its rows: the journal's checks.

:class:`boardctl.store.journal.Journal` opens every journal through these
functions; :mod:`boardctl.store.diagnose` says why a file cannot be used.
Paths are strings or path objects alike.
"""

from __future__ import annotations

import collections
import contextlib
import os
import re
import sqlite3
import zlib
from pathlib import Path

from boardctl.errors import JournalError, SchemaError

TYPE_CHECKING = False
if TYPE_CHECKING:
    Row = tuple[int, float, str, int]  # seq, time, body, chained checksum

SCHEMA_VERSION = 6  # 2: events.request (the request that wrote the row); 3: the games table;
# 4: the results and totals tables; 5: the csv table; 6: the csv_chain table
APPLICATION_ID = 0x42445354  # "BDST": marks a boardctl journal
MARK_SUFFIX = "-mark"  # beside the journal: the last event the writer committed (integrity)
BACKUP_DIR = "backups"  # beside the journal: its backups (integrity)


def row_crc(seq: int, at: float, body: str, previous: int) -> int:
    """The checksum stored with a row, chained from the previous row's."""
    return zlib.crc32(f"{seq}\x1f{at!r}\x1f{body}".encode(), previous)


def file_uri(path: str | os.PathLike[str], mode: str) -> str:
    """An SQLite URI for ``path`` (percent-encoded) with ``mode=...``."""
    return f"{Path(os.path.abspath(path)).as_uri()}?mode={mode}"


def backup_name(journal: str | os.PathLike[str], stamp: str, seq: int, reason: str) -> str:
    """A backup's file name in ``backups/``: the journal's own name first, so that each
    journal in a folder finds only its own backups (``journal.sqlite``: ``journal-...``)."""
    return f"{_stem(journal)}-{stamp}-{seq:06d}-{reason}.sqlite"


def list_backups(journal: str | os.PathLike[str]) -> list[Path]:
    """The backups of ``journal``, oldest first."""
    name = os.fspath(journal)
    folder = os.path.join(os.path.dirname(os.path.abspath(name)), BACKUP_DIR)
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    own = re.compile(re.escape(f"{_stem(name)}-") + r"\d.*\.sqlite", re.DOTALL)
    return [Path(folder, n) for n in sorted(names) if own.fullmatch(n)]


def _stem(journal: str | os.PathLike[str]) -> str:
    return os.path.splitext(os.path.basename(os.fspath(journal)))[0]


def kept_here(path: str | os.PathLike[str]) -> bool:
    """True if a journal is or was kept at ``path``: the file, its mark, or its backups (a
    reader then opens it even if missing, so that the damage checks say what was lost)."""
    name = os.fspath(path)
    return any(os.path.exists(p) for p in (name, f"{name}{MARK_SUFFIX}")) or bool(
        list_backups(name)
    )


def file_size(path: str | os.PathLike[str]) -> int:
    """The size of the file at ``path`` in bytes (0 if there is none)."""
    try:
        return os.stat(path).st_size
    except FileNotFoundError:
        return 0


def wal_holds_data(journal: str | os.PathLike[str]) -> bool:
    """True when the journal's WAL file holds anything (a writer runs, or stopped hard)."""
    return file_size(f"{os.fspath(journal)}-wal") > 0


def damaged(path: str | os.PathLike[str], exc: BaseException) -> JournalError:
    """Damage, unless the surroundings explain the error (read-only, full, permissions)."""
    from boardctl.store.diagnose import environment_problem

    problem = environment_problem(path, exc)
    if problem is not None:
        return JournalError(f"cannot use journal {path}: {problem}")
    return JournalError(
        f"journal {path} is damaged or unreadable ({exc}); move it aside to start afresh "
        "or restore a backup"
    )


def cannot(what: str, path: str | os.PathLike[str], exc: BaseException) -> JournalError:
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
        raise cannot("open", path, exc) from exc


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
        raise damaged(path, exc) from exc
    return connection


#: The journals this process has open through SQLite (real paths, each with its count). A file
#: descriptor of such a file closed outside SQLite drops every POSIX lock the process holds on
#: it, SQLite's too: another process's connection could then take the writer's WAL away.
_IN_USE: collections.Counter[str] = collections.Counter()


def in_use(path: str | os.PathLike[str], count: int) -> None:
    """Count a connection to the journal at ``path`` opened (1) or closed (-1) here."""
    _IN_USE[os.path.realpath(path)] += count


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
        raise damaged(path, exc) from exc
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


def checked_rows(rows: list[Row], path: str | os.PathLike[str], seq: int, crc: int) -> list[Row]:
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
            raise damaged(path, ValueError(f"event {row_seq} has a malformed row"))
        crc = crc32(f"{seq}\x1f{at!r}\x1f{body}".encode(), crc)  # row_crc, inlined
        if crc != stored:
            raise JournalError(
                f"journal {path}: checksum mismatch at event {row_seq}; the file "
                "is damaged — move it aside or restore a backup"
            )
    return rows
