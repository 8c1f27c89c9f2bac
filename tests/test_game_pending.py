"""The two-step path: ``prepare`` (check, compute) then ``commit`` (journal, fold in)."""

from __future__ import annotations

import random
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boardctl.errors import EntryError, JournalError
from boardctl.game.commands import parse_command
from boardctl.game.keeper import Scorekeeper
from boardctl.game.status import board_view
from tools.random_player import random_command

SETUPS = [
    {"variant": "six-card", "mode": "guided"},
    {"variant": "five-card", "mode": "guided", "target": 61},
    {"variant": "three-player", "mode": "free"},
    {"variant": "six-card", "mode": "free", "preset": "casual", "match": 3},
]


class FailingConnection:
    """An SQLite connection whose writes fail (a full or broken disk); reads pass through."""

    def __init__(self, inner: sqlite3.Connection) -> None:
        self.inner = inner
        self.writes = 0

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        if sql.lstrip().upper().startswith(("INSERT", "BEGIN")):
            self.writes += 1
            raise sqlite3.OperationalError("database or disk is full")
        return self.inner.execute(sql, *args)

    @property
    def in_transaction(self) -> bool:
        return self.inner.in_transaction

    def close(self) -> None:
        self.inner.close()


def break_journal(keeper: Scorekeeper) -> FailingConnection:
    journal = keeper.journal
    assert journal is not None
    failing = FailingConnection(journal._db)
    journal._db = failing  # type: ignore[assignment]
    return failing


def journal_bodies(path: Path) -> list[tuple[int, str]]:
    db = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True)
    try:
        return list(db.execute("SELECT seq, body FROM events ORDER BY seq"))
    finally:
        db.close()


def without_times(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in row.items() if k not in ("at", "time")} for row in rows]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    setup=st.sampled_from(SETUPS),
    seed=st.integers(0, 2**32 - 1),
    count=st.integers(1, 60),
    aborts=st.floats(0, 0.3),
)
def test_prepare_then_commit_gives_the_same_state_and_journal_as_apply(
    setup: dict[str, Any], seed: int, count: int, aborts: float
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        one, two = Path(tmp, "apply.sqlite"), Path(tmp, "two-step.sqlite")
        a = Scorekeeper.open(one, setup=setup, choose=random.Random(seed).randrange)
        b = Scorekeeper.open(two, setup=setup, choose=random.Random(seed).randrange)
        rng, coin = random.Random(seed), random.Random(seed + 1)
        try:
            for _ in range(count):
                command = random_command(a.state, rng)
                try:
                    expected = a.apply(command)
                except EntryError as exc:
                    with pytest.raises(EntryError) as refused:
                        b.prepare(command)
                    assert str(refused.value) == str(exc)
                    continue
                before, seq = b.state, b.seq
                pending = b.prepare(command)
                assert pending.plan.state == a.state
                assert pending.view().tracks == board_view(a.state).tracks
                assert b.state == before and b.seq == seq  # nothing kept before the write
                if coin.random() < aborts:  # dropped, then entered again
                    pending.abort()
                    assert b.state == before and b.seq == seq
                    pending = b.prepare(command)
                result = pending.commit()
                assert result["seq"] == expected["seq"]
                assert result["event"] == expected["event"]
                assert result["status"] == expected["status"]
            assert b.machine == a.machine
            assert b.view().tracks == a.view().tracks
            assert without_times(b.history()) == without_times(a.history())
        finally:
            a.close()
            b.close()
        assert journal_bodies(two) == journal_bodies(one)
        with Scorekeeper.open(two) as resumed:
            assert resumed.machine == b.machine


def test_a_refused_command_is_refused_by_prepare_and_flashes() -> None:
    keeper = Scorekeeper.memory({"variant": "six-card", "mode": "free"})
    before, seq = keeper.state, keeper.seq
    with pytest.raises(EntryError, match="19"):
        keeper.prepare(parse_command({"op": "peg", "track": 0, "points": 19, "kind": "hand"}))
    assert keeper.state == before and keeper.seq == seq
    assert keeper.view().error_at is not None


def test_a_pending_entry_is_shown_but_not_kept_until_committed() -> None:
    keeper = Scorekeeper.memory({"variant": "six-card", "mode": "free"})
    pending = keeper.prepare(parse_command({"op": "peg", "track": 1, "points": 6}))
    assert pending.view().tracks[1].front == 6
    assert keeper.view().tracks[1].front == 0
    assert keeper.status()["tracks"][1]["front"] == 0
    result = pending.commit()
    assert result["status"]["tracks"][1]["front"] == 6
    assert keeper.view().tracks[1].front == 6
    with pytest.raises(EntryError, match="already committed"):
        pending.commit()
    pending.abort()  # after the commit: changes nothing
    assert keeper.view().tracks[1].front == 6


def test_an_entry_prepared_before_another_change_is_not_committed() -> None:
    keeper = Scorekeeper.memory({"variant": "six-card", "mode": "free"})
    first = keeper.prepare(parse_command({"op": "peg", "track": 0, "points": 3}))
    second = keeper.prepare(parse_command({"op": "peg", "track": 0, "points": 4}))
    first.commit()
    with pytest.raises(EntryError, match="changed since"):
        second.commit()
    assert keeper.state.tracks[0].front == 3 and keeper.seq == 2
    aborted = keeper.prepare(parse_command({"op": "peg", "track": 0, "points": 5}))
    aborted.abort()
    with pytest.raises(EntryError, match="dropped"):
        aborted.commit()
    assert keeper.state.tracks[0].front == 3


def test_a_winning_entry_shows_the_game_end_before_it_is_kept() -> None:
    keeper = Scorekeeper.memory({"variant": "six-card", "mode": "free", "target": 61})
    keeper.apply(parse_command({"op": "peg", "track": 0, "points": 29, "kind": "hand"}))
    keeper.apply(parse_command({"op": "peg", "track": 0, "points": 29, "kind": "hand"}))
    pending = keeper.prepare(parse_command({"op": "peg", "track": 0, "points": 3}))
    assert pending.plan.state.winner == 0
    assert pending.view().over_at is not None
    assert keeper.view().over_at is None
    pending.commit()
    assert keeper.view().over_at == pending.over_at


def test_a_failed_journal_write_keeps_the_last_durable_state(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    keeper = Scorekeeper.open(path, setup={"variant": "six-card", "mode": "free"})
    keeper.apply(parse_command({"op": "peg", "track": 0, "points": 4}))
    machine_before = repr(keeper.machine)
    state, seq, history = keeper.state, keeper.seq, keeper.history()
    failing = break_journal(keeper)
    pending = keeper.prepare(parse_command({"op": "peg", "track": 1, "points": 7}))
    with pytest.raises(JournalError, match="disk is full"):
        pending.commit()
    pending.abort()
    # A failed write reconnects (see Journal.reopen); the disk is still full for the new one.
    still = break_journal(keeper)
    with pytest.raises(JournalError):
        keeper.apply(
            parse_command({"op": "new_game", "variant": "five-card"})
        )  # with a snapshot: BEGIN fails
    assert failing.writes == 1 and still.writes == 1
    assert keeper.state == state and keeper.seq == seq and repr(keeper.machine) == machine_before
    assert keeper.history() == history
    assert keeper.view().tracks[1].front == 0
    # the disk mended: the connection made after the last failure writes again
    assert keeper.apply(parse_command({"op": "peg", "track": 1, "points": 2}))["seq"] == seq + 1
    keeper.close()
    with Scorekeeper.open(path) as resumed:
        assert [t.front for t in resumed.state.tracks] == [4, 2]
        assert resumed.seq == seq + 1
