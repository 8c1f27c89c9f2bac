"""Why a journal cannot be opened or written, said as exactly that, with the fix.

SQLite reports a read-only file system, a full disk or a forbidden file as "readonly
database", "disk is full", "unable to open database file" or "disk I/O error"; those must
never read as "damaged ... move it aside", which would throw a healthy game away.
:func:`environment_problem` looks at the file system itself (folder, files, ``statvfs``).
"""

from __future__ import annotations

import errno
import os
import pwd
from pathlib import Path

LOW_SPACE = 64 * 1024  # bytes free below which a write may fail (a few WAL frames)


def _owner(path: Path) -> str:
    try:
        return pwd.getpwuid(path.stat().st_uid).pw_name
    except (OSError, KeyError):
        return "its owner"


def _as_owner(path: Path) -> str:
    owner = _owner(path)
    if owner in ("its owner", _me()):
        return f"check the permissions of {path}"
    return f"run it as that user (sudo -u {owner} boardctl ...), or ask the service"


def _me() -> str:
    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except KeyError:
        return str(os.getuid())


def _folder_problem(folder: Path, probe: Path) -> str | None:
    """A missing, non-folder or unwritable journal folder (``probe``: its nearest that exists)."""
    if not os.path.isdir(probe):
        return (
            f"{probe} is a file, not a folder, so the journal folder {folder} cannot exist "
            f"there; move that file or set service.journal to another place"
        )
    if not os.access(probe, os.X_OK):
        return (
            f"permission denied: {_me()} may not enter {probe} (owned by {_owner(probe)}), "
            f"so the journal {folder} cannot be reached; {_as_owner(probe)}"
        )
    if probe != folder:
        if not os.access(probe, os.W_OK | os.X_OK):
            return (
                f"the journal folder {folder} does not exist and cannot be created "
                f"({probe} is not writable by {_me()}); create it for this user, or set "
                "service.journal / --journal to a writable place"
            )
        return None
    if not os.access(folder, os.W_OK | os.X_OK):
        return (
            f"permission denied: {_me()} may not write in the journal folder {folder} "
            f"(owned by {_owner(folder)}); {_as_owner(folder)}"
        )
    return None


def _filesystem_problem(folder: Path) -> str | None:
    """A read-only or full file system under ``folder``."""
    try:
        stats = os.statvfs(folder)
    except OSError:
        return None
    if stats.f_flag & os.ST_RDONLY:
        return (
            f"the file system holding {folder} is read-only; remount it read-write "
            "(sudo mount -o remount,rw <mount point>), then the board carries on"
        )
    free = stats.f_bavail * stats.f_frsize
    if free < LOW_SPACE:
        return (
            f"the disk holding {folder} is full ({free // 1024} KiB free); free some space "
            f"(df -h {folder}, then remove old files), then the board carries on"
        )
    return None


def environment_problem(
    journal: str | os.PathLike[str], error: BaseException | None = None
) -> str | None:
    """The reason a journal at ``journal`` cannot be used that is not the file's content."""
    path = Path(journal).absolute()
    code = getattr(error, "errno", None)
    folder = existing = path.parent
    while not os.path.lexists(existing) and existing.parent != existing:  # (False where unseen)
        existing = existing.parent
    problem = _filesystem_problem(existing) if os.path.isdir(existing) else None
    problem = problem or _folder_problem(folder, existing)
    if problem is not None:
        return problem
    if code == errno.ENOSPC:
        return f"no space left on the disk holding {folder}; free some space (df -h {folder})"
    if code == errno.EROFS:
        return f"the file system holding {folder} is read-only; remount it read-write"
    for file in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        if os.path.lexists(file) and not os.access(file, os.R_OK | os.W_OK):
            return (
                f"permission denied: {_me()} may not write {file} (owned by "
                f"{_owner(file)}); {_as_owner(file)}"
            )
    return None
