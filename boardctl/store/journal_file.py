"""The files beside a journal (its mark, its WAL, its backups), as the journal and the
damage checks (:mod:`.integrity`) name them; paths are strings or path objects alike.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

MARK_SUFFIX = "-mark"  # beside the journal: the last event the writer committed (integrity)
BACKUP_DIR = "backups"  # beside the journal: its backups (integrity)


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
