"""The bridge's result feed starts from the results the journal keeps (boardctl.results.kept).

Its first read must give what a full fold of the journal gives (each record the
game's result with its id: the first event's number and chained checksum), fold
only the events since the last game start, and then follow the journal as before.
"""

from __future__ import annotations

import contextlib
import random
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.game.keeper import Scorekeeper
from boardctl.mqtt.result_feed import ResultFeed
from boardctl.results.derive import GameFold, journal_rows, played_games
from boardctl.results.sign import sign_record
from boardctl.store.integrity import restore_backup
from boardctl.store.journal import Journal
from tests.test_results_kept import SETUPS, imported, play

KEY = bytes(range(32))


def full_fold_records(path: Path, key: bytes | None) -> dict[str, dict[str, Any]]:
    """Every result of a full fold, keyed by its id, found independently of the feed."""
    with Journal.open(path, readonly=True) as journal:
        rows = journal_rows(journal)
    crcs = {seq: crc for seq, _, _, crc in rows}
    records = {}
    for game in played_games(rows, board="b1", path=str(path)):
        seq = game.result.first_seq
        record = {"id": f"{seq}-{crcs[seq]:08x}", **game.result.to_dict()}
        records[record["id"]] = record if key is None else sign_record(record, key)
    return records


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    how=st.sampled_from(["written", "imported", "restored", "damaged row"]),
    key=st.sampled_from([None, KEY]),
)
def test_the_feed_starts_from_the_kept_results_as_the_full_fold_and_follows_on(
    tmp_path_factory: pytest.TempPathFactory, seed: int, how: str, key: bytes | None
) -> None:
    rng = random.Random(seed)
    folder = tmp_path_factory.mktemp("feed")
    path = folder / "journal.sqlite"
    with Scorekeeper.open(path, setup=rng.choice(SETUPS)) as keeper:
        play(keeper, rng, 120)
        assert keeper.journal is not None
        backup = folder / "kept-backup.sqlite"
        shutil.copy(keeper.journal.backup(), backup)
        play(keeper, rng, 120)
    if how == "imported":
        path = imported(path)
    elif how == "restored":
        restore_backup(path, backup)
    elif how == "damaged row":
        with contextlib.closing(sqlite3.connect(path)) as db, db:
            middle = db.execute("SELECT seq FROM results ORDER BY seq").fetchall()
            db.execute("UPDATE results SET body = '[]' WHERE seq = ?", middle[len(middle) // 2])
    feed = ResultFeed(path, "b1", key)
    try:
        feed.refresh()  # the start
        assert feed.read and feed.results == full_fold_records(path, key)
        with Scorekeeper.open(path) as keeper:  # played on while the feed follows
            for _ in range(6):
                play(keeper, rng, 15)
                feed.refresh()
                assert feed.results == full_fold_records(path, key)
    finally:
        feed.close()


def test_the_feed_start_reads_the_kept_results_and_folds_only_the_current_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "journal.sqlite"
    rng = random.Random(5)
    with Scorekeeper.open(path, setup=SETUPS[0]) as keeper:
        while len(full_fold_records(path, None)) < 5:
            play(keeper, rng, 20)
        keeper.apply(SETUPS[0])  # a game start: the games before it are kept
        play(keeper, random.Random(2), 5)
    expected = full_fold_records(path, None)
    with Journal.open(path, readonly=True) as journal:
        last_start = journal.snapshot_seqs()[-1]
        events = journal.stored_seq()
    folded: list[int] = []
    real_add = GameFold.add

    def counted_add(self: GameFold, rows: Any) -> None:
        rows = list(rows)
        folded.extend(row[0] for row in rows)
        real_add(self, rows)

    monkeypatch.setattr(GameFold, "add", counted_add)
    feed = ResultFeed(path, "b1")
    try:
        assert feed.refresh()
        assert feed.results == expected and len(expected) >= 5
        assert folded == list(range(last_start + 1, events + 1))  # after the game start only
    finally:
        feed.close()
