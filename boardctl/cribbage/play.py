"""The play (pegging) for 2-6 players under a :class:`~boardctl.cribbage.scoring.Scoring`
(docs/rules.md, "The play").

>>> state = PlayState(["7H 8S", "KC 5D"], dealer=1)
>>> [event.points for event in state.play("7H")]
[0]
>>> state.play("KC")[0].count
17
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from boardctl.cribbage.cards import Card, check_distinct, format_cards, parse_card, parse_cards
from boardctl.cribbage.scoring import ACC, Scoring
from boardctl.errors import PlayError

MAX_COUNT = 31
PAIR_POINTS = (0, 0, 2, 6, 12)
PAIR_NAMES = ("", "", "a pair", "three of a kind", "four of a kind")
MIN_PLAYERS, MAX_PLAYERS = 2, 6
LAST_CARD_POINTS = 1
GO_CARD_POINTS = 1


@dataclass(frozen=True, slots=True)
class PlayScore:
    """Points scored by the last card of a count, with the reasons and the count reached."""

    points: int
    reasons: tuple[str, ...]
    count: int


def score_play(cards_in_count: str | Iterable[str | Card], *, scoring: Scoring = ACC) -> PlayScore:
    """Points for the last of ``cards_in_count`` (laid since the last reset, in order); the point
    after a go is :class:`PlayState`'s.

        >>> score_play("7H 8S").reasons
        ('fifteen for 2',)
    """
    cards = parse_cards(cards_in_count)
    if not cards:
        raise PlayError("no card has been played in this count")
    return score_ranks([card.rank for card in cards], scoring.run_min)


def score_ranks(ranks: list[int], run_min: int = 3) -> PlayScore:
    """:func:`score_play` on ranks (1 = ace ... 13 = king), runs from ``run_min`` cards."""
    count = sum(rank if rank < 10 else 10 for rank in ranks)
    if count > MAX_COUNT:
        raise PlayError(f"the count would be {count}: it may not pass {MAX_COUNT}")
    points = 0
    reasons: list[str] = []
    if count in (15, MAX_COUNT):
        points += 2
        reasons.append("fifteen for 2" if count == 15 else "thirty-one for 2")
    last = ranks[-1]
    same = 1
    while same < len(ranks) and same < 4 and ranks[-1 - same] == last:
        same += 1
    if same >= 2:
        points += PAIR_POINTS[same]
        reasons.append(f"{PAIR_NAMES[same]} for {PAIR_POINTS[same]}")
    else:  # the longest run (of ``run_min`` or more) the last cards make
        for run in range(len(ranks), run_min - 1, -1):
            tail = ranks[-run:]
            if len(set(tail)) == run and max(tail) - min(tail) == run - 1:
                points += run
                reasons.append(f"a run of {run} for {run}")
                break
    return PlayScore(points, tuple(reasons), count)


@dataclass(frozen=True, slots=True)
class PlayEvent:
    """Something that happened in the play: ``kind`` ``"card"``, ``"go"`` or ``"last"`` by ``seat``;
    ``count`` after it (the ended count for ``"last"``); what ``seat`` pegs."""

    kind: str
    seat: int
    card: Card | None
    count: int
    points: int
    reasons: tuple[str, ...] = ()


class PlayState:
    """The state of the play for one deal: mutable, one method call per action."""

    def __init__(
        self,
        hands: Sequence[str | Iterable[str | Card]],
        *,
        dealer: int = 0,
        single_count: bool = False,
        scoring: Scoring = ACC,
    ) -> None:
        if not MIN_PLAYERS <= len(hands) <= MAX_PLAYERS:
            raise PlayError(f"the play needs {MIN_PLAYERS}-{MAX_PLAYERS} hands, got {len(hands)}")
        self.hands: list[list[Card]] = [parse_cards(hand) for hand in hands]
        check_distinct([card for hand in self.hands for card in hand])
        self.players = players = len(self.hands)
        if not 0 <= dealer < players:
            raise PlayError(f"dealer seat {dealer} is not one of the seats 0-{players - 1}")
        self.dealer = dealer
        self.single_count = single_count
        self.scoring = scoring
        self._go_point_given = False  # the last card laid pegged its go point (go_per_card)
        self.count = 0
        self.pile: list[Card] = []
        self.history: list[PlayEvent] = []
        self.points = [0] * players
        self.last_player: int | None = None
        self.said_go: set[int] = set()
        self.turn: int | None = None
        self._next_turn_from((dealer + 1) % players)
        self.done = self.turn is None

    def legal_plays(self, seat: int | None = None) -> list[Card]:
        """Cards ``seat`` (default: the player to move) may lay now without passing 31."""
        if self.done:
            return []
        who = self._seat(seat)
        if who in self.said_go:
            return []
        room = MAX_COUNT - self.count
        return [card for card in self.hands[who] if card.value <= room]

    @property
    def go_bonus(self) -> int:
        """Points any card laid now adds for the go (``go_per_card``; not for a card making 31)."""
        return GO_CARD_POINTS if self.scoring.go_per_card and self.said_go else 0

    @property
    def cards_left(self) -> int:
        return sum(len(hand) for hand in self.hands)

    def play(self, card: str | Card, seat: int | None = None) -> tuple[PlayEvent, ...]:
        """Lay ``card`` for ``seat`` (default: the player to move): its event and any ``"last"``;
        :class:`PlayError` (nothing changed) if the play is over, out of turn, not held, past 31."""
        laid = parse_card(card)
        who = self._require_turn(seat)
        hand = self.hands[who]
        if laid not in hand:
            raise PlayError(
                f"seat {who} does not hold {laid} (holds {format_cards(hand) or 'no cards'})"
            )
        if self.count + laid.value > MAX_COUNT:
            raise PlayError(
                f"{laid} would make the count {self.count + laid.value}: it may not pass 31"
                f" (the count is {self.count})"
            )
        hand.remove(laid)
        self.pile.append(laid)
        scored = score_ranks([c.rank for c in self.pile], self.scoring.run_min)
        self.count = scored.count
        self.last_player = who
        points, reasons = scored.points, scored.reasons
        self._go_point_given = bool(self.go_bonus) and self.count < MAX_COUNT
        if self._go_point_given:
            points += GO_CARD_POINTS
            reasons = (*reasons, f"go for {GO_CARD_POINTS}")
        event = self._record(PlayEvent("card", who, laid, self.count, points, reasons))
        return (event, *(self._end_count() if self.count == MAX_COUNT else self._advance(who)))

    def go(self, seat: int | None = None) -> tuple[PlayEvent, ...]:
        """``seat`` (default: the player to move) says go: the events it caused (:class:`PlayError`
        if that player can still lay a card)."""
        who = self._require_turn(seat)
        playable = self.legal_plays(who)
        if playable:
            raise PlayError(
                f"seat {who} cannot say go: {format_cards(playable)} fits"
                f" (the count is {self.count}); a player must play if they can"
            )
        self.said_go.add(who)
        return (self._record(PlayEvent("go", who, None, self.count, 0)), *self._advance(who))

    def _seat(self, seat: int | None) -> int:
        if seat is None:
            if self.turn is None:
                raise PlayError("the play is over: nobody is to play")
            return self.turn
        if not 0 <= seat < self.players:
            raise PlayError(f"seat {seat} is not one of the seats 0-{self.players - 1}")
        return seat

    def _require_turn(self, seat: int | None) -> int:
        if self.done or self.turn is None:
            raise PlayError("the play is over: start the show")
        who = self._seat(seat)
        if who != self.turn:
            raise PlayError(f"it is seat {self.turn}'s turn, not seat {who}'s")
        return who

    def _record(self, event: PlayEvent) -> PlayEvent:
        self.history.append(event)
        self.points[event.seat] += event.points
        return event

    def _next_turn_from(self, start: int) -> None:
        """Give the turn to the first seat from ``start`` clockwise still in the count."""
        seats = ((start + step) % self.players for step in range(self.players))
        self.turn = next((s for s in seats if self.hands[s] and s not in self.said_go), None)

    def _advance(self, after: int) -> list[PlayEvent]:
        self._next_turn_from((after + 1) % self.players)
        return self._end_count() if self.turn is None else []

    def _end_count(self) -> list[PlayEvent]:
        events: list[PlayEvent] = []
        last = self.last_player
        if last is not None and self.count < MAX_COUNT and not self._go_point_given:
            event = PlayEvent(
                "last", last, None, self.count, LAST_CARD_POINTS, ("last card for 1",)
            )
            events.append(self._record(event))
        self.count = 0
        self.pile = []
        self.said_go = set()
        self._go_point_given = False
        self.turn = None
        if not self.single_count and last is not None:
            self._next_turn_from((last + 1) % self.players)
        self.done = self.turn is None
        return events
