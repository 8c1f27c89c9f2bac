"""A stand-in Pico on CPython: the real controller logic behind a pseudo-terminal.

For tests and for trying the link without hardware; not copied to the Pico. Put this
folder on ``sys.path`` and::

    from emulator import PtyDevice
    with PtyDevice(led_count=256) as device:      # device.path: a serial port path
        link = open_link("serial", path=device.path)
        link.show(frame)
        device.wait_for(frame)                    # pixels equal the frame (or timeout)
        device.unplug(); device.plug()            # a pulled and re-inserted cable
        device.reset()                            # a firmware reset: a new HELLO

``pump(controller, data)`` feeds bytes straight into a controller, no pty needed.
"""

import os
import select
import sys
import tempfile
import threading
import time
import tty
from collections.abc import Callable
from typing import Any

from boardctl.link import protocol

# The firmware's ``import protocol`` is the package's module (one file, deployed by
# reference: see package.json); on CPython it comes from boardctl.
sys.modules.setdefault("protocol", protocol)

import ledctl  # noqa: E402


class MonotonicClock:
    """CPython's monotonic clock in MicroPython's ``ticks`` shape."""

    def ticks_ms(self) -> int:
        return int(time.monotonic() * 1000)

    def ticks_diff(self, a: int, b: int) -> int:
        return a - b


class ManualClock:
    """A clock that only moves when told to (``advance(ms)``)."""

    def __init__(self, now: int = 0) -> None:
        self.now = now

    def ticks_ms(self) -> int:
        return self.now

    def ticks_diff(self, a: int, b: int) -> int:
        return a - b

    def advance(self, ms: int) -> None:
        self.now += ms


class MemoryStream:
    """Bytes in from ``inbox``, bytes out to ``sent``."""

    def __init__(self) -> None:
        self.inbox = bytearray()
        self.sent = bytearray()

    def read(self) -> "bytes | None":
        if not self.inbox:
            return None
        data = bytes(self.inbox)
        self.inbox = bytearray()
        return data

    def write(self, data: bytes) -> None:
        self.sent.extend(data)

    def wait(self, ms: int) -> None:
        pass


class FdStream:
    """A non-blocking file descriptor (the pty's controller side)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        os.set_blocking(fd, False)

    def read(self) -> "bytes | None":
        try:
            return os.read(self.fd, 65536) or None
        except (BlockingIOError, InterruptedError):
            return None
        except OSError:
            return None  # EIO: no one has the other side open

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        deadline = time.monotonic() + 0.05
        while view:
            try:
                written = os.write(self.fd, view)
            except BlockingIOError:
                if time.monotonic() > deadline:
                    return  # nobody reading: drop it, as USB CDC would
                time.sleep(0.001)
                continue
            view = view[written:]

    def wait(self, ms: int) -> None:
        try:
            select.select([self.fd], [], [], ms / 1000)
        except (OSError, ValueError):
            time.sleep(ms / 1000)


class RecordingStrip:
    """A strip that keeps what it last showed (RGB) and counts the writes."""

    def __init__(self, led_count: int) -> None:
        self.led_count = led_count
        self.rgb = bytes(3 * led_count)
        self.writes = 0

    def show(self, rgb: bytearray) -> None:
        if len(rgb) != 3 * self.led_count:
            raise AssertionError(f"strip of {self.led_count} LEDs shown {len(rgb)} bytes")
        self.rgb = bytes(rgb)
        self.writes += 1


class RecordingStatus:
    """The status LED: its current value and every change."""

    def __init__(self) -> None:
        self.on = 0
        self.changes: list[int] = []

    def value(self, on: int) -> None:
        self.on = on
        self.changes.append(on)


def pump(controller: ledctl.Controller, data: bytes) -> bytes:
    """Feed ``data`` to ``controller``, refresh it, and return what its strip shows."""
    controller.feed(data)
    controller.step()
    return controller.pixels()


class PtyDevice:
    """The controller logic running in a thread behind a pty, reachable at ``path``."""

    def __init__(self, led_count: int = 256, path: "str | None" = None, **options: Any) -> None:
        self.led_count = led_count
        # Forwarded as they are to ledctl.Controller (its keyword arguments).
        self.options = options
        self._tmp = None
        if path is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="boardctl-pty-")
            path = os.path.join(self._tmp.name, "leds")
        self.path = path
        self.strip = RecordingStrip(led_count)
        self.status = RecordingStatus()
        self.controller: ledctl.Controller | None = None
        self.resets = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._fds: tuple[int, int] | None = None
        self._stream: FdStream | None = None

    def __enter__(self) -> "PtyDevice":
        self.plug()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _new_controller(self, stream: FdStream) -> ledctl.Controller:
        options = dict(self.options)
        options.setdefault("boot_ms", 0)
        return ledctl.Controller(
            stream,
            self.strip,
            MonotonicClock(),
            led_count=self.led_count,
            status=self.status,
            **options,
        )

    def plug(self) -> None:
        """Create a fresh pty at ``path`` and start serving it (a cable plugged in)."""
        if self._fds is not None:
            return
        controller_fd, port_fd = os.openpty()
        tty.setraw(port_fd)  # no echo, no line discipline, before anyone writes
        tmp_link = self.path + ".new"
        if os.path.lexists(tmp_link):
            os.unlink(tmp_link)
        os.symlink(os.ttyname(port_fd), tmp_link)
        os.replace(tmp_link, self.path)
        self._fds = (controller_fd, port_fd)
        self._stream = FdStream(controller_fd)
        with self._lock:
            if self.controller is None:
                self.controller = self._new_controller(self._stream)
            else:
                self.controller.stream = self._stream
        self._stop.clear()
        self._thread = threading.Thread(target=self._serve, name="pty-device", daemon=True)
        self._thread.start()

    def unplug(self, power_loss: bool = True) -> None:
        """Stop serving, close the pty and remove ``path`` (a cable pulled out).

        With ``power_loss`` (a Pico powered over USB) the controller restarts blank
        when plugged in again; without it, it keeps its frame.
        """
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2)
            self._thread = None
        if self._fds is not None:
            for fd in self._fds:
                os.close(fd)
            self._fds = None
        if os.path.lexists(self.path):
            os.unlink(self.path)
        if power_loss:
            with self._lock:
                self.controller = None
                self.strip.rgb = bytes(3 * self.led_count)

    def reset(self) -> None:
        """Restart the firmware: blank state, a new HELLO to the host."""
        with self._lock:
            if self._stream is None:
                raise RuntimeError("the device is unplugged")
            self.strip.rgb = bytes(3 * self.led_count)
            self.controller = self._new_controller(self._stream)
            self.resets += 1

    def close(self) -> None:
        self.unplug(power_loss=False)
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def _serve(self) -> None:
        while not self._stop.is_set():
            stream = self._stream
            if stream is None:
                return
            stream.wait(10)
            with self._lock:
                if self.controller is not None:
                    self.controller.step()

    def pixels(self) -> bytes:
        """What the strip shows now (RGB per LED)."""
        with self._lock:
            return self.strip.rgb

    def wait_for(self, frame: bytes, timeout: float = 1.0) -> bool:
        """Wait until the strip shows ``frame``; False if it does not within ``timeout``."""
        return self.wait_until(lambda: self.pixels() == frame, timeout)

    def wait_until(self, condition: "Callable[[], object]", timeout: float = 1.0) -> bool:
        """Wait until ``condition()`` is true; False if it is not within ``timeout``."""
        deadline = time.monotonic() + timeout
        while True:
            if condition():
                return True
            if time.monotonic() > deadline:
                return False
            time.sleep(0.005)
