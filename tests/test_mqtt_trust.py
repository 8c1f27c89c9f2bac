"""The club's results end to end: signed by the bridge, verified by the director, kept true.

A real mosquitto (tests/mqtt_broker.py), the real bridge (``boardctl mqtt`` as
a process, reading a journal written by a scorekeeper while no service runs),
and the real CLI (``boardctl standings``, ``key``, ``results --verify``). A
rogue client publishes forged, moved and malformed results; the broker is
killed (kill -9) and restarted on the same port, with and without persistence;
a follower is held stopped (SIGSTOP) while a withdrawal goes by.
"""

from __future__ import annotations

import json
import os
import queue
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from boardctl.cli import main
from boardctl.game.commands import parse_command
from boardctl.game.keeper import Scorekeeper
from boardctl.mqtt.retention import event_of, is_withdrawal, today
from boardctl.results.sign import sign_record, write_key
from tests.bridge_results import finished_results
from tests.mqtt_broker import Broker, have_mosquitto

REPO = Path(__file__).resolve().parent.parent
SETUP: dict[str, Any] = {"variant": "six-card", "mode": "free", "target": 61}
pytestmark = pytest.mark.slow


def wait_for(check: Callable[[], bool], seconds: float = 30) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.1)
    return check()


def apply(keeper: Scorekeeper, data: dict[str, Any]) -> None:
    keeper.apply(parse_command(data))


def win(keeper: Scorekeeper, track: int, loser: int) -> None:
    for points in [20] * (loser // 20) + ([loser % 20] if loser % 20 else []):
        apply(keeper, {"op": "peg", "track": 1 - track, "points": points})
    for points in (20, 20, 20, 1):
        apply(keeper, {"op": "peg", "track": track, "points": points})


def snapshot(
    broker: Broker,
    pattern: str = "boardctl/+/results/+/+",
    user: tuple[str, str] | None = None,
    marker: str = "",
) -> dict[str, bytes]:
    """Every retained message on ``pattern`` now: complete when our own marker comes back."""
    events: queue.SimpleQueue[tuple[str, str, bytes]] = queue.SimpleQueue()
    marker = marker or f"boardctl/_standings/sync/{secrets.token_hex(6)}"
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"snap-{secrets.token_hex(4)}")
    if user is not None:
        client.username_pw_set(*user)
    client.on_subscribe = lambda c, u, mid, rcs, p: events.put(("suback", "", b""))
    client.on_message = lambda c, u, m: events.put(("message", m.topic, bytes(m.payload)))
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    found: dict[str, bytes] = {}
    try:
        client.subscribe([(pattern, 1), (marker, 1)])
        while True:
            kind, topic, payload = events.get(timeout=10)
            if kind == "suback":
                client.publish(marker, b"", qos=1)
            elif topic == marker:
                return found
            elif payload:
                found[topic] = payload
    finally:
        client.loop_stop()
        client.disconnect()


def publish(
    broker: Broker, topic: str, payload: bytes, user: tuple[str, str] | None = None
) -> None:
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"rogue-{secrets.token_hex(4)}")
    if user is not None:
        client.username_pw_set(*user)
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    client.publish(topic, payload, qos=1, retain=True).wait_for_publish(10)
    client.loop_stop()
    client.disconnect()


