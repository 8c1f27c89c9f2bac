"""Damage the journal's SQLite file cannot report itself, found before it is opened
(docs/scorekeeping.md, "The journal"): :func:`scan_wal` reads the WAL frame by frame, and the
*mark* (:class:`Mark`) holds the last event committed. The checks change no file (a WAL holding
events is read from a private copy: :func:`tail`). What the board does with the report
(:class:`Damage`) is the scorekeeper's (:mod:`boardctl.game.keeper`) and the service's.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import re
import shutil
import sqlite3
import struct
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from boardctl.errors import JournalError
from boardctl.store.journal_file import BACKUP_DIR as BACKUP_DIR
from boardctl.store.journal_file import MARK_SUFFIX, file_size, file_uri, wal_holds_data
from boardctl.store.journal_file import list_backups as list_backups

log = logging.getLogger(__name__)

WAL_MAGIC = (0x377F0682, 0x377F0683)  # little- / big-endian checksums
_WAL_HEADER = 32
_FRAME_HEADER = 24
_MASK = 0xFFFFFFFF
_FILES = ("", "-wal", "-mark")  # the journal's own files, set aside when damaged
MARK_PREFIX = b"boardctl-mark 1 "  # the mark file's first words (format 1)
_MARK_LINE = re.compile(re.escape(MARK_PREFIX) + rb"seq=(\d+) crc=(\d+) at=(\d+\.?\d*|\.\d+)\n")
NOTICE_SUFFIX = "-damage"  # beside the journal: the standing damage report


@dataclass(frozen=True, slots=True)
class WalScan:
    """What SQLite will keep of a WAL file, and what it will silently drop."""

    frames: int  # frames in the valid prefix (what SQLite replays)
    bad_frame: int | None  # the first frame SQLite rejects or that is cut short (1-based)
    lost_commits: int  # self-consistent commit frames of this generation after it

    @property
    def damaged(self) -> bool:
        """Committed transactions after a bad frame (more than a torn last write)."""
        return self.lost_commits >= 2


def _checksum(data: bytes, s0: int, s1: int, big: bool) -> tuple[int, int]:
    """SQLite's WAL checksum of ``data`` (a multiple of 8 bytes) continued from ``s0, s1``."""
    words = struct.unpack(f"{'>' if big else '<'}{len(data) // 4}I", data)
    it = iter(words)
    for x0, x1 in zip(it, it, strict=True):
        s0 = (s0 + x0 + s1) & _MASK
        s1 = (s1 + x1 + s0) & _MASK
    return s0, s1


def scan_wal(data: bytes, recovered: int = 0) -> WalScan | None:
    """Check every frame of a WAL's bytes; None if there is no usable WAL header. The first
    ``recovered`` frames, checked by SQLite's own recovery, are not summed again."""
    if len(data) < _WAL_HEADER:
        return None
    magic, _version, page_size, _ckpt, salt1, salt2, c0, c1 = struct.unpack(
        ">8I", data[:_WAL_HEADER]
    )
    if magic not in WAL_MAGIC or page_size < 512 or page_size & (page_size - 1):
        return None
    big = bool(magic & 1)
    header_ok = _checksum(data[:24], 0, 0, big) == (c0, c1)
    frame_size = _FRAME_HEADER + page_size
    count = (len(data) - _WAL_HEADER) // frame_size
    chain: tuple[int, int] | None = (c0, c1) if header_ok else None
    previous = (c0, c1)  # the stored checksum of the frame before
    frames = lost = 0
    bad: int | None = None if header_ok else 1

    def sums_to(offset: int, start: tuple[int, int], stored: tuple[int, int]) -> bool:
        body = data[offset : offset + 8] + data[offset + _FRAME_HEADER : offset + frame_size]
        return _checksum(body, *start, big) == stored

    for index in range(count):
        offset = _WAL_HEADER + index * frame_size
        _page, size_after, f1, f2, k0, k1 = struct.unpack_from(">6I", data, offset)
        same_generation = (f1, f2) == (salt1, salt2)
        if chain is None:
            lost += same_generation and size_after != 0 and sums_to(offset, previous, (k0, k1))
        elif index < recovered or (same_generation and sums_to(offset, chain, (k0, k1))):
            chain = (k0, k1)
            frames += 1
        else:
            chain = None
            bad = index + 1 if same_generation else None  # (else: an older generation)
        previous = (k0, k1)
    if chain is not None and (len(data) - _WAL_HEADER) % frame_size:
        bad = count + 1  # the WAL ends inside a frame: that frame is the bad one
    return WalScan(frames, bad, lost)


