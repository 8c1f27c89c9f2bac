"""``history --all`` in the service: the finished games' rows are built by a thread, off the loop.

The rows a :class:`~boardctl.service.history_all.PastRows` reader builds on its
own read-only connection, joined to the writer's current game, must be what a
full replay of the journal gives, whatever was played before and after the
first ask; an event committed while the thread reads is in the next answer;
and a button pressed while the thread replays a large journal reaches the
LEDs at once (the real service, MockFactory pins).
"""

from __future__ import annotations

import json
import shutil
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.config import parse_config
from boardctl.errors import ControlError
from boardctl.game.commands import Command, NewGame, Peg
from boardctl.game.keeper import Scorekeeper
from boardctl.link import RecordingLink
from boardctl.service.client import NoAnswer, request, request_ready
from boardctl.service.history_all import Kept, PastRows
from boardctl.service.wire import Encoded
from boardctl.store import lock
from boardctl.store.journal import Journal
from tests.test_e2e import FAST, ManualClock, Rig, free_rig
from tests.test_past_games import GAME, MOVES, play, replayed, same


def answer(reader: PastRows, keeper: Scorekeeper, timeout: float = 10.0) -> list[dict[str, Any]]:
    """Ask as the loop does until the reader's rows are current; the rows."""
    deadline = time.monotonic() + timeout
    while True:
        reply = reader.reply(keeper.history(), keeper.seq)
        if isinstance(reply, Encoded):
            rows: list[dict[str, Any]] = json.loads(reply)
            return rows
        assert reply["ready"] is False and reply["events"] == keeper.seq
        assert time.monotonic() < deadline, "the reader never caught up"
        time.sleep(0.002)


