"""Discard advice: exact expectations checked against brute force, ranking and errors."""

from __future__ import annotations

import re
from itertools import combinations

import pytest

from boardctl.cribbage.cards import DECK, Card, parse_cards
from boardctl.cribbage.discard import crib_mean, hand_mean, rank_discards
from boardctl.cribbage.fast import hand_total
from boardctl.cribbage.hand import score_hand
from boardctl.errors import CardError
from tests.conftest import scoring_of


def _brute_crib(discard: tuple[Card, ...], unseen: list[Card]) -> float:
    total, deals = 0, 0
    for opponent in combinations(unseen, 4 - len(discard)):
        for starter in unseen:
            if starter not in opponent:
                total += hand_total([*discard, *opponent], starter, True)
                deals += 1
    return total / deals


@pytest.mark.parametrize(
    ("held", "discard"),
    [
        ("5H JH 6C 7D KS 2C", "5H JH"),  # a jack: nobs for the discard's own jack
        ("JH 3H 5H 9C QD AS", "3H 5H"),  # suited: crib flush possible
        ("4H 6H 5C", "4H 6H"),  # five-card game: 47 unseen
        ("5H JH 6C 7D KS", "JH"),  # one card to the crib: three unseen cards join it
        ("5H JH 6C 7D KS", "6C"),
    ],
)
def test_crib_mean_equals_scoring_every_crib(held: str, discard: str) -> None:
    cards = parse_cards(held)
    unseen = [card for card in DECK if card not in cards]
    laid = tuple(parse_cards(discard))
    assert crib_mean(laid, unseen) == pytest.approx(_brute_crib(laid, unseen), abs=1e-9)


def test_hand_mean_equals_scoring_every_starter() -> None:
    cards = parse_cards("5H JH 6C 7D KS 2C")
    unseen = [card for card in DECK if card not in cards]
    keep = tuple(parse_cards("5H JH 6C 7D"))
    brute = sum(score_hand(keep, s).total for s in unseen) / 46
    assert hand_mean(keep, unseen) == pytest.approx(brute, abs=1e-12)


def test_rank_discards_lists_all_fifteen_best_first() -> None:
    options = rank_discards("5H JH 6C 7D KS 2C", dealer=True)
    assert len(options) == 15
    assert {frozenset(o.discard) for o in options} == {
        frozenset(p) for p in combinations(parse_cards("5H JH 6C 7D KS 2C"), 2)
    }
    nets = [o.net for o in options]
    assert nets == sorted(nets, reverse=True)
    assert all(o.net == pytest.approx(o.hand + o.crib) for o in options)
    pone = rank_discards("5H JH 6C 7D KS 2C", dealer=False)
    assert all(o.net == pytest.approx(o.hand - o.crib) for o in pone)
    # The dealer keeps a crib full of fives; the non-dealer does not throw a five away.
    assert not any(c.rank == 5 for c in pone[0].discard)


def test_five_card_game_keeps_three() -> None:
    options = rank_discards("5H JH 6C 7D KS", dealer=False)
    assert len(options) == 10
    assert all(len(o.keep) == 3 and len(o.discard) == 2 for o in options)


def test_obvious_keep() -> None:
    best = rank_discards("5H 5C 5S JD QC KH", dealer=False)[0]
    assert set(best.keep) == set(parse_cards("5H 5C 5S JD"))


def test_one_card_discards_keep_four() -> None:
    options = rank_discards("5H JH 6C 7D KS", dealer=True, keep=4)
    assert len(options) == 5
    assert all(len(o.keep) == 4 and len(o.discard) == 1 for o in options)
    assert [o.net for o in options] == sorted((o.net for o in options), reverse=True)


@pytest.mark.parametrize("text", ["5H JH 6C 7D", "5H JH 6C 7D KS 2C 3C", "5H 5H 6C 7D KS 2C"])
def test_wrong_cards_are_rejected(text: str) -> None:
    with pytest.raises(CardError):
        rank_discards(text, dealer=True)


def test_keep_must_leave_one_or_two_for_the_crib() -> None:
    with pytest.raises(CardError, match="keep 4"):
        rank_discards("5H JH 6C 7D", dealer=True, keep=4)
    with pytest.raises(CardError, match=r"keeps 4 cards .* not 2"):
        rank_discards("5H JH 6C 7D", dealer=True, keep=2)


@pytest.mark.parametrize(
    ("cards", "keep", "message"),
    [
        ("5H JH 6C 7D", None, "give the 6 cards dealt (or 5 in the five-card game)"),
        ("5H JH 6C 7D KS 2C 3C", None, "got 7 cards"),
        ("5H JH 6C 7D KS 2C", 3, "to keep 3 cards, give 5 (two to the crib) or 4 (one"),
        ("5H JH 6C 7D", 4, "to keep 4 cards, give 6 (two to the crib) or 5"),
        ("5H JH 6C 7D KS 2C", 2, "a hand keeps 4 cards (3 in the five-card game), not 2"),
    ],
)
def test_wrong_card_counts_say_what_to_give(cards: str, keep: int | None, message: str) -> None:
    with pytest.raises(CardError, match=re.escape(message)):
        rank_discards(cards, dealer=True, keep=keep)


@pytest.mark.parametrize(
    ("held", "discard"),
    [("JH 3H 4H 9C QD AS", "3H 4H"), ("5H JH 6C 7D KS", "6C"), ("4H 6H 5C", "4H 6H")],
)
def test_crib_mean_under_czech_rules_equals_scoring_every_crib(held: str, discard: str) -> None:
    czech = scoring_of("czech")
    cards = parse_cards(held)
    unseen = [card for card in DECK if card not in cards]
    laid = tuple(parse_cards(discard))
    total, deals = 0, 0
    for opponent in combinations(unseen, 4 - len(laid)):
        for starter in unseen:
            if starter not in opponent:
                total += hand_total([*laid, *opponent], starter, True, czech)
                deals += 1
    assert crib_mean(laid, unseen, czech) == pytest.approx(total / deals, abs=1e-9)
    assert crib_mean(laid, unseen, czech) > crib_mean(laid, unseen)  # runs of two, crib flushes


def test_advice_follows_the_rules() -> None:
    czech = scoring_of("czech")
    cards = parse_cards("5H JH 6C 7D KS 2C")
    unseen = [card for card in DECK if card not in cards]
    keep = tuple(parse_cards("5H JH 6C 7D"))
    brute = sum(score_hand(keep, s, scoring=czech).total for s in unseen) / 46
    assert hand_mean(keep, unseen, czech) == pytest.approx(brute, abs=1e-12)
    best = rank_discards(cards, dealer=True, scoring=czech)[0]
    assert best.hand == pytest.approx(hand_mean(best.keep, unseen, czech))
