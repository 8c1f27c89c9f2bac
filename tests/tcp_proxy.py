"""A TCP proxy between a board and the broker that delays, loses, holds or cuts the traffic.

:class:`Proxy` listens on a free 127.0.0.1 port and forwards every connection to
``target``, holding each chunk ``delay`` seconds in each direction (in order, as a
slow network does, not a slow link: chunks overlap). Faults:

- :meth:`Proxy.cut` resets every connection and refuses new ones until
  :meth:`Proxy.mend` (a network gone, the router restarted);
- ``loss`` (0 to 1): each chunk is a lost packet with that chance, which TCP sends
  again after its retransmission timeout (:data:`RTO`, doubling while lost again):
  the stream, in order, stalls behind it, as packet loss shows to the programs;
- :meth:`Proxy.partition` holds every byte, both ways, of every connection (and of
  new ones) without a reset, until :meth:`Proxy.heal` lets them all through in order
  (a link down with no one told: only keep-alives find it).

It runs its own asyncio loop in a thread. For the linked boards' tests and
benchmarks (docs/remote.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import socket
import threading
from collections.abc import Callable

RTO = 0.2  # seconds: Linux's least retransmission timeout; doubled for each loss in a row


Writer = asyncio.StreamWriter


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Proxy:
    """``127.0.0.1:port`` -> ``target``, each way delayed by ``delay`` seconds."""

    def __init__(
        self, target: tuple[str, int], delay: float = 0.0, *, loss: float = 0.0, seed: int = 0
    ) -> None:
        self.target = target
        self.delay = delay
        self.loss = loss
        self.port = _free_port()
        self.cut_off = False
        self._random = random.Random(seed)
        self._open = asyncio.Event()  # set: traffic flows (clear: a partition)
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
        self._open.set()
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
        """Read one direction; a sender task writes each chunk when due, in order."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()
        sender = loop.create_task(self._send(queue, writer))
        due = 0.0
        with contextlib.suppress(OSError, ConnectionError):
            while chunk := await reader.read(65536):
                arrives, rto = loop.time() + self.delay, RTO
                while self._random.random() < self.loss:  # lost: sent again after the RTO
                    arrives, rto = arrives + rto, rto * 2
                due = max(due, arrives)  # in order: the ones after it wait for it
                queue.put_nowait((due, chunk))
        queue.put_nowait((max(due, loop.time() + self.delay), b""))  # then the end
        await sender

    async def _send(self, queue: asyncio.Queue[tuple[float, bytes]], writer: Writer) -> None:
        loop = asyncio.get_running_loop()
        while True:
            due, chunk = await queue.get()
            await asyncio.sleep(max(0.0, due - loop.time()))
            await self._open.wait()  # a partition holds it
            if writer.is_closing():
                return
            if not chunk:
                self._close(writer)
                return
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

    def partition(self) -> None:
        """Hold every byte, both ways, without a reset (until :meth:`heal`)."""
        self._call(self._open.clear)

    def heal(self) -> None:
        """Let the held bytes through, in order, and everything after them."""
        self._call(self._open.set)

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
