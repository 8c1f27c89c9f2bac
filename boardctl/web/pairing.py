"""Pairing: a short code said once, then a token the phone keeps, in files the CLI and the server
share (docs/web.md, "Nobody changes a game from the street")."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from boardctl.durable import replace_file
from boardctl.errors import BoardError

CODE_TTL = 600.0
CODE_TRIES = 5  # wrong guesses one client address may make at one code
CODE_TRIES_TOTAL = 20  # wrong guesses from every address together before the code is void
CODE_DIGITS = 6
TOKENS_FILE = "tokens.json"
CODE_FILE = "pairing.json"


class PairingError(BoardError, PermissionError):
    """A pairing code is wrong, used up or expired, or a token is not known."""


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


class Pairing:
    """The code and tokens kept in ``directory``."""

    def __init__(
        self, directory: str | os.PathLike[str], *, clock: Callable[[], float] = time.time
    ):
        self.directory = Path(directory)
        self.clock = clock
        self._tokens_seen: tuple[int, int, int] | None = None
        self._hashes: frozenset[str] = frozenset()

    def _read(self, name: str) -> Any:
        try:
            return json.loads((self.directory / name).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            raise PairingError(f"{self.directory / name}: cannot read ({exc})") from None

    def _write(self, name: str, data: Any) -> None:
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        text = json.dumps(data, indent=1)
        replace_file(self.directory / name, text, private=True, before_rename=self._match_owner)

    def _match_owner(self, path: str) -> None:
        """Run as root (``sudo boardctl web pair``), give the file to the directory's owner."""
        if os.geteuid() == 0:
            info = self.directory.stat()
            with contextlib.suppress(OSError):
                os.chown(path, info.st_uid, info.st_gid)

    def _void_code(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            (self.directory / CODE_FILE).unlink()

    def _tokens(self) -> list[dict[str, Any]]:
        data = self._read(TOKENS_FILE)
        if not isinstance(data, dict) or not isinstance(data.get("tokens"), list):
            return []
        return [t for t in data["tokens"] if isinstance(t, dict) and "hash" in t]

    def new_code(self, ttl: float = CODE_TTL) -> str:
        """A fresh code (the previous one stops working)."""
        code = f"{secrets.randbelow(10**CODE_DIGITS):0{CODE_DIGITS}d}"
        self._write(CODE_FILE, {"hash": _digest(code), "expires": self.clock() + ttl, "tries": 0})
        return code

    def phones(self) -> list[dict[str, Any]]:
        """The paired phones: id, label, when paired (no secrets)."""
        return [
            {"id": t.get("id", "?"), "label": t.get("label", ""), "created": t.get("created", 0)}
            for t in self._tokens()
        ]

    def revoke(self, ident: str | None = None) -> int:
        """Forget every token (``ident=None``) or the one with id ``ident``; how many went."""
        tokens = self._tokens()
        keep = [t for t in tokens if ident is not None and t.get("id") != ident]
        if ident is not None and len(keep) == len(tokens):
            known = ", ".join(str(t.get("id")) for t in tokens) or "none"
            raise PairingError(f"no paired phone with id {ident!r} (paired: {known})")
        self._write(TOKENS_FILE, {"tokens": keep})
        self._void_code()
        return len(tokens) - len(keep)

    def redeem(self, code: str, label: str = "", address: str = "") -> tuple[str, str]:
        """Trade a valid code for ``(id, token)``, using it up (``address``: the client's, for
        :data:`CODE_TRIES`)."""
        pending = self._read(CODE_FILE)
        if not isinstance(pending, dict) or "hash" not in pending:
            raise PairingError("no pairing code is open: run 'boardctl web pair' on the board")
        if self.clock() > float(pending.get("expires", 0)):
            raise PairingError("the pairing code has expired: run 'boardctl web pair' again")
        by_address = pending.get("by_address")
        by_address = dict(by_address) if isinstance(by_address, dict) else {}
        mine = int(by_address.get(address, 0))
        if mine >= CODE_TRIES:
            raise PairingError(
                f"too many wrong codes from this address ({address or '?'}): the code is not "
                "checked from here any more (it still works on another phone), or run "
                "'boardctl web pair' again"
            )
        if not hmac.compare_digest(str(pending["hash"]), _digest(str(code).strip())):
            tries = int(pending.get("tries", 0)) + 1
            if tries >= CODE_TRIES_TOTAL:
                self._void_code()
                raise PairingError("wrong code, too many tries: run 'boardctl web pair' again")
            by_address[address] = mine + 1
            self._write(CODE_FILE, {**pending, "tries": tries, "by_address": by_address})
            raise PairingError(f"wrong code ({CODE_TRIES - mine - 1} tries left from here)")
        (self.directory / CODE_FILE).unlink()
        token = secrets.token_urlsafe(32)
        ident = secrets.token_hex(3)
        record = {"id": ident, "hash": _digest(token), "created": self.clock(), "label": label}
        self._write(TOKENS_FILE, {"tokens": [*self._tokens(), record]})
        return ident, token

    def check(self, token: str | None) -> bool:
        """Whether ``token`` belongs to a paired phone (read again when the file changes)."""
        if not token:
            return False
        path = self.directory / TOKENS_FILE
        try:
            info = path.stat()
            seen: tuple[int, int, int] | None = (info.st_mtime_ns, info.st_ino, info.st_size)
        except FileNotFoundError:
            seen = None
        if seen != self._tokens_seen:
            self._hashes = frozenset(str(t["hash"]) for t in self._tokens())
            self._tokens_seen = seen
        digest = _digest(token)
        return any(hmac.compare_digest(digest, h) for h in self._hashes)
