"""Which counts are possible: the validation limits the state machine asks for (tests may pass
any object with the two methods of :class:`Limits`)."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Protocol

from boardctl.cribbage.scoring import ACC, Scoring


class Limits(Protocol):
    """What the state machine needs to know to validate an entry."""

    def hand_scores(self, cards: int, *, crib: bool = False) -> frozenset[int]:
        """Every possible count of a hand (or crib) of ``cards`` cards plus the starter."""

    def max_play_points(self) -> int:
        """The largest score of one card in the play (go and last card excluded)."""


class RulesLimits:
    """Limits derived from the cribbage scorer under ``scoring`` (on first use, then cached)."""

    def __init__(self, scoring: Scoring = ACC) -> None:
        self.scoring = scoring
        self._hands: dict[tuple[int, bool], frozenset[int]] = {}
        self._max_play: int | None = None

    def hand_scores(self, cards: int, *, crib: bool = False) -> frozenset[int]:
        """Possible hand or crib counts (shipped table, else ``possible_scores``)."""
        key = (cards, crib)
        if key not in self._hands:
            from boardctl.cribbage.derived import HAND_SCORES

            found = HAND_SCORES.get((*self.scoring.show_key, cards, crib))
            if found is None:
                from boardctl.cribbage.validation import possible_scores

                found = possible_scores(cards, crib=crib, scoring=self.scoring)
            self._hands[key] = found
        return self._hands[key]

    def max_play_points(self) -> int:
        """The largest single-card score in the play (shipped table, else the search)."""
        if self._max_play is None:
            from boardctl.cribbage.derived import MAX_PLAY

            found = MAX_PLAY.get(self.scoring.run_min)
            if found is None:
                from boardctl.cribbage.validation import max_play_points

                found = max_play_points(self.scoring)
            self._max_play = found
        return self._max_play


@cache
def _shared(scoring: Scoring) -> RulesLimits:  # one RulesLimits per scoring, shared
    return RulesLimits(scoring)


DEFAULT_LIMITS: Limits = _shared(ACC)


def limits_for(limits: Limits, house_rules: Iterable[str]) -> Limits:
    """The limits under ``house_rules`` (a test's own :class:`Limits` is kept as given)."""
    if not isinstance(limits, RulesLimits):
        return limits
    from boardctl.cribbage.rules import scoring_for

    scoring = scoring_for(tuple(house_rules))
    return limits if limits.scoring == scoring else _shared(scoring)


def warm_up(limits: Limits = DEFAULT_LIMITS) -> None:
    """Look every limit up now (derives only a combination the tables lack)."""
    limits.max_play_points()
    for cards in (3, 4):
        for crib in (False, True):
            limits.hand_scores(cards, crib=crib)
