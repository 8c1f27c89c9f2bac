"""Closing an event: its results archived to a file the director keeps, then cleared from the broker
(docs/standings.md, "Events, closing one, and the season": a close cut short is run again)."""

from __future__ import annotations

import datetime
import json
import secrets
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from boardctl.config import MqttConfig
from boardctl.durable import replace_file
from boardctl.mqtt import topics
from boardctl.mqtt.connection import session, wait_published
from boardctl.mqtt.retention import is_withdrawal
from boardctl.results.export import numbered_lines
from boardctl.standings import StandingsError, state_path
from boardctl.standings.collect import Messages, collect
from boardctl.standings.verify import Checked, check


def default_dir() -> Path:
    return state_path("events")


def path_of(folder: Path, event: str) -> Path:
    """The archive of ``event`` in ``folder``; :class:`StandingsError` unless ``event`` is an
    event's name (``YYYY-MM-DD``)."""
    try:
        datetime.date.fromisoformat(event)
    except ValueError:
        raise StandingsError(f"{event!r} is not an event: write its date, 2026-12-01") from None
    return folder / f"{event}.jsonl"


def load(path: Path) -> Messages:
    """An archive's records as ``(board, <event>/<id>) -> payload``, for :func:`.verify.check`."""
    event = path.stem
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise StandingsError(f"{path}: no archive of event {event} (standings close)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise StandingsError(f"{path}: cannot read it ({exc})") from None
    out: Messages = {}
    for number, line in numbered_lines(text):
        try:
            record = json.loads(line)
            board, game = str(record["board"]), str(record["id"])
        except (ValueError, TypeError, KeyError):
            raise StandingsError(f"{path}:{number}: not a result record") from None
        out[(board, topics.slot(event, game))] = line.encode()
    return out


def write(path: Path, records: Iterable[dict[str, Any]]) -> None:
    """``records`` as JSON lines (sorted by board and id), replacing ``path`` atomically."""
    lines = sorted(
        (str(r["board"]), str(r["id"]), json.dumps(r, ensure_ascii=False, sort_keys=True))
        for r in records
    )
    replace_file(path, "".join(line + "\n" for _, _, line in lines))


def close(
    config: MqttConfig, event: str, folder: Path, *, timeout: float = 10.0
) -> tuple[Path, int, int]:
    """Close ``event``: (the archive, its results, the topics cleared); malformed records are
    cleared, not archived."""
    path = path_of(folder, event)
    held = load(path) if path.exists() else {}
    messages: Messages = {}

    def gather() -> Checked:
        """Read the event's results again and archive them (a later copy wins)."""
        found = collect(config, timeout=timeout, only=[event], withdrawals=True)
        messages.update(found)
        held.update({k: p for k, p in found.items() if not is_withdrawal(p)})
        checked = check(held.items(), {})
        write(path, checked.records)
        return checked

    with session(config, f"boardctl-close-{secrets.token_hex(3)}") as (client, _):
        gather()
        moment = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        mark = json.dumps({"event": event, "closed": moment.replace("+00:00", "Z")}).encode()
        closing = client.publish(topics.closed(config.prefix, event), mark, qos=1, retain=True)
        wait_published([closing], config, "the closed mark")
        checked = gather()  # what came while it was closed
        infos = [
            client.publish(topics.result(config.prefix, board, slot), b"", qos=1, retain=True)
            for board, slot in messages
        ]
        wait_published(infos, config, "the removals")
    return path, len(checked.records), len(messages)
