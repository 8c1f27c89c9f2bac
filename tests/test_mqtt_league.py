"""A league of rooms: two room brokers bridged to a central one by mosquitto's own bridges.

Each room's mosquitto forwards ``boardctl/#`` to the central broker (the
configuration of docs/mqtt.md, "A league of rooms"); each board's bridge
(in this process, without its service: it reads the journal the test writes)
talks to its room's broker only. Mid-season the central broker is killed and
comes back from a persistence file that still holds a win taken back while it
was down, and a room broker is killed (losing every retained message) and
restarted. The league table on the central broker must equal the one
recounted independently from every board's journal (tests/results_oracle.py).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from boardctl.config import MqttConfig
from boardctl.game.keeper import Scorekeeper
from boardctl.mqtt.bridge import Bridge, Paths
from boardctl.results.sign import write_key
from boardctl.standings import archive
from boardctl.standings.collect import collect
from boardctl.standings.games import Game
from boardctl.standings.report import report
from boardctl.standings.verify import check
from tests.mqtt_broker import Broker, have_mosquitto
from tests.results_oracle import recount
from tests.test_mqtt import SETUP, apply, win

PLAYERS = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal"]


def bridge_to(central: Broker, room: str) -> tuple[str, ...]:
    """The room broker's bridge connection to the central one (as docs/mqtt.md gives it)."""
    return (
        f"connection league-{room}",
        f"address 127.0.0.1:{central.port}",
        "topic boardctl/# out 1",
        "topic boardctl/_standings/closed/# in 1",
        "cleansession false",
        f"remote_clientid league-{room}",
        "restart_timeout 1 2",
        "keepalive_interval 5",
    )


class Board:
    """A board's journal, key and bridge to its room's broker."""

    def __init__(self, folder: Path, room: Broker, board: str, seat: int) -> None:
        folder.mkdir(parents=True)
        self.id = board
        self.journal = folder / "journal.sqlite"
        self.keeper = Scorekeeper.open(self.journal, setup=SETUP)
        self.key = write_key(folder / "board.key")
        self.seat = seat
        config = MqttConfig(host="127.0.0.1", port=room.port, board_id=board, keepalive=5)
        paths = Paths(folder / "none.sock", self.journal, folder / "mqtt-acks.json")
        self.bridge = Bridge(config, paths, board)
        self.thread = threading.Thread(target=self.bridge.run, daemon=True)
        self.thread.start()

    def play(self, round: int, *, move_on: bool = True) -> None:
        """One game between two of the league's players (round robin-ish), won 61 to 20-ish."""
        first = PLAYERS[(self.seat + round) % len(PLAYERS)]
        second = PLAYERS[(self.seat + 3 * round + 1) % len(PLAYERS)]
        if first == second:
            second = PLAYERS[(PLAYERS.index(first) + 1) % len(PLAYERS)]
        apply(self.keeper, {"op": "set", "key": "names", "value": [first, second]})
        self.last = (round % 2, 15 + 7 * ((self.seat + round) % 6))  # the winner, the loser's
        win(self.keeper, *self.last)
        if move_on:
            apply(self.keeper, {"op": "next"})

    def other_wins(self) -> None:
        """After the winning peg was undone (the winner on 60): the other track wins."""
        winner, loser = self.last
        left = 61 - loser
        for points in [20] * (left // 20) + ([left % 20] if left % 20 else []):
            apply(self.keeper, {"op": "peg", "track": 1 - winner, "points": points})
        apply(self.keeper, {"op": "next"})

    def close(self) -> None:
        self.bridge.stop()
        self.thread.join(10)
        self.keeper.close()


@pytest.fixture
def league(tmp_path: Path) -> Iterator[tuple[Broker, list[Broker], list[Board]]]:
    assert have_mosquitto(), "these tests need mosquitto (apt-get install mosquitto)"
    central = Broker(tmp_path / "central")
    central.start()
    rooms = [Broker(tmp_path / f"room{n}", extra=bridge_to(central, f"room{n}")) for n in (1, 2)]
    for room in rooms:
        room.start()
    boards = [
        Board(tmp_path / f"r{r}t{t}", rooms[r - 1], f"r{r}-t{t}", 2 * (r - 1) + t)
        for r in (1, 2)
        for t in (1, 2)
    ]
    try:
        yield central, rooms, boards
    finally:
        for board in boards:
            board.close()
        for broker in [*rooms, central]:
            broker.close()


def recounted(boards: list[Board]) -> dict[tuple[str, int], tuple[Any, ...]]:
    """Every board's games recounted from its journal's raw rows: (board, first seq) -> game."""
    return {
        (b.id, r["first_seq"]): (r["names"], r["scores"], r["winner"], r["skunk"], r["final"])
        for b in boards
        for r in recount(b.journal)
    }


def central_games(central: Broker, keys: dict[str, bytes]) -> list[Game]:
    checked = check(collect(MqttConfig(host="127.0.0.1", port=central.port)).items(), keys)
    assert not checked.failed and not checked.unverified and not checked.bad
    return checked.verified


def held(games: list[Game]) -> dict[tuple[str, int], tuple[Any, ...]]:
    return {
        (g.board, int(g.id.split("-")[0])): (g.names, g.scores, g.winner, g.skunk, g.final)
        for g in games
    }


def wait_for(check: Callable[[], bool], seconds: float = 30) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.3)
    return check()


