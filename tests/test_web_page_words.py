"""What the phone page says, where a player looks: in headless Chromium on a 390x844 phone.

A refusal shows beside the control that caused it, in view; the pairing label
reads as one line of words; the board's question (its white start hole) is
shown in words with a button for each answer, and the answer is a ``refile``
command carrying the request id the page made for that tap.
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.test_web_browser import (
    ARTEFACTS,
    REPO,
    BoardService,
    WebProcess,
    open_page,
    pair,
    serving,
)

PHONE = {"width": 390, "height": 844}


@pytest.fixture
def board(tmp_path: Path) -> Iterator[tuple[BoardService, WebProcess]]:
    service = BoardService(tmp_path)
    with serving(service, WebProcess(tmp_path, service)) as pair:
        yield pair


def keep_picture(page: Page, selector: str, name: str) -> None:
    """A picture of one part of the page (``docs/images/`` too with BOARDCTL_DOCS_IMAGES=1)."""
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTEFACTS / name
    page.locator(selector).screenshot(path=str(path))
    assert path.stat().st_size > 2_000
    if os.environ.get("BOARDCTL_DOCS_IMAGES") == "1":
        shutil.copy(path, REPO / "docs" / "images" / name)


def journal_requests(service: BoardService) -> dict[int, str | None]:
    """Each event's request id, read from the journal (read-only) as the service wrote it."""
    with sqlite3.connect(f"file:{service.journal}?mode=ro", uri=True) as db:
        return dict(db.execute("SELECT seq, request FROM events"))


def test_a_refusal_shows_beside_the_control_in_view_on_a_phone(
    browser: Browser, board: tuple[BoardService, WebProcess]
) -> None:
    service, web = board
    service.ask("cut", dealer=1)
    page = open_page(browser, web, **PHONE)
    pair(page, web)
    go = page.locator(".peg button").first
    go.evaluate("b => b.scrollIntoView({block: 'start'})")  # the score above is out of view
    page.fill("#points-0", "40")
    go.click()
    notice = page.locator("#notice")
    expect(notice).to_contain_text("1-15 points, not 40")
    box, control = notice.bounding_box(), go.bounding_box()
    assert box is not None and control is not None
    assert box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"], box
    assert abs(box["y"] - (control["y"] + control["height"])) < 120, (box, control)
    expect(page.locator("#refusal")).to_contain_text("not 40")  # every page's last refusal,
    above = page.locator("#refusal").bounding_box()  # up with the score: out of view here
    assert above is not None and above["y"] + above["height"] < 0, above
    assert service.ask("status")["tracks"][0]["front"] == 0  # nothing was written
    keep_picture(page, "#entry", "web-refusal.png")
    page.close()


def test_the_pairing_label_reads_as_words_on_one_line(
    browser: Browser, board: tuple[BoardService, WebProcess]
) -> None:
    _, web = board
    page = open_page(browser, web, **PHONE)
    label = page.locator("label[for=code]")
    assert label.inner_text() == "Code from boardctl web pair"
    code = page.locator("label[for=code] code").bounding_box()
    words = label.bounding_box()
    assert code is not None and words is not None
    assert code["height"] > words["height"] / 2  # one line: the command is not broken up
    page.close()


def test_the_boards_question_is_shown_in_words_and_answered_with_a_button(
    browser: Browser, board: tuple[BoardService, WebProcess]
) -> None:
    service, web = board
    service.ask("set", key="names", value=["Ann", "Bob"])
    service.ask("cut", dealer=1)  # Bob deals
    service.ask("peg", track=1, points=2)  # his heels, or a forgotten menu press?
    assert service.ask("status")["ask"] == {
        "track": 1,
        "points": 2,
        "kind": "heels",
        "other": "pegging",
    }
    page = open_page(browser, web, **PHONE)
    question = page.locator("#ask-text")
    expect(question).to_contain_text("The board asks: is Bob's 2 heels or pegging?")
    answers = page.locator("#ask-buttons button")
    expect(answers).to_have_text(["It is pegging", "Keep it as heels"])
    expect(answers.first).to_be_disabled()  # unpaired: read-only
    pair(page, web)
    keep_picture(page, "#entry", "web-ask.png")
    seq = service.ask("status")["seq"]
    answers.first.click()
    expect(page.locator("#ask")).to_be_hidden()
    expect(page.locator("#notice")).to_contain_text("Recorded by the board")
    status = service.ask("status")
    assert status["ask"] is None and status["phase"] == "play" and status["seq"] == seq + 1
    rows = service.ask("history")
    assert rows[-1]["event"] == {"op": "refile", "kind": "pegging", "track": 1, "points": 2}
    request = journal_requests(service)[seq + 1]
    assert request is not None and re.fullmatch("[0-9a-f]{32}", request)  # made on the page
    page.close()


def test_keeping_the_entry_as_filed_ends_the_question(
    browser: Browser, board: tuple[BoardService, WebProcess]
) -> None:
    service, web = board
    service.ask("cut", dealer=1)
    service.ask("peg", track=1, points=2)
    page = open_page(browser, web, **PHONE)
    pair(page, web)
    page.locator("#ask-buttons button", has_text="Keep it as heels").click()
    expect(page.locator("#ask")).to_be_hidden()
    status = service.ask("status")
    assert status["ask"] is None and status["phase"] == "deal"  # still his heels
    page.close()
