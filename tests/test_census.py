"""The exact census: the published table, and the counting method against one-by-one scoring."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Sequence
from itertools import combinations, combinations_with_replacement, product
from math import comb

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.cribbage.cards import DECK
from boardctl.cribbage.census import _suit_counts, census
from boardctl.cribbage.fast import code_points, rank_code
from boardctl.cribbage.hand import score_hand
from boardctl.cribbage.rules import RULE_SETS
from boardctl.cribbage.scoring import ACC, Scoring
from tests.conftest import DATA, scoring_of

TABLE = json.loads((DATA / "distribution.json").read_text())


@pytest.mark.parametrize("kind", ["hand", "crib"])
def test_full_census_equals_the_published_table(kind: str) -> None:
    result = census(4, crib=kind == "crib")
    assert result.total == TABLE["total"] == comb(52, 4) * 48
    assert {str(score): count for score, count in result.rows()} == TABLE[kind]
    assert round(result.mean, 4) == TABLE[f"{kind}_mean"]


def test_three_card_census_counts_every_deal() -> None:
    result = census(3)
    assert result.total == comb(52, 3) * 49
    assert result.max_score == 20
    assert result.counts[20] == 4  # three fives and the fourth five, one per suit of the fourth


def _one_by_one(ranks: set[int], hand_size: int, crib: bool) -> Counter[int]:
    deck = [card for card in DECK if card.rank in ranks]
    counts: Counter[int] = Counter()
    for hand in combinations(deck, hand_size):
        for starter in deck:
            if starter not in hand:
                counts[score_hand(hand, starter, crib=crib).total] += 1
    return counts


@pytest.mark.parametrize(
    ("ranks", "hand_size", "crib"),
    [
        ({4, 5, 6, 11}, 4, False),  # fifteens, pairs, runs, flushes and nobs all occur
        ({4, 5, 6, 11}, 4, True),
        ({5, 10, 11, 12}, 3, False),
        ({1, 2, 3, 11, 13}, 3, True),
    ],
)
def test_census_method_equals_one_by_one_scoring_on_reduced_decks(
    ranks: set[int], hand_size: int, crib: bool
) -> None:
    expected = _one_by_one(ranks, hand_size, crib)
    got = census(hand_size, crib=crib, ranks=ranks)
    assert got.counts == dict(expected)


def pattern_counts(
    hand: Sequence[int],
    starter: int,
    crib: bool,
    counts: Counter[int] | None = None,
    *,
    scoring: Scoring = ACC,
) -> Counter[int]:
    """Add the scores of every real deal of these hand and starter ranks to ``counts`` (the census
    of one pattern, by the census's own suit counting)."""
    if counts is None:
        counts = Counter()
    base = code_points(rank_code((*hand, starter)), scoring.run_min)
    extra: Counter[int] = Counter()  # what flush and nobs add to the rank points
    _suit_counts(hand, starter, scoring.crib_four_flush or not crib, extra)
    counts.update({base + points: deals for points, deals in extra.items()})
    return counts


@pytest.mark.parametrize("seed", range(4))
def test_rank_pattern_counts_equal_scoring_each_deal_on_a_random_sample(seed: int) -> None:
    """Random (hand ranks, starter rank) patterns of the full deck, every suit choice scored."""
    rng = random.Random(seed)
    for _ in range(40):
        hand_size = rng.choice((3, 4))
        crib = rng.random() < 0.5
        five = rng.sample(DECK, hand_size + 1)
        hand_ranks = sorted(card.rank for card in five[:-1])
        starter_rank = five[-1].rank
        expected: Counter[int] = Counter()
        choices = [
            combinations([c for c in DECK if c.rank == rank], hand_ranks.count(rank))
            for rank in sorted(set(hand_ranks))
        ]
        for parts in product(*choices):
            hand = [card for part in parts for card in part]
            for starter in DECK:
                if starter.rank == starter_rank and starter not in hand:
                    expected[score_hand(hand, starter, crib=crib).total] += 1
        got = pattern_counts(hand_ranks, starter_rank, crib)
        assert +got == expected, (hand_ranks, starter_rank, crib)


def test_random_full_deck_sample_scores_are_in_the_census() -> None:
    rng = random.Random(2)
    result = census(4)
    for _ in range(2000):
        five = rng.sample(DECK, 5)
        total = score_hand(five[:4], five[4]).total
        assert result.counts.get(total, 0) > 0


SCORINGS = [
    Scoring(),
    Scoring(run_min=2),
    Scoring(crib_four_flush=True),
    Scoring(run_min=2, crib_four_flush=True),
]


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(SCORINGS), st.sampled_from([3, 4]), st.booleans())
def test_census_totals_every_deal_under_every_rule_set(
    scoring: Scoring, hand_size: int, crib: bool
) -> None:
    result = census(hand_size, crib=crib, scoring=scoring)
    assert result.total == comb(52, hand_size) * (52 - hand_size)
    assert result.total == (12_994_800 if hand_size == 4 else 1_082_900)


@pytest.mark.parametrize("name", list(RULE_SETS))
def test_census_of_each_rule_set_sums_to_every_deal(name: str) -> None:
    for crib in (False, True):
        assert census(4, crib=crib, scoring=scoring_of(name)).total == 12_994_800


def test_acc_census_is_the_published_table_whatever_object_names_it() -> None:
    for name in ("acc", "finnish", "english", "polish"):  # none of these changes the show
        result = census(4, scoring=scoring_of(name))
        assert {str(score): count for score, count in result.rows()} == TABLE["hand"]


@pytest.mark.parametrize("scoring", SCORINGS[1:], ids=str)
@pytest.mark.parametrize(
    ("ranks", "hand_size", "crib"),
    [({4, 5, 6, 11}, 4, False), ({4, 5, 6, 11}, 4, True), ({1, 2, 3, 11, 13}, 3, True)],
)
def test_census_under_other_rules_equals_one_by_one_scoring_on_reduced_decks(
    scoring: Scoring, ranks: set[int], hand_size: int, crib: bool
) -> None:
    deck = [card for card in DECK if card.rank in ranks]
    expected: Counter[int] = Counter()
    for hand in combinations(deck, hand_size):
        for starter in deck:
            if starter not in hand:
                expected[score_hand(hand, starter, crib=crib, scoring=scoring).total] += 1
    assert census(hand_size, crib=crib, ranks=ranks, scoring=scoring).counts == dict(expected)


@pytest.mark.parametrize("scoring", SCORINGS, ids=str)
def test_the_walk_equals_summing_every_rank_pattern(scoring: Scoring) -> None:
    """The full deck: tallying shapes gives what the per-pattern counts give (23,647 patterns)."""
    for crib in (False, True):
        summed: Counter[int] = Counter()
        for hand in combinations_with_replacement(range(1, 14), 4):
            if max(hand.count(rank) for rank in hand) > 4:
                continue
            for starter in range(1, 14):
                if hand.count(starter) < 4:
                    pattern_counts(hand, starter, crib, summed, scoring=scoring)
        assert census(4, crib=crib, scoring=scoring).counts == {
            s: n for s, n in summed.items() if n
        }


def test_czech_distribution_has_runs_of_two() -> None:
    czech = census(4, scoring=scoring_of("czech"))
    acc = census(4)
    assert czech.max_score == 32 and czech.counts[32] == 240
    assert czech.mean > acc.mean
    assert 19 in czech.possible() and 19 not in acc.possible()
