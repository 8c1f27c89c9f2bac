"""Player records on the page: the service's ``records`` request, answered from its journal.

A real ``boardctl run`` on mock pins over a journal of real games (demo games
with real cards and a game with a 29 and a 24 entered by their cards); its
``records`` request, the page's ``/api/records`` on it, and ``boardctl stats
players --json`` on the same journal give the same records. The fold the
service keeps, fed a batch of rows at a time, gives the games one fold of
every row gives.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boardctl.board.layout import builtin_layout
from boardctl.cli import main
from boardctl.demo.game import DemoGame
from boardctl.errors import ControlError
from boardctl.game import JsonValue
from boardctl.game.commands import Peg
from boardctl.game.keeper import Scorekeeper
from boardctl.results.derive import GameFold
from boardctl.service.journal_reader import JournalRecords
from boardctl.store.journal import Journal
from boardctl.web.page_config import parse_web_config
from boardctl.web.pairing import Pairing
from boardctl.web.server import make_app
from boardctl.web.socket_source import Source
from tests.test_e2e_process import Service

BIG_HANDS_GAME: dict[str, JsonValue] = {
    "variant": "six-card",
    "mode": "free",
    "names": ["Alice", "Bob"],
    "target": 61,
}


def big_hands(keeper: Scorekeeper) -> None:
    """A free game to 61: Alice's 29 and Bob's 24 entered by their cards, Alice wins."""
    keeper.apply(Peg(0, None, "hand", ("5H", "5C", "5S", "JD"), "5D"))
    keeper.apply(Peg(1, None, "crib", ("3H", "3D", "3S", "3C"), "9C"))
    keeper.apply(Peg(0, 28, "correction"))
    keeper.apply(Peg(0, 4, "pegging"))
    assert keeper.state.winner == 0


def season(path: Path) -> None:
    """The big-hands game, then four demo games between pairs of players (the last not left)."""
    with Scorekeeper.open(path, setup=BIG_HANDS_GAME) as keeper:
        big_hands(keeper)
        for seed, names in enumerate([("Alice", "Bob"), ("Carol", "Alice"), ("Bob", "Carol")]):
            DemoGame(seed=seed, names=names, keeper=keeper).play()
        DemoGame(seed=7, names=("Alice", "Dave"), keeper=keeper).play()


def stats_players(path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["stats", "players", "--json", "--journal", str(path)]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def ask_records(service: Service) -> dict[str, Any]:
    """The service's records once they are ready (its reader thread folds the journal)."""
    deadline = time.monotonic() + 20
    while True:
        reply: dict[str, Any] = service.ask("records")
        if reply["ready"]:
            return reply
        assert reply["seq"] <= reply["events"]
        assert time.monotonic() < deadline, "the records were never ready"
        time.sleep(0.02)


async def page_records(service: Service, tmp_path: Path) -> tuple[int, dict[str, Any]]:
    """``GET /api/records`` of the page's server on the service's socket."""
    config = parse_web_config({"web": {"port": 8121}})
    app = make_app(config, Source(service.socket), builtin_layout("two-121"), Pairing(tmp_path))
    client: TestClient[Any, Any] = TestClient(TestServer(app))
    await client.start_server()
    try:
        response = await client.get("/api/records", headers={"Host": "127.0.0.1:8121"})
        return response.status, await response.json()
    finally:
        await client.close()


@pytest.fixture
def service(tmp_path: Path) -> Any:
    board = Service(tmp_path)
    board.journal.parent.mkdir(parents=True)
    season(board.journal)
    board.start()
    yield board
    board.close()


