"""Files written whole or not at all, and kept through a power cut: written to a temporary file
in the same folder, flushed, renamed over the old one, and the folder's entry flushed."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path


def replace_file(
    path: Path,
    text: str,
    *,
    private: bool = False,
    before_rename: Callable[[str], object] | None = None,
) -> None:
    """Replace ``path`` with ``text`` (UTF-8) durably; ``private``: mode 0600.
    ``before_rename`` gets the temporary file's name (e.g. to give it an owner)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            if private:
                os.fchmod(file.fileno(), 0o600)
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        if before_rename is not None:
            before_rename(name)
        os.replace(name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name)
        raise
    sync_folder(path.parent)


def sync_folder(folder: Path) -> None:
    """Flush ``folder``'s entries (a file renamed into it or removed from it) to the disk."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
