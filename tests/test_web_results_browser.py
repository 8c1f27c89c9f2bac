"""Results, player records, the rule set and the live standings page, in a real Chromium.

A real ``boardctl run`` (mock pins) with its ``boardctl mqtt`` bridge and a real
mosquitto (tests/mqtt_broker.py); ``boardctl web`` with ``results = "mqtt"``
follows the broker's results as ``boardctl standings`` does. Games are played
through the board's buttons (the control socket's ``press``), so every result
on the pages came from the journal through the bridge and the broker.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from boardctl.results.records import records_of_results
from boardctl.results.source import load_games
from boardctl.standings import keyring
from boardctl.standings.games import from_record
from boardctl.standings.report import report
from tests.mqtt_broker import Broker, have_mosquitto
from tests.test_mqtt_e2e import Board, env, publish
from tests.test_web_browser import ARTEFACTS, REPO, BoardService, WebProcess

pytestmark = pytest.mark.slow


class ResultsBoard(Board):
    """A board whose service drains its notify socket (the page's tests' service)."""

    def __init__(self, folder: Path, number: int, broker: Broker) -> None:
        super().__init__(folder, number, broker)
        self.broker = broker
        config = self.service.config.read_text()
        self.service.notify.close()
        self.service.notify_path.unlink()
        self.service = BoardService(folder)
        self.service.config.write_text(config)


@pytest.fixture
def club(tmp_path: Path) -> Iterator[tuple[ResultsBoard, WebProcess]]:
    assert have_mosquitto(), "these tests need mosquitto (apt-get install mosquitto)"
    broker = Broker(tmp_path / "broker")
    broker.start()
    board = ResultsBoard(tmp_path / "board", 1, broker)
    web = WebProcess(tmp_path, board.service)
    keys = board.service.journal.parent / "board-keys.json"
    keyring.add(keys, board.id, board.key)  # the director's copy of the board's key
    web.web_config.write_text(
        f'[web]\nport = {web.port}\nresults = "mqtt"\n[standings]\nby = "entrant"\n'
        f'keyring = "{keys}"\n'
    )
    try:
        board.service.start()
        board.start_bridge()
        web.start()
        yield board, web
    finally:
        if web.proc is not None:
            web.proc.terminate()
            web.proc.wait(10)
        board.close()
        broker.close()


def journal_results(board: ResultsBoard) -> list[Any]:
    return [g.result for g in load_games(board.service.journal, board=board.id)]


def cells(rows: Any) -> list[list[str]]:
    """The table's cells, spread without its plus sign (as in the CSV)."""
    return [[c.removeprefix("+") for c in r.locator("td").all_inner_texts()] for r in rows]


def standings_cli(board: ResultsBoard) -> list[list[str]]:
    """``boardctl standings --csv`` from the same broker, as the director would run it."""
    s = board.service
    command = [sys.executable, "-m", "boardctl", "standings", "--config", str(s.config), "--csv"]
    (s.journal.parent / "none.jsonl").write_text("")
    command += ["--manual", str(s.journal.parent / "none.jsonl")]
    command += ["--keyring", str(s.journal.parent / "board-keys.json")]
    done = subprocess.run(command, capture_output=True, text=True, check=True, env=env())
    return [line.split(",") for line in done.stdout.splitlines()[1:]]


