"""Rule sets in the scorekeeping engine, driven by JSON-level commands only.

Every test goes through :func:`play`, one small helper that applies JSON
commands to a fresh in-memory scorekeeper and returns it, so the tests do not
depend on how the engine represents commands inside.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

from boardctl.cli import main
from boardctl.errors import EntryError
from boardctl.game.commands import parse_command
from boardctl.game.keeper import Scorekeeper
from boardctl.game.status import status_dict
from tests.conftest import DATA


def play(commands: Iterable[Mapping[str, Any]], keeper: Scorekeeper | None = None) -> Scorekeeper:
    """Apply JSON commands in order to ``keeper`` (default: a fresh in-memory one)."""
    keeper = keeper or Scorekeeper.memory()
    for command in commands:
        keeper.apply(parse_command(dict(command)))
    return keeper


def status(keeper: Scorekeeper) -> dict[str, Any]:
    """``boardctl status --json`` of the keeper's state."""
    seen: dict[str, Any] = json.loads(json.dumps(status_dict(keeper.state)))
    return seen


def peg(track: int, points: int, kind: str) -> dict[str, Any]:
    return {"op": "peg", "track": track, "points": points, "kind": kind}


def test_a_rule_set_brings_its_house_rules_preset_and_muggins() -> None:
    keeper = play([{"op": "new_game", "variant": "six-card", "rules": "czech"}])
    got = status(keeper)
    assert got["rules"] == "czech" and got["rules_label"] == "czech"
    assert got["house_rules"] == [
        "runs-of-two",
        "deal-right",
        "skunk-any-opponent",
        "muggins-standing",
        "crib-four-flush",
    ]
    assert got["preset"] == "czech" and got["muggins"] is True
    own_preset = play([{"op": "new_game", "rules": "czech", "preset": "casual"}])
    assert status(own_preset)["preset"] == "casual"


def test_default_and_old_journals_read_as_acc() -> None:
    keeper = play([{"op": "new_game", "variant": "six-card", "target": 121, "preset": "acc"}])
    assert (status(keeper)["rules"], status(keeper)["house_rules"]) == ("acc", [])
    assert keeper.state.setup.to_dict()["rules"] == "acc"


def test_an_old_new_game_event_without_rules_replays_as_acc() -> None:
    """Events as the previous release journalled them (no rules, no house_rules)."""
    from tests.test_game_replay import replay

    old_json = [
        {"op": "new_game", "variant": "six-card", "players": 2, "target": 121},
        {"op": "set", "key": "mode", "value": "free"},
        peg(0, 29, "hand"),
    ]
    old = [parse_command(event) for event in old_json]
    machine = replay(old)
    assert (machine.state.setup.rules, machine.state.setup.house_rules) == ("acc", ())
    assert machine.state.tracks[0].front == 29
    with pytest.raises(EntryError, match="not a possible"):
        replay([*old, parse_command(peg(1, 19, "hand"))])


