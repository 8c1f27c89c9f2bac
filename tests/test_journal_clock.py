"""Time never runs backwards in the journal, whatever the wall clock does.

An event is stamped with the later of the wall clock and the event before;
a clock a second or more behind is noted with the event, logged once per step
back and shown by ``history``. The clock is the scorekeeper's injected
``wall_clock``; nothing patches time globally.
"""

from __future__ import annotations

import datetime
import logging
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.cli.cmd_history import format_history
from boardctl.game.commands import NewGame, Peg
from boardctl.game.keeper import Scorekeeper
from boardctl.results.source import load_games, parse_since, select
from boardctl.store.journal import CLOCK_JUMP, Journal
from tests.bridge_results import finished_results

DAY = 86400.0
START = 1_800_000_000.0  # 2027-01-15


class Clock:
    """A wall clock the test moves: each reading is a minute after the one before."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        self.now += 60.0
        return self.now


def play_with_a_jump(path: Path, clock: Clock) -> Scorekeeper:
    """A game to 121: three hands, the clock steps back 400 days, four more hands win it."""
    free = NewGame(variant="six-card", mode="free")
    keeper = Scorekeeper.open(path, setup=free, wall_clock=clock)
    for _ in range(3):
        keeper.apply(Peg(track=0, points=20, kind="hand"))
    clock.now -= 400 * DAY
    for _ in range(4):
        keeper.apply(Peg(track=0, points=20, kind="hand"))
    assert keeper.status()["winner"] == 0
    return keeper


def test_a_clock_400_days_back_mid_game_keeps_the_result_and_its_order(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "journal.sqlite"
    clock = Clock(START)
    with caplog.at_level(logging.WARNING, logger="boardctl.store.journal"):
        keeper = play_with_a_jump(path, clock)
        clock.now = START + DAY  # the clock is put right: caught up
        keeper.apply(NewGame(variant="six-card", mode="free"))
        keeper.close()
    went_back = [r for r in caplog.records if "went back" in r.getMessage()]
    assert len(went_back) == 1, "logged once, not per entry"
    assert "went back 400 days" in went_back[0].getMessage()
    assert len([r for r in caplog.records if "caught up" in r.getMessage()]) == 1
    with Journal.open(path, readonly=True) as journal:
        records = list(journal.records())
    times = [r.at for r in records]
    assert times == sorted(times)
    assert [r.seq for r in records if r.clock is not None] == [5, 6, 7, 8]
    assert all("_clock" not in r.event for r in records)  # the engine never sees it
    (game,) = load_games(path, board="b1")
    assert game.result.start <= game.result.end
    start_day = datetime.datetime.fromtimestamp(START, datetime.UTC).date().isoformat()
    assert select([game], since=parse_since(start_day)) == [game]  # not dropped by --since
    (published,) = finished_results(path, board="b1")  # what the bridge sends the standings
    assert published["start"] <= published["end"] and published["end"] >= start_day


def test_history_shows_the_step_back_on_the_entries_made_while_behind(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    play_with_a_jump(path, Clock(START)).close()
    with Scorekeeper.open(path, readonly=True) as keeper:
        rows = keeper.history()
    behind = [row for row in rows if "clock_behind" in row]
    assert [row["seq"] for row in behind] == [5, 6, 7, 8]
    assert behind[0]["clock_behind"] == pytest.approx(400 * DAY - 60.0)
    table = format_history(rows)
    assert table.count("[clock 400 days behind: the last entry's time kept]") == 4
    assert [row["at"] for row in rows] == sorted(row["at"] for row in rows)


def test_a_memory_keeper_stamps_the_same_way() -> None:
    clock = Clock(START)
    keeper = Scorekeeper.memory(NewGame(variant="six-card", mode="free"), wall_clock=clock)
    clock.now -= 10.0 * 60
    keeper.apply(Peg(track=1, points=2, kind="pegging"))
    (first, second) = keeper.history()
    assert second["at"] == first["at"] and second["clock_behind"] == pytest.approx(540.0)


steps = st.lists(
    st.one_of(
        st.floats(min_value=0.0, max_value=120.0),  # the clock runs on
        st.floats(min_value=-500 * DAY, max_value=-0.001),  # it steps back
        st.floats(min_value=1.0, max_value=500 * DAY),  # it jumps ahead
    ),
    min_size=1,
    max_size=25,
)


@settings(max_examples=40, deadline=None)
@given(steps=steps, batch=st.booleans())
def test_stored_times_never_go_back_whatever_the_clock_does(
    steps: list[float], batch: bool
) -> None:
    readings = []
    now = START
    for step in steps:
        now += step
        readings.append(now)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "journal.sqlite"
        with Journal.open(path) as journal:
            if batch:
                journal.append_all(({"op": "next"}, at) for at in readings)
            else:
                for at in readings:
                    journal.append({"op": "next"}, at=at)
        with Journal.open(path, readonly=True) as journal:
            records = list(journal.records())
    last = 0.0
    for record, reading in zip(records, readings, strict=True):
        assert record.at == max(reading, last)  # the clock, unless the last event is later
        noted = last - reading >= CLOCK_JUMP
        assert (record.clock is not None) == noted
        if noted:
            assert record.clock == reading
        assert record.event == {"op": "next"}
        last = record.at
