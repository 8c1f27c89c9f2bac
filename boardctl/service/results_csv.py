"""``results --csv`` in the service: the CSV export, made off the loop, sent a page at a time.

A verb that reads the journal itself loads the engine and SQLite and opens the journal; the
running board has them, and its thread makes the text while the verb starts (0.15 s against
0.20 s at 10,000 games on two cores, about the same CPU in all: docs/performance.md), signs it
with a key the user may not read, and needs no read access to the journal. So ``boardctl
results --csv`` asks the running board: ``{"op": "results"}`` is answered with
``{"version", "page", "next", "text"}``: page 0, the first :data:`PAGE_CHARACTERS` (or fewer,
whole lines) of the text, ``next`` the ``page`` to ask for after it (None: the end). A
thread makes the whole text from the journal's kept rows
(:func:`boardctl.results.source.journal_csv`, signed with the board key beside the journal
if there is one) and splits it into pages, each already JSON text; the loop only sends
them. ``{"op": "results", "page": n, "version": v}`` asks for page ``n`` of the text ``v``
names (the journal's last event and the host's result messages it counts); if that text is
gone and the journal has changed since, the reply is page 0 of a new text (its own
``version``), and the client starts again from it. Until a page is ready the loop answers
``{"ready": false}`` (:func:`~.client.request_ready`). The pages are dropped once the last
one is sent.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from json.encoder import encode_basestring
from typing import TYPE_CHECKING, Any

from boardctl.errors import ControlError
from boardctl.service.journal_reader import JournalReader, not_ready, paced
from boardctl.service.wire import Encoded

if TYPE_CHECKING:
    from pathlib import Path

#: Characters of CSV a page holds at most (whole lines): at most 6 bytes each in the reply's
#: JSON (``\u0001``), so a page stays inside the 4 MiB a client reads in one line
#: (service.client); five pages for 10,000 games.
PAGE_CHARACTERS = 512 * 1024


@dataclass(frozen=True)
class Export:
    """The CSV text as pages of JSON text, and what it counts (``seq``, ``linked``)."""

    seq: int
    linked: int
    pages: tuple[bytes, ...]

    @property
    def version(self) -> str:
        return f"{self.seq}.{self.linked}"

    def page(self, number: int) -> Encoded:
        """Page ``number``'s reply: ``{"version", "page", "next", "text"}``."""
        following = str(number + 1).encode() if number + 1 < len(self.pages) else b"null"
        head = f'{{"version":"{self.version}","page":{number},"next":'.encode() + following
        return Encoded(head + b',"text":' + self.pages[number] + b"}")


def pages(lines: Iterable[str], size: int = PAGE_CHARACTERS) -> tuple[bytes, ...]:
    """``lines`` in pages of at most ``size`` characters (a longer line: a page of its own),
    each page a JSON string; one empty page for no lines. Made a page at a time: the text is
    never whole in memory twice."""
    out: list[bytes] = []
    part: list[str] = []
    held = 0
    for line in paced(lines):
        if part and held + len(line) > size:
            out.append(_page(part))
            part, held = [], 0
        part.append(line)
        held += len(line)
    if part or not out:
        out.append(_page(part))
    return tuple(out)


def _page(lines: list[str], at_once: int = 64) -> bytes:
    """``lines`` as one JSON string, ``at_once`` lines an escaping call (one call for half a
    megabyte would hold the interpreter for milliseconds, the loop and its buttons waiting)."""
    parts = (lines[start : start + at_once] for start in range(0, len(lines), at_once))
    return f'"{"".join(encode_basestring("".join(part))[1:-1] for part in parts)}"'.encode()


class ResultsCsv(JournalReader[Export]):
    """The CSV export of the journal at ``path`` (None: no journal), made by a thread."""

    name = "results"

    def reply(
        self, page: int, version: str | None, seq: int, linked: int = 0, since: int | None = None
    ) -> Any:
        """Page ``page`` of the text ``version`` (None: a new read, counting event ``seq``, or
        ``since`` if fewer, and ``linked`` host results; gone: page 0 of a new one), as JSON
        text, or not ready yet (``{"ready": false}``)."""
        if page < 0 or (page > 0 and version is None):
            raise ControlError("results: ask for page 0, then the next with page 0's version")
        due = seq if since is None else min(since, seq)

        def usable(export: Export, _: int) -> bool:  # the text asked for, or one new enough
            return export.version == version or (export.seq >= due and export.linked >= linked)

        export, read = self._ask(usable)
        if export is None:
            return not_ready(read, seq)
        if export.version != version:
            page = 0  # the text asked for is gone: the new one from its start
        elif page >= len(export.pages):
            raise ControlError(f"results: there are {len(export.pages)} pages, not {page + 1}")
        if page + 1 == len(export.pages):
            with self._lock:
                self._answer = None  # sent: a page asked for later makes the text again
        return export.page(page)

    def _catch_up(self, path: Path) -> tuple[Export, int]:
        from boardctl.remote.store import linked_kept
        from boardctl.results.sign import key_beside
        from boardctl.results.source import journal_csv

        journal = self._opened(path)
        try:
            seq = journal.stored_seq()  # before the read: what it counts is at least this
            linked = linked_kept(path.parent)
            text = pages(journal_csv(journal, path, key=key_beside(path)), PAGE_CHARACTERS)
        finally:  # an export is made now and then: its connection's page cache not kept
            self._drop_journal()
        return Export(seq, linked, text), seq
