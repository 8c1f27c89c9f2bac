"""Points pegged outside the play and the show (his heels, three for last): who gets how many."""

from __future__ import annotations

from boardctl.cribbage.cards import JACK, Card, parse_card
from boardctl.cribbage.variants import Variant

HEELS_POINTS = 2
THREE_FOR_LAST_POINTS = 3


def heels_points(starter: str | Card) -> int:
    """Points the dealer pegs at once for the starter: 2 for a jack ("his heels"), else 0."""
    return HEELS_POINTS if parse_card(starter).rank == JACK else 0


def opening_points(variant: Variant, dealer: int) -> dict[int, int]:
    """Points pegged at the start of a game, by seat (the five-card pone's three for last)."""
    if not variant.three_for_last:
        return {}
    return {(dealer + 1) % variant.players: THREE_FOR_LAST_POINTS}
