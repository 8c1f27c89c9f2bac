"""Game end, counting out, skunks per preset (121 and 61), match totals, who deals next."""

from __future__ import annotations

from typing import Any

import pytest

from boardctl.errors import EntryError
from boardctl.game.commands import Peg, parse_command
from boardctl.game.keeper import Scorekeeper
from boardctl.game.setup import PRESETS
from boardctl.view import lines_failed, skunk_lines


def peg(track: int, points: int, kind: str | None = None) -> Peg:
    return Peg(track, points, kind)


def guided_at(scores: list[int], *, dealer: int = 0, **setup: Any) -> Scorekeeper:
    """A guided game cut with ``dealer`` and tracks moved to ``scores`` by corrections."""
    keeper = Scorekeeper.memory({"variant": "six-card", **setup})
    keeper.apply(parse_command({"op": "cut", "dealer": dealer}))
    for track, score in enumerate(scores):
        if score:
            keeper.apply(peg(track, score, "correction"))
    return keeper


def finish(loser_score: int, *, target: int = 121, **setup: Any) -> Scorekeeper:
    """Track 0 wins a free-mode game while track 1 has ``loser_score``."""
    keeper = Scorekeeper.memory({"variant": "six-card", "mode": "free", "target": target, **setup})
    if loser_score:
        keeper.apply(peg(1, loser_score, "correction"))
    keeper.apply(peg(0, target - 1, "correction"))
    keeper.apply(peg(0, 2, "pegging"))
    assert keeper.state.winner == 0
    return keeper


def test_non_dealer_counts_out_before_the_dealer_counts() -> None:
    keeper = guided_at([119, 116], dealer=0)
    keeper.apply(parse_command({"op": "next"}))
    keeper.apply(parse_command({"op": "next"}))
    keeper.apply(peg(1, 6, "hand"))  # 116 + 6 passes 121: the non-dealer wins
    state = keeper.state
    assert (state.phase, state.winner) == ("over", 1)
    assert [t.front for t in state.tracks] == [119, 121]
    assert state.tracks[1].back == 116
    with pytest.raises(EntryError, match="over"):
        keeper.apply(peg(0, 8, "hand"))  # the dealer never gets to count
    assert keeper.state == state
    assert keeper.view().winner == 1
    assert keeper.view().over_at is not None


def test_his_heels_wins_the_game() -> None:
    keeper = guided_at([119, 100], dealer=0)
    assert keeper.state.phase == "deal"
    keeper.apply(peg(0, 2, "heels"))
    assert keeper.state.winner == 0
    assert keeper.state.phase == "over"


def test_a_win_during_the_play() -> None:
    keeper = guided_at([100, 118], dealer=0)
    keeper.apply(parse_command({"op": "next"}))
    keeper.apply(peg(0, 2))
    keeper.apply(peg(1, 3))
    assert keeper.state.winner == 1
    assert keeper.state.tracks[1].front == 121
    with pytest.raises(EntryError, match="over"):
        keeper.apply(peg(0, 1))


def test_the_crib_count_can_win() -> None:
    keeper = guided_at([110, 60], dealer=1)
    keeper.apply(parse_command({"op": "next"}))
    keeper.apply(parse_command({"op": "next"}))
    keeper.apply(peg(0, 4, "hand"))
    keeper.apply(peg(1, 4, "hand"))
    keeper.apply(peg(1, 0, "crib"))
    assert keeper.state.dealer == 0  # the deal passed
    keeper.apply(parse_command({"op": "next"}))
    keeper.apply(parse_command({"op": "next"}))
    keeper.apply(peg(1, 2, "hand"))
    keeper.apply(peg(0, 2, "hand"))
    keeper.apply(peg(0, 6, "crib"))
    assert keeper.state.winner == 0 and keeper.state.dealer == 0


@pytest.mark.parametrize(
    ("preset", "target", "loser", "points"),
    [
        # ACC: 2 for a win, 3 for a skunk, nothing more below the double line.
        ("acc", 121, 91, 2),
        ("acc", 121, 90, 3),
        ("acc", 121, 60, 3),
        ("acc", 121, 10, 3),
        ("acc", 61, 31, 2),
        ("acc", 61, 30, 3),
        # Casual: 1 / 2 / 4 (a triple skunk wins the match, checked below).
        ("casual", 121, 120, 1),
        ("casual", 121, 91, 1),
        ("casual", 121, 90, 2),
        ("casual", 121, 61, 2),
        ("casual", 121, 60, 4),
        ("casual", 121, 30, 4),
        ("casual", 61, 31, 1),
        ("casual", 61, 30, 2),
        ("casual", 61, 0, 4),  # in 61 the double line is hole 1: a loser still at 0
        # UK lurch: loser under half the target -> double game.
        ("lurch", 121, 61, 1),
        ("lurch", 121, 60, 2),
        ("lurch", 121, 10, 2),
        ("lurch", 61, 31, 1),
        ("lurch", 61, 30, 2),
    ],
)
def test_game_points_per_preset(preset: str, target: int, loser: int, points: int) -> None:
    keeper = finish(loser, target=target, preset=preset, match=99)
    state = keeper.state
    assert state.won_points == points
    assert state.tracks[0].game_points == points
    assert state.tracks[1].game_points == 0
    view = keeper.view()
    assert view.line_failed(1) == lines_failed(target, loser)
    assert [t["lines_failed"] for t in keeper.status()["tracks"]] == [0, view.line_failed(1)]
    triple_ends = preset == "casual" and lines_failed(target, loser) == 3
    assert (state.match_winner == 0) is triple_ends


