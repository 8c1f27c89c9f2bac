"""``status`` and ``history`` with the service down: the readout, checked, without the engine.

A writer leaves ``<journal>-readout`` as it closes (``boardctl.game.readout``);
a reader shows it only after checking every event's chained checksum and the
readout's own. These run the verbs as processes (``python -S``, as in
``test_cli_lean.py``), compare what they print with what replaying the
journal with the engine gives, and damage the journal and the readout in the
ways a reader must never show silently.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from boardctl.game import readout
from boardctl.game.commands import NewGame, Peg
from boardctl.game.journal import Journal
from boardctl.game.keeper import Scorekeeper
from tests.test_cli_lean import CHECK, REPO, heavy

#: What the service-down read path must not import: the engine, the rules, the damage scanner.
ENGINE = (
    "boardctl.game.keeper",
    "boardctl.game.commands",
    "boardctl.game.machine",
    "boardctl.game.integrity",
    "boardctl.game.journal",
    "boardctl.cribbage",
    "boardctl.service.control",
)


def run(*argv: str) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    done = subprocess.run(
        [sys.executable, "-S", "-c", CHECK, *argv],
        env={
            **{k: v for k, v in os.environ.items() if k != "XDG_RUNTIME_DIR"},
            "PYTHONPATH": str(REPO),
        },
        capture_output=True,
        text=True,
        timeout=60,
    )
    _, _, modules = done.stdout.rpartition("MODULES ")
    return done, modules.strip().split(",")


def down(tmp_path: Path, journal: Path, *argv: str) -> list[str]:
    return [*argv, "--journal", str(journal), "--socket", str(tmp_path / "nobody.sock")]


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    """A journal a writer closed: two games, the second pegged, with a hand's cards."""
    path = tmp_path / "journal.sqlite"
    with Scorekeeper.open(path, setup=NewGame(variant="six-card", mode="free")) as keeper:
        keeper.apply(Peg(track=0, points=12, kind="hand"))
        keeper.apply(NewGame(variant="six-card", mode="free"))
        keeper.apply(Peg(1, 21, kind="hand", cards=("5H", "5D", "JS", "QC"), starter="5S"))
        keeper.apply(Peg(track=0, points=2, kind="pegging"))
        keeper.apply(Peg(track=1, points=3, kind="pegging"))
    return path


def replayed(path: Path) -> tuple[dict[str, object], list[dict[str, object]]]:
    readout_file = Path(readout.readout_path(path))
    kept = readout_file.read_bytes()
    readout_file.unlink()  # the engine's own answer, from the events alone
    try:
        with Scorekeeper.open(path, readonly=True) as keeper:
            return dict(keeper.status()), keeper.history()
    finally:
        readout_file.write_bytes(kept)


def test_status_and_history_are_the_engines_without_importing_it(
    tmp_path: Path, journal: Path
) -> None:
    status, rows = replayed(journal)
    done, modules = run(*down(tmp_path, journal, "status", "--json"))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.rpartition("MODULES ")[0]) == status
    assert "sqlite3" in modules and heavy(modules, ENGINE) == []
    done, modules = run(*down(tmp_path, journal, "history", "--json"))
    assert json.loads(done.stdout.rpartition("MODULES ")[0]) == rows
    assert rows[1]["count"] and heavy(modules, ENGINE) == []  # the hand's count is kept
    done, _ = run(*down(tmp_path, journal, "status"))
    assert "Track 2   24  (back  21)" in done.stdout  # 5H 5D JS QC with 5S: 21, then 3


def test_without_journal_flag_the_service_journal_is_read_leanly(
    tmp_path: Path, journal: Path
) -> None:
    config = tmp_path / "config.toml"
    sock = tmp_path / "nobody.sock"
    config.write_text(f'[service]\njournal = "{journal}"\nsocket = "{sock}"\n')
    done, modules = run("status", "--json", "--config", str(config))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.rpartition("MODULES ")[0]) == replayed(journal)[0]
    assert "not running: read from the journal" not in done.stderr  # (--json prints no notice)
    assert heavy(modules, ENGINE[:-1]) == []  # typing: tomllib's, for the configuration file
    done, modules = run("history", "--config", str(config))
    assert done.returncode == 0 and "Track 2 +21 (hand: 5H 5D JS QC" in done.stdout
    assert heavy(modules, ENGINE[:-1]) == []


