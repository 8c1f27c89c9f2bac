"""The games a journal keeps (boardctl.results.kept) are what a full fold of its events gives.

Random guided games to a short target, with slips, refiles, undos, redos, new
games and next games, written by the scorekeeper; then imported without
snapshots, restored from a backup taken mid-way, or with a kept row damaged;
and played on after each. Whatever happened, ``results`` and ``stats players``
read the kept rows and fold only the rest, and must equal the full fold; so must the CSV
``results --csv`` writes from the kept rows' text.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import random
import shutil
import sqlite3
import zlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.errors import EntryError
from boardctl.game.commands import Command, NewGame, Next, Redo, Refile, Undo
from boardctl.game.keeper import Scorekeeper
from boardctl.results.derive import GameFold
from boardctl.results.export import write_csv
from boardctl.results.kept import each_kept_game
from boardctl.results.model import PlayedGame
from boardctl.results.records import records
from boardctl.results.source import load_csv, load_games, load_records, load_results
from boardctl.store.integrity import restore_backup
from boardctl.store.journal import Journal
from tools.random_player import random_command

SETUPS = [
    NewGame(variant="six-card", mode="guided", target=31),
    NewGame(variant="five-card", mode="guided", target=31, match=3),
    NewGame(variant="three-player", mode="guided", target=31),
]


def play(keeper: Scorekeeper, rng: random.Random, steps: int) -> None:
    """``steps`` random entries: mostly the simulator's, with refiles, undos and game starts."""
    for _ in range(steps):
        state = keeper.state
        roll = rng.random()
        command: Command
        if state.ask is not None and roll < 0.5:
            command = Refile()
        elif roll < 0.08:
            command = Undo()
        elif roll < 0.11:
            command = Redo()
        elif roll < 0.13:
            command = rng.choice(SETUPS)
        elif state.winner is not None:
            command = Next() if roll < 0.8 else rng.choice(SETUPS)
        else:
            command = random_command(state, rng)
        with contextlib.suppress(EntryError):
            keeper.apply(command)


def imported(path: Path) -> Path:
    """A copy of the journal at ``path`` with the same events but no snapshots or kept rows,
    as an imported journal is (beside it, ``imported.sqlite``)."""
    with Journal.open(path, readonly=True) as journal:
        rows = journal.event_rows()
    copy = path.with_name("imported.sqlite")
    with Journal.open(copy) as journal:
        journal.append_all((event, at) for _, at, event, _ in rows)
    return copy


def snapshot_seqs(journal: Journal) -> list[int]:
    """The events with a snapshot stored, in order."""
    return [int(seq) for (seq,) in journal._query("SELECT seq FROM snapshots ORDER BY seq")]


def full_fold(path: Path) -> list[PlayedGame]:
    with Journal.open(path, readonly=True) as journal:
        return GameFold(board="b", path=str(path), rows=journal.event_rows()).games()


def full_csv(games: list[PlayedGame], board: str) -> str:
    out = io.StringIO()
    write_csv((dataclasses.replace(game.result, board=board) for game in games), out)
    return out.getvalue()


def same_as_full_fold(path: Path) -> None:
    kept = load_games(path, board="b")
    full = full_fold(path)
    assert kept == full
    assert load_results(path, board="b") == [game.result for game in full]
    assert load_csv(path, board="b") == full_csv(full, "b")
    assert load_csv(path, board='a "quoted", board') == full_csv(full, 'a "quoted", board')
    totals = load_records(path)  # the running totals the journal keeps, and the games after
    assert totals.to_dict() == records(full).to_dict() and totals.games == len(full)