class Board:
    """A board's state folder (journal, board key, config) and its bridge process."""

    def __init__(self, folder: Path, broker: Broker, board: str, password: str = "") -> None:
        folder.mkdir(parents=True)
        self.folder, self.id = folder, board
        self.journal = folder / "journal.sqlite"
        self.keeper = Scorekeeper.open(self.journal, setup=SETUP)
        self.key_file = folder / "board.key"
        self.key = write_key(self.key_file)
        self.acks = folder / "mqtt-acks.json"
        self.config = folder / "config.toml"
        auth = ""
        if password:
            (folder / "mqtt-password").write_text(password + "\n")
            auth = f'username = "{board}"\npassword_file = "{folder / "mqtt-password"}"\n'
        self.config.write_text(
            f'[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\nboard_id = "{board}"\n'
            f"keepalive = 5\n{auth}"
        )
        self.log = folder / "bridge.log"
        self.bridge: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        command = [sys.executable, "-m", "boardctl", "mqtt", "-v", "--config", str(self.config)]
        command += ["--socket", str(self.folder / "none.sock"), "--journal", str(self.journal)]
        self.bridge = subprocess.Popen(
            command, env={**os.environ, "PYTHONPATH": str(REPO)}, stderr=self.log.open("ab")
        )

    def stop(self) -> None:
        if self.bridge is not None and self.bridge.poll() is None:
            self.bridge.send_signal(signal.SIGCONT)
            self.bridge.send_signal(signal.SIGTERM)
            try:
                self.bridge.wait(10)
            except subprocess.TimeoutExpired:
                self.bridge.kill()
                self.bridge.wait(10)

    def results(self) -> dict[str, dict[str, Any]]:
        """What the journal holds, as the bridge publishes it: topic -> signed record."""
        return {
            f"boardctl/{self.id}/results/{event_of(r['end'])}/{r['id']}": r
            for r in finished_results(self.journal, self.id, self.key)
        }

    def on_broker(self, held: dict[str, bytes]) -> dict[str, Any]:
        """The board's results on the broker (its withdrawal records left out)."""
        return {
            t: json.loads(p)
            for t, p in held.items()
            if t.startswith(f"boardctl/{self.id}/") and not is_withdrawal(p)
        }

    def close(self) -> None:
        self.stop()
        self.keeper.close()


@pytest.fixture
def started() -> Iterator[list[Broker | Board]]:
    """Everything a test starts, stopped at its end."""
    assert have_mosquitto(), "these tests need mosquitto (apt-get install mosquitto)"
    things: list[Broker | Board] = []
    yield things
    for thing in reversed(things):
        thing.close()


def in_sync(board: Board, broker: Broker) -> bool:
    """The broker holds exactly the journal's results under the board's topics."""
    return board.on_broker(snapshot(broker)) == board.results()


# --- forged, moved and malformed results ---------------------------------------------


