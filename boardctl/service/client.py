"""Talk to a running service over its control socket (used by the CLI verbs).

A verb that the service answers runs this module and :mod:`boardctl.service.wire`:
nothing of the engine or SQLite (``tests/test_cli_lean.py`` keeps it so).
"""

from __future__ import annotations

import contextlib
import json
import os
from socket import AF_UNIX, MSG_CMSG_CLOEXEC, SOCK_CLOEXEC, SOCK_STREAM, recv_fds
from socket import socket as Socket

from boardctl.errors import ControlError
from boardctl.service.wire import MAX_LINE, WAIT_AT_MOST, encode

TYPE_CHECKING = False
if TYPE_CHECKING:
    import threading
    from collections.abc import Generator
    from typing import Any

WAKE = 1.0  # seconds between looks at a watch's ``stop`` while the board is quiet


class ServiceDown(ControlError):
    """No service answers on the control socket."""


class NoAnswer(ControlError):
    """The request was sent but no reply came: it may or may not have been applied."""


def request(
    path: str | os.PathLike[str],
    message: dict[str, Any],
    *,
    timeout: float = 5.0,
    files: list[int] | None = None,
) -> Any:
    """Send one request and return its ``result``; :class:`ServiceDown` when nobody listens
    on ``path``, :class:`ControlError` with the service's message when it refuses. The
    descriptors passed with the reply (``results``) are put in ``files`` (the caller closes
    them), or closed if it is None."""
    path = os.fspath(path)
    with _connect(path, timeout) as sock:
        try:
            # turned away before it read the request: its reason is waiting to be read
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                sock.sendall(encode(message))
            reply = _next_line(sock, path, bytearray(), reply=True, files=files)
        except TimeoutError:
            raise NoAnswer(f"{path}: the service did not answer within {timeout} s") from None
        except OSError as exc:
            raise ControlError(f"{path}: {exc.strerror or exc}") from None
    return _result(reply, path)


def request_ready(
    path: str | os.PathLike[str],
    message: dict[str, Any],
    *,
    timeout: float = 5.0,
    since: bool = False,
    files: list[int] | None = None,
) -> Any:
    """:func:`request` with ``"wait": true``, asked again while the service answers
    ``{"ready": false}``, for ``timeout`` s in all (and the second an ask may be held); with
    ``since``, the later asks carry the journal's last event at the first as ``since``
    (docs/control-protocol.md, ``records``). ``files``: as :func:`request`."""
    from time import monotonic

    deadline = monotonic() + timeout
    message = {**message, "wait": True}
    while True:
        left = max(deadline - monotonic(), 0.1)
        result = request(path, message, timeout=left + WAIT_AT_MOST, files=files)  # (held)
        if not (isinstance(result, dict) and result.get("ready") is False):
            return result
        if since and "since" not in message and isinstance(result.get("events"), int):
            message = {**message, "since": result["events"]}
        if monotonic() > deadline:
            raise NoAnswer(f"{os.fspath(path)}: the service was not ready within {timeout} s")


def watch(
    path: str | os.PathLike[str],
    *,
    timeout: float | None = None,
    stop: threading.Event | None = None,
) -> Generator[Any, None, None]:
    """The snapshot, then every stream message (:mod:`boardctl.service.watch`); ``timeout``
    (seconds) bounds the wait for each message (None: wait for ever). With ``stop``, the
    stream ends once it is set (looked at every :data:`WAKE` seconds of quiet)."""
    path = os.fspath(path)
    with _connect(path, 5.0 if timeout is None else timeout) as sock:
        try:
            sock.sendall(encode({"op": "watch"}))
            buffer = bytearray()
            yield _result(_next_line(sock, path, buffer), path)
            sock.settimeout(timeout if stop is None else WAKE)
            while stop is None or not stop.is_set():
                try:
                    line = _next_line(sock, path, buffer)
                except TimeoutError:
                    if stop is None:
                        raise
                    continue
                try:
                    yield json.loads(line)
                except ValueError:
                    raise ControlError(
                        f"{path}: the service sent a malformed stream line"
                    ) from None
        except TimeoutError:
            raise ControlError(f"{path}: nothing from the service within {timeout} s") from None


def _connect(path: str, timeout: float | None) -> Socket:
    sock = Socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC)
    sock.settimeout(timeout)
    try:
        sock.connect(path)
    except OSError as exc:
        sock.close()
        if isinstance(exc, FileNotFoundError | ConnectionRefusedError):
            down = f"the boardctl service is not running ({path}: {exc.strerror})"
            raise ServiceDown(down) from None
        if isinstance(exc, PermissionError):
            raise ControlError(
                f"{path}: permission denied; add yourself to the service's group "
                "(sudo usermod -aG boardctl $USER, then log in again)"
            ) from None
        if isinstance(exc, TimeoutError):
            raise ControlError(f"{path}: the service did not answer within {timeout} s") from None
        raise ControlError(f"{path}: {exc.strerror or exc}") from None
    return sock


def _result(reply: bytes, path: str) -> Any:
    try:
        answer = json.loads(reply)
        ok = answer["ok"]  # not an object with "ok": TypeError or KeyError
    except (ValueError, TypeError, KeyError):
        raise ControlError(f"{path}: the service sent a malformed reply") from None
    if not ok:
        raise ControlError(str(answer.get("error", "refused")))
    return answer.get("result")


def _next_line(
    sock: Socket,
    path: str,
    buffer: bytearray,
    *,
    reply: bool = False,
    files: list[int] | None = None,
) -> bytes:
    """The next line from the service (``buffer`` keeps what came after it), the descriptors
    passed with it put in ``files`` (None: closed); a connection closed or reset first is
    :class:`NoAnswer` (``reply``: the one answer to a request)."""
    end = buffer.find(b"\n")
    while end < 0:
        try:
            chunk, fds, _, _ = recv_fds(sock, 262144, 4, MSG_CMSG_CLOEXEC)
            if files is None:
                for fd in fds:
                    os.close(fd)
            else:
                files += fds
        except ConnectionResetError:
            chunk = b""
        if not chunk:
            unanswered = " without answering" if reply else ""
            raise NoAnswer(f"{path}: the service closed the connection{unanswered}")
        if (found := chunk.find(b"\n")) >= 0:  # only the new bytes are searched
            end = len(buffer) + found
        buffer += chunk
        if (len(buffer) if end < 0 else end) > 64 * MAX_LINE:  # a line longer than 4 MiB
            raise ControlError(f"{path}: reply too long")
    line = bytes(buffer[:end])
    del buffer[: end + 1]
    return line
