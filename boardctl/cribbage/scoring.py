"""What the scorers need to know of the rules in force: three switches, ACC by default."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Scoring:
    """The scoring switches of a rule set (docs/rules.md, "Rule sets and house rules").

    ``run_min``: the shortest run that scores, 3 or 2; ``crib_four_flush``: a four-card crib flush
    scores; ``go_per_card``: after a go each further card pegs 1 (also the last card's).
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
