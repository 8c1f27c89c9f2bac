"""WLED's receiving side, for the link tests: decoders that take the same states and steps
as WLED's own parsers, written again in Python, so that the link back-ends are checked
against what a WLED board does with their bytes, not against our own idea of the format.

- Adalight: ``wled00/wled_serial.cpp``, ``handleSerial()`` (Aircoookie/WLED at 00dbdc2):
  the ``AdaState`` machine one byte at a time (``Header_A``, ``Header_d``, ``Header_a``,
  ``Header_CountHi``, ``Header_CountLo``, ``Header_CountCheck``, ``Data_Red``,
  ``Data_Green``, ``Data_Blue``, and the TPM2 states), with the single-byte commands that
  ``Header_A`` acts on (0xB0-0xB7 baud rates, ``v``, ``l``, ``L``, ``{``, ``I``) recorded.
- DDP: ``wled00/e131.cpp``, ``handleDDPPacket()`` (Aircoookie/WLED at 043947f), reached from
  ``handleE131Packet()`` for DDP datagrams, with the header fields of ``e131_packet_t``
  (flags, sequenceNum, dataType, destination, channelOffset u32, dataLen u16, big-endian)
  and ``setRealtimePixel()`` (``wled00/udp.cpp``).

Both write pixels through ``setRealtimePixel`` as WLED's defaults have it (no offset, no
gamma correction for realtime data, the whole strip) and record every ``strip.show()``.
``SerialLine`` is a WLED board's serial line on a pty, read at the line's rate (the tests and
benchmarks/bench_service_latency.py use it).
"""

from __future__ import annotations

import fcntl
import os
import select
import sys
import termios
import threading
import time
import tty
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Strip:
    """The WLED strip: ``length`` LEDs, RGB; ``shows`` holds the pixels at every show."""

    length: int
    pixels: bytearray = field(init=False)
    shows: list[bytes] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.pixels = bytearray(3 * self.length)

    def set_realtime_pixel(self, i: int, r: int, g: int, b: int) -> None:
        """``setRealtimePixel``: LEDs past the strip's length are dropped."""
        if i < self.length:
            self.pixels[3 * i : 3 * i + 3] = bytes((r, g, b))

    def show(self) -> None:
        self.shows.append(bytes(self.pixels))