@dataclass(frozen=True, slots=True)
class Mark:
    """The last event the writer committed: its sequence number, chained checksum, time."""

    seq: int
    crc: int
    at: float

    def encode(self) -> bytes:
        """A fixed-width line, so that a rewrite in place never leaves a longer old tail."""
        line = f"seq={self.seq:012d} crc={self.crc:010d} at={self.at:020.6f}\n"
        return MARK_PREFIX + line.encode()


def mark_path(journal: Path) -> Path:
    return Path(f"{journal}{MARK_SUFFIX}")


def parse_mark(data: bytes) -> Mark | None:
    """The mark in ``data``; None unless it is one whole mark line."""
    found = _MARK_LINE.fullmatch(data)
    return None if found is None else Mark(int(found[1]), int(found[2]), float(found[3]))


def _read_mark(journal: Path) -> tuple[bool, Mark | None]:
    """(the mark file exists, its mark or None if unreadable, e.g. torn by a power cut)."""
    try:
        with mark_path(journal).open("rb") as file:
            return True, parse_mark(file.read(200))
    except FileNotFoundError:
        return False, None
    except OSError:
        return True, None


class MarkWriter:
    """Keeps the mark file open and rewrites it in place after each commit (no fsync)."""

    def __init__(self, journal: Path) -> None:
        path = mark_path(journal)
        created = not path.exists()
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o640)
        if created:  # a missing mark is damage: its name must outlast a power cut
            from boardctl.durable import sync_folder

            with contextlib.suppress(OSError):
                sync_folder(path.parent)

    def write(self, mark: Mark) -> None:
        with contextlib.suppress(OSError):  # the mark is a check, never a reason to fail
            os.pwrite(self._fd, mark.encode(), 0)

    def close(self) -> None:
        """Flush and close the file (once: the journal forgets its writer then)."""
        with contextlib.suppress(OSError):
            os.fsync(self._fd)
        with contextlib.suppress(OSError):
            os.close(self._fd)


def write_mark(journal: Path, mark: Mark) -> None:
    """Write the mark durably (after a restore, or for a journal written elsewhere)."""
    with contextlib.closing(MarkWriter(journal)) as writer:
        writer.write(mark)


@dataclass(frozen=True, slots=True)
class Tail:
    """The journal's last event as SQLite reads it, and the checksum of the marked one."""

    seq: int = 0
    crc: int = 0
    at: float | None = None
    crc_at_mark: int | None = None


def _query_tail(db: sqlite3.Connection, mark_seq: int) -> Tail:
    if not db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
        return Tail()  # created, no schema yet
    row = db.execute("SELECT seq, crc, at FROM events ORDER BY seq DESC LIMIT 1").fetchone()
    if not row:
        return Tail()
    at_mark = db.execute("SELECT crc FROM events WHERE seq = ?", (mark_seq,)).fetchone()
    return Tail(
        int(row[0]), int(row[1]), float(row[2]), None if at_mark is None else int(at_mark[0])
    )


@contextlib.contextmanager
def _recovered(journal: str) -> Iterator[tuple[str, bytes | None]]:
    """Where to read ``journal`` as SQLite recovers it, changing nothing beside it, and the
    bytes of its WAL: the journal itself (immutable) without a WAL holding events, else a
    private copy of it and of its WAL, removed on leaving."""
    if not wal_holds_data(journal):
        yield journal, None
        return
    import tempfile

    memory = "/dev/shm" if os.access("/dev/shm", os.W_OK | os.X_OK) else "/tmp"
    scratch = os.environ.get("TMPDIR") or memory  # private copies: there, else in memory
    with tempfile.TemporaryDirectory(prefix=f"boardctl-check-{os.getpid()}-", dir=scratch) as d:
        wal = Path(f"{journal}-wal").read_bytes()
        path = os.path.join(d, "journal.sqlite")
        shutil.copyfile(journal, path)
        Path(f"{path}-wal").write_bytes(wal)
        yield path, wal


def tail(journal: str, mark_seq: int = 0) -> tuple[Tail, WalScan | None] | None:
    """The journal's tail as SQLite reads it and the scan of the WAL it recovered (only the
    frames after those it kept are summed); None when it cannot be read at all."""
    with _recovered(journal) as (path, wal):
        if file_size(path) == 0:
            return Tail(), None
        mode = "ro&immutable=1" if wal is None else "ro"
        try:  # (read-only: no checkpoint on close)
            with contextlib.closing(sqlite3.connect(file_uri(path, mode), uri=True)) as db:
                found = _query_tail(db, mark_seq)
                if wal is None:
                    return found, None
                recovered = _recovered_frames(f"{path}-shm", wal)  # (while it is open)
        except (sqlite3.Error, TypeError, ValueError):
            return None  # unreadable: opening it fails with its own message
        return found, scan_wal(wal, recovered)


