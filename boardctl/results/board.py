"""The board's id, written into every result (docs/results.md, "The board id")."""

from __future__ import annotations

import hashlib
import socket
from pathlib import Path

ID_FILE = "board-id"
MACHINE_ID = Path("/etc/machine-id")
_LABEL = b"boardctl board id\x00"


def _text(path: Path, encoding: str = "utf-8") -> str:
    try:
        return path.read_text(encoding=encoding).strip()
    except (OSError, UnicodeDecodeError):
        return ""


def board_id(state_dir: Path) -> str:
    """The id of the board whose state (journal) lives in ``state_dir``: the stored one, else
    ``mid-`` and 12 hex digits of a hash of the machine id, else ``host-`` and the host name."""
    if stored := _text(state_dir / ID_FILE):
        return stored
    if text := _text(MACHINE_ID, "ascii"):
        return "mid-" + hashlib.sha256(_LABEL + text.encode()).hexdigest()[:12]
    return "host-" + socket.gethostname()
