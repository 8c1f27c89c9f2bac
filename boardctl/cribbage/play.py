"""Points for one card laid in the play (pegging), within one count.

The last card of a sequence scores: 2 for making the count 15, 2 for making
31; 2/6/12 for a pair, three or four of a kind with the cards just before
it; one per card for the longest run (3 or more distinct consecutive ranks,
in any order) that it completes with the cards just before it. A pair and a
run can never both score on one card. "Go" and "last card" belong to the
state of the play (:mod:`boardctl.cribbage.pegging`), not to this function.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from boardctl.cribbage.cards import Card, parse_cards
from boardctl.errors import PlayError

MAX_COUNT = 31
PAIR_POINTS = (0, 0, 2, 6, 12)
PAIR_NAMES = ("", "", "a pair", "three of a kind", "four of a kind")


@dataclass(frozen=True, slots=True)
class PlayScore:
    """Points scored by the last card of a count, with the reasons and the count reached."""

    points: int
    reasons: tuple[str, ...]
    count: int


def score_play(cards_in_count: str | Iterable[str | Card]) -> PlayScore:
    """Points for the last of ``cards_in_count`` (the cards laid since the last reset, in order).

    >>> score_play("7H 8S").reasons
    ('fifteen for 2',)
    """
    cards = parse_cards(cards_in_count)
    if not cards:
        raise PlayError("no card has been played in this count")
    return score_ranks([card.rank for card in cards])


def score_ranks(ranks: list[int]) -> PlayScore:
    """:func:`score_play` on ranks only (1 = ace ... 13 = king); suits never matter in the play."""
    count = sum(rank if rank < 10 else 10 for rank in ranks)
    if count > MAX_COUNT:
        raise PlayError(f"the count would be {count}: it may not pass {MAX_COUNT}")
    points = 0
    reasons: list[str] = []
    if count == 15:
        points += 2
        reasons.append("fifteen for 2")
    elif count == MAX_COUNT:
        points += 2
        reasons.append("thirty-one for 2")
    last = ranks[-1]
    same = 1
    while same < len(ranks) and same < 4 and ranks[-1 - same] == last:
        same += 1
    if same >= 2:
        points += PAIR_POINTS[same]
        reasons.append(f"{PAIR_NAMES[same]} for {PAIR_POINTS[same]}")
    else:
        run = _run_length(ranks)
        if run:
            points += run
            reasons.append(f"a run of {run} for {run}")
    return PlayScore(points, tuple(reasons), count)


def _run_length(ranks: list[int]) -> int:
    """Length of the longest run (>= 3) formed by the last cards, or 0."""
    best = 0
    for length in range(3, len(ranks) + 1):
        tail = ranks[-length:]
        if len(set(tail)) == length and max(tail) - min(tail) == length - 1:
            best = length
    return best
