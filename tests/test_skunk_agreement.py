"""Skunks say the same everywhere: with three or more tracks, the lowest loser decides.

Seed 004:34: the winner gets the skunk "even if one of his opponents is already past
the skunk line". The award (game points), the status (``skunk``, each loser's
``lines_failed``), the status words, the board's labels (``BoardView.line_failed``),
the derived result and the demo's result line all name the same skunk, under every
preset and rule set.
"""

from __future__ import annotations

import itertools

import pytest

from boardctl.cli.cmd_status import summary_lines
from boardctl.cribbage.rules import RULE_SETS, skunk_loser, skunk_paid
from boardctl.demo.game import DemoGame
from boardctl.game.commands import NewGame, Peg
from boardctl.game.keeper import Scorekeeper
from boardctl.game.setup import PRESETS
from boardctl.results.derive import GameFold
from boardctl.view import lines_failed, skunked

# losers' scores that straddle the lines at 121 (91, 61, 31) and the fractions (91, 61)
WORDS = ("skunked", "double-skunked", "triple-skunked")  # what a player reads
LOSERS = (100, 95, 80, 70, 55, 40, 20, 5)


def _won(variant: str, preset: str, rules: str, losers: tuple[int, ...]) -> Scorekeeper:
    command = NewGame(variant=variant, mode="free", rules=rules, preset=preset)
    keeper = Scorekeeper.memory(command)
    for track, score in enumerate(losers, start=1):
        keeper.apply(Peg(track, score, "correction"))
    keeper.apply(Peg(0, 121, "correction"))
    return keeper


def _cases(tracks: int) -> list[tuple[int, ...]]:
    every = list(itertools.combinations(LOSERS, tracks - 1))
    return every[:: max(1, len(every) // 10)]


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize(("variant", "tracks"), [("three-player", 3), ("five-player", 5)])
def test_award_status_words_labels_and_result_agree(preset: str, variant: str, tracks: int) -> None:
    for rules in RULE_SETS:
        fractions = "fraction-lines" in RULE_SETS[rules].house_rules
        for losers in _cases(tracks):
            with _won(variant, preset, rules, losers) as keeper:
                status = keeper.status()
                lowest = min(losers)
                skunk = lines_failed(121, lowest, fractions=fractions)
                assert status["winner"] == 0
                assert status["skunk"] == skunk, (rules, losers)
                assert status["won_points"] == keeper.state.setup.preset.game_points(
                    121, lowest, fractions=fractions
                )
                each = [t["lines_failed"] for t in status["tracks"]]
                assert max(each) == skunk  # the deepest label is the skunk paid for
                view = keeper.view()
                assert [view.line_failed(t) for t in range(tracks)] == each
                words = summary_lines(status)
                named = [w for w in words if w.endswith(WORDS)]
                assert len(named) == sum(1 for f in each if f)
                if skunk:
                    assert any(w.endswith(skunked(skunk)) for w in named)
                rows = [(r["seq"], r["at"], r["event"], 0) for r in keeper.history()]
            (game,) = GameFold(board="test", rows=rows).games()  # the results' derivation
            assert game.result.skunk == skunk
            assert game.result.game_points == status["won_points"]


@pytest.mark.parametrize("tracks", [3, 4, 5, 6])
def test_the_measure_is_the_lowest_loser_for_three_to_six_tracks(tracks: int) -> None:
    for losers in _cases(tracks):
        scores = [121, *losers]
        assert skunk_loser(list(losers)) == min(losers)
        for rules in RULE_SETS.values():
            fractions = "fraction-lines" in rules.house_rules
            paid = skunk_paid(121, scores, 0, rules.house_rules)
            deepest = max(lines_failed(121, s, fractions=fractions) for s in losers)
            assert paid == deepest
            for preset in PRESETS.values():
                points = preset.game_points(121, min(losers), fractions=fractions)
                value = (preset.win, preset.skunk, preset.double, preset.triple)[paid]
                if preset.lurch and min(losers) * 2 < 121:
                    value = max(value, preset.lurch)
                assert points == value  # the award is the value of the skunk named


def test_the_czech_winner_gets_the_skunk_with_one_opponent_past_the_line() -> None:
    keeper = _won("three-player", "czech", "czech", (100, 80))
    assert keeper.status()["won_points"] == 2 and keeper.status()["skunk"] == 1
    acc = _won("three-player", "acc", "acc", (100, 80))
    assert acc.status()["won_points"] == 3 and acc.status()["skunk"] == 1


@pytest.mark.parametrize("seed", range(4))
def test_the_demo_result_names_the_skunk_paid_for(seed: int) -> None:
    game = DemoGame(seed=seed, variant="three-player")
    result = game.play()
    status = game.keeper.status()
    assert result.lines_failed == status["skunk"]
    assert result.game_points == status["won_points"]
