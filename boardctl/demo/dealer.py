"""Shuffling, cutting and dealing real cards from one seeded :class:`random.Random` (a seed
replays a game card for card)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import islice

from boardctl.cribbage.cards import Card
from boardctl.cribbage.variants import Variant
from boardctl.errors import DemoError

# A cut must leave at least this many cards in each packet (the usual rule is four).
MIN_PACKET = 4


@dataclass(frozen=True, slots=True)
class Deal:
    """One deal: every seat's cards, the cards already in the crib, the rest of the pack."""

    hands: tuple[tuple[Card, ...], ...]  # indexed by seat
    crib: tuple[Card, ...]  # cards dealt straight to the crib (three players)
    stock: tuple[Card, ...]  # the undealt pack, top card first


@dataclass(frozen=True, slots=True)
class CutForDeal:
    """The cut for first deal: each round of cuts (ties cut again) and who deals."""

    rounds: tuple[tuple[tuple[int, Card], ...], ...]  # (seat, card) per cut, per round
    dealer: int


class Dealer:
    """Shuffles and deals from a fixed pack with a seeded random source."""

    def __init__(self, pack: Sequence[Card], *, seed: int | None = None) -> None:
        if len(pack) < 2 * MIN_PACKET:
            raise DemoError(f"a pack of {len(pack)} cards is too small to cut")
        self._pack = tuple(pack)
        self.random = random.Random(seed)

    def shuffled(self) -> list[Card]:
        cards = list(self._pack)
        self.random.shuffle(cards)
        return cards

    def cut_point(self, size: int) -> int:
        """Where a fair cut splits a packet of ``size`` cards (both packets >= 4 cards)."""
        if size < 2 * MIN_PACKET:
            return size // 2
        return self.random.randint(MIN_PACKET, size - MIN_PACKET)

    def cut_for_deal(self, players: int) -> CutForDeal:
        """Each player cuts a card; the lowest rank deals, tied lowest players cut again."""
        if players < 2:
            raise DemoError("a cut for deal needs at least two players")
        contenders = list(range(players))
        rounds: list[tuple[tuple[int, Card], ...]] = []
        while True:
            cards = self.shuffled()
            # Each player cuts the pack where it lies and shows the bottom card of the top part.
            cuts = tuple((seat, cards.pop(self.cut_point(len(cards)) - 1)) for seat in contenders)
            rounds.append(cuts)
            low = min(card.rank for _, card in cuts)
            contenders = [seat for seat, card in cuts if card.rank == low]
            if len(contenders) == 1:
                return CutForDeal(rounds=tuple(rounds), dealer=contenders[0])

    def deal(self, variant: Variant, dealer: int) -> Deal:
        """Shuffle and deal one hand of ``variant``: one card at a time clockwise from the
        dealer's left (full hands drop out), then the crib's card where the variant has one."""
        cards = iter(self.shuffled())  # dealt from the top
        players = variant.players
        wanted = [variant.cards_dealt((seat - dealer) % players) for seat in range(players)]
        hands: list[list[Card]] = [[] for _ in range(players)]
        for round_number in range(max(wanted)):
            for offset in range(1, players + 1):
                seat = (dealer + offset) % players
                if round_number < wanted[seat]:
                    hands[seat].append(next(cards))
        crib = tuple(islice(cards, variant.crib_from_deck))
        return Deal(hands=tuple(tuple(hand) for hand in hands), crib=crib, stock=tuple(cards))

    def cut_starter(self, stock: Sequence[Card]) -> Card:
        """The starter: the top card of the lower packet of the stock's cut."""
        if not stock:
            raise DemoError("no cards left to cut for the starter")
        return stock[self.cut_point(len(stock))]
