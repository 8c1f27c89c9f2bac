"""The board's id, written into every result.

In order: the ``board-id`` file beside the journal (one line; ``boardctl key
init`` writes it, so the id travels with a copied state folder), else an id
derived from ``/etc/machine-id`` (hashed with a fixed boardctl label, as
machine-id(5) asks, so the machine id itself is never published), else the
host name.
"""

from __future__ import annotations

import hashlib
import socket
from pathlib import Path

ID_FILE = "board-id"
MACHINE_ID = Path("/etc/machine-id")
_LABEL = b"boardctl board id\x00"


def derived_board_id(machine_id: Path = MACHINE_ID) -> str:
    """``mid-`` and 12 hex digits of a hash of the machine id, else ``host-`` and the host name."""
    try:
        text = machine_id.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        text = ""
    if text:
        return "mid-" + hashlib.sha256(_LABEL + text.encode()).hexdigest()[:12]
    return "host-" + socket.gethostname()


def board_id(state_dir: Path, machine_id: Path = MACHINE_ID) -> str:
    """The id of the board whose state (journal) lives in ``state_dir``."""
    try:
        stored = (state_dir / ID_FILE).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        stored = ""
    return stored or derived_board_id(machine_id)
