"""The bridge's one way to the board: the control socket, read-only.

:func:`watch` yields the board's status each time it changes. It asks the
service for its ``watch`` stream (docs/service.md); a service that answers
"unknown op" (one without the stream) is polled with ``status`` instead, so
the bridge works with either. Nothing here changes the board.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from boardctl.errors import ControlError
from boardctl.service.client import ServiceDown, request
from boardctl.service.control import encode

POLL = 0.1  # seconds between status requests when the service has no watch stream
_READ = 65536


def status(path: Path) -> dict[str, Any]:
    """The board's status now (raises :class:`ServiceDown` when it is not running)."""
    result = request(path, {"op": "status"})
    if not isinstance(result, dict):
        raise ControlError(f"{path}: the service sent a malformed status")
    return result


def watch(path: Path, stop: threading.Event, *, poll: float = POLL) -> Iterator[dict[str, Any]]:
    """The status now, then again after every change, until ``stop`` is set.

    Raises :class:`ServiceDown` when the service is not (or no longer) running.
    """
    try:
        sock, first = _open_watch(path)
    except _NoWatch:
        yield from _poll(path, stop, poll)
        return
    try:
        yield from _stream(sock, first, path, stop)
    finally:
        sock.close()


class _NoWatch(Exception):
    """The service has no ``watch`` request."""


def _open_watch(path: Path) -> tuple[socket.socket, dict[str, Any]]:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
    sock.settimeout(5.0)
    try:
        sock.connect(str(path))
        sock.sendall(encode({"op": "watch"}))
        first = _line(sock, bytearray())
    except (FileNotFoundError, ConnectionRefusedError) as exc:
        sock.close()
        raise ServiceDown(f"the boardctl service is not running ({path}: {exc.strerror})") from None
    except OSError as exc:
        sock.close()
        raise ServiceDown(f"{path}: {exc}") from None
    reply = _decode(first, path)
    if not reply.get("ok"):
        sock.close()
        if "unknown op" in str(reply.get("error", "")):
            raise _NoWatch
        raise ControlError(f"{path}: watch refused: {reply.get('error')}")
    sock.settimeout(1.0)  # wakes the reader to look at ``stop``
    return sock, reply  # the first reply carries the snapshot


def _stream(
    sock: socket.socket, first: dict[str, Any], path: Path, stop: threading.Event
) -> Iterator[dict[str, Any]]:
    buffer = bytearray()
    message: dict[str, Any] | None = first
    last: dict[str, Any] | None = None
    while not stop.is_set():
        if message is not None:
            found = _status_of(message)
            current = found if found is not None else status(path)
            if current != last:
                last = current
                yield current
        try:
            message = _decode(_line(sock, buffer), path)
        except TimeoutError:
            message = None
        except OSError as exc:
            raise ServiceDown(f"{path}: the watch stream ended ({exc})") from None


def _status_of(message: dict[str, Any]) -> dict[str, Any] | None:
    """The status carried by a watch line, if it carries one."""
    for candidate in (message.get("status"), message.get("result")):
        if isinstance(candidate, dict):
            if "tracks" in candidate:
                return candidate
            inner = candidate.get("status")
            if isinstance(inner, dict) and "tracks" in inner:
                return inner
    return None


def _poll(path: Path, stop: threading.Event, poll: float) -> Iterator[dict[str, Any]]:
    last: dict[str, Any] | None = None
    while not stop.is_set():
        current = status(path)
        if current != last:
            last = current
            yield current
        stop.wait(poll)


def _line(sock: socket.socket, buffer: bytearray) -> bytes:
    while b"\n" not in buffer:
        chunk = sock.recv(_READ)
        if not chunk:
            raise ConnectionResetError("closed by the service")
        buffer += chunk
    end = buffer.index(b"\n")
    line = bytes(buffer[:end])
    del buffer[: end + 1]
    return line


def _decode(line: bytes, path: Path) -> dict[str, Any]:
    try:
        message = json.loads(line)
    except ValueError:
        raise ControlError(f"{path}: the service sent a malformed line") from None
    if not isinstance(message, dict):
        raise ControlError(f"{path}: the service sent a malformed line")
    return message