def oracle_table(boards: list[Board]) -> list[tuple[str, int, int, int, int]]:
    """The league table by ACC rules, from the recount alone (2 a win, 3 a skunk)."""
    tally: dict[str, list[int]] = {}
    for names, scores, winner, skunk, _ in recounted(boards).values():
        loser = max(s for i, s in enumerate(scores) if i != winner)
        for track, name in enumerate(names):
            row = tally.setdefault(name, [0, 0, 0, 0])
            row[0] += 1
            if track == winner:
                row[1] += 1
                row[2] += 3 if skunk else 2
                row[3] += scores[winner] - loser
            else:
                row[3] += scores[track] - scores[winner]
    order = sorted(tally.items(), key=lambda kv: (-kv[1][2], -kv[1][1], -kv[1][3], kv[0]))
    return [(name, *row) for name, row in order]  # type: ignore[misc]


def config_of(broker: Broker) -> MqttConfig:
    return MqttConfig(host="127.0.0.1", port=broker.port)


def test_a_league_of_two_bridged_rooms_ranks_every_game_through_restarts_and_withdrawals(
    league: tuple[Broker, list[Broker], list[Board]], tmp_path: Path
) -> None:
    central, rooms, boards = league
    keys = {b.id: b.key for b in boards}

    def in_step() -> bool:
        return held(central_games(central, keys)) == recounted(boards)

    for round in range(2):
        for board in boards:
            board.play(round)
    assert wait_for(in_step), (held(central_games(central, keys)), recounted(boards))

    # a win reaches the central broker, which saves it; the win is taken back (and the
    # central broker follows), then the central broker is killed (kill -9)
    undone = boards[0]
    undone.play(2, move_on=False)
    assert wait_for(in_step)
    central.save()
    apply(undone.keeper, {"op": "undo"})
    assert wait_for(in_step)
    central.kill()
    for board in boards[1:]:
        board.play(2)
    # room 2's broker is killed too (its retained results lost) and restarted
    rooms[1].kill()
    rooms[1].start()
    central.start()  # back from its file: it holds the withdrawn win again, until room 1's
    # mosquitto bridge forwards its retained messages: the board's signed withdrawal among them
    assert wait_for(in_step, 40), (held(central_games(central, keys)), recounted(boards))

    undone.other_wins()  # the game taken back is won by the other player after all
    for board in boards:
        board.play(3)
    assert wait_for(in_step)
    table = report(central_games(central, keys)).rows
    shown = [(r.player, r.games, r.wins, r.game_points, r.spread) for r in table]
    assert shown == oracle_table(boards)
    assert sum(r.wins for r in table) == len(recounted(boards)) == 4 * 4

    # the director closes the night on the central broker: archived, and cleared everywhere
    # (the rooms' bridges get the closed mark through their mosquitto bridge's "in" topic)
    nights = {slot.split("/")[0] for _, slot in collect(config_of(central))}
    for night in nights:
        archive.close(config_of(central), night, tmp_path / "events")
    archived = check(
        [m for n in nights for m in archive.load(tmp_path / "events" / f"{n}.jsonl").items()],
        keys,
    )
    assert held(archived.verified) == recounted(boards)
    assert wait_for(lambda: all(collect(config_of(b)) == {} for b in [central, *rooms]))
