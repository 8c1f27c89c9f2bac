"""The count in words, as players say it."""

from __future__ import annotations

import pytest

from boardctl.cribbage import score_hand
from boardctl.cribbage.speech import number_words, say_count


@pytest.mark.parametrize(
    ("hand", "starter", "said"),
    [
        ("5H 5C 7S 8D", "2D", "fifteen two, fifteen four, fifteen six, and a pair is eight"),
        ("7H 8C 2D 3S", "4C", "fifteen two, fifteen four, and a run of three is seven"),
        (
            "3H 3C 4H 4S",
            "5D",
            "fifteen two, fifteen four, a pair is six, a pair is eight,"
            " and four runs of three is twenty",
        ),
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
