"""The LED controller's files as ``firmware/package.json`` names them, and copying them onto a Pico
with ``mpremote`` (the ``firmware`` extra; docs/link.md).

A wheel carries them as ``boardctl/firmware/``; an editable install reads its checkout's
``firmware/`` (``direct_url.json``, PEP 610).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import boardctl
from boardctl.errors import ConfigError, LinkError

PACKAGE_DIR = Path(boardctl.__file__).resolve().parent  # boardctl/
PACKAGE_URL = "../boardctl/"  # how package.json names a module of this package
INSTALLED_DIR = PACKAGE_DIR / "firmware"  # the wheel's copy (setup.py)


def checkout_dir() -> Path | None:
    """The ``firmware/`` folder of the checkout an editable install was made from, if any."""
    from importlib.metadata import distributions
    from urllib.parse import unquote, urlparse

    for dist in distributions(name="boardctl"):  # (a checkout's own egg-info has no origin)
        try:
            origin = json.loads(dist.read_text("direct_url.json") or "{}")
        except ValueError:
            continue
        url = urlparse(str(origin.get("url", "")))
        if isinstance(origin.get("dir_info"), dict) and url.scheme == "file":
            return Path(unquote(url.path)) / "firmware"
    return None


def default_dir() -> Path:
    """Where the firmware's files are: the installed package's, else the checkout's."""
    if (INSTALLED_DIR / "package.json").is_file():
        return INSTALLED_DIR
    return checkout_dir() or INSTALLED_DIR  # (missing: firmware_files says so)


def source_of(folder: Path, url: str) -> Path:
    """The file ``url`` of ``folder/package.json`` names (a module of this package when
    ``url`` points into ``../boardctl/`` and the folder has no such sibling)."""
    source = (folder / url).resolve()
    if not source.is_file() and url.startswith(PACKAGE_URL):
        return PACKAGE_DIR / url.removeprefix(PACKAGE_URL)
    return source


ENTRY_POINT = "main.py"  # copied last: once it is on the Pico, the controller starts at power-up


def firmware_files(firmware_dir: Path | None = None) -> list[tuple[Path, str]]:
    """``(source file, name on the Pico)`` of every firmware file, ``main.py`` last."""
    folder = default_dir() if firmware_dir is None else firmware_dir
    package = folder / "package.json"
    try:
        urls = json.loads(package.read_text())["urls"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ConfigError(
            f"{package}: not a firmware folder with a package.json ({exc}); "
            "pass --firmware DIR, the firmware/ folder of a boardctl checkout"
        ) from None
    files = [(source_of(folder, str(url)), str(name)) for name, url in urls]
    missing = [str(source) for source, _name in files if not source.is_file()]
    if missing:
        raise ConfigError(f"{package} names files that are not there: {', '.join(missing)}")
    return sorted(files, key=lambda item: item[1] == ENTRY_POINT)


def find_mpremote(program: str | None = None) -> str:
    """The mpremote to run: ``program``, else the first on PATH, else the one beside
    this Python (a virtualenv's ``bin/``)."""
    if program:
        return program
    path = os.pathsep.join((os.environ.get("PATH", os.defpath), str(Path(sys.executable).parent)))
    found = shutil.which("mpremote", path=path)
    if found is None:
        raise LinkError(
            "mpremote is not installed: pip install 'boardctl[firmware]' (or pip install mpremote)"
        )
    return found


def install_command(
    port: str = "auto", firmware_dir: Path | None = None, program: str | None = None
) -> list[str]:
    """One mpremote session: connect, copy every file (``main.py`` last), reset. ``resume``:
    no soft reset first, which would stop the REPL's timer feeding the watchdog after UPDATE
    and re-enumerate the USB port under mpremote (tests/test_firmware_install_wheel.py)."""
    command = [find_mpremote(program), "connect", port, "resume"]
    for source, name in firmware_files(firmware_dir):
        command += ["cp", str(source), f":{name}", "+"]
    return [*command, "reset"]


def request_update_mode(port: str, settle: float = 0.5) -> None:
    """Ask a running controller to leave its REPL free (UPDATE) for mpremote, without BOOTSEL;
    its USB port (firmware/usb.py) goes and comes back: wait a second for it to go (an older
    firmware's stays) and ten for it to return."""
    import serial

    from boardctl.link import protocol
    from boardctl.link.serial_link import PICO_MICROPYTHON, find_port

    path = find_port(PICO_MICROPYTHON) if port == "auto" else port
    if path is None:
        raise LinkError(f"no Pico (USB {PICO_MICROPYTHON}) found: pass --port")
    try:
        with serial.Serial(path, 1_000_000, timeout=0.2, write_timeout=1.0, exclusive=True) as link:
            link.write(protocol.encode(protocol.UPDATE, 0, protocol.UPDATE_KEY))
            link.flush()
    except OSError as exc:
        raise LinkError(
            f"cannot open {path} ({exc}): stop boardctl first (sudo systemctl stop boardctl)"
        ) from None
    wait_for_port_back(path, gone=1.0, back=10.0)
    time.sleep(settle)  # the controller stops and prints its update-mode line


def wait_for_port_back(path: str, gone: float, back: float, poll: float = 0.02) -> bool:
    """Wait ``gone`` seconds for ``path`` to vanish, then ``back`` for it to return: True if it
    came back, False if it never went, a LinkError if it did not come back."""
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
