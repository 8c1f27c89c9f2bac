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


def test_names_survive_a_new_game_with_as_many_tracks() -> None:
    from boardctl.game.commands import parse_command

    keeper = Scorekeeper.memory({"variant": "six-card", "names": ["Ann", "Bo"]})
    keeper.apply(parse_command({"op": "new_game", "variant": "five-card"}))
    assert keeper.state.setup.track_names() == ("Ann", "Bo")  # a variant change, two tracks
    keeper.apply(parse_command({"op": "new_game", "variant": "three-player"}))
    assert keeper.state.setup.track_names() == ("Track 1", "Track 2", "Track 3")


def test_game_over_messages_name_the_menu_and_cli_verbs() -> None:
    from boardctl.errors import EntryError
    from boardctl.game.commands import parse_command

    keeper = Scorekeeper.memory({"variant": "six-card", "mode": "free", "target": 61})
    keeper.apply(parse_command({"op": "peg", "track": 0, "points": 61, "kind": "correction"}))
    with pytest.raises(EntryError) as game:
        keeper.apply(parse_command({"op": "peg", "track": 1, "points": 2}))
    assert "press menu (`boardctl next`)" in str(game.value)
    assert "new_game" not in str(game.value) and "send next" not in str(game.value)
    match = Scorekeeper.memory({"variant": "six-card", "mode": "free", "target": 61, "match": 2})
    match.apply(parse_command({"op": "peg", "track": 0, "points": 61, "kind": "correction"}))
    with pytest.raises(EntryError) as over:
        match.apply(parse_command({"op": "peg", "track": 1, "points": 2}))
    assert "boardctl new-game" in str(over.value) and "new_game" not in str(over.value)


def test_new_game_points_from_the_cli(tmp_path: Path) -> None:
    where = ["--journal", str(tmp_path / "j.sqlite"), "--socket", str(tmp_path / "none.sock")]
    assert main(["new-game", "--points", '{"win": 1, "skunk": 2}', *where]) == 0
    with Scorekeeper.open(tmp_path / "j.sqlite", readonly=True) as keeper:
        status = keeper.status()
    assert status["preset"] == "custom"
    assert (status["preset_points"]["win"], status["preset_points"]["skunk"]) == (1, 2)
