"""The count as players say it: "fifteen two, fifteen four, and a pair is six".

Fifteens are called one by one with the running total; pairs are grouped by
rank ("a pair", "three of a kind", "four of a kind"), runs by length ("two
runs of three"); then the flush and "one for his nobs", each followed by the
running total.
"""

from __future__ import annotations

from collections import Counter

from boardctl.cribbage.hand import HandScore

_ONES = [
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
]
_GROUP = ("", "", "a pair", "three of a kind", "four of a kind")
_HOW_MANY = ("", "a", "two", "three", "four", "five", "six", "seven", "eight")


def number_words(n: int) -> str:
    """``29`` -> ``twenty-nine`` (0-99)."""
    if n < 20:
        return _ONES[n]
    tens = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")[
        n // 10 - 2
    ]
    return tens if n % 10 == 0 else f"{tens}-{_ONES[n % 10]}"


def say_count(score: HandScore) -> str:
    """The whole count in words, ending with the total."""
    phrases: list[str] = []
    running = 0
    for item in score.items:
        if item.kind == "fifteen":
            running += item.points
            phrases.append(f"fifteen {number_words(running)}")
    pair_ranks = Counter(item.cards[0].rank for item in score.items if item.kind == "pair")
    for rank in sorted(pair_ranks):
        pairs = pair_ranks[rank]
        cards = {1: 2, 3: 3, 6: 4}[pairs]
        running += 2 * pairs
        phrases.append(f"{_GROUP[cards]} is {number_words(running)}")
    runs = [item for item in score.items if item.kind == "run"]
    if runs:
        length = len(runs[0].cards)
        running += score.runs
        many = _HOW_MANY[len(runs)]
        noun = "run" if len(runs) == 1 else "runs"
        phrases.append(f"{many} {noun} of {number_words(length)} is {number_words(running)}")
    if score.flush:
        running += score.flush
        phrases.append(f"a flush is {number_words(running)}")
    if score.nobs:
        running += score.nobs
        phrases.append(f"one for his nobs is {number_words(running)}")
    if not phrases:
        return "nothing: zero"
    if len(phrases) == 1 or phrases[-1].startswith("fifteen"):
        return ", ".join(phrases)
    return ", ".join(phrases[:-1]) + ", and " + phrases[-1]
