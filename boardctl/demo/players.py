"""How the computer players play: discards on the rules engine's advice, pegging by
heuristics, seeing only what a player sees; deterministic, so a seed replays a game."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import KW_ONLY, dataclass

from boardctl.cribbage.cards import Card
from boardctl.cribbage.play import score_play
from boardctl.cribbage.scoring import ACC, Scoring
from boardctl.errors import DemoError


@dataclass(frozen=True, slots=True)
class PlayContext:
    """What a player knows when it is its turn to lay a card."""

    held: Sequence[Card]  # cards still in hand
    legal: Sequence[Card]  # the cards it may lay now (never empty)
    pile: Sequence[Card]  # cards laid since the count last reset, in order
    count: int
    my_score: int
    best_other_score: int  # the leading opponent's score
    target: int
    go_bonus: int = 0  # points any card laid now adds for the go (a point per card after a go)


# Weights of the pegging heuristic, in points.
DANGER_COUNTS = {5: 1.5, 21: 1.5}  # a ten-card makes 15 or 31 for the next player
PAIR_ROYAL_RISK = 2.5  # pairing lets the next player lay a third for six
RUN_RISK = 0.8  # two cards a rank or two apart invite a run of three
SAFE_LEAD_BONUS = 1.0  # a lead under five cannot be answered with fifteen
FIVE_LEAD_PENALTY = 1.5  # ten-cards are common: a led five is often fifteen two


@dataclass(slots=True)
class Player:
    """A computer player with a deterministic strategy on the rules engine's scores under
    ``scoring`` (``discard_advice``: throws, best first)."""

    name: str
    _: KW_ONLY
    discard_advice: Callable[[Sequence[Card], bool, int], Sequence[Sequence[Card]]]
    scoring: Scoring = ACC

    def discard(self, cards: Sequence[Card], *, own_crib: bool, count: int) -> tuple[Card, ...]:
        """The ``count`` cards to throw to the crib: the best the rules engine advises."""
        for option in self.discard_advice(cards, own_crib, count):
            if len(option) == count:
                return tuple(option)
        raise DemoError(f"no discard advice for {len(cards)} cards throwing {count}")

    def play(self, context: PlayContext) -> Card:
        """The card to lay: points now, then safety, then keep low cards for later."""
        if not context.legal:
            raise DemoError("no legal card to play (the player should say go)")
        return max(context.legal, key=lambda card: (self.rate(card, context), -card.ordinal))

    def rate(self, card: Card, context: PlayContext) -> float:
        """How good laying ``card`` is now, in points (higher is better)."""
        points = score_play([*context.pile, card], scoring=self.scoring).points
        count = context.count + card.value
        if count < 31:
            points += context.go_bonus
        # Points that win the game are worth everything.
        if context.my_score + points >= context.target:
            return 1000.0 + points
        value = float(points)
        behind = context.my_score < context.best_other_score
        if not context.pile:
            # Leading: a card under five is safe; a five invites fifteen two.
            if card.rank < 5:
                value += SAFE_LEAD_BONUS
            elif card.rank == 5:
                value -= FIVE_LEAD_PENALTY
            # Lead from a pair: a reply in kind is met with pair royal.
            if sum(1 for c in context.held if c.rank == card.rank) > 1:
                value += 0.5
        if count < 31:
            value -= DANGER_COUNTS.get(count, 0.0)
            previous = context.pile[-1] if context.pile else None
            if previous is not None and previous.rank == card.rank:
                # Pairing gives the next player a chance at pair royal (six).
                value -= PAIR_ROYAL_RISK if behind else PAIR_ROYAL_RISK / 2
            elif previous is not None and 0 < abs(previous.rank - card.rank) <= 2 and not points:
                value -= RUN_RISK
        # All else equal, lay high cards early and keep low ones to squeeze in for a go.
        value += card.value / 100.0
        return value
