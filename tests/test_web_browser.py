"""The phone page in a real headless Chromium, against a real service on mock pins.

``boardctl run --display none`` (mock pins, null link) and ``boardctl web`` run
as subprocesses; Playwright drives Debian's ``chromium`` (``executable_path``,
no browser download). The page follows the service's ``watch`` stream (the
polling fallback, for a service without it, is tested in test_web_source.py).

Screenshots go to ``$BOARDCTL_ARTEFACTS`` (default ``build/artefacts``), and
to ``docs/images/`` when ``BOARDCTL_DOCS_IMAGES=1``.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.test_e2e_process import Service

REPO = Path(__file__).resolve().parent.parent
ARTEFACTS = Path(os.environ.get("BOARDCTL_ARTEFACTS", REPO / "build" / "artefacts"))


class BoardService(Service):
    """The service, its systemd notify messages drained (a full notify socket would block it)."""

    _drain: threading.Thread | None = None
    _halt = False

    def start(self) -> float:
        self._stop_draining()
        took = super().start()
        self._halt = False
        self._drain = threading.Thread(target=self._drain_notify, daemon=True)
        self._drain.start()
        return took

    def _drain_notify(self) -> None:
        self.notify.settimeout(0.05)
        while not self._halt:
            try:
                self.notify.recv(4096)
            except TimeoutError:
                continue
            except OSError:
                return

    def _stop_draining(self) -> None:
        if self._drain is not None:
            self._halt = True
            self._drain.join()
            self._drain = None
        self.notify.settimeout(10)

    def close(self) -> None:
        self._stop_draining()
        super().close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class WebProcess:
    """``boardctl web`` on 127.0.0.1 and a free port, its tokens in ``tmp/web``."""

    def __init__(self, tmp: Path, service: Service) -> None:
        self.port = free_port()
        self.state = tmp / "web"
        self.service = service
        self.web_config = tmp / "web.toml"
        self.web_config.write_text(f"[web]\nport = {self.port}\npoll_interval = 0.05\n")
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = f"http://127.0.0.1:{self.port}"

    def cli(self, *args: str) -> str:
        command = [sys.executable, "-m", "boardctl", "web", *args, *self._options()]
        done = subprocess.run(command, capture_output=True, text=True, check=True, env=self._env())
        return done.stdout

    def _options(self) -> list[str]:
        return [
            "--web-config",
            str(self.web_config),
            "--config",
            str(self.service.config),
            "--socket",
            str(self.service.socket),
            "--state",
            str(self.state),
        ]

    def _env(self) -> dict[str, str]:
        return {**os.environ, "PYTHONPATH": str(REPO), "PYTHONFAULTHANDLER": "1"}

    def start(self) -> None:
        command = [sys.executable, "-m", "boardctl", "web", "serve", *self._options()]
        self.proc = subprocess.Popen(command, env=self._env(), stderr=subprocess.PIPE)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(self.url + "/api/state", timeout=1).read()
                return
            except OSError:
                assert self.proc.poll() is None, self.proc.stderr and self.proc.stderr.read()
                time.sleep(0.05)
        raise AssertionError("boardctl web did not start")

    def pair_code(self) -> str:
        out = self.cli("pair")
        return out.split("pairing code: ", 1)[1].split()[0]

    def post(self, path: str, body: Any, headers: dict[str, str]) -> tuple[int, dict[str, Any]]:
        request = urllib.request.Request(
            self.url + path,
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json", **headers},
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=5) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())

    def close(self) -> None:
        if self.proc is None:
            return
        self.proc.terminate()
        try:
            code = self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.send_signal(6)  # faulthandler prints where it hangs
            self.proc.wait(10)
            assert self.proc.stderr is not None
            where = self.proc.stderr.read().decode()[-4000:]
            raise AssertionError(f"boardctl web did not stop on SIGTERM: {where}") from None
        finally:
            if self.proc.stderr is not None:
                self.stderr = self.proc.stderr.read().decode()
                self.proc.stderr.close()
        assert code == 0, self.stderr


S = TypeVar("S", bound=Service)
W = TypeVar("W", bound=WebProcess)


@contextlib.contextmanager
def serving(service: S, web: W) -> Iterator[tuple[S, W]]:
    """Start the board's service, then its page server; close both afterwards."""
    try:
        service.start()
        web.start()
        yield service, web
    finally:
        web.close()
        service.close()


@pytest.fixture
def board(tmp_path: Path) -> Iterator[tuple[Service, WebProcess]]:
    service = BoardService(tmp_path)
    with serving(service, WebProcess(tmp_path, service)) as pair:
        yield pair


