"""Validation data derived from the scorers (never typed in), computed on first use and cached."""

from __future__ import annotations

from functools import cache

from boardctl.cribbage.cards import DECK, Card
from boardctl.cribbage.play import MAX_COUNT, score_play
from boardctl.cribbage.scoring import ACC, Scoring
from boardctl.errors import RulesError


@cache
def possible_scores(
    hand_size: int = 4, *, crib: bool = False, scoring: Scoring = ACC
) -> frozenset[int]:
    """Every score a hand of ``hand_size`` (3 or 4) cards, or a crib, can make with the starter."""
    if hand_size not in (3, 4):
        raise RulesError(f"hands have 3 or 4 cards, not {hand_size}")
    from boardctl.cribbage.census import census

    return census(hand_size, crib=crib, scoring=scoring).possible()


@cache
def max_play_points(scoring: Scoring = ACC) -> int:
    """The largest score of one card in the play (go and last card excluded), by a search of
    every scoring tail after every count (docs/rules.md, "Validation data")."""
    tails: list[list[Card]] = []  # the first cards of the deck that make each tail
    for rank in range(1, 14):
        tails.extend([Card(rank, suit) for suit in range(size)] for size in range(1, 5))
    for length in range(scoring.run_min, 14):
        for low in range(1, 15 - length):
            tails.append([Card(rank, 0) for rank in range(low, low + length)])
    best = 0
    for cards in tails:
        used = set(cards)
        tail_count = sum(card.value for card in cards)
        for before in range(0, MAX_COUNT - tail_count + 1):
            prefix = _cards_summing_to(before, used)
            if prefix is None:
                continue
            best = max(best, score_play(prefix + cards, scoring=scoring).points)
    return best


def _cards_summing_to(total: int, used: set[Card]) -> list[Card] | None:
    """Some cards not in ``used`` whose values add up to ``total`` (high values first)."""
    if total == 0:
        return []
    reachable: dict[int, list[Card]] = {0: []}
    for card in sorted((c for c in DECK if c not in used), key=lambda c: -c.value):
        for have, cards in list(reachable.items()):
            new = have + card.value
            if new <= total and new not in reachable:
                reachable[new] = [*cards, card]
        if total in reachable:
            return reachable[total]
    return None
