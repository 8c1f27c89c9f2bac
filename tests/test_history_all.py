"""``history --all`` in the service: pages of every game's rows, each made by a thread.

The pages a :class:`~boardctl.service.history_all.HistoryPages` reader makes on
its own read-only connection, joined end to end, must be what a full replay of
the journal gives, whatever was played before and between the asks, with
snapshots or without (an imported journal); an event committed while the
thread reads is in the last page; no journal length makes the reply too long
for the client; and a button pressed while the thread replays reaches the LEDs
at once (the real service, MockFactory pins).
"""

from __future__ import annotations

import contextlib
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

from boardctl.cli import main
from boardctl.config import parse_config
from boardctl.errors import ControlError, EntryError
from boardctl.game.commands import Command, NewGame, Peg, Redo, Undo
from boardctl.game.keeper import Scorekeeper
from boardctl.inputs.events import Edge
from boardctl.link import RecordingLink
from boardctl.service import history_all, journal_reader
from boardctl.service.client import NoAnswer, request, request_ready
from boardctl.service.history_all import HistoryPages, Page
from boardctl.service.loop import Call
from boardctl.service.wire import MAX_LINE, Encoded, encode
from boardctl.store import lock
from boardctl.store.journal import Journal
from tests.test_e2e import FAST, ManualClock, Rig, built, free_rig


def replayed(path: Path) -> list[dict[str, object]]:
    with Scorekeeper.open(path, readonly=True, full_replay=True) as reader:
        return reader.history(all_games=True)


def same(rows: list[dict[str, object]]) -> str:
    return json.dumps(rows, sort_keys=True)  # as the control socket sends them


def play(keeper: Scorekeeper, commands: list[Command]) -> None:
    for command in commands:
        with contextlib.suppress(EntryError):  # refused: nothing journalled
            keeper.apply(command)


GAME: list[Command] = [
    Peg(track=0, points=12, kind="hand"),
    Peg(1, 21, kind="hand", cards=("5H", "5D", "JS", "QC"), starter="5S"),
    Undo(),
    Redo(),
    Peg(track=0, points=2, kind="pegging"),
]

MOVES = st.sampled_from(
    [
        Peg(track=0, points=3, kind="pegging"),
        Peg(track=1, points=8, kind="hand"),
        Peg(0, 12, kind="hand", cards=("5H", "5D", "JS", "QC"), starter="5S"),
        Undo(),
        Redo(),
        NewGame(variant="six-card", mode="free"),
        NewGame(variant="five-card", mode="free"),
    ]
)


def page(reader: HistoryPages, after: int, seq: int, timeout: float = 10.0) -> dict[str, Any]:
    """Ask as the loop does until the reader's page is made; the page."""
    deadline = time.monotonic() + timeout
    while True:
        reply = reader.reply(after, seq)
        if isinstance(reply, Encoded):
            answer: dict[str, Any] = json.loads(b"".join(reply.parts))
            return answer
        assert reply["ready"] is False and reply["events"] == seq
        assert time.monotonic() < deadline, "the reader never made the page"
        time.sleep(0.002)


def every_page(reader: HistoryPages, keeper: Scorekeeper) -> list[dict[str, Any]]:
    """The rows of every page, asked for as the client asks."""
    rows: list[dict[str, Any]] = []
    after: int | None = 0
    while after is not None:
        answer = page(reader, after, keeper.seq)
        rows += answer["rows"]
        assert answer["next"] is None or answer["next"] > after
        after = answer["next"]
    return rows


