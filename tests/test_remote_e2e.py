"""A linked game over a real mosquitto: a hosting board's service and a joined board's link.

The host is a whole board (``app.build`` on mock pins, :class:`tests.test_e2e.Rig`) with a
``remote.json`` beside its journal; the joined board is :class:`boardctl.remote.guest.GuestLink`
with its outbox. A third client on the broker plays the forger and the replayer.
"""

from __future__ import annotations

import contextlib
import json
import logging
import secrets
import socket
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from gpiozero.pins.mock import MockFactory
from paho.mqtt.enums import CallbackAPIVersion

from boardctl.board import pixel
from boardctl.board.overlay import WHITE, OverlayRenderer
from boardctl.board.screen import mode_note
from boardctl.cli.verbs import format_status
from boardctl.config import MqttConfig, parse_config
from boardctl.link import RecordingLink
from boardctl.remote import link_path, paired
from boardctl.remote.guest import GuestLink, host_view
from boardctl.remote.joined import JoinedKeeper
from boardctl.remote.messages import encode, game_id, link_key, topic
from boardctl.remote.store import OUTBOX_FILE, Outbox
from boardctl.service import client
from boardctl.service.app import make_renderer
from tests.mqtt_broker import Broker, have_mosquitto
from tests.tcp_proxy import Proxy
from tests.test_e2e import FAST, STEADY, ManualClock, Rig

# The linked boards meet on a real mosquitto (.ci/run installs it): missing, the tests fail.
assert have_mosquitto(), "these tests need mosquitto (apt-get install mosquitto)"


def new_secret() -> bytes:
    """Each test's own link (its own topics and client ids, whatever a port is reused for)."""
    return secrets.token_bytes(12)


def wait_for(check: Callable[[], bool], seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


class Linked:
    """A broker, a hosting board and a joined board's link, on one game."""

    def __init__(self, tmp_path: Path, factory: MockFactory) -> None:
        self.broker = Broker(tmp_path / "broker")
        self.broker.start()
        self.mqtt = MqttConfig(host="127.0.0.1", port=self.broker.port, keepalive=5)
        journal = tmp_path / "host" / "state" / "journal.sqlite"
        journal.parent.mkdir(parents=True)
        self.journal = journal
        self.secret = new_secret()
        self.link = paired.Pairing("host", self.secret, tracks=(0, 1))  # both: the joined's
        paired.save(link_path(journal), self.link)
        config = parse_config(
            {
                **FAST,
                "game": {"mode": "free"},
                "mqtt": {"host": "127.0.0.1", "port": self.broker.port, "keepalive": 5},
            }
        )
        self.host = Rig(tmp_path / "host", factory, config, RecordingLink())
        assert self.host.board.remote.host is not None
        self.outbox_path = tmp_path / "guest" / OUTBOX_FILE
        self.guest = self.join()

    def join(self) -> GuestLink:
        guest = GuestLink(
            paired.Pairing("guest", self.secret),
            self.mqtt,
            Outbox(self.outbox_path, game_id(self.secret)),
        )
        wait_for(lambda: guest.connected)
        return guest

    def front(self, track: int) -> int:
        return int(self.host.status()["tracks"][track]["front"])

    def journalled(self, request_id: str) -> int:
        with sqlite3.connect(self.journal) as db:
            return int(
                db.execute(
                    "SELECT count(*) FROM events WHERE request = ?", (request_id,)
                ).fetchone()[0]
            )

    def same_board(self) -> bool:
        shown = self.guest.state
        host = self.host.status()
        if shown is None:
            return False
        return bool(
            shown["status"]["tracks"] == host["tracks"] and shown["status"]["seq"] == host["seq"]
        )

    def close(self) -> None:
        self.guest.close()
        self.host.close()
        self.broker.kill()


@pytest.fixture
def linked(tmp_path: Path, mock_factory: MockFactory) -> Iterator[Linked]:
    game = Linked(tmp_path, mock_factory)
    try:
        yield game
    finally:
        game.close()


class Rogue:
    """A third client on the broker: it hears the game's messages and sends its own."""

    def __init__(self, port: int) -> None:
        self.heard: list[tuple[str, bytes]] = []  # topic, payload
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="rogue")
        self.client.on_message = lambda c, u, m: self.heard.append((m.topic, bytes(m.payload)))
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        done = threading.Event()
        self.client.on_subscribe = lambda *args: done.set()
        self.client.subscribe("boardctl/remote/#", qos=1)
        assert done.wait(10)

    def send(self, where: str, payload: bytes) -> None:
        self.client.publish(where, payload, qos=1).wait_for_publish(10)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def test_a_peg_on_the_joined_board_is_journalled_once_by_the_host_and_both_show_it(
    linked: Linked,
) -> None:
    rid = linked.guest.submit({"op": "peg", "track": 1, "points": 3})
    wait_for(lambda: linked.guest.outbox.answer(rid) is not None)
    answer = linked.guest.outbox.answer(rid)
    assert answer is not None and answer["ok"] is True
    assert linked.front(1) == 3
    assert linked.journalled(rid) == 1
    wait_for(linked.same_board)
    assert linked.guest.outbox.pending() == []
    state = linked.guest.state
    assert state is not None
    board = linked.host.board
    brightness = board.config.board.brightness
    renderer = OverlayRenderer(make_renderer(board.layout, board.config, brightness), board.layout)
    lit = renderer.render(host_view(state), time.monotonic())
    wait_for(lambda: lit == linked.host.link.frames[-1])  # the host's LEDs, once settled


