"""Names and settings that stick: team names, ``[game] points``, one target range, messages."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from boardctl.cli import cmd_new_game
from boardctl.cli.cmd_status import summary_lines
from boardctl.config import parse_config
from boardctl.cribbage.variants import TARGET_RANGE
from boardctl.errors import ConfigError, EntryError
from boardctl.game.commands import Cut, NewGame, Next, Peg, Set
from boardctl.game.keeper import Scorekeeper
from boardctl.results.derive import GameFold
from boardctl.service.app import game_setup

REPO = Path(__file__).resolve().parents[1]


def test_four_names_in_partnerships_make_two_teams_everywhere() -> None:
    keeper = Scorekeeper.memory(NewGame(variant="four-player", mode="free"))
    keeper.apply(Set("names", ["Alice", "Bob", "Carol", "Dave"]))
    teams = ["Alice & Carol", "Bob & Dave"]
    assert [t["name"] for t in keeper.status()["tracks"]] == teams  # status
    assert [t.name for t in keeper.view().tracks] == teams  # the board's labels
    keeper.apply(Peg(0, 100, "correction"))
    keeper.apply(Peg(1, 121, "correction"))
    assert "game won by Bob & Dave (2 game points)" in summary_lines(keeper.status())
    rows = [(r["seq"], r["at"], r["event"], 0) for r in keeper.history()]
    (game,) = GameFold(board="test", rows=rows).games()  # results
    assert game.result.names == tuple(teams) and game.result.winner_name == "Bob & Dave"
    assert game.result.players == (("Alice", "Carol"), ("Bob", "Dave"))
    six = Scorekeeper.memory(NewGame(variant="six-player", names=tuple("ABCDEF")))
    assert [t["name"] for t in six.status()["tracks"]] == ["A, C & E", "B, D & F"]
    # two names are the teams' own; three are refused
    keeper.apply(NewGame(names=("Reds", "Blues")))
    assert [t["name"] for t in keeper.status()["tracks"]] == ["Reds", "Blues"]
    with pytest.raises(EntryError, match="3 names given for 2 tracks"):
        keeper.apply(Set("names", ["A", "B", "C"]))


def test_the_config_game_points_start_a_custom_preset() -> None:
    config = parse_config({"game": {"points": {"win": 1, "skunk": 3, "double": 5}}})
    keeper = Scorekeeper.memory(game_setup(config))
    status = keeper.status()
    assert status["preset"] == "custom"
    assert status["preset_points"]["skunk"] == 3 and status["preset_points"]["double"] == 5
    keeper.apply(Peg(1, 60, "correction"))
    keeper.apply(Peg(0, 121, "correction"))
    assert keeper.status()["won_points"] == 5  # a double skunk, as configured
    with pytest.raises(ConfigError, match=re.escape("game.points: a win must be worth at least 1")):
        parse_config({"game": {"points": {"win": 0}}}, "x.toml")
    with pytest.raises(ConfigError, match=re.escape('set game.preset = "custom"')):
        parse_config({"game": {"preset": "lurch", "points": {"win": 1}}}, "x.toml")
    with pytest.raises(ConfigError, match="unknown preset value 'wim'"):
        parse_config({"game": {"points": {"wim": 1}}}, "x.toml")


def test_the_target_range_is_one_and_the_same_in_help_docs_config_and_checks() -> None:
    parser = argparse.ArgumentParser()
    cmd_new_game.add_arguments(parser)
    assert TARGET_RANGE in parser.format_help()
    assert TARGET_RANGE in (REPO / "docs" / "service.md").read_text(encoding="utf-8")
    assert TARGET_RANGE in (REPO / "docs" / "scorekeeping.md").read_text(encoding="utf-8")
    with pytest.raises(ConfigError, match=TARGET_RANGE):
        parse_config({"game": {"target": 1000}}, "x.toml")
    assert parse_config({"game": {"target": 999}}).game.target == 999
    keeper = Scorekeeper.memory(NewGame(variant="six-card"))
    with pytest.raises(EntryError, match=TARGET_RANGE):
        keeper.apply(NewGame(target=1000))
    with pytest.raises(EntryError, match=TARGET_RANGE):
        keeper.apply(Set("target", 30))


def test_messages_name_cli_verbs_and_say_game_for_one_game() -> None:
    keeper = Scorekeeper.memory(NewGame(variant="six-card", mode="guided", match=0))
    keeper.apply(Cut(0))
    keeper.apply(Peg(1, 121, "correction"))
    with pytest.raises(EntryError) as over:
        keeper.apply(Peg(0, 2))
    text = str(over.value)
    assert "the game is over" in text and "match" not in text
    assert "`boardctl next`" in text and "`boardctl new-game`" in text
    assert "new_game" not in text
    match = Scorekeeper.memory(NewGame(variant="six-card", mode="free", match=2))
    match.apply(Peg(0, 121, "correction"))  # acc: 2 game points win a match to 2
    with pytest.raises(EntryError, match="the match is over") as won:
        match.apply(Peg(0, 2))
    assert "`boardctl next`" in str(won.value)
    with pytest.raises(EntryError, match="`boardctl new-game --target N`"):
        match.apply(Set("target", 61))
    free = Scorekeeper.memory(NewGame(variant="six-card", mode="free"))
    with pytest.raises(EntryError, match="`boardctl set mode guided`"):
        free.apply(Next())


def test_the_same_player_twice_is_refused_through_the_cli_and_an_old_journal_still_reads(
    tmp_path: Path,
) -> None:
    """``set names Ann,Ann`` made a result the standings cannot rank: the board refuses it."""
    import os
    import subprocess
    import sys

    from boardctl.store.journal import Journal
    from tests.test_e2e_process import Service

    service = Service(tmp_path)
    try:
        service.start()
        before = service.ask("status")["tracks"]

        def run(*words: str) -> subprocess.CompletedProcess[str]:
            env = {**os.environ, "PYTHONPATH": str(REPO)}
            command = [sys.executable, "-m", "boardctl", *words, "--socket", str(service.socket)]
            return subprocess.run(command, capture_output=True, text=True, env=env, timeout=30)

        for names in ("Ann,Ann", "Ann,ann ", "Ann, ANN"):
            done = run("set", "names", names)
            assert done.returncode != 0 and "named twice" in done.stderr, done.stderr
            assert "Traceback" not in done.stderr
        assert service.ask("status")["tracks"] == before  # nothing changed
        assert run("set", "names", "Ann,Bob").returncode == 0
    finally:
        service.close()
    # a journal written before the check, with the same name twice, still opens as it was
    old = tmp_path / "old.sqlite"
    with Journal.open(old) as journal:
        journal.append_all(
            [
                ({"op": "new_game", "variant": "six-card", "mode": "free", "target": 61}, 1.0),
                ({"op": "set", "key": "names", "value": ["Ann", "Ann"]}, 2.0),
            ]
        )
    with Scorekeeper.open(old) as keeper:
        assert [t["name"] for t in keeper.status()["tracks"]] == ["Ann", "Ann"]
    four = Scorekeeper.memory(NewGame(variant="four-player", mode="free"))
    with pytest.raises(EntryError, match="named twice"):
        four.apply(Set("names", ["Ann", "Bob", "ann", "Dan"]))  # Ann on both teams
    with pytest.raises(EntryError, match="named twice"):
        four.apply(NewGame(names=("Ann & Bob", "Cat & Bob")))
