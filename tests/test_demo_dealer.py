"""Shuffling, cutting and dealing for the demo: seeded, complete, in the right order."""

from __future__ import annotations

import pytest

from boardctl.cribbage.cards import DECK
from boardctl.cribbage.variants import VARIANTS
from boardctl.demo.dealer import MIN_PACKET, Dealer

PACK = list(DECK)


def test_same_seed_same_cards_other_seed_other_cards() -> None:
    first = Dealer(PACK, seed=5).deal(VARIANTS["six-card"], dealer=0)
    again = Dealer(PACK, seed=5).deal(VARIANTS["six-card"], dealer=0)
    other = Dealer(PACK, seed=6).deal(VARIANTS["six-card"], dealer=0)
    assert first == again
    assert first != other


@pytest.mark.parametrize("name", sorted(VARIANTS))
@pytest.mark.parametrize("dealer", [0, 1])
def test_deal_gives_each_seat_its_cards_and_uses_each_card_once(name: str, dealer: int) -> None:
    variant = VARIANTS[name]
    deal = Dealer(PACK, seed=11).deal(variant, dealer=dealer)
    assert len(deal.hands) == variant.players
    for seat, hand in enumerate(deal.hands):
        assert len(hand) == variant.cards_dealt((seat - dealer) % variant.players)
    assert len(deal.crib) == variant.crib_from_deck
    everything = [card for hand in deal.hands for card in hand] + list(deal.crib)
    everything += list(deal.stock)
    assert sorted(everything) == PACK
    # Every seat keeps hand_size cards after its discards; the crib fills to crib_size.
    kept = sum(variant.hand_size for _ in deal.hands)
    discarded = sum(len(hand) for hand in deal.hands) - kept
    assert discarded + len(deal.crib) == variant.crib_size


def test_cards_go_one_at_a_time_starting_left_of_the_dealer() -> None:
    variant = VARIANTS["three-player"]
    shuffled = Dealer(PACK, seed=3).shuffled()
    deal = Dealer(PACK, seed=3).deal(variant, dealer=2)
    # Seat 0 is on the dealer's left, then seat 1, then the dealer (seat 2).
    assert deal.hands[0] == tuple(shuffled[0:15:3])
    assert deal.hands[1] == tuple(shuffled[1:15:3])
    assert deal.hands[2] == tuple(shuffled[2:15:3])
    assert deal.crib == (shuffled[15],)
    assert deal.stock == tuple(shuffled[16:])


def test_short_seats_drop_out_of_the_deal_when_full() -> None:
    variant = VARIANTS["six-player"]  # the dealer and the player on his right get 4
    shuffled = Dealer(PACK, seed=8).shuffled()
    deal = Dealer(PACK, seed=8).deal(variant, dealer=0)
    assert [len(hand) for hand in deal.hands] == [4, 5, 5, 5, 5, 4]
    # Four full rounds deal 24 cards; the fifth skips the two short seats.
    assert deal.hands[1][4] == shuffled[24]
    assert deal.hands[4][4] == shuffled[27]


def test_cut_for_deal_lowest_card_deals_and_ties_cut_again() -> None:
    saw_tie = False
    for seed in range(200):
        cut = Dealer(PACK, seed=seed).cut_for_deal(2)
        last = cut.rounds[-1]
        low = min(card.rank for _, card in last)
        assert [seat for seat, card in last if card.rank == low] == [cut.dealer]
        for earlier in cut.rounds[:-1]:
            saw_tie = True
            assert earlier[0][1].rank == earlier[1][1].rank
    assert saw_tie, "no tie in 200 seeds: the recut is untested"


def test_cut_for_deal_among_three_recuts_only_the_tied_players() -> None:
    for seed in range(300):
        cut = Dealer(PACK, seed=seed).cut_for_deal(3)
        if len(cut.rounds) > 1:
            first = cut.rounds[0]
            low = min(card.rank for _, card in first)
            tied = [seat for seat, card in first if card.rank == low]
            assert [seat for seat, _ in cut.rounds[1]] == tied
            return
    pytest.fail("no tie among three players in 300 seeds")


def test_starter_is_cut_from_inside_the_stock() -> None:
    dealer = Dealer(PACK, seed=2)
    stock = list(DECK[:40])
    positions = {stock.index(dealer.cut_starter(stock)) for _ in range(400)}
    assert min(positions) >= MIN_PACKET
    assert max(positions) <= len(stock) - MIN_PACKET
    assert len(positions) > 20


def test_too_small_a_pack_is_refused() -> None:
    with pytest.raises(ValueError, match="too small"):
        Dealer(DECK[:3], seed=0)