@pytest.fixture
def small_pages(monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(history_all, "PAGE_ROWS", 3)  # a few games span many pages
    return 3


def test_the_first_ask_is_not_ready_then_the_pages_are_the_replay(
    tmp_path: Path, small_pages: int
) -> None:
    path = tmp_path / "j.sqlite"
    with Scorekeeper.open(path, setup=NewGame(variant="six-card", mode="free")) as keeper:
        play(keeper, [*GAME, NewGame(variant="six-card", mode="free"), *GAME])
        reader = HistoryPages(keeper.path)
        try:
            first = reader.reply(0, keeper.seq)
            assert first == {"ready": False, "seq": 0, "events": keeper.seq}
            rows = every_page(reader, keeper)
            assert same(rows) == same(replayed(path))
            assert len(page(reader, 0, keeper.seq)["rows"]) == small_pages
        finally:
            reader.close()


@settings(max_examples=25, deadline=None)
@given(
    before=st.lists(MOVES, max_size=12),
    after=st.lists(MOVES, max_size=12),
    size=st.integers(1, 8),
    imported=st.booleans(),
)
def test_any_play_around_the_asks_is_paged_as_the_replay(
    tmp_path_factory: pytest.TempPathFactory,
    before: list[Command],
    after: list[Command],
    size: int,
    imported: bool,
) -> None:
    folder = tmp_path_factory.mktemp("rows")
    path = folder / "j.sqlite"
    with Scorekeeper.open(path, setup=NewGame(variant="six-card", mode="free")) as keeper:
        play(keeper, before)
    if imported:  # the same events without snapshots, as an import writes them
        rows = replayed(path)
        path = folder / "imported.sqlite"
        with Journal.open(path) as journal:
            journal.append_all((row["event"], row["at"]) for row in rows)  # type: ignore[misc]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(history_all, "PAGE_ROWS", size)
        with Scorekeeper.open(path) as keeper:
            reader = HistoryPages(keeper.path)
            try:
                assert same(every_page(reader, keeper)) == same(replayed(path))
                play(keeper, after)
                assert same(every_page(reader, keeper)) == same(replayed(path))
            finally:
                reader.close()


class HeldReader(HistoryPages):
    """A reader whose thread waits for ``go`` before it reads (to commit during the read)."""

    def __init__(self, path: str | None) -> None:
        super().__init__(path)
        self.started = threading.Event()
        self.go = threading.Event()

    def _catch_up(self, path: Path) -> tuple[Page, int]:
        self.started.set()
        assert self.go.wait(10)
        return super()._catch_up(path)


@pytest.mark.parametrize("commits", [[Peg(0, 2, "pegging")], [NewGame(mode="free"), *GAME]])
def test_a_commit_while_the_thread_reads_is_in_the_last_page(
    tmp_path: Path, commits: list[Command]
) -> None:
    path = tmp_path / "j.sqlite"
    with Scorekeeper.open(path, setup=NewGame(mode="free")) as keeper:
        play(keeper, [*GAME, NewGame(mode="free"), *GAME])
        reader = HeldReader(keeper.path)
        try:
            assert reader.reply(0, keeper.seq)["ready"] is False
            assert reader.started.wait(10)
            play(keeper, commits)  # written while the thread is reading
            reader.go.set()
            rows = every_page(reader, keeper)
            assert rows[-1]["seq"] == keeper.seq
            assert same(rows) == same(replayed(path))
        finally:
            reader.go.set()
            reader.close()


def test_no_journal_a_damaged_journal_and_a_page_past_the_end_are_clear_errors(
    tmp_path: Path,
) -> None:
    with pytest.raises(ControlError, match="history: this board keeps no journal"):
        HistoryPages(None).reply(0, 0)
    with pytest.raises(ControlError, match=r"history: after must be an event of the journal"):
        HistoryPages(tmp_path / "j.sqlite").reply(5, 4)
    path = tmp_path / "j.sqlite"
    path.write_bytes(b"this is not a journal" * 100)
    reader = HistoryPages(path)
    try:
        assert reader.reply(0, 0)["ready"] is False
        deadline = time.monotonic() + 10
        with pytest.raises(ControlError, match=r"^history: "):
            while time.monotonic() < deadline:
                reader.reply(0, 0)
                time.sleep(0.01)
    finally:
        reader.close()


def test_a_reply_with_encoded_rows_is_the_same_line() -> None:
    rows = [{"seq": 1, "text": "Ålice +2 (pegging)", "scores": [2, 0]}]
    plain = encode({"ok": True, "result": rows})
    spliced = encode({"ok": True, "result": Encoded(json.dumps(rows).encode())})
    assert spliced.endswith(b"\n") and spliced.count(b"\n") == 1
    assert json.loads(spliced) == json.loads(plain)
    assert json.loads(encode({"result": Encoded(b"[]")})) == {"result": []}


def test_history_all_through_the_service_is_the_replay(
    tmp_path: Path, mock_factory: MockFactory, small_pages: int
) -> None:
    with free_rig(tmp_path, mock_factory, FAST) as rig:
        for _ in range(2):
            request(rig.board.socket, {"op": "peg", "track": 0, "points": 3, "kind": "pegging"})
            request(rig.board.socket, {"op": "new_game", "variant": "six-card", "mode": "free"})
        request(rig.board.socket, {"op": "peg", "track": 1, "points": 2, "kind": "pegging"})
        message = {"op": "history", "all": True, "after": 2}
        again = [request_ready(rig.board.socket, message) for _ in range(2)]  # safe to resend
        assert again[0] == again[1] and [r["seq"] for r in again[0]["rows"]] == [3, 4, 5]
        with pytest.raises(ControlError, match="'after' must be an integer"):
            request(rig.board.socket, {"op": "history", "all": True, "after": "2"})
        with pytest.raises(ControlError, match="after must be an event of the journal"):
            request(rig.board.socket, {"op": "history", "all": True, "after": 99})
        journal = rig.board.journal
    with Scorekeeper.open(journal, readonly=True) as keeper:
        assert again[0]["next"] == 5 and replayed(journal)[2:5] == again[0]["rows"]
        assert keeper.seq > 5


def test_request_ready_gives_up_after_its_timeout(
    tmp_path: Path, mock_factory: MockFactory
) -> None:
    with free_rig(tmp_path, mock_factory, FAST) as rig:
        held = rig.loop.requests.past = HeldReader(str(rig.board.journal))  # its thread waits
        with pytest.raises(NoAnswer, match=r"not ready within 0\.3 s"):
            request_ready(rig.board.socket, {"op": "history", "all": True}, timeout=0.3)
        held.go.set()


# --- a press during the first history --all on a large journal -------------------------------

GAMES = 520  # about 21,000 events: their rows are about 4.5 MB, more than one reply may be


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


def test_a_press_while_a_page_is_made_is_taken_before_it_is_done_and_no_length_fails(
    tmp_path: Path,
    mock_factory: MockFactory,
    large_journal: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The loop serves a press while the thread replays (how fast: bench_history_press.py);
    then ``boardctl history --all`` pages through rows far over the client's reply limit."""
    (tmp_path / "state").mkdir()
    shutil.copy(large_journal, tmp_path / "state" / "journal.sqlite")
    config = parse_config({**FAST, "game": {"mode": "free"}})
    # on the manual clock no press commits by itself: the journal stays the one replayed
    rig = Rig(tmp_path, mock_factory, config, RecordingLink(), clock=ManualClock())
    try:
        rig.sync()
        past = rig.loop.requests.past
        monkeypatch.setattr(history_all, "PAGE_ROWS", 20 * GAMES * 41)  # one long page to make
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
        assert rig.loop.panel.pending[0] == len(served_during_replay)  # every press counted
        monkeypatch.undo()  # pages of the usual size, from a reader that kept no long page
        past.close()
        rig.loop.requests.past = HistoryPages(str(rig.board.journal))
        rig.loop.requests.past.on_publish = rig.loop.wake
        capsys.readouterr()
        assert main(["history", "--json", "--all", "--socket", str(rig.board.socket)]) == 0
        printed = capsys.readouterr().out
        journal = rig.board.journal
    finally:
        rig.close()
    assert served_during_replay, "the replay was over before the first press"
    assert served_during_replay[0], "the first press waited for the replay to end"
    rows = json.loads(printed)
    assert len(history_all.encoded(rows)) > 64 * MAX_LINE  # more than the client takes at once
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
            assert rows == {"next": None, "rows": rig.loop.keeper.history(all_games=True)}


# --- the readers keep out of a press's way ---------------------------------------------------


def test_a_reader_pauses_while_an_input_waits_and_goes_on_when_the_loop_is_done(
    tmp_path: Path, mock_factory: MockFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An input posted to the loop clears :data:`journal_reader.inputs_done`; a reader's
    :func:`journal_reader.paced` items stop until the loop has handled it and is idle."""
    monkeypatch.setattr(journal_reader, "PAUSE_AT_MOST", 60.0)  # (a stuck flag would fail it)
    config = parse_config({**FAST, "game": {"mode": "free"}})
    board = built(tmp_path, mock_factory, config)
    try:
        loop = board.loop
        loop.start()
        taken: list[int] = []
        loop.post(Edge("track1.plus1", True, loop.clock()))
        assert not journal_reader.inputs_done.is_set()
        reader = threading.Thread(target=lambda: taken.extend(journal_reader.paced(range(9))))
        reader.start()
        reader.join(0.2)
        assert reader.is_alive() and taken == []  # paused at its first item
        loop.run_once(max_wait=0)
        assert journal_reader.inputs_done.is_set()
        reader.join(60)
        assert taken == list(range(9))
        loop.post(Call(lambda: None))  # a request is not an input: nothing pauses
        assert journal_reader.inputs_done.is_set()
        loop.post(Edge("track1.plus1", False, loop.clock()))
    finally:
        board.close()
    assert journal_reader.inputs_done.is_set()  # a loop that stops leaves no reader paused


def test_a_reader_waits_once_for_a_loop_that_does_not_come_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Never(threading.Event):  # an input the loop never finishes with
        waits = 0

        def wait(self, timeout: float | None = None) -> bool:
            Never.waits += 1
            return False

    monkeypatch.setattr(journal_reader, "inputs_done", Never())
    assert list(journal_reader.paced(range(20))) == list(range(20)) and Never.waits == 1


def test_a_page_request_builds_one_row_of_the_current_game_not_all_of_them(
    tmp_path: Path, mock_factory: MockFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The loop answers every ask of a ``history --all`` page (the client asks again until
    the thread has it): it checks the refusal of a joined board with one row, never the
    whole current game's (a long game's rows took the loop milliseconds per ask)."""
    with free_rig(tmp_path, mock_factory, FAST) as rig:
        for _ in range(30):
            request(rig.board.socket, {"op": "peg", "track": 0, "points": 1, "kind": "pegging"})
        made: list[int] = []
        keeper_rows = Scorekeeper.history

        def counted(self: Scorekeeper, **kwargs: Any) -> list[dict[str, Any]]:
            rows = keeper_rows(self, **kwargs)
            made.append(len(rows))
            return rows

        monkeypatch.setattr(Scorekeeper, "history", counted)
        page = request_ready(rig.board.socket, {"op": "history", "all": True})
        assert len(page["rows"]) == 31 and made and set(made) == {1}
        made.clear()
        assert len(request(rig.board.socket, {"op": "history", "limit": 5})) == 5
        assert made == [5]
