"""Copying the LED controller's files onto a Pico with ``mpremote`` (the ``firmware`` extra)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from boardctl.errors import LinkError
from boardctl.link.firmware import firmware_files


def find_mpremote(program: str | None = None) -> str:
    """The mpremote to run: ``program``, else the first on PATH, else the one beside
    this Python (a virtualenv's ``bin/``)."""
    if program:
        return program
    found = shutil.which("mpremote")
    if found is None:
        beside = Path(sys.executable).parent / "mpremote"
        found = str(beside) if os.access(beside, os.X_OK) else None
    if found is None:
        raise LinkError(
            "mpremote is not installed: pip install 'boardctl[firmware]' (or pip install mpremote)"
        )
    return found


def install_command(
    port: str = "auto", firmware_dir: Path | None = None, program: str | None = None
) -> list[str]:
    """One mpremote session: connect, copy every file (``main.py`` last), reset.

    ``resume``: no soft reset before the copies. After UPDATE the controller's REPL has a
    timer feeding the armed watchdog and the USB port it gave back to MicroPython; a
    soft reset would stop that timer (the watchdog then resets the Pico during the
    copies) and re-enumerate the USB port under mpremote (which fails on the vanished
    port: tests/test_firmware_install_wheel.py)."""
    command = [find_mpremote(program), "connect", port, "resume"]
    for source, name in firmware_files(firmware_dir):
        command += ["cp", str(source), f":{name}", "+"]
    return [*command, "reset"]


def request_update_mode(
    port: str, baud: int = 1_000_000, settle: float = 0.5, gone: float = 1.0, back: float = 10.0
) -> None:
    """Ask a running controller to leave its REPL free (the UPDATE message), so that
    mpremote can copy files without BOOTSEL. A Pico already at its REPL ignores it.

    The controller's USB port is its own (firmware/usb.py): for UPDATE it gives the port
    back to MicroPython, so the port goes and comes back; wait for that (``gone`` seconds
    for it to go, an older firmware's port stays; ``back`` for it to return)."""
    import time

    import serial

    from boardctl.link import protocol
    from boardctl.link.serial_link import PICO_MICROPYTHON, find_port

    path = find_port(PICO_MICROPYTHON) if port == "auto" else port
    if path is None:
        raise LinkError(f"no Pico (USB {PICO_MICROPYTHON}) found: pass --port")
    try:
        with serial.Serial(path, baud, timeout=0.2, write_timeout=1.0, exclusive=True) as link:
            link.write(protocol.encode(protocol.UPDATE, 0, protocol.UPDATE_KEY))
            link.flush()
    except OSError as exc:
        raise LinkError(
            f"cannot open {path} ({exc}): stop boardctl first (sudo systemctl stop boardctl)"
        ) from None
    wait_for_port_back(path, gone, back)
    time.sleep(settle)  # the controller stops and prints its update-mode line


def wait_for_port_back(path: str, gone: float, back: float, poll: float = 0.02) -> bool:
    """Wait up to ``gone`` seconds for ``path`` to vanish, then up to ``back`` for it to
    return: True if it went and came back, False if it never went. LinkError if it went
    and did not come back."""
    import time

    deadline = time.monotonic() + gone
    while os.path.exists(path):
        if time.monotonic() >= deadline:
            return False
        time.sleep(poll)
    deadline = time.monotonic() + back
    while not os.path.exists(path):
        if time.monotonic() >= deadline:
            raise LinkError(f"{path} went away after UPDATE and did not come back in {back:g} s")
        time.sleep(poll)
    return True


def run_install(command: list[str]) -> None:
    """Run ``command``; a LinkError that says what to check if mpremote fails."""
    try:
        result = subprocess.run(command, check=False)
    except OSError as exc:
        raise LinkError(f"cannot run {command[0]}: {exc}") from None
    if result.returncode != 0:
        raise LinkError(
            f"mpremote failed (exit status {result.returncode}): stop boardctl first "
            "(sudo systemctl stop boardctl), and start the Pico in safe mode (hold BOOTSEL "
            "during the boot pattern) so that its REPL is free"
        )
