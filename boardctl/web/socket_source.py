"""The web process's one way to the board: the service's control socket (docs/service.md).

:meth:`Source.request` sends one request and returns its result or raises the service's refusal;
:meth:`Source.watch` yields a :class:`Snapshot` per change, from the ``watch`` stream or by polling
an older service, and rides out restarts (docs/web.md, "How the page hears of changes").
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boardctl.errors import ControlError

LINE_LIMIT = 16 * 1024 * 1024  # a long game's history is one reply line
RETRY_FIRST = 0.1
RETRY_MAX = 2.0


class ServiceGone(ControlError):
    """The service is not running or closed the connection."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The board as the service has it: ``status`` (None = down) and the LEDs; ``via``: ``"watch"``,
    ``"poll"`` or ``"down"``; ``notice``: a refusal the stream reported."""

    status: dict[str, Any] | None
    rgb: str = ""
    via: str = "down"
    reason: str = ""
    notice: str = ""

    @property
    def up(self) -> bool:
        return self.status is not None


class NoAnswer(ServiceGone):
    """A request was sent and no reply came in time: a write may or may not be applied."""


#: Requests that change nothing: sent again on a new connection when a reply does not come.
READS = frozenset({"ping", "status", "history", "frame", "records"})


def resendable(message: dict[str, Any]) -> bool:
    """Whether ``message`` may be sent again: a read, or a write with its ``request_id``
    (:mod:`boardctl.service.once` applies it once)."""
    return message.get("op") in READS or isinstance(message.get("request_id"), str)


async def open_socket(
    path: Path, timeout: float
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A connection to the control socket, or :class:`ServiceGone`."""
    try:
        return await asyncio.wait_for(
            asyncio.open_unix_connection(str(path), limit=LINE_LIMIT), timeout
        )
    except (OSError, TimeoutError) as exc:
        raise ServiceGone(f"the boardctl service is not running ({path}: {exc})") from None


def decode(line: bytes) -> dict[str, Any]:
    """One reply line as an object (a malformed line is a :class:`ControlError`)."""
    try:
        reply = json.loads(line)
    except ValueError:
        raise ControlError("the service sent a malformed reply") from None
    if not isinstance(reply, dict):
        raise ControlError("the service sent a malformed reply")
    return reply


def _status_in(line: dict[str, Any]) -> dict[str, Any] | None:
    """The status a watch line carries, wherever the stream puts it."""
    for outer in (line, line.get("result"), line.get("state"), line.get("status")):
        for candidate in (outer, outer.get("status")) if isinstance(outer, dict) else ():
            if isinstance(candidate, dict) and isinstance(candidate.get("tracks"), list):
                return candidate
    return None


def _rgb_in(line: dict[str, Any]) -> str | None:
    for candidate in (line, line.get("result"), line.get("frame")):
        if isinstance(candidate, dict) and isinstance(candidate.get("rgb"), str):
            return str(candidate["rgb"])
    return None


def _notice_in(line: dict[str, Any]) -> str:
    for key in ("refused", "refusal", "error"):
        value = line.get(key)
        if isinstance(value, str) and line.get("ok") is not False:
            return value
        if isinstance(value, dict) and isinstance(value.get("error"), str):
            return str(value["error"])
    return ""


