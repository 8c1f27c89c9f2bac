"""The state machine: commands in, events and states out, with undo and redo (as events), one
handler per command in :data:`HANDLERS`; no I/O."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from boardctl.cribbage.cards import format_card, parse_cards
from boardctl.errors import EntryError
from boardctl.game import entries, flow, setters
from boardctl.game.commands import (
    Command,
    Confirm,
    Cut,
    NewGame,
    Next,
    Peg,
    Redo,
    Refile,
    Set,
    Undo,
    new_game_event,
)
from boardctl.game.flow import Chooser
from boardctl.game.limits import DEFAULT_LIMITS, Limits
from boardctl.game.setup import setup_with
from boardctl.game.shown import Shown, check_shown, record_starter, with_shown
from boardctl.game.state import GameState
from boardctl.refusals import Refusal


@dataclass(frozen=True, slots=True)
class Plan:
    """An accepted command as its event and effect, not committed (``reset``: a new game; ``move``:
    ``"undo"``, ``"redo"`` or ``"do"``)."""

    event: Command
    state: GameState
    move: str = "do"
    reset: bool = False


@dataclass(repr=False)
class Machine:
    """Folds commands into a :class:`GameState`, with undo and redo stacks (plan, then commit)."""

    state: GameState = field(default_factory=lambda: GameState.initial().evolve(match_number=0))
    limits: Limits = field(default=DEFAULT_LIMITS, kw_only=True, compare=False)
    past: list[GameState] = field(default_factory=list, init=False)
    future: list[GameState] = field(default_factory=list, init=False)

    def __repr__(self) -> str:
        return f"Machine({self.state!r}, past={len(self.past)}, future={len(self.future)})"

    def commit(self, plan: Plan) -> None:
        """Make a plan's state current and update the undo/redo stacks."""
        if plan.move == "undo":
            self.future.append(self.state)
            self.past.pop()
        elif plan.move == "redo":
            self.past.append(self.state)
            self.future.pop()
        elif plan.reset:
            self.past.clear()
            self.future.clear()
        else:
            self.past.append(self.state)
            self.future.clear()
        self.state = plan.state

    def plan(self, command: Command, *, choose: Chooser | None = None) -> Plan:
        """Validate ``command`` against the current state; raise :class:`EntryError` if refused."""
        handler = HANDLERS.get(type(command))
        if handler is None:
            raise EntryError(f"not a command: {command!r} (JSON goes through parse_command)")
        check_open(self.state, command.op)
        if self.state.winner is not None and isinstance(command, Peg | Cut):
            raise EntryError(flow.over_message(self.state), Refusal.GAME_OVER)
        plan: Plan = handler(self, command, choose or random.randrange)
        if plan.state.ask is not None and plan.move == "do" and not isinstance(command, Peg):
            plan = replace(plan, state=plan.state.evolve(ask=None))  # any other change answers
        return plan


def _move(machine: Machine, command: Undo | Redo, choose: Chooser) -> Plan:
    """Undo or redo: back to the state on top of its stack."""
    stack = machine.past if isinstance(command, Undo) else machine.future
    if not stack:
        start = " (this is the start of the game)" if isinstance(command, Undo) else ""
        raise EntryError(f"nothing to {command.op}{start}")
    return Plan(command, stack[-1], move=command.op)


def _new_game(machine: Machine, command: NewGame, choose: Chooser) -> Plan:
    setup = setup_with(command, base=machine.state.setup)
    return Plan(new_game_event(setup), flow.new_match(machine.state, setup), reset=True)


def _next(machine: Machine, command: Next, choose: Chooser) -> Plan:
    state = machine.state
    if state.winner is not None:
        return Plan(command, flow.next_game(state), reset=True)
    return Plan(command, flow.advance(state))


def _cut(machine: Machine, command: Cut, choose: Chooser) -> Plan:
    before, starter = machine.state, command.starter
    alone = command.dealer is None and command.cards is None
    if starter is not None and alone and before.flow != "cut":
        state, starter = record_starter(before, starter)  # the dealer is known: the starter only
        return Plan(Cut(starter=starter), state)
    cards = command.cards
    state, dealer = flow.cut(before, command.dealer, choose, cards)
    drawn = alone if command.drawn is None else command.drawn
    if starter is not None:
        state, starter = record_starter(state, starter)
    if cards is not None:
        cards = tuple(format_card(card) for card in parse_cards(cards))  # as the cards print
    return Plan(Cut(dealer, drawn, starter, cards), state)


