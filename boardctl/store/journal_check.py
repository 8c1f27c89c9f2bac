"""The journal's damage checks: what is wrong with its files, found changing nothing.

:mod:`boardctl.store.integrity` explains the checks (the WAL's frames after a
bad one, the mark, the database) and acts on what they find for a writer
(copies the files aside, writes the report). Nothing here creates or changes a file beside
the journal: a WAL holding events is read from a private copy of the
database and the WAL, recovered there by SQLite itself.
"""

from __future__ import annotations

import os
import sqlite3
import struct

from boardctl.store.journal_file import BACKUP_DIR, MARK_PREFIX, MARK_SUFFIX, file_uri
from boardctl.store.journal_file import list_backups as list_backups

TYPE_CHECKING = False
if TYPE_CHECKING:
    Scan = tuple[int, int, int | None, int]  # frames, commits, first bad frame, lost commits
    Tail = tuple[int, int, float | None, int | None]  # last seq, its crc, its time, crc at mark
    Mark = tuple[int, int, float]  # seq, crc, time

WAL_MAGIC = (0x377F0682, 0x377F0683)  # little- / big-endian checksums
_WAL_HEADER = 32
_FRAME_HEADER = 24
_MASK = 0xFFFFFFFF


# --- the WAL ---------------------------------------------------------------------


def _checksum(data: bytes, s0: int, s1: int, big: bool) -> tuple[int, int]:
    """SQLite's WAL checksum of ``data`` (a multiple of 8 bytes) continued from ``s0, s1``."""
    words = struct.unpack(f"{'>' if big else '<'}{len(data) // 4}I", data)
    it = iter(words)
    for x0, x1 in zip(it, it, strict=True):
        s0 = (s0 + x0 + s1) & _MASK
        s1 = (s1 + x1 + s0) & _MASK
    return s0, s1


def scan_wal(data: bytes, recovered: int = 0) -> Scan | None:
    """Check the frames of a WAL (its bytes); None if there is no usable WAL header.

    ``recovered``: frames SQLite itself read back as valid (its own recovery
    checked their checksums), which are then not summed again here; the scan
    goes on from the frame after them.
    """
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
    frames = commits = lost = 0
    bad: int | None = None if header_ok else 1
    for index in range(count):
        offset = _WAL_HEADER + index * frame_size
        _page, size_after, f1, f2, k0, k1 = struct.unpack_from(">6I", data, offset)
        same_generation = (f1, f2) == (salt1, salt2)
        if chain is not None and index < recovered:
            chain = (k0, k1)
            frames += 1
            commits += size_after != 0
        elif chain is not None:
            body = data[offset : offset + 8] + data[offset + _FRAME_HEADER : offset + frame_size]
            if same_generation and _checksum(body, *chain, big) == (k0, k1):
                chain = (k0, k1)
                frames += 1
                commits += size_after != 0
            else:
                chain = None
                bad = index + 1 if same_generation else None  # (else: an older generation)
        elif same_generation and size_after:
            body = data[offset : offset + 8] + data[offset + _FRAME_HEADER : offset + frame_size]
            lost += _checksum(body, *previous, big) == (k0, k1)
        previous = (k0, k1)
    if chain is not None and (len(data) - _WAL_HEADER) % frame_size:
        bad = count + 1  # the WAL ends inside a frame: that frame is the bad one
    return frames, commits, bad, lost


def wal_holds_data(journal: str) -> bool:
    """True when ``journal``'s WAL file holds anything (a writer runs, or stopped hard)."""
    try:
        return os.stat(f"{journal}-wal").st_size > 0
    except FileNotFoundError:
        return False


# --- the mark --------------------------------------------------------------------


def parse_mark(data: bytes) -> Mark | None:
    """The mark's (seq, crc, time); None unless it is one whole mark line."""
    if not data.startswith(MARK_PREFIX) or not data.endswith(b"\n"):
        return None
    fields = data[len(MARK_PREFIX) : -1].split(b" ")
    names = (b"seq=", b"crc=", b"at=")
    if len(fields) != 3 or not all(f.startswith(n) for f, n in zip(fields, names, strict=True)):
        return None
    seq, crc, at = (f[len(n) :] for f, n in zip(fields, names, strict=True))
    if not (seq.isdigit() and crc.isdigit() and at.replace(b".", b"", 1).isdigit()):
        return None
    return int(seq), int(crc), float(at)


