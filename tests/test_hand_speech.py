"""The count in words, as players say it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boardctl.cribbage.cards import DECK, Card
from boardctl.cribbage.hand import score_hand
from boardctl.cribbage.speech import number_words, say_count


@pytest.mark.parametrize(
    ("hand", "starter", "said"),
    [
        ("5H 5C 7S 8D", "2D", "fifteen two, fifteen four, fifteen six, and a pair is eight"),
        ("7H 8C 2D 3S", "4C", "fifteen two, fifteen four, and a run of three is seven"),
        (
            "3H 3C 4H 4S",
            "5D",
            "fifteen two, fifteen four, and a double double run is twenty",
        ),
        ("2H 2D 3C 3S", "4H", "a double double run is sixteen"),
        ("3H 4D 5C 5S", "9H", "a double run of three is eight"),
        (
            "3H 3D 3C 4S",
            "5H",
            "fifteen two, fifteen four, fifteen six, and a triple run of three is twenty-one",
        ),
        (
            "3H 4D 5C 6S",
            "6H",
            "fifteen two, fifteen four, fifteen six, and a double run of four is sixteen",
        ),
        (
            "9H 9D 2C 3S",
            "4H",
            "fifteen two, fifteen four, a pair is six, and a run of three is nine",
        ),
        ("9H 9D KC KS", "4H", "a pair is two, and another pair is four"),
        ("9H 9D KC KS", "9S", "three of a kind is six, and a pair is eight"),
        ("2H 4H 6H 8H", "KH", "a flush is five"),
        ("TD KS AC JH", "8H", "one for his nobs is one"),
        ("2H 4D 6S 8C", "TH", "nothing: zero"),
        (
            "5H 5C 5S JD",
            "5D",
            "fifteen two, fifteen four, fifteen six, fifteen eight, fifteen ten,"
            " fifteen twelve, fifteen fourteen, fifteen sixteen, four of a kind is twenty-eight,"
            " and one for his nobs is twenty-nine",
        ),
        ("7H 7C 7S", "AD", "fifteen two, fifteen four, fifteen six, and three of a kind is twelve"),
    ],
)
def test_say_count(hand: str, starter: str, said: str) -> None:
    score = score_hand(hand, starter)
    assert say_count(score) == said
    assert said.endswith(number_words(score.total)) or score.total == 0


def test_number_words() -> None:
    assert [number_words(n) for n in (0, 15, 20, 29, 31)] == [
        "zero",
        "fifteen",
        "twenty",
        "twenty-nine",
        "thirty-one",
    ]


@given(st.lists(st.sampled_from(DECK), min_size=4, max_size=5, unique=True), st.booleans())
def test_every_count_climbs_to_the_total(cards: list[Card], crib: bool) -> None:
    """Each phrase ends with a larger running total, and the last one is the hand's total."""
    score = score_hand(cards[:-1], cards[-1], crib=crib)
    said = say_count(score)
    if score.total == 0:
        assert said == "nothing: zero"
        return
    words = {number_words(n): n for n in range(30)}
    totals = [
        words[phrase.split(" is ")[-1] if " is " in phrase else phrase.split()[-1]]
        for phrase in said.replace(", and ", ", ").split(", ")
    ]
    assert totals == sorted(set(totals))
    assert totals[-1] == score.total


def test_runs_of_two_are_said_block_by_block() -> None:
    from boardctl.cribbage.scoring import Scoring
    from boardctl.cribbage.speech import say_count

    czech = Scoring(run_min=2, crib_four_flush=True)
    said = say_count(score_hand("3H 4C 8S 9D", "KD", scoring=czech))
    assert said == "fifteen two, a run of two is four, and another run of two is six"
    said = say_count(score_hand("7H 7C 8S 8D", "7D", scoring=czech))
    assert said.endswith(
        "three of a kind is eighteen, a pair is twenty, and six runs of two is thirty-two"
    )
    said = say_count(score_hand("2H 3C 5S 6D", "7D", scoring=czech))
    assert said.endswith("a run of two is six, and a run of three is nine")
