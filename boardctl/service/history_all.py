"""``history --all`` in the service: every game's rows a page at a time (docs/control-protocol.md),
a journal of years being hundreds of megabytes. A thread makes each page, replaying from the
snapshot at the start of its first game: one game and the page, whatever the journal's length.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from boardctl.errors import ControlError
from boardctl.service.journal_reader import JournalReader, not_ready, paced
from boardctl.service.wire import Encoded

if TYPE_CHECKING:
    from pathlib import Path

    from boardctl.game.history import Row


_DUMP = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, default=str).encode


def encoded(rows: list[Row]) -> bytes:
    """Rows as compact JSON text (as the control socket sends them), a row at a time: one
    call for a page would hold the interpreter for milliseconds, the loop waiting."""
    return ("[" + ",".join(map(_DUMP, paced(rows))) + "]").encode()


#: Events per page: about 0.2 MB of rows, made in about 15 ms of CPU here.
PAGE_ROWS = 500


@dataclass(frozen=True)
class Page:
    """The rows of the events after ``after`` up to ``last`` (``more``: the journal goes on)."""

    after: int
    rows: bytes  # the rows as one JSON list
    last: int
    more: bool


class HistoryPages(JournalReader[Page]):
    """The pages of the journal at ``path`` (None: no journal), made by a thread."""

    name = "history"

    def __init__(self, path: str | Path | None) -> None:
        super().__init__(path)
        self._wanted = -1  # the page asked for last: its after,
        self._since = 0  # and the board's last event when it was first asked for

    def reply(self, after: int, seq: int) -> Any:
        """The page after event ``after`` when the board's last event is ``seq``, as JSON
        text, or not ready yet (``{"ready": false}``)."""
        if after < 0 or after > seq:
            raise ControlError(f"history: after must be an event of the journal (0 to {seq})")
        with self._lock:
            if after != self._wanted:
                self._wanted, self._since = after, seq
            since = min(self._since, seq)  # the last page holds every event of the first ask
        page, read = self._ask(
            lambda answer, _last: answer.after == after and (answer.more or answer.last >= since)
        )
        if page is None:
            return not_ready(read, seq)
        with self._lock:
            self._wanted = -1  # answered: the next ask, even for this page, is a new one
        following = str(page.last).encode() if page.more else b"null"  # {"next", "rows"}
        return Encoded(b'{"next":', following, b',"rows":', page.rows, b"}")

    def _catch_up(self, path: Path) -> tuple[Page, int]:
        """The page asked for last: the events from the start of its first game replayed."""
        from boardctl.game.history import history_row
        from boardctl.game.keeper import Scorekeeper

        with self._lock:
            after = self._wanted
        last = after + PAGE_ROWS
        snapshot, records = self._opened(path).page(after + 1, last)
        entries = Scorekeeper.from_records(snapshot, paced(records)).entries
        end = entries[-1].seq if entries else after  # an entry's seq is above after
        page = [history_row(entry) for entry in paced(entries) if entry.seq > after]
        return Page(after, encoded(page), end, more=end == last), end
