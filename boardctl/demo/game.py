"""The demo driver: computer players play a whole game through the scorekeeping engine, every point
sent as the buttons' command, until the engine has a winner (docs/demo.md)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING

from boardctl.cribbage.awards import opening_points
from boardctl.cribbage.cards import DECK, Card
from boardctl.cribbage.discard import rank_discards
from boardctl.cribbage.hand import score_hand
from boardctl.cribbage.play import PlayEvent, PlayState
from boardctl.cribbage.rules import get_rule_set, scoring_for
from boardctl.cribbage.scoring import ACC, Scoring
from boardctl.cribbage.speech import say_count
from boardctl.cribbage.variants import get_variant
from boardctl.demo import log
from boardctl.demo.dealer import Dealer
from boardctl.demo.players import PlayContext, Player
from boardctl.errors import BoardError
from boardctl.game.commands import Command, Cut, NewGame, Next, Peg
from boardctl.game.setup import track_names_of

if TYPE_CHECKING:
    from boardctl.demo.display import Table
    from boardctl.game.keeper import Scorekeeper
    from boardctl.game.state import GameState

NAMES = ("Alice", "Bob", "Carol", "Dave", "Erin", "Frank")

# Pauses after each kind of step, in beats (see display.BEAT).
BEATS = {"title": 2.0, "deal": 1.5, "discard": 1.0, "starter": 1.5, "card": 1.0,
         "go": 0.5, "count": 2.5, "end": 0.0}  # fmt: skip


class GameOver(Exception):
    """Raised inside the driver the moment the engine declares a winner."""


@dataclass
class DemoResult:
    """How a demo game ended, with the whole play-by-play."""

    seed: int
    variant: str
    lines: list[str] = field(default_factory=list)
    winner: int | None = None  # track
    scores: tuple[int, ...] = ()
    game_points: int = 0
    rules: str = "acc"
    lines_failed: int = 0
    deals: int = 0


def discard_advice(
    cards: Sequence[Card], own_crib: bool, count: int, scoring: Scoring = ACC
) -> list[tuple[Card, ...]]:
    """The rules engine's ways to throw ``count`` cards (``own_crib``: ours), best first."""
    options = rank_discards(cards, dealer=own_crib, keep=len(cards) - count, scoring=scoring)
    return [tuple(option.discard) for option in options]


