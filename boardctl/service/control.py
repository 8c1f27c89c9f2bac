"""The control socket's server, in the service loop's selector, never blocking on a client
(the protocol and when a client is dropped: docs/control-protocol.md, 'Transport')."""

from __future__ import annotations

import array
import contextlib
import errno
import json
import logging
import os
import selectors
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from boardctl.errors import BoardError, ControlError, EntryError
from boardctl.service.watch import MAX_WATCH_BUFFER, Watch
from boardctl.service.wire import MAX_LINE, WAIT_AT_MOST, WithFile, encode

if TYPE_CHECKING:
    from boardctl.service.wire import Handler

log = logging.getLogger(__name__)

MAX_OUTPUT = 1024 * 1024  # unread bytes of earlier replies before a client is dropped
MAX_CLIENTS = 16  # connections that send requests (a watcher is counted apart)
MAX_WATCHERS = 32  # connections turned into a watch stream: they never take a command's place
MAX_BATCH = 32  # requests answered per client per loop turn: a flood cannot starve the buttons
CLIENT_TIMEOUT = 30.0  # seconds without a complete request
SOCKET_MODE = 0o660

# The service's own requests: op -> {field: (type, required)}. The engine's commands
# (peg, undo, redo, next, cut, new_game, set, confirm) are checked by the engine's own parser,
# boardctl.game.commands.parse_board_command, so their fields are written down once.
SERVICE_OPS: dict[str, dict[str, tuple[type, bool]]] = {
    "ping": {},
    "status": {},
    "history": {
        "limit": (int, False),
        "all": (bool, False),
        "after": (int, False),
        "wait": (bool, False),
    },
    "press": {"button": (str, True), "hold": (int, False)},
    "frame": {},
    "watch": {},
    "records": {"since": (int, False), "wait": (bool, False)},
    "results": {"since": (int, False), "wait": (bool, False)},  # results --csv, as a file
    "invite": {},  # a hosting board's code (boardctl.remote), for the phone page
    "relink": {},  # the link file changed (boardctl remote invite/join/leave): read it again
}


_TYPE_NAMES = {int: "an integer", str: "a string", bool: "true/false"}


def parse_request(line: bytes | str) -> dict[str, Any]:
    """Decode and check one request line; raise :class:`ControlError` saying what is wrong."""
    try:
        request = json.loads(line)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ControlError(f"not a JSON request ({exc}); send one JSON object per line") from None
    except RecursionError:
        raise ControlError("not a JSON request (nested too deeply)") from None
    if not isinstance(request, dict):
        raise ControlError('a request must be a JSON object such as {"op": "status"}')
    from boardctl.game.commands import OPS as ENGINE_OPS
    from boardctl.game.commands import parse_board_command
    from boardctl.service.text import clean

    request = {key: clean(value) for key, value in request.items()}  # no control characters
    op, known = request.get("op"), (*SERVICE_OPS, *ENGINE_OPS)
    if not isinstance(op, str) or op not in known:
        raise ControlError(f"unknown op {op!r}; known: {', '.join(known)}")
    if op not in SERVICE_OPS:  # its shape, by the engine's own parser (its values: later)
        from boardctl.service.settings import SOUND_SETTINGS, check_setting_request

        command = {k: v for k, v in request.items() if k not in ("id", "request_id")}
        try:
            if op == "set":  # the board's keys too: brightness, volume, mute
                check_setting_request(command)
            if op != "set" or command.get("key") not in SOUND_SETTINGS:
                parse_board_command(command)
        except EntryError as exc:
            raise ControlError(f"{op}: {exc}") from None
        return request
    spec = SERVICE_OPS[op]
    for key, value in request.items():
        if key in ("op", "id", "request_id"):  # request_id: see boardctl.service.once
            continue
        if key not in spec:
            allowed = ", ".join(spec) or "none"
            raise ControlError(f"{op}: unknown field {key!r} (allowed: {allowed})")
        kind = spec[key][0]
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
            raise ControlError(f"{op}: {key!r} must be {_TYPE_NAMES[kind]}, not {value!r}")
    for key, (_, required) in spec.items():
        if required and key not in request:
            raise ControlError(f"{op}: missing field {key!r}")
    return request


@dataclass(slots=True)
class _Client:
    sock: socket.socket
    inbox: bytearray = field(default_factory=bytearray)
    outbox: bytearray = field(default_factory=bytearray)
    last_seen: float = 0.0
    closing: bool = False
    watching: bool = False
    held: tuple[dict[str, Any], Any, float] | None = None  # (request, its id, held until)
    files: list[Any] = field(default_factory=list)  # passed with the outbox's next bytes


def _with_id(reply: dict[str, Any], request_id: Any) -> dict[str, Any]:
    return reply if request_id is None else {**reply, "id": request_id}


def _refused(exc: Exception, request: object) -> dict[str, Any]:
    """The reply to a request that raised ``exc``: a refusal, or a bug (logged: a bug must not
    take the board down)."""
    if isinstance(exc, BoardError):
        return {"ok": False, "error": str(exc)}
    log.exception("control request failed: %r", request)
    return {"ok": False, "error": f"internal error: {type(exc).__name__}: {exc}"}