def _recovered_frames(shm: str, wal: bytes) -> int:
    """The frames SQLite's recovery kept of ``wal``: ``mxFrame`` of the wal-index it built
    (in the machine's byte order), if its salts are the WAL's; else 0."""
    try:
        with open(shm, "rb") as file:
            head = file.read(48)
    except OSError:
        return 0
    if len(head) < 48 or len(wal) < _WAL_HEADER:
        return 0
    version, _, _, _, _, _, frames, _, _, _, salt1, salt2, _, _ = struct.unpack("=3I2BH8I", head)
    if version != 3007000 or (salt1, salt2) != struct.unpack_from("=2I", wal, 16):
        return 0
    return int(frames)


def _examine(journal: Path) -> tuple[list[str], Tail, Mark | None] | None:
    """What is wrong with the journal's files (reasons), its tail and its mark; None when
    it cannot be read at all (opening it says why), or is whole but for a torn last write.
    """
    marked, mark = _read_mark(journal)
    found = tail(str(journal), mark.seq if mark is not None else 0)
    if found is None:
        return None
    end, wal = found
    reasons: list[str] = []
    if wal is not None and wal.damaged:
        reasons.append(
            f"the -wal file is damaged at frame {wal.bad_frame}: "
            f"{wal.lost_commits} later transactions cannot be read"
        )
    database = file_size(journal) > 0
    if mark is not None:
        if mark.seq > end.seq:
            if not database:
                reasons.append("the database file is empty or missing")
            elif not os.path.exists(f"{journal}-wal"):
                reasons.append("the -wal file is missing")
            reasons.append(f"{mark.seq} entries were committed, {end.seq} can be read")
        elif mark.seq > 0 and end.crc_at_mark != mark.crc:
            reasons.append(
                f"entry {mark.seq} is not the one committed (checksum differs)"
                + ("" if mark.seq == end.seq else ": the journal is not the one this board wrote")
            )
    elif not marked:
        backups = list_backups(journal)
        if not database and backups:
            reasons.append(
                f"the database file and its -mark file are missing, though {BACKUP_DIR}/ "
                f"holds {len(backups)} backups (the newest is {backups[-1].name})"
            )
        elif end.seq > 0 and (backups or wal_holds_data(str(journal))):
            if wal is not None and wal.bad_frame is not None:
                reasons.append(
                    f"the -wal file is damaged at frame {wal.bad_frame}: "
                    "the transactions from there on cannot be read"
                )
            reasons.append("the -mark file is missing: lost last entries cannot be told")
    return (reasons, end, mark) if reasons else None


def writer_running(journal: str | os.PathLike[str]) -> bool:
    """True while a process holds ``journal``'s writer lock; looked up, never taken.

    An empty lock file (:mod:`.lock` empties it as it lets go) or a holder that no longer
    runs is no writer; otherwise the kernel's ``/proc/locks`` says, so a reader neither
    creates the file nor holds up a writer (where it cannot be read: a shared lock, tried
    and dropped at once).
    """
    path = f"{os.fspath(journal)}-lock"  # (as boardctl.store.lock names it)
    try:
        with open(path, "rb") as file:
            words = file.read(64).split()
        if not words:
            return False  # let go (or never taken)
        if words[0].isdigit():
            os.kill(int(words[0]), 0)
    except FileNotFoundError:
        return False  # no lock file: no writer has ever opened this journal
    except ProcessLookupError:
        return False  # its holder has gone: the kernel let go of the lock with it
    except (OSError, ValueError, OverflowError):
        pass  # (another user's process, or a file this user may not read: ask the kernel)
    try:
        stat = os.stat(path)
    except OSError:
        return False
    try:
        with open("/proc/locks", encoding="ascii", errors="replace") as file:
            table = file.read()
    except OSError:  # (a shared lock, tried and dropped at once)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return True
        finally:
            os.close(fd)  # (closing drops a lock taken)
        return False
    wanted = (os.major(stat.st_dev), os.minor(stat.st_dev), stat.st_ino)
    for line in table.splitlines():
        fields = line.split()  # "1: FLOCK ADVISORY WRITE <pid> <major>:<minor>:<inode> 0 EOF"
        if len(fields) < 6 or fields[1] != "FLOCK":
            continue  # (a waiter's line reads "1: -> FLOCK ...")
        where = fields[5].split(":")
        with contextlib.suppress(IndexError, ValueError):
            if (int(where[0], 16), int(where[1], 16), int(where[2])) == wanted:
                return True
    return False


def utc(at: float) -> str:
    """A Unix time as people read it: ``2026-12-01 10:03:12 UTC``."""
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(at))


