"""``watch``: every state change and every committed event, numbered, streamed to control
clients (docs/control-protocol.md, 'watch')."""

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