class ControlServer:
    """Serves the control socket from a selector owned by the service loop."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        handler: Handler,
        selector: selectors.BaseSelector,
        *,
        clock: Callable[[], float] = time.monotonic,
        watch: Watch,
    ) -> None:
        self.path = Path(path)
        self._handler = handler
        self._selector = selector
        self._clock = clock
        self._watch = watch
        self._clients: dict[int, _Client] = {}
        self._listener = self._bind()
        selector.register(self._listener, selectors.EVENT_READ, self._accept)

    def _bind(self) -> socket.socket:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ControlError(
                f"cannot create the folder {self.path.parent} for the control socket "
                f"({exc.strerror}: {exc.filename}); set service.socket / --socket to a "
                "writable place"
            ) from None
        if self.path.exists() or self.path.is_symlink():
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
                probe.settimeout(0.5)
                try:
                    probe.connect(str(self.path))
                except OSError:
                    self.path.unlink()  # a stale socket left by a killed service
                else:
                    raise ControlError(
                        f"{self.path}: another boardctl service is already running "
                        "(stop it first, or set service.socket in the config)"
                    )
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
        old_umask = os.umask(0o117)  # no window in which the socket is wider than 0660
        try:
            sock.bind(str(self.path))
        except OSError as exc:
            sock.close()
            raise ControlError(f"{self.path}: cannot create the control socket ({exc})") from None
        finally:
            os.umask(old_umask)
        os.chmod(self.path, SOCKET_MODE)
        sock.listen(MAX_CLIENTS + MAX_WATCHERS)
        sock.setblocking(False)
        return sock

    def _accept(self, mask: int) -> None:
        try:
            sock, _ = self._listener.accept()
        except OSError:
            return
        sock.setblocking(False)
        if self.clients - self.watchers >= MAX_CLIENTS:
            with contextlib.suppress(OSError):
                sock.send(encode({"ok": False, "error": "too many clients; try again"}))
            sock.close()
            return
        client = _Client(sock, last_seen=self._clock())
        self._clients[sock.fileno()] = client
        self._selector.register(sock, selectors.EVENT_READ, lambda m: self._ready(client, m))

    def _ready(self, client: _Client, mask: int) -> None:
        if mask & selectors.EVENT_READ:
            self._read(client)
        if mask & selectors.EVENT_WRITE and client.sock.fileno() >= 0:
            self._flush(client)

    def _read(self, client: _Client) -> None:
        if b"\n" in client.inbox:  # a backlog: answer it before reading more
            self._serve(client)
            return
        try:
            data = client.sock.recv(65536)
        except BlockingIOError:
            return
        except OSError:
            self._drop(client)
            return
        if not data:
            client.closing = True  # the client shut down its side: answer, then close
            self._flush(client)
            return
        client.inbox += data
        self._serve(client)

    def _serve(self, client: _Client) -> None:
        """Answer up to :data:`MAX_BATCH` complete request lines of ``client``."""
        for _ in range(MAX_BATCH):
            end = client.inbox.find(b"\n")
            if end < 0 or client.held is not None:  # (its replies in the order asked)
                break
            line = bytes(client.inbox[:end])
            del client.inbox[: end + 1]
            client.last_seen = self._clock()
            reply, watch = self.answer(line, client)
            if reply is None:  # held: tick() answers it
                break
            if watch is False:  # refused for want of a watcher's place: nothing more to do here
                client.closing = True
                client.inbox.clear()
            self._reply(client, reply)
            if client.sock.fileno() < 0:
                return
            if watch:
                client.watching = True
                self._watch.subscribe(client.sock.fileno(), lambda line: self._push(client, line))
        if b"\n" not in client.inbox and len(client.inbox) > MAX_LINE:
            client.closing = True
            client.inbox.clear()
            self._reply(client, {"ok": False, "error": f"request longer than {MAX_LINE} bytes"})

    def answer(
        self, line: bytes, client: _Client | None = None
    ) -> tuple[dict[str, Any] | None, bool | None]:
        """The reply to one request line (never raises), and whether the client now watches:
        True (an accepted ``watch``), False (refused: :data:`MAX_WATCHERS` watch), else None.
        A reader's request with ``"wait": true`` whose answer is being made is held instead
        (None; ``client.held``): :meth:`tick` answers it once it is made, at most
        :data:`WAIT_AT_MOST` seconds later."""
        request_id: Any = None
        watch: bool | None = None
        try:
            if len(line) > MAX_LINE:
                raise ControlError(f"request longer than {MAX_LINE} bytes")
            request = parse_request(line)
            request_id = request.pop("id", None)
            if request["op"] == "watch" and self.watchers >= MAX_WATCHERS:
                watch = False
                raise ControlError(f"watch: too many watchers ({MAX_WATCHERS}); try again later")
        except Exception as exc:
            return _with_id(_refused(exc, line[:200]), request_id), watch
        if client is not None and request.get("wait") is True:
            now = self._clock()
            client.held = (request, request_id, now + WAIT_AT_MOST)
            return self._held_reply(client, now), None
        reply = self._result(request, request_id)
        return reply, (True if request["op"] == "watch" and reply["ok"] else None)

    def _result(self, request: dict[str, Any], request_id: Any) -> dict[str, Any]:
        try:
            result = self._handler(dict(request))  # (a held request is asked again)
            if request["op"] == "watch":
                result = {**result, "n": self._watch.n}
            reply = {"ok": True, "result": result}
        except Exception as exc:
            reply = _refused(exc, request)
        return _with_id(reply, request_id)

    def _held_reply(self, client: _Client, now: float) -> dict[str, Any] | None:
        """The reply to ``client``'s held request, or None while its answer is still being
        made (and not for longer than it may be held)."""
        assert client.held is not None
        request, request_id, until = client.held
        reply = self._result(request, request_id)
        result = reply.get("result")
        if now < until and isinstance(result, dict) and result.get("ready") is False:
            if "since" not in request and isinstance(result.get("events"), int):
                request["since"] = result["events"]  # entries made meanwhile cannot hold it
            return None
        client.held = None
        return reply

    def _push(self, client: _Client, line: bytes) -> None:
        """One stream line for a watcher; a watcher too far behind is dropped."""
        if client.sock.fileno() < 0:
            return
        client.outbox += line
        if len(client.outbox) > MAX_WATCH_BUFFER:
            log.warning(
                "control client does not read its watch stream (%d bytes waiting); dropping it",
                len(client.outbox),
            )
            self._drop(client)
            return
        self._flush(client)

    def _reply(self, client: _Client, reply: dict[str, Any]) -> None:
        # One large reply (every game's history) is fine; a client that leaves earlier
        # replies unread while it asks for more is not.
        unread = len(client.outbox)
        result = reply.get("result")
        if isinstance(result, WithFile):
            client.files.append(result.file)
            reply = {**reply, "result": result.result}
        client.outbox += encode(reply)
        if unread > MAX_OUTPUT:
            log.warning("control client does not read its replies; dropping it")
            self._drop(client)
            return
        self._flush(client)

    def _flush(self, client: _Client) -> None:
        if client.outbox:
            try:
                sent = self._send(client)
            except BlockingIOError:
                sent = 0
            except OSError as exc:
                if exc.errno not in (errno.EPIPE, errno.ECONNRESET):
                    log.debug("control client send failed: %s", exc)
                self._drop(client)
                return
            del client.outbox[:sent]
        if not client.outbox and client.closing and client.held is None:  # (held: answer first)
            self._drop(client)
            return
        events = selectors.EVENT_READ | (selectors.EVENT_WRITE if client.outbox else 0)
        self._selector.modify(client.sock, events, lambda m: self._ready(client, m))

    @staticmethod
    def _send(client: _Client) -> int:
        """Send what ``client``'s outbox holds, and its files with it (then closed here)."""
        if not client.files:
            return client.sock.send(client.outbox)
        fds = array.array("i", [file.fileno() for file in client.files])
        rights = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)]
        sent = client.sock.sendmsg([client.outbox], rights)
        _close(client.files)
        return sent

    def _drop(self, client: _Client) -> None:
        _close(client.files)
        fd = client.sock.fileno()
        if fd < 0:
            return
        self._clients.pop(fd, None)
        if client.watching:
            self._watch.unsubscribe(fd)
        with contextlib.suppress(KeyError, ValueError):
            self._selector.unregister(client.sock)
        client.sock.close()

    def deadline(self) -> float | None:
        """Now if a client has requests waiting, else when a held request is due or the oldest
        idle client is dropped (a reader that made a held request's answer wakes the loop)."""
        clients = self._clients.values()
        if any(b"\n" in c.inbox and c.held is None for c in clients):
            return float("-inf")
        times = [c.held[2] for c in clients if c.held is not None]
        times += [c.last_seen + CLIENT_TIMEOUT for c in clients if not c.watching]
        return min(times, default=None)

    def tick(self, now: float) -> None:
        """Answer held and waiting requests; drop clients idle for longer than
        :data:`CLIENT_TIMEOUT`."""
        for client in list(self._clients.values()):
            if client.held is not None and (reply := self._held_reply(client, now)) is not None:
                self._reply(client, reply)
            if client.held is not None:
                continue
            if b"\n" in client.inbox and client.sock.fileno() >= 0:
                self._serve(client)
            elif not client.watching and now - client.last_seen >= CLIENT_TIMEOUT:
                self._drop(client)

    @property
    def clients(self) -> int:
        """Open connections, watchers included."""
        return len(self._clients)

    @property
    def watchers(self) -> int:
        """Connections that watch (counted apart: :data:`MAX_WATCHERS`)."""
        return sum(c.watching for c in self._clients.values())

    def close(self) -> None:
        """Stop listening and remove the socket file."""
        for client in list(self._clients.values()):
            self._drop(client)
        with contextlib.suppress(KeyError, ValueError):
            self._selector.unregister(self._listener)
        self._listener.close()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()


def _close(files: list[Any]) -> None:
    """Close ``files`` (passed, or not wanted any more) and forget them."""
    for file in files:
        file.close()
    files.clear()
