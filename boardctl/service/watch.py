"""``watch``: every state change and every committed event, streamed to control clients.

A client sends ``{"op": "watch"}`` and gets, as the reply, a snapshot of the
board (``status`` and ``view``) with the stream position ``n``; from then on
the server writes one JSON line per change, each numbered ``n + 1``,
``n + 2``, ... without gaps:

- ``{"n": 8, "event": {...}, "seq": 42}``: a command was journalled
  (``seq`` is its journal sequence number, ``event`` as ``history`` shows it);
- ``{"n": 9, "state": {"status": {...}, "view": {...}}}``: what the board
  shows changed (a score, a pending amount, settings mode, an error flash).

A client that sees a gap missed something and should watch again. A watcher
that does not keep up is dropped (with one log line) once
:data:`MAX_WATCH_BUFFER` bytes wait for it: the buttons never wait for a
watcher. The whole protocol: ``docs/control-protocol.md``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

MAX_WATCH_BUFFER = 256 * 1024  # unsent bytes before a watcher is dropped

Sink = Callable[[bytes], None]  # takes one encoded line


def encode_line(message: dict[str, Any]) -> bytes:
    """One stream message as a JSON line."""
    return json.dumps(message, separators=(",", ":"), default=str).encode() + b"\n"


class Watch:
    """The stream's numbering and its subscribers (the control server's watching clients)."""

    def __init__(self) -> None:
        self.n = 0  # the number of the last message published
        self._sinks: dict[int, Sink] = {}

    @property
    def watchers(self) -> int:
        return len(self._sinks)

    def subscribe(self, key: int, sink: Sink) -> int:
        """Send every later message to ``sink``; returns the position now (the snapshot's)."""
        self._sinks[key] = sink
        return self.n

    def unsubscribe(self, key: int) -> None:
        self._sinks.pop(key, None)

    def publish(self, build: Callable[[], dict[str, Any]]) -> None:
        """Number and send the message ``build()`` makes (built only if someone watches)."""
        if not self._sinks:
            return
        self.n += 1
        line = encode_line({"n": self.n, **build()})
        for sink in list(self._sinks.values()):
            sink(line)
