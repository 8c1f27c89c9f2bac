"""Discard advice: which cards to lay away to the crib, ranked by expected points (``hand``,
``crib`` and ``net``: docs/rules.md, "Discard advice")."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import combinations, combinations_with_replacement
from math import comb, prod

from boardctl.cribbage.cards import DECK, JACK, Card, parse_cards
from boardctl.cribbage.fast import RANK_WEIGHT, code_points, hand_total, rank_code
from boardctl.cribbage.scoring import ACC, Scoring
from boardctl.errors import CardError

CRIB_FLUSH_POINTS = 5
CRIB_FOUR_FLUSH_POINTS = 4  # only with scoring.crib_four_flush (no crib exception)


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
        return {
            "keep": [str(c) for c in self.keep],
            "discard": [str(c) for c in self.discard],
            "hand": round(self.hand, 4),
            "crib": round(self.crib, 4),
            "net": round(self.net, 4),
            "dealer": self.dealer,
        }


def rank_discards(
    cards: str | Iterable[str | Card],
    *,
    dealer: bool,
    keep: int | None = None,
    scoring: Scoring = ACC,
) -> list[DiscardOption]:
    """Every discard, best first for ``dealer`` or the pone, under ``scoring``'s rules (``keep``: 4
    of 6, 3 of 5, or 4 of 5 to rank one-card discards)."""
    held = parse_cards(cards)
    if keep is not None and keep not in (3, 4):
        raise CardError(f"a hand keeps 4 cards (3 in the five-card game), not {keep}")
    if keep is not None and not 1 <= len(held) - keep <= 2:
        raise CardError(
            f"to keep {keep} cards, give {keep + 2} (two to the crib) or {keep + 1} (one to the"
            f" crib); got {len(held)} cards"
        )
    keep = keep or {6: 4, 5: 3}.get(len(held), 0)
    if not keep:
        raise CardError(
            f"give the 6 cards dealt (or 5 in the five-card game) to choose a discard;"
            f" got {len(held)} cards"
        )
    seen = set(held)
    unseen = [card for card in DECK if card not in seen]
    options = []
    for discard in combinations(held, len(held) - keep):
        kept = tuple(card for card in held if card not in discard)
        hand, crib = hand_mean(kept, unseen, scoring), crib_mean(discard, unseen, scoring)
        options.append(DiscardOption(kept, discard, hand, crib, dealer))
    options.sort(key=lambda option: (-option.net, -option.hand))
    return options


def hand_mean(keep: tuple[Card, ...], unseen: list[Card], scoring: Scoring = ACC) -> float:
    """Mean hand count of ``keep`` over every starter in ``unseen``."""
    return sum(hand_total(keep, starter, False, scoring) for starter in unseen) / len(unseen)


def crib_mean(discard: tuple[Card, ...], unseen: list[Card], scoring: Scoring = ACC) -> float:
    """Mean crib count: ``discard``, then random unseen cards up to four, then a random starter."""
    n = len(unseen)
    k = 4 - len(discard)  # crib cards that are not ours
    rank_count = Counter(card.rank for card in unseen)
    suit_count = Counter(card.suit for card in unseen)
    present = [rank for rank in range(1, 14) if rank_count[rank]]
    # Fifteens, pairs and runs: over multisets of other crib ranks and the starter rank.
    base_code = rank_code(card.rank for card in discard)
    run_min = scoring.run_min
    weighted = 0
    for others in combinations_with_replacement(present, k):
        ways = prod(comb(rank_count[rank], others.count(rank)) for rank in set(others))
        if not ways:
            continue
        code = base_code + sum(RANK_WEIGHT[rank] for rank in others)
        for s in present:
            starters = rank_count[s] - others.count(s)
            if starters > 0:
                weighted += ways * starters * code_points(code + RANK_WEIGHT[s], run_min)
    mean = weighted / (comb(n, k) * (n - k))
    # Flush: the discards of one suit, and the other crib cards and the starter too.
    first = discard[0].suit
    if all(card.suit == first for card in discard):
        u = suit_count[first]
        mean += CRIB_FLUSH_POINTS * comb(u, k) / comb(n, k) * max(u - k, 0) / (n - k)
        if scoring.crib_four_flush:  # the starter of another suit: four points
            mean += CRIB_FOUR_FLUSH_POINTS * comb(u, k) / comb(n, k) * (n - u) / (n - k)
    # Nobs: a jack in the crib of the starter's suit. By symmetry the starter is of
    # a given suit with probability (unseen of that suit) / (unseen); an unseen jack
    # is in the crib with probability k / n, and then the starter matches it with
    # probability (unseen of its suit - 1) / (n - 1).
    for card in discard:
        if card.rank == JACK:
            mean += suit_count[card.suit] / n
    for card in unseen:
        if card.rank == JACK:
            mean += k / n * (suit_count[card.suit] - 1) / (n - 1)
    return mean