def open_page(browser: Browser, web: WebProcess, width: int = 390, height: int = 844) -> Page:
    page = browser.new_page(viewport={"width": width, "height": height})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(web.url + "/")
    expect(page.locator("#board circle").first).to_be_attached()
    expect(page.locator("#conn")).to_have_text("live")  # the service streams: watch, not polling
    assert not errors, errors
    return page


def front(page: Page, track: int) -> Any:
    return page.locator(".track .front").nth(track)


def pair(page: Page, web: WebProcess) -> None:
    page.fill("#code", web.pair_code())
    page.click("#pair-form button[type=submit]")
    expect(page.locator("#paired")).to_be_visible()
    expect(page.locator("[data-op=undo]")).to_be_enabled()


def test_a_press_on_the_buttons_shows_on_the_page(
    browser: Browser, board: tuple[Service, WebProcess]
) -> None:
    service, web = board
    page = open_page(browser, web)
    service.press("track2.plus1")  # the cut: track 2 deals
    expect(page.locator(".track.dealer .name")).to_contain_text("Track 2")
    service.enter(1, 6)
    expect(front(page, 0)).to_have_text("6")
    assert service.ask("status")["tracks"][0]["front"] == 6
    lit = page.locator("#board circle.lit")
    expect(lit.first).to_be_attached()  # the LEDs' pegs, drawn from the frame
    page.close()


def test_an_unpaired_page_cannot_change_anything(
    browser: Browser, board: tuple[Service, WebProcess]
) -> None:
    service, web = board
    page = open_page(browser, web)
    before = service.ask("status")
    for selector in ("[data-op=undo]", "[data-op=next]", "[data-set=names]", "#new-game"):
        expect(page.locator(selector)).to_be_disabled()
    expect(page.locator("[data-cut='0']")).to_be_disabled()
    expect(page.locator("#readonly")).to_be_visible()
    # a request forged from the page itself (no token) and from outside (wrong origin)
    reply = page.evaluate(
        """async () => {
            const r = await fetch('/api/command', {method: 'POST',
              headers: {'Content-Type': 'application/json'},
              body: JSON.stringify({op: 'set', key: 'names', value: ['Mallory', 'Eve']})});
            return [r.status, await r.json()];
        }"""
    )
    assert reply[0] == 401 and "not paired" in reply[1]["error"]
    code, _ = web.post(
        "/api/command",
        {"op": "new_game"},
        {"Origin": "http://evil.example", "X-Board-Token": "guess"},
    )
    assert code == 403
    code, _ = web.post("/api/command", {"op": "new_game"}, {"Origin": web.url})
    assert code == 401
    after = service.ask("status")
    assert after["seq"] == before["seq"] and after["tracks"] == before["tracks"]
    page.close()


def test_pairing_then_names_set_on_the_page_reach_the_service_and_unpair_revokes(
    browser: Browser, board: tuple[Service, WebProcess]
) -> None:
    service, web = board
    page = open_page(browser, web)
    pair(page, web)
    page.click("#settings-box summary")
    page.fill("#name-0", "Ann")
    page.fill("#name-1", "Bob")
    page.click("[data-set=names]")
    expect(page.locator(".track .name").first).to_have_text("Ann")
    assert [t["name"] for t in service.ask("status")["tracks"]] == ["Ann", "Bob"]

    page.select_option("#preset", "casual")
    page.click("[data-set=preset]")
    page.fill("#brightness", "40")
    page.click("[data-set=brightness]")
    deadline = time.monotonic() + 30  # each tap is its own request: wait for both to land
    while (status := service.ask("status"))["preset"] != "casual" or status["brightness"] != 40:
        assert time.monotonic() < deadline, status
        time.sleep(0.05)

    page.click("[data-cut='0']")  # the cut: Ann deals
    expect(page.locator(".track.dealer .name")).to_contain_text("Ann")
    page.fill("#points-0", "40")  # a refused entry shows the engine's reason
    page.click(".peg button >> nth=0")
    expect(page.locator("#refusal")).to_contain_text("1-15 points, not 40")

    assert "revoked 1 phone" in web.cli("unpair")
    seq = service.ask("status")["seq"]
    page.click("[data-op=undo]")  # still enabled until the page hears of it
    expect(page.locator("[data-op=undo]")).to_be_disabled()
    expect(page.locator("#pair-form")).to_be_visible()
    assert service.ask("status")["seq"] == seq  # the undo never reached the service
    page.close()


