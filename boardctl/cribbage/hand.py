"""The show: score a hand or crib with the starter, item by item (docs/rules.md, "The show")."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import combinations, product

from boardctl.cribbage.cards import JACK, Card, check_distinct, parse_card, parse_cards
from boardctl.cribbage.fast import hand_total
from boardctl.cribbage.scoring import ACC, Scoring
from boardctl.errors import CardError


@dataclass(frozen=True, slots=True)
class ScoreItem:
    """One scoring combination: its kind, the cards that make it, its points."""

    kind: str
    cards: tuple[Card, ...]
    points: int

    def as_dict(self) -> dict[str, object]:
        return {"kind": self.kind, "cards": [str(c) for c in self.cards], "points": self.points}


@dataclass(frozen=True)
class HandScore:
    """The count of one hand or crib with its starter: ``total`` from :mod:`boardctl.cribbage.fast`,
    the ``items`` listed on first use (the tests check that the two agree)."""

    hand: tuple[Card, ...]
    starter: Card
    crib: bool
    total: int
    scoring: Scoring = ACC

    @cached_property
    def items(self) -> tuple[ScoreItem, ...]:
        """Every scoring combination, in the order players count them."""
        return itemise(self.hand, self.starter, crib=self.crib, scoring=self.scoring)

    def points_for(self, kind: str) -> int:
        """Points of one kind: ``fifteen``, ``pair`` (a pair royal is three pairs, 6), ``run`` (each
        distinct run), ``flush`` or ``nobs`` (the jack of the starter's suit in hand)."""
        return sum(item.points for item in self.items if item.kind == kind)

    def as_dict(self) -> dict[str, object]:
        """JSON-ready form with the breakdown and the total."""
        return {
            "hand": [str(c) for c in self.hand],
            "starter": str(self.starter),
            "crib": self.crib,
            "fifteens": self.points_for("fifteen"),
            "pairs": self.points_for("pair"),
            "runs": self.points_for("run"),
            "flush": self.points_for("flush"),
            "nobs": self.points_for("nobs"),
            "items": [item.as_dict() for item in self.items],
            "total": self.total,
        }


def score_typed(cards: Sequence[Card], *, crib: bool = False, scoring: Scoring = ACC) -> HandScore:
    """The count of cards as typed: the hand (4 cards, or 3), then the starter."""
    if len(cards) not in (4, 5):
        raise CardError(
            f"give 4 hand cards and the starter (or 3 and the starter), got {len(cards)} cards"
        )
    return score_hand(cards[:-1], cards[-1], crib=crib, scoring=scoring)


def score_hand(
    hand: str | Iterable[str | Card],
    starter: str | Card,
    *,
    crib: bool = False,
    scoring: Scoring = ACC,
) -> HandScore:
    """Score ``hand`` (3 or 4 cards) with ``starter`` (``crib=True``: the crib) under ``scoring``.

    >>> score_hand("5H 5C 5S JD", "5D").total
    29
    """
    cards = tuple(parse_cards(hand, unique=False))  # a Card passes through
    cut = parse_card(starter)
    if len(cards) not in (3, 4):
        raise CardError(
            f"a hand has 4 cards (or 3 in the five-card game) plus the starter; got {len(cards)}"
        )
    check_distinct([*cards, cut])
    return HandScore(cards, cut, crib, hand_total(cards, cut, crib, scoring), scoring)


def itemise(
    hand: Sequence[Card], starter: Card, *, crib: bool = False, scoring: Scoring = ACC
) -> tuple[ScoreItem, ...]:
    """Every scoring combination of a checked hand with its starter, item by item."""
    five = (*hand, starter)
    combos = (combo for size in range(2, 6) for combo in combinations(five, size))
    items = [ScoreItem("fifteen", c, 2) for c in combos if sum(card.value for card in c) == 15]
    items.extend(ScoreItem("pair", (a, b), 2) for a, b in combinations(five, 2) if a.rank == b.rank)
    items.extend(_runs(five, scoring.run_min))
    if all(card.suit == hand[0].suit for card in hand):
        if starter.suit == hand[0].suit:
            items.append(ScoreItem("flush", five, len(five)))
        elif scoring.crib_four_flush or not crib:  # a crib's four-card flush: only by house rule
            items.append(ScoreItem("flush", tuple(hand), len(hand)))
    for card in hand:
        if card.rank == JACK and card.suit == starter.suit:
            items.append(ScoreItem("nobs", (card,), 1))
    return tuple(items)


def _runs(five: Sequence[Card], run_min: int = 3) -> list[ScoreItem]:
    """Every distinct run of ``run_min`` or more (one card per rank of the longest block)."""
    by_rank: dict[int, list[Card]] = {}
    for card in five:
        by_rank.setdefault(card.rank, []).append(card)
    items: list[ScoreItem] = []
    block: list[list[Card]] = []  # the cards of each rank of the current block of ranks
    for rank in range(1, 15):
        if rank in by_rank:
            block.append(by_rank[rank])
            continue
        if len(block) >= run_min:
            items.extend(ScoreItem("run", run, len(run)) for run in product(*block))
        block = []
    return items