@dataclass(frozen=True, slots=True)
class Damage:
    """Damage found when the journal was opened, and what was done about it."""

    recovered: int  # events kept
    expected: int | None  # events the mark says were committed (None: unknown)
    last_at: float | None  # wall time of the last event kept
    reasons: tuple[str, ...]
    set_aside: str  # the folder holding copies of the damaged files
    found_at: float  # wall time of the discovery

    def summary(self) -> str:
        """One line for the log, ``boardctl status`` and systemd's STATUS=."""
        of = f" of {self.expected}" if self.expected is not None else ""
        when = "the start" if self.last_at is None else utc(self.last_at)
        head = (
            f"journal damaged ({'; '.join(self.reasons)}): recovered {self.recovered}{of} "
            f"entries, up to {when}"
        )
        if self.set_aside:
            return f"{head}; the damaged files are kept in {self.set_aside}"
        return (
            f"{head}; nothing was changed: the service reports this, keeps a copy of the "
            "damaged files and carries on from the recovered entries when it starts "
            "(or restore a backup: boardctl restore)"
        )

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "reasons": list(self.reasons), "summary": self.summary()}

    @classmethod
    def from_dict(cls, data: Any) -> Damage | None:
        try:
            return cls(
                int(data["recovered"]),
                None if data["expected"] is None else int(data["expected"]),
                None if data["last_at"] is None else float(data["last_at"]),
                tuple(str(r) for r in data["reasons"]),
                str(data["set_aside"]),
                float(data["found_at"]),
            )
        except (KeyError, TypeError, ValueError):
            return None


def notice_path(journal: Path) -> Path:
    return Path(f"{journal}{NOTICE_SUFFIX}")


def read_notice(journal: Path) -> Damage | None:
    """The standing damage report beside ``journal``, if any."""
    try:
        data = json.loads(notice_path(journal).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return Damage.from_dict(data)


def clear_notice(journal: Path) -> None:
    """Remove the standing report (a new game started); the set-aside copies stay."""
    notice_path(journal).unlink(missing_ok=True)


def set_aside(journal: Path, files: list[Path], label: str = "damaged") -> Path:
    """Copy ``files`` (the journal's) into ``<label>-<UTC time>`` beside it; the folder."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    folder = journal.parent / f"{label}-{stamp}"
    suffix = 1
    while folder.exists():
        suffix += 1
        folder = journal.parent / f"{label}-{stamp}-{suffix}"
    folder.mkdir(mode=0o750)
    for source in files:
        if source.exists():
            shutil.copy2(source, folder / source.name)
    return folder


def _present(journal: Path) -> list[Path]:
    return [p for p in (Path(f"{journal}{s}") for s in _FILES) if p.exists()]


def check_before_open(journal: Path) -> Damage | None:
    """Look for silent damage before a writer opens ``journal``; if found, set the files
    aside and return the report (written into the folder and as the notice too)."""
    examined = _examine(journal)
    if examined is None:
        return None
    reasons, end, mark = examined
    folder = set_aside(journal, _present(journal))
    # From now on the recovered journal is the one to keep whole: the next open is clean.
    write_mark(journal, Mark(end.seq, end.crc, end.at or 0.0))
    damage = _report(reasons, end, mark, str(folder))
    text = json.dumps(damage.to_dict(), indent=1)
    (folder / "report.json").write_text(text + "\n", encoding="utf-8")
    notice_path(journal).write_text(text + "\n", encoding="utf-8")
    return damage


def check_read_only(journal: Path) -> Damage | None:
    """The damage a writer opening ``journal`` now would report, found changing nothing
    (for readers while no writer runs; its ``set_aside`` is empty)."""
    examined = _examine(journal)
    return None if examined is None else _report(*examined, "")


def _report(reasons: list[str], end: Tail, mark: Mark | None, folder: str) -> Damage:
    expected = mark.seq if mark is not None else None
    return Damage(end.seq, expected, end.at, tuple(dict.fromkeys(reasons)), folder, time.time())


class JournalDamaged(JournalError):
    """A reader found damage no writer has seen yet; nothing was changed."""

    def __init__(self, damage: Damage) -> None:
        super().__init__(damage.summary())
        self.damage = damage


def restore_backup(journal: Path, backup: Path) -> Path | None:
    """Make ``backup`` the journal, no service having it open; the folder its files were
    first copied into (None if there was no journal)."""
    read = tail(str(backup))
    if read is None:
        raise JournalError(f"{backup} is not a readable journal backup")
    end, found = read[0], _present(journal)
    folder = set_aside(journal, found, label="replaced") if found else None
    temporary = journal.with_name(journal.name + ".restoring")
    shutil.copyfile(backup, temporary)
    with temporary.open("rb") as file:
        os.fsync(file.fileno())
    for stale in ("-wal", "-shm"):  # copied aside above; they belong to the replaced journal
        Path(f"{journal}{stale}").unlink(missing_ok=True)
    os.replace(temporary, journal)
    write_mark(journal, Mark(end.seq, end.crc, end.at or 0.0))
    clear_notice(journal)
    return folder
