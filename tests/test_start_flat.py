"""A start reads the current game and a bounded tail, whatever the journal's length.

A journal imported or restored without snapshots gets them (and its kept games)
when a writer first opens it; from then on a start resumes from the current
game's snapshot, reading at most ``CHECKED_AT_START`` events back, and its
state is the full replay's.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from boardctl.errors import JournalError
from boardctl.game.commands import NewGame
from boardctl.game.keeper import Scorekeeper
from boardctl.notices import FAULT_KEY
from boardctl.results.kept import in_doubt
from boardctl.service.fault import JournalKeeper
from boardctl.store import journal as journal_module
from boardctl.store.journal import Journal
from tests.test_results_kept import SETUPS, play, same_as_full_fold


def imported(tmp_path: Path) -> Path:
    """A journal of a few random games, then written again without snapshots (an import)."""
    played = tmp_path / "played.sqlite"
    with Scorekeeper.open(played, setup=SETUPS[0]) as keeper:
        play(keeper, random.Random(5), 400)
    with Journal.open(played, readonly=True) as journal:
        rows = journal.event_rows()
    path = tmp_path / "journal.sqlite"
    with Journal.open(path) as journal:
        journal.append_all((event, at) for _, at, event, _ in rows)
    return path


def test_an_imported_journal_gets_its_snapshots_once_and_then_resumes_from_the_last(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = imported(tmp_path)
    with Journal.open(path, readonly=True) as journal:
        assert journal.snapshot_seqs() == [] and in_doubt(journal)
    with Scorekeeper.open(path, readonly=True, full_replay=True) as full:
        expected = full.state.to_dict()
    with Scorekeeper.open(path) as keeper:  # the first writer's open stores them
        assert keeper.state.to_dict() == expected
        assert keeper.journal is not None and not in_doubt(keeper.journal)
        starts = keeper.journal.snapshot_seqs()
    assert len(starts) > 3
    monkeypatch.setattr(journal_module, "CHECKED_AT_START", 1)  # as for a very long journal
    read: list[tuple[int, int]] = []
    real = Journal._rows_from

    def counted(self: Journal, start: int, last: int) -> Any:
        read.append((start, last))
        return real(self, start, last)

    monkeypatch.setattr(Journal, "_rows_from", counted)
    with Scorekeeper.open(path) as keeper:
        assert keeper.state.to_dict() == expected
        last = keeper.seq
    assert read == [(starts[-1], last)]  # the current game only


def test_a_journal_shorter_than_the_checked_tail_is_checked_whole_at_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = imported(tmp_path)
    Scorekeeper.open(path).close()
    with Journal.open(path, readonly=True) as journal:
        last = journal.stored_seq()
    read: list[tuple[int, int]] = []
    real = Journal._rows_from

    def counted(self: Journal, start: int, end: int) -> Any:
        read.append((start, end))
        return real(self, start, end)

    monkeypatch.setattr(Journal, "_rows_from", counted)
    Scorekeeper.open(path).close()
    assert read == [(1, last)]


def test_the_service_stores_an_imported_journals_game_starts_after_it_starts_by_a_thread(
    tmp_path: Path,
) -> None:
    path = imported(tmp_path)
    with Scorekeeper.open(path, readonly=True, full_replay=True) as full:
        expected = full.state.to_dict()
    keeper = JournalKeeper(path, None)
    try:
        journal = keeper.journal
        assert keeper.state.to_dict() == expected  # open: replayed, nothing stored yet
        assert journal.starts_pending and in_doubt(journal) and journal.snapshot_seqs() == []
        keeper.apply(NewGame(variant="six-card", mode="guided", target=31))  # before the thread
        assert journal.snapshot_seqs() == [keeper.seq]  # its snapshot, and no kept rows
        play(keeper.inner, random.Random(9), 40)  # type: ignore[arg-type]
        posted: list[Any] = []
        keeper.after_start(posted.append)  # what the loop does once it serves
        assert keeper.checking is not None
        keeper.checking.join(120)
        assert not keeper.checking.is_alive() and posted == []  # no damage found
        assert not journal.starts_pending and not in_doubt(journal)
        play(keeper.inner, random.Random(10), 200)  # type: ignore[arg-type]
        assert not in_doubt(journal)  # a game start now keeps its rows again
    finally:
        keeper.close()
    same_as_full_fold(path)


def test_damage_the_check_after_the_start_finds_faults_the_journal_as_an_open_would(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = imported(tmp_path)
    keeper = JournalKeeper(path, None)
    try:
        assert keeper.fault is None and keeper.journal.starts_pending

        def damaged(journal: Journal) -> None:
            raise JournalError(f"journal {journal.path}: page 3 is damaged")

        monkeypatch.setattr(Journal, "check_pages", damaged)  # the thread's own connection
        posted: list[Any] = []
        keeper.after_start(posted.append)
        assert keeper.checking is not None
        keeper.checking.join(60)
        assert len(posted) == 1 and keeper.inner is not None  # the loop's to act on
        posted[0]()  # in the loop's thread
        assert keeper.inner is None and "page 3 is damaged" in str(keeper.fault)
        assert "page 3 is damaged" in keeper.status()[FAULT_KEY]
        with pytest.raises(JournalError, match="page 3 is damaged"):  # entries are refused
            keeper.apply(NewGame(variant="six-card", mode="free"))
    finally:
        keeper.close()