def _damage(path: Path, sql: str) -> None:
    db = sqlite3.connect(path)
    db.execute(sql)
    db.commit()
    db.close()


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        (
            """UPDATE events SET body = replace(body, ':12', ':13') WHERE seq = 2""",
            "checksum mismatch at event 2",
        ),
        ("UPDATE events SET crc = crc + 1 WHERE seq = 3", "checksum mismatch at event 3"),
        ("UPDATE events SET at = at + 0.001 WHERE seq = 1", "checksum mismatch at event 1"),
        ("DELETE FROM events WHERE seq = 4", "event 4 is missing (next is 5)"),
        (  # the mark names the lost last event: the writer's own damage check says so
            "DELETE FROM events WHERE seq = (SELECT max(seq) FROM events)",
            "6 entries were committed, 5 can be read",
        ),
    ],
)
def test_damage_before_the_readouts_event_is_reported_as_the_engine_reports_it(
    tmp_path: Path, journal: Path, sql: str, message: str
) -> None:
    _damage(journal, sql)
    done, _ = run(*down(tmp_path, journal, "status"))
    try:
        with Scorekeeper.open(journal, readonly=True, full_replay=True) as keeper:
            engine: object = keeper.status()
    except Exception as exc:  # the engine's refusal, word for word
        engine = str(exc)
    assert done.returncode == 1
    assert message in done.stderr and message in str(engine)
    assert done.stderr.strip() == f"boardctl: error: {engine}"
    done, _ = run(*down(tmp_path, journal, "history"))
    assert done.returncode == 1 and message in done.stderr


def test_a_damaged_or_foreign_readout_is_never_shown(tmp_path: Path, journal: Path) -> None:
    path = Path(readout.readout_path(journal))
    good = path.read_bytes()
    status = replayed(journal)[0]
    forged = good.replace(b'"front":24', b'"front":25')
    versioned = good.replace(b'"boardctl":"', b'"boardctl":"0.0.0-')
    for text in (forged, versioned, good[:-5], b"", b"boardctl-readout 1 crc=x\n{}"):
        assert text != good
        path.write_bytes(text)
        done, modules = run(*down(tmp_path, journal, "status", "--json"))
        assert json.loads(done.stdout.rpartition("MODULES ")[0]) == status
        assert "boardctl.game.keeper" in modules  # replayed, not read from the readout


def test_events_written_since_the_readout_are_shown(tmp_path: Path, journal: Path) -> None:
    # a writer that never closed (a crash): its event is in the journal, not in the readout
    with Journal.open(journal) as raw:
        raw.resume()
        raw.append(Peg(track=0, points=5, kind="pegging").to_json())
    done, modules = run(*down(tmp_path, journal, "status", "--json"))
    assert json.loads(done.stdout.rpartition("MODULES ")[0])["tracks"][0]["front"] == 7
    assert "boardctl.game.keeper" in modules
    # the next writer that closes leaves a readout of it
    Scorekeeper.open(journal).close()
    done, modules = run(*down(tmp_path, journal, "status", "--json"))
    assert json.loads(done.stdout.rpartition("MODULES ")[0])["tracks"][0]["front"] == 7
    assert heavy(modules, ENGINE) == []


def test_a_standing_damage_notice_is_still_shown(tmp_path: Path, journal: Path) -> None:
    notice: dict[str, object] = {"recovered": 6, "expected": 9, "last_at": None}
    notice |= {"reasons": ["test"]}
    notice |= {"set_aside": str(tmp_path / "damaged-x"), "found_at": 0.0}
    Path(f"{journal}-damage").write_text(json.dumps(notice))
    done, _ = run(*down(tmp_path, journal, "status"))
    assert "WARNING: journal damaged (test): recovered 6 of 9 entries" in done.stdout


def test_a_reader_never_writes_a_readout(tmp_path: Path, journal: Path) -> None:
    path = Path(readout.readout_path(journal))
    path.unlink()
    with Scorekeeper.open(journal, readonly=True) as keeper:
        assert keeper.status()["seq"] == 6
    done, _ = run(*down(tmp_path, journal, "status"))
    assert done.returncode == 0 and not path.exists()


def test_a_direct_entry_leaves_the_readout_of_its_own_event(tmp_path: Path, journal: Path) -> None:
    done, _ = run(*down(tmp_path, journal, "peg", "1", "4", "--kind", "pegging"))
    assert done.returncode == 0, done.stderr
    done, modules = run(*down(tmp_path, journal, "status", "--json"))
    shown = json.loads(done.stdout.rpartition("MODULES ")[0])
    assert shown == replayed(journal)[0] and shown["tracks"][0]["front"] == 6
    assert heavy(modules, ENGINE) == []
