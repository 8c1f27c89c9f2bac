"""Journal.append_all: many events in one transaction, the same chain as one by one."""

from __future__ import annotations

from pathlib import Path

import pytest

from boardctl.errors import JournalError
from boardctl.game.journal import Journal

EVENTS = [({"op": "next"}, 1.5), ({"op": "peg", "track": 0, "points": 2, "kind": "pegging"}, 2.25)]


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
