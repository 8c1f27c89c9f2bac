"""Journal.append_all: many events in one transaction, the same chain as one by one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from boardctl.errors import JournalError
from boardctl.store.journal import Journal

EVENTS: list[tuple[dict[str, Any], float]] = [
    ({"op": "next"}, 1.5),
    ({"op": "peg", "track": 0, "points": 2, "kind": "pegging"}, 2.25),
]


def test_append_all_continues_the_chain_as_append_does(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "a.sqlite") as one:
        one.append({"op": "undo"}, at=1.0)
        for event, at in EVENTS:
            one.append(event, at=at)
        expected = (one.last_seq, one.last_crc)
    with Journal.open(tmp_path / "b.sqlite") as many:
        many.append({"op": "undo"}, at=1.0)
        assert many.append_all(EVENTS) == 3
        assert (many.last_seq, many.last_crc) == expected
    with Journal.open(tmp_path / "b.sqlite", readonly=True) as read:
        assert [r.event for r in read.records()][1:] == [e for e, _ in EVENTS]
        assert read.last_crc == expected[1]
        with pytest.raises(JournalError, match="read-only"):
            read.append_all(EVENTS)


def test_event_rows_are_the_records_with_their_checksums(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal.open(path) as journal:
        journal.append_all([*EVENTS, *EVENTS])
    with Journal.open(path, readonly=True) as one, Journal.open(path, readonly=True) as fast:
        expected = []
        for record in one.records():
            expected.append((record.seq, record.at, record.event, one.last_crc))
        assert fast.event_rows() == expected
        assert (fast.last_seq, fast.last_crc) == (one.last_seq, one.last_crc)
        assert fast.event_rows() == []  # nothing new since


def test_event_rows_name_a_row_that_is_not_an_object(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal.open(path) as journal:  # checksummed, but not an event: a list
        journal.append_all([EVENTS[0], ([1, 2], 3.0)])  # type: ignore[list-item]
    with Journal.open(path, readonly=True) as journal, pytest.raises(JournalError, match="event 2"):
        journal.event_rows()