@settings(max_examples=20, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    how=st.sampled_from(["written", "imported", "restored", "damaged row", "stale totals"]),
)
def test_the_kept_games_and_the_fold_of_the_rest_are_the_full_fold(
    tmp_path_factory: pytest.TempPathFactory, seed: int, how: str
) -> None:
    rng = random.Random(seed)
    folder = tmp_path_factory.mktemp("kept")
    path = folder / "journal.sqlite"
    with Scorekeeper.open(path, setup=rng.choice(SETUPS)) as keeper:
        play(keeper, rng, 150)
        assert keeper.journal is not None
        backup = folder / "kept-backup.sqlite"  # aside: game ends rotate the backups folder
        shutil.copy(keeper.journal.backup(), backup)
        play(keeper, rng, 150)
    same_as_full_fold(path)
    if how == "imported":
        path = imported(path)
        same_as_full_fold(path)  # nothing kept: every event folded
    elif how == "restored":
        restore_backup(path, backup)
        same_as_full_fold(path)
    elif how == "damaged row":
        with contextlib.closing(sqlite3.connect(path)) as db, db:
            middle = db.execute("SELECT seq FROM games ORDER BY seq").fetchall()
            for table in ("games", "results"):
                db.execute(
                    f"UPDATE {table} SET body = '[]' WHERE seq = ?", middle[len(middle) // 2]
                )
            db.execute("DELETE FROM csv WHERE seq = ?", middle[len(middle) // 2])  # a gap
            db.execute("UPDATE totals SET body = '[[],[],0]'")
        same_as_full_fold(path)  # the fold goes on from the row before the damaged one
    elif how == "stale totals":  # the totals of an earlier game start, as a writer may leave
        with contextlib.closing(sqlite3.connect(path)) as db, db:
            starts = [row[0] for row in db.execute("SELECT seq FROM games ORDER BY seq")]
        if len(starts) > 2:
            with Journal.open(path, readonly=True) as journal:
                stale = keep_totals_at(journal, starts[len(starts) // 2])
            with contextlib.closing(sqlite3.connect(path)) as db, db:
                db.execute("DELETE FROM totals")
                db.execute("INSERT INTO totals VALUES (?, ?, ?)", stale)
        same_as_full_fold(path)  # the totals there, then the kept games after them
    with Scorekeeper.open(path) as keeper:  # a writer opens it: the rows are rebuilt if in doubt
        assert keeper.journal is not None and not keeper.journal.kept_in_doubt()
        play(keeper, rng, 100)
    same_as_full_fold(path)


def keep_totals_at(journal: Journal, seq: int) -> tuple[int, str, int]:
    """A totals row at game start ``seq``: the records of the full fold's games before it."""
    games = [g for g in full_fold(journal.path) if g.result.first_seq < seq]
    body = records(games).dump()
    crc = journal._query("SELECT crc FROM events WHERE seq = ?", (seq,))[0][0]
    return seq, body, zlib.crc32(body.encode(), crc)


def test_a_game_start_stores_the_games_it_ends_in_the_same_transaction(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    rng = random.Random(7)
    with Scorekeeper.open(path, setup=SETUPS[0]) as keeper:
        while len(full_fold(path)) < 3:
            play(keeper, rng, 20)
        keeper.apply(SETUPS[0])  # the game in hand, if won, is left
        with contextlib.closing(sqlite3.connect(path)) as db:
            starts = [r[0] for r in db.execute("SELECT seq FROM snapshots ORDER BY seq")]
            kept = [r[0] for r in db.execute("SELECT seq FROM games ORDER BY seq")]
        assert kept == starts  # a row with every game start
        with contextlib.closing(sqlite3.connect(path)) as db:
            for table in ("results", "csv"):
                assert [r[0] for r in db.execute(f"SELECT seq FROM {table} ORDER BY seq")] == starts
            assert [r[0] for r in db.execute("SELECT seq FROM totals")] == starts[-1:]
            assert [r[0] for r in db.execute("SELECT seq FROM csv_chain")] == starts[-1:]
        with Journal.open(path, readonly=True) as journal:
            from_rows = [g for _, _, body in journal.game_rows() for g in body_games(body)]
        assert from_rows == [g.result.seq for g in full_fold(path)]


def body_games(body: str) -> list[Any]:
    from boardctl.results.kept import decode_games

    return [game.result.seq for game in decode_games(body, "b")]


def test_an_older_journal_gets_its_games_table_when_a_writer_opens_it(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    rng = random.Random(3)
    with Scorekeeper.open(path, setup=SETUPS[0]) as keeper:
        play(keeper, rng, 200)
    with contextlib.closing(sqlite3.connect(path)) as db, db:  # as boardctl 2 wrote it
        for table in ("games", "results", "csv", "totals", "csv_chain"):
            db.execute(f"DROP TABLE {table}")
        db.execute("PRAGMA user_version=2")
    full = full_fold(path)
    with Scorekeeper.open(path) as keeper:
        assert keeper.journal is not None and not keeper.journal.kept_in_doubt()
    assert load_games(path, board="b") == full


def test_the_kept_games_are_read_not_folded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "journal.sqlite"
    rng = random.Random(11)
    with Scorekeeper.open(path, setup=SETUPS[0]) as keeper:
        while len(full_fold(path)) < 4:
            play(keeper, rng, 20)
        keeper.apply(SETUPS[0])
        play(keeper, random.Random(1), 5)
    full = full_fold(path)
    with Journal.open(path, readonly=True) as journal:
        last_start = list(journal.game_rows())[-1][0]
        events = journal.event_rows()[-1][0]
    folded: list[int] = []
    real_add = each_kept_game.__globals__["GameFold"].add

    def counted_add(self: Any, rows: Any) -> None:
        rows = list(rows)
        folded.extend(row[0] for row in rows)
        real_add(self, rows)

    monkeypatch.setattr(each_kept_game.__globals__["GameFold"], "add", counted_add)
    assert load_games(path, board="b") == full
    assert min(folded, default=events) > last_start  # only the current game was folded
    assert len(folded) == events - last_start
    folded.clear()
    decoded: list[str] = []
    real_decode = each_kept_game.__globals__["decode_games"]

    def counted_decode(body: str, board: str, **options: Any) -> Any:
        decoded.append(body)
        return real_decode(body, board, **options)

    monkeypatch.setitem(each_kept_game.__globals__, "decode_games", counted_decode)
    assert load_records(path).to_dict() == records(full).to_dict()
    assert decoded == [] and len(folded) == events - last_start  # the totals, and this game
    assert load_results(path, board="b") == [game.result for game in full]
    assert decoded == []  # the results rows, not the games rows
    folded.clear()
    assert load_csv(path, board="b") == full_csv(full, "b")
    assert decoded == [] and len(folded) == events - last_start  # the csv rows, and this game


def test_a_schema_4_journal_gives_the_same_csv_before_a_writer_migrates_it(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    with Scorekeeper.open(path, setup=SETUPS[0]) as keeper:
        play(keeper, random.Random(4), 200)
    with contextlib.closing(sqlite3.connect(path)) as db, db:  # as boardctl with schema 4 wrote it
        db.execute("DROP TABLE csv")
        db.execute("DROP TABLE csv_chain")
        db.execute("PRAGMA user_version=4")
    full = full_fold(path)
    assert len(full) >= 2 and load_csv(path, board="b") == full_csv(full, "b")  # every game folded
    with Scorekeeper.open(path) as keeper:  # a writer migrates it and stores the csv rows
        assert keeper.journal is not None and not keeper.journal.kept_in_doubt()
    assert load_csv(path, board="b") == full_csv(full, "b")


def csv_read(path: Path) -> tuple[str, list[str]]:
    """``results --csv``'s text, and the SQL its journal ran for it."""
    asked: list[str] = []
    real = Journal._query

    def spied(self: Journal, sql: str, parameters: tuple[int | str, ...] = ()) -> Any:
        asked.append(sql)
        return real(self, sql, parameters)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Journal, "_query", spied)
        text = load_csv(path, board="b")
    return text, asked


PER_ROW = "FROM csv t JOIN events e"  # each csv row checked against its own event


@pytest.mark.parametrize("how", ["written", "chain damaged", "row changed", "migrated"])
def test_one_chained_checksum_checks_the_csv_rows_or_each_row_is_checked(
    tmp_path: Path, how: str
) -> None:
    path = tmp_path / "journal.sqlite"
    rng = random.Random(11)
    with Scorekeeper.open(path, setup=SETUPS[1]) as keeper:
        while len(full_fold(path)) < 6:
            play(keeper, rng, 30)
    if how == "chain damaged":
        with contextlib.closing(sqlite3.connect(path)) as db, db:
            db.execute("UPDATE csv_chain SET body = '12345'")
    elif how == "row changed":  # a row's text changed and its own checksum made to match
        with contextlib.closing(sqlite3.connect(path)) as db, db:
            seq, first, body = db.execute(
                "SELECT c.seq, g.first, c.body FROM csv c JOIN games g USING (seq) "
                "WHERE c.body != '[]' ORDER BY c.seq LIMIT 1"
            ).fetchone()
            crc = db.execute("SELECT crc FROM events WHERE seq = ?", (seq,)).fetchone()[0]
            changed = body.replace(",", ";", 1)
            stored = zlib.crc32(changed.encode(), zlib.crc32(b"%d" % first, crc))
            db.execute("UPDATE csv SET body = ?, crc = ? WHERE seq = ?", (changed, stored, seq))
    elif how == "migrated":  # as boardctl with schema 5 left it
        with contextlib.closing(sqlite3.connect(path)) as db, db:
            db.execute("DROP TABLE csv_chain")
            db.execute("PRAGMA user_version=5")
    full = full_csv(full_fold(path), "b")
    text, asked = csv_read(path)
    if how == "row changed":  # the chain no longer holds: the rows are checked one by one
        assert PER_ROW in " ".join(asked) and text != full  # (its own checksum was made good)
        return
    assert text == full
    assert (PER_ROW in " ".join(asked)) == (how != "written")
    with Scorekeeper.open(path) as keeper:  # a writer's next game start makes the chain again
        keeper.apply(SETUPS[0])
    text, asked = csv_read(path)
    assert text == full_csv(full_fold(path), "b") and PER_ROW not in " ".join(asked)
