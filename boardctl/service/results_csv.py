"""``results --csv`` in the service: the CSV export, made off the loop, sent a page at a time.

A verb that reads the journal itself loads the engine and SQLite and opens the journal; the
running board has them, and its thread makes the text while the verb starts (0.13 s against
0.19 s at 10,000 games on two cores, and less CPU in all: docs/performance.md), signs it
with a key the user may not read, and needs no read access to the journal. So ``boardctl
results --csv`` asks the running board: ``{"op": "results"}`` is answered with
``{"version", "page", "next", "text"}``: page 0, the first :data:`PAGE_BYTES` of JSON text (or
fewer; whole lines, 64 at most a piece) of the text, ``next`` the ``page`` to ask for after it
(None: the end). A thread makes the whole text from the journal's kept rows
(:func:`boardctl.results.source.journal_csv`, signed with the board key beside the journal
if there is one) and splits it into pages, each already JSON text; the loop only sends
them. ``{"op": "results", "page": n, "version": v}`` asks for page ``n`` of the text ``v``
names (the journal's last event and the host's result messages it counts); if that text is
gone and the journal has changed since, the reply is page 0 of a new text (its own
``version``), and the client starts again from it. Until a page is ready the loop answers
``{"ready": false}``, or holds a request with ``"wait": true`` until it is
(:func:`~.client.request_ready`, :mod:`.control`). The pages are dropped once the last
one is sent.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from json.encoder import encode_basestring
from typing import TYPE_CHECKING, Any

from boardctl.errors import ControlError
from boardctl.service.journal_reader import JournalReader, not_ready, paced
from boardctl.service.wire import MAX_LINE, Encoded

if TYPE_CHECKING:
    from pathlib import Path

#: Bytes of JSON text a page's CSV takes at most (whole pieces of lines, a longer piece alone):
#: well inside the 4 MiB a client reads in one line (service.client), and what the service
#: holds for a page while it is sent (five pages for 10,000 games).
PAGE_BYTES = 8 * MAX_LINE


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
        return Encoded(head, b',"text":', self.pages[number], b"}")


def pages(pieces: Iterable[str], size: int = PAGE_BYTES) -> tuple[bytes, ...]:
    """``pieces`` (CSV text, each of whole lines) in pages of at most ``size`` bytes of JSON
    text (a longer piece: a page of its own), each page a JSON string; one empty page for
    none. Each piece is escaped as it comes, unless it is :class:`Escaped` already (one call
    each: a piece of a few dozen lines holds the interpreter for a fraction of a
    millisecond), the loop's inputs first."""
    from boardctl.results.export import Escaped  # the service loads it for an export only

    out: list[bytes] = []
    part = [b'"']
    held = 0
    for piece in paced(pieces, step=1):
        text = piece if isinstance(piece, Escaped) else encode_basestring(piece)[1:-1]
        escaped = text.encode()
        if held and held + len(escaped) > size:
            out.append(b"".join((*part, b'"')))
            part, held = [b'"'], 0
        part.append(escaped)
        held += len(escaped)
    if held or not out:
        out.append(b"".join((*part, b'"')))
    return tuple(out)


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
            text = pages(journal_csv(journal, path, key=key_beside(path), escaped=True), PAGE_BYTES)
        finally:  # an export is made now and then: its connection's page cache not kept
            self._drop_journal()
        return Export(seq, linked, text), seq
