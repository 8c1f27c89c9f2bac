"""``boardctl firmware install`` after UPDATE: the controller gives its USB port back to
MicroPython (firmware/usb.py), so the port goes and comes back before mpremote may open
it. A pty stands in for the port; its symlink goes and comes back as a device node does."""

from __future__ import annotations

import contextlib
import os
import threading
import time
import tty
from collections.abc import Iterator
from pathlib import Path

import pytest

from boardctl.errors import LinkError
from boardctl.link import protocol as p
from boardctl.link.firmware import request_update_mode, wait_for_port_back


@contextlib.contextmanager
def port(path: Path) -> Iterator[int]:
    master, slave = os.openpty()
    tty.setraw(slave)
    path.symlink_to(os.ttyname(slave))
    try:
        yield master
    finally:
        path.unlink(missing_ok=True)
        os.close(master)
        os.close(slave)


def test_install_waits_until_the_port_is_back(tmp_path: Path) -> None:
    path = tmp_path / "ttyACM0"
    back_at: list[float] = []
    with port(path) as master:

        def firmware() -> None:  # reads UPDATE, then re-enumerates: gone 0.3 s
            received = b""
            while p.UPDATE_KEY not in received:
                received += os.read(master, 4096)
            path.unlink()
            time.sleep(0.3)
            back_at.append(time.monotonic())
            path.symlink_to(os.readlink(tmp_path / "real"))

        (tmp_path / "real").symlink_to(os.readlink(path))
        thread = threading.Thread(target=firmware, daemon=True)
        thread.start()
        request_update_mode(str(path), settle=0)
        done = time.monotonic()
        thread.join(2)
    assert back_at and done >= back_at[0]  # not before the port came back


def test_an_older_firmware_keeps_its_port_and_install_goes_on(tmp_path: Path) -> None:
    path = tmp_path / "ttyACM0"
    with port(path):
        start = time.monotonic()
        assert wait_for_port_back(str(path), gone=0.2, back=1.0) is False
        assert 0.2 <= time.monotonic() - start < 1.0


def test_a_port_that_never_comes_back_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "ttyACM0"  # never there: it went (before we looked) and stays away
    with pytest.raises(LinkError, match="did not come back"):
        wait_for_port_back(str(path), gone=0.1, back=0.2)