def _set(machine: Machine, command: Set, choose: Chooser) -> Plan:
    setup, value = setters.SETTERS[command.key](machine.state, command.value)
    return Plan(Set(command.key, value), machine.state.evolve(setup=setup))


def _peg(machine: Machine, command: Peg, choose: Chooser) -> Plan:
    before, points, kind = machine.state, command.points, command.kind
    cards = starter = None
    shown: Shown | None = None
    if command.cards is not None or command.starter is not None:
        entries.check_track(before, command.track)
        shown = check_shown(before, points, kind, command.cards, command.starter)
        points, kind, cards, starter = shown.points, shown.kind, shown.cards, shown.starter
    if points is None:
        raise EntryError("points must be a whole number, not None (or name the cards counted)")
    entry, after = entries.peg(before, command.track, points, kind, machine.limits)
    state = with_shown(before, after, entry.track, shown)
    ask = entries.ask_about(entry) if cards is None else None  # named cards leave no doubt
    return Plan(Peg(entry.track, entry.points, entry.kind, cards, starter), state.evolve(ask=ask))


def _refile(machine: Machine, command: Refile, choose: Chooser) -> Plan:
    """File the entry the board asks about as the other kind (or keep it: its own kind)."""
    ask = machine.state.ask
    if ask is None or not machine.past:
        raise EntryError("the board is not asking about an entry: there is nothing to refile")
    kind = command.kind or ask.other
    if kind not in (ask.kind, ask.other):
        raise EntryError(
            f"the board asks whether {machine.state.track_name(ask.track)}'s {ask.points} is "
            f"{ask.kind} or {ask.other}, not {kind}"
        )
    if (command.track, command.points) not in ((None, None), (ask.track, ask.points)):
        raise EntryError(
            f"the entry asked about is {ask.points} on track {ask.track + 1}, "
            f"not {command.points} on track {(command.track or 0) + 1}"
        )
    event = Refile(kind, ask.track, ask.points)
    if kind == ask.kind:  # kept as filed: the question is answered
        return Plan(event, machine.state.evolve(ask=None))
    base = machine.past[-1]  # the state before the entry asked about
    entry, after = entries.peg(base, ask.track, ask.points, kind, machine.limits)
    state = with_shown(base, after, entry.track, None)  # it named no cards
    return Plan(event, state.evolve(ask=None))


#: The handler of each command type.
HANDLERS: dict[type, Callable[..., Plan]] = {
    Undo: _move,
    Redo: _move,
    NewGame: _new_game,
    Next: _next,
    Cut: _cut,
    Set: _set,
    Peg: _peg,
    Confirm: lambda machine, command, _: Plan(command, confirmed(machine.state, command.track)),
    Refile: _refile,
}


# --- Signing off a result (``confirm_result``): a won game is final once every track confirmed;
# until then undo may take back a confirmation or the win, and ``next`` is refused. ---------


def awaiting(state: GameState) -> tuple[int, ...]:
    """Tracks whose confirmation of the finished game is still awaited (none if not asked)."""
    if not state.setup.confirm_result or state.winner is None:
        return ()
    return tuple(t for t in range(len(state.tracks)) if t not in state.confirmed)


def settled(state: GameState) -> bool:
    """True once every track has confirmed the finished game (confirmation on)."""
    return state.setup.confirm_result and state.winner is not None and not awaiting(state)


def check_open(state: GameState, op: str) -> None:
    """Refuse what a settled result or an awaited confirmation does not allow."""
    if state.winner is None or not state.setup.confirm_result:
        return  # the common case, on every command: nothing to check
    waiting = awaiting(state)
    if op == "next" and waiting:
        wait = ", ".join(state.track_name(t) for t in waiting)
        raise EntryError(f"the result waits for {wait} to confirm it (`boardctl confirm TRACK`)")
    if not waiting and op not in ("next", "new_game"):  # what may follow a settled result
        raise EntryError(
            "the result is confirmed by every side; press menu (`boardctl next`) for the next game",
            Refusal.GAME_OVER,
        )


def confirmed(state: GameState, track: int) -> GameState:
    """``state`` with ``track``'s confirmation; :class:`EntryError` if it is not due."""
    if not state.setup.confirm_result:
        raise EntryError(
            "results need no confirmation (`boardctl set confirm_result true` asks for it)"
        )
    if state.winner is None:
        raise EntryError("there is no result to confirm: the game is not over")
    entries.check_track(state, track)
    if track in state.confirmed:
        raise EntryError(f"{state.setup.track_names()[track]} has already confirmed the result")
    return state.evolve(confirmed=tuple(sorted((*state.confirmed, track))))
