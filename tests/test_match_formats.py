"""Match formats: to N game points (as before) and best of N games, whatever the skunks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.board.frame import pixel
from boardctl.board.layout import builtin_layout
from boardctl.board.render import Renderer
from boardctl.cli import main
from boardctl.errors import EntryError
from boardctl.game.commands import parse_command
from boardctl.game.keeper import Scorekeeper
from boardctl.game.setup import parse_match, wins_needed
from boardctl.results.source import load_games


def win(keeper: Scorekeeper, winner: int, loser_score: int) -> None:
    """Free mode: the loser pegs ``loser_score``, then the winner pegs out."""
    if keeper.state.winner is not None:
        keeper.apply(parse_command({"op": "next"}))
    loser = 1 - winner
    if loser_score:
        keeper.apply(
            parse_command(
                {"op": "peg", "track": loser, "points": loser_score, "kind": "correction"}
            )
        )
    keeper.apply(parse_command({"op": "peg", "track": winner, "points": 121, "kind": "correction"}))


def best_of(games: int, preset: str = "casual") -> Scorekeeper:
    return Scorekeeper.memory(
        {"variant": "six-card", "mode": "free", "preset": preset, "best_of": games}
    )


def test_best_of_3_ends_at_two_wins_whatever_the_skunks() -> None:
    keeper = best_of(3)
    win(keeper, 0, 0)  # a triple skunk: 4 game points, and in a points match the match itself
    state = keeper.state
    assert state.won_points == 4 and state.match_winner is None
    assert [t.game_points for t in state.tracks] == [1, 0]  # one game won
    win(keeper, 1, 120)
    assert keeper.state.match_winner is None
    win(keeper, 0, 100)
    assert keeper.state.match_winner == 0
    assert [t.game_points for t in keeper.state.tracks] == [2, 1]


def test_a_points_match_still_ends_on_a_casual_triple_skunk() -> None:
    keeper = Scorekeeper.memory(
        {"variant": "six-card", "mode": "free", "preset": "casual", "match": 7}
    )
    win(keeper, 0, 0)
    assert keeper.state.match_winner == 0


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from([1, 3, 5, 7]),
    st.sampled_from(["acc", "casual", "lurch"]),
    st.lists(st.tuples(st.integers(0, 1), st.integers(0, 120)), min_size=1, max_size=13),
)
def test_best_of_n_ends_exactly_when_a_track_has_more_than_half(
    games: int, preset: str, plays: list[tuple[int, int]]
) -> None:
    keeper = best_of(games, preset)
    wins = [0, 0]
    for winner, loser_score in plays:
        win(keeper, winner, loser_score)
        wins[winner] += 1
        over = max(wins) >= wins_needed(games)
        assert (keeper.state.match_winner is not None) == over
        assert [t.game_points for t in keeper.state.tracks] == wins
        if over:
            assert keeper.state.match_winner == winner
            break


def test_game_point_leds_show_games_won_out_of_the_wins_needed() -> None:
    keeper = best_of(5)
    win(keeper, 1, 30)  # a double skunk counts one game
    view = keeper.view()
    assert view.match_target == 3
    assert [t.game_points for t in view.tracks] == [0, 1]
    layout = builtin_layout("two-121")
    frame = Renderer(layout).render(view, now=0.0)
    lit = [[any(pixel(frame, led)) for led in track.game_points] for track in layout.tracks]
    assert lit == [[False, False, False], [True, False, False]]


def test_match_settings_parse() -> None:
    assert parse_match("best-of-3") == {"best_of": 3}
    assert parse_match("Best of 5".replace(" ", "-")) == {"best_of": 5}
    assert parse_match("7") == {"match": 7}
    assert parse_match("points-9") == {"match": 9}
    assert parse_match("single") == {"match": 0}
    assert parse_match(5) == {"match": 5}
    with pytest.raises(EntryError, match="best-of-N"):
        parse_match("three")
    keeper = best_of(3)
    keeper.apply(parse_command({"op": "set", "key": "match", "value": "best-of-7"}))
    assert (keeper.state.setup.match, keeper.state.setup.best_of) == (4, 7)
    keeper.apply(parse_command({"op": "set", "key": "match", "value": 5}))
    assert (keeper.state.setup.match, keeper.state.setup.best_of) == (5, 0)
    with pytest.raises(EntryError, match="disagree"):
        keeper.apply(parse_command({"op": "new_game", "match": 3, "best_of": 3}))


def test_cli_new_game_best_of_and_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = tmp_path / "journal.sqlite"
    socket = tmp_path / "none.sock"
    target = ["--journal", str(journal), "--socket", str(socket)]
    assert main(["new-game", "--mode", "free", "--match", "best-of-3", *target]) == 0
    assert "best-of-3 match (first to 2 wins)" in capsys.readouterr().out
    assert main(["status", "--json", *target]) == 0
    status = json.loads(capsys.readouterr().out)
    assert (status["best_of"], status["match_target"]) == (3, 2)
    with Scorekeeper.open(journal) as keeper:  # replayed from the journal: still best of 3
        assert keeper.state.setup.best_of == 3
        win(keeper, 0, 0)
        win(keeper, 0, 0)
        assert keeper.state.match_winner == 0
    results = [g.result for g in load_games(journal, board="t")]
    assert [r.match_format for r in results] == ["best-of:3", "best-of:3"]
    assert [r.match_points for r in results] == [(1, 0), (2, 0)]
    assert [r.match_winner for r in results] == [None, 0]
    assert main(["new-game", "--match", "twice", *target]) == 1
    assert "best-of-N" in capsys.readouterr().err