def test_a_refused_entry_is_answered_with_the_hosts_reason_and_changes_nothing(
    linked: Linked,
) -> None:
    before = linked.host.status()["seq"]
    rid = linked.guest.submit({"op": "peg", "track": 7, "points": 3})
    wait_for(lambda: linked.guest.outbox.answer(rid) is not None)
    answer = linked.guest.outbox.answer(rid)
    assert answer is not None and answer["ok"] is False and "track" in answer["error"]
    assert linked.journalled(rid) == 0
    settings = linked.guest.submit({"op": "set", "key": "brightness", "value": 9})
    wait_for(lambda: linked.guest.outbox.answer(settings) is not None)
    refused = linked.guest.outbox.answer(settings)
    assert refused is not None and "may not send" in refused["error"]
    assert linked.host.status()["seq"] == before


def test_forged_and_foreign_messages_are_refused_and_logged_and_replays_apply_nothing(
    linked: Linked, caplog: pytest.LogCaptureFixture
) -> None:
    rogue = Rogue(linked.broker.port)
    cmd = topic("boardctl", linked.link.game, "cmd")
    try:
        rid = linked.guest.submit({"op": "peg", "track": 0, "points": 2})
        wait_for(lambda: linked.guest.outbox.answer(rid) is not None)
        captured = next(p for t, p in rogue.heard if t == cmd)
        before = linked.host.status()["seq"]
        with caplog.at_level(logging.WARNING, logger="boardctl.remote"):
            peg = {"op": "peg", "track": 0, "points": 29}
            forged = encode(
                "cmd",
                "guest",
                game=linked.link.game,
                key=link_key(bytes(12)),
                body={"entry": peg, "after": ""},
                request_id="forged",
            )
            rogue.send(cmd, forged)
            changed = json.loads(captured)
            changed["body"]["entry"]["points"] = 29
            rogue.send(cmd, json.dumps(changed).encode())
            rogue.send(cmd, b"peg 29")
            rogue.send(cmd, captured)  # a replay of the joined board's own command
            host = linked.host.board.remote.host
            assert host is not None
            wait_for(lambda: len(host.refused) == 3)
            answers = topic("boardctl", linked.link.game, "answer")
            wait_for(lambda: sum(t == answers for t, _ in rogue.heard) >= 2)
        assert "forged or changed" in host.refused[1]
        assert "not the link's" in host.refused[0]
        assert sum("refused a message" in r.getMessage() for r in caplog.records) == 3
        assert linked.host.status()["seq"] == before  # nothing applied
        assert linked.front(0) == 2 and linked.journalled(rid) == 1
        replies = [json.loads(p) for t, p in rogue.heard if t == answers]
        assert replies[0]["body"] == replies[-1]["body"]  # the replay got the first answer
    finally:
        rogue.close()