def test_the_rules_are_journalled_with_the_game(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    with Scorekeeper.open(path, setup={"variant": "six-card"}) as keeper:
        play([{"op": "new_game", "rules": "czech", "mode": "free"}, peg(0, 32, "hand")], keeper)
    with Scorekeeper.open(path, readonly=True) as again:
        assert again.state.setup.rules == "czech"
        assert again.state.tracks[0].front == 32


def test_unknown_names_are_refused_and_change_nothing() -> None:
    keeper = play([{"op": "new_game", "rules": "english"}])
    with pytest.raises(EntryError, match="unknown rule set 'swedish'"):
        play([{"op": "new_game", "rules": "swedish"}], keeper)
    with pytest.raises(EntryError, match="unknown house rule"):
        play([{"op": "set", "key": "house_rules", "value": "runs-of-nine"}], keeper)
    assert status(keeper)["rules"] == "english"


def test_possible_counts_follow_the_house_rules() -> None:
    keeper = play([{"op": "new_game", "mode": "free"}])
    for points in (19, 32):
        with pytest.raises(EntryError, match="not a possible"):
            play([peg(0, points, "hand")], keeper)
    play([{"op": "set", "key": "house_rules", "value": "runs-of-two"}], keeper)
    assert status(keeper)["rules_label"] == "acc + runs-of-two"
    play([peg(0, 19, "hand"), peg(1, 32, "hand")], keeper)
    assert [t["front"] for t in status(keeper)["tracks"]] == [19, 32]
    with pytest.raises(EntryError, match="not a possible"):
        play([peg(0, 30, "hand")], keeper)


def test_the_deal_passes_to_the_right_under_czech_rules() -> None:
    def next_dealer(rules: str) -> int:
        keeper = play(
            [
                {"op": "new_game", "variant": "three-player", "rules": rules},
                {"op": "cut", "dealer": 0},
                {"op": "next"},
                {"op": "next"},
                peg(1, 0, "hand"),  # the show starts at the dealer's left either way
                peg(2, 0, "hand"),
                peg(0, 0, "hand"),
                peg(0, 0, "crib"),
            ]
        )
        return int(status(keeper)["dealer_seat"])

    assert next_dealer("acc") == 1
    assert next_dealer("czech") == 2


def _three_player_win(rules: str, scores: tuple[int, int]) -> Scorekeeper:
    return play(
        [
            {"op": "new_game", "variant": "three-player", "rules": rules, "mode": "free"},
            peg(1, scores[0], "correction"),
            peg(2, scores[1], "correction"),
            peg(0, 120, "correction"),
            peg(0, 1, "pegging"),
        ]
    )


def test_czech_skunk_counts_against_any_opponent() -> None:
    czech = _three_player_win("czech", (100, 80))
    assert status(czech)["winner"] == 0 and status(czech)["won_points"] == 2
    alone = _three_player_win("czech", (100, 95))
    assert status(alone)["won_points"] == 1  # nobody under the line
    acc = _three_player_win("acc", (100, 80))
    assert status(acc)["won_points"] == 3  # every rule set: the lowest loser (80) is skunked


def test_english_lines_are_fractions_of_the_target() -> None:
    def won(loser: int) -> int:
        keeper = play(
            [
                {"op": "new_game", "rules": "english", "target": 61, "mode": "free"},
                peg(1, loser, "correction"),
                peg(0, 60, "correction"),
                peg(0, 1, "pegging"),
            ]
        )
        return int(status(keeper)["won_points"])

    assert [won(loser) for loser in (46, 45, 31, 30)] == [1, 2, 2, 4]


def test_finnish_triple_skunk_wins_the_match() -> None:
    keeper = play(
        [
            {"op": "new_game", "rules": "finnish", "match": 5, "mode": "free"},
            peg(1, 30, "correction"),
            peg(0, 121, "correction"),
        ]
    )
    got = status(keeper)
    assert got["won_points"] == 3 and got["match_winner"] == 0


def test_muggins_standing_and_declared() -> None:
    czech = play([{"op": "new_game", "rules": "czech"}])
    with pytest.raises(EntryError, match="standing"):
        play([{"op": "set", "key": "muggins", "value": False}], czech)
    finnish = play([{"op": "new_game", "rules": "finnish", "mode": "free"}])
    play([{"op": "set", "key": "muggins", "value": True}], finnish)  # before the game: fine
    play([peg(0, 2, "pegging")], finnish)
    with pytest.raises(EntryError, match="declared before the game"):
        play([{"op": "set", "key": "muggins", "value": False}], finnish)


def test_the_polish_deal_through_the_engine() -> None:
    """Seed 000/002's LESZEK/DANUSIA deal, entered as the board would: 7 to 15."""
    deal = json.loads((DATA / "seed_vectors" / "polish.json").read_text())["deal"]
    keeper = play(
        [
            {"op": "new_game", "variant": "five-card", "rules": "polish", "names": deal["names"]},
            {"op": "cut", "dealer": deal["dealer"]},  # DANUSIA pegs three for last at once
            {"op": "next"},
            peg(0, deal["play_points"][0], "pegging"),  # LESZEK: 1 for the card after the go
            {"op": "next"},
            peg(1, deal["hand_points"][1], "hand"),
            peg(0, deal["hand_points"][0], "hand"),
            peg(0, deal["crib_points"], "crib"),
        ]
    )
    assert [t["front"] for t in status(keeper)["tracks"]] == deal["totals"] == [7, 15]


def test_cli_new_game_rules_status_and_set_house_rules(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    where = ["--journal", str(tmp_path / "j.sqlite"), "--socket", str(tmp_path / "none.sock")]
    assert main(["new-game", "--rules", "czech", *where]) == 0
    assert main(["status", *where]) == 0
    out = capsys.readouterr().out
    assert "· rules czech" in out
    assert main(["set", "house-rules", "runs-of-two,deal-right", *where]) == 0
    assert "rules czech - skunk-any-opponent" in capsys.readouterr().out
    assert main(["status", "--json", *where]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["house_rules"] == ["runs-of-two", "deal-right"]
    assert data["rules_label"].startswith("czech - skunk-any-opponent")
    assert main(["new-game", "--rules", "nordic", *where]) == 1
    assert "unknown rule set" in capsys.readouterr().err


def test_config_game_rules(tmp_path: Path) -> None:
    from boardctl.config import load_config
    from boardctl.errors import ConfigError
    from boardctl.service.app import game_setup

    path = tmp_path / "config.toml"
    path.write_text('[game]\nrules = "english"\n')
    setup = game_setup(load_config(path))
    assert setup.rules == "english" and setup.preset is None  # the set's own game points
    keeper = play([setup.to_json()])
    assert status(keeper)["preset"] == "english"
    path.write_text('[game]\nrules = "english"\npreset = "casual"\n')
    assert game_setup(load_config(path)).preset == "casual"
    path.write_text('[game]\nrules = "klingon"\n')
    with pytest.raises(ConfigError, match="rules"):
        load_config(path)
