"""Exactly once: request ids, a repeat writes nothing, and an fsync error leaves no disagreement.

- a request repeated with the same ``request_id`` returns the first result and
  writes nothing (through the socket, and through a direct CLI write);
- SIGSTOP the service, enter a score with the CLI, SIGCONT: one entry, and the
  CLI says it asked again rather than "failed";
- the Nth fsync of the WAL fails with EIO (an LD_PRELOAD shim built with cc):
  what the board showed is what the journal holds after a restart;
- a journal of schema version 1 opens (migrated to 2) with its game intact.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from boardctl.errors import ControlError
from boardctl.game.commands import parse_command
from boardctl.game.keeper import Scorekeeper
from boardctl.service import client, retry
from boardctl.service.retry import apply_or_hand_over
from boardctl.store.journal import APPLICATION_ID, SCHEMA_VERSION
from tests.conftest import REPO
from tests.test_e2e import FAST, free_rig
from tests.test_e2e_process import Service

FREE = {"variant": "six-card", "mode": "free"}
SHIM = Path(__file__).resolve().parent / "native" / "fail_fsync.c"


def test_a_repeated_request_id_returns_the_first_result_and_writes_nothing(
    tmp_path: Path, mock_factory: MockFactory
) -> None:
    with free_rig(tmp_path, mock_factory, FAST) as rig:
        sock = rig.board.socket
        peg = {"op": "peg", "track": 0, "points": 3, "request_id": "r-1"}
        first = client.request(sock, peg)
        again = client.request(sock, peg)
        assert again["repeated"] is True and "repeated" not in first
        assert (again["seq"], again["event"]) == (first["seq"], first["event"])
        assert client.request(sock, {"op": "status"})["tracks"][0]["front"] == 3
        other = client.request(sock, {**peg, "request_id": "r-2"})  # a new id: a new entry
        assert other["status"]["tracks"][0]["front"] == 6
        with pytest.raises(ControlError, match="request_id must be a string"):
            client.request(sock, {**peg, "request_id": 7})
        seq = client.request(sock, {"op": "status"})["seq"]
    with Scorekeeper.open(tmp_path / "state" / "journal.sqlite", readonly=True) as keeper:
        assert keeper.seq == seq == 3


def test_a_direct_write_honours_the_request_id_too(tmp_path: Path) -> None:
    journal = tmp_path / "journal.sqlite"
    Scorekeeper.open(journal, setup=FREE).close()
    peg = {"op": "peg", "track": 1, "points": 4, "request_id": "cli-1"}
    first, live = apply_or_hand_over(tmp_path / "none.sock", journal, peg)
    again, _ = apply_or_hand_over(tmp_path / "none.sock", journal, peg)
    assert not live and again["repeated"] and again["seq"] == first["seq"]
    with Scorekeeper.open(journal, readonly=True) as keeper:
        assert keeper.status()["tracks"][1]["front"] == 4 and keeper.seq == 2


def test_when_no_attempt_is_answered_the_cli_says_it_may_have_been_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[dict[str, object]] = []

    def silent(path: object, message: dict[str, object], **kw: object) -> object:
        sent.append(message)
        raise client.NoAnswer("the service did not answer within 5.0 s")

    monkeypatch.setattr(retry, "request", silent)
    with pytest.raises(ControlError) as caught:
        retry.send_once(tmp_path / "s.sock", {"op": "undo"}, lambda c: pytest.fail("written"))
    message = str(caught.value)
    assert "may have been recorded: `boardctl status` shows it" in message
    assert "failed" not in message
    assert len(sent) == retry.ATTEMPTS
    assert len({m["request_id"] for m in sent}) == 1  # the same id every time


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Service]:
    s = Service(tmp_path)
    s.config.write_text('[link]\nkind = "null"\n[game]\nmode = "free"\n')
    try:
        yield s
    finally:
        if s.proc is not None and s.proc.poll() is None:
            s.proc.send_signal(signal.SIGCONT)
        s.close()


def test_sigstop_then_a_cli_entry_then_sigcont_counts_it_once(service: Service) -> None:
    service.start()
    assert service.proc is not None
    command = [sys.executable, "-m", "boardctl", "peg", "1", "2"]
    command += ["--socket", str(service.socket), "--journal", str(service.journal)]
    service.proc.send_signal(signal.SIGSTOP)
    cli = subprocess.Popen(
        command,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(6.5)  # past the CLI's 5 s wait: it has asked a second time, same id
    service.proc.send_signal(signal.SIGCONT)
    _, err = cli.communicate(timeout=30)
    assert cli.returncode == 0, err
    assert "asking again" in err
    status = service.ask("status")
    assert status["tracks"][0]["front"] == 2 and status["seq"] == 2  # once, not twice
    assert "not applied twice" in err


def _shim(tmp_path: Path) -> Path:
    cc = shutil.which("cc") or shutil.which("gcc")
    assert cc, "a C compiler is needed to build the fsync fault shim (apt-get install gcc)"
    library = tmp_path / "fail_fsync.so"
    subprocess.run(
        [cc, "-shared", "-fPIC", "-O2", "-o", str(library), str(SHIM), "-ldl"], check=True
    )
    return library


CHILD = textwrap.dedent(
    """
    import json, os, signal, sys
    from boardctl.errors import JournalError
    from boardctl.game.commands import parse_command
    from boardctl.game.keeper import Scorekeeper
    keeper = Scorekeeper.open(sys.argv[1], setup={"variant": "six-card", "mode": "free"})
    os.environ["FAIL_FSYNC_AT"] = sys.argv[3]  # from now on, the Nth fsync of the WAL fails
    results = []
    for _ in range(int(sys.argv[2])):
        try:
            keeper.apply(parse_command({"op": "peg", "track": 0, "points": 1}))
            results.append("saved")
        except JournalError as exc:
            results.append(f"not saved: {exc}")
    board = keeper.status()
    print(json.dumps({"results": results, "front": board["tracks"][0]["front"],
                      "seq": board["seq"]}), flush=True)
    os.kill(os.getpid(), signal.SIGKILL)  # no clean close: a restart finds what is on disk
    """
)


@pytest.mark.parametrize("failing", [1, 2, 3])
def test_an_fsync_eio_leaves_the_board_and_the_journal_agreeing(
    tmp_path: Path, failing: int
) -> None:
    library = _shim(tmp_path)
    journal = tmp_path / "journal.sqlite"
    env = {**os.environ, "PYTHONPATH": str(REPO), "LD_PRELOAD": str(library)}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(journal), "3", str(failing)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    board = json.loads(done.stdout)
    assert any(r.startswith("not saved") for r in board["results"]), board  # the fault hit
    with Scorekeeper.open(journal) as restarted:
        assert restarted.status()["tracks"][0]["front"] == board["front"]
        assert restarted.seq == board["seq"]
    saved = sum(r == "saved" for r in board["results"])
    assert board["front"] == saved  # and what was said matches both


def test_a_schema_1_journal_is_migrated_and_keeps_its_game(tmp_path: Path) -> None:
    new = tmp_path / "new.sqlite"
    with Scorekeeper.open(new, setup=FREE) as keeper:
        keeper.apply(parse_command({"op": "peg", "track": 0, "points": 9}))
        before = keeper.status()
    path = tmp_path / "journal.sqlite"  # the same rows, as boardctl 0.1 stored them
    raw = sqlite3.connect(path, isolation_level=None)
    raw.execute("PRAGMA journal_mode=WAL")
    raw.execute(
        "CREATE TABLE events (seq INTEGER PRIMARY KEY, at REAL NOT NULL, "
        "body TEXT NOT NULL, crc INTEGER NOT NULL)"
    )
    raw.execute(
        "CREATE TABLE snapshots (seq INTEGER PRIMARY KEY, body TEXT NOT NULL, crc INTEGER NOT NULL)"
    )
    raw.execute(f"ATTACH '{new}' AS new")
    raw.execute("INSERT INTO events SELECT seq, at, body, crc FROM new.events")
    raw.execute("INSERT INTO snapshots SELECT * FROM new.snapshots")
    raw.execute("DETACH new")
    raw.execute(f"PRAGMA application_id={APPLICATION_ID}")
    raw.execute("PRAGMA user_version=1")
    raw.close()
    with Scorekeeper.open(path, readonly=True) as reader:  # read as it is
        assert reader.status() == before
    with Scorekeeper.open(path) as keeper:  # a writer migrates
        assert keeper.status() == before
        assert keeper.journal is not None
        keeper.journal.tag_next("after-migration")
        keeper.apply(parse_command({"op": "peg", "track": 1, "points": 1}))
        assert keeper.journal.find_request("after-migration") is not None
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 6
    raw.close()
