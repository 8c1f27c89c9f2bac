"""One writer per journal: an advisory ``flock(2)`` on ``<journal>-lock``, held from open to
close and released by the kernel even after ``kill -9`` (docs/service.md, "One writer"). The
file names the holder (``<pid> <role>``) for the message a refused writer gets.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from pathlib import Path

from boardctl.errors import JournalError

SERVICE = "service"
SERVICE_WAIT = 10.0  # seconds a starting service waits for a CLI write to finish
_POLL = 0.02


class JournalBusy(JournalError):
    """Another process holds the journal's writer lock (``role``: the holder's)."""

    def __init__(self, message: str, *, role: str) -> None:
        super().__init__(message)
        self.role = role


class WriterLock:
    """The writer lock of one journal; :meth:`acquire` it, :meth:`release` it (idempotent)."""

    def __init__(self, fd: int) -> None:
        self._fd: int | None = fd

    @classmethod
    def acquire(cls, journal: Path, role: str = "cli") -> WriterLock:
        """Take the lock as ``role`` or raise :class:`JournalBusy` naming the holder (a service
        waits up to :data:`SERVICE_WAIT` seconds for a holder that is not a service)."""
        path = Path(f"{journal}-lock")
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o660)
        except OSError as exc:
            from boardctl.store.diagnose import environment_problem

            reason = environment_problem(journal, exc) or exc.strerror
            raise JournalError(f"cannot use journal {journal}: {reason}") from exc
        deadline = time.monotonic() + (SERVICE_WAIT if role == SERVICE else 0.0)
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                busy = _busy(journal, path)
                if busy.role == SERVICE or time.monotonic() >= deadline:
                    os.close(fd)
                    raise busy from None
                time.sleep(_POLL)
            except OSError as exc:
                os.close(fd)
                raise JournalError(f"cannot lock {path}: {exc.strerror}") from exc
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()} {role}\n".encode(), 0)
        return cls(fd)

    def release(self) -> None:
        if self._fd is None:
            return
        with contextlib.suppress(OSError):
            os.ftruncate(self._fd, 0)  # unlock comes with close
        with contextlib.suppress(OSError):
            os.close(self._fd)
        self._fd = None


def _busy(journal: Path, path: Path) -> JournalBusy:
    """The refusal naming the holder that the lock file ``path`` names."""
    try:
        words = path.read_text(encoding="ascii", errors="replace").split()
    except OSError:
        words = []
    known = len(words) >= 2 and words[0].isdigit()
    who, role = (f"pid {int(words[0])}", words[1]) if known else ("another process", "?")
    if role == SERVICE:
        message = (
            f"journal {journal} is in use by the boardctl service ({who}); "
            "only one service may use a journal: stop that one first, or give this one "
            "another journal (--journal / service.journal)"
        )
    else:
        message = f"journal {journal} is being written by another boardctl ({who}); try again"
    return JournalBusy(message, role=role)
