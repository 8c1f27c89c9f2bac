"""A press is shown first, journalled next, acknowledged last; a failed write is taken back.

The loop runs with the real engine, journal (SQLite), renderer and control
server; the link, the journal's connection and the notifier record the
order in which things happen.
"""

from __future__ import annotations

import json
import logging
import socket
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from boardctl.board import Renderer, builtin_layout
from boardctl.board.overlay import OverlayRenderer
from boardctl.board.signs import SIGN_SECONDS
from boardctl.game.keeper import Scorekeeper
from boardctl.inputs.events import Tap
from boardctl.inputs.panel import Panel
from boardctl.service.control import ControlServer
from boardctl.service.loop import ServiceLoop
from boardctl.service.notify import Notifier

LAYOUT = builtin_layout("two-121")


def lit(frame: bytes, track: int, hole: int) -> bool:
    led = LAYOUT.led_of(track, hole)
    return frame[3 * led : 3 * led + 3] != b"\0\0\0"


class Board:
    """A service loop on a real journal, with every step of an entry logged in ``order``."""

    def __init__(self, tmp: Path) -> None:
        self.order: list[str] = []
        self.frames: list[bytes] = []
        self.path = tmp / "journal.sqlite"
        self.keeper = Scorekeeper.open(self.path, setup={"variant": "six-card", "mode": "free"})
        assert self.keeper.journal is not None
        self.db = self.keeper.journal._db
        self.keeper.journal._db = self  # type: ignore[assignment]
        reopen = self.keeper.journal.reopen

        def reopen_through_this(journal: Any = self.keeper.journal) -> None:
            journal._db = self.db  # it closes the real connection, not this stand-in
            reopen()  # a failed write reconnects: the new connection goes through here too
            self.db = journal._db
            journal._db = self

        self.keeper.journal.reopen = reopen_through_this  # type: ignore[method-assign]
        self.fail_writes = False
        self.reply_waiting: list[bool] = []
        self.loop = ServiceLoop(
            self.keeper,
            OverlayRenderer(Renderer(LAYOUT), LAYOUT),
            self,
            panel=Panel(tracks=2),
            notifier=RecordingNotifier(self.order),
        )
        self.control = ControlServer(
            tmp / "control.sock", self.handle, self.loop.selector, watch=self.loop.watch
        )
        self.client: socket.socket | None = None

    # the journal's connection
    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        if sql.startswith("INSERT INTO events"):
            if self.fail_writes:
                raise sqlite3.OperationalError("database or disk is full")
            cursor = self.db.execute(sql, *args)
            self.order.append(f"journal {args[0][0]}")
            return cursor
        return self.db.execute(sql, *args)

    @property
    def in_transaction(self) -> bool:
        return self.db.in_transaction

    # the link
    @property
    def connected(self) -> bool:
        return True

    def show(self, frame: bytes) -> None:
        self.order.append("frame")
        self.frames.append(frame)
        # a kill -9 now: the frame is out, the journal and a restarted service know nothing
        with Scorekeeper.open(self.path, readonly=True) as restarted:
            self.restarted_seq = restarted.seq
        self.reply_waiting.append(self.client is not None and self.pending_reply())

    def set_brightness(self, level: float) -> None:
        pass

    def goodbye(self) -> None:
        pass

    def close(self) -> None:
        pass

    # the control socket
    def handle(self, request: dict[str, Any]) -> Any:
        result = self.loop.requests.handle(request)
        self.order.append("reply")
        return result

    def connect(self) -> socket.socket:
        self.client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.client.connect(str(self.control.path))
        self.loop.run_once(max_wait=0.5)  # accept
        return self.client

    def pending_reply(self) -> bool:
        assert self.client is not None
        self.client.setblocking(False)
        try:
            return bool(self.client.recv(1, socket.MSG_PEEK))
        except BlockingIOError:
            return False
        finally:
            self.client.setblocking(True)

    def request(self, **request: Any) -> dict[str, Any]:
        assert self.client is not None
        self.client.sendall(json.dumps(request).encode() + b"\n")
        self.loop.run_once(max_wait=0.5)
        self.client.settimeout(2)
        reply: dict[str, Any] = json.loads(self.client.recv(65536).decode())
        return reply

    def shutdown(self) -> None:
        if self.client is not None:
            self.client.close()
        self.control.close()
        self.loop.close()
        self.keeper.journal._db = self.db  # type: ignore[union-attr]
        self.keeper.close()


