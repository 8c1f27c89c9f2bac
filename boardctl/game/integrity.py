"""Damage the journal's SQLite file cannot report itself: found before it is opened.

SQLite recovers a WAL by reading frames up to the first one whose checksum
fails, and silently ignores the rest. That is right for a torn last write
(the one transaction in flight at a power cut, never acknowledged), and
wrong for a flipped bit in the middle: every later, acknowledged entry
would vanish without a word. A deleted ``-wal`` or a 0-byte database looks
to SQLite like an older or a new journal. Two independent checks catch
these before the journal is opened for writing:

1. :func:`scan_wal` reads the WAL itself. After the first bad frame it
   looks for *self-consistent* commit frames of the same WAL generation
   (same salts, checksum right when chained from the stored checksum of
   the frame before). A torn last write leaves at most one (its own commit
   frame); two or more mean committed transactions after the damage.
2. The *mark* (:class:`Mark`, the file ``<journal>-mark``) holds the last
   sequence number and chained checksum the writer committed, rewritten in
   place after every commit. It is not fsynced per commit (that would
   double the cost of an entry), only on close; after a power cut it may
   lag the journal, never lead it, since it is written after the journal's
   fsync. A journal with fewer events than the mark has lost acknowledged
   entries, whatever happened to it.

Damaged files are copied into a ``damaged-<UTC time>`` folder beside the
journal before SQLite touches them, and never deleted. :class:`Damage` is
the report: kept in a notice file beside the journal (shown by ``boardctl
status`` and the service) until the next game starts.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import shutil
import sqlite3
import struct
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from boardctl.errors import JournalError
from boardctl.notices import DAMAGE_KEY as DAMAGE_KEY  # the status's keys: see there
from boardctl.notices import FAULT_KEY as FAULT_KEY

if TYPE_CHECKING:
    from boardctl.game.journal import Journal
    from boardctl.view import BoardView

log = logging.getLogger(__name__)

WAL_MAGIC = (0x377F0682, 0x377F0683)  # little- / big-endian checksums
_WAL_HEADER = 32
_FRAME_HEADER = 24
_MASK = 0xFFFFFFFF
_MARK_RE = re.compile(rb"boardctl-mark 1 seq=(\d+) crc=(\d+) at=([\d.]+)\n")


# --- the WAL ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class WalScan:
    """What SQLite will keep of a WAL file, and what it will silently drop."""

    frames: int  # frames in the valid prefix (what SQLite replays)
    commits: int  # commit frames in that prefix
    bad_frame: int | None  # the first frame SQLite rejects (1-based), None if none
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


def scan_wal(path: Path) -> WalScan | None:
    """Check every frame of the WAL at ``path``; None if there is no usable WAL header."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None  # (any other error: the caller says it cannot check)
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
        head = data[offset : offset + _FRAME_HEADER]
        _page, size_after, f1, f2, k0, k1 = struct.unpack(">6I", head)
        body = head[:8] + data[offset + _FRAME_HEADER : offset + frame_size]
        same_generation = (f1, f2) == (salt1, salt2)
        if chain is not None:
            ok = same_generation and _checksum(body, *chain, big) == (k0, k1)
            if ok:
                chain = (k0, k1)
                frames += 1
                commits += size_after != 0
            else:
                chain, bad = None, index + 1
        elif same_generation and size_after and _checksum(body, *previous, big) == (k0, k1):
            lost += 1
        previous = (k0, k1)
    if bad is None:
        return WalScan(frames, commits, None, 0)
    # SQLite keeps the prefix only up to its last commit frame.
    return WalScan(frames, commits, bad, lost)


# --- the mark --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Mark:
    """The last event the writer committed: its sequence number, chained checksum, time."""

    seq: int
    crc: int
    at: float

    def encode(self) -> bytes:
        """A fixed-width line, so that a rewrite in place never leaves a longer old tail."""
        line = f"boardctl-mark 1 seq={self.seq:012d} crc={self.crc:010d} at={self.at:020.6f}\n"
        return line.encode()


def mark_path(journal: Path) -> Path:
    return Path(f"{journal}-mark")


def read_mark(journal: Path) -> Mark | None:
    """The mark beside ``journal``; None if absent or unreadable (e.g. torn by a power cut)."""
    try:
        data = mark_path(journal).read_bytes()
    except OSError:
        return None
    match = _MARK_RE.fullmatch(data)
    if match is None:
        return None
    return Mark(int(match[1]), int(match[2]), float(match[3]))


