"""The exact distribution of hand (or crib) scores over every hand and starter.

Scoring all 12,994,800 hands one by one is far too slow in Python, so the
census works on ranks and counts the suits:

1. Every multiset of hand ranks (each rank at most four times) and every
   starter rank is visited once (1,820 x 13 for four-card hands).
2. Fifteens, pairs and runs depend only on the five ranks; they come from
   :func:`boardctl.cribbage.fast.code_points`.
3. The number of real hands behind a rank pattern is the product of
   ``C(4, m)`` over the hand's rank multiplicities ``m``, times ``4 - m_s``
   starters (``m_s`` = hand cards of the starter's rank).
4. Flush and nobs are counted combinatorially over the suit choices:

   - a flush needs all hand ranks distinct; the hand can be any of 4 suits;
     the starter then shares the suit in 1 way if its rank is not in the hand
     (5 points, or hand size + 1) and differs in 3 ways (hand size points,
     none in a crib);
   - nobs: with ``j`` jacks in hand and a non-jack starter rank held ``m_s``
     times in hand, summing ``|jack suits - suits of the starter's rank|``
     over all suit choices gives
     ``C(4,j) C(4,m_s) j - 4 C(3,j-1) C(3,m_s-1)`` times the other ranks'
     choices. A jack starter never gives nobs.

The test suite checks this method against one-by-one scoring: every deal of
reduced decks, every suit choice of random full-deck rank patterns
(:func:`pattern_counts`), and the published table for the full deck.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations_with_replacement
from math import comb

from boardctl.cribbage.cards import JACK
from boardctl.cribbage.fast import code_points, rank_code


@dataclass(frozen=True, slots=True)
class Census:
    """Number of (hand, starter) deals for each score."""

    hand_size: int
    crib: bool
    counts: dict[int, int]

    @property
    def total(self) -> int:
        """Number of (hand, starter) deals counted."""
        return sum(self.counts.values())

    @property
    def max_score(self) -> int:
        """Highest score that occurs."""
        return max(score for score, count in self.counts.items() if count)

    @property
    def mean(self) -> float:
        """Average score."""
        return sum(score * count for score, count in self.counts.items()) / self.total

    def rows(self) -> list[tuple[int, int]]:
        """``(score, count)`` for every score from 0 to the maximum, zeros included."""
        return [(score, self.counts.get(score, 0)) for score in range(self.max_score + 1)]

    def possible(self) -> frozenset[int]:
        """Scores that occur at least once."""
        return frozenset(score for score, count in self.counts.items() if count)


def _c3(n: int) -> int:
    return comb(3, n) if n >= 0 else 0


def census(
    hand_size: int = 4, *, crib: bool = False, ranks: Iterable[int] = range(1, 14)
) -> Census:
    """Count every (hand, starter) by score; ``ranks`` may restrict the deck (for tests)."""
    rank_list = sorted(set(ranks))
    counts: Counter[int] = Counter()
    for hand in combinations_with_replacement(rank_list, hand_size):
        if max(hand.count(rank) for rank in hand) > 4:
            continue
        for starter in rank_list:
            if hand.count(starter) < 4:
                pattern_counts(hand, starter, crib, counts)
    return Census(hand_size, crib, {score: n for score, n in sorted(counts.items()) if n})


def pattern_counts(
    hand: Sequence[int], starter: int, crib: bool, counts: Counter[int] | None = None
) -> Counter[int]:
    """Add to ``counts`` the scores of every real deal with these hand ranks and starter rank."""
    if counts is None:
        counts = Counter()
    hand_size = len(hand)
    mult = Counter(hand)
    hand_ways = 1
    for m in mult.values():
        hand_ways *= comb(4, m)
    jacks = mult[JACK]
    m_s = mult[starter]
    ways = hand_ways * (4 - m_s)
    base = code_points(rank_code((*hand, starter)))
    nobs = 0
    if jacks and starter != JACK:
        others = hand_ways // (comb(4, jacks) * comb(4, m_s))
        nobs = others * (comb(4, jacks) * comb(4, m_s) * jacks - 4 * _c3(jacks - 1) * _c3(m_s - 1))
    if len(mult) == hand_size:  # all ranks distinct: a flush is possible
        five_suited = 4 if m_s == 0 else 0
        nobs_in_five = five_suited if jacks else 0
        counts[base + hand_size + 2] += nobs_in_five
        counts[base + hand_size + 1] += five_suited - nobs_in_five
        counts[base + (0 if crib else hand_size)] += 12
        ways -= five_suited + 12
        nobs -= nobs_in_five
    counts[base + 1] += nobs
    counts[base] += ways - nobs
    return counts
