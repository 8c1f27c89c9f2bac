"""Validation data derived from the scorers."""

from __future__ import annotations

import subprocess
import sys

from boardctl.cribbage.hand import score_hand
from boardctl.cribbage.play import score_play
from boardctl.cribbage.validation import max_play_points, possible_scores
from boardctl.game.limits import DEFAULT_LIMITS, RulesLimits, limits_for
from tests.conftest import REPO, scoring_of


def test_four_card_possible_scores_miss_exactly_19_25_26_27() -> None:
    scores = possible_scores()
    assert min(scores) == 0 and max(scores) == 29
    assert set(range(30)) - scores == {19, 25, 26, 27}
    assert possible_scores(4, crib=True) == scores


def test_three_card_possible_scores() -> None:
    scores = possible_scores(3)
    assert max(scores) == score_hand("5H 5C 5S", "5D").total == 20
    assert 19 not in scores and 16 not in scores
    assert {0, 1, 15} <= scores


def test_possible_scores_are_cached() -> None:
    assert possible_scores(4) is possible_scores(4)


def test_max_play_points_is_reachable_and_is_fourteen() -> None:
    best = max_play_points()
    assert best == 14
    assert score_play("7H 2C 2D 2H 2S").points == best
    assert score_play("3H 7C 7D 7H 7S").points == best


def test_nothing_is_computed_at_import() -> None:
    code = (
        "import boardctl.cribbage.validation as v, boardctl.cribbage.fast as f;"
        "assert v.possible_scores.cache_info().currsize == 0;"
        "assert not f._BASE; print('ok')"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO
    )
    assert out.stdout.strip() == "ok"


def test_limits_follow_the_rules() -> None:
    czech = scoring_of("czech")
    assert max_play_points(czech) == 14  # a run of two never beats four of a kind at 15 or 31
    hands = possible_scores(4, scoring=czech)
    assert 19 in hands and 32 in hands and max(hands) == 32
    assert set(range(33)) - hands == {25, 26, 27, 30, 31}
    assert possible_scores(4, crib=True, scoring=czech) == hands
    limits = RulesLimits(czech)
    assert limits.hand_scores(4) == hands and limits.max_play_points() == 14


def test_engine_limits_for_house_rules() -> None:
    assert limits_for(DEFAULT_LIMITS, ()) is DEFAULT_LIMITS
    czech = limits_for(DEFAULT_LIMITS, ("runs-of-two", "crib-four-flush"))
    assert isinstance(czech, RulesLimits) and czech.scoring == scoring_of("czech")
    assert limits_for(DEFAULT_LIMITS, ("runs-of-two", "crib-four-flush")) is czech  # shared
    assert limits_for(DEFAULT_LIMITS, ("deal-right",)) is DEFAULT_LIMITS  # no scoring change

    class Fixed:
        def hand_scores(self, cards: int, *, crib: bool = False) -> frozenset[int]:
            return frozenset({0})

        def max_play_points(self) -> int:
            return 1

    fixed = Fixed()
    assert limits_for(fixed, ("runs-of-two",)) is fixed  # a test's own limits stay as given