def test_results_records_rules_and_the_live_standings_page(
    club: tuple[ResultsBoard, WebProcess], browser: Browser
) -> None:
    board, web = club
    board.play("Ann", "Bob", 0, 30)  # Ann wins with a skunk
    board.play("Cat", "Ann", 0, 55)

    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(web.url + "/")
    expect(page.locator("#rules")).to_contain_text("Rules: acc (American Cribbage Congress")
    expect(page.locator("#rules")).to_contain_text("house rules: none")
    expect(page.locator("#rules")).to_contain_text("win 2, skunk 3")
    page.locator("#results-box summary").click()
    expect(page.locator("#results-note")).to_contain_text("2 finished games on this board")
    rows = page.locator("#results tr")
    expect(rows).to_have_count(3)  # the head and two games, newest first
    expect(rows.nth(1)).to_contain_text("Cat v Ann")
    expect(rows.nth(2)).to_contain_text("Ann (skunk)")
    # the player records are stats players' for these results (journal -> bridge -> broker)
    expected = records_of_results(journal_results(board))
    ann = expected.players["ann"]
    ann_row = page.locator("#players tr", has_text="Ann")
    expect(ann_row).to_contain_text(f"{ann.games}{ann.wins}")
    assert ann_row.locator("td").all_inner_texts()[1:6] == [
        "Ann",
        "2",
        str(ann.wins),
        "50",
        str(ann.game_points),
    ]
    page.screenshot(path=str(_artefact("web-results.png")), full_page=True)
    _keep("web-results.png")

    projector = browser.new_page(viewport={"width": 1280, "height": 800})
    projector.goto(web.url + "/standings")
    expect(projector.locator("#summary")).to_contain_text("2 games")
    table = projector.locator("#standings tr")
    expect(table).to_have_count(4)  # head, Ann, Cat, Bob
    shown = cells(table.all()[1:])
    assert shown == standings_cli(board)  # the page ranks as boardctl standings does

    board.play("Bob", "Cat", 0, 60)  # a result arrives while the page is open
    expect(projector.locator("#summary")).to_contain_text("3 games", timeout=15000)
    shown = cells(projector.locator("#standings tr").all())
    expected_rows = report(
        from_record({"id": str(r.first_seq), **r.to_dict()}) for r in journal_results(board)
    )
    assert [row[1] for row in shown[1:]] == [r.player for r in expected_rows.rows]
    assert shown[1:] == standings_cli(board)
    expect(projector.locator("#latest li").first).to_contain_text("Bob 61 – Cat 60")
    expect(page.locator("#results-note")).to_contain_text("3 finished games", timeout=15000)
    # a forged result (unsigned, another board's topic) is shown apart, never counted
    forged: dict[str, Any] = {"id": "1-0", "board": "rogue", "names": ["Zed", "Ann"]}
    forged["scores"] = [61, 0]
    forged |= {"winner": 0, "game_points": 3, "skunk": 2, "end": "2099-01-01T00:00:00.000Z"}
    topic = "boardctl/rogue/results/2099-01-01/1-0"
    publish(board.broker, topic, json.dumps(forged).encode(), retain=True)
    expect(projector.locator("#apart li")).to_contain_text(
        "rogue: Zed 61 – Ann 0 · Zed +61 · double skunk — not signed; no key held", timeout=15000
    )
    expect(projector.locator("#summary")).to_contain_text("3 games")
    board.play("Dan", "Eve", 0, 0)  # a double skunk at 61
    expect(projector.locator("#latest li").first).to_contain_text(
        "Dan 61 – Eve 0 · Dan +61 · double skunk", timeout=15000
    )
    projector.screenshot(path=str(_artefact("web-standings.png")), full_page=True)
    _keep("web-standings.png")


def test_without_a_broker_the_page_says_results_are_not_configured(
    tmp_path: Path, browser: Browser
) -> None:
    service = BoardService(tmp_path)
    web = WebProcess(tmp_path, service)
    try:
        service.start()
        web.start()
        page = browser.new_page()
        page.goto(web.url + "/")
        expect(page.locator("#rules")).to_contain_text("Rules: acc")
        page.locator("#results-box summary").click()
        expect(page.locator("#results-note")).to_contain_text("not configured")
        service.ask("new_game", rules="czech")  # the rule set and its house rules, from status
        rules = page.locator("#rules")
        expect(rules).to_contain_text("Rules: czech (Czech rules")
        expect(rules).to_contain_text("runs-of-two: ")
        expect(rules).to_contain_text("game points (czech): win 1, skunk 2")
        status, body = _get(web.url + "/api/standings")
        assert status == 404 and "results are not configured" in body["error"]
    finally:
        if web.proc is not None:
            web.proc.terminate()
            web.proc.wait(10)
        service.close()


def _get(url: str) -> tuple[int, dict[str, Any]]:
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def _artefact(name: str) -> Path:
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    return ARTEFACTS / name


def _keep(name: str) -> None:
    """A screenshot taken: kept as a CI artefact, and in docs/images/ when asked."""
    path = _artefact(name)
    assert path.stat().st_size > 10_000
    if os.environ.get("BOARDCTL_DOCS_IMAGES") == "1":
        shutil.copy(path, REPO / "docs" / "images" / name)