class Source:
    """The control socket at ``path``, as requests and as a stream of snapshots."""

    def __init__(
        self, path: str | os.PathLike[str], *, poll_interval: float = 0.25, timeout: float = 5.0
    ) -> None:
        self.path = Path(path)
        self.poll_interval = poll_interval
        self.timeout = timeout
        self.mode = "auto"  # "watch" once the service streams, "poll" after "unknown op"
        # The requests' connection (answered in order); the watch stream has its own.
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._lock = asyncio.Lock()

    async def request(self, message: dict[str, Any]) -> Any:
        """The ``result`` of one request; raises the service's refusal or :class:`ServiceGone`."""
        reply = await self._ask(message)
        if not reply.get("ok", False):
            raise ControlError(str(reply.get("error", "refused")))
        return reply.get("result")

    async def _ask(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send ``message``; return the whole reply object.

        Unanswered in ``timeout`` (or dropped), a :func:`resendable` message is sent once more on a
        new connection; :class:`NoAnswer`: sent, not answered; :class:`ServiceGone`: not sent.
        """
        attempts = 2 if resendable(message) else 1
        data = json.dumps(message, separators=(",", ":")).encode() + b"\n"
        async with self._lock:
            for attempt in range(1, attempts + 1):
                try:
                    reader, writer = await self._open()
                except ServiceGone as exc:
                    if attempt == 1:
                        raise
                    raise NoAnswer(f"{exc}; the request sent before was not answered") from None
                try:
                    writer.write(data)
                    await writer.drain()
                    line = await asyncio.wait_for(reader.readline(), self.timeout)
                except (OSError, TimeoutError, ValueError) as exc:
                    line, why = b"", f"the boardctl service did not answer ({exc})"
                else:
                    why = "the boardctl service closed the connection"
                if line:
                    return decode(line)
                self.close()
                if attempt == attempts:
                    raise NoAnswer(why)
        raise ServiceGone("unreachable")  # pragma: no cover

    async def _open(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        reader, writer = self._reader, self._writer
        if reader is None or writer is None or writer.is_closing():
            reader, writer = await open_socket(self.path, self.timeout)
            self._reader, self._writer = reader, writer
        return reader, writer

    async def snapshot(self, via: str = "poll") -> Snapshot:
        """The board now, from ``status`` and ``frame``."""
        status = await self.request({"op": "status"})
        frame = await self.request({"op": "frame"})
        return Snapshot(status, str(frame.get("rgb", "")), via)

    async def watch(self) -> AsyncGenerator[Snapshot, None]:
        """Yield the board at once, then at every change, for ever (see the module)."""
        pause = RETRY_FIRST
        down = False
        while True:
            try:
                stream = self._poll() if self.mode == "poll" else self._stream()
                async for snap in stream:
                    down, pause = False, RETRY_FIRST
                    yield snap
                if self.mode == "poll":
                    continue  # the service has no watch: poll from now on
                raise ServiceGone("the boardctl service closed the watch stream")
            except ControlError as exc:
                self.close()
                if not down:
                    yield Snapshot(None, via="down", reason=str(exc))
                down = True
                self.mode = "auto"  # the service may come back with (or without) a watch
                await asyncio.sleep(pause)
                pause = min(RETRY_MAX, pause * 2)

    async def _stream(self) -> AsyncIterator[Snapshot]:
        """The service's ``watch`` stream; returns at once if the service has none."""
        reader, writer = await open_socket(self.path, self.timeout)
        try:
            writer.write(b'{"op":"watch"}\n')
            await writer.drain()
            last: Snapshot | None = None
            while True:
                try:
                    line = await reader.readline()
                except (OSError, ValueError) as exc:
                    raise ServiceGone(f"the watch stream broke ({exc})") from None
                if not line:
                    return
                reply = decode(line)
                refused = reply.get("ok") is False
                if refused and str(reply.get("error", "")).startswith("unknown op"):
                    self.mode = "poll"
                    return
                if refused and not _notice_in(reply):
                    raise ControlError(str(reply.get("error", "watch refused")))
                self.mode = "watch"
                if "event" in reply and _status_in(reply) is None and not _notice_in(reply):
                    continue  # an event line without state: the state line after it has the board
                snap = await self._from_line(reply)
                if snap != last or snap.notice:
                    last = snap
                    yield snap
        finally:
            writer.close()
            with contextlib.suppress(OSError, RuntimeError):
                await writer.wait_closed()

    async def _from_line(self, line: dict[str, Any]) -> Snapshot:
        status = _status_in(line) or await self.request({"op": "status"})
        rgb = _rgb_in(line)
        if rgb is None:
            rgb = str((await self.request({"op": "frame"})).get("rgb", ""))
        return Snapshot(status, rgb, "watch", notice=_notice_in(line))

    async def _poll(self) -> AsyncIterator[Snapshot]:
        """``status`` and ``frame`` every ``poll_interval`` s; yields only on a change."""
        last: Snapshot | None = None
        while True:
            snap = await self.snapshot("poll")
            if snap != last:
                last = snap
                yield snap
            await asyncio.sleep(self.poll_interval)

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
        self._reader = self._writer = None
