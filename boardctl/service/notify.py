"""systemd's notify protocol, READY=1, WATCHDOG=1, STATUS=..., STOPPING=1, written by hand and
never waiting for systemd (docs/service.md, 'systemd'); outside systemd every call does nothing.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping


class Notifier:
    """Send notify messages to systemd (a no-op when not run by systemd)."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        env = os.environ if env is None else env
        address = env.get("NOTIFY_SOCKET", "")
        self._address: str | bytes | None = None
        if address.startswith("@"):
            self._address = b"\0" + address[1:].encode()
        elif address.startswith("/"):
            self._address = address
        self._socket: socket.socket | None = None
        self._unsent: dict[str, str] = {}  # KEY -> value not yet delivered (socket was full)
        usec = env.get("WATCHDOG_USEC", "")
        pid = env.get("WATCHDOG_PID", "")
        watchdog = usec.isdigit() and int(usec) > 0 and (not pid or pid == str(os.getpid()))
        # systemd asks for pings well within WatchdogSec=; we send one every half of it.
        self.watchdog_interval: float | None = int(usec) / 2e6 if watchdog else None

    def send(self, *fields: str) -> bool:
        """Send ``KEY=value`` fields in one datagram, never waiting; False if not sent now
        (then they go with the next datagram)."""
        if self._address is None:
            return False
        for item in fields:
            key, _, value = item.partition("=")
            self._unsent.pop(key, None)  # re-inserted last: the newest value, in order
            self._unsent[key] = value
        message = "\n".join(f"{k}={v}" for k, v in self._unsent.items()).encode("utf-8", "replace")
        try:
            if self._socket is None:
                self._socket = socket.socket(
                    socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC | socket.SOCK_NONBLOCK
                )
            self._socket.sendto(message, self._address)
        except BlockingIOError:
            return False  # systemd is behind: keep the fields for the next datagram
        except OSError:
            self._unsent.clear()  # no listener (or gone): nothing to keep
            return False
        self._unsent.clear()
        return True

    def ready(self, status: str = "") -> bool:
        """Tell systemd the service is up (``READY=1``)."""
        return self.send("READY=1", *([f"STATUS={_line(status)}"] if status else []))

    def watchdog(self) -> bool:
        """Tell systemd the main loop is alive (``WATCHDOG=1``)."""
        return self.send("WATCHDOG=1")

    def status(self, text: str) -> bool:
        """A one-line status for ``systemctl status``."""
        return self.send(f"STATUS={_line(text)}")

    def stopping(self) -> bool:
        """Tell systemd the service is shutting down."""
        return self.send("STOPPING=1")

    def close(self) -> None:
        if self._socket is not None:
            self._socket.close()
            self._socket = None


def _line(text: str) -> str:
    return " ".join(text.split())
