"""The SQLite journal: durability settings, schema version, checksums, readers, default path."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

import pytest

from boardctl.errors import EntryError, JournalError, SchemaError
from boardctl.game.commands import parse_command
from boardctl.game.keeper import Scorekeeper
from boardctl.store.journal import (
    APPLICATION_ID,
    SCHEMA_VERSION,
    Journal,
    row_crc,
)
from boardctl.store.lock import JournalBusy

ROOT = Path(__file__).resolve().parent.parent


def play(keeper: Scorekeeper) -> None:
    for command in (
        {"op": "cut", "dealer": 1},
        {"op": "peg", "track": 1, "points": 2, "kind": "heels"},
        {"op": "next"},
        {"op": "peg", "track": 0, "points": 2},
        {"op": "undo"},
        {"op": "peg", "track": 0, "points": 3},
    ):
        keeper.apply(parse_command(command))


def test_new_journal_uses_wal_full_sync_and_a_schema_version(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "journal.sqlite"
    with Journal.open(path) as journal:
        assert journal._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert journal._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        record = journal.append({"op": "next"}, at=1234.5)
        assert (record.seq, record.at, record.event) == (1, 1234.5, {"op": "next"})
    raw = sqlite3.connect(path)
    try:
        assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert raw.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        rows = raw.execute("SELECT seq, at, body, crc FROM events").fetchall()
    finally:
        raw.close()
    assert rows == [(1, 1234.5, '{"op":"next"}', row_crc(1, 1234.5, '{"op":"next"}', 0))]


def test_resume_gives_the_exact_state(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    keeper = Scorekeeper.open(path, setup={"variant": "three-player", "names": ["A", "B", "C"]})
    play(keeper)
    live, machine, history = keeper.state, keeper.machine, keeper.history()
    keeper.close()
    again = Scorekeeper.open(path, setup={"variant": "six-card"})  # setup ignored: resume
    assert again.state == live
    assert again.machine == machine
    assert again.history() == history
    again.apply(parse_command({"op": "undo"}))  # the undo stack survived the restart
    assert again.state.tracks[0].front == 0
    again.close()


def test_newer_schema_is_refused_and_the_file_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    with Scorekeeper.open(path, setup={"variant": "six-card"}) as keeper:
        play(keeper)
    raw = sqlite3.connect(path)
    raw.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    raw.close()
    before = path.read_bytes()
    siblings = sorted(p.name for p in tmp_path.iterdir())
    for readonly in (False, True):
        with pytest.raises(SchemaError, match="newer") as info:
            Scorekeeper.open(path, readonly=readonly)
        assert isinstance(info.value, JournalError)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == siblings


def test_other_files_are_refused(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(JournalError, match=r"garbage\.sqlite"):
        Journal.open(garbage)
    assert garbage.read_bytes() == b"this is not a database at all" * 100
    foreign = tmp_path / "foreign.sqlite"
    raw = sqlite3.connect(foreign)
    raw.execute("CREATE TABLE t (x)")
    raw.commit()
    raw.close()
    with pytest.raises(JournalError, match="not a boardctl journal"):
        Journal.open(foreign)
    with pytest.raises(JournalError, match="no journal"):
        Journal.open(tmp_path / "missing.sqlite", readonly=True)
    assert not (tmp_path / "missing.sqlite").exists()


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE events SET body = replace(body, '\"points\":3', '\"points\":9') WHERE seq = 7",
        "UPDATE events SET at = at + 1 WHERE seq = 3",
        "DELETE FROM events WHERE seq = 4",
        "UPDATE events SET seq = 99 WHERE seq = 7",
        "UPDATE events SET body = 'not json', crc = 0 WHERE seq = 2",
    ],
)
def test_damage_inside_rows_is_detected(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "journal.sqlite"
    with Scorekeeper.open(path, setup={"variant": "six-card"}) as keeper:
        play(keeper)
    raw = sqlite3.connect(path)
    raw.execute(damage)
    raw.commit()
    raw.close()
    with pytest.raises(JournalError, match="damaged"):
        Scorekeeper.open(path)


def test_an_event_the_rules_refuse_is_not_replayed_silently(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    with Journal.open(path) as journal:
        journal.append({"op": "new_game", "variant": "six-card"})
        journal.append({"op": "peg", "track": 0, "points": 19, "kind": "hand"})
    with pytest.raises(JournalError, match="event 2 cannot be replayed"):
        Scorekeeper.open(path)


def test_reader_follows_a_writer(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    writer = Scorekeeper.open(path, setup={"variant": "six-card", "mode": "free"})
    reader = Scorekeeper.open(path, readonly=True)
    assert reader.state == writer.state
    writer.apply(parse_command({"op": "peg", "track": 0, "points": 5}))
    assert reader.refresh() is True
    assert reader.state == writer.state
    assert reader.refresh() is False
    # A reader in another process, while the writer keeps its connection open.
    code = (
        "import json,sys; from boardctl.game.keeper import Scorekeeper;"
        "k = Scorekeeper.open(sys.argv[1], readonly=True); print(json.dumps(k.status()))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(path)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT)},
    ).stdout
    assert json.loads(out)["tracks"][0]["front"] == 5
    writer.apply(parse_command({"op": "peg", "track": 1, "points": 2}))
    reader.refresh()
    assert reader.status()["tracks"][1]["front"] == 2
    reader.close()
    writer.close()


def test_a_second_writer_is_refused_at_open_naming_the_first(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    first = Scorekeeper.open(path, setup={"variant": "six-card", "mode": "free"}, owner="service")
    with pytest.raises(JournalBusy, match=rf"in use by the boardctl service \(pid {os.getpid()}\)"):
        Scorekeeper.open(path)
    with pytest.raises(JournalBusy, match="only one service may use a journal"):
        Scorekeeper.open(path, owner="service")
    with Scorekeeper.open(path, readonly=True) as reader:  # readers need no lock
        assert reader.seq == 1
    first.apply(parse_command({"op": "peg", "track": 0, "points": 5}))
    first.close()
    with Scorekeeper.open(path) as after:  # released on close
        assert after.seq == 2


def test_a_journal_changed_under_its_writer_is_re_read_and_the_writer_carries_on(
    tmp_path: Path,
) -> None:
    path = tmp_path / "journal.sqlite"
    first = Scorekeeper.open(path, setup={"variant": "six-card", "mode": "free"})
    assert first.journal is not None and first.journal._lock is not None
    first.journal._lock.release()  # as if the lock were bypassed (another machine, NFS, ...)
    with Scorekeeper.open(path) as second:
        second.apply(parse_command({"op": "peg", "track": 1, "points": 5}))
    with pytest.raises(EntryError, match="written by another process; entry not saved"):
        first.apply(parse_command({"op": "peg", "track": 0, "points": 3}))
    assert [t["front"] for t in first.status()["tracks"]] == [0, 5]  # re-read: it shows
    for _ in range(3):  # and it goes on: no wedge
        first.apply(parse_command({"op": "peg", "track": 0, "points": 1}))
    first.close()
    with Scorekeeper.open(path, readonly=True) as reader:
        assert [t["front"] for t in reader.status()["tracks"]] == [3, 5] and reader.seq == 5


def test_default_journal_path(tmp_path: Path) -> None:
    from boardctl.config_file import ServiceConfig
    from boardctl.service.paths import journal_path

    def default(**env: str) -> Path:
        return journal_path(ServiceConfig(), env)

    assert default(STATE_DIRECTORY=f"{tmp_path}/svc:/other") == tmp_path / "svc" / "journal.sqlite"
    assert (
        default(XDG_STATE_HOME=str(tmp_path / "xdg"))
        == tmp_path / "xdg" / "boardctl" / "journal.sqlite"
    )
    expected = tmp_path / "home" / ".local" / "state" / "boardctl" / "journal.sqlite"
    assert default(HOME=str(tmp_path / "home")) == expected


def test_pure_state_machine_does_not_import_sqlite() -> None:
    code = (
        "import sys; import boardctl.game.state, boardctl.game.status, tools.random_player;"
        "print('sqlite3' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert out.stdout.strip() == "False"


def _as_another_user(code: str, *args: str) -> subprocess.CompletedProcess[str] | None:
    """Run Python ``code`` as user nobody (when root); None if no interpreter works so."""
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or setpriv is None:
        return None
    drop = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
    env = {"PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
    for python in (sys.executable, getattr(sys, "_base_executable", ""), "/usr/bin/python3"):
        if not python:
            continue
        probe = [*drop, python, "-c", "import boardctl.game.keeper"]
        if subprocess.run(probe, capture_output=True, env=env, cwd="/").returncode == 0:
            command = [*drop, python, "-c", code, *args]
            return subprocess.run(command, capture_output=True, text=True, env=env, cwd="/")
    return None


def test_reader_without_write_access_to_the_folder() -> None:
    """``boardctl status`` as another user: no right to create ``-shm`` beside the journal."""
    folder = Path(tempfile.mkdtemp(prefix="boardctl-state-"))  # pytest's tmp_path is 0700
    path = folder / "journal.sqlite"
    writer = Scorekeeper.open(path, setup={"variant": "six-card", "mode": "free"})
    writer.apply(parse_command({"op": "peg", "track": 1, "points": 7}))
    code = (
        "import sys; from boardctl.game.keeper import Scorekeeper;"
        "k = Scorekeeper.open(sys.argv[1], readonly=True);"
        "print(k.status()['tracks'][1]['front'])"
    )
    os.chmod(folder, 0o555)
    try:
        for running in (True, False):  # the service up (WAL live), then down (closed)
            if not running:
                writer.close()
            done = _as_another_user(code, str(path))
            if done is not None:
                assert done.returncode == 0, done.stderr
                assert done.stdout.strip() == "7"
            else:  # not root: this process itself lacks write access to the folder
                with Scorekeeper.open(path, readonly=True) as reader:
                    assert reader.status()["tracks"][1]["front"] == 7
    finally:
        os.chmod(folder, 0o755)
        writer.close()
        shutil.rmtree(folder)


def test_a_failed_write_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    keeper = Scorekeeper.open(path, setup={"variant": "six-card", "mode": "free"})
    keeper.apply(parse_command({"op": "peg", "track": 0, "points": 5}))
    state, seq = keeper.state, keeper.seq
    assert keeper.journal is not None
    keeper.journal._db.close()  # the disk went away
    with pytest.raises(JournalError, match="cannot write"):
        keeper.apply(parse_command({"op": "peg", "track": 0, "points": 3}))
    assert keeper.state == state and keeper.seq == seq
    with Scorekeeper.open(path, readonly=True) as again:
        assert again.state == state


def test_newer_schema_only_in_the_wal_is_refused_too(tmp_path: Path) -> None:
    """The version check also sees a header that is still in the WAL (no checkpoint yet)."""
    path = tmp_path / "journal.sqlite"
    with Journal.open(path) as journal:
        journal.append({"op": "next"})
        journal._db.execute("PRAGMA wal_autocheckpoint=0")
        journal._db.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
        copy = tmp_path / "copy.sqlite"
        shutil.copyfile(path, copy)
        shutil.copyfile(f"{path}-wal", f"{copy}-wal")
    before = copy.read_bytes()
    assert int.from_bytes(before[60:64], "big") == SCHEMA_VERSION  # the file's own header
    with pytest.raises(SchemaError):
        Journal.open(copy)
    assert copy.read_bytes() == before


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE snapshots SET body = replace(body, '\"front\"', '\"front\"')",  # no change
        "UPDATE snapshots SET body = replace(body, '[0,0,3]', '[9,9,9]')",  # crc no longer fits
        "FORMAT",  # another snapshot format, with a valid checksum
        "DELETE FROM snapshots",
    ],
)
def test_snapshots_are_only_a_checked_cache(tmp_path: Path, damage: str) -> None:
    """A snapshot that is missing, damaged or of another format is ignored: full replay."""
    path = tmp_path / "journal.sqlite"
    with Scorekeeper.open(path, setup={"variant": "six-card", "match": 9}) as keeper:
        keeper.apply(parse_command({"op": "cut", "dealer": 0}))
        keeper.apply(parse_command({"op": "peg", "track": 0, "points": 121, "kind": "correction"}))
        keeper.apply(
            parse_command({"op": "next"})
        )  # game 2 starts: a snapshot is stored with this event
        keeper.apply(parse_command({"op": "peg", "track": 1, "points": 2}))
        live, history = keeper.machine, keeper.history()
    raw = sqlite3.connect(path)
    assert raw.execute("SELECT seq FROM snapshots").fetchall() == [(1,), (4,)]
    if damage == "FORMAT":
        seq, body = raw.execute("SELECT seq, body FROM snapshots WHERE seq = 4").fetchone()
        event_crc = raw.execute("SELECT crc FROM events WHERE seq = 4").fetchone()[0]
        body = body.replace('"format":1', '"format":99').replace("[0,0,3]", "[9,9,9]")
        crc = zlib.crc32(body.encode(), event_crc)
        raw.execute("UPDATE snapshots SET body = ?, crc = ? WHERE seq = ?", (body, crc, seq))
    else:
        raw.execute(damage)
    raw.commit()
    raw.close()
    with Scorekeeper.open(path) as again:
        assert again.machine == live
        assert again.history() == history
        assert again.state.tracks[0].game_points == 3


def test_a_journal_that_fails_to_open_is_not_left_counted_as_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from boardctl.store import journal as journal_module

    path = tmp_path / "journal.sqlite"
    Journal.open(path).close()

    def fail(_: Journal) -> None:
        raise JournalError("the schema cannot be prepared")

    monkeypatch.setattr(Journal, "_prepare", fail)
    with pytest.raises(JournalError, match="prepared"):
        Journal.open(path)
    assert journal_module._IN_USE[os.path.realpath(path)] == 0  # its header may be read again
