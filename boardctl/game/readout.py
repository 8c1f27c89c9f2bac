"""What ``status`` and ``history`` show with the service down, read without the engine.

A writer's scorekeeper (the service, a verb writing to the journal directly)
writes ``<journal>-readout`` as it closes the journal, still holding the
writer lock: its status and this game's history rows, with the sequence
number of the last event they include, and a CRC-32 of that text chained
from the event's own chained checksum. A reader (:func:`read`) opens the
journal with every check a reader's :meth:`Journal.open
<boardctl.game.journal.Journal.open>` makes and checks every event's chained
checksum as :meth:`Journal.resume <boardctl.game.journal.Journal.resume>`
does (the same code, :mod:`boardctl.game.journal_file`); the readout is
shown only if the last event is the readout's and the readout's checksum,
chained from that event's, holds. The chained checksum covers every event
from the first, so the readout is then what replaying this very journal
gave that writer. Before that, while no writer runs, the writer's own
damage checks (:mod:`boardctl.game.journal_check`: the WAL, the mark, the
database; nothing changed, a WAL holding events read from a private copy)
must find nothing: a readout never stands in for a damaged journal.
Anything else (damage found, no readout, events written since, a damaged
readout, another boardctl version or readout format, a standing damage
notice, an empty file) returns ``None`` and the verb replays the journal
with the engine, as it always did; a damaged journal raises the same
:class:`~boardctl.errors.JournalError` either way.

Only :mod:`json`, :mod:`os`, :mod:`sqlite3`, :mod:`struct`, :mod:`time` and
:mod:`zlib` are imported: not the engine, the rules tables or :mod:`pathlib`.
"""

from __future__ import annotations

import json
import os
import time
import zlib

from boardctl.game.journal_check import Recovered, examine, writer_running
from boardctl.game.journal_file import (
    NOTICE_SUFFIX,
    check_header,
    check_identity,
    check_pages,
    checked_rows,
    open_reader,
    select_rows,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from boardctl.game.journal_file import Row

FORMAT = 1  # bump when the status or the history rows change shape
SUFFIX = "-readout"
TIME_FORMAT = "%Y-%m-%d %H:%M:%S"  # a history row's "time", in the reader's local time
_HEAD = b"boardctl-readout %d crc=%d\n"


def row_time(at: float) -> str:
    """A history row's ``time``: the event's wall time in the local time zone."""
    return time.strftime(TIME_FORMAT, time.localtime(at))


def readout_path(journal: str | os.PathLike[str]) -> str:
    """The readout file beside ``journal``."""
    return f"{os.fspath(journal)}{SUFFIX}"


def encode(seq: int, crc: int, status: dict[str, Any], rows: list[dict[str, Any]]) -> bytes:
    """The readout of event ``seq`` (chained checksum ``crc``): a header line, then JSON.

    The rows are kept without their ``time`` (the reader's time zone says it).
    """
    from boardctl import __version__

    kept = [{key: value for key, value in row.items() if key != "time"} for row in rows]
    value = {"boardctl": __version__, "format": FORMAT, "seq": seq}
    value |= {"status": status, "history": kept}
    body = json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False).encode()
    return _HEAD % (FORMAT, zlib.crc32(body, crc)) + body


def write(
    journal: str | os.PathLike[str],
    seq: int,
    crc: int,
    status: dict[str, Any],
    rows: list[dict[str, Any]],
) -> bool:
    """Replace the readout (a temporary file renamed over it); a failure only loses the shortcut.

    True if it was replaced. Not synced: a readout lost or torn by a power
    cut fails its checksum, or names an earlier event, and is not used.
    """
    target = readout_path(journal)
    temporary = f"{target}.tmp"
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o640)
        try:
            os.write(fd, encode(seq, crc, status, rows))
        finally:
            os.close(fd)
        os.replace(temporary, target)
    except OSError:
        try:  # noqa: SIM105 (contextlib is not imported for this)
            os.unlink(temporary)
        except OSError:
            pass
        return False
    return True


def decode(data: bytes, crc: int) -> dict[str, Any] | None:
    """The readout's value if its checksum (chained from ``crc``) holds, else ``None``."""
    head, _, body = data.partition(b"\n")
    prefix = b"boardctl-readout %d crc=" % FORMAT
    if not head.startswith(prefix) or not head[len(prefix) :].isdigit():
        return None
    if zlib.crc32(body, crc) != int(head[len(prefix) :]):
        return None
    try:
        value = json.loads(body)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _rows(path: str) -> list[Row]:
    """Every event of the journal at ``path``, checked."""
    db = open_reader(path)
    try:
        return checked_rows(select_rows(db, path, 0), path, 0, 0)
    finally:
        db.close()


def read(journal: str | os.PathLike[str]) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    """(status, this game's history rows) of ``journal``, checked; ``None``: replay it instead.

    Raises :class:`~boardctl.errors.JournalError` for a journal that fails its
    checks, exactly as opening it with the engine does.
    """
    name = os.fspath(journal)
    try:
        if os.path.exists(f"{name}{NOTICE_SUFFIX}") or os.stat(name).st_size == 0:
            return None  # a damage report to show, or no journal: the engine says it
        with open(readout_path(name), "rb") as file:
            data = file.read()
    except OSError:
        return None
    if writer_running(name):  # it checked the journal when it opened it
        rows = _rows(name)
    else:  # the writer's damage checks first, changing nothing (a damaged journal: the engine)
        with Recovered(name) as where:
            examined = examine(name, where)
            if examined is None or examined[0]:
                return None
            check_header(name)  # the rest of a reader's checks, on the connection they used
            db = where.connection()
            check_identity(db, name)
            check_pages(db, name)
            rows = checked_rows(select_rows(db, name, 0), name, 0, 0)
    seq, crc = (rows[-1][0], rows[-1][3]) if rows else (0, 0)
    value = decode(data, crc)
    if value is None or value.get("seq") != seq or value.get("format") != FORMAT:
        return None
    from boardctl import __version__

    status, history = value.get("status"), value.get("history")
    if value.get("boardctl") != __version__ or not isinstance(status, dict):
        return None
    if not isinstance(history, list) or not all(isinstance(row, dict) for row in history):
        return None
    shown = [{"seq": r["seq"], "at": r["at"], "time": row_time(r["at"]), **r} for r in history]
    return status, shown
