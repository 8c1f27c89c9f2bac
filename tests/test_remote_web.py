"""The phone pages of two linked boards, in a real headless Chromium.

Two whole boards (tests/test_remote_e2e.py's ``TwoBoards``, a real mosquitto) and a
``boardctl web`` process for each, on its board's control socket: each page says the link in
words, the host's paired page shows the code the other board joins with, and the joined
board's page enters its own player's counts through the link into the host's game.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gpiozero.pins.mock import MockFactory
from playwright.sync_api import Browser, expect

from boardctl.remote import paired
from tests.test_remote_e2e import TwoBoards, wait_for
from tests.test_web_browser import WebProcess, front, open_page, pair


@dataclass
class Socket:
    """What :class:`WebProcess` needs of a service: its configuration and control socket."""

    config: Path
    socket: Path


def test_the_pages_say_the_link_the_host_shows_its_code_and_the_joined_page_enters_counts(
    browser: Browser, tmp_path: Path, mock_factory: MockFactory
) -> None:
    boards = TwoBoards(tmp_path, mock_factory)
    webs: dict[str, WebProcess] = {}
    try:
        wait_for(lambda: boards.keeper.guest.reachable and boards.keeper.guest.state is not None)
        wait_for(lambda: bool(boards.status("host")["remote"]["joined_online"]))
        for side in ("host", "joined"):
            folder = tmp_path / f"web-{side}"
            folder.mkdir()
            (folder / "config.toml").write_text("")
            service = Socket(folder / "config.toml", boards.folders[side] / "run" / "control.sock")
            webs[side] = WebProcess(folder, service)  # type: ignore[arg-type]
            webs[side].start()
        host = open_page(browser, webs["host"])
        words = host.locator("#link-words")
        expect(words).to_contain_text("hosted here, on the broker; the joined board online")
        expect(host.locator("#link-code")).to_be_hidden()  # the code: for a paired phone only
        pair(host, webs["host"])
        code = paired.Pairing("host", boards.secret).code
        expect(host.locator("#link-code")).to_have_text(
            f"the other board joins with: boardctl remote join {code}"
        )
        joined = open_page(browser, webs["joined"])
        expect(joined.locator("#link-words")).to_contain_text("joined, host reachable")
        expect(joined.locator("#link-code")).to_be_hidden()  # a joined board has no code
        pair(joined, webs["joined"])
        expect(joined.locator(".peg")).to_have_count(1)  # its own player's track only
        expect(host.locator(".peg")).to_have_count(2)
        joined.fill("#points-1", "6")
        joined.click(".peg button")  # track 2: the joined board's player
        wait_for(lambda: len(boards.sent()) == 1 and boards.keeper.guest.outbox.pending() == [])
        (rid,) = boards.sent()  # the page's request id, journalled once by the host
        assert boards.journalled(rid) == 1
        expect(front(joined, 1)).to_have_text("6")
        expect(front(host, 1)).to_have_text("6")
        boards.broker.kill()
        expect(joined.locator("#link-words")).to_contain_text("LINK LOST (cannot reach the broker)")
        expect(joined.locator("#link")).to_have_class("note bad")
    finally:
        for web in webs.values():
            web.close()
        boards.close()
