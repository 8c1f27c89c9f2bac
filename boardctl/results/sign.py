"""The board key and the HMAC-SHA256 that signs a result (docs/results.md, "Signing off and
signing"): the key's id (``key``) and ``hmac`` over the row's :func:`canonical` form."""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from boardctl.errors import ResultsError
from boardctl.results.model import GameResult, canonical

KEY_FILE = "board.key"
KEY_BYTES = 32
_ID_LABEL = b"boardctl key id\x00"


def key_id(key: bytes) -> str:
    """A short public name for a key: ``k-`` and 12 hex digits of a labelled SHA-256."""
    return "k-" + hashlib.sha256(_ID_LABEL + key).hexdigest()[:12]


def write_key(path: Path, *, force: bool = False) -> bytes:
    """Write a new random key to ``path`` (mode 0600); an existing key stays unless ``force``."""
    key = secrets.token_bytes(KEY_BYTES)
    flags = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if force else os.O_EXCL)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, flags, 0o600)
    except FileExistsError:
        raise ResultsError(
            f"{path} already holds a board key (results signed with it would no longer verify "
            "with a new one); use --force to replace it"
        ) from None
    except OSError as exc:
        raise ResultsError(f"cannot write the board key {path}: {exc}") from exc
    with os.fdopen(fd, "w", encoding="ascii") as file:
        os.fchmod(file.fileno(), 0o600)  # also when the file existed (--force) or umask differs
        file.write(key.hex() + "\n")
        file.flush()
        os.fsync(file.fileno())
    return key


def read_key(path: Path) -> bytes:
    """The key in ``path``; :class:`ResultsError` if it cannot be read or is not a key."""
    try:
        text = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise ResultsError(f"cannot read the board key {path}: {exc}") from None
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) != KEY_BYTES:
        raise ResultsError(f"{path} is not a board key ({KEY_BYTES * 2} hex digits)")
    return key


def key_beside(journal: Path) -> bytes | None:
    """The board key in the journal's folder (None: there is none); :class:`ResultsError` if
    it cannot be read."""
    path = journal.parent / KEY_FILE
    return read_key(path) if path.exists() else None


def _mac(row: Mapping[str, Any], key: bytes) -> str:
    return hmac.new(key, canonical(row), hashlib.sha256).hexdigest()


def sign(result: GameResult, key: bytes) -> GameResult:
    """``result`` with the key's id and its HMAC."""
    named = replace(result, key=key_id(key), hmac="")
    return replace(named, hmac=_mac(named.to_dict(), key))


def sign_record(record: Mapping[str, Any], key: bytes) -> dict[str, Any]:
    """A result record (a result's fields and its game ``id``) with the key's id and its HMAC."""
    named = {**record, "key": key_id(key), "hmac": ""}
    return {**named, "hmac": _mac(named, key)}


def check_record(record: Mapping[str, Any], key: bytes) -> str | None:
    """Why a result row (an export's row, or a broker's record with its ``id``) fails, or None.

    The row must be a result of this format (its fields, and ``id`` besides),
    signed with ``key``, and unchanged.
    """
    try:
        GameResult.from_dict({k: v for k, v in record.items() if k != "id"})
    except ResultsError as exc:
        return str(exc)
    if "id" in record and not isinstance(record["id"], str):
        return "its id is not text"
    signature = record.get("hmac")
    if not signature:
        return "not signed"
    if record.get("key") != key_id(key):
        return f"signed with key {record.get('key') or '?'}, not {key_id(key)}"
    mac = _mac(record, key).encode()
    if not isinstance(signature, str) or not hmac.compare_digest(signature.encode(), mac):
        return "the HMAC does not match: the row was changed"
    return None
