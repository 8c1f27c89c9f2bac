"""Talk to a running service over its control socket (used by the CLI verbs)."""

from __future__ import annotations

import contextlib
import json
import os
import socket
from pathlib import Path
from typing import Any

from boardctl.errors import ControlError
from boardctl.service.control import MAX_LINE, encode


class ServiceDown(ControlError):
    """No service answers on the control socket."""


class NoAnswer(ControlError):
    """The request was sent but no reply came: it may or may not have been applied."""


def request(path: str | os.PathLike[str], message: dict[str, Any], *, timeout: float = 5.0) -> Any:
    """Send one request and return its ``result``.

    Raises :class:`ServiceDown` when nobody listens on ``path`` and
    :class:`ControlError` with the service's message when it refuses.
    """
    path = Path(path)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
    sock.settimeout(timeout)
    try:
        try:
            sock.connect(str(path))
        except (FileNotFoundError, ConnectionRefusedError) as exc:
            raise ServiceDown(
                f"the boardctl service is not running ({path}: {exc.strerror})"
            ) from None
        except PermissionError:
            raise ControlError(
                f"{path}: permission denied; add yourself to the service's group "
                "(sudo usermod -aG boardctl $USER, then log in again)"
            ) from None
        # Turned away before it read the request: its reason is waiting to be read.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            sock.sendall(encode(message))
        reply = _read_line(sock, path)
    except TimeoutError:
        raise NoAnswer(f"{path}: the service did not answer within {timeout} s") from None
    except OSError as exc:
        raise ControlError(f"{path}: {exc.strerror or exc}") from None
    finally:
        sock.close()
    try:
        answer = json.loads(reply)
    except ValueError:
        raise ControlError(f"{path}: the service sent a malformed reply") from None
    if not isinstance(answer, dict) or "ok" not in answer:
        raise ControlError(f"{path}: the service sent a malformed reply")
    if not answer["ok"]:
        raise ControlError(str(answer.get("error", "refused")))
    return answer.get("result")


def _read_line(sock: socket.socket, path: Path) -> bytes:
    data = bytearray()
    while b"\n" not in data:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            chunk = b""
        if not chunk:
            raise NoAnswer(f"{path}: the service closed the connection without answering")
        data += chunk
        if len(data) > 64 * MAX_LINE:
            raise ControlError(f"{path}: reply too long")
    return bytes(data.split(b"\n", 1)[0])