class MarkWriter:
    """Keeps the mark file open and rewrites it in place after each commit (no fsync)."""

    def __init__(self, journal: Path) -> None:
        self.path = mark_path(journal)
        self._fd: int | None = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o640)

    def write(self, mark: Mark) -> None:
        if self._fd is None:
            return
        with contextlib.suppress(OSError):  # the mark is a check, never a reason to fail
            os.pwrite(self._fd, mark.encode(), 0)

    def close(self, *, sync: bool = True) -> None:
        if self._fd is None:
            return
        with contextlib.suppress(OSError):
            if sync:
                os.fsync(self._fd)
        with contextlib.suppress(OSError):
            os.close(self._fd)
        self._fd = None


def write_mark(journal: Path, mark: Mark) -> None:
    """Write the mark durably (after a restore, or for a journal written elsewhere)."""
    writer = MarkWriter(journal)
    try:
        writer.write(mark)
    finally:
        writer.close()


# --- the report ----------------------------------------------------------------------


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
        when = (
            time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(self.last_at))
            if self.last_at is not None
            else "the start"
        )
        return (
            f"journal damaged ({'; '.join(self.reasons)}): recovered {self.recovered}{of} "
            f"entries, up to {when}; the damaged files are kept in {self.set_aside}"
        )

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["reasons"] = list(self.reasons)
        data["summary"] = self.summary()
        return data

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
    from boardctl.game.journal_file import NOTICE_SUFFIX

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
    with contextlib.suppress(FileNotFoundError):
        notice_path(journal).unlink()


def _tail(journal: Path) -> tuple[int, int, float | None] | None:
    """(last seq, its crc, its time) as SQLite reads the journal now, read-only.

    (0, 0, None) for an empty or missing journal; None when it cannot be
    read at all (then opening it fails with its own message).
    """
    try:
        if journal.stat().st_size == 0:
            return 0, 0, None
    except FileNotFoundError:
        return 0, 0, None
    # Without a WAL the file is complete: read it as immutable, so nothing is created beside it.
    mode = "ro" if Path(f"{journal}-wal").exists() else "ro&immutable=1"
    try:
        db = sqlite3.connect(f"{journal.absolute().as_uri()}?mode={mode}", uri=True)
    except sqlite3.Error:
        return None
    try:
        tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if not tables:
            return 0, 0, None  # created, no schema yet
        row = db.execute("SELECT seq, crc, at FROM events ORDER BY seq DESC LIMIT 1").fetchone()
        return (int(row[0]), int(row[1]), float(row[2])) if row else (0, 0, None)
    except (sqlite3.Error, TypeError, ValueError):
        return None  # unreadable: open() says so
    finally:
        db.close()


def set_aside(journal: Path, files: list[Path] | None = None, label: str = "damaged") -> Path:
    """Copy the journal's files (or ``files``) into ``<label>-<UTC time>`` beside it.

    Returns the folder. Nothing is moved or deleted.
    """
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    folder = journal.parent / f"{label}-{stamp}"
    suffix = 1
    while folder.exists():
        suffix += 1
        folder = journal.parent / f"{label}-{stamp}-{suffix}"
    folder.mkdir(mode=0o750)
    if files is None:
        files = [Path(f"{journal}{extra}") for extra in ("", "-wal", "-mark")]
    for source in files:
        if source.exists():
            shutil.copy2(source, folder / source.name)
    return folder


def check_before_open(journal: Path) -> Damage | None:
    """Look for silent damage before a writer opens ``journal``; set the files aside if found.

    Returns the report (also written as the notice beside the journal and
    into the folder), or None when the journal is whole (or only lost the
    unacknowledged last write).
    """
    mark = read_mark(journal)
    wal = scan_wal(Path(f"{journal}-wal"))
    reasons: list[str] = []
    if wal is not None and wal.damaged:
        reasons.append(
            f"the -wal file is damaged at frame {wal.bad_frame}: "
            f"{wal.lost_commits} later transactions cannot be read"
        )
    found = [p for p in (Path(f"{journal}{s}") for s in ("", "-wal", "-mark")) if p.exists()]
    tail = _tail(journal)
    if tail is None:
        return None
    seq, crc, last_at = tail
    if mark is not None:
        if mark.seq > seq:
            if journal not in found or journal.stat().st_size == 0:
                reasons.append("the database file is empty or missing")
            elif Path(f"{journal}-wal") not in found:
                reasons.append("the -wal file is missing")
            reasons.append(f"{mark.seq} entries were committed, {seq} can be read")
        elif mark.seq == seq and mark.crc != crc and seq > 0:
            reasons.append(f"entry {seq} is not the one committed (checksum differs)")
    if not reasons:
        return None
    folder = set_aside(journal, found)
    # From now on the recovered journal is the one to keep whole: the next open is clean.
    write_mark(journal, Mark(seq, crc, last_at or 0.0))
    damage = Damage(
        recovered=seq,
        expected=mark.seq if mark is not None else None,
        last_at=last_at,
        reasons=tuple(dict.fromkeys(reasons)),
        set_aside=str(folder),
        found_at=time.time(),
    )
    text = json.dumps(damage.to_dict(), indent=1)
    (folder / "report.json").write_text(text + "\n", encoding="utf-8")
    notice_path(journal).write_text(text + "\n", encoding="utf-8")
    return damage