def test_forged_moved_and_malformed_results_never_count(
    tmp_path: Path, started: list[Broker | Board], capsys: pytest.CaptureFixture[str]
) -> None:
    broker = Broker(tmp_path / "broker")
    broker.start()
    started.append(broker)
    board = Board(tmp_path / "b1", broker, "b1")
    started.append(board)
    win(board.keeper, 0, 20)  # a provisional result: the board has not moved on
    board.start()
    assert wait_for(lambda: in_sync(board, broker)), board.log.read_text()
    (real,) = board.results().values()
    night = event_of(real["end"])
    assert real["hmac"] and real["key"]  # the bridge signs with the board's key

    # a rogue client: a million game points under the board's own topic, the board's real
    # record moved to another game id, and another board's topic with b1's payload
    greedy = {**real, "id": "9-00000000", "game_points": 1_000_000, "key": "", "hmac": ""}
    publish(broker, f"boardctl/b1/results/{night}/9-00000000", json.dumps(greedy).encode())
    publish(broker, f"boardctl/b1/results/{night}/8-00000000", json.dumps(real).encode())
    publish(broker, f"boardctl/b2/results/{night}/{real['id']}", json.dumps(real).encode())
    # a forged record signed with a key the director does not hold for b3
    fake = sign_record({**real, "board": "b3", "id": "1-0"}, bytes(32))
    publish(broker, f"boardctl/b3/results/{night}/1-0", json.dumps(fake).encode())
    # malformed: odd fields, and 5 MB
    publish(broker, f"boardctl/b4/results/{night}/1-0", b'{"board":"b4","id":"1-0","names":"x"}')
    publish(broker, f"boardctl/b4/results/{night}/2-0", b"[" * 5_000_000)
    # the bridge withdraws what its journal does not hold under its own topics, at once
    assert wait_for(lambda: in_sync(board, broker)), board.log.read_text()

    keys = tmp_path / "director" / "board-keys.json"
    copy = tmp_path / "director" / "b1.key"
    copy.parent.mkdir()
    copy.write_bytes(board.key_file.read_bytes())
    assert main(["key", "add", "b1", str(copy), "--keyring", str(keys)]) == 0
    assert oct(keys.stat().st_mode & 0o777) == "0o600"
    capsys.readouterr()
    base = ["standings", "--config", str(board.config), "--keyring", str(keys)]
    base += ["--manual", str(tmp_path / "none.jsonl")]
    (tmp_path / "none.jsonl").write_text("")
    assert main([*base, "--games"]) == 0
    out, err = capsys.readouterr()
    (game,) = [json.loads(line) for line in out.splitlines()]
    assert (game["board"], game["id"], game["game_points"]) == ("b1", real["id"], 3)
    assert game["final"] is False  # the broker holds it provisional: so does --games
    assert err.count("malformed") == 1 and "3 malformed skipped" in err  # said once
    assert "b2/" in err and "disagrees with its topic" in err  # b2's copy of b1's record
    assert "names must be a list" in err and "larger than a result may be" in err
    assert "1 unverified" in err  # b3's, signed with a key the director does not hold

    assert main(base) == 0
    out, err = capsys.readouterr()
    assert "(1 games)" in out
    assert "Not counted:" in out and "b3 1-0" in out and "no key held for board b3" in out

    # the director's copy of the broker's records verifies with the board's key
    records = tmp_path / "records.jsonl"
    assert main([*base, "--records"]) == 0
    records.write_text(capsys.readouterr().out)
    assert main(["results", "--verify", str(records), "--keyring", str(keys)]) == 1
    out = capsys.readouterr().out
    assert "ok      row 1: board b1" in out and "1 of 2 rows verify" in out
    b1_only = [line for line in records.read_text().splitlines() if '"board": "b1"' in line]
    records.write_text("\n".join(b1_only) + "\n")
    assert main(["results", "--verify", str(records), "--key", str(board.key_file)]) == 0
    assert "1 of 1 rows verify" in capsys.readouterr().out

    # the key changes: the bridge republishes every record signed with the new one
    board.stop()
    board.key = write_key(board.key_file, force=True)
    board.start()
    assert wait_for(lambda: in_sync(board, broker)), board.log.read_text()
    assert main([*base, "--games"]) == 0
    out, err = capsys.readouterr()
    assert out == "" and "1 failing verification" in err  # the director holds the old key
    copy.write_bytes(board.key_file.read_bytes())
    assert main(["key", "add", "b1", str(copy), "--keyring", str(keys)]) == 0
    capsys.readouterr()
    assert main([*base, "--games"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 1


def test_a_user_per_board_and_an_acl_keep_each_board_to_its_own_topics(
    tmp_path: Path, started: list[Broker | Board], capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/mqtt.md's mosquitto set-up: password file, ACL, one user per board."""
    acl = (REPO / "docs" / "mqtt.md").read_text().split("<!-- acl -->")[1]
    acl = acl.split("```")[1].removeprefix("text\n")
    users = {"b1": "pw-b1", "b2": "pw-b2", "director": "pw-director", "homeassistant": "pw-ha"}
    broker = Broker(tmp_path / "broker", users=users, acl=acl)
    broker.start()
    started.append(broker)
    boards = [Board(tmp_path / b, broker, b, users[b]) for b in ("b1", "b2")]
    started.extend(boards)
    for number, board in enumerate(boards):
        win(board.keeper, number % 2, 20 + 10 * number)
        apply(board.keeper, {"op": "next"})
        board.start()
    director = ("director", users["director"])

    def everything() -> dict[str, bytes]:
        return snapshot(broker, user=director)

    assert wait_for(lambda: all(b.on_broker(everything()) == b.results() for b in boards))
    # discovery (the bridge sends it once its service runs; none runs here): b1 may write its
    # own node's config topics, not b2's, and Home Assistant's user reads them
    home = ("homeassistant", users["homeassistant"])
    b1 = ("b1", users["b1"])
    publish(broker, "homeassistant/sensor/b1/phase/config", b'{"name":"Phase"}', user=b1)
    publish(broker, "homeassistant/sensor/b2/phase/config", b'{"name":"Forged"}', user=b1)
    configs = snapshot(broker, "homeassistant/#", user=home, marker="homeassistant/status")
    assert set(configs) == {"homeassistant/sensor/b1/phase/config"}
    states = snapshot(broker, "boardctl/+/availability", user=home, marker="homeassistant/status")
    assert states == {f"boardctl/{b}/availability": b"offline" for b in ("b1", "b2")}
    # b1 tries to write b2's topic: the broker drops it (b2's real result stays)
    real_b2 = boards[1].results()
    forged = {**next(iter(real_b2.values())), "game_points": 3}
    for topic in real_b2:
        publish(broker, topic, json.dumps(forged).encode(), user=("b1", users["b1"]))
    publish(broker, "boardctl/b2/results/2026-12-01/7-0", b"{}", user=("b1", users["b1"]))
    assert boards[1].on_broker(everything()) == real_b2
    # no password, a wrong one: not in
    rogue = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="nobody")
    rogue.username_pw_set("b1", "wrong")
    codes: queue.SimpleQueue[Any] = queue.SimpleQueue()
    rogue.on_connect = lambda c, u, f, rc, p: codes.put(rc)
    rogue.connect("127.0.0.1", broker.port)
    rogue.loop_start()
    assert codes.get(timeout=10).is_failure
    rogue.loop_stop()
    # the director reads every board with its own user
    config = tmp_path / "director.toml"
    (tmp_path / "director-password").write_text(users["director"] + "\n")
    config.write_text(
        f'[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\nusername = "director"\n'
        f'password_file = "{tmp_path / "director-password"}"\n'
    )
    (tmp_path / "none.jsonl").write_text("")
    args = ["standings", "--config", str(config), "--manual", str(tmp_path / "none.jsonl")]
    args += ["--keyring", str(tmp_path / "keys.json")]
    for board in boards:
        assert main(["key", "add", board.id, str(board.key_file), "--keyring", args[-1]]) == 0
    capsys.readouterr()
    assert main([*args, "--games"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 2


# --- withdrawals that must stay withdrawn ----------------------------------------------


@pytest.mark.parametrize("persistence", [True, False], ids=["persistence", "no-persistence"])
def test_a_withdrawn_win_stays_withdrawn_after_a_broker_kill_and_restart(
    tmp_path: Path, started: list[Broker | Board], persistence: bool
) -> None:
    broker = Broker(tmp_path / "broker", persistence=persistence)
    broker.start()
    started.append(broker)
    board = Board(tmp_path / "b1", broker, "b1")
    started.append(board)
    win(board.keeper, 0, 30)
    apply(board.keeper, {"op": "next"})  # game 1: final
    win(board.keeper, 1, 30)  # game 2: won ...
    board.start()
    assert wait_for(lambda: in_sync(board, broker) and len(board.results()) == 2)
    if persistence:
        broker.save()  # the broker has saved both results
    apply(board.keeper, {"op": "undo"})  # ... and the win taken back: withdrawn
    assert wait_for(lambda: in_sync(board, broker) and len(board.results()) == 1)
    assert board.bridge is not None
    board.bridge.send_signal(signal.SIGSTOP)  # the bridge is held while the broker restarts
    broker.kill()
    broker.start()
    back = snapshot(broker)
    # with persistence the withdrawn result came back from the broker's file
    assert len(board.on_broker(back)) == (2 if persistence else 0)
    board.bridge.send_signal(signal.SIGCONT)
    assert wait_for(lambda: in_sync(board, broker)), board.log.read_text()


@pytest.mark.parametrize("persistence", [True, False], ids=["persistence", "no-persistence"])
def test_an_undone_win_is_withdrawn_though_the_acknowledgements_were_lost(
    tmp_path: Path, started: list[Broker | Board], persistence: bool
) -> None:
    broker = Broker(tmp_path / "broker", persistence=persistence)
    broker.start()
    started.append(broker)
    board = Board(tmp_path / "b1", broker, "b1")
    started.append(board)
    win(board.keeper, 0, 30)
    board.start()
    assert wait_for(lambda: in_sync(board, broker) and len(board.results()) == 1)
    assert wait_for(lambda: board.acks.exists())
    board.stop()
    if persistence:
        broker.save()
    board.acks.unlink()  # the acknowledgements are lost ...
    apply(board.keeper, {"op": "undo"})  # ... and the win undone while the bridge was away
    broker.kill()
    broker.start()
    assert len(board.on_broker(snapshot(broker))) == (1 if persistence else 0)
    board.start()
    assert wait_for(lambda: in_sync(board, broker)), board.log.read_text()
    assert board.results() == {}


# --- followers --------------------------------------------------------------------------


def records(count: int) -> dict[str, bytes]:
    """``count`` results of board b1 (unsigned: the followers count them as told)."""
    out = {}
    for n in range(count):
        record = {
            "id": f"{n + 1}-0",
            "board": "b1",
            "names": ["Ann", "Bob"],
            "scores": [121, 100 - n],
            "winner": 0,
            "game_points": 2,
            "end": f"2026-12-01T19:0{n}:00.000Z",
        }
        out[f"boardctl/b1/results/2026-12-01/{record['id']}"] = json.dumps(record).encode()
    return out


@pytest.mark.parametrize("restart", ["keep-alive", "kill-persistence", "kill-no-persistence"])
def test_a_follower_away_while_a_result_was_withdrawn_rebuilds_its_view(
    tmp_path: Path, started: list[Broker | Board], restart: str
) -> None:
    broker = Broker(tmp_path / "broker", persistence=restart != "kill-no-persistence")
    broker.start()
    started.append(broker)
    held = records(2)
    for topic, payload in held.items():
        publish(broker, topic, payload)
    config = tmp_path / "config.toml"
    config.write_text(f'[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\nkeepalive = 5\n')
    (tmp_path / "none.jsonl").write_text("")
    out = tmp_path / "follow.out"
    follower = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "boardctl",
            "standings",
            "--follow",
            "--count-unverified",
            "--config",
            str(config),
            "--manual",
            str(tmp_path / "none.jsonl"),
            "--keyring",
            str(tmp_path / "keys.json"),
        ],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=out.open("wb"),
        stderr=subprocess.DEVNULL,
    )
    try:

        def last_count() -> str:
            lines = [x for x in out.read_text().splitlines() if x.startswith("(")]
            return lines[-1] if lines else ""

        assert wait_for(lambda: last_count() == "(2 games, 2 unverified)")
        follower.send_signal(signal.SIGSTOP)
        gone = next(iter(held))
        if restart == "keep-alive":
            # the broker drops the stopped follower (1.5 x its keep-alive) ...
            assert wait_for(lambda: "exceeded timeout" in broker.log(), 30), broker.log()
            publish(broker, gone, b"")  # ... and the withdrawal goes by while it is away
        else:
            if restart == "kill-persistence":
                broker.save()
            broker.kill()
            broker.start()
            if restart == "kill-no-persistence":  # the boards' bridges put theirs back
                for topic, payload in held.items():
                    publish(broker, topic, payload)
            publish(broker, gone, b"")
        follower.send_signal(signal.SIGCONT)
        assert wait_for(lambda: last_count() == "(1 games, 1 unverified)", 40), out.read_text()
    finally:
        follower.send_signal(signal.SIGCONT)
        follower.terminate()
        follower.wait(10)


def test_the_projector_page_feed_rebuilds_after_the_broker_restarts(
    tmp_path: Path, started: list[Broker | Board]
) -> None:
    """``boardctl web`` with results = "mqtt": the feed drops what the broker no longer holds."""
    from boardctl.config import MqttConfig
    from boardctl.web.results import ResultsFeed

    broker = Broker(tmp_path / "broker", persistence=False)
    broker.start()
    started.append(broker)
    held = records(2)
    for topic, payload in held.items():
        publish(broker, topic, payload)
    feed = ResultsFeed(MqttConfig(host="127.0.0.1", port=broker.port, keepalive=5))
    feed.start(lambda: None)
    assert wait_for(lambda: len(feed.results) == 2)
    broker.kill()  # every retained result lost; the game withdrawn while the broker was down
    broker.start()
    topic, payload = next(iter(held.items()))
    publish(broker, topic, payload)  # the board that still holds its game puts it back
    assert wait_for(lambda: set(feed.results) == {("b1", "2026-12-01/1-0")}), feed.results


# --- error paths ------------------------------------------------------------------------


def test_decommission_without_a_broker_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.mqtt_broker import free_port

    config = tmp_path / "config.toml"
    config.write_text(f'[mqtt]\nhost = "127.0.0.1"\nport = {free_port()}\nboard_id = "b1"\n')
    args = ["mqtt", "decommission", "--config", str(config)]
    args += ["--journal", str(tmp_path / "journal.sqlite")]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "cannot reach the MQTT broker 127.0.0.1" in err and "Traceback" not in err


def test_the_directors_keys_are_checked_and_listed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    keys = tmp_path / "board-keys.json"
    good = tmp_path / "board.key"
    key = write_key(good)
    (tmp_path / "bad.key").write_text("not a key\n")
    assert main(["key", "add", "t1", str(tmp_path / "bad.key"), "--keyring", str(keys)]) == 1
    assert "is not a board key" in capsys.readouterr().err and not keys.exists()
    assert main(["key", "add", "room 2/t1", str(good), "--keyring", str(keys)]) == 1
    assert "cannot be an MQTT topic level" in capsys.readouterr().err
    assert main(["key", "add", "t1", "--keyring", str(keys)]) == 1
    assert "key add BOARD FILE" in capsys.readouterr().err
    assert main(["key", "add", "t1", str(good), "--keyring", str(keys)]) == 0
    assert main(["key", "list", "--keyring", str(keys)]) == 0
    from boardctl.results.sign import key_id

    assert capsys.readouterr().out.endswith(f"t1  {key_id(key)}\n")
    keys.write_text('{"version": 1, "keys": {"t1": "abc"}}')
    assert main(["key", "list", "--keyring", str(keys)]) == 1
    assert "is not a file of board keys" in capsys.readouterr().err


def test_a_bridge_that_cannot_read_its_journal_withdraws_nothing(
    tmp_path: Path, started: list[Broker | Board]
) -> None:
    """A wrong --journal (or a damaged journal) must not wipe the board's results."""
    broker = Broker(tmp_path / "broker")
    broker.start()
    started.append(broker)
    board = Board(tmp_path / "b1", broker, "b1")
    started.append(board)
    win(board.keeper, 0, 30)
    board.start()
    assert wait_for(lambda: in_sync(board, broker) and len(board.results()) == 1)
    board.stop()
    held = board.on_broker(snapshot(broker))
    board.journal = tmp_path / "elsewhere" / "journal.sqlite"  # the bridge is pointed wrong
    board.start()
    assert wait_for(lambda: "the journal cannot be read" in board.log.read_text())
    assert board.on_broker(snapshot(broker)) == held


def test_a_client_that_keeps_writing_a_boards_topic_is_corrected_five_times_then_logged(
    tmp_path: Path, started: list[Broker | Board]
) -> None:
    """Two bridges must not fight for ever (a second board given the same id)."""
    broker = Broker(tmp_path / "broker")
    broker.start()
    started.append(broker)
    board = Board(tmp_path / "b1", broker, "b1")
    started.append(board)
    board.start()
    assert wait_for(lambda: "connected to" in board.log.read_text())
    assert wait_for(lambda: in_sync(board, broker))
    topic = f"boardctl/b1/results/{today(time.time())}/5-0"
    logged = f"another client keeps writing {topic}"
    for _ in range(3):  # counted per connection: again if the bridge connected anew meanwhile
        connections = board.log.read_text().count("connected to")
        for _ in range(5):  # each one withdrawn at once
            publish(broker, topic, b'{"board":"b1","id":"5-0"}')
            assert wait_for(lambda: in_sync(board, broker)), board.log.read_text()
        publish(broker, topic, b'{"board":"b1","id":"5-0"}')
        if wait_for(lambda: logged in board.log.read_text()):
            break
        text = board.log.read_text()
        assert text.count("connected to") > connections, text
    assert logged in board.log.read_text()
    assert topic in snapshot(broker)  # left alone until the next connection
