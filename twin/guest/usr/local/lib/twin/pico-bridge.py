#!/usr/bin/python3
"""The Pico's USB port, bridged: the gadget's tty (/dev/ttyGS0) to the host's emulated Pico.

What the Pi writes to /dev/ttyACM0 comes out of the gadget's ttyGS0 and goes to the
virtio-serial port twin.pico, whose other end is a Unix socket on the host, where the
emulated RP2040 reads it as bytes on its USB port; what the chip sends comes back the same
way. Nothing is dropped while both ends are there: writes wait (select) for room.
Every descriptor is non-blocking: a blocking write to a virtio port whose host end is not
connected never returns (virtio_console), so while the host is away its bytes are dropped,
and so are the chip's while the gadget is unplugged (a real port's data goes with it).
"""

import os
import select
import time
import tty

GADGET = "/dev/ttyGS0"
PORT = "/dev/virtio-ports/twin.pico"
TO_HOST_MAX = 1 << 20  # the Pi's bytes held while the chip's end catches up
TO_PI_MAX = 4096  # the chip's bytes held while the Pi does not read (a device's buffer)


def open_gadget() -> int:
    while True:
        try:
            fd = os.open(GADGET, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
            tty.setraw(fd)
            return fd
        except OSError:
            time.sleep(0.5)


def write_some(fd: int, pending: bytes) -> bytes:
    """What is left of ``pending`` after one non-blocking write (nothing, if the end is gone)."""
    try:
        return pending[os.write(fd, pending) :]
    except BlockingIOError:
        return pending
    except OSError:
        return b""


def main() -> None:
    while not os.path.exists(PORT):
        time.sleep(0.5)
    port = os.open(PORT, os.O_RDWR | os.O_NONBLOCK)
    gadget = open_gadget()
    to_host = b""  # from the Pi (ttyGS0), for the chip
    to_pi = b""  # from the chip, for the Pi
    host_away_until = 0.0
    while True:
        readers = [gadget] + ([port] if time.monotonic() >= host_away_until else [])
        writers = ([port] if to_host else []) + ([gadget] if to_pi else [])
        readable, writable, _ = select.select(readers, writers, [], 0.2)
        if gadget in readable:
            try:
                data = os.read(gadget, 65536)
            except BlockingIOError:
                data = None
            except OSError:
                data = b""
            if data == b"":  # hung up: the gadget was unplugged; open it again
                os.close(gadget)
                to_pi = b""
                gadget = open_gadget()
                continue
            if data:
                to_host = (to_host + data)[-TO_HOST_MAX:]
        if port in readable:
            try:
                data = os.read(port, 65536)
            except BlockingIOError:
                data = None
            if data == b"":  # the host's end is not connected
                to_host = b""
                host_away_until = time.monotonic() + 0.2
            elif data:
                to_pi = (to_pi + data)[-TO_PI_MAX:]
        if port in writable:
            to_host = write_some(port, to_host)
        if gadget in writable:
            to_pi = write_some(gadget, to_pi)


main()
