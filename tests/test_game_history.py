"""History: the game's events with times, as a table and as JSON (``boardctl history``)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from boardctl.cli import main
from boardctl.game.commands import parse_command
from boardctl.game.keeper import Scorekeeper


def _journal(path: Path) -> None:
    with Scorekeeper.open(
        path, setup={"variant": "six-card", "names": ["Ann", "Bob"], "match": 5}
    ) as keeper:
        keeper.apply(parse_command({"op": "cut", "dealer": 0}))
        keeper.apply(parse_command({"op": "peg", "track": 0, "points": 2, "kind": "heels"}))
        keeper.apply(parse_command({"op": "peg", "track": 1, "points": 3}))
        keeper.apply(parse_command({"op": "undo"}))
        keeper.apply(parse_command({"op": "peg", "track": 1, "points": 120, "kind": "correction"}))
        keeper.apply(parse_command({"op": "peg", "track": 1, "points": 1}))
        keeper.apply(parse_command({"op": "next"}))  # the next game
        # Ann deals: a 2 without a kind in the deal would be his heels
        keeper.apply(parse_command({"op": "peg", "track": 0, "points": 2, "kind": "pegging"}))


def test_history_table_shows_this_game_with_times(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "journal.sqlite"
    _journal(path)
    assert main(["history", "--journal", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2  # the game started by "next", and one entry
    assert lines[0].split()[0] == "8" and "next: game 2" in lines[0]
    assert "Ann +2 (pegging)" in lines[1] and lines[1].rstrip().endswith("2-0")
    assert time.strftime("%Y-%m-%d") in lines[1]


def test_history_json_of_every_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "journal.sqlite"
    _journal(path)
    assert main(["history", "--json", "--all", "--journal", str(path)]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [row["seq"] for row in rows] == list(range(1, 10))
    ops = ["new_game", "cut", "peg", "peg", "undo", "peg", "peg", "next", "peg"]
    assert [row["op"] for row in rows] == ops
    assert (
        rows[0]["text"] == "new game: six-card to 121, guided, preset acc, match to 5 game points"
    )
    assert rows[1]["text"] == "first dealer: seat 1 (set), Ann deals"
    assert rows[2]["text"] == "Ann +2 (heels)"
    assert rows[4]["scores"] == [2, 0]
    assert rows[4]["text"] == "undo: Bob +3 (pegging)"
    assert rows[5]["scores"] == [2, 120] and rows[6]["phase"] == "over"
    assert rows[7]["game"] == 2 and rows[8]["scores"] == [2, 0]
    assert rows[7]["text"] == "next: game 2"
    assert all(abs(row["at"] - time.time()) < 600 for row in rows)


def test_history_without_a_journal_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STATE_DIRECTORY", str(tmp_path))
    assert main(["history"]) == 1
    err = capsys.readouterr().err
    assert "no journal at" in err and str(tmp_path / "journal.sqlite") in err
    assert not (tmp_path / "journal.sqlite").exists()


def test_history_says_where_next_led() -> None:
    keeper = Scorekeeper.memory({"variant": "six-card"})
    keeper.apply(parse_command({"op": "cut", "dealer": 1}))
    keeper.apply(parse_command({"op": "next"}))
    keeper.apply(parse_command({"op": "next"}))
    texts = [row["text"] for row in keeper.history()]
    assert texts[-3:] == [
        "first dealer: seat 2 (set), Track 2 deals",
        "next: the play",
        "next: the show",
    ]


def test_history_reads_the_journal_the_config_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "elsewhere.sqlite"
    _journal(path)
    config = tmp_path / "config.toml"
    config.write_text(f'[service]\njournal = "{path}"\n')
    assert main(["history", "--config", str(config)]) == 0
    assert "next: game 2" in capsys.readouterr().out
    assert main(["snapshot", "--config", str(config), "--text", "--color", "none"]) == 0
    assert "game to 121 · phase play · Ann deals" in capsys.readouterr().out  # the loser deals
