"""The torn-write simulator (benchmarks/torn_write.py) on a few entries: nothing lost or silent.

A child appends entries under an LD_PRELOAD shim that records the journal's
writes and fsyncs; every power-cut image (each step, each write torn at
each 512-byte sector, each file as of its last fsync, one unsynced write
lost) is opened as the service opens it.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import torn_write

ENTRIES = 4


@pytest.fixture(autouse=True)
def _compiler() -> None:
    """The write recorder is an LD_PRELOAD shim built with cc (``.ci/run`` installs gcc)."""
    assert shutil.which("cc"), "the write recorder needs a C compiler (apt-get install gcc)"


def test_no_image_loses_an_acknowledged_entry_or_hides_damage(tmp_path: Path) -> None:
    tally = torn_write.simulate(ENTRIES, tmp_path)
    assert tally.built > 100, tally
    assert tally.acknowledged_lost == 0, tally.examples
    assert tally.unreported == 0, tally.examples
    assert tally.clean + tally.reported == tally.built
    # The images span the whole run: every entry count from the new game (seq 1; an empty
    # image starts one) to the last entry.
    assert tally.kept == set(range(1, ENTRIES + 2)), tally.kept


def test_the_recording_holds_each_entry_durably_before_its_acknowledgement(
    tmp_path: Path,
) -> None:
    ops = torn_write.record(tmp_path, ENTRIES)
    acks = [i for i, op in enumerate(ops) if op.code == "A"]
    assert [ops[i].number for i in acks] == list(range(1, ENTRIES + 2))
    for i in acks:  # a WAL fsync after the entry began and before it was acknowledged
        begun = max(j for j in range(i) if ops[j].code == "B")
        assert any(op.code == "S" and op.file == "wal" for op in ops[begun:i])
    assert any(op.code == "W" and len(op.data) > torn_write.SECTOR for op in ops)


def test_the_checker_counts_a_lost_acknowledged_entry(tmp_path: Path) -> None:
    ops = torn_write.record(tmp_path, ENTRIES)
    last_ack = max(i for i, op in enumerate(ops) if op.code == "A")
    before_close = list(torn_write.images(ops[: last_ack + 1]))[-1]
    assert before_close.acknowledged == ENTRIES  # the last mark write, just before its ack
    assert "wal" in before_close.files  # the entries are in the WAL until the close
    # The -wal deleted, the mark kept: entries lost, and the mark says so.
    no_wal = {name: data for name, data in before_close.files.items() if name != "wal"}
    tally = torn_write.Tally()
    torn_write.check(torn_write.Image(no_wal, ENTRIES + 1, "no wal"), tmp_path / "image", tally)
    assert (tally.built, tally.acknowledged_lost, tally.reported, tally.unreported) == (1, 1, 1, 0)
    # The mark deleted too: the loss cannot be seen, and the checker calls it unreported.
    bare = {name: data for name, data in no_wal.items() if name != "mark"}
    torn_write.check(torn_write.Image(bare, ENTRIES + 1, "bare"), tmp_path / "image", tally)
    assert (tally.acknowledged_lost, tally.unreported) == (2, 1)
