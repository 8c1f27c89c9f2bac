"""``results --csv`` in the service: the CSV export, made off the loop, passed as a sealed
memory file (docs/control-protocol.md, the ``results`` request). The running board has the
engine loaded and the journal open, makes the text while the verb starts (docs/performance.md),
signs it with a key the user may not read, and the verb needs no read access to the journal.
"""

from __future__ import annotations

import fcntl
import io
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boardctl.service.journal_reader import JournalReader, not_ready, paced
from boardctl.service.wire import WithFile

#: What no one may do to the file once it is made: write, shrink, grow it, or unseal it.
SEALS = fcntl.F_SEAL_WRITE | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL


@dataclass(frozen=True)
class Export:
    """The CSV text in a sealed memory file of ``size`` bytes, and what it counts."""

    seq: int
    linked: int
    file: io.FileIO
    size: int


def sealed_file(pieces: Iterable[str]) -> tuple[io.FileIO, int]:
    """``pieces`` of text, UTF-8, in a sealed memory file (read it with ``pread`` or
    ``sendfile``: whoever holds it shares its offset), and its size; written a piece at a
    time, the loop's inputs first."""
    file = io.FileIO(
        os.memfd_create("boardctl-results", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING), "r+"
    )
    try:
        for piece in paced(pieces, step=1):
            file.write(piece.encode())
        fcntl.fcntl(file.fileno(), fcntl.F_ADD_SEALS, SEALS)
    except BaseException:
        file.close()
        raise
    return file, file.tell()


class ResultsCsv(JournalReader[Export]):
    """The CSV export of the journal at ``path`` (None: no journal), made by a thread."""

    name = "results"

    def reply(self, seq: int, linked: int = 0, since: int | None = None) -> Any:
        """The text counting event ``seq`` (or ``since`` if fewer) and ``linked`` host results,
        with its file, or not ready yet (``{"ready": false}``); passed once (the next ask
        makes it again)."""
        due = seq if since is None else min(since, seq)
        export, read = self._ask(lambda export, _: export.seq >= due and export.linked >= linked)
        if export is None:
            return not_ready(read, seq)
        with self._lock:
            self._answer = None
        result = {"seq": export.seq, "linked": export.linked, "bytes": export.size}
        return WithFile(result, export.file)

    def _catch_up(self, path: Path) -> tuple[Export, int]:
        from boardctl.remote.store import linked_kept
        from boardctl.results.sign import key_beside
        from boardctl.results.source import journal_csv

        journal = self._opened(path)
        try:
            seq = journal.stored_seq()  # before the read: what it counts is at least this
            linked = linked_kept(path.parent)
            file, size = sealed_file(journal_csv(journal, key=key_beside(path)))
        finally:  # an export is made now and then: its connection's page cache not kept
            self._drop_journal()
        return Export(seq, linked, file, size), seq
