"""What ``boardctl restore`` does: list the backups, and bring one back safely
(docs/scorekeeping.md, 'Backups'); the game starts of a backup without them are stored before
the service starts on it."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

from boardctl.errors import ControlError, JournalError
from boardctl.game.keeper import Scorekeeper
from boardctl.store.journal import list_backups


def _describe(path: Path) -> str:
    from boardctl.service.loop import status_line

    try:
        with Scorekeeper.open(path, readonly=True) as keeper:
            status = keeper.status()
            at = keeper.history()[-1]["at"] if keeper.seq else None
            last = at if isinstance(at, (int, float)) else None
    except JournalError as exc:
        return f"unreadable ({exc})"
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(last)) if last else "empty"
    return f"{status['seq']} entries, last {when}: {status_line(status)}"


def list_text(journal: Path) -> str:
    """The backups of ``journal``, numbered, oldest first, each with its entries, time and
    score."""
    backups = list_backups(journal)
    if not backups:
        return f"no backups of {journal} yet (one is made at every game end and clean shutdown)"
    lines = [
        f"{number:3d}  {path.name}  {_describe(path)}" for number, path in enumerate(backups, 1)
    ]
    return "\n".join([f"backups of {journal} (restore one with `boardctl restore N`):", *lines])


def _choose(journal: Path, which: str) -> Path:
    backups = list_backups(journal)
    if which.isdigit() and 1 <= int(which) <= len(backups):
        return backups[int(which) - 1]
    for path in backups:
        if which in (path.name, str(path)):
            return path
    raise ControlError(f"no backup {which!r}; `boardctl restore` lists them ({len(backups)})")


def restore(socket_file: Path, journal: Path, which: str) -> str:
    """Restore backup ``which`` of ``journal``; refuse while a service answers on
    ``socket_file``. Returns what was done."""
    from boardctl.service.client import ServiceDown, request
    from boardctl.store.integrity import restore_backup
    from boardctl.store.lock import WriterLock

    try:
        request(socket_file, {"op": "ping"}, timeout=2.0)
    except ServiceDown:
        pass
    except ControlError:
        raise ControlError(f"{socket_file}: a service seems to be running; stop it first") from None
    else:
        raise ControlError(
            "the boardctl service is running; stop it first (sudo systemctl stop boardctl), "
            "then restore, then start it again"
        )
    backup = _choose(journal, which)
    lock = WriterLock.acquire(journal)  # JournalBusy names a service that has not its socket yet
    try:
        kept = restore_backup(journal, backup)
    except OSError as exc:
        raise JournalError(f"cannot restore {backup} as {journal}: {exc}") from exc
    finally:
        lock.release()
    # The game starts of a backup taken before they were stored (or by an older boardctl),
    # stored now by a writer's open, so that the service's next start resumes from the last
    # one; a journal that cannot be opened is left as restored (the service reports it).
    with contextlib.suppress(JournalError):
        Scorekeeper.open(journal).close()
    done = f"restored {backup.name} as {journal}: {_describe(journal)}"
    if kept is not None:
        done += f"\nthe journal it replaced is kept in {kept}"
    return done
