"""sd_notify over a real datagram socket, as systemd listens."""

from __future__ import annotations

import os
import socket
from pathlib import Path

from boardctl.service.notify import Notifier


def listener(tmp_path: Path) -> tuple[socket.socket, str]:
    path = str(tmp_path / "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(2)
    return sock, path


def test_ready_status_watchdog_and_stopping_arrive_as_datagrams(tmp_path: Path) -> None:
    sock, path = listener(tmp_path)
    notifier = Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "10000000"})
    assert notifier.enabled
    assert notifier.watchdog_interval == 5.0
    assert notifier.ready("Ann 3 · Bob 0")
    assert sock.recv(4096) == "READY=1\nSTATUS=Ann 3 · Bob 0".encode()
    assert notifier.watchdog()
    assert sock.recv(4096) == b"WATCHDOG=1"
    assert notifier.status("two\nlines")
    assert sock.recv(4096) == b"STATUS=two lines"
    assert notifier.stopping()
    assert sock.recv(4096) == b"STOPPING=1"
    notifier.close()
    sock.close()


def test_abstract_socket_names_are_supported() -> None:
    name = f"boardctl-test-{os.getpid()}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(b"\0" + name.encode())
    sock.settimeout(2)
    notifier = Notifier({"NOTIFY_SOCKET": "@" + name})
    assert notifier.ready()
    assert sock.recv(100) == b"READY=1"
    sock.close()


def test_without_systemd_nothing_is_sent_and_nothing_fails() -> None:
    notifier = Notifier({})
    assert not notifier.enabled
    assert notifier.watchdog_interval is None
    assert not notifier.ready()
    assert not notifier.watchdog()


def test_a_vanished_socket_does_not_raise(tmp_path: Path) -> None:
    notifier = Notifier({"NOTIFY_SOCKET": str(tmp_path / "gone")})
    assert notifier.send("READY=1") is False


def test_watchdog_for_another_pid_is_ignored() -> None:
    env = {"WATCHDOG_USEC": "4000000", "WATCHDOG_PID": str(os.getpid() + 1)}
    assert Notifier(env).watchdog_interval is None
    env["WATCHDOG_PID"] = str(os.getpid())
    assert Notifier(env).watchdog_interval == 2.0
