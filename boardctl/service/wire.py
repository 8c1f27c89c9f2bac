"""The control socket's line format: one JSON object per line, and its size limit. Kept apart
from the server so that a CLI verb talking to a running service loads neither the server nor
the engine (``tests/test_cli_lean.py`` checks it)."""

from __future__ import annotations

import json

TYPE_CHECKING = False
if TYPE_CHECKING:
    import io
    from collections.abc import Callable
    from typing import Any, TypeAlias

    #: A request's handler: returns the result; raises BoardError on refusal.
    Handler: TypeAlias = Callable[[dict[str, Any]], Any]

MAX_LINE = 64 * 1024  # bytes in one request line
#: Seconds the service holds a journal read asked with ``"wait": true`` while its answer is
#: made (then it answers "not ready", and the client asks again).
WAIT_AT_MOST = 1.0

#: The requests that change nothing (answered from the journal when no service runs).
READ_ONLY = frozenset({"ping", "status", "history", "frame"})


class Encoded:
    """A reply's ``result`` already encoded as JSON text, in parts (a ``history --all``
    page): put into the line as it is, never decoded only to be encoded again, and copied
    once (the parts are joined into the line)."""

    __slots__ = ("parts",)

    def __init__(self, *parts: bytes) -> None:
        self.parts = parts


class WithFile:
    """A reply's ``result`` and an open ``file`` passed with its line (``SCM_RIGHTS``: the
    control socket is a Unix one), then closed: a ``results`` export's text."""

    __slots__ = ("file", "result")

    def __init__(self, result: dict[str, Any], file: io.FileIO) -> None:
        self.result = result
        self.file = file


def encode(message: dict[str, Any]) -> bytes:
    """One reply or request as a JSON line."""
    result = message.get("result")
    if isinstance(result, Encoded):
        rest = {key: value for key, value in message.items() if key != "result"}
        head = json.dumps(rest, separators=(",", ":"), default=str).encode()
        glue = b',"result":' if rest else b'"result":'
        return b"".join((head[:-1], glue, *result.parts, b"}\n"))
    return json.dumps(message, separators=(",", ":"), default=str).encode() + b"\n"
