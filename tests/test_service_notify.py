"""sd_notify over a real datagram socket, as systemd listens."""

from __future__ import annotations

import os
import socket
import threading
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


def test_an_unread_notify_socket_never_blocks_the_sender(tmp_path: Path) -> None:
    """systemd busy (or stuck): the datagrams queue up, and the loop must not wait for it."""
    sock, path = listener(tmp_path)  # bound, never read
    notifier = Notifier({"NOTIFY_SOCKET": path})
    done = threading.Event()

    def flood() -> None:
        for i in range(200):  # far more than the socket's queue (max_dgram_qlen, 10)
            notifier.status(f"Ann {i}")
        done.set()

    threading.Thread(target=flood, daemon=True).start()
    assert done.wait(5), "Notifier.status blocked on a full notify socket"
    sock.close()


def test_fields_not_sent_on_a_full_socket_go_with_the_next_datagram(tmp_path: Path) -> None:
    sock, path = listener(tmp_path)
    notifier = Notifier({"NOTIFY_SOCKET": path})
    sent = [notifier.status(f"n {i}") for i in range(50)]
    assert not all(sent)  # the queue filled up
    assert notifier.ready("up") is False  # still full: READY=1 is kept until it can go
    while True:  # systemd catches up
        sock.settimeout(0.2)
        try:
            sock.recv(4096)
        except TimeoutError:
            break
    assert notifier.watchdog()
    last = sock.recv(4096).decode().split("\n")
    assert "READY=1" in last and "STATUS=up" in last and "WATCHDOG=1" in last
    notifier.close()
    sock.close()
