"""Slow and greedy clients do not take the page down; a stranger's guesses do not void a code.

A real ``boardctl web`` (with a real service on mock pins behind it) is attacked
over real TCP: half-sent requests held open, from other loopback addresses
(127.0.0.2, ...: Linux routes all of 127/8 to the machine, so the server sees
each as a client address of its own), while Chromium loads the page from
127.0.0.1. With a low file limit the server runs out of descriptors: it logs
one line per episode and recovers by itself once the half-sent requests time
out.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import resource
import select
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.test_web_browser import BoardService, WebProcess, open_page, serving

FD_LINE = "out of file descriptors"


class GuardedWeb(WebProcess):
    """``boardctl web`` with extra ``[web]`` keys, an optional file limit and its log read live."""

    def __init__(self, tmp: Path, service: BoardService, extra: str, nofile: int = 0) -> None:
        super().__init__(tmp, service)
        self.web_config.write_text(self.web_config.read_text() + extra)
        self.nofile = nofile
        self.lines: list[str] = []
        self._reader: threading.Thread | None = None
        self.text_proc: subprocess.Popen[str] | None = None

    def _limit(self) -> None:
        if self.nofile:
            resource.setrlimit(resource.RLIMIT_NOFILE, (self.nofile, self.nofile))

    def start(self) -> None:
        command = [sys.executable, "-m", "boardctl", "web", "serve", *self._options()]
        self.text_proc = subprocess.Popen(
            command, env=self._env(), stderr=subprocess.PIPE, text=True, preexec_fn=self._limit
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(self.url + "/api/state", timeout=1).read()
                return
            except OSError:
                assert self.text_proc.poll() is None, self.lines
                time.sleep(0.05)
        raise AssertionError("boardctl web did not start")

    def _read(self) -> None:
        assert self.text_proc is not None and self.text_proc.stderr is not None
        for line in self.text_proc.stderr:
            self.lines.append(line)

    def wait_for_line(self, text: str, count: int, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while sum(text in line for line in self.lines) < count:
            assert time.monotonic() < deadline, f"no {count}x {text!r} in {self.lines[-20:]}"
            time.sleep(0.05)

    def close(self) -> None:
        if self.text_proc is None:
            return
        self.text_proc.terminate()
        code = self.text_proc.wait(10)
        if self._reader is not None:
            self._reader.join(10)
        assert self.text_proc.stderr is not None
        self.text_proc.stderr.close()
        self.stderr = "".join(self.lines)
        assert code == 0, self.stderr


def guarded_board(
    tmp_path: Path, extra: str = "", nofile: int = 0
) -> Iterator[tuple[BoardService, GuardedWeb]]:
    service = BoardService(tmp_path)
    with serving(service, GuardedWeb(tmp_path, service, extra, nofile)) as pair:
        yield pair


def half_open(web: WebProcess, address: str, n: int) -> list[socket.socket]:
    """``n`` connections from ``address``, each with half a request's headers sent."""
    socks = []
    for _ in range(n):
        s = socket.socket()
        s.bind((address, 0))
        s.connect(("127.0.0.1", web.port))
        with contextlib.suppress(OSError):  # refused at once: the server closed it already
            s.sendall(f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{web.port}\r\nX-Slow: ".encode())
        socks.append(s)
    return socks


def closed_by_server(s: socket.socket) -> bool:
    """Whether the server has closed ``s`` (end of stream or reset); never blocks."""
    readable, _, _ = select.select([s], [], [], 0)
    if not readable:
        return False
    try:
        return s.recv(4096) == b""
    except OSError:
        return True


def wait_closed(socks: list[socket.socket], count: int, timeout: float) -> None:
    """Wait until at least ``count`` of ``socks`` are closed by the server."""
    closed: set[int] = set()
    deadline = time.monotonic() + timeout
    while len(closed) < count:
        assert time.monotonic() < deadline, f"{len(closed)} of {count} closed"
        for i, s in enumerate(socks):
            if i not in closed and closed_by_server(s):
                closed.add(i)
        time.sleep(0.02)


def still_open(socks: list[socket.socket]) -> int:
    return sum(not closed_by_server(s) for s in socks)


@pytest.fixture
def guarded(tmp_path: Path) -> Iterator[tuple[BoardService, GuardedWeb]]:
    yield from guarded_board(tmp_path, "connections_per_address = 8\n")


def test_half_sent_requests_from_one_address_leave_the_page_to_everyone_else(
    browser: Browser, guarded: tuple[BoardService, GuardedWeb]
) -> None:
    _, web = guarded
    flood = half_open(web, "127.0.0.2", 24)
    try:
        wait_closed(flood, 16, timeout=8)  # over the cap of 8: refused at once
        assert still_open(flood) == 8  # the cap, waiting for their headers (10 s by default)
        web.wait_for_line("127.0.0.2 holds 8 connections", 1)
        page = open_page(browser, web)  # 127.0.0.1 loads the page meanwhile
        expect(page.locator("#conn")).to_have_text("live")
        page.close()
        wait_closed(flood, 24, timeout=40)  # and the held ones end by themselves
    finally:
        for s in flood:
            s.close()
    assert sum("holds 8 connections" in line for line in web.lines) == 1
    assert not any("Traceback" in line for line in web.lines)


def test_running_out_of_file_descriptors_is_one_log_line_per_episode(tmp_path: Path) -> None:
    for service, web in guarded_board(tmp_path, "header_timeout = 3\n", nofile=64):
        del service
        for episode in (1, 2):
            flood = []
            try:
                for n in range(2, 6):  # four addresses, each under its cap of 32
                    flood += half_open(web, f"127.0.0.{n}", 25)
                web.wait_for_line(FD_LINE, episode)
                wait_closed(flood, len(flood), timeout=60)  # the server recovers by itself
            finally:
                for s in flood:
                    s.close()
            reply = urllib.request.urlopen(web.url + "/api/state", timeout=10)
            assert reply.status == 200 and "status" in json.loads(reply.read())
            assert sum(FD_LINE in line for line in web.lines) == episode, web.lines
            time.sleep(2 * 3 + 1 + 0.5)  # the quiet time that ends an episode (gate.py)
        assert sum(FD_LINE in line for line in web.lines) == 2, web.lines
        assert not any("Traceback" in line for line in web.lines), web.lines


def guess(web: WebProcess, code: str, source: str) -> tuple[int, str]:
    """A pairing guess over HTTP from the address ``source``."""
    host = f"127.0.0.1:{web.port}"
    conn = http.client.HTTPConnection("127.0.0.1", web.port, timeout=10, source_address=(source, 0))
    try:
        conn.request(
            "POST",
            "/api/pair",
            body=json.dumps({"code": code}),
            headers={"Host": host, "Origin": f"http://{host}", "Content-Type": "application/json"},
        )
        response = conn.getresponse()
        return response.status, str(json.loads(response.read()).get("error", ""))
    finally:
        conn.close()


def test_a_strangers_wrong_guesses_do_not_void_the_code_for_the_players_phone(
    browser: Browser, guarded: tuple[BoardService, GuardedWeb]
) -> None:
    _, web = guarded
    code = web.pair_code()
    wrong = "000000" if code != "000000" else "111111"
    for _ in range(5):
        status, error = guess(web, wrong, "127.0.0.2")
        assert status == 403 and "wrong code" in error
    status, error = guess(web, code, "127.0.0.2")  # even the right code: not checked from there
    assert status == 403 and "too many wrong codes from this address" in error
    page = open_page(browser, web)  # the player's phone, from 127.0.0.1
    page.fill("#code", code)
    page.click("#pair-form button[type=submit]")
    expect(page.locator("#paired")).to_be_visible()
    expect(page.locator("[data-op=undo]")).to_be_enabled()
    page.close()


def test_a_half_sent_body_is_answered_408_and_closed(tmp_path: Path) -> None:
    for _, web in guarded_board(tmp_path, "header_timeout = 2\n"):
        s = socket.create_connection(("127.0.0.1", web.port), timeout=30)
        host = f"127.0.0.1:{web.port}"
        head = (
            f"POST /api/pair HTTP/1.1\r\nHost: {host}\r\nOrigin: http://{host}\r\n"
            "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n"
        )
        s.sendall(head.encode() + b'{"code": ')  # the headers, and a tenth of the body
        answer = b""
        while chunk := s.recv(4096):  # the server answers, then closes
            answer += chunk
        s.close()
        assert answer.startswith(b"HTTP/1.1 408"), answer
        assert b"did not arrive within 2 s" in answer


def test_a_kept_alive_connection_that_sends_half_a_second_request_is_closed(
    tmp_path: Path,
) -> None:
    for _, web in guarded_board(tmp_path, "header_timeout = 2\nidle_timeout = 2\n"):
        s = socket.create_connection(("127.0.0.1", web.port), timeout=30)
        host = f"127.0.0.1:{web.port}"
        s.sendall(f"GET /api/state HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
        first = s.recv(65536)
        assert first.startswith(b"HTTP/1.1 200"), first
        s.sendall(f"GET /api/state HTTP/1.1\r\nHost: {host}\r\nX-Slow: ".encode())
        rest = b""
        while chunk := s.recv(65536):  # the rest of the first reply, then the server closes
            rest += chunk
        s.close()
        assert b"HTTP/1.1 200" not in rest  # the half-sent second request was never answered
