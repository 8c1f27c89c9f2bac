"""What the director trusts: each retained result checked against its topic and its board's key:
*bad*, *verified*, *failed* or *unverified* (docs/standings.md, "Which results count")."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from boardctl.errors import BoardError
from boardctl.results.sign import check_record
from boardctl.standings.games import Game, from_record

MAX_PAYLOAD = 64 * 1024  # bytes; a result is about 0.6 kB


@dataclass(frozen=True, slots=True)
class Apart:
    """A result not counted: its game and why."""

    game: Game
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {**self.game.to_record(), "reason": self.reason}


@dataclass
class Checked:
    """The retained results sorted by trust (see the module)."""

    verified: list[Game] = field(default_factory=list)
    unverified: list[Apart] = field(default_factory=list)
    failed: list[Apart] = field(default_factory=list)
    bad: list[str] = field(default_factory=list)  # "<board>/<id>: why"
    records: list[dict[str, Any]] = field(default_factory=list)  # every readable one, as sent

    def counted(self, *, unverified: bool = False) -> list[Game]:
        """The games that count: the verified, and the unverified too when asked."""
        return self.verified + ([a.game for a in self.unverified] if unverified else [])

    def note(self) -> str:
        """One line on the records left out, or "" when none were."""
        parts = []
        if self.failed:
            parts.append(f"{len(self.failed)} failing verification (not counted)")
        if self.unverified:
            parts.append(f"{len(self.unverified)} unverified")
        if self.bad:
            shown = "; ".join(self.bad[:3]) + ("; ..." if len(self.bad) > 3 else "")
            parts.append(f"{len(self.bad)} malformed skipped ({shown})")
        return "results: " + ", ".join(parts) if parts else ""


def decode(board: str, game_id: str, payload: bytes) -> dict[str, Any]:
    """The record of one retained message; :class:`BoardError` saying why it is bad."""
    if len(payload) > MAX_PAYLOAD:
        raise BoardError(f"larger than a result may be ({MAX_PAYLOAD} bytes)")
    try:
        record = json.loads(payload)
    except (ValueError, UnicodeDecodeError):
        raise BoardError("not JSON") from None
    if not isinstance(record, dict):
        raise BoardError("not a JSON object")
    if record.get("board") != board or record.get("id") != game_id:
        raise BoardError("its board or id disagrees with its topic")
    return record


def check(messages: Iterable[tuple[tuple[str, str], bytes]], keys: Mapping[str, bytes]) -> Checked:
    """Sort ``((board, slot), payload)`` messages by trust with the director's ``keys`` (slot:
    ``<event>/<game id>`` or a game id)."""
    out = Checked()
    for (board, slot), payload in sorted(messages, key=lambda m: m[0]):
        game_id = slot.rpartition("/")[2]
        where = f"{board}/{game_id[:40]}"
        try:
            record = decode(board, game_id, payload)
            game = from_record(record)
        except BoardError as exc:
            out.bad.append(f"{where}: {exc}")
            continue
        out.records.append(record)
        key = keys.get(board)
        if key is None:
            signed = "signed" if record.get("hmac") else "not signed"
            out.unverified.append(Apart(game, f"{signed}; no key held for board {board}"))
            continue
        problem = check_record(record, key)
        if problem is None:
            out.verified.append(game)
        else:
            out.failed.append(Apart(game, problem))
    return out