class AdalightReceiver:
    """``handleSerial()``'s Adalight/TPM2 state machine, fed the bytes of the serial line."""

    def __init__(self, strip: Strip) -> None:
        self.strip = strip
        self.state = "Header_A"
        self.count = 0  # uint16_t
        self.pixel = 0  # uint16_t
        self.check = 0
        self.red = 0
        self.green = 0
        self.commands: list[int] = []  # bytes Header_A acted on that are not 'A' (baud, 'v', ...)
        self.header_rejects = 0  # Header_CountCheck mismatches

    def feed(self, data: bytes) -> None:
        for byte in data:
            self.step(byte)

    def step(self, nxt: int) -> None:  # noqa: C901 (one branch per AdaState, as in WLED)
        state = self.state
        if state == "Header_A":
            if nxt == ord("A"):
                self.state = "Header_d"
            elif nxt == 0xC9:  # TPM2 start byte
                self.state = "TPM2_Header_Type"
            elif nxt in b"IvlL{" or 0xB0 <= nxt <= 0xB7:
                self.commands.append(nxt)  # improv, version, LED dumps, JSON, baud rate
        elif state == "Header_d":
            self.state = "Header_a" if nxt == ord("d") else "Header_A"
        elif state == "Header_a":
            self.state = "Header_CountHi" if nxt == ord("a") else "Header_A"
        elif state == "Header_CountHi":
            self.pixel = 0
            self.count = (nxt * 0x100) & 0xFFFF
            self.check = nxt
            self.state = "Header_CountLo"
        elif state == "Header_CountLo":
            self.count = (self.count + nxt + 1) & 0xFFFF
            self.check = self.check ^ nxt ^ 0x55
            self.state = "Header_CountCheck"
        elif state == "Header_CountCheck":
            if self.check == nxt:
                self.state = "Data_Red"
            else:
                self.header_rejects += 1
                self.state = "Header_A"
        elif state == "TPM2_Header_Type":
            self.state = "TPM2_Header_CountHi" if nxt == 0xDA else "Header_A"
        elif state == "TPM2_Header_CountHi":
            self.pixel = 0
            self.count = (nxt * 0x100) // 3
            self.state = "TPM2_Header_CountLo"
        elif state == "TPM2_Header_CountLo":
            self.count = (self.count + nxt // 3) & 0xFFFF
            self.state = "Data_Red"
        elif state == "Data_Red":
            self.red = nxt
            self.state = "Data_Green"
        elif state == "Data_Green":
            self.green = nxt
            self.state = "Data_Blue"
        elif state == "Data_Blue":
            self.strip.set_realtime_pixel(self.pixel, self.red, self.green, nxt)
            self.pixel = (self.pixel + 1) & 0xFFFF
            self.count = (self.count - 1) & 0xFFFF
            if self.count > 0:
                self.state = "Data_Red"
            else:  # realtimeLock(..., REALTIME_MODE_ADALIGHT), then strip.show()
                self.strip.show()
                self.state = "Header_A"


DDP_PUSH_FLAG = 0x01
DDP_TIMECODE_FLAG = 0x10
DDP_TYPE_RGBW32 = 0x1A


class DdpReceiver:
    """``handleDDPPacket()``: one datagram at a time. ``skip_out_of_sequence`` is WLED's
    ``e131SkipOutOfSequence`` setting (off by default); ``dmx_address`` its DMXAddress."""

    def __init__(
        self, strip: Strip, skip_out_of_sequence: bool = False, dmx_address: int = 1
    ) -> None:
        self.strip = strip
        self.skip_out_of_sequence = skip_out_of_sequence
        self.dmx_address = dmx_address
        self.last_push_seq = 0  # e131LastSequenceNumber[0]
        self.rejected = 0  # late datagrams of an earlier frame, dropped
        self.short = 0  # datagrams whose dataLen runs past their end (WLED reads on)

    def handle(self, datagram: bytes) -> None:
        flags, sequence_num, data_type = datagram[0], datagram[1], datagram[2]
        channel_offset = int.from_bytes(datagram[4:8], "big")
        data_len = int.from_bytes(datagram[8:10], "big")
        data = datagram[10:]
        last = self.last_push_seq
        if self.skip_out_of_sequence and last:
            sn = sequence_num & 0xF
            if sn and (
                (last > 5 and last - 5 < sn < last) or (last <= 5 and not last <= sn <= 10 + last)
            ):
                self.rejected += 1
                return
        per_led = 4 if data_type == DDP_TYPE_RGBW32 else 3
        start = channel_offset // per_led + self.dmx_address // per_led
        stop = (start + data_len // per_led) & 0xFFFF  # uint16_t
        c = 4 if flags & DDP_TIMECODE_FLAG else 0
        if c + (stop - start) * per_led > len(data):
            self.short += 1
        for i in range(start, stop):
            rgb = data[c : c + 3]
            if len(rgb) == 3:
                self.strip.set_realtime_pixel(i, rgb[0], rgb[1], rgb[2])
            c += per_led
        if flags & DDP_PUSH_FLAG:  # e131NewData: the main loop shows the strip
            self.strip.show()
            sn = sequence_num & 0xF
            if sn:
                self.last_push_seq = sn


class SerialLine:
    """A WLED board's serial line on a pty: ``path`` is the port the link opens; the far end
    is read at most ``baud`` / 10 bytes a second (8N1; None: as fast as it comes; an idle
    line saves nothing up) by WLED's Adalight parser. ``shown`` holds
    ``(time.perf_counter(), pixels)`` of every show. With ``link`` (a path), the port is a
    symlink there, and ``replug()`` pulls the cable and plugs it in again (a new pty; the
    bytes on their way are lost, WLED keeps its parser's state)."""

    def __init__(self, leds: int, baud: int | None = None, link: Path | None = None) -> None:
        self.link = link
        self.controller_fd = self.port_fd = -1
        self._plug()
        self.path = str(link) if link is not None else os.ttyname(self.port_fd)
        self.strip = Strip(leds)
        self.wled = AdalightReceiver(self.strip)
        self.rate = baud / 10 if baud else None
        self.received = 0
        self.shown: list[tuple[float, bytes]] = []
        self._changed = threading.Condition()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _plug(self) -> None:
        controller, port = os.openpty()
        tty.setraw(port)
        if self.link is not None:
            self.link.unlink(missing_ok=True)
            self.link.symlink_to(os.ttyname(port))
        self.controller_fd, self.port_fd = controller, port

    def _unplug(self) -> None:
        controller, port = self.controller_fd, self.port_fd
        self.controller_fd = self.port_fd = -1
        for fd in (controller, port):
            if fd >= 0:
                os.close(fd)

    def replug(self) -> None:
        """The cable out and in again: the link's port fails, then opens anew."""
        with self._changed:
            self._unplug()
        time.sleep(0.1)  # (long enough for the link to see its port fail)
        with self._changed:
            self._plug()

    def _ready(self, timeout: float) -> bool:
        fd = self.controller_fd
        if fd < 0:
            time.sleep(timeout)
            return False
        try:
            return bool(select.select([fd], [], [], timeout)[0])
        except (OSError, ValueError):  # unplugged meanwhile
            return False

    def _read(self) -> None:
        start = time.monotonic()
        idle = True
        while not self._stop.is_set():
            if not self._ready(0):  # the line is idle
                idle = True
                if not self._ready(0.05):
                    continue
            most = 65536
            if self.rate is not None:  # what the line has carried by now
                if idle:  # the rate counts from the first byte
                    start = time.monotonic() - self.received / self.rate
                    idle = False
                most = int((time.monotonic() - start) * self.rate) - self.received
                if most <= 0:
                    time.sleep(0.001)
                    continue
            with self._changed:
                try:
                    data = os.read(self.controller_fd, min(most, 65536))
                except OSError:  # unplugged
                    continue
                before = len(self.strip.shows)
                self.wled.feed(data)
                self.received += len(data)
                now = time.perf_counter()
                self.shown += [(now, pixels) for pixels in self.strip.shows[before:]]
                self._changed.notify_all()

    def wait_for(self, condition: Callable[[], bool], timeout: float = 20.0) -> bool:
        with self._changed:
            return self._changed.wait_for(condition, timeout)

    def shows(self, pixels: bytes) -> Callable[[], bool]:
        """A condition: WLED's last show is ``pixels``."""
        return lambda: bool(self.shown) and self.shown[-1][1] == pixels

    def written(self) -> int:
        """Every byte the link wrote: those read, and those still waiting in the pty."""
        waiting = fcntl.ioctl(self.controller_fd, termios.FIONREAD, b"\0\0\0\0")
        return self.received + int.from_bytes(waiting, sys.byteorder)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        self._unplug()
