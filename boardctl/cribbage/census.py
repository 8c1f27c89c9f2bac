"""The exact distribution of hand (or crib) scores over every hand and starter (docs/rules.md,
"The census")."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from math import comb, prod

from boardctl.cribbage.cards import JACK
from boardctl.cribbage.scoring import ACC, Scoring


@dataclass(frozen=True, slots=True)
class Census:
    """Number of (hand, starter) deals for each score."""

    counts: dict[int, int]

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def max_score(self) -> int:
        return max(score for score, count in self.counts.items() if count)

    @property
    def mean(self) -> float:
        return sum(score * count for score, count in self.counts.items()) / self.total

    def rows(self) -> list[tuple[int, int]]:
        """``(score, count)`` for every score from 0 to the maximum, zeros included."""
        return [(score, self.counts.get(score, 0)) for score in range(self.max_score + 1)]

    def possible(self) -> frozenset[int]:
        return frozenset(score for score, count in self.counts.items() if count)


def _c3(n: int) -> int:
    return comb(3, n) if n >= 0 else 0


_BITS = 8  # bits per coefficient of the subset-sum polynomial (at most 2**5 subsets)
_MASK = (1 << (_BITS * 16)) - 1  # coefficients of x**0 .. x**15
_FIFTEEN = 15 * _BITS
_VALUES = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)
_JACK_SLOT = 6 * 5  # the jack's multiplicity sits above the four non-jack counters


def census(
    hand_size: int = 4,
    *,
    crib: bool = False,
    ranks: Iterable[int] = range(1, 14),
    scoring: Scoring = ACC,
) -> Census:
    """Count every (hand, starter) by score; ``ranks`` may restrict the deck (for tests)."""
    allowed = tuple(rank in set(ranks) for rank in range(14))
    run_min = scoring.run_min
    tally: dict[tuple[int, int], int] = {}

    def walk(
        rank: int, left: int, poly: int, points: int, run_len: int, run_mult: int, shape: int
    ) -> None:
        """Visit every multiset of ``left`` more ranks from ``rank`` up (each at most 4 times).

        ``poly``: the subset-sum polynomial of the values (a byte per power of x to 15);
        ``points``: pairs and closed runs; the open run is ``run_len`` long, ``run_mult`` ways;
        ``shape`` packs the counts of ranks seen once, twice, ... (six bits each), the jacks' above.
        """
        closed = points + run_len * run_mult if run_len >= run_min else points
        if left == 0:
            key = (closed + 2 * ((poly >> _FIFTEEN) & 0xFF), shape)
            tally[key] = tally.get(key, 0) + 1
            return
        if rank == 14:
            return
        walk(rank + 1, left, poly, closed, 0, 1, shape)  # this rank not held: the open run closes
        if not allowed[rank]:
            return
        value_shift = _VALUES[rank] * _BITS
        for held in range(1, min(4, left) + 1):
            poly = (poly + (poly << value_shift)) & _MASK
            mark = held << _JACK_SLOT if rank == JACK else 1 << (6 * held)
            pairs = points + held * (held - 1)
            walk(rank + 1, left - held, poly, pairs, run_len + 1, run_mult * held, shape + mark)

    walk(1, hand_size + 1, 1, 0, 0, 1, 0)
    flush_in_crib = scoring.crib_four_flush or not crib
    counts: Counter[int] = Counter()
    for (base, shape), multisets in tally.items():
        for extra, ways in _shape_counts(shape, hand_size, flush_in_crib):
            counts[base + extra] += ways * multisets
    return Census({score: n for score, n in sorted(counts.items()) if n})


@cache
def _shape_counts(shape: int, hand_size: int, flush_in_crib: bool) -> list[tuple[int, int]]:
    """``(points over the rank points, deals)`` for every multiset of one shape."""
    jacks = shape >> _JACK_SLOT
    mults = [held for held in range(1, 5) for _ in range((shape >> (6 * held)) & 0x3F)]
    # One representative multiset of this shape: non-jack ranks 1, 2, ... then the jacks.
    hand_ranks = [rank for rank, held in enumerate(mults, start=1) for _ in range(held)]
    hand_ranks += [JACK] * jacks
    counts: Counter[int] = Counter()
    for starter in sorted(set(hand_ranks)):
        hand = list(hand_ranks)
        hand.remove(starter)
        _suit_counts(hand, starter, flush_in_crib, counts)
    return sorted((extra, ways) for extra, ways in counts.items() if ways)


def _suit_counts(
    hand: Sequence[int], starter: int, flush_in_crib: bool, counts: Counter[int]
) -> None:
    """Add the deals of these hand ranks and starter rank to ``counts``, with flush and nobs."""
    hand_size = len(hand)
    mult = Counter(hand)
    hand_ways = prod(comb(4, m) for m in mult.values())
    jacks = mult[JACK]
    m_s = mult[starter]
    ways = hand_ways * (4 - m_s)
    nobs = 0
    if jacks and starter != JACK:
        others = hand_ways // (comb(4, jacks) * comb(4, m_s))
        nobs = others * (comb(4, jacks) * comb(4, m_s) * jacks - 4 * _c3(jacks - 1) * _c3(m_s - 1))
    if len(mult) == hand_size:  # all ranks distinct: a flush is possible
        five_suited = 4 if m_s == 0 else 0
        nobs_in_five = five_suited if jacks else 0
        counts[hand_size + 2] += nobs_in_five
        counts[hand_size + 1] += five_suited - nobs_in_five
        counts[hand_size if flush_in_crib else 0] += 12
        ways -= five_suited + 12
        nobs -= nobs_in_five
    counts[1] += nobs
    counts[0] += ways - nobs
