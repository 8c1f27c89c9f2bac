"""The board's link to another board: ``remote.json`` beside the journal, mode 0600, replaced
atomically (docs/remote.md, 'What each side stores'); its fields are :class:`Pairing`'s."""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from boardctl.durable import replace_file, sync_folder
from boardctl.remote.messages import (
    ROLES,
    SECRET_BYTES,
    RemoteError,
    encode_code,
    game_id,
    link_key,
)
from boardctl.results.sign import key_id

VERSION = 1
MAX_TRACKS = 4


@dataclass(frozen=True, slots=True)
class Pairing:
    """This board's side of a link."""

    role: str  # "host": its journal is the game; "guest": it enters scores into the host's
    secret: bytes
    since: str = ""
    tracks: tuple[int, ...] = (1,)  # the host's: the tracks the joined board enters for

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
    tracks = data.get("tracks", [1])
    if len(secret) != SECRET_BYTES or not _tracks_ok(tracks):
        raise broken
    return Pairing(data["role"], secret, str(data.get("since", "")), tuple(tracks))


def _tracks_ok(tracks: object) -> bool:
    return (
        isinstance(tracks, list)
        and bool(tracks)
        and all(type(t) is int and 0 <= t < MAX_TRACKS for t in tracks)
    )


def parse_tracks(text: str) -> tuple[int, ...]:
    """``--tracks 2`` or ``2,3`` (1-based, as the board's labels) as 0-based track indices."""
    try:
        tracks = tuple(sorted({int(part) - 1 for part in text.split(",")}))
    except ValueError:
        tracks = ()
    if not _tracks_ok(list(tracks)):
        raise RemoteError(
            f"--tracks {text!r}: the joined board's tracks, as 2 or 2,3 (1-{MAX_TRACKS})"
        )
    return tracks


def save(path: Path, pairing: Pairing) -> Pairing:
    """Write ``pairing`` to ``path`` durably (mode 0600), replacing any other; returns it as
    written (``since`` now, unless it had one)."""
    since = pairing.since or time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    pairing = replace(pairing, since=since)
    body = {"version": VERSION, **asdict(pairing), "secret": pairing.secret.hex()}
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
