"""The control socket's line format: one JSON object per line, and its size limit.

Kept apart from :mod:`boardctl.service.control` (the server) so that a CLI
verb talking to a running service imports ``json`` and ``socket`` and little
else: the server's selector, logging and the engine's parser stay out of the
client's process (``tests/test_cli_lean.py`` checks it).
"""

from __future__ import annotations

import json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_LINE = 64 * 1024  # bytes in one request line

#: The requests that change nothing (answered from the journal when no service runs).
READ_ONLY = frozenset({"ping", "status", "history", "frame"})


def encode(message: dict[str, Any]) -> bytes:
    """One reply or request as a JSON line."""
    return json.dumps(message, separators=(",", ":"), default=str).encode() + b"\n"
