"""The layering of a verb the running service answers: it loads neither the engine nor SQLite.

``boardctl status``/``peg``/``history``/``undo`` run as their own processes here (``python
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
from dataclasses import fields
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from boardctl.config import ServiceConfig, default_config_text, load_config
from boardctl.config_file import SERVICE_KEYS, service_section
from boardctl.errors import ConfigError
from boardctl.game.keeper import Scorekeeper
from tests.test_e2e import FAST, Rig, free_rig

REPO = Path(__file__).resolve().parent.parent

#: What a verb the service answers must not import (a name, or a package and all of it).
HEAVY = (
    "boardctl.game",  # the engine, the journal
    "boardctl.cribbage",  # the rules
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


def verb(*argv: str, runtime: Path | None = None) -> tuple[str, list[str]]:
    """Run ``boardctl ARGV`` in a fresh ``python -S``; (its output, the modules it had).

    ``runtime`` is the process's ``$XDG_RUNTIME_DIR`` (none by default: nothing remembered).
    """
    env = {k: v for k, v in os.environ.items() if k != "XDG_RUNTIME_DIR"}
    if runtime is not None:
        env["XDG_RUNTIME_DIR"] = str(runtime)
    done = subprocess.run(
        [sys.executable, "-S", "-c", CHECK, *argv],
        env={**env, "PYTHONPATH": str(REPO)},
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
    ):
        out, modules = verb(*argv, *where)
        assert out.strip()
        assert heavy(modules) == [], argv
    assert rig.status()["tracks"][0]["front"] == 0  # the undo reached the service


def test_with_the_installed_configuration_file_only_tomllib_is_added(
    rig: Rig, tmp_path: Path
) -> None:
    # the file `install.sh` writes (every key at its default), pointing at this service
    text = default_config_text().replace('socket = ""', f'socket = "{rig.board.socket}"')
    config = tmp_path / "config.toml"
    config.write_text(text)
    out, modules = verb("status", "--json", "--config", str(config))
    assert json.loads(out)["tracks"][0]["name"] == "Track 1"
    assert "tomllib" in modules
    assert heavy(modules) == []


def test_an_unchanged_configuration_is_parsed_once_per_user(rig: Rig, tmp_path: Path) -> None:
    runtime = tmp_path / "user-run"
    runtime.mkdir(mode=0o700)
    config = tmp_path / "config.toml"
    config.write_text(
        default_config_text().replace('socket = ""', f'socket = "{rig.board.socket}"')
    )
    _, first = verb("status", "--config", str(config), runtime=runtime)
    out, again = verb("status", "--config", str(config), runtime=runtime)
    assert "tomllib" in first and "Track 1" in out
    assert "tomllib" not in again  # read from what the first run kept
    # any change to the file is read again: here it names a socket nobody listens on
    elsewhere = tmp_path / "elsewhere"
    config.write_text(f'[service]\nsocket = "{elsewhere}.sock"\njournal = "{elsewhere}.sqlite"\n')

    def status() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-S", "-m", "boardctl", "status", "--config", str(config)],
            env={**os.environ, "PYTHONPATH": str(REPO), "XDG_RUNTIME_DIR": str(runtime)},
            capture_output=True,
            text=True,
            timeout=60,
        )

    done = status()
    assert done.returncode == 1
    assert f"not running and there is no journal at {elsewhere}.sqlite" in done.stderr
    # and a broken file is refused every time, never remembered as good
    config.write_text("[service]\nsocket = 3\n")
    for _ in range(2):
        broken = status()
        assert broken.returncode == 1
        assert "service.socket must be a string, not 3" in broken.stderr


def test_the_check_sees_a_heavy_import(tmp_path: Path) -> None:
    # with no service and no readout, status replays the journal: the engine is loaded, and seen
    journal = tmp_path / "j.sqlite"
    Scorekeeper.open(journal).close()
    Path(f"{journal}-readout").unlink()  # (tests/test_cli_readout.py: the lean path)
    _, modules = verb("status", "--journal", str(journal), "--socket", str(tmp_path / "none"))
    assert "sqlite3" in heavy(modules) and "boardctl.game.keeper" in heavy(modules)


def test_the_lean_readers_agree_with_their_sources() -> None:
    assert tuple(f.name for f in fields(ServiceConfig)) == SERVICE_KEYS


@pytest.mark.parametrize(
    "text",
    [
        "",
        "# only comments\n",
        default_config_text(),
        '[service]\njournal = "/j.sqlite"\nsocket = "/s.sock"\n',
        'service.socket = "/dotted.sock"\n',
        "[service]\nsocket = 3\n",
        '[service]\nsockett = "/typo"\n',
        'service = "not a table"\n',
        "[service\n",
        b"\xff".decode("latin-1"),
    ],
)
def test_service_section_reads_service_as_load_config_does(tmp_path: Path, text: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="latin-1")
    try:
        full: object = load_config(path).service
    except ConfigError as exc:
        full = str(exc)
    try:
        section = service_section(path)
        lean: object = ServiceConfig(journal=section.journal, socket=section.socket)
    except ConfigError as exc:
        lean = str(exc)
    assert lean == full
