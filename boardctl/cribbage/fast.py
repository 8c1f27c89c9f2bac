"""Hand totals without the breakdown, fast enough for the census and discard advice: a second
implementation of the show (docs/rules.md, "The show"), checked against :mod:`.hand`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from boardctl.cribbage.cards import JACK, Card
from boardctl.cribbage.scoring import ACC, Scoring

RANK_WEIGHT: tuple[int, ...] = (0, *(5 ** (rank - 1) for rank in range(1, 14)))
"""``RANK_WEIGHT[rank]``: the amount a card of that rank adds to a multiset code."""

_BASE: dict[int, int] = {}
_BASE_RUNS_OF_TWO: dict[int, int] = {}
_TABLES = {3: _BASE, 2: _BASE_RUNS_OF_TWO}


def rank_code(ranks: Iterable[int]) -> int:
    """The base-5 code of a multiset of ranks (each rank at most four times)."""
    return sum(RANK_WEIGHT[rank] for rank in ranks)


def rank_points(ranks: Sequence[int], run_min: int = 3) -> int:
    """Points for fifteens, pairs and runs among ``ranks`` (runs from ``run_min`` cards)."""
    ways = [1] + [0] * 15
    counts = [0] * 15
    for rank in ranks:
        counts[rank] += 1
        value = rank if rank < 10 else 10
        for total in range(15, value - 1, -1):
            ways[total] += ways[total - value]
    points = 2 * ways[15]
    for count in counts:
        points += count * (count - 1)  # 2 points per pair: 2 * C(count, 2)
    length, multiplicity = 0, 1  # the run of held ranks so far (counts[14] is 0: it ends)
    for count in counts[1:]:
        if count:
            length, multiplicity = length + 1, multiplicity * count
            continue
        if length >= run_min:
            points += length * multiplicity
        length, multiplicity = 0, 1
    return points


def code_points(code: int, run_min: int = 3) -> int:
    """:func:`rank_points` of a multiset code, from a lazily filled table (one per run_min)."""
    table = _TABLES[run_min]
    points = table.get(code)
    if points is None:
        # The ranks, sorted: each rank's count is a base-5 digit of the code.
        ranks = [rank for rank in range(1, 14) for _ in range(code // RANK_WEIGHT[rank] % 5)]
        points = table[code] = rank_points(ranks, run_min)
    return points


def hand_total(
    hand: Sequence[Card], starter: Card, crib: bool = False, scoring: Scoring = ACC
) -> int:
    """Total of a hand (3 or 4 distinct cards) with the starter under ``scoring``, unchecked (see
    :func:`boardctl.cribbage.hand.score_hand`)."""
    s_rank, s_suit = starter
    code = RANK_WEIGHT[s_rank]
    first_suit = hand[0][1]
    flush = True
    nobs = 0
    for rank, suit in hand:
        code += RANK_WEIGHT[rank]
        if suit != first_suit:
            flush = False
        if rank == JACK and suit == s_suit:
            nobs = 1
    points = code_points(code, scoring.run_min)
    if flush:
        if s_suit == first_suit:
            points += len(hand) + 1
        elif scoring.crib_four_flush or not crib:
            points += len(hand)
    return points + nobs
