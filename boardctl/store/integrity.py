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

The checks themselves, which change no file, are in
:mod:`boardctl.store.journal_check` (kept lean for ``boardctl status``); a
missing mark is damage too where it could hide a loss, and a journal longer
than the mark must hold the marked event. Readers with no writer running
run them as well (:func:`check_read_only`) and refuse a damaged journal with
:class:`JournalDamaged`, the report a writer would give.

For a writer, damaged files are copied into a ``damaged-<UTC time>`` folder
beside the journal before SQLite touches them, and never deleted. :class:`Damage` is
the report: kept in a notice file beside the journal until the next game starts.
What the board does with it (the sign on the LEDs, the report in the status, the
backups at a game's end) is the scorekeeper's (:mod:`boardctl.game.keeper`) and
the service's.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from boardctl.errors import JournalError
from boardctl.store import journal_check
from boardctl.store.journal_file import BACKUP_DIR as BACKUP_DIR
from boardctl.store.journal_file import MARK_SUFFIX, mark_head

log = logging.getLogger(__name__)


# --- the WAL ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class WalScan:
    """What SQLite will keep of a WAL file, and what it will silently drop."""

    frames: int  # frames in the valid prefix (what SQLite replays)
    commits: int  # commit frames in that prefix
    bad_frame: int | None  # the first frame SQLite rejects or that is cut short (1-based)
    lost_commits: int  # self-consistent commit frames of this generation after it

    @property
    def damaged(self) -> bool:
        """Committed transactions after a bad frame (more than a torn last write)."""
        return self.lost_commits >= 2


def scan_wal(path: Path) -> WalScan | None:
    """Check every frame of the WAL at ``path``; None if there is no usable WAL header."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None  # (any other error: the caller says it cannot check)
    scan = journal_check.scan_wal(data)
    return None if scan is None else WalScan(*scan)


# --- the mark --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Mark:
    """The last event the writer committed: its sequence number, chained checksum, time."""

    seq: int
    crc: int
    at: float

    def encode(self) -> bytes:
        """A fixed-width line, so that a rewrite in place never leaves a longer old tail."""
        return mark_head(self.seq, self.crc) + f"at={self.at:020.6f}\n".encode()


def mark_path(journal: Path) -> Path:
    return Path(f"{journal}{MARK_SUFFIX}")


def read_mark(journal: Path) -> Mark | None:
    """The mark beside ``journal``; None if absent or unreadable (e.g. torn by a power cut)."""
    mark = journal_check.read_mark(str(journal))[1]
    return None if mark is None else Mark(*mark)


class MarkWriter:
    """Keeps the mark file open and rewrites it in place after each commit (no fsync)."""

    def __init__(self, journal: Path) -> None:
        self.path = mark_path(journal)
        created = not self.path.exists()
        self._fd: int | None = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o640)
        if created:  # a missing mark is damage: its name must outlast a power cut
            with contextlib.suppress(OSError):
                folder = os.open(self.path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
                try:
                    os.fsync(folder)
                finally:
                    os.close(folder)

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
    from boardctl.store.journal_file import NOTICE_SUFFIX

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


def list_backups(journal: Path) -> list[Path]:
    """The backups of ``journal``, oldest first."""
    return [Path(p) for p in journal_check.list_backups(str(journal))]


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
    examined = journal_check.examine(str(journal))
    if examined is None or not examined[0]:
        return None
    reasons, (seq, crc, last_at, _), mark = examined
    found = [p for p in (Path(f"{journal}{s}") for s in ("", "-wal", "-mark")) if p.exists()]
    folder = set_aside(journal, found)
    # From now on the recovered journal is the one to keep whole: the next open is clean.
    write_mark(journal, Mark(seq, crc, last_at or 0.0))
    damage = _report(reasons, seq, mark, last_at, str(folder))
    text = json.dumps(damage.to_dict(), indent=1)
    (folder / "report.json").write_text(text + "\n", encoding="utf-8")
    notice_path(journal).write_text(text + "\n", encoding="utf-8")
    return damage


def check_read_only(journal: Path) -> Damage | None:
    """The damage a writer opening ``journal`` now would report, found changing nothing.

    For readers while no writer runs (``status``, ``results``, the bridge, ...):
    the same checks as :func:`check_before_open`, with no file set aside,
    created or rewritten; the report's ``set_aside`` is empty.
    """
    examined = journal_check.examine(str(journal))
    if examined is None or not examined[0]:
        return None
    reasons, (seq, _, last_at, _), mark = examined
    return _report(reasons, seq, mark, last_at, "")


def _report(
    reasons: list[str],
    seq: int,
    mark: tuple[int, int, float] | None,
    last_at: float | None,
    folder: str,
) -> Damage:
    return Damage(
        recovered=seq,
        expected=mark[0] if mark is not None else None,
        last_at=last_at,
        reasons=tuple(dict.fromkeys(reasons)),
        set_aside=folder,
        found_at=time.time(),
    )


class JournalDamaged(JournalError):
    """A reader found damage no writer has seen yet; nothing was changed."""

    def __init__(self, damage: Damage) -> None:
        super().__init__(damage.summary())
        self.damage = damage


# --- restoring a backup ------------------------------------------------------------------


def restore_backup(journal: Path, backup: Path) -> Path | None:
    """Make ``backup`` the journal; the journal's files are first copied aside (never deleted).

    Returns the folder holding the replaced files (None if there was no
    journal). The caller makes sure no service has the journal open.
    """
    with journal_check.Recovered(str(backup)) as where:
        read = journal_check.tail(where)
    if read is None:
        raise JournalError(f"{backup} is not a readable journal backup")
    tail = read[0]
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
    seq, crc, at, _ = tail
    write_mark(journal, Mark(seq, crc, at or 0.0))
    clear_notice(journal)
    return folder
