"""The count as players say it: "fifteen two, fifteen four, and a pair is six".

Fifteens are called one by one with the running total; pairs are grouped by
rank ("a pair", "another pair", "three of a kind", "four of a kind"); runs
that share a pair or three of a kind are said as one, the way players say
them ("a double run of three is eight", "a triple run is fifteen", "a double
double run is sixteen"); then the flush and "one for his nobs", each followed
by the running total.
"""

from __future__ import annotations

from collections import Counter

from boardctl.cribbage.hand import HandScore
from boardctl.cribbage.play import PAIR_NAMES

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
    runs = [item for item in score.items if item.kind == "run"]
    run_ranks = {card.rank for item in runs for card in item.cards}
    pair_ranks = Counter(item.cards[0].rank for item in score.items if item.kind == "pair")
    said_a_pair = False
    for rank in sorted(pair_ranks):
        if rank in run_ranks:
            continue  # said with the runs: "a double run"
        pairs = pair_ranks[rank]
        cards = {1: 2, 3: 3, 6: 4}[pairs]
        running += 2 * pairs
        group = "another pair" if cards == 2 and said_a_pair else PAIR_NAMES[cards]
        said_a_pair = said_a_pair or cards == 2
        phrases.append(f"{group} is {number_words(running)}")
    blocks: dict[int, list[int]] = {}  # lowest rank of a block of runs -> its runs' lengths
    for item in runs:
        blocks.setdefault(min(card.rank for card in item.cards), []).append(len(item.cards))
    said_runs: set[str] = set()
    for low, lengths in sorted(blocks.items()):
        ranks = range(low, low + lengths[0])
        running += sum(lengths) + sum(2 * pair_ranks[rank] for rank in ranks)
        phrase = _runs_phrase(len(lengths), lengths[0])
        if phrase in said_runs and phrase.startswith("a run"):  # runs of two: 3 4 8 9
            phrase = "another" + phrase[1:]
        said_runs.add(phrase)
        phrases.append(f"{phrase} is {number_words(running)}")
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


def _runs_phrase(runs: int, length: int) -> str:
    """``(2, 3)`` -> ``a double run of three``: the runs with the pairs inside them."""
    if runs == 1:
        return f"a run of {number_words(length)}"
    if runs == 4 and length >= 3:
        return "a double double run"
    name = {2: "double", 3: "triple", 4: "quadruple"}.get(runs)
    if name is None:  # runs of two only: 7 7 7 8 8 is six runs of two
        return f"{number_words(runs)} runs of {number_words(length)}"
    return f"a {name} run of {number_words(length)}"
