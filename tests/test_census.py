"""The exact census: the published table, and the counting method against one-by-one scoring."""

from __future__ import annotations

import json
import random
from collections import Counter
from itertools import combinations, product
from math import comb

import pytest

from boardctl.cribbage import DECK, score_hand
from boardctl.cribbage.census import census, pattern_counts
from tests.conftest import DATA

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