def read_mark(journal: str) -> tuple[bool, Mark | None]:
    """(the mark file exists, its mark or None if unreadable, e.g. torn by a power cut)."""
    try:
        with open(f"{journal}{MARK_SUFFIX}", "rb") as file:
            return True, parse_mark(file.read(200))
    except FileNotFoundError:
        return False, None
    except OSError:
        return True, None


# --- the database ------------------------------------------------------------------


def _query_tail(db: sqlite3.Connection, mark_seq: int) -> Tail:
    tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    if not tables:
        return 0, 0, None, None  # created, no schema yet
    row = db.execute("SELECT seq, crc, at FROM events ORDER BY seq DESC LIMIT 1").fetchone()
    if not row:
        return 0, 0, None, None
    at_mark = db.execute("SELECT crc FROM events WHERE seq = ?", (mark_seq,)).fetchone()
    return int(row[0]), int(row[1]), float(row[2]), None if at_mark is None else int(at_mark[0])


def _scratch() -> str:
    """Where private copies go: ``$TMPDIR``, else memory (``/dev/shm``), else ``/tmp``."""
    given = os.environ.get("TMPDIR")
    if given:
        return given
    return "/dev/shm" if os.access("/dev/shm", os.W_OK | os.X_OK) else "/tmp"


class Recovered:
    """Where to read ``journal`` as SQLite recovers it, changing nothing beside it (``with``).

    Without a WAL holding events, the journal itself (complete: read it
    immutable). With one, a private copy of the database and the WAL in a
    folder of its own, removed on leaving; :attr:`wal` holds the WAL's bytes.
    """

    def __init__(self, journal: str) -> None:
        self.journal = journal
        self.path = journal
        self.immutable = True
        self.wal: bytes | None = None
        self._folder: str | None = None
        self._db: sqlite3.Connection | None = None

    def connection(self) -> sqlite3.Connection:
        """A read-only connection to :attr:`path` (one, kept until leaving); may raise
        :class:`sqlite3.Error`."""
        if self._db is None:
            mode = "ro&immutable=1" if self.immutable else "ro"
            self._db = sqlite3.connect(
                file_uri(self.path, mode), uri=True, isolation_level=None, check_same_thread=False
            )
        return self._db

    def __enter__(self) -> Recovered:
        if not wal_holds_data(self.journal):
            return self
        base = _scratch()
        while self._folder is None:
            folder = os.path.join(base, f"boardctl-check-{os.getpid()}-{os.urandom(4).hex()}")
            try:
                os.mkdir(folder, 0o700)
            except FileExistsError:
                continue
            self._folder = folder
        try:
            with open(f"{self.journal}-wal", "rb") as file:
                self.wal = file.read()
            self.path = os.path.join(self._folder, "journal.sqlite")
            with open(self.journal, "rb") as reading, open(self.path, "xb") as writing:
                size, done = os.fstat(reading.fileno()).st_size, 0
                while done < size and (
                    sent := os.sendfile(writing.fileno(), reading.fileno(), done, size - done)
                ):
                    done += sent
            with open(f"{self.path}-wal", "xb") as writing:
                writing.write(self.wal)
        except BaseException:
            self.__exit__()
            raise
        self.immutable = False
        return self

    def __exit__(self, *_: object) -> None:
        if self._db is not None:
            self._db.close()  # (read-only: no checkpoint on close)
            self._db = None
        if self._folder is not None:
            for name in os.listdir(self._folder):
                os.unlink(os.path.join(self._folder, name))
            os.rmdir(self._folder)
            self._folder = None


def tail(where: Recovered, mark_seq: int = 0) -> tuple[Tail, Scan | None] | None:
    """(last seq, its crc, its time, the crc of event ``mark_seq``) as SQLite reads it, and
    the scan of the WAL it recovered; None when it cannot be read at all.

    (0, 0, None, None) for an empty or missing journal. SQLite recovers the
    WAL in the private copy and says how many frames it kept
    (``wal_checkpoint``); only the frames after those are summed here.
    """
    try:
        if os.stat(where.path).st_size == 0:
            return (0, 0, None, None), None
    except FileNotFoundError:
        return (0, 0, None, None), None
    try:
        found = _query_tail(where.connection(), mark_seq)
        if where.wal is None:
            return found, None
        recovered = _recovered_frames(f"{where.path}-shm", where.wal)  # (while it is open)
    except (sqlite3.Error, TypeError, ValueError):
        return None  # unreadable: opening it fails with its own message
    return found, scan_wal(where.wal, recovered)


