"""The web process's one way to the board: the service's control socket (docs/web.md, "How the
page hears of changes")."""

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
from boardctl.service.wire import READ_ONLY, encode

LINE_LIMIT = 16 * 1024 * 1024  # a long game's history is one reply line
RETRY_FIRST = 0.1
RETRY_MAX = 2.0


class ServiceGone(ControlError):
    """The service is not running or closed the connection."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The board as the service has it: ``status`` (None = down) and the LEDs; ``via``: ``"watch"``,
    ``"poll"`` or ``"down"``."""

    status: dict[str, Any] | None
    rgb: str = ""
    via: str = "down"
    reason: str = ""

    @property
    def up(self) -> bool:
        return self.status is not None


class NoAnswer(ServiceGone):
    """A request was sent and no reply came in time: a write may or may not be applied."""


#: Requests that change nothing: sent again on a new connection when a reply does not come.
READS = READ_ONLY | {"records"}


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
        reply = None
    if not isinstance(reply, dict):
        raise ControlError("the service sent a malformed reply")
    return reply


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
        """The ``result`` of one request; raises the service's refusal, :class:`NoAnswer` (sent,
        not answered) or :class:`ServiceGone` (not sent).

        Unanswered in ``timeout`` (or dropped), a read or a write with its ``request_id``
        (:mod:`boardctl.service.once` applies it once) is sent once more on a new connection.
        """
        resend = message.get("op") in READS or isinstance(message.get("request_id"), str)
        data = encode(message)
        async with self._lock:
            for attempt in range(2 if resend else 1):
                reader, writer = self._reader, self._writer
                if reader is None or writer is None or writer.is_closing():
                    try:
                        reader, writer = await open_socket(self.path, self.timeout)
                    except ServiceGone as exc:
                        if attempt == 0:
                            raise
                        raise NoAnswer(f"{exc}; the request sent before was not answered") from None
                    self._reader, self._writer = reader, writer
                try:
                    writer.write(data)
                    await writer.drain()
                    line = await asyncio.wait_for(reader.readline(), self.timeout)
                except (OSError, TimeoutError, ValueError) as exc:
                    line, why = b"", f"the boardctl service did not answer ({exc})"
                else:
                    why = "the boardctl service closed the connection"
                if line:
                    reply = decode(line)
                    if not reply.get("ok", False):
                        raise ControlError(str(reply.get("error", "refused")))
                    return reply.get("result")
                self.close()
            raise NoAnswer(why)

    async def snapshot(self) -> Snapshot:
        """The board now, from ``status`` and ``frame``."""
        return Snapshot(await self.request({"op": "status"}), await self._leds(), "poll")

    async def _leds(self) -> str:
        """The LEDs' colours now: ``frame``'s hex RGB."""
        return str((await self.request({"op": "frame"})).get("rgb", ""))

    async def watch(self) -> AsyncGenerator[Snapshot, None]:
        """Yield the board at once, then at every change, for ever (see the module)."""
        pause = RETRY_FIRST
        last: Snapshot | None = None
        while True:
            try:
                async for snap in self._poll() if self.mode == "poll" else self._stream():
                    pause = RETRY_FIRST
                    if snap != last:
                        last = snap
                        yield snap
                if self.mode != "poll":  # (in "poll": the service has no watch, poll from now on)
                    raise ServiceGone("the boardctl service closed the watch stream")
            except ControlError as exc:
                self.close()
                if last is None or last.up:  # one "down" per outage
                    last = Snapshot(None, via="down", reason=str(exc))
                    yield last
                self.mode = "auto"  # the service may come back with (or without) a watch
                await asyncio.sleep(pause)
                pause = min(RETRY_MAX, pause * 2)

    async def _stream(self) -> AsyncIterator[Snapshot]:
        """The service's ``watch`` stream: the snapshot in the reply, then each ``state`` line (an
        ``event`` line is followed by one); returns at once if the service has no ``watch``."""
        reader, writer = await open_socket(self.path, self.timeout)
        try:
            writer.write(b'{"op":"watch"}\n')
            await writer.drain()
            while True:
                try:
                    line = await reader.readline()
                except (OSError, ValueError) as exc:
                    raise ServiceGone(f"the watch stream broke ({exc})") from None
                if not line:
                    return
                reply = decode(line)
                if reply.get("ok") is False:
                    error = str(reply.get("error", "watch refused"))
                    if error.startswith("unknown op"):
                        self.mode = "poll"
                        return
                    raise ControlError(error)
                self.mode = "watch"
                state = reply.get("result") or reply.get("state")
                if state is not None:
                    yield Snapshot(state["status"], await self._leds(), "watch")
        finally:
            writer.close()
            with contextlib.suppress(OSError, RuntimeError):
                await writer.wait_closed()

    async def _poll(self) -> AsyncIterator[Snapshot]:
        """``status`` and ``frame`` every ``poll_interval`` s (:meth:`watch` yields the changes)."""
        while True:
            yield await self.snapshot()
            await asyncio.sleep(self.poll_interval)

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
        self._reader = self._writer = None
