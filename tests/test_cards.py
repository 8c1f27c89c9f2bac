"""Cards: parsing every accepted spelling, clear errors, formatting round trips."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boardctl.cribbage.cards import DECK, Card, format_card, format_cards, parse_card, parse_cards
from boardctl.errors import BoardError, CardError


@pytest.mark.parametrize(
    ("text", "rank", "suit"),
    [
        ("5H", 5, 1),
        ("10d", 10, 2),
        ("TD", 10, 2),
        ("td", 10, 2),
        ("JS", 11, 0),
        ("A♠", 1, 0),
        ("q♥", 12, 1),
        ("K♣", 13, 3),
        ("2♦", 2, 2),
        ("ac", 1, 3),
        (" 9c ", 9, 3),
        ("A\u2660\ufe0f", 1, 0),
    ],
)
def test_parse_card_accepts_every_spelling(text: str, rank: int, suit: int) -> None:
    assert parse_card(text) == Card(rank, suit)


@pytest.mark.parametrize("text", ["1X", "1H", "11S", "5", "H", "", "5X", "ZZ", "10", "5HH", "0S"])
def test_bad_cards_name_the_token_and_what_is_allowed(text: str) -> None:
    with pytest.raises(CardError) as info:
        parse_card(text)
    message = str(info.value)
    assert repr(text.strip()) in message
    assert "rank A 2-10 J Q K or T" in message
    assert "suit S H D C or ♠♥♦♣" in message


def test_card_error_is_a_value_error_and_a_board_error() -> None:
    with pytest.raises(ValueError, match="'1X' is not a card"):
        parse_card("1X")
    with pytest.raises(BoardError):
        parse_card("1X")


def test_deck_has_52_distinct_cards_in_order() -> None:
    assert len(DECK) == 52
    assert len(set(DECK)) == 52
    assert [card.ordinal for card in DECK] == list(range(52))
    assert DECK[0] == parse_card("AS") and DECK[-1] == parse_card("KC")


def test_values_and_names() -> None:
    assert [card.value for card in parse_cards("AS 5H TD JC QS KH")] == [1, 5, 10, 10, 10, 10]
    assert parse_card("5h").name == "five of hearts"


def test_parse_cards_splits_text_and_rejects_duplicates() -> None:
    assert parse_cards("5H, 10d  JS;A♠") == [Card(5, 1), Card(10, 2), Card(11, 0), Card(1, 0)]
    assert parse_cards(["5H", Card(6, 2)]) == [Card(5, 1), Card(6, 2)]
    with pytest.raises(CardError, match="duplicate card TD"):
        parse_cards("TD 5H 10d")
    assert parse_cards("5H 5H", unique=False) == [Card(5, 1), Card(5, 1)]


def test_format_card_short_and_symbols() -> None:
    assert format_card(parse_card("10d")) == "TD"
    assert format_card(parse_card("q♥"), symbols=True) == "Q♥"
    assert str(parse_card("a♠")) == "AS"
    assert format_cards(parse_cards("5H JS")) == "5H JS"


@given(st.sampled_from(DECK), st.booleans(), st.booleans())
def test_parse_format_round_trip(card: Card, symbols: bool, lower: bool) -> None:
    text = format_card(card, symbols=symbols)
    assert parse_card(text.lower() if lower else text) == card


@given(st.lists(st.sampled_from(DECK), unique=True, max_size=10))
def test_parse_cards_round_trip(cards: list[Card]) -> None:
    assert parse_cards(format_cards(cards)) == cards
