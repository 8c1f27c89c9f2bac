"""A tap on the phone page is one entry: one request id, retried until confirmed, applied once.

A real ``boardctl run`` on mock pins, a real ``boardctl web`` and headless
Chromium (the fixtures of test_web_browser.py). The service is stopped with
SIGSTOP while a tap is on its way: longer than the web server's wait for a
reply (5 s) and longer than both its tries (10 s). The page and the server
send the tap again, always with the request id the page made for it; after
SIGCONT the journal holds exactly one peg and the page shows it once.
"""

from __future__ import annotations

import json
import os
import re
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.test_web_browser import BoardService, WebProcess, front, open_page, pair, serving
from tests.test_web_page_words import journal_requests


@pytest.fixture
def board(tmp_path: Path) -> Iterator[tuple[BoardService, WebProcess]]:
    service = BoardService(tmp_path)
    with serving(service, WebProcess(tmp_path, service)) as pair:
        yield pair


def pegs_after(service: BoardService, seq: int) -> list[dict[str, Any]]:
    rows = service.ask("history")
    return [row for row in rows if row["seq"] > seq and row["op"] == "peg"]


def ready_to_peg(browser: Browser, service: BoardService, web: WebProcess) -> Page:
    service.ask("set", key="names", value=["Ann", "Bob"])
    service.ask("cut", dealer=1)  # Bob deals: the play
    page = open_page(browser, web)
    pair(page, web)
    expect(page.locator("#points-0")).to_be_visible()
    page.fill("#points-0", "2")
    return page


@pytest.mark.parametrize("stall", [6.0, 12.0])
def test_one_tap_while_the_service_is_stopped_is_counted_once(
    browser: Browser, board: tuple[BoardService, WebProcess], stall: float
) -> None:
    service, web = board
    assert service.proc is not None
    page = ready_to_peg(browser, service, web)
    sent: list[dict[str, Any]] = []  # every try the page makes, as it went out
    page.on(
        "request",
        lambda r: sent.append(json.loads(r.post_data or "{}")) if "/api/command" in r.url else None,
    )
    seq = service.ask("status")["seq"]
    os.kill(service.proc.pid, signal.SIGSTOP)
    stopped = time.monotonic()
    try:
        page.click(".peg button >> nth=0")
        if stall > 10:  # past both of the server's tries: the page hears "not confirmed"
            expect(page.locator("#notice")).to_contain_text("Not confirmed yet", timeout=30_000)
            expect(page.locator("#notice")).to_contain_text("same request id")
        time.sleep(max(0.0, stall - (time.monotonic() - stopped)))  # the fault itself
    finally:
        os.kill(service.proc.pid, signal.SIGCONT)
    expect(page.locator("#notice")).to_contain_text("Recorded by the board", timeout=30_000)
    expect(front(page, 0)).to_have_text("2")
    pegs = pegs_after(service, seq)
    assert [p["event"]["points"] for p in pegs] == [2], pegs
    assert service.ask("status")["tracks"][0]["front"] == 2
    page.click("#history-box summary")
    rows = page.locator("#history li")
    expect(rows.first).to_be_attached()
    texts = rows.all_inner_texts()
    assert sum("Ann" in t and "2" in t for t in texts if "peg" in t.lower()) == 1, texts
    expect(front(page, 0)).to_have_text("2")  # still once, after the page's last try
    ids = {body["request_id"] for body in sent}
    assert len(ids) == 1 and re.fullmatch("[0-9a-f]{32}", next(iter(ids))), sent
    if stall > 10:
        assert len(sent) >= 2  # the page asked again after "not confirmed", with the same id
    assert journal_requests(service)[pegs[0]["seq"]] in ids  # the journal keeps the page's id
    page.close()


def test_the_server_refuses_a_write_without_a_request_id(
    board: tuple[BoardService, WebProcess],
) -> None:
    service, web = board
    code = web.pair_code()
    status, reply = web.post("/api/pair", {"code": code}, {"Origin": web.url})
    assert status == 200
    headers = {"Origin": web.url, "X-Board-Token": reply["token"]}
    seq = service.ask("status")["seq"]
    status, reply = web.post("/api/command", {"op": "cut", "dealer": 0}, headers)
    assert status == 400 and "request_id" in reply["error"]
    assert service.ask("status")["seq"] == seq  # nothing reached the service
    body = {"op": "cut", "dealer": 0, "request_id": "tap-0123456789abcdef"}
    first = web.post("/api/command", body, headers)
    again = web.post("/api/command", body, headers)  # the page's retry: the same id
    assert first[0] == again[0] == 200 and first[1]["confirmed"] and again[1]["repeated"]
    assert service.ask("status")["seq"] == seq + 1