def test_the_page_survives_a_service_restart(
    browser: Browser, board: tuple[Service, WebProcess]
) -> None:
    service, web = board
    page = open_page(browser, web)
    service.press("track1.plus1")  # the cut: track 1 deals
    expect(page.locator(".track.dealer .name")).to_contain_text("Track 1")
    service.enter(2, 9)
    expect(front(page, 1)).to_have_text("9")
    service.kill(9)
    expect(page.locator("#conn")).to_contain_text("not running")
    service.start()
    expect(page.locator("#conn")).to_have_text("live")  # the service streams: watch, not polling
    service.enter(2, 3)
    expect(front(page, 1)).to_have_text("12")
    page.close()


def test_screenshots_at_phone_and_desktop_widths(
    browser: Browser, board: tuple[Service, WebProcess]
) -> None:
    service, web = board
    service.ask("set", key="names", value=["Alice", "Bob"])
    service.ask("cut", dealer=1)  # Bob deals
    for track, points in ((0, 2), (1, 3), (0, 1), (1, 2), (0, 2)):  # the play
        service.ask("peg", track=track, points=points)
    service.ask("next")  # the show: Alice counts first
    service.ask("peg", track=0, points=12)
    service.ask("peg", track=1, points=8)
    expected = str(service.ask("status")["tracks"][1]["front"])
    shots = {"phone": (390, 844), "desktop": (1280, 900)}
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    for name, (width, height) in shots.items():
        page = open_page(browser, web, width, height)
        expect(front(page, 1)).to_have_text(expected)
        pair(page, web)
        page.click("#history-box summary")
        expect(page.locator("#history li").first).to_be_attached()
        page.click("#tools summary")  # the hand scorer: tap four cards and the starter
        for card in ("5H", "5C", "5S", "JD", "5D"):
            page.click(f"[data-card='{card}']")
        page.click("#count-btn")
        expect(page.locator("#tool-out .said")).to_contain_text("twenty-nine")
        path = ARTEFACTS / f"web-{name}.png"
        page.screenshot(path=str(path), full_page=True)
        assert path.stat().st_size > 10_000
        if os.environ.get("BOARDCTL_DOCS_IMAGES") == "1":
            shutil.copy(path, REPO / "docs" / "images" / f"web-{name}.png")
        page.close()


def test_the_page_reconnects_after_a_restart_of_the_web_process(
    browser: Browser, board: tuple[Service, WebProcess]
) -> None:
    service, web = board
    page = open_page(browser, web)
    service.ask("cut", dealer=0)
    service.ask("peg", track=0, points=2)
    expect(front(page, 0)).to_have_text("2")
    web.close()
    expect(page.locator("#conn")).to_contain_text("reconnecting")
    service.ask("peg", track=1, points=3)  # while the page's server is away
    web.start()
    expect(page.locator("#conn")).to_have_text("live")  # the service streams: watch, not polling
    expect(front(page, 1)).to_have_text("3")
    page.close()


def test_the_card_tools_count_a_hand_and_rank_discards(
    browser: Browser, board: tuple[Service, WebProcess]
) -> None:
    _, web = board
    page = open_page(browser, web)
    page.click("#tools summary")
    for card in ("5H", "JH", "6C", "7D", "KS", "2C"):
        page.click(f"[data-card='{card}']")
    expect(page.locator("#chosen")).to_have_text("5H JH 6C 7D KS 2C")
    page.click("#discard-btn")
    rows = page.locator("#tool-out tr")
    expect(rows).to_have_count(7)  # a header and the six best of the 15 discards
    expect(rows.nth(1).locator("td").first).to_have_text("JH KS")  # as boardctl discard --dealer
    page.click("#clear-btn")
    for card in ("5H", "5C"):
        page.click(f"[data-card='{card}']")
    page.click("#count-btn")
    expect(page.locator("#tool-out .error")).to_contain_text("got 2 cards")
    page.close()


def test_the_cut_cards_entered_on_the_page_choose_the_dealer(
    browser: Browser, board: tuple[Service, WebProcess]
) -> None:
    service, web = board
    page = open_page(browser, web)
    pair(page, web)
    page.fill("#cut-cards", "3H 3S")  # a tie for the lowest
    page.click("#pegs form button[type=submit]")
    expect(page.locator("#refusal")).to_contain_text("cut again")
    assert service.ask("status")["phase"] == "cut"
    page.fill("#cut-cards", "QH 3S")
    page.click("#pegs form button[type=submit]")
    expect(page.locator(".track.dealer .name")).to_contain_text("Track 2")
    assert service.ask("status")["dealer_seat"] == 1
    page.close()
