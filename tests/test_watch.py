"""``watch``: a control client sees every committed event and every change of the board.

The loop and the control server run in the test's thread (``run_once``); the
watchers are real Unix-socket clients.
"""

from __future__ import annotations

import json
import logging
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from boardctl.board import Renderer, builtin_layout
from boardctl.board.overlay import OverlayRenderer
from boardctl.cli import main
from boardctl.game.commands import Peg, Undo
from boardctl.game.keeper import Scorekeeper
from boardctl.inputs.events import Tap
from boardctl.inputs.panel import Panel
from boardctl.link import RecordingLink
from boardctl.service import client, control
from boardctl.service.control import ControlServer
from boardctl.service.loop import ServiceLoop
from boardctl.service.requests import PROTOCOL_VERSION


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Board:
    """A service loop with its control server, driven turn by turn."""

    def __init__(self, path: Path) -> None:
        layout = builtin_layout("two-121")
        keeper = Scorekeeper.memory({"variant": "six-card", "mode": "free"})
        self.clock = Clock()
        self.link = RecordingLink()
        self.loop = ServiceLoop(
            keeper,
            OverlayRenderer(Renderer(layout), layout),
            self.link,
            panel=Panel(tracks=2),
            clock=self.clock,
        )
        self.server = ControlServer(
            path, self.loop.requests.handle, self.loop.selector, watch=self.loop.watch
        )
        self.loop.add_timer(self.server.deadline, self.server.tick)
        self.loop.start()

    def turn(self, times: int = 3) -> None:
        for _ in range(times):
            self.loop.run_once(max_wait=0.01)

    def close(self) -> None:
        self.server.close()
        self.loop.close()


class Watcher:
    """A raw watching client: reads lines without blocking the test."""

    def __init__(self, path: Path, *, receive_buffer: int | None = None) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        if receive_buffer is not None:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        self.sock.connect(str(path))
        self.sock.setblocking(False)
        self.buffer = bytearray()

    def send(self, message: dict[str, Any]) -> None:
        self.sock.sendall(json.dumps(message).encode() + b"\n")

    def lines(self, board: Board) -> list[dict[str, Any]]:
        """Every complete line received after a few turns of the loop."""
        board.turn()
        while True:
            try:
                chunk = self.sock.recv(65536)
            except BlockingIOError:
                break
            if not chunk:
                break
            self.buffer += chunk
        out = []
        while b"\n" in self.buffer:
            end = self.buffer.index(b"\n")
            out.append(json.loads(bytes(self.buffer[:end])))
            del self.buffer[: end + 1]
        return out

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def board(tmp_path: Path) -> Iterator[Board]:
    made = Board(tmp_path / "control.sock")
    yield made
    made.close()


def test_a_watcher_gets_a_snapshot_then_a_press_its_event_and_the_new_state(
    board: Board,
) -> None:
    watcher = Watcher(board.server.path)
    watcher.send({"op": "watch", "id": 7})
    (reply,) = watcher.lines(board)
    assert reply["ok"] is True and reply["id"] == 7
    snapshot = reply["result"]
    assert snapshot["protocol"] == PROTOCOL_VERSION
    assert snapshot["status"]["tracks"][0]["front"] == 0
    assert snapshot["view"]["tracks"][0]["front"] == 0
    n = snapshot["n"]

    board.loop.post(Tap("track1.plus5"))
    (pending,) = watcher.lines(board)  # the pending amount shows before any commit
    assert pending["n"] == n + 1
    assert pending["state"]["status"]["pending"] == [5, 0]
    assert pending["state"]["view"]["tracks"][0]["pending"] == 5

    board.loop.post(Tap("track1.encoder_push"))  # commit now
    event, state = watcher.lines(board)
    assert event == {
        "n": n + 2,
        "event": {"op": "peg", "track": 0, "points": 5, "kind": "pegging"},
        "seq": 2,
    }
    assert state["n"] == n + 3
    assert state["state"]["status"]["tracks"][0]["front"] == 5
    assert state["state"]["status"]["seq"] == 2
    assert state["state"]["view"]["tracks"][0]["pending"] == 0
    watcher.close()


def test_commands_from_another_client_reach_the_watcher_in_order(board: Board) -> None:
    watcher = Watcher(board.server.path)
    watcher.send({"op": "watch"})
    (reply,) = watcher.lines(board)
    other = Watcher(board.server.path)
    other.send({"op": "peg", "track": 1, "points": 12, "kind": "hand"})
    other.send({"op": "undo"})
    messages = watcher.lines(board)
    assert [m["n"] for m in messages] == list(
        range(reply["result"]["n"] + 1, reply["result"]["n"] + 1 + len(messages))
    )  # numbered without gaps
    events = [m["event"]["op"] for m in messages if "event" in m]
    assert events == ["peg", "undo"]
    assert messages[-1]["state"]["status"]["tracks"][1]["front"] == 0
    assert [r["ok"] for r in other.lines(board)] == [True, True]  # replies go to the sender
    watcher.close()
    other.close()


def test_a_watcher_is_not_dropped_for_being_idle(board: Board) -> None:
    from boardctl.service.control import CLIENT_TIMEOUT

    watcher = Watcher(board.server.path)
    watcher.send({"op": "watch"})
    assert watcher.lines(board)[0]["ok"]
    board.clock.now += CLIENT_TIMEOUT * 3
    board.turn()
    assert board.server.clients == 1 and board.loop.watch.watchers == 1
    watcher.close()


def test_a_watcher_that_never_reads_is_dropped_and_the_buttons_keep_going(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(control, "MAX_WATCH_BUFFER", 8 * 1024)
    board = Board(tmp_path / "control.sock")
    stuck = Watcher(board.server.path, receive_buffer=1024)
    stuck.send({"op": "watch"})
    board.turn()
    assert board.loop.watch.watchers == 1
    keeper: Any = board.loop.keeper
    presses = 0
    with caplog.at_level(logging.WARNING, logger="boardctl.service.control"):
        while board.loop.watch.watchers and presses < 5000:
            board.loop.dispatcher.execute(Peg(0, 1))
            board.loop.dispatcher.execute(Undo())
            board.turn(1)
            presses += 2
    assert board.loop.watch.watchers == 0, "the stuck watcher was never dropped"
    assert board.server.clients == 0
    drops = [r for r in caplog.records if "does not read its watch stream" in r.message]
    assert len(drops) == 1
    # every press went through while the watcher was stuck, and the board still serves
    assert keeper.seq == 1 + presses
    board.loop.dispatcher.execute(Peg(1, 2))
    assert keeper.status()["tracks"][1]["front"] == 2
    fresh = Watcher(board.server.path)
    fresh.send({"op": "ping"})
    assert fresh.lines(board)[0]["result"]["protocol"] == PROTOCOL_VERSION
    fresh.close()
    stuck.close()
    board.close()


def test_client_watch_and_the_cli_verb_print_the_stream(
    board: Board, capsys: pytest.CaptureFixture[str]
) -> None:
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            board.loop.run_once(max_wait=0.01)

    messages: list[Any] = []
    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        stream = client.watch(board.server.path, timeout=5)
        messages.append(next(stream))
        board.loop.post(Tap("track2.plus1"))
        messages.append(next(stream))
        stream.close()
        status = main(["watch", "--socket", str(board.server.path), "--count", "1"])
    finally:
        stop.set()
        thread.join(5)
    assert messages[0]["protocol"] == PROTOCOL_VERSION
    assert messages[1]["state"]["status"]["pending"] == [0, 1]
    assert status == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert json.loads(line)["status"]["pending"] == [0, 1]