# --- what the scorekeeper shows ------------------------------------------------------


def with_damage_sign(view: BoardView, journal: Journal | None) -> BoardView:
    """``view`` flagged for the renderer's damage sign while a damage report stands."""
    if journal is None or journal.damage is None:
        return view
    return replace(view, extra=replace(view.extra, journal_damage=True))


def add_damage_report(status: dict[str, Any], journal: Journal | None) -> None:
    """Add the standing damage report to a status dict (``boardctl status``, the socket)."""
    if journal is not None and journal.damage is not None:
        status[DAMAGE_KEY] = journal.damage.to_dict()


def journal_status_line(status: dict[str, Any], line: str) -> str:
    """systemd's STATUS= line: the fault alone, or the damage report before the score."""
    fault = status.get(FAULT_KEY)
    if fault:
        return f"JOURNAL FAULT, entries refused: {fault}"
    report = status.get(DAMAGE_KEY)
    if not isinstance(report, dict):
        return line
    recovered = report.get("recovered")
    return f"JOURNAL DAMAGED, {recovered} entries recovered (boardctl status) | {line}"


def damage_lines(status: dict[str, Any]) -> list[str]:
    """A journal fault or damage report as ``boardctl status`` prints it."""
    lines = []
    fault = status.get(FAULT_KEY)
    if fault:
        lines += [
            f"JOURNAL FAULT: {fault}",
            "  (the service is up, shows the fault sign, refuses entries and retries the journal)",
        ]
    report = status.get(DAMAGE_KEY)
    if isinstance(report, dict):
        lines += [
            f"WARNING: {report.get('summary', 'journal damaged')}",
            "  (`boardctl restore` lists the backups; this notice goes when a new game starts)",
        ]
    return lines


def backup_at_game_end(journal: Journal | None) -> None:
    """A backup when a game is won; a failure is logged, never fails the entry."""
    if journal is None or journal.readonly:
        return
    from boardctl.errors import JournalError

    try:
        journal.backup("game-end")
    except JournalError as exc:
        log.warning("%s", exc)


# --- restoring a backup ------------------------------------------------------------------


def restore_backup(journal: Path, backup: Path) -> Path | None:
    """Make ``backup`` the journal; the journal's files are first copied aside (never deleted).

    Returns the folder holding the replaced files (None if there was no
    journal). The caller makes sure no service has the journal open.
    """
    tail = _tail(backup)
    if tail is None:
        raise JournalError(f"{backup} is not a readable journal backup")
    found = [p for p in (Path(f"{journal}{s}") for s in ("", "-wal", "-mark")) if p.exists()]
    folder = set_aside(journal, found, label="replaced") if found else None
    temporary = journal.with_name(journal.name + ".restoring")
    shutil.copyfile(backup, temporary)
    with temporary.open("rb") as file:
        os.fsync(file.fileno())
    for stale in ("-wal", "-shm"):  # copied aside above; they belong to the replaced journal
        with contextlib.suppress(FileNotFoundError):
            Path(f"{journal}{stale}").unlink()
    os.replace(temporary, journal)
    seq, crc, at = tail
    write_mark(journal, Mark(seq, crc, at or 0.0))
    clear_notice(journal)
    return folder


def settle_failed_write(keeper: Any, base_seq: int, event: dict[str, Any]) -> bool:
    """After a failed append: reopen, read on; True if the entry is in the journal after all.

    The keeper then holds exactly what the file holds (the board and the
    journal agree, on the next start too); False means it is not there.
    """
    journal = keeper.journal
    if journal is None:
        return False
    from boardctl.errors import JournalError

    try:
        journal.reopen()
        keeper.refresh()
    except JournalError as exc:
        log.error("after a failed write the journal cannot be read again: %s", exc)
        return False
    if keeper.seq == base_seq + 1 and keeper.history()[-1]["event"] == event:
        log.warning("the write reported an error, but the entry is in the journal: kept")
        return True
    return False
