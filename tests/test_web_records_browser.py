"""The players' records on the page, in a real Chromium: what ``boardctl stats players`` shows.

A real ``boardctl run`` (mock pins) over a journal of real games (demo games
and a game with a 29 and a 24 entered by their cards, tests/test_web_records.py),
a real ``boardctl web`` without results from a broker, and Debian's headless
``chromium``: the page's records table has every player's hand, crib and
pegging averages and 24/28/29 counts as ``stats players`` gives them, and the
big hands with their cards; a game finished while the page is open shows by
itself.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from boardctl.results.records import records
from boardctl.results.source import load_games
from tests.test_web_browser import ARTEFACTS, REPO, BoardService, WebProcess, open_page, serving
from tests.test_web_records import season

pytestmark = pytest.mark.slow


@pytest.fixture
def board(tmp_path: Path) -> Iterator[tuple[BoardService, WebProcess]]:
    service = BoardService(tmp_path)
    service.journal.parent.mkdir(parents=True)
    season(service.journal)
    with serving(service, WebProcess(tmp_path, service)) as pair:
        yield pair


def num(value: float | None, digits: int = 1) -> str:
    """As ``stats players`` prints a figure (and the page shows it)."""
    return "–" if value is None else f"{value:.{digits}f}"


def row_of(page: Any, name: str) -> list[str]:
    cells: list[str] = page.locator("#players tr", has_text=name).locator("td").all_inner_texts()
    return cells


def test_the_records_table_shows_what_stats_players_shows(
    browser: Browser, board: tuple[BoardService, WebProcess]
) -> None:
    service, web = board
    page = open_page(browser, web, width=1280, height=900)
    page.locator("#results-box summary").click()
    expect(page.locator("#records-note")).to_contain_text("From the board's journal: 5 finished")
    heads = page.locator("#players th").all_inner_texts()
    assert heads[-6:] == ["hand", "crib", "peg", "24", "28", "29"]
    expected = records(load_games(service.journal, board="-")).players
    expect(page.locator("#players tr")).to_have_count(1 + len(expected))
    for player in expected.values():
        shown = row_of(page, player.name)
        assert shown[1:9] == [
            player.name,
            str(player.games),
            str(player.wins),
            num(player.win_percent, 0),
            str(player.game_points),
            str(player.skunks_given),
            str(player.skunks_taken),
            num(player.average_spread),
        ]
        assert shown[9:] == [
            num(player.average_hand),
            num(player.average_crib),
            num(player.average_pegging),
            *(str(player.big_hands[n]) for n in (24, 28, 29)),
        ]
    alice, bob = expected["alice"], expected["bob"]
    assert alice.average_hand is not None and alice.big_hands[29] == 1
    big = page.locator("#big-hands li")
    expect(big.filter(has_text="Alice: 29 (hand 5H 5C 5S JD, starter 5D), game 1")).to_have_count(1)
    expect(big.filter(has_text="Bob: 24 (crib 3H 3D 3S 3C, starter 9C), game 1")).to_have_count(1)
    assert bob.big_hands[24] == 1
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTEFACTS / "web-records.png"
    page.locator("#results-box").screenshot(path=str(shot))
    if os.environ.get("BOARDCTL_DOCS_IMAGES") == "1":
        shutil.copy(shot, REPO / "docs" / "images" / shot.name)

    # a game finished on the running board shows in the open page by itself
    service.ask("new_game", variant="six-card", mode="free", target=61, names=["Erin", "Dave"])
    service.ask("peg", track=1, kind="hand", cards=["5H", "5C", "5S", "JD"], starter="5D")
    service.ask("peg", track=1, points=32, kind="correction")
    expect(page.locator("#records-note")).to_contain_text("6 finished games")
    expect(big.filter(has_text="Dave: 29 (hand 5H 5C 5S JD, starter 5D)")).to_have_count(1)
    dave = records(load_games(service.journal, board="-")).players["dave"]
    assert row_of(page, "Dave")[2:4] == [str(dave.games), str(dave.wins)]
    page.close()
