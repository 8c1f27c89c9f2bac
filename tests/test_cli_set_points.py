"""``boardctl set points '{"win": 1, "skunk": 2}'`` from the command line."""

from __future__ import annotations

from pathlib import Path

import pytest

from boardctl.cli import main
from boardctl.cli.cmd_set import parse_value
from boardctl.errors import OptionError
from boardctl.game.keeper import Scorekeeper


def test_points_are_read_as_a_json_object() -> None:
    assert parse_value("points", '{"win": 1, "skunk": 2}') == {"win": 1, "skunk": 2}
    with pytest.raises(OptionError, match="not a JSON object"):
        parse_value("points", '{"win": 1,')


def test_set_points_from_the_cli_changes_the_game_points(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    where = ["--journal", str(tmp_path / "j.sqlite"), "--socket", str(tmp_path / "none.sock")]
    assert main(["new-game", *where]) == 0
    assert main(["set", "preset", "custom", *where]) == 0
    assert main(["set", "points", '{"win": 1, "skunk": 2}', *where]) == 0
    with Scorekeeper.open(tmp_path / "j.sqlite", readonly=True) as keeper:
        points = keeper.status()["preset_points"]
    assert (points["win"], points["skunk"]) == (1, 2)
    capsys.readouterr()
    assert main(["set", "points", '{"win": 0}', *where]) == 1
    assert "at least 1" in capsys.readouterr().err
