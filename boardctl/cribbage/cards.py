"""Playing cards: parse (any case) and format ``5H``, ``10d``, ``TD``, ``JS``, ``A♠``, ``q♥``;
the deck (docs/rules.md, "Cards")."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from boardctl.errors import CardError

JACK = 11

RANK_LETTERS = "A23456789TJQK"
SUIT_LETTERS = "SHDC"
SUIT_SYMBOLS = "♠♥♦♣"
#: Numbers in words, 0-19: the ranks two to ten and the spoken count (speech.py) use them.
NUMBER_WORDS = (
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
)
RANK_NAMES = ("ace", *NUMBER_WORDS[2:11], "jack", "queen", "king")
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")

ALLOWED = "rank A 2-10 J Q K or T; suit S H D C or ♠♥♦♣"

_RANK_BY_TEXT = {letter: i + 1 for i, letter in enumerate(RANK_LETTERS)} | {"10": 10}
# Letters, symbols, and the white (outline) symbols some keyboards and fonts produce (S H D C).
_SUIT_BY_TEXT = {text: i % 4 for i, text in enumerate(SUIT_LETTERS + SUIT_SYMBOLS + "♤♡♢♧")}
_SEPARATORS = re.compile(r"[\s,;]+")


class Card(NamedTuple):
    """One playing card: ``rank`` 1-13 (ace low, king 13), ``suit`` 0-3 (S H D C)."""

    rank: int
    suit: int

    @property
    def value(self) -> int:
        """Counting value: ace 1, two to ten at face value, court cards 10."""
        return self.rank if self.rank < 10 else 10

    @property
    def ordinal(self) -> int:
        """Position 0-51 in :data:`DECK` (ranks in order, suits S H D C within a rank)."""
        return (self.rank - 1) * 4 + self.suit

    @property
    def name(self) -> str:
        """Long name, e.g. ``five of hearts``."""
        return f"{RANK_NAMES[self.rank - 1]} of {SUIT_NAMES[self.suit]}"

    def __str__(self) -> str:
        return RANK_LETTERS[self.rank - 1] + SUIT_LETTERS[self.suit]


DECK: tuple[Card, ...] = tuple(Card(rank, suit) for rank in range(1, 14) for suit in range(4))


def format_card(card: Card, *, symbols: bool = False) -> str:
    """Short text of a card: ``5H``, ``TD``; with ``symbols=True``: ``5♥``, ``T♦``."""
    suits = SUIT_SYMBOLS if symbols else SUIT_LETTERS
    return RANK_LETTERS[card.rank - 1] + suits[card.suit]


def format_cards(cards: Iterable[Card], *, symbols: bool = False) -> str:
    return " ".join(format_card(card, symbols=symbols) for card in cards)


def parse_card(text: str | Card) -> Card:
    """Parse one card such as ``5H``, ``10d``, ``TD``, ``A♠`` or ``q♥`` (a Card passes through);
    :class:`~boardctl.errors.CardError` names the bad token."""
    if isinstance(text, Card):
        return text
    token = text.strip()
    upper = token.replace("\ufe0f", "").upper()  # drop the emoji variation selector
    rank = _RANK_BY_TEXT.get(upper[:-1])
    suit = _SUIT_BY_TEXT.get(upper[-1:])
    if rank is not None and suit is not None:
        return Card(rank, suit)
    raise CardError(f"{token!r} is not a card ({ALLOWED})")


def parse_cards(cards: str | Iterable[str | Card], *, unique: bool = True) -> list[Card]:
    """Parse cards from text (``"5H 5C, JD"``) or tokens; a duplicate is refused if ``unique``."""
    tokens: Iterable[str | Card]
    tokens = [t for t in _SEPARATORS.split(cards) if t] if isinstance(cards, str) else cards
    parsed = [parse_card(token) for token in tokens]
    if unique:
        check_distinct(parsed)
    return parsed


def check_distinct(cards: Sequence[Card]) -> None:
    """Raise :class:`CardError` if a card appears twice."""
    if len(set(cards)) != len(cards):
        card = next(card for i, card in enumerate(cards) if card in cards[:i])
        raise CardError(f"duplicate card {card}: each card can appear only once")
