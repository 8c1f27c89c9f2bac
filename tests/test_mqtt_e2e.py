"""Several boards, their bridges and a real mosquitto: an evening with outages.

Five ``boardctl run --display none`` services (mock pins) each with its
``boardctl mqtt`` bridge play a round-robin evening through their buttons
(the control socket's ``press``; the players' names are set over the socket).
The broker is killed (kill -9, so it loses every retained message) and
restarted mid-evening; a bridge is killed (its last will says "offline") and
restarted. At the end ``boardctl standings`` has every game exactly once,
equal to the five journals' results, and the retained states equal each
board's status.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from boardctl.results.sign import write_key
from boardctl.standings.games import from_record
from boardctl.standings.roundrobin import schedule
from boardctl.standings.table import standings
from tests.bridge_results import finished_results
from tests.conftest import REPO
from tests.mqtt_broker import Broker, have_mosquitto
from tests.test_e2e_process import Service

BOARDS = 5
PLAYERS = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jon"]
TARGET = 61
pytestmark = pytest.mark.slow


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO)}


class Board:
    """One board: the service and its bridge."""

    def __init__(self, folder: Path, number: int, broker: Broker) -> None:
        folder.mkdir(parents=True)
        self.id = f"table-{number}"
        self.service = Service(folder)
        self.service.config.write_text(
            '[link]\nkind = "null"\n'
            f'[game]\nmode = "free"\ntarget = {TARGET}\n'
            "[inputs]\ncommit_idle = 0.5\n"
            f'[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\nboard_id = "{self.id}"\n'
        )
        self.log = folder / "bridge.log"
        self.bridge: subprocess.Popen[bytes] | None = None
        self.key = write_key(self.service.journal.parent / "board.key")  # the bridge signs

    def start_bridge(self) -> None:
        s = self.service
        command = [sys.executable, "-m", "boardctl", "mqtt", "-v", "--config", str(s.config)]
        command += ["--socket", str(s.socket), "--journal", str(s.journal)]
        self.bridge = subprocess.Popen(command, env=env(), stderr=self.log.open("ab"))

    def kill_bridge(self) -> None:
        assert self.bridge is not None
        self.bridge.kill()
        self.bridge.wait(10)

    def play(self, first: str, second: str, winner: int, loser_score: int) -> None:
        """One game through the buttons: names set, the loser's score, the winner's, next."""
        s = self.service
        s.ask("set", key="names", value=[first, second])
        loser = 2 - winner  # buttons count tracks from 1
        for points in _chunks(loser_score):
            s.enter(loser, points)
        for points in _chunks(TARGET):
            s.enter(winner + 1, points)
        assert s.ask("status")["winner"] == winner
        s.press("menu")  # the next game: this one is final

    def close(self) -> None:
        if self.bridge is not None and self.bridge.poll() is None:
            self.bridge.send_signal(signal.SIGTERM)
            try:
                self.bridge.wait(10)
            except subprocess.TimeoutExpired:
                self.bridge.kill()
        self.service.close()


def keyring_of(boards: list[Board]) -> Path:
    """The director's keys: each board's added with ``boardctl key add``."""
    path = boards[0].service.config.parent.parent / "board-keys.json"
    for board in boards:
        copy = board.service.journal.parent / "board.key"
        command = ["key", "add", board.id, str(copy), "--keyring", str(path)]
        subprocess.run([sys.executable, "-m", "boardctl", *command], env=env(), check=True)
    return path


def _chunks(points: int) -> list[int]:
    """``points`` as entries a free-mode board accepts (20s, then the rest)."""
    return [20] * (points // 20) + ([points % 20] if points % 20 else [])


@pytest.fixture
def evening(tmp_path: Path) -> Iterator[tuple[Broker, list[Board]]]:
    assert have_mosquitto(), "these tests need mosquitto (apt-get install mosquitto)"
    broker = Broker(tmp_path / "broker")
    broker.start()
    boards = [Board(tmp_path / f"board{i}", i, broker) for i in range(1, BOARDS + 1)]
    try:
        threads = [threading.Thread(target=b.service.start) for b in boards]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for board in boards:
            board.start_bridge()
        yield broker, boards
    finally:
        for board in boards:
            board.close()
        broker.close()


def retained(broker: Broker, pattern: str, seconds: float = 2.0) -> dict[str, bytes]:
    """The retained messages on topics matching ``pattern`` (paho, its own connection)."""
    found: dict[str, bytes] = {}
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"probe-{time.monotonic_ns()}")
    client.on_message = lambda c, u, m: found.__setitem__(m.topic, bytes(m.payload))
    client.connect("127.0.0.1", broker.port)
    client.subscribe(pattern, 1)
    client.loop_start()
    time.sleep(seconds)
    client.loop_stop()
    client.disconnect()
    return found


def publish(broker: Broker, topic: str, payload: bytes, *, retain: bool = False) -> None:
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"pub-{time.monotonic_ns()}")
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    client.publish(topic, payload, qos=1, retain=retain).wait_for_publish(5)
    client.loop_stop()
    client.disconnect()


def wait_for(check: Callable[[], bool], seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.25)
    return check()


def standings_games(config: Path, keys: Path) -> list[dict[str, Any]]:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "boardctl",
            "standings",
            "--games",
            "--config",
            str(config),
            "--keyring",
            str(keys),
        ],
        env=env(),
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return [json.loads(line) for line in out.stdout.splitlines()]


def key(record: dict[str, Any]) -> tuple[Any, ...]:
    return (
        record["board"],
        record["id"],
        tuple(record["names"]),
        tuple(record["scores"]),
        record["winner"],
        record["game_points"],
    )


def test_an_evening_of_five_boards_survives_broker_and_bridge_crashes(
    evening: tuple[Broker, list[Board]],
) -> None:
    broker, boards = evening
    rounds = schedule(PLAYERS, BOARDS)[:3]

    def play_round(index: int) -> None:
        for game in rounds[index].games:
            winner = (index + game.board) % 2
            loser_score = (20, 45)[(index * 3 + game.board) % 2]  # 20 is a skunk at 61
            boards[game.board - 1].play(game.first, game.second, winner, loser_score)

    play_round(0)
    assert wait_for(lambda: len(retained(broker, "boardctl/+/results/+/+", 0.5)) == BOARDS, 15)

    broker.kill()  # kill -9: every retained message since the start is lost
    assert not list(broker.folder.glob("*.db"))  # nothing was ever saved to load again
    started = time.monotonic()
    play_round(1)  # the boards do not wait for the network
    assert time.monotonic() - started < 10
    broker.start()

    availability = "boardctl/table-1/availability"
    assert wait_for(  # reconnected to the restarted broker
        lambda: retained(broker, availability, 0.3).get(availability) == b"online", 15
    )
    boards[0].kill_bridge()
    assert wait_for(  # the last will: the broker says it for the bridge killed mid-connection
        lambda: retained(broker, availability, 0.3).get(availability) == b"offline", 10
    )
    play_round(2)
    boards[0].start_bridge()

    journals: list[dict[str, Any]] = []
    for board in boards:
        journals += finished_results(board.service.journal, board.id)
    assert len(journals) == 3 * BOARDS and all(r["final"] for r in journals)
    config = boards[0].service.config
    keys = keyring_of(boards)
    if not wait_for(lambda: len(standings_games(config, keys)) == len(journals), 60):
        ranked = {(r["board"], r["id"]) for r in standings_games(config, keys)}
        missing = sorted({(r["board"], r["id"]) for r in journals} - ranked)
        logs = "\n".join(f"--- {b.id}\n{b.log.read_text()}" for b in boards)
        raise AssertionError(f"not in the standings: {missing}\n{logs}")
    counted = standings_games(config, keys)
    assert sorted(map(key, counted)) == sorted(map(key, journals))  # each game once, as journalled
    assert len({(r["board"], r["id"]) for r in counted}) == len(counted)

    table = subprocess.run(
        [
            sys.executable,
            "-m",
            "boardctl",
            "standings",
            "--json",
            "--config",
            str(config),
            "--keyring",
            str(keys),
        ],
        env=env(),
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    expected = standings(from_record(r) for r in journals)
    assert json.loads(table.stdout)["standings"] == [
        {k: getattr(row, k) for k in row.__slots__} for row in expected
    ]

    def states_match() -> bool:
        states = retained(broker, "boardctl/+/state", 0.5)
        return all(
            json.loads(states.get(f"boardctl/{b.id}/state", b"null")) == b.service.ask("status")
            for b in boards
        )

    assert wait_for(states_match, 15)
    online = retained(broker, "boardctl/+/availability", 0.5)
    assert all(online[f"boardctl/{b.id}/availability"] == b"online" for b in boards)

    configs = retained(broker, "homeassistant/#", 0.5)
    for b in boards:
        assert f"homeassistant/sensor/{b.id}/track2_score/config" in configs
        assert f"homeassistant/event/{b.id}/game/config" in configs
        assert f"homeassistant/sensor/{b.id}/track3_score/config" not in configs
    # Home Assistant starts afresh (its discovery messages gone) and announces itself
    gone = "homeassistant/sensor/table-2/phase/config"
    publish(broker, gone, b"", retain=True)
    assert gone not in retained(broker, "homeassistant/#", 0.5)
    publish(broker, "homeassistant/status", b"online")
    assert wait_for(lambda: gone in retained(broker, "homeassistant/#", 0.5), 10)

    bridge = boards[1].bridge
    assert bridge is not None
    bridge.send_signal(signal.SIGTERM)  # a clean stop says offline itself
    assert bridge.wait(10) == 0
    assert retained(broker, "boardctl/table-2/availability", 0.3) == {
        "boardctl/table-2/availability": b"offline"
    }
