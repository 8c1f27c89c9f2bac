"""A real mosquitto broker for the tests, on a free 127.0.0.1 port with a generated config."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"


def have_mosquitto() -> bool:
    return Path(MOSQUITTO).is_file()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Broker:
    """``mosquitto -c <generated config>``; :meth:`kill` and :meth:`start` again on the same port.

    Persistence is on but saved only on a clean stop, so a kill -9 loses every
    retained message since the start: the bridges must make up for it.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.config = folder / "mosquitto.conf"
        self.config.write_text(
            f"listener {self.port} 127.0.0.1\n"
            "allow_anonymous true\n"
            "persistence true\n"
            f"persistence_location {folder}/\n"
            "autosave_interval 3600\n"
            "log_dest stderr\n"
            "log_type error\n"
            "max_queued_messages 100000\n"
        )
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [MOSQUITTO, "-c", str(self.config)],
            stdout=subprocess.DEVNULL,
            stderr=(self.folder / "mosquitto.log").open("ab"),
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"mosquitto exited: {self.log()}") from None
                time.sleep(0.05)
        raise RuntimeError("mosquitto did not start listening")

    def log(self) -> str:
        return (self.folder / "mosquitto.log").read_text(errors="replace")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def close(self) -> None:
        self.kill()
