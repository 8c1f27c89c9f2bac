#!/usr/bin/python3
"""The host's hand on the simulated hardware: a line protocol on virtio-serial port twin.gpio.

  set N 0|1   pull input line N low or high: the kernel delivers the edge to its reader
  get N       the line's value (for a line the program drives: the level it drives)
  info        the gpio-sim chip's name
  usb 0|1     unplug or plug the Pico's USB gadget (pico-usb.sh): the emulated chip's USB
              port went or came back (a reset, a re-enumeration)

Each command gets one reply line: ``ok [value]`` or ``err message``.
"""

import os
import time

PORT = "/dev/virtio-ports/twin.gpio"
GADGET_UDC = "/sys/kernel/config/usb_gadget/pico/UDC"


def line_dir(number: str) -> str:
    return f"{os.path.realpath('/run/twin-gpio')}/sim_gpio{int(number)}"


def handle(command: str) -> str:
    words = command.split()
    try:
        if words[0] == "set" and words[2] in ("0", "1"):
            with open(f"{line_dir(words[1])}/pull", "w") as pull:
                pull.write("pull-up" if words[2] == "1" else "pull-down")
            return "ok"
        if words[0] == "get":
            with open(f"{line_dir(words[1])}/value") as value:
                return "ok " + value.read().strip()
        if words[0] == "usb" and words[1] in ("0", "1"):
            with open("/run/twin-udc") as udc:
                name = udc.read().strip() if words[1] == "1" else ""
            with open(GADGET_UDC) as current:
                if current.read().strip() != name:
                    with open(GADGET_UDC, "w") as gadget:
                        gadget.write(name + "\n")
            return "ok"
        if words[0] == "info":
            return "ok " + os.path.basename(os.path.realpath("/run/twin-gpio"))
        return "err unknown command: " + command
    except (OSError, ValueError, IndexError) as error:
        return f"err {error}"


def main() -> None:
    while not os.path.exists(PORT):
        time.sleep(0.5)
    port = os.open(PORT, os.O_RDWR)
    pending = b""
    while True:
        data = os.read(port, 4096)
        if not data:  # the host's end is not connected
            time.sleep(0.2)
            pending = b""
            continue
        pending += data
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            command = line.decode(errors="replace").strip()
            if command:
                os.write(port, (handle(command) + "\n").encode())


main()
