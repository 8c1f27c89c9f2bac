"""Discard advice: which cards to lay away to the crib, ranked by expected points.

For each way to discard two cards (six-card game: keep 4 of 6; five-card
game: keep 3 of 5) the advice computes, exactly:

- ``hand``: the mean hand count over every possible starter (each unseen card
  equally likely: 46 in the six-card game, 47 in the five-card game);
- ``crib``: the mean crib count, assuming the opponent's two discards are any
  two of the unseen cards with equal probability and the starter any of the
  remaining ones. This is a stated model, not a guess about the opponent's
  play; under it the value is exact. It is computed on ranks: fifteens,
  pairs and runs are summed over every (opponent rank pair, starter rank)
  weighted by how many real cards give it; flush and nobs probabilities
  follow from the unseen suit counts. A test checks it against scoring all
  1,035 x 44 (opponent pair, starter) cribs one by one.

``net`` is ``hand + crib`` for the dealer (the crib is theirs) and
``hand - crib`` for the non-dealer. A decision takes a few milliseconds.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import combinations
from math import comb

from boardctl.cribbage.cards import DECK, JACK, Card, parse_cards
from boardctl.cribbage.fast import RANK_WEIGHT, code_points, hand_total
from boardctl.errors import CardError

CRIB_FLUSH_POINTS = 5


@dataclass(frozen=True, slots=True)
class DiscardOption:
    """One way to split the deal: cards kept, cards laid away, their expected points."""

    keep: tuple[Card, ...]
    discard: tuple[Card, ...]
    hand: float
    crib: float
    dealer: bool

    @property
    def net(self) -> float:
        """Expected points for the player: hand plus crib (dealer) or minus crib (non-dealer)."""
        return self.hand + self.crib if self.dealer else self.hand - self.crib

    def as_dict(self) -> dict[str, object]:
        """JSON-ready form."""
        return {
            "keep": [str(c) for c in self.keep],
            "discard": [str(c) for c in self.discard],
            "hand": round(self.hand, 4),
            "crib": round(self.crib, 4),
            "net": round(self.net, 4),
            "dealer": self.dealer,
        }


def rank_discards(cards: str | Iterable[str | Card], *, dealer: bool) -> list[DiscardOption]:
    """Every two-card discard from 6 cards (or 5), best first for ``dealer`` or the non-dealer."""
    held = parse_cards(cards)
    if len(held) not in (5, 6):
        raise CardError(
            f"give the 6 cards dealt (or 5 in the five-card game) to choose a discard,"
            f" got {len(held)}"
        )
    unseen = [card for card in DECK if card not in set(held)]
    options = []
    for discard in combinations(held, 2):
        keep = tuple(card for card in held if card not in discard)
        options.append(
            DiscardOption(
                keep, discard, hand_mean(keep, unseen), crib_mean(discard, unseen), dealer
            )
        )
    options.sort(key=lambda option: (-option.net, -option.hand))
    return options


def hand_mean(keep: tuple[Card, ...], unseen: list[Card]) -> float:
    """Mean hand count of ``keep`` over every starter in ``unseen``."""
    return sum(hand_total(keep, starter) for starter in unseen) / len(unseen)


def crib_mean(discard: tuple[Card, ...], unseen: list[Card]) -> float:
    """Mean crib count: ``discard`` plus two random unseen cards plus a random remaining starter."""
    total_unseen = len(unseen)
    rank_count = [0] * 14
    suit_count = [0] * 4
    for card in unseen:
        rank_count[card.rank] += 1
        suit_count[card.suit] += 1
    # Fifteens, pairs and runs: over opponent rank pairs (a <= b) and starter ranks s.
    base_code = sum(RANK_WEIGHT[card.rank] for card in discard)
    weighted = 0
    for a in range(1, 14):
        ca = rank_count[a]
        if not ca:
            continue
        for b in range(a, 14):
            cb = rank_count[b]
            pair_ways = comb(ca, 2) if a == b else ca * cb
            if not pair_ways:
                continue
            code = base_code + RANK_WEIGHT[a] + RANK_WEIGHT[b]
            for s in range(1, 14):
                starters = rank_count[s] - (a == s) - (b == s)
                if starters > 0:
                    weighted += pair_ways * starters * code_points(code + RANK_WEIGHT[s])
    deals = comb(total_unseen, 2) * (total_unseen - 2)
    mean = weighted / deals
    # Flush: both discards of one suit, and both opponent cards and the starter too.
    first = discard[0].suit
    if all(card.suit == first for card in discard):
        u = suit_count[first]
        mean += (
            CRIB_FLUSH_POINTS
            * comb(u, 2)
            / comb(total_unseen, 2)
            * max(u - 2, 0)
            / (total_unseen - 2)
        )
    # Nobs: a jack in the crib of the starter's suit.
    for card in discard:
        if card.rank == JACK:
            mean += suit_count[card.suit] / total_unseen
    for card in unseen:
        if card.rank == JACK:
            u = suit_count[card.suit]
            mean += 2 / total_unseen * (u - 1) / (total_unseen - 1)
    return mean
