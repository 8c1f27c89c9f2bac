"""Damage is never silent: a flipped bit in the WAL, a deleted WAL, a 0-byte database.

Each is reported (how many entries were recovered, up to when, where the
damaged files are kept), the files are kept byte for byte, and only a torn
last write, the entry in flight at a power cut, recovers silently.
"""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import pytest

from boardctl.game.commands import parse_command
from boardctl.game.keeper import Scorekeeper
from boardctl.notices import DAMAGE_KEY
from boardctl.store import integrity
from boardctl.store.integrity import scan_wal
from boardctl.store.journal import Journal, Record, encode_event, list_backups, row_crc

ENTRIES = 40
FREE = {"variant": "six-card", "mode": "free"}


def live_copy(folder: Path, entries: int = ENTRIES) -> Path:
    """A journal of ``entries`` pegs copied while its writer is open (events still in the WAL).

    The copy is what a power cut leaves: the database, its WAL and the mark.
    """
    source = folder / "live" / "journal.sqlite"
    keeper = Scorekeeper.open(source, setup=FREE)
    for i in range(entries):
        keeper.apply(parse_command({"op": "peg", "track": i % 2, "points": 1}))
    target = folder / "state" / "journal.sqlite"
    target.parent.mkdir()
    for suffix in ("", "-wal", "-mark"):
        shutil.copyfile(f"{source}{suffix}", f"{target}{suffix}")
    keeper.close()
    return target


def frame_offset(wal: Path, frame: int) -> int:
    page_size: int = struct.unpack(">I", wal.read_bytes()[8:12])[0]
    return 32 + (frame - 1) * (24 + page_size)


