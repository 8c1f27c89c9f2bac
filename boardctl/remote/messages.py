"""The linked game's code and wire format, pure (docs/remote.md, 'Linking two boards' for the
code, 'What crosses the network' for the messages)."""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from boardctl.errors import BoardError
from boardctl.results.sign import key_id, sign_record
from boardctl.service.once import MAX_REQUEST_ID  # as the control socket's request ids

VERSION = 1
MAX_MESSAGE = 64 * 1024  # bytes; a state is about 2 kB
SECRET_BYTES = 12  # 96 bits: 20 base32 digits
ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford's base32: no I, L, O, U
_READ_AS = {"I": "1", "L": "1", "O": "0"}
_CHECK_PRIME = 1021  # a prime below 32 * 32 (two digits): no wrong digit or swap goes unseen
_DIGITS = SECRET_BYTES * 8 // 5 + (1 if SECRET_BYTES * 8 % 5 else 0)
ROLES = ("host", "guest")
#: Who may send each kind of message.
SENDERS: dict[str, tuple[str, ...]] = {
    "cmd": ("guest",),
    "answer": ("host",),
    "state": ("host",),
    "result": ("host",),
    "hello": ("host", "guest"),
    "bye": ("host", "guest"),
}
#: In a command's entry: it was made with the joined board's buttons (the host gives it its
#: meaning in the phase, as its own buttons' entries).
FROM_BUTTONS = "from_buttons"
#: In an undo's entry: the request id of the joined board's own last entry, the one it takes back.
UNDOES = "undoes"
_FIELDS = {"v", "kind", "from", "game", "id", "n", "body", "key", "hmac"}


class RemoteError(BoardError):
    """A bad code, a message refused, or a pairing that cannot be read or written."""


@dataclass(frozen=True, slots=True)
class Message:
    """One checked message (see the module)."""

    kind: str
    sender: str  # "host" or "guest"
    request_id: str  # "" for state and bye
    n: int
    body: dict[str, Any]


# --- the code ----------------------------------------------------------------------
def new_secret() -> bytes:
    return secrets.token_bytes(SECRET_BYTES)


def _check(digits: str) -> int:
    return sum((i + 1) * ALPHABET.index(c) for i, c in enumerate(digits)) % _CHECK_PRIME


