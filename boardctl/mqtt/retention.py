"""Which event (club night) a result belongs to, how long the broker keeps it, and the
withdrawal record (docs/mqtt.md, "Topics")."""

from __future__ import annotations

import datetime
import json
from typing import Any

from boardctl.config import MqttConfig
from boardctl.results.sign import sign_record


def event_of(end: str, day_starts: int = MqttConfig.day_starts) -> str:
    """The event (``YYYY-MM-DD``, local) of a game that ended at ``end`` (ISO 8601, UTC)."""
    moment = datetime.datetime.fromisoformat(end.replace("Z", "+00:00")).astimezone()
    return (moment - datetime.timedelta(hours=day_starts)).date().isoformat()


def today(now: float, day_starts: int = MqttConfig.day_starts) -> str:
    """The event running at the Unix time ``now``."""
    moment = datetime.datetime.fromtimestamp(now, datetime.UTC)
    return event_of(moment.isoformat(), day_starts)


def kept(event: str, now_event: str, keep_days: int = MqttConfig.keep_days) -> bool:
    """Whether the broker still keeps results of ``event`` on the day ``now_event``."""
    try:
        age = datetime.date.fromisoformat(now_event) - datetime.date.fromisoformat(event)
    except ValueError:
        return False
    return age.days <= keep_days


def oldest_kept(now: float, keep_days: int = MqttConfig.keep_days) -> float:
    """A time before which no game ended whose event the broker keeps on the day running at
    the Unix time ``now`` (``keep_days`` and a day more for the evening's start and the local
    time's offset): what the bridge's result feed must read from."""
    return now - (keep_days + 2) * 86400


def events_since(since: str, now: float, config: MqttConfig) -> list[str]:
    """The events the broker may keep (``config``'s day start and keep days) from ``since`` (a
    date or an ISO time) to the one running at ``now``: the only topics ``standings --since`` and
    the page's ``[standings] since`` read. ``ValueError`` if ``since`` is no time."""
    first = event_of(since if "T" in since else since + "T12:00:00", config.day_starts)
    last = datetime.date.fromisoformat(today(now, config.day_starts))
    day = max(datetime.date.fromisoformat(first), last - datetime.timedelta(config.keep_days))
    return [(day + datetime.timedelta(n)).isoformat() for n in range((last - day).days + 1)]


def withdrawal(board: str, game: str, key: bytes | None) -> dict[str, Any]:
    """The record that withdraws ``game``'s result (signed when the board has a key)."""
    record: dict[str, Any] = {"id": game, "board": board, "withdrawn": True}
    return record if key is None else sign_record(record, key)


def is_withdrawal(payload: bytes) -> bool:
    """Whether a retained payload withdraws a result: empty, or a withdrawal record."""
    if not payload:
        return True
    if b'"withdrawn"' not in payload:
        return False
    try:
        record = json.loads(payload)
    except ValueError:
        return False
    return isinstance(record, dict) and record.get("withdrawn") is True