def test_lines_and_presets_follow_the_target() -> None:
    assert skunk_lines(121) == (91, 61, 31)
    assert skunk_lines(61) == (31, 1, -29)
    assert [lines_failed(121, s) for s in (91, 90, 61, 60, 31, 30)] == [0, 1, 1, 2, 2, 3]
    assert [lines_failed(61, s) for s in (31, 30, 1, 0)] == [0, 1, 1, 2]
    assert set(PRESETS) == {"acc", "casual", "lurch", "custom", "finnish", "czech", "english"}


def test_casual_triple_skunk_wins_the_match() -> None:
    keeper = finish(30, preset="casual", match=9)
    assert keeper.state.won_points == 4
    assert keeper.state.match_winner == 0
    keeper = finish(31, preset="casual", match=9)
    assert keeper.state.match_winner is None


def test_custom_preset_values() -> None:
    points = {"win": 2, "skunk": 4, "double": 6, "triple": 8, "triple_wins_match": True}
    keeper = finish(50, preset="custom", points=points, match=20)
    assert keeper.state.won_points == 6
    assert keeper.state.match_winner is None
    with pytest.raises(EntryError, match="whole number"):
        Scorekeeper.memory({"preset": "custom", "points": {"win": "two"}})
    with pytest.raises(EntryError, match="only be set for the custom"):
        Scorekeeper.memory({"preset": "acc", "points": {"win": 3}})


def test_match_totals_winner_and_loser_deals_next() -> None:
    keeper = guided_at([0, 0], dealer=0, match=5, names=["Ann", "Bob"])
    keeper.apply(peg(1, 95, "correction"))
    keeper.apply(peg(0, 121, "correction"))  # Ann wins, Bob at 95: 2 game points
    state = keeper.state
    assert (state.winner, state.won_points, state.match_winner) == (0, 2, None)
    with pytest.raises(EntryError, match="game is over"):
        keeper.apply(peg(1, 1))
    keeper.apply(parse_command({"op": "next"}))
    state = keeper.state
    assert state.game_number == 2
    assert state.dealer == 1  # the loser deals first
    assert state.phase == "deal"
    assert [(t.front, t.back, t.game_points) for t in state.tracks] == [(0, 0, 2), (0, 0, 0)]
    keeper.apply(peg(1, 121, "correction"))  # Bob wins, Ann at 0: 3 game points
    assert keeper.state.won_points == 3
    assert keeper.state.match_winner is None
    keeper.apply(parse_command({"op": "next"}))
    assert keeper.state.dealer == 0
    keeper.apply(peg(0, 10, "correction"))
    keeper.apply(peg(1, 121, "correction"))
    state = keeper.state
    assert [t.game_points for t in state.tracks] == [2, 6]
    assert state.match_winner == 1
    status = keeper.status()
    assert status["match_winner"] == 1 and status["match_target"] == 5
    assert keeper.view().match_winner == 1
    with pytest.raises(EntryError, match="match is over"):
        keeper.apply(peg(0, 1))
    keeper.apply(parse_command({"op": "next"}))  # a new match with the same setup
    state = keeper.state
    assert (state.phase, state.game_number, state.match_number) == ("cut", 1, 2)
    assert [t.game_points for t in state.tracks] == [0, 0]
    assert state.setup.match == 5


def test_loser_deals_next_with_three_tracks() -> None:
    keeper = guided_at([0, 0, 0], dealer=0, variant="three-player", match=7)
    keeper.apply(peg(0, 50, "correction"))
    keeper.apply(peg(2, 20, "correction"))
    keeper.apply(peg(1, 121, "correction"))
    # The lowest loser (20) decides the margin: triple-skunked (< 31) -> 3 under ACC.
    assert keeper.state.won_points == 3
    keeper.apply(parse_command({"op": "next"}))
    assert keeper.state.dealer == 2


def test_one_game_match_and_new_game_resets() -> None:
    keeper = finish(100, preset="lurch")
    assert keeper.state.match_winner == 0
    keeper.apply(
        parse_command({"op": "new_game", "variant": "four-player", "target": 61, "mode": "guided"})
    )
    state = keeper.state
    assert (state.target, len(state.tracks), state.phase) == (61, 2, "cut")
    assert state.setup.players == 4
    assert state.setup.preset_name == "lurch"  # unchanged settings carry over
    assert [t.game_points for t in state.tracks] == [0, 0]
    with pytest.raises(EntryError, match="start of the game"):
        keeper.apply(parse_command({"op": "undo"}))


def test_match_length_cannot_drop_below_points_won() -> None:
    keeper = finish(100, match=9)
    keeper.apply(parse_command({"op": "next"}))
    with pytest.raises(EntryError, match="not above"):
        keeper.apply(parse_command({"op": "set", "key": "match", "value": 2}))
    keeper.apply(parse_command({"op": "set", "key": "match", "value": 3}))
    assert keeper.state.setup.match == 3
