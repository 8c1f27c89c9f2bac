"""Readers with the service stopped: a damaged journal is reported, never shown as good.

Every reader (``status``, ``history``, ``results``, ``stats players``,
``snapshot`` and the MQTT bridge's results) runs the writer's damage checks
read-only before it reads: it exits non-zero with the report the service
gives when it starts, and no file under the state directory is created,
changed or removed.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from boardctl.game.commands import Peg
from boardctl.game.keeper import Scorekeeper
from boardctl.notices import DAMAGE_KEY
from boardctl.store.integrity import JournalDamaged, writer_running
from boardctl.store.journal import Journal
from tests.bridge_results import finished_results
from tests.test_cli_lean import REPO
from tests.test_journal_integrity import ENTRIES, FREE, flip, frame_offset, live_copy

SERVICE_ONLY = "; the damaged files are kept in "  # the service's report: where the copies are


def wal_flip(path: Path) -> None:
    wal = Path(f"{path}-wal")
    flip(wal, frame_offset(wal, 4) + 24 + 100)


def wal_truncate(path: Path) -> None:
    wal = Path(f"{path}-wal")
    with wal.open("r+b") as file:
        file.truncate(frame_offset(wal, 6))


def wal_delete(path: Path) -> None:
    Path(f"{path}-wal").unlink()


def empty_database(path: Path) -> None:
    Path(f"{path}-wal").unlink()
    path.write_bytes(b"")


DAMAGE: dict[str, Callable[[Path], None]] = {
    "wal-bit-flip": wal_flip,
    "wal-truncated": wal_truncate,
    "wal-deleted": wal_delete,
    "zero-byte-database": empty_database,
}

READERS = {
    "status": ["status"],
    "status-json": ["status", "--json"],
    "history": ["history"],
    "history-all": ["history", "--all"],
    "results": ["results"],
    "results-csv": ["results", "--csv"],
    "stats": ["stats", "players"],
    "snapshot": ["snapshot", "--text"],
}


def tree(folder: Path) -> dict[str, str]:
    """Every file under ``folder``: its path and the SHA-256 of its bytes."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def boardctl(tmp_path: Path, journal: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """``boardctl ARGV --journal JOURNAL`` in a fresh process, no service about."""
    return subprocess.run(
        [sys.executable, "-m", "boardctl", *argv, "--journal", str(journal)],
        cwd=tmp_path,
        env={
            **{k: v for k, v in os.environ.items() if k != "XDG_RUNTIME_DIR"},
            "PYTHONPATH": str(REPO),
            "XDG_STATE_HOME": str(tmp_path / "nowhere"),
        },
        capture_output=True,
        text=True,
        timeout=120,
    )


def head(summary: str) -> str:
    """A report without what only the service says (where it put the copies)."""
    return summary.partition(SERVICE_ONLY)[0].partition("; nothing was changed")[0]


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_every_reader_reports_the_damage_the_service_reports_and_changes_nothing(
    tmp_path: Path, damage: str
) -> None:
    path = live_copy(tmp_path)
    DAMAGE[damage](path)
    state = path.parent
    before = tree(state)
    outputs = {}
    for name, argv in READERS.items():
        done = boardctl(tmp_path, path, *argv)
        assert done.returncode == 1, (name, done.stdout, done.stderr)
        assert "Traceback" not in done.stderr
        outputs[name] = done.stderr.strip()
        assert tree(state) == before, name  # nothing created, changed or removed
    with pytest.raises(JournalDamaged) as bridge:  # the bridge's journal reads
        finished_results(path, board="b1")
    with pytest.raises(JournalDamaged):
        Journal.open(path, readonly=True)
    assert tree(state) == before
    # The service starts: its report says what every reader said, and now keeps the copies.
    with Scorekeeper.open(path, setup=FREE, owner="service") as keeper:
        report = keeper.status()[DAMAGE_KEY]
    assert SERVICE_ONLY in report["summary"]
    said = f"boardctl: error: {head(report['summary'])}; nothing was changed"
    for name, output in outputs.items():
        assert output.startswith(said), (name, output, said)
    assert head(str(bridge.value)) == head(report["summary"])
    assert report["expected"] == ENTRIES + 1 and report["recovered"] < ENTRIES + 1


def test_readers_show_a_whole_journal_left_by_a_stopped_service(tmp_path: Path) -> None:
    path = live_copy(tmp_path)  # as a kill -9 leaves it: the events still in the WAL
    for name, argv in READERS.items():
        done = boardctl(tmp_path, path, *argv)
        assert done.returncode == 0, (name, done.stderr)
    status = boardctl(tmp_path, path, "status")
    assert "Track 1   20" in status.stdout and "WARNING" not in status.stdout
    assert not list(path.parent.glob("damaged-*"))


def test_a_database_lost_after_a_clean_close_is_reported_and_shown_again_when_put_back(
    tmp_path: Path,
) -> None:
    path = tmp_path / "state" / "journal.sqlite"
    with Scorekeeper.open(path, setup=FREE) as keeper:
        for i in range(6):
            keeper.apply(Peg(track=i % 2, points=1, kind="pegging"))
    good = boardctl(tmp_path, path, "status")
    assert good.returncode == 0 and "Track 1    3" in good.stdout
    db = path.read_bytes()
    path.write_bytes(b"")  # the database lost
    before = tree(path.parent)
    done = boardctl(tmp_path, path, "status")
    assert done.returncode == 1 and "the database file is empty or missing" in done.stderr
    assert "7 entries were committed, 0 can be read" in done.stderr
    assert tree(path.parent) == before
    path.write_bytes(db)  # put back: shown again
    assert boardctl(tmp_path, path, "status").stdout == good.stdout


def test_a_running_writer_is_seen_without_taking_its_lock(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    assert not writer_running(str(path))  # never opened: no lock file
    with Scorekeeper.open(path, setup=FREE, owner="service"):
        assert writer_running(str(path))  # held (the kernel's list of locks says so)
        with Journal.open(path, readonly=True) as reader:  # it checked at open: not again
            assert reader.damage is None
    assert not writer_running(str(path))  # let go: the file is emptied
    lock = Path(f"{path}-lock")
    holder = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        text=True,
        capture_output=True,
        check=True,
    ).stdout.strip()
    lock.write_text(f"{holder} service\n")  # what a holder killed with kill -9 leaves
    assert not writer_running(str(path))


def test_a_reader_in_the_writers_process_keeps_the_writers_locks(tmp_path: Path) -> None:
    """A service reads its own journal in its own process (history pages, records, a linked
    game's results): the reader must not drop the writer's POSIX locks (a file descriptor of
    the journal closed outside SQLite does), or another process's connection, as it closes,
    takes the WAL away, and every later entry is only in a deleted file."""
    path = tmp_path / "journal.sqlite"
    count = (
        "import sqlite3, sys\n"
        "print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])"
    )

    def events_seen_elsewhere() -> str:
        query = "SELECT count(*) FROM events"
        command = [sys.executable, "-c", count, str(path), query]
        return subprocess.run(command, capture_output=True, text=True, check=True).stdout.strip()

    with Journal.open(path, owner="service") as writer:
        writer.append({"op": "peg", "track": 0, "points": 2})
        with Journal.open(path, readonly=True) as reader:
            assert reader.stored_seq() == 1
        assert events_seen_elsewhere() == "1"  # a connection of another process, closed
        writer.append({"op": "peg", "track": 1, "points": 3})
        assert Path(f"{path}-wal").exists()
        assert events_seen_elsewhere() == "2"
