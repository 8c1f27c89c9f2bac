"""The shipped validation tables (cribbage/derived.py) equal what the scorer derives."""

from __future__ import annotations

import subprocess
import sys
from itertools import combinations

import pytest

from boardctl.cribbage.census import census
from boardctl.cribbage.derived import HAND_SCORES, MAX_PLAY
from boardctl.cribbage.rules import HOUSE_RULES, RULE_SETS, scoring_for
from boardctl.cribbage.validation import max_play_points
from boardctl.cribbage.variants import VARIANTS
from boardctl.game.limits import RulesLimits
from tests.conftest import REPO, scoring_of
from tools import derive_tables as derive


def test_the_shipped_file_is_what_the_generator_writes() -> None:
    assert derive.TARGET.read_text(encoding="utf-8") == derive.render()


@pytest.mark.parametrize("rules", list(RULE_SETS))
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_every_variant_and_rule_set_reads_the_census_from_the_tables(
    variant: str, rules: str
) -> None:
    scoring = scoring_of(rules)
    v = VARIANTS[variant]
    limits = RulesLimits(scoring)
    assert limits.hand_scores(v.hand_size) == census(v.hand_size, scoring=scoring).possible()
    crib = census(v.crib_size, crib=True, scoring=scoring).possible()
    assert limits.hand_scores(v.crib_size, crib=True) == crib
    assert limits.max_play_points() == max_play_points(scoring)


def test_every_combination_of_house_rules_is_in_the_tables() -> None:
    names = list(HOUSE_RULES)
    for size in range(len(names) + 1):
        for chosen in combinations(names, size):
            scoring = scoring_for(chosen)
            for cards in (3, 4):
                for crib in (False, True):
                    assert (*scoring.show_key, cards, crib) in HAND_SCORES
            assert scoring.run_min in MAX_PLAY


def test_ranges_round_trip() -> None:
    from boardctl.cribbage.scoring import scores_in

    for scores in HAND_SCORES.values():
        assert scores_in(derive.ranges(scores)) == scores
    assert derive.ranges(frozenset({0, 1, 2, 5, 7, 8})) == "0-2 5 7-8"


def test_limits_cost_no_census_in_a_fresh_process() -> None:
    code = (
        "import sys, time; t = time.perf_counter();"
        "from boardctl.game.limits import RulesLimits, warm_up;"
        "from boardctl.cribbage.rules import RULE_SETS, scoring_for;"
        "warm_up(RulesLimits()); warm_up(RulesLimits(scoring_for(RULE_SETS['czech'].house_rules)));"
        "print(time.perf_counter() - t);"
        "heavy = [m for m in ('boardctl.cribbage.census', 'boardctl.cribbage.validation',"
        " 'boardctl.cribbage.play') if m in sys.modules]; print(heavy)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO
    ).stdout.splitlines()
    assert out[1] == "[]"
