"""The bridge's one way to the board: the control socket's ``watch`` stream, read-only
(docs/control-protocol.md, "watch"; docs/mqtt.md, "The bridge")."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from boardctl.errors import ControlError
from boardctl.service.client import ServiceDown
from boardctl.service.wire import encode

_READ = 65536
WAKE = 1.0  # seconds between looks at ``stop`` while the board is quiet


def watch(path: Path, stop: threading.Event) -> Iterator[dict[str, Any]]:
    """The status now, then again after every change, until ``stop`` is set;
    :class:`ServiceDown` when the service is not (or no longer) running or the stream has a gap."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC) as sock:
        try:
            sock.settimeout(5.0)
            sock.connect(str(path))
            sock.sendall(encode({"op": "watch"}))
            buffer = bytearray()
            reply = _message(sock, buffer, path)
            if not reply.get("ok"):
                raise ControlError(f"{path}: watch refused: {reply.get('error')}")
            snapshot = reply.get("result")
            if not isinstance(snapshot, dict) or not isinstance(snapshot.get("status"), dict):
                raise ControlError(f"{path}: the watch reply has no snapshot")
            n = snapshot.get("n")
            yield snapshot["status"]
            sock.settimeout(WAKE)
            while not stop.is_set():
                try:
                    message = _message(sock, buffer, path)
                except TimeoutError:
                    continue
                if "n" not in message:  # a reply to a request (none are sent)
                    continue
                if isinstance(n, int) and message["n"] != n + 1:
                    raise ServiceDown(
                        f"{path}: the watch stream skipped from {n} to {message['n']}"
                    )
                n = message["n"]
                state = message.get("state")
                if isinstance(state, dict) and isinstance(state.get("status"), dict):
                    yield state["status"]
        except (FileNotFoundError, ConnectionRefusedError) as exc:
            down = f"the boardctl service is not running ({path}: {exc.strerror})"
            raise ServiceDown(down) from None
        except OSError as exc:
            raise ServiceDown(f"{path}: the watch stream ended ({exc})") from None


def _message(sock: socket.socket, buffer: bytearray, path: Path) -> dict[str, Any]:
    """The next line's JSON object (``buffer`` keeps what came after it)."""
    while b"\n" not in buffer:
        chunk = sock.recv(_READ)
        if not chunk:
            raise ServiceDown("the service closed the watch stream")
        buffer += chunk
    end = buffer.index(b"\n")
    line = bytes(buffer[:end])
    del buffer[: end + 1]
    try:
        message = json.loads(line)
    except ValueError:
        message = None
    if not isinstance(message, dict):
        raise ControlError(f"{path}: the service sent a malformed line")
    return message
