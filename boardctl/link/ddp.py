"""DDP (Distributed Display Protocol): frames to a WLED controller on the network, datagrams and
lookups as docs/link.md ("DDP (WLED on the network)") describes."""

from __future__ import annotations

import logging
import socket
import struct
import threading
import time
from collections.abc import Callable

from boardctl.errors import ConfigError
from boardctl.link.adalight import scale_frame
from boardctl.link.base import Closing, check_level, dark

log = logging.getLogger("boardctl.link")

DDP_PORT = 4048
LEDS_PER_DATAGRAM = 480
FLAG_VERSION_1 = 0x40
FLAG_PUSH = 0x01
TYPE_RGB24 = 0x0B
DESTINATION_DEFAULT = 1


def ddp_datagrams(frame: bytes, sequence: int) -> list[bytes]:
    """The datagrams that show ``frame`` (RGB per LED), sequence number 1-15."""
    if len(frame) % 3 or not frame:
        raise ConfigError(f"a frame is RGB per LED, not {len(frame)} bytes")
    size = 3 * LEDS_PER_DATAGRAM
    out = []
    for offset in range(0, len(frame), size):
        data = frame[offset : offset + size]
        flags = FLAG_VERSION_1 | (FLAG_PUSH if offset + size >= len(frame) else 0)
        header = (flags, sequence & 0x0F, TYPE_RGB24, DESTINATION_DEFAULT, offset, len(data))
        out.append(struct.pack(">4BIH", *header) + data)
    return out


def resolve_udp(host: str, port: int) -> tuple[str, int]:
    """The IPv4 address ``host`` names (a DNS or mDNS lookup; an address as it is)."""
    address = socket.getaddrinfo(host, port, socket.AF_INET, socket.SOCK_DGRAM)[0][4]
    return str(address[0]), int(address[1])


def parse_address(text: str) -> tuple[str, int]:
    """``"wled.local"`` or ``"192.168.1.50:4048"`` -> ``(host, port)``."""
    host, _, port = text.rpartition(":") if ":" in text else (text, "", str(DDP_PORT))
    try:
        number = int(port)
    except ValueError:
        number = -1
    if not host or not 0 < number < 65536:
        raise ConfigError(f"DDP address {text!r} is not HOST or HOST:PORT")
    return host, number


class DdpLink(Closing):
    """A WLED controller over DDP (``path``/``device`` = ``HOST[:PORT]``)."""

    def __init__(
        self,
        *,
        path: str | None = None,
        refresh: float = 1.0,
        brightness: int = 255,
        clock: Callable[[], float] = time.monotonic,
        start: bool = True,
        resolve: Callable[[str, int], tuple[str, int]] = resolve_udp,
    ) -> None:
        if not path:
            raise ConfigError("the ddp LED link needs the controller's address: device = HOST")
        self.address = parse_address(path)
        self.resolve = resolve
        self.refresh = refresh
        self.brightness = check_level(brightness)
        self.clock = clock
        self.sent = 0  # datagrams sent
        self.error: str | None = None
        self._frame: bytes | None = None
        self._sequence = 0
        self._last_send = float("-inf")
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        # The resolved address; None: the link's thread looks the name up again.
        self._target: tuple[str, int] | None = self._lookup()
        self._thread = threading.Thread(target=self._run, name="link-ddp", daemon=True)
        if start:
            self._thread.start()

    @property
    def connected(self) -> bool:
        return not self._closed.is_set() and self.error is None

    def show(self, frame: bytes) -> None:
        frame = bytes(frame)
        with self._lock:
            if frame != self._frame:
                self._frame = frame
                self._send()

    def set_brightness(self, level: float) -> None:
        with self._lock:
            self.brightness = check_level(level)
            self._send()

    def tick(self) -> None:
        """Resend the frame if ``refresh`` seconds passed, or look the host up again after a
        failure and send it at once (the thread calls this; a lookup holds no lock)."""
        if self._target is None:
            target = self._lookup()
            with self._lock:
                self._target = target
                self._send()  # (at once, if found)
            return
        with self._lock:
            if self._frame is not None and self.clock() - self._last_send >= self.refresh:
                self._send()

    def goodbye(self) -> None:
        frame = dark(self._frame)
        if frame is not None:
            self.show(frame)  # (WLED then leaves its realtime mode on its own)

    def close(self) -> None:
        self._closed.set()
        if self._thread.is_alive():
            self._thread.join(5)
        self._socket.close()

    def _lookup(self) -> tuple[str, int] | None:
        """The host's address (at open, and after a failure); None if the lookup failed."""
        try:
            return self.resolve(*self.address)
        except OSError as exc:  # name not found, no network permission
            self._failed(exc)
            return None

    def _failed(self, exc: OSError) -> None:
        if self.error is None:
            log.warning("LED link (ddp): %s:%d: %s", *self.address, exc)
        self.error = str(exc)
        self._target = None  # looked up again by the link's thread

    def _send(self) -> None:
        if not self._frame:
            return
        self._last_send = self.clock()
        target = self._target
        if target is None:
            return  # the link's thread looks the name up again, then sends
        self._sequence = self._sequence % 15 + 1
        frame = scale_frame(self._frame, self.brightness)
        try:
            for datagram in ddp_datagrams(frame, self._sequence):
                self._socket.sendto(datagram, target)
                self.sent += 1
        except OSError as exc:  # no route, no network permission
            self._failed(exc)
            return
        if self.error is not None:
            log.info("LED link (ddp): sending to %s:%d again", *self.address)
        self.error = None

    def _run(self) -> None:
        while not self._closed.wait(min(self.refresh, 0.25)):
            self.tick()