def flip(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x10
    path.write_bytes(bytes(data))


def integrity_crc(records: list[Record]) -> int:
    crc = 0
    for record in records:
        crc = row_crc(record.seq, record.at, encode_event(record.event), crc)
    return crc


def files(path: Path) -> dict[str, bytes]:
    return {
        p.name: p.read_bytes()
        for p in (Path(f"{path}{s}") for s in ("", "-wal", "-mark"))
        if p.exists()
    }


def test_a_bit_flipped_early_in_the_wal_is_reported_and_the_files_kept(tmp_path: Path) -> None:
    path = live_copy(tmp_path)
    wal = Path(f"{path}-wal")
    scan = scan_wal(wal.read_bytes())
    assert scan is not None and scan.damaged is False
    flip(wal, frame_offset(wal, 8) + 24 + 100)  # inside the page of an early frame (after the
    # first game start's transaction: its event, snapshot, kept rows and totals)
    before = files(path)
    with Scorekeeper.open(path, setup=FREE) as keeper:
        report = keeper.status()[DAMAGE_KEY]
        recovered = keeper.seq
        assert keeper.view().extra.journal_damage is True  # the renderer's sign
    assert recovered < ENTRIES  # SQLite kept only the frames before the flip
    assert report["recovered"] == recovered
    assert report["expected"] == ENTRIES + 1  # the new game and every peg were committed
    assert report["last_at"] is not None
    assert "-wal" in report["summary"]
    assert f"recovered {recovered} of {ENTRIES + 1}" in report["summary"]
    kept = Path(report["set_aside"])
    assert kept.parent == path.parent and kept.name.startswith("damaged-")
    for name, data in before.items():  # byte for byte what was found, nothing deleted
        assert (kept / name).read_bytes() == data
    assert (kept / "report.json").exists()


def test_the_report_stands_over_a_restart_until_a_new_game(tmp_path: Path) -> None:
    path = live_copy(tmp_path)
    wal = Path(f"{path}-wal")
    flip(wal, frame_offset(wal, 4) + 24 + 100)
    Scorekeeper.open(path, setup=FREE).close()
    with Scorekeeper.open(path, setup=FREE) as keeper:  # a restart: still shown, not re-reported
        assert DAMAGE_KEY in keeper.status()
        assert len(list(path.parent.glob("damaged-*"))) == 1
        keeper.apply(parse_command({"op": "peg", "track": 0, "points": 2}))
        assert DAMAGE_KEY in keeper.status()
        keeper.apply(parse_command({"op": "new_game"}))
        assert DAMAGE_KEY not in keeper.status()
        assert not keeper.view().extra.journal_damage
    with Scorekeeper.open(path) as keeper:
        assert DAMAGE_KEY not in keeper.status()
    assert len(list(path.parent.glob("damaged-*"))) == 1  # the copies stay


def test_a_deleted_wal_is_reported(tmp_path: Path) -> None:
    path = live_copy(tmp_path)
    Path(f"{path}-wal").unlink()
    with Scorekeeper.open(path, setup=FREE) as keeper:
        report = keeper.status()[DAMAGE_KEY]
    assert "-wal file is missing" in report["summary"]
    assert report["expected"] == ENTRIES + 1 and report["recovered"] < ENTRIES


def test_a_zero_byte_database_is_reported_not_a_silent_new_game(tmp_path: Path) -> None:
    path = live_copy(tmp_path)
    Path(f"{path}-wal").unlink()
    path.write_bytes(b"")
    with Scorekeeper.open(path, setup=FREE) as keeper:
        report = keeper.status()[DAMAGE_KEY]
        assert keeper.view().extra.journal_damage is True
    assert report["recovered"] == 0 and report["expected"] == ENTRIES + 1
    assert "empty or missing" in report["summary"]
    assert (Path(report["set_aside"]) / path.name).read_bytes() == b""


@pytest.mark.parametrize("cut", ["torn-tail", "garbled-last-frame"])
def test_a_torn_last_write_recovers_silently(tmp_path: Path, cut: str) -> None:
    path = live_copy(tmp_path)
    wal = Path(f"{path}-wal")
    scan = scan_wal(wal.read_bytes())
    assert scan is not None
    # The last transaction was in flight: the mark was not written after it.
    mark = integrity.parse_mark(integrity.mark_path(path).read_bytes())
    assert mark is not None
    with Journal.open(tmp_path / "live" / "journal.sqlite", readonly=True) as whole:
        acknowledged = list(whole.records())[: mark.seq - 1]
        crc = integrity_crc(acknowledged)
    integrity.write_mark(path, integrity.Mark(mark.seq - 1, crc, acknowledged[-1].at))
    last = scan.frames
    if cut == "torn-tail":
        with wal.open("r+b") as file:  # half of the last frame's page reached the disk
            file.truncate(frame_offset(wal, last) + 24 + 512)
    else:
        flip(wal, frame_offset(wal, last) + 24 + 700)
    with Scorekeeper.open(path, setup=FREE) as keeper:
        assert DAMAGE_KEY not in keeper.status()
        assert keeper.seq == ENTRIES  # the acknowledged ones, all of them
    assert not list(path.parent.glob("damaged-*"))


def test_a_whole_journal_opens_without_a_report(tmp_path: Path) -> None:
    path = live_copy(tmp_path)
    with Scorekeeper.open(path, setup=FREE) as keeper:
        assert keeper.seq == ENTRIES + 1
        assert DAMAGE_KEY not in keeper.status()
    with Scorekeeper.open(path) as keeper:  # closed cleanly: the WAL went into the database
        assert keeper.seq == ENTRIES + 1 and DAMAGE_KEY not in keeper.status()
    assert not list(path.parent.glob("damaged-*"))


def test_a_reader_shows_the_standing_report(tmp_path: Path) -> None:
    path = live_copy(tmp_path)
    Path(f"{path}-wal").unlink()
    Scorekeeper.open(path, setup=FREE).close()
    with Scorekeeper.open(path, readonly=True) as keeper:
        assert DAMAGE_KEY in keeper.status()


def test_backups_at_game_end_and_on_a_service_close_keep_the_last_ten(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    with Scorekeeper.open(path, setup={"variant": "six-card", "mode": "free", "target": 61}) as k:
        for game in range(12):
            for _ in range(5):
                k.apply(
                    parse_command({"op": "peg", "track": game % 2, "points": 12, "kind": "hand"})
                )
            k.apply(
                parse_command({"op": "peg", "track": game % 2, "points": 1})
            )  # 61: a win, a backup
            k.apply(parse_command({"op": "new_game"}))
        seq = k.seq
        assert k.journal is not None
        k.journal.backup_on_close = True
    backups = list_backups(path)
    assert len(backups) == 10
    assert backups[-1].name.endswith(f"-{seq:06d}-shutdown.sqlite")
    assert "game-end" in backups[-2].name
    with Journal.open(backups[-1], readonly=True) as copy:
        assert [r.seq for r in copy.records()][-1] == seq


def test_status_and_the_systemd_line_carry_the_report(tmp_path: Path) -> None:
    from boardctl.cli.verbs import format_status
    from boardctl.service.loop import status_line

    path = live_copy(tmp_path)
    Path(f"{path}-wal").unlink()
    with Scorekeeper.open(path, setup=FREE) as keeper:
        status = keeper.status()
    text = format_status(status)
    assert "WARNING: journal damaged" in text and "kept in" in text and "boardctl restore" in text
    assert status_line(status).startswith("JOURNAL DAMAGED")
    assert "entries recovered" in status_line(status)


def test_restore_lists_brings_back_and_keeps_what_it_replaced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from boardctl.cli import main

    path = tmp_path / "journal.sqlite"
    where = ["--journal", str(path), "--socket", str(tmp_path / "none.sock")]
    assert main(["restore", *where]) == 0
    assert "no backups" in capsys.readouterr().out
    with Scorekeeper.open(path, setup=FREE) as keeper:
        keeper.apply(parse_command({"op": "peg", "track": 0, "points": 7}))
        assert keeper.journal is not None
        keeper.journal.backup("manual")
        keeper.apply(parse_command({"op": "peg", "track": 1, "points": 9}))
    assert main(["restore", *where]) == 0
    listing = capsys.readouterr().out
    assert "  1  journal-" in listing and "2 entries" in listing and "Track 1 7" in listing
    assert main(["restore", "1", *where]) == 0
    out = capsys.readouterr().out
    assert "restored" in out and "kept in" in out
    with Scorekeeper.open(path) as keeper:  # the backup's game, and no damage reported
        assert [t["front"] for t in keeper.status()["tracks"]] == [7, 0]
        assert DAMAGE_KEY not in keeper.status()
    replaced = next(path.parent.glob("replaced-*")) / path.name
    with Scorekeeper.open(replaced, readonly=True) as old:
        assert [t["front"] for t in old.status()["tracks"]] == [7, 9]
    assert main(["restore", "5", *where]) == 1
    assert "no backup '5'" in capsys.readouterr().err


def test_restore_refuses_while_the_service_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import selectors
    import threading

    from boardctl.cli import main
    from boardctl.service.control import ControlServer
    from boardctl.service.watch import Watch

    path = tmp_path / "journal.sqlite"
    with Scorekeeper.open(path, setup=FREE) as keeper:
        assert keeper.journal is not None
        keeper.journal.backup("manual")
    selector = selectors.DefaultSelector()
    server = ControlServer(tmp_path / "c.sock", lambda r: {"pong": True}, selector, watch=Watch())
    running = True

    def serve() -> None:
        while running:
            for key, mask in selector.select(0.02):
                key.data(mask)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        assert main(["restore", "1", "--journal", str(path), "--socket", str(server.path)]) == 1
        assert "service is running; stop it first" in capsys.readouterr().err
    finally:
        running = False
        thread.join(5)
        server.close()
        selector.close()
    assert not list(tmp_path.glob("replaced-*"))


def test_the_leds_show_the_damage_sign_until_a_new_game(tmp_path: Path) -> None:
    from boardctl.board import Renderer, builtin_layout, overlay

    layout = builtin_layout("two-121")
    draw = overlay.OverlayRenderer(Renderer(layout), layout)
    start = layout.led_of(0, 0)
    path = live_copy(tmp_path)
    Path(f"{path}-wal").unlink()
    with Scorekeeper.open(path, setup=FREE) as keeper:
        frame = draw.render(keeper.view(), 0.0)
        assert frame[3 * start : 3 * start + 3] == overlay.PURPLE
        keeper.apply(parse_command({"op": "new_game"}))
        frame = draw.render(keeper.view(), 0.0)
        assert frame[3 * start : 3 * start + 3] != overlay.PURPLE


def test_restore_refuses_while_a_service_holds_the_journal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from boardctl.cli import main

    path = tmp_path / "journal.sqlite"
    with Scorekeeper.open(path, setup=FREE, owner="service") as keeper:
        assert keeper.journal is not None
        keeper.journal.backup("manual")
        where = ["--journal", str(path), "--socket", str(tmp_path / "none.sock")]
        assert main(["restore", "1", *where]) == 1  # no socket yet, but the lock is held
        assert "in use by the boardctl service" in capsys.readouterr().err
    assert not list(tmp_path.glob("replaced-*"))
