"""A start reads the current game and a bounded tail, whatever the journal's length.

An import (``import_events``) stores the snapshots and kept games of its game
starts with its events, and a restore stores those of a backup without them, so
that the service's first start on either resumes from the last game start. A
journal written without them otherwise (``append_all``: a test journal, an older
boardctl's) gets them when a writer first opens it. From then on a start resumes
from the current game's snapshot, reading at most ``CHECKED_AT_START`` events
back, and its state (with the undo and redo stacks) is the full replay's.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.cli import main
from boardctl.errors import JournalError
from boardctl.game.commands import NewGame
from boardctl.game.keeper import Scorekeeper
from boardctl.notices import FAULT_KEY
from boardctl.results.kept import import_events
from boardctl.service.fault import JournalKeeper
from boardctl.store import journal as journal_module
from boardctl.store.journal import Journal
from tests.test_results_kept import SETUPS, play, same_as_full_fold, snapshot_seqs

Row = tuple[int, float, dict[str, Any], int]


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
        assert snapshot_seqs(journal) == [] and journal.kept_in_doubt()
    with Scorekeeper.open(path, readonly=True, full_replay=True) as full:
        expected = full.state.to_dict()
    with Scorekeeper.open(path) as keeper:  # the first writer's open stores them
        assert keeper.state.to_dict() == expected
        assert keeper.journal is not None and not keeper.journal.kept_in_doubt()
        starts = snapshot_seqs(keeper.journal)
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
        assert journal.starts_pending and journal.kept_in_doubt() and snapshot_seqs(journal) == []
        # before the thread
        keeper.prepare(NewGame(variant="six-card", mode="guided", target=31)).commit()
        assert snapshot_seqs(journal) == [keeper.seq]  # its snapshot, and no kept rows
        play(keeper.inner, random.Random(9), 40)  # type: ignore[arg-type]
        posted: list[Any] = []
        keeper.after_start(posted.append)  # what the loop does once it serves
        assert keeper.checking is not None
        keeper.checking.join(120)
        assert not keeper.checking.is_alive() and posted == []  # no damage found
        assert not journal.starts_pending and not journal.kept_in_doubt()
        play(keeper.inner, random.Random(10), 200)  # type: ignore[arg-type]
        assert not journal.kept_in_doubt()  # a game start now keeps its rows again
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
            keeper.prepare(NewGame(variant="six-card", mode="free"))
    finally:
        keeper.close()


def played_rows(path: Path, rng: random.Random, steps: int) -> tuple[list[Row], list[int]]:
    """The events of ``steps`` random entries the scorekeeper wrote at ``path``, and the game
    starts it stored."""
    with Scorekeeper.open(path, setup=rng.choice(SETUPS)) as keeper:
        play(keeper, rng, steps)
    with Journal.open(path, readonly=True) as journal:
        return journal.event_rows(), snapshot_seqs(journal)


def starts_from_the_last_game_start(path: Path, starts: list[int]) -> Scorekeeper:
    """A writer's start on ``path``, as for a very long journal: it reads the last game start
    on only and its state, undo and redo stacks and history are a full replay's."""
    with Scorekeeper.open(path, readonly=True, full_replay=True) as full:
        machine, history = full.machine, full.history()
    read: list[tuple[int, int]] = []
    real = Journal._rows_from

    def counted(self: Journal, start: int, last: int) -> Any:
        read.append((start, last))
        return real(self, start, last)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(journal_module, "CHECKED_AT_START", 1)
        patch.setattr(Journal, "_rows_from", counted)
        keeper = Scorekeeper.open(path)
    assert read[0] == (starts[-1], keeper.seq)  # the current game only
    assert keeper.machine == machine and keeper.history() == history
    return keeper


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    how=st.sampled_from(
        ["imported", "imported in parts", "imported after a plain append", "restored"]
    ),
)
def test_an_import_or_a_restore_stores_the_game_starts_so_the_first_start_reads_the_last_game(
    tmp_path_factory: pytest.TempPathFactory, seed: int, how: str
) -> None:
    rng = random.Random(seed)
    folder = tmp_path_factory.mktemp("import")
    rows, starts = played_rows(folder / "played.sqlite", rng, 300)
    path = folder / "journal.sqlite"
    cuts = sorted(rng.sample(range(1, len(rows)), 3)) if "imported " in how else []
    parts = [rows[a:b] for a, b in zip([0, *cuts], [*cuts, len(rows)], strict=True)]
    with Journal.open(path) as journal:
        for number, part in enumerate(parts):
            events = [(event, at) for _, at, event, _ in part]
            if how == "restored":  # a backup taken before its game starts were stored
                journal.append_all(events)
                journal.backup("manual")
            elif number == 0 and how == "imported after a plain append":
                journal.append_all(events)  # no game starts: the import folds from the first
            else:
                import_events(journal, events)
    if how == "restored":
        with Scorekeeper.open(path) as keeper:  # the journal goes on, then is lost
            play(keeper, rng, 30)
        where = ["--journal", str(path), "--socket", str(folder / "none.sock")]
        assert main(["restore", "1", *where]) == 0
    with Journal.open(path, readonly=True) as journal:
        assert snapshot_seqs(journal) == starts and not journal.kept_in_doubt()
        assert [row[3] for row in journal.event_rows()] == [row[3] for row in rows]
    same_as_full_fold(path)
    with starts_from_the_last_game_start(path, starts) as keeper:  # and plays on
        play(keeper, rng, 100)
    with Journal.open(path, readonly=True) as journal:
        assert not journal.kept_in_doubt()
        starts = snapshot_seqs(journal)
    starts_from_the_last_game_start(path, starts).close()
    same_as_full_fold(path)


def test_an_import_with_an_event_the_rules_refuse_writes_nothing(tmp_path: Path) -> None:
    rows, _ = played_rows(tmp_path / "played.sqlite", random.Random(4), 120)
    path = tmp_path / "journal.sqlite"
    events = [(event, at) for _, at, event, _ in rows]
    with Journal.open(path) as journal:
        import_events(journal, events[:50])
        bad = [*events[50:80], ({"op": "peg", "track": 7, "points": 3}, events[80][1])]
        with pytest.raises(JournalError, match=f"event {50 + len(bad)} cannot be replayed"):
            import_events(journal, bad)
        assert journal.last_seq == journal.stored_seq() == 50
        import_events(journal, events[50:])  # the same journal goes on where it was
    with Journal.open(path, readonly=True) as journal:
        assert len(journal.event_rows()) == len(rows) and not journal.kept_in_doubt()
    same_as_full_fold(path)


def test_a_restore_stores_the_game_starts_of_a_backup_taken_without_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows, starts = played_rows(tmp_path / "played.sqlite", random.Random(8), 300)
    path = tmp_path / "journal.sqlite"
    with Journal.open(path) as journal:  # as a backup taken before its game starts were stored
        journal.append_all((event, at) for _, at, event, _ in rows)
        journal.backup("manual")
    with Scorekeeper.open(path, setup=SETUPS[1]) as keeper:  # the journal goes on, then is lost
        play(keeper, random.Random(9), 50)
    where = ["--journal", str(path), "--socket", str(tmp_path / "none.sock")]
    assert main(["restore", "1", *where]) == 0
    assert "restored" in capsys.readouterr().out
    with Journal.open(path, readonly=True) as journal:
        assert snapshot_seqs(journal) == starts and not journal.kept_in_doubt()
        assert journal.stored_seq() == len(rows)
    starts_from_the_last_game_start(path, starts).close()
    same_as_full_fold(path)