class RecordingNotifier(Notifier):
    def __init__(self, order: list[str]) -> None:
        super().__init__({})
        self.order = order

    def status(self, text: str) -> bool:
        self.order.append(f"status {text}")
        return True


@pytest.fixture
def board(tmp_path: Path) -> Any:
    made = Board(tmp_path)
    made.loop.start()
    made.order.clear()
    made.reply_waiting.clear()
    yield made
    made.shutdown()


def test_a_control_entry_is_shown_then_journalled_then_acknowledged(board: Board) -> None:
    board.connect()
    seq = board.keeper.seq
    reply = board.request(op="peg", track=0, points=5, id=1)
    assert reply["ok"] is True and reply["result"]["seq"] == seq + 1
    assert board.order == [
        "frame",
        f"journal {seq + 1}",
        "status Track 1 5 · Track 2 0 · free · target 121",
        "reply",
    ]
    assert lit(board.frames[-1], 0, 5)
    assert board.restarted_seq == seq  # a kill -9 at the frame: the entry was never acknowledged
    assert board.reply_waiting == [False]


def test_button_presses_are_each_journalled_before_the_next_is_handled(board: Board) -> None:
    seq = board.keeper.seq
    board.loop.post(Tap("track1.plus1"))
    board.loop.post(Tap("track1.encoder_push"))  # commit 1 on track 1
    board.loop.post(Tap("track2.plus5"))
    board.loop.post(Tap("track2.encoder_push"))  # commit 5 on track 2
    board.loop.post(Tap("undo"))  # takes back the 5
    board.loop.run_once(max_wait=0)
    entries = [step for step in board.order if step == "frame" or step.startswith("journal")]
    assert entries[-6:] == [
        "frame",
        f"journal {seq + 1}",
        "frame",
        f"journal {seq + 2}",
        "frame",
        f"journal {seq + 3}",
    ]
    statuses = [step for step in board.order if step.startswith("status")]
    assert board.order.index(statuses[0]) > board.order.index(f"journal {seq + 1}")
    assert [t.front for t in board.keeper.state.tracks] == [1, 0]
    assert lit(board.frames[-1], 0, 1) and not lit(board.frames[-1], 1, 5)


def test_a_failed_write_shows_the_last_saved_score_again_and_is_not_acknowledged(
    board: Board, caplog: pytest.LogCaptureFixture
) -> None:
    board.connect()
    board.request(op="peg", track=0, points=3)
    saved = board.frames[-1]
    seq = board.keeper.seq
    board.order.clear()
    board.fail_writes = True
    reply = board.request(op="peg", track=1, points=9, id=2)
    assert reply == {"ok": False, "error": reply["error"], "id": 2}
    assert "disk is full" in reply["error"]
    assert "reply" not in board.order  # the handler raised: no result was acknowledged
    assert board.order.count("frame") == 2
    shown, after = board.frames[-2:]
    assert lit(shown, 1, 9)  # the entry was shown at once ...
    assert not lit(after, 1, 9) and lit(after, 0, 3)  # ... and taken back
    assert board.keeper.seq == seq and [t.front for t in board.keeper.state.tracks] == [3, 0]
    view = board.loop.view()
    assert view.error_at is not None  # the error flashes
    assert [t.front for t in view.tracks] == [3, 0]
    assert after == board.loop.renderer.render(view, board.loop.clock())
    assert after != saved  # the old score, with the error flash on top

    with caplog.at_level(logging.ERROR, logger="boardctl.service.loop"):
        board.loop.post(Tap("track2.plus1"))
        board.loop.post(Tap("track2.encoder_push"))
        board.loop.run_once(max_wait=0)
    assert "entry not saved" in caplog.text and "disk is full" in caplog.text
    assert board.keeper.seq == seq and board.loop.view().extra.refusal == "storage"
    settled = board.loop.renderer.render(board.loop.view(), board.loop.clock() + SIGN_SECONDS)
    assert not lit(settled, 1, 1)  # once the storage sign (holes 1-6) is over: nothing kept

    board.fail_writes = False
    assert board.request(op="peg", track=1, points=2)["result"]["seq"] == seq + 1
    with Scorekeeper.open(board.path, readonly=True) as restarted:
        assert [t.front for t in restarted.state.tracks] == [3, 2]