class DemoGame:
    """One demo game on ``keeper`` (default: in memory), shown on ``table``: :meth:`play` it."""

    def __init__(
        self,
        *,
        seed: int,
        variant: str = "six-card",
        names: Sequence[str] | None = None,
        keeper: Scorekeeper | None = None,
        table: Table | None = None,
        style: log.Style | None = None,
        rules: str = "acc",
    ) -> None:
        self.variant = get_variant(variant)
        self.rules = get_rule_set(rules)
        self.scoring = scoring_for(self.rules.house_rules)
        players = self.variant.players
        chosen = list(names or ())[:players]
        chosen += [n for n in NAMES if n not in chosen][: players - len(chosen)]
        if len(set(chosen)) != len(chosen):
            raise BoardError(f"player names must differ: {', '.join(chosen)}")
        self.names = tuple(chosen)
        self.seed = seed
        self.dealer = Dealer(DECK, seed=seed)
        self.style = style or log.Style()
        self.table = table
        if keeper is None:
            from boardctl.game.keeper import Scorekeeper

            keeper = Scorekeeper.memory()
        self.keeper = keeper
        advice = partial(discard_advice, scoring=self.scoring)
        self.players = [
            Player(name, discard_advice=advice, scoring=self.scoring) for name in self.names
        ]
        self.track_names = track_names_of(self.names, self.variant, ())  # partners' joined
        self.result = DemoResult(seed=seed, variant=self.variant.name, rules=self.rules.name)

    def say(self, text: str, beats: float = 0.0) -> None:
        self.result.lines.append(text)
        if self.table is not None:
            self.table.say(text)
            self.table.pause(beats)

    def cards(self, cards: Sequence[Card]) -> str:
        return " ".join(map(self.style.card, cards))

    def apply(self, command: Command) -> None:
        """Send one command to the engine and show the new board."""
        self.keeper.apply(command)
        if self.table is not None:
            self.table.moved(self.keeper.view())

    @property
    def state(self) -> GameState:
        return self.keeper.state

    def front(self, track: int) -> int:
        return self.state.tracks[track].front

    def peg(self, seat: int, points: int, kind: str, text: str, beats: float) -> None:
        """Peg ``points`` for ``seat``'s track, logged with a marker (:class:`GameOver`: it won)."""
        track = self.variant.team_of(seat)
        self.apply(Peg(track, points, kind))
        if points:
            text = log.scored(text, self.track_names[track], points, self.front(track), self.style)
        self.say(text, beats)
        if self.state.winner is not None:
            raise GameOver

    def play(self) -> DemoResult:
        variant = self.variant
        self.apply(
            NewGame(
                variant=variant.name,
                target=variant.target,
                mode="guided",
                preset=self.rules.preset,
                rules=self.rules.name,
                match=0,
                names=tuple(self.track_names),
            )
        )
        opponents = " v ".join(self.track_names)
        self.say(f"{variant.title}: {opponents} (seed {self.seed}).", BEATS["title"])
        try:
            self.cut_for_deal()
            while True:
                self.deal_once()
        except GameOver:
            pass
        return self.finish()

    def cut_for_deal(self) -> None:
        """Everyone cuts; the lowest card deals first (ties cut again)."""
        cut = self.dealer.cut_for_deal(self.variant.players)
        for number, cuts in enumerate(cut.rounds):
            shown = ", ".join(f"{self.names[s]} cuts {self.style.card(card)}" for s, card in cuts)
            again = number < len(cut.rounds) - 1
            self.say(f"Cut for deal: {shown}" + (": a tie, cut again." if again else "."))
        first = cut.dealer
        self.say(f"{self.names[first]} cuts lowest and deals first.", BEATS["deal"])
        self.apply(Cut(first))
        # The five-card game: the engine gives the non-dealer three for last at the start.
        for seat, points in opening_points(self.variant, first).items():
            track = self.variant.team_of(seat)
            text = f"{self.names[seat]}, not dealing, pegs three for last."
            text = log.scored(text, self.track_names[track], points, self.front(track), self.style)
            self.say(text, BEATS["discard"])

    def deal_once(self) -> None:
        """One deal: deal, discard, starter, the play, the show."""
        variant = self.variant
        players = variant.players
        dealer_seat = self.state.dealer
        assert dealer_seat is not None, "the cut always sets a dealer"
        self.result.deals += 1
        scores = ", ".join(f"{n} {self.front(t)}" for t, n in enumerate(self.track_names))
        self.say("")
        dealer_name = self.names[dealer_seat]
        self.say(f"Deal {self.result.deals}: {dealer_name} deals. ({scores})", BEATS["deal"])
        deal = self.dealer.deal(variant, dealer_seat)
        crib = list(deal.crib)
        if crib:
            self.say(f"{dealer_name} deals one card face down to the crib.")
        hands: list[list[Card]] = [[] for _ in range(players)]  # the kept cards, by seat
        for offset in range(1, players + 1):
            seat = (dealer_seat + offset) % players
            cards = list(deal.hands[seat])
            throw = variant.discards_of(offset % players)
            if throw:
                own_crib = variant.team_of(seat) == variant.team_of(dealer_seat)
                thrown = self.players[seat].discard(cards, own_crib=own_crib, count=throw)
                kept = sorted([c for c in cards if c not in thrown])
                crib.extend(thrown)
                whose = "the crib" if seat == dealer_seat else f"{dealer_name}'s crib"
                self.say(
                    f"{self.names[seat]} keeps {self.cards(kept)}, "
                    f"throws {self.cards(sorted(thrown))} to {whose}.",
                    BEATS["discard"],
                )
            else:
                kept = sorted(cards)
                self.say(f"{self.names[seat]} is dealt {self.cards(kept)}.", BEATS["discard"])
            hands[seat] = kept
        starter = self.dealer.cut_starter(deal.stock)
        cutter = self.names[(dealer_seat - 1) % players]
        self.say(
            f"{cutter} cuts, {dealer_name} turns up the starter: {self.style.card(starter)}.",
            BEATS["starter"],
        )
        if starter.rank == 11:
            self.peg(dealer_seat, 2, "heels", f"His heels: {dealer_name} pegs two.", BEATS["go"])
        self.apply(Next())  # the deal is done: the play
        self.the_play(hands, dealer_seat)
        self.apply(Next())  # the play is over: the show
        self.the_show(hands, sorted(crib), starter, dealer_seat)

    def the_play(self, hands: list[list[Card]], dealer_seat: int) -> None:
        """The play through PlayState, every point pegged as it is scored."""
        single = self.variant.single_count
        state = PlayState(hands, dealer=dealer_seat, single_count=single, scoring=self.scoring)
        self.say(f"The play: {self.names[state.turn or 0]} leads.")
        target = self.variant.target
        while (seat := state.turn) is not None:
            legal = state.legal_plays(seat)
            if not legal:
                self.record(state, state.go(seat))
                continue
            track = self.variant.team_of(seat)
            others = [self.front(t) for t in range(self.variant.tracks) if t != track]
            context = PlayContext(
                held=tuple(state.hands[seat]),
                legal=tuple(legal),
                pile=tuple(state.pile),
                count=state.count,
                my_score=self.front(track),
                best_other_score=max(others, default=0),
                target=target,
                go_bonus=state.go_bonus,
            )
            self.record(state, state.play(self.players[seat].play(context), seat))
        if self.variant.single_count and state.cards_left:
            self.say("One count only in this game: the cards left are not played.")

    def record(self, state: PlayState, events: Sequence[PlayEvent]) -> None:
        """Log and peg what PlayState says happened (a go followed by one's own last: no go)."""
        for event, following in zip(events, [*events[1:], None], strict=True):
            name = self.names[event.seat]
            if event.kind == "card":
                assert event.card is not None
                text = f"{name} plays {self.style.card(event.card)} (count {event.count})"
                if event.points:
                    phrase = log.play_phrase(event.reasons, event.points)
                    self.peg(
                        event.seat, event.points, "pegging", f"{text}: {phrase}.", BEATS["card"]
                    )
                else:
                    self.say(f"{text}.", BEATS["card"])
            elif event.kind == "go":
                if following is None or (following.kind, following.seat) != ("last", event.seat):
                    self.say(f"{name}: go.", BEATS["go"])
            else:  # "last"
                what = "last card" if state.done else "the go"
                self.peg(
                    event.seat, event.points, "pegging", f"{name}: one for {what}.", BEATS["go"]
                )

    def the_show(
        self, hands: list[list[Card]], crib: list[Card], starter: Card, dealer_seat: int
    ) -> None:
        """Count every hand from the dealer's left, the dealer last, then the crib."""
        players = self.variant.players
        self.say(f"The show, starter {self.style.card(starter)}:")
        order = [(dealer_seat + offset) % players for offset in range(1, players + 1)]
        counts = [(seat, hands[seat], False) for seat in order] + [(dealer_seat, crib, True)]
        for index, (seat, cards, is_crib) in enumerate(counts):
            score = score_hand(cards, starter, crib=is_crib, scoring=self.scoring)
            whose = f"{self.names[seat]}'s crib" if is_crib else self.names[seat]
            text = f"{whose}: {self.cards(cards)}: {say_count(score)}."
            try:
                self.peg(seat, score.total, "crib" if is_crib else "hand", text, BEATS["count"])
            except GameOver:
                left = [
                    f"{self.names[s]}'s {'crib' if c else 'hand'}"
                    for s, _, c in counts[index + 1 :]
                ]
                if left:
                    verb = "is" if len(left) == 1 else "are"
                    rest = " and ".join(left)
                    self.say(f"{self.names[seat]} counts out: {rest} {verb} not counted.")
                raise

    def finish(self) -> DemoResult:
        """The result, and the last lines of the log."""
        winner = self.state.winner
        result = self.result
        result.winner = winner
        result.scores = tuple(t.front for t in self.state.tracks)
        result.game_points = int(self.state.won_points)
        result.lines_failed = int(self.keeper.status()["skunk"] or 0)  # the skunk paid for
        if winner is not None:
            scores = sorted(zip(self.track_names, result.scores, strict=True), key=lambda s: -s[1])
            self.say("")
            self.say(
                log.result_line(
                    self.track_names[winner],
                    scores,
                    result.lines_failed,
                    result.game_points,
                    team=len(self.variant.teams[winner]) > 1,
                ),
                BEATS["end"],
            )
        return result
