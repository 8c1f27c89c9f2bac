"""``boardctl demo`` from the command line: output, options, errors, the journal."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from boardctl.cli import build_parser, main
from boardctl.demo.runner import run_demo
from boardctl.game.keeper import Scorekeeper


class FakeTerminal(io.StringIO):
    """A stream that says it is a terminal."""

    encoding = "utf-8"

    def isatty(self) -> bool:
        return True


def test_log_only_game_prints_the_play_by_play_and_the_winner(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["demo", "--seed", "3", "--display", "none"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out
    assert "Cut for deal:" in out
    assert re.search(r"^\w+ wins \(.*\)[.:].* takes \d game points?\.$", out, re.MULTILINE)
    assert "boardctl demo --seed 3" in out


def test_same_seed_prints_the_same_game(capsys: pytest.CaptureFixture[str]) -> None:
    main(["demo", "--seed", "11", "--display", "none", "--variant", "five-card"])
    first = capsys.readouterr().out
    main(["demo", "--seed", "11", "--display", "none", "--variant", "five-card"])
    assert capsys.readouterr().out == first
    assert "pegs three for last" in first


def test_terminal_display_on_a_pipe_is_plain_text(capsys: pytest.CaptureFixture[str]) -> None:
    # The default display is the virtual board, but not on a pipe: plain text then.
    assert main(["demo", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out
    assert " wins (" in out


def test_names_and_unseeded_games(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--display", "none", "--names", "Ann,Ben"]) == 0
    out = capsys.readouterr().out
    assert "Ann v Ben" in out
    seed = re.search(r"--seed (\d+)", out)
    assert seed is not None
    main(["demo", "--display", "none", "--names", "Ann,Ben", "--seed", seed[1]])
    assert capsys.readouterr().out == out


def test_several_games_one_after_the_other(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--seed", "20", "--display", "none", "--games", "2"]) == 0
    out = capsys.readouterr().out
    assert len(re.findall(r"\(seed (\d+)\)\.", out)) == 2
    assert "(seed 20)." in out
    assert "(seed 21)." in out


def test_the_game_is_kept_in_a_journal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "demo.journal"
    assert main(["demo", "--seed", "8", "--display", "none", "--journal", str(path)]) == 0
    out = capsys.readouterr().out
    winner = re.search(r"^(\w+) wins \((\w+) (\d+), (\w+) (\d+)\)", out, re.MULTILINE)
    assert winner is not None
    with Scorekeeper.open(path) as keeper:
        status = keeper.status()
    scores = {t["name"]: t["front"] for t in status["tracks"]}
    assert scores == {winner[2]: int(winner[3]), winner[4]: int(winner[5])}
    assert status["phase"] == "over"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--variant", "seven-card"], "unknown variant 'seven-card'"),
        (["--speed", "-1"], "speed must be 0"),
        (["--games", "-2"], "--games must be 0"),
        (["--names", ","], "--names needs"),
        (["--names", "Ann,Ann"], "names must differ"),
    ],
)
def test_bad_options_are_clear_errors(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["demo", "--seed", "1", *argv]) == 1
    err = capsys.readouterr().err
    assert err.startswith("boardctl: error: ")
    assert message in err


def test_default_pace_only_on_a_terminal() -> None:
    args = build_parser().parse_args(["demo", "--seed", "2", "--display", "none"])
    out = io.StringIO()
    assert run_demo(args, stream=out) == 0  # no pauses on a non-terminal: returns at once
    assert "wins" in out.getvalue()
