"""A TCP proxy between a board and the broker that delays, and can cut, the traffic.

:class:`Proxy` listens on a free 127.0.0.1 port and forwards every connection to
``target``, holding each chunk ``delay`` seconds in each direction (in order, as a
slow network does, not a slow link: chunks overlap). :meth:`Proxy.cut` resets every
connection and refuses new ones until :meth:`Proxy.mend` (a network gone).
It runs its own asyncio loop in a thread. For the linked boards' tests and
benchmarks (docs/remote.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from collections.abc import Callable


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Proxy:
    """``127.0.0.1:port`` -> ``target``, each way delayed by ``delay`` seconds."""

    def __init__(self, target: tuple[str, int], delay: float = 0.0) -> None:
        self.target = target
        self.delay = delay
        self.port = _free_port()
        self.cut_off = False
        self._writers: set[asyncio.StreamWriter] = set()
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._server: asyncio.Server | None = None
        self._thread = threading.Thread(target=self._run, name="tcp-proxy", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the proxy did not start")

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(
            asyncio.start_server(self._accept, "127.0.0.1", self.port)
        )
        self._ready.set()
        self._loop.run_forever()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.cut_off:
            writer.transport.abort()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.transport.abort()
            return
        self._writers |= {writer, up_writer}
        with contextlib.suppress(asyncio.CancelledError):  # the proxy closes
            await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        loop = asyncio.get_running_loop()
        with contextlib.suppress(OSError, ConnectionError):
            while chunk := await reader.read(65536):
                # each chunk leaves `delay` after it came, in order (call_later keeps the order
                # of equal deadlines, and a later chunk's deadline is never earlier)
                loop.call_later(self.delay, self._write, writer, chunk)
        loop.call_later(self.delay, self._close, writer)

    def _write(self, writer: asyncio.StreamWriter, chunk: bytes) -> None:
        if not writer.is_closing():
            writer.write(chunk)

    def _close(self, writer: asyncio.StreamWriter) -> None:
        self._writers.discard(writer)
        if not writer.is_closing():
            writer.close()

    def cut(self) -> None:
        """Reset every connection and refuse new ones (until :meth:`mend`)."""

        def reset() -> None:
            self.cut_off = True
            for writer in list(self._writers):
                writer.transport.abort()
            self._writers.clear()

        self._call(reset)

    def mend(self) -> None:
        """Let connections through again."""
        self._call(lambda: setattr(self, "cut_off", False))

    def _call(self, function: Callable[[], object]) -> None:
        done = threading.Event()

        def run() -> None:
            function()
            done.set()

        self._loop.call_soon_threadsafe(run)
        if not done.wait(10):
            raise RuntimeError("the proxy did not answer")

    def close(self) -> None:
        self.cut()

        async def stop() -> None:
            if self._server is not None:
                self._server.close()
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self._loop.stop()

        self._loop.call_soon_threadsafe(lambda: self._loop.create_task(stop()))
        self._thread.join(10)
        self._loop.close()
