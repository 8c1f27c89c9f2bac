"""The journal's readers beside the loop, and the ``records`` request (docs/control-protocol.md)
for a client that may not read the journal itself (the web page, whose unit has no access to
the state directory). A read folds the current game onto the running totals kept at the last
game start: a few milliseconds, still too long to keep the buttons waiting, so the loop never
reads: a thread does, on a read-only connection kept open."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from boardctl.errors import BoardError, ControlError
from boardctl.service.priority import beside_the_loop

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

    from boardctl.store.journal import Journal

T = TypeVar("T")
U = TypeVar("U")


def import_readers() -> None:
    """Import what the readers' threads use (the results, the linked games' copies) ahead of
    them: the thread that checks the journal after READY does, so that the first read after a
    start does not wait for it (a third of that read's CPU at 10,000 games)."""
    import boardctl.remote.store
    import boardctl.results.source  # noqa: F401


#: Clear while an input (a press, a turn, a key) waits for the loop or is being handled: the
#: readers' threads stop at their next step (:func:`paced`) until the loop is done with it.
#: Where the CPU is short (one slow core, or a CPU quota) a reader that kept running would
#: spend the time the press needs each time the loop waits (for the interpreter, the disk).
inputs_done = threading.Event()
inputs_done.set()
PAUSE_AT_MOST = 0.05  # seconds a step waits for the loop, at most (inputs without end)
STEP = 4  # items between two looks at inputs_done


def paced(items: Iterable[U], step: int = STEP) -> Iterator[U]:
    """``items``, waiting before every ``step``-th while an input is being handled (no more
    after a wait that ran out: the loop is busy for long, or gone)."""
    waiting = True
    for count, item in enumerate(items):
        if waiting and count % step == 0 and not inputs_done.is_set():
            waiting = inputs_done.wait(PAUSE_AT_MOST)
        yield item


class JournalReader(Generic[T]):
    """Something made from the journal at ``path`` by a thread of its own (None: no journal),
    on a read-only connection kept open (:meth:`_catch_up`, in a subclass); the loop only
    looks at what was published (:meth:`_ask`), never waits for it."""

    name = "reader"

    def __init__(self, path: str | Path | None) -> None:
        self._path = None if path is None else Path(path)
        self._lock = threading.Lock()
        self._answer: T | None = None
        self._seq = -1  # the last event the answer counts
        self._error = ""
        self._reader: threading.Thread | None = None
        self._reading = False  # a thread reads (and has not published yet)
        self._closed = False
        self._journal: Journal | None = None
        #: Called by the thread once it has published (or failed): the loop answers a
        #: request held for it (boardctl.service.control's ``"wait"``).
        self.on_publish: Callable[[], object] = lambda: None

    def _ask(self, current: Callable[[T, int], bool]) -> tuple[T | None, int]:
        """The published answer if ``current(answer, its seq)``, else None (the thread is
        started to catch up); and the last event published (-1: none yet)."""
        if self._path is None:
            raise ControlError(f"{self.name}: this board keeps no journal")
        with self._lock:
            if self._error:
                error, self._error = self._error, ""
                raise ControlError(f"{self.name}: {error}")
            if self._answer is not None and current(self._answer, self._seq):
                return self._answer, self._seq
            if not self._closed and not self._reading:
                self._reading = True
                self._reader = threading.Thread(target=self._read, name=self.name, daemon=True)
                self._reader.start()
            return None, self._seq

    def reading(self) -> bool:
        """True while the thread reads the journal (what a press benchmark counts beside)."""
        with self._lock:
            return self._reading

    def _read(self) -> None:
        """Catch up with the journal and publish the answer (a thread beside the loop); then
        the loop is woken, and an ask that finds the answer not current starts a thread again
        (this one is done, though not yet ended)."""
        assert self._path is not None
        try:
            with beside_the_loop():
                try:
                    answer, seq = self._catch_up(self._path)
                except BoardError as exc:
                    with self._lock:
                        self._error = str(exc)
                        self._drop_journal()
                else:
                    with self._lock:
                        self._answer, self._seq = answer, seq
        finally:
            with self._lock:
                self._reading = False
            self.on_publish()

    def _catch_up(self, path: Path) -> tuple[T, int]:
        """Read what was written since the last read; the answer and its last event."""
        raise NotImplementedError

    def _opened(self, path: Path) -> Journal:
        """The read-only connection, opened at the first read (or the first after an error)."""
        from boardctl.store.journal import Journal

        if self._journal is None:
            self._journal = Journal.open(path, readonly=True)
        return self._journal

    def _drop_journal(self) -> None:
        """Close the read-only connection (the next read opens it again)."""
        if self._journal is not None:
            self._journal.close()
        self._journal = None

    def close(self) -> None:
        """Wait for a read under way, then close the read-only connection."""
        with self._lock:
            self._closed = True
            reader = self._reader
        if reader is not None:
            reader.join(10)
        with self._lock:
            self._drop_journal()


def not_ready(read: int, events: int) -> dict[str, Any]:
    """The reply while the thread reads: the last event it published, and the journal's (a
    client's ``since``)."""
    return {"ready": False, "seq": max(read, 0), "events": events}


class JournalRecords(JournalReader[tuple[dict[str, Any], int]]):
    """The records of the journal at ``path`` (None: a board without a journal) and of the
    linked games' copies beside it (:func:`boardctl.results.source.journal_records`)."""

    name = "records"

    def reply(self, seq: int, linked: int = 0, since: int | None = None) -> dict[str, Any]:
        """The records up to event ``seq`` (the journal's last; ``since``: the last at the
        client's first ask, if fewer) and of ``linked`` copies of the host's results
        (:attr:`boardctl.remote.store.Outbox.results_kept`), or not ready yet."""
        due = seq if since is None else min(since, seq)
        answer, read = self._ask(lambda answer, counted: counted >= due and answer[1] >= linked)
        return not_ready(read, seq) if answer is None else {"ready": True, **answer[0]}

    def _catch_up(self, path: Path) -> tuple[tuple[dict[str, Any], int], int]:
        from boardctl.remote.store import linked_kept
        from boardctl.results.source import journal_records

        journal = self._opened(path)
        seq = journal.stored_seq()  # before the read: what it counts is at least this
        linked = linked_kept(path.parent)  # the same: the copies it counts are at least these
        recs = journal_records(journal)  # the running totals, the games after them
        return ({"seq": seq, "games": recs.games, **recs.to_dict()}, linked), seq
