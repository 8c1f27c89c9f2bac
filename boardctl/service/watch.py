"""``watch``: every state change and every committed event, streamed to control clients.

The reply to ``{"op": "watch"}`` is a snapshot (``status`` and ``view``) with the
stream position ``n``; then one JSON line per change, numbered ``n + 1``, ``n + 2``, ...
without gaps: ``{"n", "event", "seq"}`` when a command was journalled,
``{"n", "state": {"status", "view"}}`` when what the board shows changed. A client
that sees a gap missed something and should watch again. A watcher that does not
keep up is dropped once :data:`MAX_WATCH_BUFFER` bytes wait for it: the buttons
never wait for a watcher. The protocol: ``docs/control-protocol.md``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from boardctl.service.wire import encode

MAX_WATCH_BUFFER = 256 * 1024  # unsent bytes before a watcher is dropped

Sink = Callable[[bytes], None]  # takes one encoded line


class Watch:
    """The stream's numbering and its subscribers (the control server's watching clients)."""

    def __init__(self) -> None:
        self.n = 0  # the number of the last message published
        self._sinks: dict[int, Sink] = {}

    @property
    def watchers(self) -> int:
        return len(self._sinks)

    def subscribe(self, key: int, sink: Sink) -> None:
        self._sinks[key] = sink

    def unsubscribe(self, key: int) -> None:
        self._sinks.pop(key, None)

    def publish(self, build: Callable[[], dict[str, Any]]) -> None:
        """Number and send the message ``build()`` makes (built only if someone watches)."""
        if not self._sinks:
            return
        self.n += 1
        line = encode({"n": self.n, **build()})
        for sink in list(self._sinks.values()):
            sink(line)
