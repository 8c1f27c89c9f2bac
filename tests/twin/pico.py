"""The Pico on the twin's USB: the emulated RP2040 (tests/rp2040/) behind the guest's gadget.

The guest has a CDC ACM gadget on dummy_hcd with the Pico's USB id (twin/guest/.../pico-usb.sh);
its tty is bridged to the run folder's ``pico.sock`` (pico-bridge.py). Here the other end:
what the Pi writes to /dev/ttyACM0 goes to the chip's USB port, what the chip sends goes back,
and when the chip's port goes or comes back (a reset, the firmware taking the port over) the
gadget is unplugged or plugged (the GPIO agent's ``usb 0|1``), so the Pi sees what it would
see of a real Pico: the device leaves the bus and enumerates again.

The Pico is powered from the Pi: it starts when the VM starts and stops when the VM stops.
rp2040js keeps the flash in its own process, so a new chip cannot inherit the old one's: a
chip starts with the files ``files`` says, the old firmware (``OLD_FIRMWARE``) until
``boardctl firmware install`` has been seen to put the package's files there, then those.
"""

from __future__ import annotations

import contextlib
import queue
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.rp2040.chip import Chip, PinFrame

# What the Pico has before the install test flashes it: another strip (64 LEDs, RGB), so
# the firmware's HELLO tells which files run.
OLD_FIRMWARE: dict[str, object] = {"LED_COUNT": 64, "COLOR_ORDER": "RGB"}


class PicoOnUsb:
    """The emulated Pico on the VM's USB port (see the module docstring)."""

    def __init__(self, workdir: Path, plug: Callable[[bool], None]) -> None:
        self.workdir = workdir
        self.plug = plug  # the gadget's plug in the guest: True plugged, False not
        self.files: dict[str, object] | None = dict(OLD_FIRMWARE)  # config.py overrides
        self.chip: Chip | None = None
        self.power_on_at = 0.0  # time.monotonic() of the last power-on
        self.frame_times: list[float] = []  # time.monotonic() of each frame of this chip
        self.plugged = False  # the chip's USB port, as its host saw it last
        self._sock: socket.socket | None = None
        self._sock_lock = threading.Lock()
        self._reader: threading.Thread | None = None
        self._following = False  # the gadget's plug follows the chip's port (follow_plug)
        # The plug's changes, in order, from a thread of their own: the chip's events come
        # under its lock, and a command to the guest takes a while under TCG.
        self._plugs: queue.Queue[bool] = queue.Queue()
        threading.Thread(target=self._plug_worker, daemon=True).start()

    # -- power -----------------------------------------------------------------------------
    def power_on(self) -> None:
        """A new chip, booting from its flash (``files``), as the VM starts."""
        self.power_off()
        self.frame_times = []
        self.plugged = False
        self.power_on_at = time.monotonic()
        self.chip = Chip(
            self.workdir,
            config=self.files,
            on_output=self._to_pi,
            on_usb=self._usb_event,
            on_frame=self._frame,
            real_time=True,  # mpremote times itself against the chip (tests/rp2040/README.md)
            catch_up=False,  # a chip behind a busy host's clock must not jump its timers
        )

    def power_off(self) -> None:
        """The chip stops (it is kept, with what it did, until the next power-on)."""
        self.disconnect()
        if self.chip is not None:
            self.chip.close()

    # -- the VM's end ----------------------------------------------------------------------
    def connect(self, path: Path) -> None:
        """Join the VM's ``pico.sock`` (QEMU's end of the bridge), as QEMU starts."""
        sock = socket.socket(socket.AF_UNIX)
        sock.connect(str(path))
        with self._sock_lock:
            self._sock = sock
        self._reader = threading.Thread(target=self._from_pi, args=(sock,), daemon=True)
        self._reader.start()

    def follow_plug(self) -> None:
        """From now on (the guest's agent runs) the gadget follows the chip's USB port.

        Until then the guest's own boot plugs it (pico-usb.sh): the chip has enumerated
        long before the guest's kernel loads dummy_hcd. Its state now is sent at once."""
        self._following = True
        self._plugs.put(self.plugged)

    def disconnect(self) -> None:
        self._following = False
        with self._sock_lock:
            sock, self._sock = self._sock, None
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
        if self._reader is not None:
            self._reader.join(5)
            self._reader = None

    def _from_pi(self, sock: socket.socket) -> None:
        while True:
            try:
                data = sock.recv(65536)
            except OSError:
                return
            if not data:
                return
            chip = self.chip
            if chip is not None:
                chip.send(data)

    def _to_pi(self, data: bytes) -> None:
        with self._sock_lock:
            if self._sock is not None:
                with contextlib.suppress(OSError):
                    self._sock.sendall(data)

    def _usb_event(self, event: dict[str, Any]) -> None:
        self.plugged = event["event"] == "usb-connected"
        if self._following:
            self._plugs.put(self.plugged)

    def _plug_worker(self) -> None:
        while True:
            plugged = self._plugs.get()
            with contextlib.suppress(OSError, EOFError):  # the VM went meanwhile
                self.plug(plugged)

    def _frame(self, frame: PinFrame) -> None:
        self.frame_times.append(time.monotonic())

    # -- what the pin showed ---------------------------------------------------------------
    def first_frame_showing(self, rgb: bytes, timeout: float) -> float:
        """Seconds from the last power-on to the first frame on the LED pin showing ``rgb``."""
        chip = self.chip
        assert chip is not None
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            times = list(self.frame_times)
            for frame, seen in zip(chip.frames[: len(times)], times, strict=True):
                if frame.rgb == rgb:
                    return seen - self.power_on_at
            time.sleep(0.2)
        last = chip.frames[-1].rgb.hex()[:96] if chip.frames else "nothing"
        raise AssertionError(f"twin: the LED pin never showed the frame; last: {last}...")