def test_the_service_the_page_and_stats_players_give_the_same_records(
    service: Service, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = stats_players(service.journal, capsys)
    reply = ask_records(service)
    assert reply["games"] == 5
    assert reply["players"] == expected["players"]
    assert reply["head_to_head"] == expected["head_to_head"]
    alice = next(p for p in reply["players"] if p["name"] == "Alice")
    assert alice["big_hands"]["29"] == 1 and alice["average_hand"] is not None
    assert alice["big_hand_cards"][0]["cards"] == ["5H", "5C", "5S", "JD"]
    assert alice["average_pegging"] is not None  # the demo games are guided

    code, page = asyncio.run(page_records(service, tmp_path / "web"))
    assert code == 200 and page["ok"]
    assert page["players"] == expected["players"]
    assert page["head_to_head"] == expected["head_to_head"]


def test_the_records_follow_a_game_played_on_the_running_board(
    service: Service, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = ask_records(service)
    service.ask("new_game", variant="six-card", mode="free", target=61, names=["Erin", "Dave"])
    service.ask("peg", track=1, kind="hand", cards=["5H", "5C", "5S", "JD"], starter="5D")
    service.ask("peg", track=1, points=32, kind="correction")
    # the board now has events the answer above does not count: the next answer is not it
    first = service.ask("records")
    assert not first["ready"] or first["seq"] > before["seq"]
    code, page = asyncio.run(page_records(service, tmp_path / "web"))  # waits for the reader
    assert code == 200 and page["games"] == 6
    dave = next(p for p in page["players"] if p["name"] == "Dave")
    assert dave["big_hands"]["29"] == 1 and dave["wins"] == 1
    expected = stats_players(service.journal, capsys)
    assert page["players"] == expected["players"]


def test_a_board_without_a_journal_has_no_records() -> None:
    with pytest.raises(ControlError, match="keeps no journal"):
        JournalRecords(None).reply(0)


def test_a_journal_the_reader_cannot_open_is_reported_then_tried_again(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    switch = sys.getswitchinterval()
    recs = JournalRecords(path)
    assert recs.reply(3)["ready"] is False  # starts the reader, which finds no journal
    deadline = time.monotonic() + 10
    with pytest.raises(ControlError, match="records: no journal at"):
        while time.monotonic() < deadline:
            recs.reply(3)
            time.sleep(0.01)
    with Scorekeeper.open(path, setup=BIG_HANDS_GAME) as keeper:
        big_hands(keeper)
        seq = keeper.seq
    while not (reply := recs.reply(seq))["ready"]:
        assert time.monotonic() < deadline + 10
        time.sleep(0.01)
    assert reply["games"] == 1 and reply["players"][0]["big_hands"]["29"] == 1
    recs.close()
    assert sys.getswitchinterval() == switch  # the reader's 1 ms was for its read only


@pytest.fixture(scope="module")
def journal_rows(tmp_path_factory: pytest.TempPathFactory) -> list[Any]:
    path = tmp_path_factory.mktemp("fold") / "journal.sqlite"
    season(path)
    with Journal.open(path, readonly=True) as journal:
        return journal.event_rows()


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(cuts=st.lists(st.floats(min_value=0, max_value=1), max_size=4))
def test_a_fold_fed_in_batches_gives_the_games_of_one_fold(
    journal_rows: list[Any], cuts: list[float]
) -> None:
    fold = GameFold(board="b")
    edges = [0, *sorted(int(c * len(journal_rows)) for c in cuts), len(journal_rows)]
    for start, end in itertools.pairwise(edges):
        fold.add(journal_rows[start:end])
        assert fold.games() == GameFold(board="b", rows=journal_rows[:end]).games()
    assert fold.state == GameFold(board="b", rows=journal_rows).state  # every row folded


async def _page_on_fake(
    tmp_path: Path, replies: list[dict[str, Any]], route: str = "/api/records"
) -> tuple[int, Any, int]:
    """``GET route`` against a control socket that gives ``replies`` in turn (the last for
    ever; none: no service): the status, the body and how many times the page asked."""
    asked = 0

    async def client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal asked
        while await reader.readline():
            writer.write(json.dumps(replies[min(asked, len(replies) - 1)]).encode() + b"\n")
            asked += 1
            await writer.drain()
        writer.close()

    path = tmp_path / "c.sock"
    server = await asyncio.start_unix_server(client, str(path))
    if not replies:
        server.close()  # nobody listens
        path.unlink()
    config = parse_web_config({"web": {"port": 8121}})
    app = make_app(config, Source(path), builtin_layout("two-121"), Pairing(tmp_path / "web"))
    test_client: TestClient[Any, Any] = TestClient(TestServer(app))
    await test_client.start_server()
    try:
        response = await test_client.get(route, headers={"Host": "127.0.0.1:8121"})
        return response.status, await response.json(), asked
    finally:
        await test_client.close()
        server.close()
        await server.wait_closed()


def test_the_page_asks_again_until_the_records_are_ready(tmp_path: Path) -> None:
    waiting = {"ok": True, "result": {"ready": False, "seq": 0, "events": 9}}
    ready = {"ok": True, "result": {"ready": True, "seq": 9, "games": 0, "players": []}}
    code, body, asked = asyncio.run(_page_on_fake(tmp_path, [waiting, waiting, waiting, ready]))
    assert code == 200 and asked == 4
    assert body == {"ok": True, "ready": True, "seq": 9, "games": 0, "players": []}


def test_a_service_without_the_records_request_gets_a_clear_error(tmp_path: Path) -> None:
    older = {"ok": False, "error": "unknown op 'records'; known: ping, status"}
    code, body, asked = asyncio.run(_page_on_fake(tmp_path, [older]))
    assert code == 502 and "unknown op 'records'" in body["error"] and asked == 1


def test_the_history_is_the_services_newest_first_and_a_refusal_is_not_a_service_down(
    tmp_path: Path,
) -> None:
    rows = [{"seq": n, "time": f"2026-12-04T10:00:0{n}", "text": f"+{n}"} for n in (1, 2)]
    code, body, _ = asyncio.run(
        _page_on_fake(tmp_path, [{"ok": True, "result": rows}], "/api/history")
    )
    assert code == 200 and [row["seq"] for row in body["rows"]] == [2, 1]
    refused = {"ok": False, "error": "the journal cannot be read"}
    code, body, _ = asyncio.run(_page_on_fake(tmp_path, [refused], "/api/history"))
    assert code == 502 and body["error"] == "the journal cannot be read"  # the service said so
    code, body, asked = asyncio.run(_page_on_fake(tmp_path, [], "/api/history"))
    assert code == 503 and asked == 0  # no service: the page may try again
