"""``boardctl status`` in words: the count due, skunks, game and match won; --journal X."""

from __future__ import annotations

from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from boardctl.cli import main
from boardctl.cli.cmd_status import summary_lines
from boardctl.game.commands import parse_command
from boardctl.game.keeper import Scorekeeper
from tests.test_e2e import FAST, free_rig


def _apply(keeper: Scorekeeper, *commands: dict[str, object]) -> None:
    for command in commands:
        keeper.apply(parse_command(command))


def test_the_count_due_says_hand_or_crib_and_whose() -> None:
    keeper = Scorekeeper.memory({"variant": "six-card", "mode": "guided", "names": ["Ann", "Bo"]})
    _apply(keeper, {"op": "cut", "dealer": 0}, {"op": "next"}, {"op": "next"})
    assert summary_lines(keeper.status()) == ["to count: a hand, Bo's"]
    _apply(keeper, {"op": "peg", "track": 1, "points": 4}, {"op": "peg", "track": 0, "points": 6})
    assert summary_lines(keeper.status()) == ["to count: the crib, Ann's"]


def test_skunk_game_and_match_won_are_said() -> None:
    keeper = Scorekeeper.memory({"variant": "six-card", "mode": "free", "names": ["Ann", "Bo"]})
    _apply(keeper, {"op": "set", "key": "match", "value": 3})
    _apply(keeper, {"op": "peg", "track": 0, "points": 80, "kind": "correction"})
    _apply(keeper, {"op": "peg", "track": 1, "points": 121, "kind": "correction"})
    lines = summary_lines(keeper.status())
    assert lines[0].startswith("game won by Bo (") and "game points" in lines[0]
    assert "Ann skunked" in lines
    assert "match won by Bo" in lines


def test_status_journal_reads_that_journal_while_a_service_runs(
    tmp_path: Path, mock_factory: MockFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "other.sqlite"
    with Scorekeeper.open(other, setup={"variant": "six-card", "mode": "free"}) as keeper:
        _apply(keeper, {"op": "peg", "track": 1, "points": 9})
    with free_rig(tmp_path, mock_factory, FAST) as rig:
        socket = str(rig.board.socket)
        assert main(["status", "--socket", socket, "--journal", str(other)]) == 0
        captured = capsys.readouterr()
        assert "Track 2    9" in captured.out and "read from the journal" in captured.err
        assert main(["status", "--socket", socket]) == 0
        assert "Track 2    0" in capsys.readouterr().out  # the service's own game
