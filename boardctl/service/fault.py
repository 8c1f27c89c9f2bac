"""The service's scorekeeper, also while the journal cannot be opened: a stand-in that refuses
every entry with the reason and shows the fault sign until it opens (docs/service.md, 'When the
journal cannot be used')."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from boardctl.errors import JournalError
from boardctl.game.commands import BoardCommand, Command
from boardctl.game.history import Row
from boardctl.game.keeper import Pending, Scorekeeper, SetupLike
from boardctl.game.state import GameState
from boardctl.notices import FAULT_KEY
from boardctl.service.journal_reader import import_readers, paced
from boardctl.service.priority import beside_the_loop
from boardctl.store.journal import Journal
from boardctl.store.lock import SERVICE, JournalBusy
from boardctl.view import BoardView

log = logging.getLogger(__name__)

RETRY = 2.0  # seconds between attempts to open the journal
CHECK_WAIT = 5.0  # seconds a close waits for the check after READY to end


def _store_starts(journal: Journal, own: Journal) -> None:
    """Store the game starts of ``journal`` on ``own``, its second connection, again while a
    game start was written without its rows."""
    from boardctl.results.kept import store_game_starts

    began = time.monotonic()
    while True:
        stored = store_game_starts(own, paced=paced)
        journal.starts_pending = False  # a game start from now on keeps its rows
        if not own.kept_in_doubt():
            break
        journal.starts_pending = True
    seconds = time.monotonic() - began
    log.info("journal %s: %d game starts stored in %.0f s", journal.path, stored, seconds)


class JournalKeeper:
    """The journal's scorekeeper, or a refusing stand-in until the journal opens."""

    def __init__(
        self, path: Path, setup: SetupLike, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.path = path
        self._setup = setup
        self._clock = clock
        self.inner: Scorekeeper | None = None
        self.fault: str | None = None
        self._standin: Scorekeeper | None = None
        self._next_try: float | None = None
        self.on_reopen: Callable[[], object] = lambda: None  # the loop shows the game again
        self._post: Callable[[Callable[[], object]], None] | None = None  # once it serves
        self.checking: threading.Thread | None = None  # the thread of :meth:`after_start`
        self.try_open()

    def after_start(self, post: Callable[[Callable[[], object]], None]) -> None:
        """The loop serves (``post`` runs a function in its thread): a thread, on a connection
        of its own, runs SQLite's structural check of the whole journal (damage found faults
        it as at an open) and stores the game starts of a journal opened without them, while
        the board takes entries: a start does not wait for either."""
        self._post = post
        journal = self.journal
        if journal is not None and (self.checking is None or not self.checking.is_alive()):
            self.checking = threading.Thread(
                target=self._check, args=(journal, post), name="journal-check", daemon=True
            )
            self.checking.start()

    def _check(self, journal: Journal, post: Callable[[Callable[[], object]], None]) -> None:
        try:
            with beside_the_loop():
                with journal.sibling() as own:
                    try:
                        own.check_pages()
                    except JournalError as exc:
                        reason = str(exc)
                        post(lambda: self._damaged(journal, reason))
                        return
                    if journal.starts_pending:
                        _store_starts(journal, own)
                import_readers()  # its connection closed first: a stop then leaves no WAL
        except JournalError as exc:
            log.error("journal %s: the game starts were not stored: %s", journal.path, exc)

    def _damaged(self, journal: Journal, reason: str) -> None:
        """Damage the structural check found after the start: as if the open had failed."""
        if self.inner is not None and self.inner.journal is journal:
            self.inner.close()
            self.inner = None
            self._faulted(reason)
            self.on_reopen()

    def try_open(self) -> bool:
        """Open the journal now; True if it is open. A second service is not retried."""
        if self.inner is not None:
            return True
        try:
            inner = Scorekeeper.open(self.path, setup=self._setup, owner="service", later=True)
        except JournalError as exc:
            if isinstance(exc, JournalBusy) and exc.role == SERVICE:
                raise  # another service has it: this one must not start
            self._faulted(str(exc))
            return False
        if inner.journal is not None:
            inner.journal.backup_on_close = True  # a backup at every clean shutdown
        self.inner = inner
        if self.fault is not None:
            log.warning("journal %s opened; entries are taken again", self.path)
        self.fault, self._next_try, self._standin = None, None, None
        if self._post is not None:  # the loop serves
            self.after_start(self._post)
        return True

    def _faulted(self, reason: str) -> None:
        if reason != self.fault:
            log.error("%s; entries are refused, retrying every %.0f s", reason, RETRY)
        self.fault = reason
        self._next_try = self._clock() + RETRY
        if self._standin is None:
            self._standin = Scorekeeper.memory(self._setup)

    def deadline(self) -> float | None:
        return self._next_try

    def tick(self, now: float) -> None:
        due = self._next_try is not None and now >= self._next_try
        if due and self.try_open():
            self.on_reopen()

    def _shown(self) -> Scorekeeper:
        keeper = self.inner or self._standin
        assert keeper is not None
        return keeper

    def prepare(self, command: Command) -> Pending:
        if self.inner is None:
            raise JournalError(f"{self.fault}; nothing was recorded")
        return self.inner.prepare(command)

    def view(self) -> BoardView:
        view = self._shown().view()
        if self.fault is None:
            return view
        return replace(view, extra=replace(view.extra, journal_fault=self.fault))

    def button_command(self, command: BoardCommand) -> BoardCommand:
        return self._shown().button_command(command)

    def waiting_signoff(self) -> tuple[int, ...] | None:
        return self._shown().waiting_signoff()

    def status(self) -> dict[str, Any]:
        status = self._shown().status()
        if self.fault is not None:
            status[FAULT_KEY] = self.fault
        return status

    def history(self, *, all_games: bool = False, limit: int | None = None) -> list[Row]:
        return [] if self.inner is None else self.inner.history(all_games=all_games, limit=limit)

    @property
    def state(self) -> GameState:
        return self._shown().state

    @property
    def journal(self) -> Any:
        return None if self.inner is None else self.inner.journal

    @property
    def seq(self) -> int:
        return self._shown().seq

    def close(self) -> None:
        """Close the journal, once the thread that checks it after READY has closed its own
        connection (else the process may end before it: the WAL left behind), a few seconds at
        most (storing an imported journal's game starts may take longer: it goes on next start)."""
        if self.checking is not None:
            self.checking.join(CHECK_WAIT)
        if self.inner is not None:
            self.inner.close()
