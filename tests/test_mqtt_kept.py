"""The bridge's result feed starts from the results the journal keeps (boardctl.results.kept).

Its first read must give what a full fold of the journal gives (each record the
game's result with its id: the first event's number and chained checksum), fold
only the events since the last game start, and then follow the journal as before.
"""

from __future__ import annotations

import contextlib
import datetime
import itertools
import random
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.game.keeper import Scorekeeper
from boardctl.mqtt.result_feed import DAY, ResultFeed
from boardctl.results.derive import GameFold
from boardctl.results.sign import sign_record
from boardctl.store.integrity import restore_backup
from boardctl.store.journal import Journal
from tests.test_results_kept import SETUPS, imported, play, snapshot_seqs

KEY = bytes(range(32))


def full_fold_records(path: Path, key: bytes | None) -> dict[str, dict[str, Any]]:
    """Every result of a full fold, keyed by its id, found independently of the feed."""
    with Journal.open(path, readonly=True) as journal:
        rows = journal.event_rows()
    crcs = {seq: crc for seq, _, _, crc in rows}
    records = {}
    for game in GameFold(board="b1", path=str(path), rows=rows).games():
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
        last_start = snapshot_seqs(journal)[-1]
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


def ended(record: dict[str, Any]) -> float:
    return datetime.datetime.fromisoformat(str(record["end"]).replace("Z", "+00:00")).timestamp()


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10**6), key=st.sampled_from([None, KEY]))
def test_the_feed_since_a_time_reads_the_games_after_the_game_start_before_it_only(
    tmp_path_factory: pytest.TempPathFactory, seed: int, key: bytes | None
) -> None:
    rng = random.Random(seed)
    path = tmp_path_factory.mktemp("since") / "journal.sqlite"
    ticks = itertools.count()
    hours = rng.choice([1, 3, 8])  # between two entries: a game lasts a day or a few

    def clock() -> float:
        return 1.7e9 + 3600 * hours * next(ticks)

    with Scorekeeper.open(path, setup=rng.choice(SETUPS), wall_clock=clock) as keeper:
        play(keeper, rng, 300)
        first, last = 1.7e9, clock()
        feed = ResultFeed(path, "b1", key)
        try:
            for step in range(4):
                since = rng.uniform(first, last + 3 * DAY)  # later, or set back
                feed.refresh(since)
                full = full_fold_records(path, key)
                wanted = {game for game, record in full.items() if ended(record) >= since}
                assert wanted <= feed.results.keys()
                assert all(full[game] == record for game, record in feed.results.items())
                with Journal.open(path, readonly=True) as journal:
                    starts = snapshot_seqs(journal)
                    times = {row[0]: row[1] for row in journal.event_rows()}
                before = [seq for seq in starts if times[seq] < feed_since(feed)]
                if before and step == 0:  # none read from the games before it
                    assert all(int(r["first_seq"]) >= before[-1] for r in feed.results.values())
                play(keeper, rng, 40)
                last = clock()
        finally:
            feed.close()


def feed_since(feed: ResultFeed) -> float:
    """The time the feed read the kept results from (a day before the first ``since``)."""
    assert feed._since is not None
    return feed._since
