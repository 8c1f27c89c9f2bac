"""The page server's door: slow or greedy clients cannot take the page down (docs/web.md, "Slow
and greedy clients"; an episode of running out of file descriptors, logged once, ends after
:attr:`Gate.quiet` seconds without)."""

from __future__ import annotations

import asyncio
import errno
import logging
import time
from collections.abc import Callable
from typing import Any

from aiohttp import web

log = logging.getLogger(__name__)

#: ``accept`` errors that mean "no resources now" (asyncio retries them a second later).
OUT_OF_RESOURCES = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})
HEADERS_END = b"\r\n\r\n"


class Gate:
    """Open connections by client address, and the state of the descriptor supply."""

    def __init__(
        self,
        per_address: int,
        header_timeout: float,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.per_address = per_address
        self.header_timeout = header_timeout
        self.quiet = 2 * header_timeout + 1
        self.clock = clock
        self.open: dict[str, int] = {}
        self._starved_at = -float("inf")  # when accept last ran out of descriptors
        self._at_cap: set[str] = set()

    def admit(self, address: str) -> bool:
        """Count a new connection from ``address``; False: it holds its cap already."""
        held = self.open.get(address, 0)
        if held >= self.per_address:
            if address not in self._at_cap:
                self._at_cap.add(address)
                log.warning(
                    "%s holds %d connections: more from it are refused until some close",
                    address,
                    held,
                )
            return False
        self.open[address] = held + 1
        return True

    def release(self, address: str) -> None:
        held = self.open.get(address, 0) - 1
        if held > 0:
            self.open[address] = held
        else:
            self.open.pop(address, None)
        if held <= self.per_address // 2:
            self._at_cap.discard(address)

    def out_of_descriptors(self, context: dict[str, Any]) -> bool:
        """Whether the loop's error ``context`` is an ``accept`` out of resources (logged once)."""
        exc = context.get("exception")
        if not isinstance(exc, OSError) or exc.errno not in OUT_OF_RESOURCES:
            return False
        if "accept" not in str(context.get("message", "")):
            return False
        now, last = self.clock(), self._starved_at
        self._starved_at = now
        if now - last > self.quiet:
            log.warning(
                "out of file descriptors (%s) with %d connections open: new connections "
                "wait until some close",
                exc.strerror,
                sum(self.open.values()),
            )
        return True

    def install(self, loop: asyncio.AbstractEventLoop) -> None:
        """Route the loop's errors through :meth:`out_of_descriptors` first (the server's own
        loop: no other handler to keep)."""

        def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
            if not self.out_of_descriptors(context):
                loop.default_exception_handler(context)

        loop.set_exception_handler(handler)


class Door(asyncio.Protocol):
    """One connection: counted by address, timed until its first headers, then aiohttp's."""

    def __init__(self, gate: Gate, make: Callable[[], asyncio.Protocol]) -> None:
        self.gate = gate
        self.make = make
        self.inner: asyncio.Protocol | None = None
        self.address = ""
        self._timer: asyncio.TimerHandle | None = None
        self._tail = b""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        peer = transport.get_extra_info("peername")
        address = str(peer[0]) if isinstance(peer, tuple) and peer else "?"
        if not self.gate.admit(address):
            transport.abort()
            return
        self.address = address
        loop = asyncio.get_running_loop()  # its headers must come in time
        self._timer = loop.call_later(self.gate.header_timeout, transport.abort)
        self.inner = self.make()
        self.inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if self.inner is None:
            return
        if self._timer is not None:
            if HEADERS_END in self._tail + data:
                self._timer.cancel()
                self._timer = None
            self._tail = (self._tail + data)[-3:]
        self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received() if self.inner is not None else None

    def connection_lost(self, exc: Exception | None) -> None:
        if self.inner is None:
            return
        if self._timer is not None:
            self._timer.cancel()
        self.gate.release(self.address)
        self.inner.connection_lost(exc)

    def pause_writing(self) -> None:
        if self.inner is not None:
            self.inner.pause_writing()

    def resume_writing(self) -> None:
        if self.inner is not None:
            self.inner.resume_writing()


class GatedSite(web.BaseSite):
    """A TCP site whose connections go through a :class:`Door` of ``gate``."""

    def __init__(self, runner: web.BaseRunner, host: str, port: int, gate: Gate) -> None:
        super().__init__(runner)
        self.host, self.port, self.gate = host, port, gate

    @property
    def name(self) -> str:
        shown = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{shown}:{self.port}"

    async def start(self) -> None:
        await super().start()
        server = self._runner.server
        assert server is not None
        self._server = await asyncio.get_running_loop().create_server(
            lambda: Door(self.gate, server), self.host, self.port, reuse_address=True
        )
