"""The CLI verbs: through the control socket, and on the journal when the service is down."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from boardctl.cli import main
from boardctl.game.commands import parse_command
from boardctl.game.keeper import Scorekeeper
from tests.test_e2e import FAST, Rig, free_rig


@pytest.fixture
def rig(tmp_path: Path, mock_factory: MockFactory) -> Iterator[Rig]:
    with free_rig(tmp_path, mock_factory, FAST) as r:
        yield r


def cli(rig_or_dir: Rig | Path, *args: str) -> list[str]:
    if isinstance(rig_or_dir, Rig):
        where = [
            "--socket",
            str(rig_or_dir.board.socket),
            "--journal",
            str(rig_or_dir.board.journal),
        ]
    else:
        where = [
            "--socket",
            str(rig_or_dir / "none.sock"),
            "--journal",
            str(rig_or_dir / "j.sqlite"),
        ]
    return [*args, *where]


def test_verbs_change_the_running_game(rig: Rig, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(cli(rig, "peg", "1", "12", "--kind", "hand")) == 0
    assert "Track 1   12  (back   0)" in capsys.readouterr().out
    assert main(cli(rig, "peg", "2", "5")) == 0
    assert main(cli(rig, "undo")) == 0
    assert main(cli(rig, "redo")) == 0
    capsys.readouterr()
    assert main(cli(rig, "status", "--json")) == 0
    status = json.loads(capsys.readouterr().out)
    for key in ("target", "phase", "dealer", "winner", "tracks"):
        assert key in status
    assert [(t["name"], t["front"], t["back"], t["game_points"]) for t in status["tracks"]] == [
        ("Track 1", 12, 0, 0),
        ("Track 2", 5, 0, 0),
    ]
    assert rig.status()["tracks"][1]["front"] == 5  # the service itself has it


def test_refusals_carry_the_engines_message(rig: Rig, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(cli(rig, "peg", "1", "19", "--kind", "hand")) == 1
    err = capsys.readouterr().err
    assert err.startswith("boardctl: error: 19 is not a possible")
    assert main(cli(rig, "peg", "0", "1")) == 1
    assert "track numbers start at 1" in capsys.readouterr().err
    assert main(cli(rig, "set", "mode", "sideways")) == 1
    assert "mode must be one of" in capsys.readouterr().err


def test_new_game_and_set(rig: Rig, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(cli(rig, "peg", "1", "7")) == 0
    assert main(cli(rig, "new-game", "--variant", "five-card", "--mode", "guided")) == 0
    status = rig.status()
    assert status["variant"] == "five-card" and status["target"] == 61
    assert [t["front"] for t in status["tracks"]] == [0, 0]
    assert main(cli(rig, "set", "names", "Ann,Bob")) == 0
    assert [t["name"] for t in rig.status()["tracks"]] == ["Ann", "Bob"]
    assert main(cli(rig, "set", "brightness", "60")) == 0
    assert rig.loop.settings.brightness == 60
    capsys.readouterr()
    assert main(cli(rig, "next")) == 1  # a guided game starts with the cut
    assert "cut for the first dealer first" in capsys.readouterr().err


def test_with_the_service_down_status_reads_and_commands_write_the_journal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = tmp_path / "j.sqlite"
    with Scorekeeper.open(journal, setup={"variant": "six-card", "mode": "free"}) as keeper:
        keeper.apply(parse_command({"op": "peg", "track": 1, "points": 9}))
    assert main(cli(tmp_path, "status")) == 0
    captured = capsys.readouterr()
    assert "Track 2    9  (back   0)" in captured.out
    assert "read from the journal" in captured.err
    assert main(cli(tmp_path, "peg", "1", "4")) == 0
    assert "written to the journal directly" in capsys.readouterr().err
    with Scorekeeper.open(journal, readonly=True) as keeper:
        assert [t["front"] for t in keeper.status()["tracks"]] == [4, 9]
    assert main(cli(tmp_path, "set", "brightness", "9")) == 1
    assert "needs the running service" in capsys.readouterr().err


def test_status_without_service_or_journal_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(cli(tmp_path, "status")) == 1
    assert "there is no journal at" in capsys.readouterr().err


def test_history_asks_the_running_service(
    rig: Rig, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(cli(rig, "peg", "1", "7")) == 0
    assert main(cli(rig, "new-game")) == 0
    assert main(cli(rig, "peg", "2", "3")) == 0
    capsys.readouterr()
    # the service's own journal path is not given: only the socket can answer
    config = tmp_path / "elsewhere.toml"
    config.write_text(f'[service]\njournal = "{tmp_path / "no-such.sqlite"}"\n')
    where = ["--socket", str(rig.board.socket), "--config", str(config)]
    assert main(["history", "--json", *where]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["op"] for r in rows] == ["new_game", "peg"]  # this game
    assert main(["history", "--json", "--all", *where]) == 0
    every = json.loads(capsys.readouterr().out)
    assert every[-2:] == rows and len(every) > len(rows)  # every game's, this one's last
    assert [r["event"].get("points") for r in every if r["op"] == "peg"] == [7, 3]
