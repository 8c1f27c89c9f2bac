"""The board's link to another board: ``remote.json`` beside the journal.

``{"version": 1, "role": "host" | "guest", "secret": hex, "since": ISO time}``,
mode 0600 (the secret is the link key's), replaced atomically with an fsync
of the file and its folder, so a power cut leaves the old pairing or the new
one. The host's pairing is made by ``boardctl remote invite``, the joined
board's by ``boardctl remote join CODE``; ``boardctl remote leave`` removes it.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

from boardctl.durable import replace_file, sync_folder
from boardctl.remote.protocol import (
    ROLES,
    SECRET_BYTES,
    RemoteError,
    encode_code,
    game_id,
    link_key,
)
from boardctl.results.sign import key_id

FILE = "remote.json"
VERSION = 1


@dataclass(frozen=True, slots=True)
class Pairing:
    """This board's side of a link."""

    role: str  # "host": its journal is the game; "guest": it enters scores into the host's
    secret: bytes
    since: str = ""

    @property
    def key(self) -> bytes:
        return link_key(self.secret)

    @property
    def game(self) -> str:
        return game_id(self.secret)

    @property
    def code(self) -> str:
        return encode_code(self.secret)

    @property
    def key_id(self) -> str:
        return key_id(self.key)

    @property
    def peer(self) -> str:
        return "guest" if self.role == "host" else "host"


def path_beside(journal: Path) -> Path:
    """Where the pairing of the board whose journal is ``journal`` is kept."""
    return journal.parent / FILE


def load(path: Path) -> Pairing | None:
    """The pairing in ``path``, None if there is none; :class:`RemoteError` if unreadable."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise RemoteError(f"cannot read the link {path}: {exc}") from None
    broken = RemoteError(f"{path} is not a board's link (boardctl remote leave removes it)")
    try:
        data = json.loads(text)
        secret = bytes.fromhex(data["secret"])
    except (ValueError, TypeError, KeyError):
        raise broken from None
    if data.get("version") != VERSION or data.get("role") not in ROLES:
        raise broken
    if len(secret) != SECRET_BYTES:
        raise broken
    return Pairing(data["role"], secret, str(data.get("since", "")))


def save(path: Path, pairing: Pairing) -> Pairing:
    """Write ``pairing`` to ``path`` durably (mode 0600), replacing any other; returns it as
    written (``since`` now, unless it had one)."""
    since = pairing.since or time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    pairing = Pairing(pairing.role, pairing.secret, since)
    body = {
        "version": VERSION,
        "role": pairing.role,
        "secret": pairing.secret.hex(),
        "since": since,
    }
    replace_file(path, json.dumps(body, indent=1) + "\n", private=True)
    return pairing


def remove(path: Path) -> bool:
    """Remove the pairing durably; False if there was none."""
    try:
        path.unlink()
    except FileNotFoundError:
        return False
    sync_folder(path.parent)
    return True