def test_commands_entered_while_the_broker_is_down_arrive_once_after_it_is_back(
    linked: Linked,
) -> None:
    first = linked.guest.submit({"op": "peg", "track": 0, "points": 1})
    wait_for(lambda: linked.guest.outbox.answer(first) is not None)
    linked.broker.kill()
    wait_for(lambda: not linked.guest.connected)
    ids = [linked.guest.submit({"op": "peg", "track": 1, "points": p}) for p in (2, 3, 4)]
    assert [rid for rid, *_ in linked.guest.outbox.pending()] == ids
    linked.broker.start()
    wait_for(lambda: linked.guest.outbox.pending() == [], seconds=60)
    assert linked.front(0) == 1 and linked.front(1) == 9
    assert [linked.journalled(rid) for rid in [first, *ids]] == [1, 1, 1, 1]
    wait_for(linked.same_board)


def test_a_joined_board_restarted_with_commands_unsent_sends_them_with_the_same_ids(
    linked: Linked,
) -> None:
    linked.guest.close()
    linked.broker.kill()  # nothing can reach the host: the entries wait in the outbox
    guest = GuestLink(
        paired.Pairing("guest", linked.secret),
        linked.mqtt,
        Outbox(linked.outbox_path, game_id(linked.secret)),
    )
    ids = [guest.submit({"op": "peg", "track": 0, "points": p}) for p in (5, 6)]
    guest.close()  # a power cut: only the outbox remains
    linked.broker.start()
    linked.guest = linked.join()
    wait_for(lambda: linked.guest.outbox.pending() == [], seconds=60)
    assert linked.front(0) == 11
    assert [linked.journalled(rid) for rid in ids] == [1, 1]


def test_entries_made_while_the_host_is_off_are_applied_once_when_it_is_back(
    linked: Linked, tmp_path: Path, mock_factory: MockFactory
) -> None:
    config = linked.host.config
    linked.host.close()  # the hosting board is switched off
    ids = [linked.guest.submit({"op": "peg", "track": 1, "points": p}) for p in (4, 4)]
    assert len(linked.guest.outbox.pending()) == 2
    linked.host = Rig(tmp_path / "host", mock_factory, config, RecordingLink())
    wait_for(lambda: linked.guest.outbox.pending() == [], seconds=60)
    assert linked.front(1) == 8
    assert [linked.journalled(rid) for rid in ids] == [1, 1]
    wait_for(linked.same_board)


