"""A real mosquitto broker for the tests, on a free 127.0.0.1 port with a generated config."""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
MOSQUITTO_PASSWD = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"


def have_mosquitto() -> bool:
    return Path(MOSQUITTO).is_file()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Broker:
    """``mosquitto -c <generated config>``; :meth:`kill` and :meth:`start` again on the same port.

    Persistence is on but saved only on a clean stop or :meth:`save`, so a kill -9
    loses every retained message since the last save: the bridges must make up
    for it. ``persistence=False``: nothing is ever saved. ``users`` (name ->
    password) and ``acl`` (the ACL file's text) make a broker that only lets
    those users in (a password file made by ``mosquitto_passwd``). ``port``: that one
    instead of a free one. ``extra``: more lines of configuration (a bridge connection).
    """

    def __init__(
        self,
        folder: Path,
        *,
        persistence: bool = True,
        users: dict[str, str] | None = None,
        acl: str = "",
        port: int | None = None,
        extra: tuple[str, ...] = (),
    ) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.config = folder / "mosquitto.conf"
        self.database = folder / "mosquitto.db"
        lines = [
            f"listener {self.port} 127.0.0.1",
            # started as root, mosquitto would become user mosquitto and could not write here
            f"user {pwd.getpwuid(os.geteuid()).pw_name}",
            f"persistence {'true' if persistence else 'false'}",
            f"persistence_location {folder}/",
            "autosave_interval 3600",
            "log_dest stderr",
            "log_type error",
            "log_type notice",
            "max_queued_messages 100000",
        ]
        if users is None:
            lines.append("allow_anonymous true")
        else:
            passwords = folder / "passwords"
            for number, (user, password) in enumerate(users.items()):
                create = ["-c"] if number == 0 else []
                subprocess.run(
                    [MOSQUITTO_PASSWD, *create, "-b", str(passwords), user, password],
                    check=True,
                    capture_output=True,
                )
            (folder / "acl").write_text(acl)
            lines += [
                "allow_anonymous false",
                f"password_file {passwords}",
                f"acl_file {folder}/acl",
            ]
        self.config.write_text("\n".join([*lines, *extra]) + "\n")
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

    def save(self, timeout: float = 10) -> None:
        """Make the broker write its persistence file now (SIGUSR1) and wait until it has."""
        assert self.proc is not None
        before = self.database.stat().st_mtime_ns if self.database.exists() else 0
        self.proc.send_signal(signal.SIGUSR1)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.database.exists() and self.database.stat().st_mtime_ns != before:
                return  # mosquitto writes mosquitto.db.new, then renames it: this one is whole
            time.sleep(0.05)
        raise RuntimeError("mosquitto did not save its persistence file")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def close(self) -> None:
        self.kill()
