"""What the scorers need to know of the rules in force: three switches, ACC by default.

A :class:`Scoring` is the part of a rule set (:mod:`boardctl.cribbage.rules`)
that changes points: the hand and crib scorers, the play, the census, the
possible counts and discard advice all take one (``scoring=``) and default to
:data:`ACC` (the American Cribbage Congress rules, today's behaviour).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Scoring:
    """The scoring switches of a rule set.

    ``run_min``: the shortest run that scores, 3 (ACC) or 2 (runs of two, in
    the play and the show: 2 for two cards, one more per further card).
    ``crib_four_flush``: a crib whose four cards share a suit scores 4 even
    when the starter differs (no crib exception to the flush rule).
    ``go_per_card``: after a go, every card the others can still lay pegs 1
    (a card making 31 pegs 2 for the 31 instead); that point is also the
    last-card point of the count.
    """

    run_min: int = 3
    crib_four_flush: bool = False
    go_per_card: bool = False

    @property
    def show_key(self) -> tuple[int, bool]:
        """The switches the show (hand and crib counts) depends on."""
        return (self.run_min, self.crib_four_flush)


ACC = Scoring()


def scores_in(ranges: str) -> frozenset[int]:
    """The scores of a range list as :mod:`boardctl.cribbage.derived` writes them:
    ``"0-2 5"`` -> ``{0, 1, 2, 5}``."""
    out: set[int] = set()
    for part in ranges.split():
        low, _, high = part.partition("-")
        out.update(range(int(low), int(high or low) + 1))
    return frozenset(out)
