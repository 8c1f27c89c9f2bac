"""The layering of a verb the running service answers: it loads neither the engine nor SQLite.

``boardctl status``/``peg``/``history``/``undo``/``results --csv``/``stats players`` run as
their own processes here (``python
-S``, so that nothing but boardctl and the standard library is on the path), talk to a real
service on its socket, and list ``sys.modules`` on the way out. The engine and its journal
are the service's; a change that brings them into such a verb fails here (their cost at the
Pi-class quota: docs/performance.md).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from boardctl.config import default_config_text
from boardctl.game.keeper import Scorekeeper
from tests.test_e2e import FAST, Rig, free_rig

REPO = Path(__file__).resolve().parent.parent

#: What a verb the service answers must not import (a name, or a package and all of it).
HEAVY = (
    "boardctl.game",  # the engine
    "boardctl.cribbage",  # the rules
    "boardctl.store",  # the journal
    "boardctl.service.control",  # the server
    "sqlite3",
)

CHECK = """
import sys
from boardctl.cli import main
code = main(sys.argv[1:])
print("MODULES " + ",".join(sorted(sys.modules)))
sys.exit(code)
"""


def heavy(modules: list[str], names: tuple[str, ...] = HEAVY) -> list[str]:
    return [m for m in modules if any(m == h or m.startswith(h + ".") for h in names)]


def verb(*argv: str) -> tuple[str, list[str]]:
    """Run ``boardctl ARGV`` in a fresh ``python -S``; (its output, the modules it had)."""
    done = subprocess.run(
        [sys.executable, "-S", "-c", CHECK, *argv],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    out, _, modules = done.stdout.rpartition("MODULES ")
    return out, modules.strip().split(",")


@pytest.fixture
def rig(tmp_path: Path, mock_factory: MockFactory) -> Iterator[Rig]:
    with free_rig(tmp_path, mock_factory, FAST) as r:
        yield r


def test_status_peg_and_history_through_the_service_load_no_engine_and_no_sqlite(
    rig: Rig,
) -> None:
    where = ["--socket", str(rig.board.socket)]
    out, modules = verb("peg", "1", "3", *where)
    assert "Track 1    3  (back   0)" in out
    assert heavy(modules) == []
    for argv in (
        ["status"],
        ["status", "--json"],
        ["history"],
        ["undo"],
        ["history", "--json"],
        ["set", "brightness", "100"],
        ["results", "--csv"],  # the service's export (boardctl.service.results_csv)
        ["stats", "players"],  # the service's records
        ["stats", "players", "--json"],
    ):
        out, modules = verb(*argv, *where)
        assert out.strip()
        assert heavy(modules) == [], argv
    assert rig.status()["tracks"][0]["front"] == 0  # the undo reached the service


def test_with_the_installed_configuration_file_no_engine_is_loaded(
    rig: Rig, tmp_path: Path
) -> None:
    # the file `install.sh` writes (every key at its default), pointing at this service
    text = default_config_text().replace('socket = ""', f'socket = "{rig.board.socket}"')
    config = tmp_path / "config.toml"
    config.write_text(text)
    out, modules = verb("status", "--json", "--config", str(config))
    assert json.loads(out)["tracks"][0]["name"] == "Track 1"
    assert "boardctl.config_file" in modules and "tomllib" in modules  # the file was read
    # its [service] only: not the other sections' dataclasses (and their `inspect`)
    assert "boardctl.config" not in modules and "dataclasses" not in modules
    assert heavy(modules) == []


def test_a_verb_checks_the_service_section_and_leaves_the_others_to_the_service(
    rig: Rig, tmp_path: Path
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f'[service]\nsocket = "{rig.board.socket}"\n[sound]\nvolume = 7\n')
    out, _ = verb("status", "--config", str(config))  # [sound] is the service's to refuse
    assert "Track 1" in out
    config.write_text("[service]\nsocket = 3\n")
    done = subprocess.run(
        [sys.executable, "-m", "boardctl", "status", "--config", str(config)],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert f"{config}: service.socket must be a string, not 3" in done.stderr


def test_the_check_sees_a_heavy_import(tmp_path: Path) -> None:
    # with no service, status replays the journal: the engine is loaded, and seen
    journal = tmp_path / "j.sqlite"
    Scorekeeper.open(journal).close()
    _, modules = verb("status", "--journal", str(journal), "--socket", str(tmp_path / "none"))
    assert "sqlite3" in heavy(modules) and "boardctl.game.keeper" in heavy(modules)