class TwoBoards:
    """Two whole boards (services on mock pins) linked through a real mosquitto.

    Each board runs on its own :class:`ManualClock`: its presses, holds and commits are timed by
    the test's steps, so a busy machine cannot turn a press into a hold or lose one.
    """

    def __init__(
        self,
        tmp_path: Path,
        factory: MockFactory,
        *,
        game: dict[str, Any] | None = None,
        linked: bool = True,
        joined_own: dict[str, Any] | None = None,
    ) -> None:
        self.linked = linked  # False: both boards start alone (boardctl remote links them later)
        self.broker = Broker(tmp_path / "broker")
        self.broker.start()
        mqtt_section = {"host": "127.0.0.1", "port": self.broker.port, "keepalive": 5}
        timings = STEADY  # every entry ends with its own commit: room for a busy machine
        game = game or {"mode": "free"}
        self.config = parse_config({**timings, "game": game, "mqtt": mqtt_section})
        self.folders = {side: tmp_path / side for side in ("host", "joined")}
        self.secret = new_secret()
        for side, role in (("host", "host"), ("joined", "guest")):
            where = link_path(self.folders[side] / "state" / "journal.sqlite")
            where.parent.mkdir(parents=True)
            if linked:
                paired.save(where, paired.Pairing(role, self.secret))
        self.host = Rig(
            self.folders["host"], factory, self.config, RecordingLink(), clock=ManualClock()
        )
        # the joined board reaches the broker through a proxy: its home's network
        self.network = Proxy(("127.0.0.1", self.broker.port))
        joined_mqtt = {**mqtt_section, "port": self.network.port}
        joined = {**timings, "game": game, "mqtt": joined_mqtt, **(joined_own or {})}
        self.joined_config = parse_config(joined)  # joined_own: its own [board], [sound]...
        self.joined = self.start_joined()

    def start_joined(self) -> Rig:
        folder, link = self.folders["joined"], RecordingLink()
        rig = Rig(folder, MockFactory(), self.joined_config, link, clock=ManualClock())
        assert isinstance(rig.loop.keeper, JoinedKeeper) or not self.linked
        return rig

    @property
    def keeper(self) -> JoinedKeeper:
        keeper = self.joined.loop.keeper
        assert isinstance(keeper, JoinedKeeper)
        return keeper

    def sent(self) -> list[str]:
        """The request ids the joined board made, in order."""
        with sqlite3.connect(self.folders["joined"] / "state" / OUTBOX_FILE) as db:
            return [row[0] for row in db.execute("SELECT request_id FROM outbox ORDER BY number")]

    def journalled(self, request_id: str) -> int:
        with sqlite3.connect(self.folders["host"] / "state" / "journal.sqlite") as db:
            query = "SELECT count(*) FROM events WHERE request = ?"
            return int(db.execute(query, (request_id,)).fetchone()[0])

    def same_lights(self) -> bool:
        frames = self.host.link.frames, self.joined.link.frames
        return bool(frames[0] and frames[1] and frames[0][-1] == frames[1][-1])

    def status(self, side: str) -> dict[str, Any]:
        """What ``boardctl status`` gets from the board's control socket."""
        answer = client.request(self.folders[side] / "run" / "control.sock", {"op": "status"})
        assert isinstance(answer, dict)
        return answer

    def ask(self, side: str, request: dict[str, Any]) -> dict[str, Any]:
        """A control client's request to the board, its whole reply (``ok`` and all)."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(10)
            sock.connect(str(self.folders[side] / "run" / "control.sock"))
            sock.sendall(json.dumps(request).encode() + b"\n")
            answer: dict[str, Any] = json.loads(sock.makefile("rb").readline())
        return answer

    def close(self) -> None:
        self.joined.close()
        self.host.close()
        self.network.close()
        self.broker.kill()


@pytest.fixture
def boards(tmp_path: Path, mock_factory: MockFactory) -> Iterator[TwoBoards]:
    game = TwoBoards(tmp_path, mock_factory)
    try:
        yield game
    finally:
        game.close()


@contextlib.contextmanager
def linked_boards(tmp_path: Path, factory: MockFactory) -> Iterator[TwoBoards]:
    """Two boards, the host reached and its first board shown on the joined one."""
    game = TwoBoards(tmp_path, factory)
    try:
        wait_for(lambda: game.keeper.guest.reachable and game.keeper.guest.state is not None)
        yield game
    finally:
        game.close()


def test_each_board_keeps_its_own_brightness_volume_and_layout(
    tmp_path: Path, mock_factory: MockFactory
) -> None:
    own = {"board": {"layout": "three-121", "brightness": 60}, "sound": {"buzzer": 18}}
    boards = TwoBoards(tmp_path, mock_factory, joined_own=own)
    try:
        guest = boards.keeper.guest
        wait_for(lambda: guest.reachable and guest.state is not None)
        for side, key, value in (("joined", "brightness", 30), ("joined", "volume", 0.3)):
            answer = boards.ask(side, {"op": "set", "key": key, "value": value})
            assert answer["ok"] is True, answer
        boards.ask("host", {"op": "set", "key": "brightness", "value": 200})
        boards.host.enter(1, 4)  # the host's count, shown on both boards
        wait_for(lambda: boards.joined.status()["tracks"][0]["front"] == 4)
        joined, host = boards.status("joined"), boards.status("host")
        assert (joined["brightness"], joined["volume"]) == (30, 0.3)
        assert host["brightness"] == 200 and "volume" not in host  # the host has no sound
        # the joined board draws the host's game on its own layout, at its own brightness
        layout, hosts = boards.joined.board.layout, boards.host.board.layout
        assert layout.led_count != hosts.led_count
        drawn = OverlayRenderer(make_renderer(layout, boards.joined_config, 30), layout)

        def shown() -> bool:
            boards.joined.sync()
            view, now = boards.joined.loop.view(), boards.joined.loop.clock()
            return bool(drawn.render(view, now) == boards.joined.link.frames[-1])

        wait_for(shown)
        front = pixel(boards.joined.link.frames[-1], layout.led_of(0, 4))
        assert 0 < max(front) < max(pixel(boards.host.link.frames[-1], hosts.led_of(0, 4)))
        assert boards.host.status()["tracks"][0]["front"] == 4  # the game is the host's
    finally:
        boards.close()


def test_a_count_entered_on_the_joined_boards_buttons_is_journalled_once_by_the_host(
    boards: TwoBoards,
) -> None:
    wait_for(lambda: boards.keeper.guest.state is not None)
    boards.joined.enter(2, 7)  # +5, +1, +1 and the encoder push, on the joined board
    wait_for(lambda: boards.keeper.guest.outbox.pending() == [] and len(boards.sent()) == 1)
    (rid,) = boards.sent()
    assert boards.journalled(rid) == 1
    assert boards.host.status()["tracks"][1]["front"] == 7
    wait_for(lambda: boards.joined.status()["tracks"][1]["front"] == 7)
    wait_for(boards.same_lights)  # the joined board's LEDs show the host's board
    remote = boards.status("joined")["remote"]
    assert remote["role"] == "guest" and remote["connected"] and remote["unanswered"] == 0
    boards.host.enter(1, 4)  # and a count on the host shows on the joined board
    boards.host.wait_for(lambda: boards.host.status()["tracks"][0]["front"] == 4)
    wait_for(lambda: boards.joined.status()["tracks"][0]["front"] == 4)
    wait_for(boards.same_lights)


def test_entries_on_the_joined_board_while_the_broker_is_down_blink_then_arrive_once(
    boards: TwoBoards,
) -> None:
    wait_for(lambda: boards.keeper.guest.state is not None)
    boards.broker.kill()
    wait_for(lambda: not boards.keeper.guest.connected)
    boards.joined.enter(2, 3)
    boards.joined.enter(2, 6)
    wait_for(lambda: len(boards.sent()) == 2)
    shown = boards.joined.loop.view()
    assert [t.pending for t in shown.tracks] == [0, 9]  # waiting for the host: blinking
    assert boards.status("joined")["remote"]["unanswered"] == 2
    boards.broker.start()
    wait_for(lambda: boards.keeper.guest.outbox.pending() == [], seconds=60)
    assert [boards.journalled(rid) for rid in boards.sent()] == [1, 1]
    assert [t["front"] for t in boards.host.status()["tracks"]] == [0, 9]
    # confirmed: the blink stops (a blink's lit phase may match the host's frame before it does)
    wait_for(lambda: [t.pending for t in boards.joined.loop.view().tracks] == [0, 0])
    wait_for(boards.same_lights)


def test_a_joined_board_switched_off_with_entries_unsent_sends_them_once_when_back(
    boards: TwoBoards,
) -> None:
    wait_for(lambda: boards.keeper.guest.state is not None)
    boards.broker.kill()
    boards.joined.enter(2, 5)
    wait_for(lambda: len(boards.sent()) == 1)
    boards.joined.close()  # the power goes at the joined board's home
    boards.broker.start()
    boards.joined = boards.start_joined()
    wait_for(lambda: boards.keeper.guest.outbox.pending() == [], seconds=60)
    (rid,) = boards.sent()
    assert boards.journalled(rid) == 1
    assert boards.host.status()["tracks"][1]["front"] == 5
    wait_for(boards.same_lights)


def test_the_joined_board_shows_the_link_lost_sign_while_the_host_is_away(
    boards: TwoBoards, tmp_path: Path, mock_factory: MockFactory
) -> None:
    wait_for(lambda: boards.keeper.guest.reachable)
    wait_for(lambda: not boards.joined.loop.view().extra.link_lost)  # at the loop's next view
    boards.host.close()  # the host's home switches its board off
    wait_for(lambda: boards.joined.loop.view().extra.link_lost)
    status = boards.status("joined")
    assert status["remote"]["link_lost"] is True
    assert "LINK LOST (cannot reach the host)" in format_status(status)
    assert "link lost" in mode_note(boards.joined.loop.view())  # the virtual board says it
    layout = boards.joined.board.layout
    starts = [layout.led_of(track, 0) for track in range(len(layout.tracks))]
    wait_for(
        lambda: all(pixel(boards.joined.link.frames[-1], led) == tuple(WHITE) for led in starts)
    )
    boards.joined.enter(2, 2)  # entered while the host is away: kept, sent when it is back
    boards.host = Rig(boards.folders["host"], mock_factory, boards.config, RecordingLink())
    wait_for(lambda: not boards.joined.loop.view().extra.link_lost)
    wait_for(lambda: boards.keeper.guest.outbox.pending() == [])
    assert boards.host.status()["tracks"][1]["front"] == 2
    wait_for(boards.same_lights)
    assert "host reachable" in format_status(boards.status("joined"))
    wait_for(lambda: boards.status("host")["remote"]["joined_online"])
    host_line = format_status(boards.status("host"))
    assert "hosted here, on the broker; the joined board online" in host_line


def test_the_joined_board_shows_the_link_lost_sign_while_the_broker_is_away(
    boards: TwoBoards,
) -> None:
    # the host reached and its board shown (before its first state the sign is up anyway)
    wait_for(lambda: not boards.joined.loop.view().extra.link_lost)
    boards.broker.kill()
    wait_for(lambda: boards.joined.loop.view().extra.link_lost)
    assert "cannot reach the broker" in format_status(boards.status("joined"))
    boards.broker.start()
    wait_for(lambda: not boards.joined.loop.view().extra.link_lost, seconds=60)


def test_the_host_applies_entries_in_the_order_they_were_made_whatever_order_they_arrive(
    linked: Linked,
) -> None:
    sender = Rogue(linked.broker.port)  # here: the joined board's key, sending out of order
    cmd = topic("boardctl", linked.link.game, "cmd")
    try:

        def entry(rid: str, after: str, points: int) -> bytes:
            body = {"entry": {"op": "peg", "track": 0, "points": points}, "after": after}
            return encode("cmd", "guest", game=linked.link.game, key=linked.link.key, body=body,
                          request_id=rid)  # fmt: skip

        sender.send(cmd, entry("second", "first", 5))  # arrives before the one made before it
        sender.send(cmd, entry("first", "", 1))
        sender.send(cmd, entry("second", "first", 5))  # the joined board's resend
        answers = topic("boardctl", linked.link.game, "answer")
        wait_for(lambda: sum(t == answers for t, _ in sender.heard) == 2)
        with sqlite3.connect(linked.journal) as db:
            rows = db.execute("SELECT request FROM events WHERE request IS NOT NULL ORDER BY seq")
            assert [row[0] for row in rows] == ["first", "second"]
        assert linked.front(0) == 6
    finally:
        sender.close()


def test_a_guided_game_played_on_two_boards_each_entering_its_own_players_counts(
    tmp_path: Path, mock_factory: MockFactory
) -> None:
    boards = TwoBoards(tmp_path, mock_factory, game={"mode": "guided", "variant": "six-card"})
    host, joined = boards.host, boards.joined
    board_of = {0: host, 1: joined}  # the host's player is track 1, the joined board's track 2

    def settled() -> None:
        """The joined board's entries answered, and the joined board showing the host's game."""
        wait_for(lambda: boards.keeper.guest.outbox.pending() == [])
        wait_for(lambda: joined.status()["seq"] == host.status()["seq"])

    try:
        wait_for(lambda: boards.keeper.guest.state is not None)
        joined.press("track2.plus1")  # the cut, on the joined board: track 2 deals first
        joined.wait_for(lambda: host.status()["phase"] == "deal")  # its idle commit, then sent
        settled()
        assert host.status()["phase"] == "deal" and host.status()["dealer"] == 1
        hands = 0
        while host.status()["winner"] is None:
            hands += 1
            assert hands < 40
            dealer = host.status()["dealer"]
            pone = 1 - dealer
            host.press("menu")  # dealt: to the play
            settled()
            assert joined.status()["phase"] == "play"
            for track, points in ((pone, 2), (dealer, 1)):  # a fifteen, a go
                board_of[track].enter(track + 1, points)
                settled()
            if host.status()["winner"] is not None:
                break
            host.press("menu")  # to the show
            settled()
            for track, points in ((pone, 24), (dealer, 20), (dealer, 16)):
                if host.status()["winner"] is not None:
                    break
                assert joined.status()["to_count"] == track
                board_of[track].enter(track + 1, points)
                settled()
        status = host.status()
        assert status["phase"] == "over" and status["tracks"][status["winner"]]["front"] == 121
        assert joined.status()["tracks"] == status["tracks"]
        wait_for(boards.same_lights)
        before = host.status()["seq"]
        joined.enter(2, 19)  # no hand counts 19: the host refuses it, and says so
        settled()
        assert host.status()["seq"] == before
        assert boards.status("joined")["remote"]["refused"]
        shown = host.loop.view().extra.refusal
        assert shown is not None  # the host flashes the refusal's sign ...
        wait_for(lambda: joined.loop.view().extra.refusal == shown)  # ... and so does the joined
    finally:
        boards.close()


def test_the_joined_homes_network_gone_for_a_while_loses_and_doubles_nothing(
    boards: TwoBoards,
) -> None:
    wait_for(lambda: boards.keeper.guest.reachable)
    boards.joined.enter(2, 1)
    wait_for(lambda: boards.keeper.guest.outbox.pending() == [])
    boards.network.cut()  # the joined home's network drops: its connection is reset
    wait_for(lambda: boards.joined.loop.view().extra.link_lost)
    boards.joined.enter(2, 2)
    boards.joined.enter(2, 3)
    boards.host.enter(1, 4)  # the host plays on meanwhile
    assert boards.status("joined")["remote"]["unanswered"] == 2
    boards.network.mend()
    wait_for(lambda: boards.keeper.guest.outbox.pending() == [], seconds=60)
    assert [boards.journalled(rid) for rid in boards.sent()] == [1, 1, 1]
    assert [t["front"] for t in boards.host.status()["tracks"]] == [4, 6]
    wait_for(lambda: not boards.joined.loop.view().extra.link_lost)
    wait_for(boards.same_lights)


@pytest.mark.parametrize("role", ["host", "guest"])
def test_a_linked_board_whose_broker_settings_are_wrong_plays_alone_and_says_why(
    tmp_path: Path, mock_factory: MockFactory, caplog: pytest.LogCaptureFixture, role: str
) -> None:
    where = link_path(tmp_path / "state" / "journal.sqlite")
    where.parent.mkdir(parents=True)
    paired.save(where, paired.Pairing(role, new_secret()))
    mqtt_section = {"host": "127.0.0.1", "tls": True, "ca_file": str(tmp_path / "missing.pem")}
    config = parse_config({**STEADY, "game": {"mode": "free"}, "mqtt": mqtt_section})
    with caplog.at_level(logging.ERROR, logger="boardctl.remote"):
        rig = Rig(tmp_path, mock_factory, config, RecordingLink(), clock=ManualClock())
    try:
        assert rig.board.remote.host is None and rig.board.remote.joined is None
        assert any("the link is not started" in r.getMessage() for r in caplog.records)
        assert "missing.pem: no such file" in caplog.text
        rig.enter(1, 3)  # the board still keeps its own score
        assert rig.status()["tracks"][0]["front"] == 3
    finally:
        rig.close()


def test_a_control_clients_request_id_on_the_joined_board_is_the_one_the_host_journals(
    boards: TwoBoards,
) -> None:
    wait_for(lambda: boards.keeper.guest.reachable)
    sock = boards.folders["joined"] / "run" / "control.sock"
    peg = {"op": "peg", "track": 1, "points": 2, "request_id": "cli-peg-1"}
    first = client.request(sock, peg)  # as `boardctl peg 2 2` on the joined board sends it
    again = client.request(sock, peg)  # its retry, after no reply came
    assert first["ok"] and again["repeated"] is True
    assert boards.sent() == ["cli-peg-1"]
    wait_for(lambda: boards.keeper.guest.outbox.pending() == [])
    assert boards.journalled("cli-peg-1") == 1
    assert boards.host.status()["tracks"][1]["front"] == 2