def test_the_first_ask_is_not_ready_then_the_rows_are_the_replay(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Scorekeeper.open(path, setup=NewGame(variant="six-card", mode="free")) as keeper:
        play(keeper, [*GAME, NewGame(variant="six-card", mode="free"), *GAME])
        reader = PastRows(keeper.path)
        try:
            first = reader.reply(keeper.history(), keeper.seq)
            assert first == {"ready": False, "seq": 0, "events": keeper.seq}
            assert same(answer(reader, keeper)) == same(replayed(path))
        finally:
            reader.close()


@settings(max_examples=25, deadline=None)
@given(before=st.lists(MOVES, max_size=12), after=st.lists(MOVES, max_size=12))
def test_any_play_around_the_first_ask_is_answered_as_the_replay(
    tmp_path_factory: pytest.TempPathFactory, before: list[Command], after: list[Command]
) -> None:
    # the same oracle as tests/test_past_games.py, for the rows built off the loop
    path = tmp_path_factory.mktemp("rows") / "j.sqlite"
    with Scorekeeper.open(path, setup=NewGame(variant="six-card", mode="free")) as keeper:
        play(keeper, before)
        reader = PastRows(keeper.path)
        try:
            assert same(answer(reader, keeper)) == same(replayed(path))
            play(keeper, after)
            assert same(answer(reader, keeper)) == same(replayed(path))
        finally:
            reader.close()


class HeldReader(PastRows):
    """A reader whose thread waits for ``go`` before it reads (to commit during the read)."""

    def __init__(self, path: str | None) -> None:
        super().__init__(path)
        self.started = threading.Event()
        self.go = threading.Event()

    def _catch_up(self, path: Path) -> tuple[Kept, int]:
        self.started.set()
        assert self.go.wait(10)
        return super()._catch_up(path)


@pytest.mark.parametrize("commits", [[Peg(0, 2, "pegging")], [NewGame(mode="free"), *GAME]])
def test_a_commit_while_the_thread_reads_is_in_the_next_answer(
    tmp_path: Path, commits: list[Command]
) -> None:
    path = tmp_path / "j.sqlite"
    with Scorekeeper.open(path, setup=NewGame(mode="free")) as keeper:
        play(keeper, [*GAME, NewGame(mode="free"), *GAME])
        reader = HeldReader(keeper.path)
        try:
            assert reader.reply(keeper.history(), keeper.seq)["ready"] is False
            assert reader.started.wait(10)
            play(keeper, commits)  # written while the thread is reading
            reader.go.set()
            rows = answer(reader, keeper)
            assert rows[-1]["seq"] == keeper.seq
            assert same(rows) == same(replayed(path))
        finally:
            reader.go.set()
            reader.close()


def test_a_board_without_a_journal_and_a_damaged_journal_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(ControlError, match="history: this board keeps no journal"):
        PastRows(None).reply([], 0)
    path = tmp_path / "j.sqlite"
    path.write_bytes(b"this is not a journal" * 100)
    reader = PastRows(path)
    try:
        assert reader.reply([], 0)["ready"] is False
        deadline = time.monotonic() + 10
        with pytest.raises(ControlError, match=r"^history: "):
            while time.monotonic() < deadline:
                reader.reply([], 0)
                time.sleep(0.01)
    finally:
        reader.close()


def test_a_journal_whose_current_game_is_not_the_boards_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Scorekeeper.open(path, setup=NewGame(mode="free")) as keeper:
        play(keeper, [*GAME, NewGame(mode="free"), *GAME])
        reader = PastRows(keeper.path)
        try:
            answer(reader, keeper)
            with pytest.raises(ControlError, match=r"^history: the journal's current game"):
                reader.reply([], keeper.seq)  # a board whose game would start after the last
        finally:
            reader.close()


def test_request_ready_gives_up_after_its_timeout(
    tmp_path: Path, mock_factory: MockFactory
) -> None:
    with free_rig(tmp_path, mock_factory, FAST) as rig:
        held = rig.loop.requests.past = HeldReader(str(rig.board.journal))  # its thread waits
        with pytest.raises(NoAnswer, match=r"not ready within 0\.3 s"):
            request_ready(rig.board.socket, {"op": "history", "all": True}, timeout=0.3)
        held.go.set()


# --- a press during the first history --all on a large journal -------------------------------

GAMES = 300  # about 12,000 events: the thread's first replay takes about half a second here


@pytest.fixture(scope="module")
def large_journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A journal of ``GAMES`` free-mode games of 40 pegs each, written in one transaction."""
    keeper = Scorekeeper.memory()
    for _ in range(GAMES):
        keeper.apply(NewGame(mode="free"))
        for i in range(40):
            keeper.apply(Peg(track=i % 2, points=2, kind="pegging"))
    keeper.apply(NewGame(mode="free"))
    path = tmp_path_factory.mktemp("large") / "journal.sqlite"
    with Journal.open(path) as journal:
        journal.append_all((row["event"], row["at"]) for row in keeper.history(all_games=True))
    return path


def test_a_press_during_the_first_history_all_is_taken_before_the_replay_ends(
    tmp_path: Path, mock_factory: MockFactory, large_journal: Path
) -> None:
    """The loop serves a press while the thread replays (how fast: bench_history_press.py)."""
    (tmp_path / "state").mkdir()
    shutil.copy(large_journal, tmp_path / "state" / "journal.sqlite")
    config = parse_config({**FAST, "game": {"mode": "free"}})
    # on the manual clock no press commits by itself: the journal stays the one replayed
    rig = Rig(tmp_path, mock_factory, config, RecordingLink(), clock=ManualClock())
    try:
        rig.sync()
        past = rig.loop.requests.past
        first = request(rig.board.socket, {"op": "history", "all": True})
        assert first["ready"] is False  # answered at once: the thread replays
        pin = rig.pin("track1.plus1")
        served_during_replay: list[bool] = []
        panel = rig.loop.panel
        while past.reading() and len(served_during_replay) < 5:
            pressed = panel.pending[0] + 1
            pin.drive_low()
            deadline = time.monotonic() + 60
            while panel.pending[0] != pressed:
                assert time.monotonic() < deadline, "the loop never took the press"
                time.sleep(0.0002)
            served_during_replay.append(past.reading())
            rig.elapse(0.008)  # held as a finger holds it
            pin.drive_high()
            rig.elapse(2 * FAST["inputs"]["debounce"])  # the release settles
        rows = request_ready(rig.board.socket, {"op": "history", "all": True}, timeout=120)
        journal = rig.board.journal
        assert rig.loop.panel.pending[0] == len(served_during_replay)  # every press counted
    finally:
        rig.close()
    assert served_during_replay, "the replay was over before the first press"
    assert served_during_replay[0], "the first press waited for the replay to end"
    assert same(rows) == same(replayed(journal))


def test_while_the_journal_is_held_by_another_writer_history_all_answers_at_once(
    tmp_path: Path, mock_factory: MockFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lock, "SERVICE_WAIT", 0.1)  # the service gives up waiting at once
    path = tmp_path / "state" / "journal.sqlite"
    path.parent.mkdir()
    with Scorekeeper.open(path, setup=NewGame(mode="free")) as writer:
        play(writer, GAME)  # the journal has events, but the service cannot open it
        with free_rig(tmp_path, mock_factory, FAST) as rig:
            assert getattr(rig.loop.keeper, "inner", 0) is None  # the fault's stand-in keeper
            began = time.monotonic()
            rows = request_ready(rig.board.socket, {"op": "history", "all": True}, timeout=5)
            assert time.monotonic() - began < 2
            assert rows == rig.loop.keeper.history(all_games=True)