def encode_code(secret: bytes) -> str:
    """The code of ``secret``: base32 digits and two check digits, in groups of four."""
    if len(secret) != SECRET_BYTES:
        raise RemoteError(f"a link secret has {SECRET_BYTES} bytes, not {len(secret)}")
    number = int.from_bytes(secret, "big")
    digits = "".join(ALPHABET[(number >> (5 * i)) & 31] for i in reversed(range(_DIGITS)))
    check = _check(digits)
    text = digits + ALPHABET[check // 32] + ALPHABET[check % 32]
    return "-".join(text[i : i + 4] for i in range(0, len(text), 4))


def decode_code(code: str) -> bytes:
    """The secret of a code as typed (any case, dashes and spaces anywhere); or why not."""
    text = "".join(_READ_AS.get(c, c) for c in code.upper() if c not in "- \t")
    bad = sorted({c for c in text if c not in ALPHABET})
    if bad:
        raise RemoteError(f"the code has {''.join(bad)!r}, which no code has (0-9 and A-Z but U)")
    if len(text) != _DIGITS + 2:
        raise RemoteError(
            f"the code has {len(text)} letters and digits, not {_DIGITS + 2}: "
            "type it as `boardctl remote invite` showed it"
        )
    digits, check = text[:_DIGITS], text[_DIGITS:]
    if ALPHABET.index(check[0]) * 32 + ALPHABET.index(check[1]) != _check(digits):
        raise RemoteError("the code is mistyped (its check digits do not match): type it again")
    number = sum(ALPHABET.index(c) << (5 * i) for i, c in enumerate(reversed(digits)))
    if number >> (SECRET_BYTES * 8):
        raise RemoteError("the code is mistyped (its first digit is too large): type it again")
    return number.to_bytes(SECRET_BYTES, "big")


def link_key(secret: bytes) -> bytes:
    """The 256-bit HMAC key both boards sign with."""
    return hashlib.sha256(b"boardctl link key\x00" + secret).digest()


def game_id(secret: bytes) -> str:
    """The game's topic level: 16 hex digits, telling nothing of the key."""
    return hashlib.sha256(b"boardctl link game\x00" + secret).hexdigest()[:16]


# --- messages ----------------------------------------------------------------------
def encode(
    kind: str,
    sender: str,
    *,
    game: str,
    key: bytes,
    body: dict[str, Any],
    request_id: str = "",
    n: int = 0,
) -> bytes:
    """One signed message (compact JSON, UTF-8)."""
    if sender not in SENDERS.get(kind, ()):
        raise RemoteError(f"a {sender} does not send {kind!r} messages")
    record = {
        "v": VERSION,
        "kind": kind,
        "from": sender,
        "game": game,
        "id": request_id,
        "n": n,
        "body": body,
    }
    signed = sign_record(record, key)
    return json.dumps(signed, separators=(",", ":"), sort_keys=True, ensure_ascii=False).encode()


def decode(payload: bytes, *, key: bytes, game: str, sender: str | None = None) -> Message:
    """The message in ``payload`` if it is one of ``game``'s, signed with ``key`` (and from
    ``sender`` when given); :class:`RemoteError` saying why not."""
    if len(payload) > MAX_MESSAGE:
        raise RemoteError(f"larger than a message may be ({MAX_MESSAGE} bytes)")
    try:
        record = json.loads(payload)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise RemoteError("not JSON") from None
    if not isinstance(record, dict) or set(record) != _FIELDS:
        raise RemoteError("not a message of a linked game (its fields)")
    if record["v"] != VERSION:
        raise RemoteError(f"version {record['v']!r}, not {VERSION}")
    kind, who = record["kind"], record["from"]
    if not isinstance(kind, str) or not isinstance(who, str) or who not in SENDERS.get(kind, ()):
        raise RemoteError(f"{who!r} may not send {kind!r} messages")
    if sender is not None and who != sender:
        raise RemoteError(f"from the {who}, not the {sender}")
    if record["game"] != game:
        raise RemoteError("for another game")
    signature = record["hmac"]
    if not isinstance(signature, str) or not signature:
        raise RemoteError("not signed")
    if record["key"] != key_id(key):
        raise RemoteError(f"signed with key {record['key']!r}, not the link's")
    unsigned = {k: v for k, v in record.items() if k not in ("key", "hmac")}
    expected = sign_record(unsigned, key)["hmac"]
    if not hmac.compare_digest(signature.encode(), str(expected).encode()):
        raise RemoteError("its signature does not match: forged or changed")
    rid, n, body = record["id"], record["n"], record["body"]
    if (
        not isinstance(rid, str)
        or len(rid) > MAX_REQUEST_ID
        or (kind in ("cmd", "answer")) != (rid != "")
    ):
        raise RemoteError("its request id is missing or not one")
    if type(n) is not int or n < 0 or not isinstance(body, dict):
        raise RemoteError("its counter or body is not one")
    return Message(kind, who, rid, n, body)


# --- the host's rule for a command ------------------------------------------------------
def host_step(answered: Callable[[str], object], request_id: str, after: str) -> str:
    """What the host does with a joined board's command (``answered``: its answer to a request
    id, if any): ``"repeat"`` its first answer, ``"wait"`` (no answer) while the command made
    before it, ``after``, is not answered, else ``"run"`` it. With the joined board sending every
    unanswered command again, oldest first, each runs once, in the order they were made."""
    if answered(request_id):
        return "repeat"
    if after and not answered(after):
        return "wait"
    return "run"


# --- topics ------------------------------------------------------------------------
def topic(prefix: str, game: str, kind: str) -> str:
    """``<prefix>/remote/<game>/<kind>``: each kind of message has its own topic."""
    return f"{prefix}/remote/{game}/{kind}"
