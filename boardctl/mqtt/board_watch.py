"""The bridge's one way to the board: the control socket's ``watch`` stream, read-only
(docs/control-protocol.md, "watch"; docs/mqtt.md, "The bridge")."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from boardctl.errors import ControlError
from boardctl.service import client
from boardctl.service.client import NoAnswer, ServiceDown


def watch(path: Path, stop: threading.Event) -> Iterator[dict[str, Any]]:
    """The status now, then again after every change, until ``stop`` is set;
    :class:`ServiceDown` when the service is not (or no longer) running or the stream has a gap."""
    try:
        stream = client.watch(path, stop=stop)
        snapshot = next(stream)
        if not isinstance(snapshot, dict) or not isinstance(snapshot.get("status"), dict):
            raise ControlError(f"{path}: the watch reply has no snapshot")
        n = snapshot.get("n")
        yield snapshot["status"]
        for message in stream:
            if not isinstance(message, dict) or "n" not in message:
                continue  # (a reply to a request: none are sent)
            if isinstance(n, int) and message["n"] != n + 1:
                raise ServiceDown(f"{path}: the watch stream skipped from {n} to {message['n']}")
            n = message["n"]
            state = message.get("state")
            if isinstance(state, dict) and isinstance(state.get("status"), dict):
                yield state["status"]
    except (NoAnswer, OSError) as exc:
        raise ServiceDown(f"{path}: the watch stream ended ({exc})") from None
