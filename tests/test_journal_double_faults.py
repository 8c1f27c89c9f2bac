"""Two faults at once are not silent: the mark lost with the WAL's tail, the database with
the mark, or a longer journal that is not this board's.

Each journal is opened as the service opens it at its start (the writer's
``Scorekeeper.open``, ``owner="service"``); a reader opening it first is
refused with the same report and changes nothing.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from boardctl.cli import main
from boardctl.game.commands import NewGame, Peg
from boardctl.game.keeper import Scorekeeper
from boardctl.notices import DAMAGE_KEY
from boardctl.store import integrity
from boardctl.store.integrity import JournalDamaged
from boardctl.store.journal import Journal, list_backups
from boardctl.store.journal_file import kept_here
from tests.bridge_results import finished_results
from tests.test_journal_integrity import ENTRIES, FREE, flip, frame_offset, live_copy
from tests.test_journal_readers import tree


def service_report(path: Path) -> tuple[dict[str, object] | None, int]:
    """Open ``path`` as the service does: (its damage report or None, the entries kept)."""
    with Scorekeeper.open(path, setup=FREE, owner="service") as keeper:
        return keeper.status().get(DAMAGE_KEY), keeper.seq


def last_frame(wal: Path) -> int:
    scan = integrity.scan_wal(wal.read_bytes())
    assert scan is not None
    return scan.frames


def flip_last(wal: Path) -> None:
    flip(wal, frame_offset(wal, last_frame(wal)) + 24 + 700)


def tear_last(wal: Path) -> None:
    with wal.open("r+b") as file:
        file.truncate(frame_offset(wal, last_frame(wal)) + 24 + 512)


def flip_last_but_one(wal: Path) -> None:
    flip(wal, frame_offset(wal, last_frame(wal) - 1) + 24 + 300)


@pytest.mark.parametrize("tail_damage", [flip_last, tear_last, flip_last_but_one])
def test_the_wals_last_frames_damaged_with_the_mark_deleted_are_reported(
    tmp_path: Path, tail_damage: Callable[[Path], None]
) -> None:
    path = live_copy(tmp_path)
    tail_damage(Path(f"{path}-wal"))
    integrity.mark_path(path).unlink()
    before = tree(path.parent)
    with pytest.raises(JournalDamaged, match="the -mark file is missing"):
        Journal.open(path, readonly=True)
    assert tree(path.parent) == before  # the reader changed nothing
    report, kept = service_report(path)
    assert report is not None, "entries lost without a word"
    assert "the -mark file is missing" in str(report["summary"])
    assert "the -wal file is damaged at frame" in str(report["summary"])
    assert report["recovered"] == kept and kept < ENTRIES + 1
    assert Path(str(report["set_aside"]), "journal.sqlite-wal").exists()


def test_a_deleted_mark_beside_a_whole_wal_is_reported_once(tmp_path: Path) -> None:
    path = live_copy(tmp_path)
    integrity.mark_path(path).unlink()
    report, kept = service_report(path)
    assert report is not None and kept == ENTRIES + 1  # nothing lost, but it cannot be told
    assert "the -mark file is missing" in str(report["summary"])
    with Scorekeeper.open(path, owner="service") as keeper:  # the mark is back: no new report
        assert keeper.seq == ENTRIES + 1
    assert len(list(path.parent.glob("damaged-*"))) == 1


def backed_up(folder: Path) -> Path:
    """A journal closed by a service (a shutdown backup in ``backups/``), two games in."""
    path = folder / "journal.sqlite"
    with Scorekeeper.open(path, setup=FREE, owner="service") as keeper:
        keeper.journal.backup_on_close = True  # type: ignore[union-attr]  # as the service does
        for i in range(10):
            keeper.apply(Peg(track=i % 2, points=2, kind="pegging"))
        keeper.apply(NewGame(variant="six-card", mode="free"))
        keeper.apply(Peg(track=0, points=5, kind="pegging"))
    assert list_backups(path)
    return path


def test_the_database_and_mark_deleted_beside_backups_is_reported(tmp_path: Path) -> None:
    path = backed_up(tmp_path)
    for suffix in ("", "-wal", "-mark"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    before = tree(tmp_path)
    with pytest.raises(JournalDamaged, match="backups/ holds 1 backups"):
        Journal.open(path, readonly=True)
    with pytest.raises(JournalDamaged, match="backups/ holds 1 backups"):
        finished_results(path, board="b1")  # the bridge reports it too, not "no journal yet"
    assert tree(tmp_path) == before
    report, kept = service_report(path)
    assert report is not None, "an empty journal started silently beside the backups"
    assert "the database file and its -mark file are missing" in str(report["summary"])
    assert report["recovered"] == 0 and kept == 1  # the first game of an empty journal
    with Scorekeeper.open(path, owner="service") as keeper:  # shown until a chosen new game
        assert keeper.view().extra.journal_damage is True


def test_a_mark_deleted_beside_backups_is_reported(tmp_path: Path) -> None:
    path = backed_up(tmp_path)
    integrity.mark_path(path).unlink()
    report, kept = service_report(path)
    assert report is not None and kept == 13
    assert "the -mark file is missing" in str(report["summary"])


def test_a_longer_journal_from_another_board_is_reported(tmp_path: Path) -> None:
    ours = tmp_path / "ours" / "journal.sqlite"
    with Scorekeeper.open(ours, setup=FREE, owner="service") as keeper:
        for i in range(5):
            keeper.apply(Peg(track=i % 2, points=1, kind="pegging"))
    theirs = tmp_path / "theirs" / "journal.sqlite"
    with Scorekeeper.open(theirs, setup=FREE, owner="service") as keeper:
        for i in range(30):
            keeper.apply(Peg(track=i % 2, points=3, kind="pegging"))
    shutil.copyfile(theirs, ours)  # another board's longer journal put in its place
    with pytest.raises(JournalDamaged, match="entry 6 is not the one committed"):
        Journal.open(ours, readonly=True)
    report, kept = service_report(ours)
    assert report is not None, "another board's journal adopted silently"
    assert "the journal is not the one this board wrote" in str(report["summary"])
    assert kept == 31


def test_a_longer_journal_that_grew_from_ours_is_not_damage(tmp_path: Path) -> None:
    """The mark lags the journal after a power cut: more events, the marked one ours."""
    path = live_copy(tmp_path)
    with Journal.open(tmp_path / "live" / "journal.sqlite", readonly=True) as whole:
        rows = whole.event_rows()  # (seq, time, event, chained checksum)
    tenth = rows[9]
    assert tenth[0] == 10
    integrity.write_mark(path, integrity.Mark(10, tenth[3], tenth[1]))
    report, kept = service_report(path)
    assert report is None and kept == ENTRIES + 1


def test_another_journals_backups_beside_a_missing_journal_are_not_its_damage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = backed_up(tmp_path)
    assert all(Path(b).name.startswith("journal-2") for b in list_backups(path))
    typo = tmp_path / "journa.sqlite"  # a mistyped name in the same folder
    assert list_backups(typo) == [] and not kept_here(typo)
    where = ["--journal", str(typo), "--socket", str(tmp_path / "none.sock")]
    assert main(["status", *where]) == 1
    err = capsys.readouterr().err
    assert "there is no journal at" in err and "damaged" not in err
    # a journal of another name keeps backups of its own name, found by it alone
    other = tmp_path / "demo.journal"
    with Scorekeeper.open(other, setup=FREE) as keeper:
        keeper.journal.backup("manual")  # type: ignore[union-attr]
    assert [Path(b).name[:5] for b in list_backups(other)] == ["demo-"]
    assert all(Path(b).name.startswith("journal-") for b in list_backups(path))