def _recovered_frames(shm: str, wal: bytes) -> int:
    """The frames SQLite's recovery kept of ``wal``: ``mxFrame`` of the wal-index it built.

    The index header (in the machine's byte order) is read only if its salts
    are the WAL's; else 0, and every frame is summed here.
    """
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


# --- all of it -------------------------------------------------------------------------


def examine(
    journal: str, where: Recovered | None = None
) -> tuple[list[str], Tail, Mark | None] | None:
    """What is wrong with the journal's files (reasons), its tail and its mark.

    None when the journal cannot be read at all (opening it then says why).
    No reasons: the journal is whole, or lost only the unacknowledged last
    write (a torn last transaction leaves at most one commit frame after the
    WAL's bad frame). ``where``: the journal already made ready to read.
    """
    marked, mark = read_mark(journal)
    if where is None:
        with Recovered(journal) as made:
            return _examine(journal, made, marked, mark)
    return _examine(journal, where, marked, mark)


def _examine(
    journal: str, where: Recovered, marked: bool, mark: Mark | None
) -> tuple[list[str], Tail, Mark | None] | None:
    found = tail(where, mark[0] if mark is not None else 0)
    if found is None:
        return None
    (seq, _, _, crc_at_mark), wal = found
    reasons: list[str] = []
    if wal is not None and wal[3] >= 2:
        reasons.append(
            f"the -wal file is damaged at frame {wal[2]}: "
            f"{wal[3]} later transactions cannot be read"
        )
    try:
        database = os.stat(journal).st_size > 0
    except FileNotFoundError:
        database = False
    if mark is not None:
        if mark[0] > seq:
            if not database:
                reasons.append("the database file is empty or missing")
            elif not os.path.exists(f"{journal}-wal"):
                reasons.append("the -wal file is missing")
            reasons.append(f"{mark[0]} entries were committed, {seq} can be read")
        elif mark[0] > 0 and crc_at_mark != mark[1]:
            reasons.append(
                f"entry {mark[0]} is not the one committed (checksum differs)"
                + ("" if mark[0] == seq else ": the journal is not the one this board wrote")
            )
    elif not marked:
        backups = list_backups(journal)
        if not database and backups:
            reasons.append(
                f"the database file and its -mark file are missing, though {BACKUP_DIR}/ "
                f"holds {len(backups)} backups (the newest is {os.path.basename(backups[-1])})"
            )
        elif seq > 0 and (backups or wal_holds_data(journal)):
            if wal is not None and wal[2] is not None:
                reasons.append(
                    f"the -wal file is damaged at frame {wal[2]}: "
                    "the transactions from there on cannot be read"
                )
            reasons.append("the -mark file is missing: lost last entries cannot be told")
    return reasons, found[0], mark


# --- the writer --------------------------------------------------------------------------


def writer_running(journal: str) -> bool:
    """True while a process holds ``journal``'s writer lock; looked up, never taken.

    A holder writes ``<pid> <role>`` into the lock file as it takes the lock
    and empties it as it lets go (:mod:`boardctl.store.lock`): an empty file,
    or a holder that no longer runs (``kill -9``), is no writer. Otherwise the
    kernel's list of file locks (``/proc/locks``) says, so a reader neither
    creates the lock file nor holds up a writer that wants it; where that
    list cannot be read, a shared lock is tried and dropped at once.
    """
    path = f"{journal}-lock"  # boardctl.store.lock.lock_path
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
    except OSError:
        return _probe(path)
    wanted = (os.major(stat.st_dev), os.minor(stat.st_dev), stat.st_ino)
    for line in table.splitlines():
        fields = line.split()  # "1: FLOCK ADVISORY WRITE <pid> <major>:<minor>:<inode> 0 EOF"
        if len(fields) < 6 or fields[1] != "FLOCK":
            continue  # (a waiter's line reads "1: -> FLOCK ...")
        where = fields[5].split(":")
        try:
            if (int(where[0], 16), int(where[1], 16), int(where[2])) == wanted:
                return True
        except (IndexError, ValueError):
            continue
    return False


def _probe(path: str) -> bool:
    import fcntl

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
