"""The game and match state machine: state = fold of events.

:class:`GameState` is immutable data. :class:`Machine` folds events into it
and keeps the undo and redo stacks (undo and redo are events too, so replay
rebuilds the stacks exactly). Nothing here does I/O.

    >>> m = Machine()
    >>> _ = m.apply({"op": "new_game", "variant": "six-card", "mode": "free"})
    >>> _ = m.apply({"op": "peg", "track": 0, "points": 3, "kind": "pegging"})
    >>> m.state.tracks[0].front
    3
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from boardctl.errors import EntryError
from boardctl.game import house
from boardctl.game.events import KINDS, SETTINGS, check_command, whole
from boardctl.game.limits import DEFAULT_LIMITS, Limits, limits_for
from boardctl.game.presets import get_preset
from boardctl.game.setup import (
    GameSetup,
    check_match,
    check_mode,
    check_names,
    check_target,
    setup_from_command,
)

HEELS_POINTS = 2
_KEEP: Any = object()  # "leave this field as it is" in GameState.evolve
THREE_FOR_LAST = 3


@dataclass(frozen=True, slots=True)
class TrackState:
    """One track's pegs: ``back`` is where ``front`` was before the last move."""

    front: int = 0
    back: int = 0
    game_points: int = 0


@dataclass(frozen=True, slots=True)
class GameState:
    """Everything the board knows, as immutable data.

    ``flow`` is the guided position (cut, deal, play, show) and is kept while
    in free mode; :attr:`phase` is what the board shows. ``dealer`` is a seat.
    ``count_index`` walks the show: 0 .. players-1 are the hands in order from
    the dealer's left (the dealer last), ``players`` is the crib.
    """

    setup: GameSetup
    tracks: tuple[TrackState, ...]
    flow: str = "cut"
    dealer: int | None = None
    deal: int = 0
    count_index: int = 0
    heels: bool = False
    last_done: bool = False
    winner: int | None = None
    won_points: int = 0
    next_dealer: int | None = None
    game_number: int = 1
    match_number: int = 1
    match_winner: int | None = None

    @classmethod
    def initial(cls, setup: GameSetup | None = None) -> GameState:
        """A fresh match: no pegs moved, waiting for the cut."""
        setup = setup or GameSetup()
        return cls(setup=setup, tracks=tuple(TrackState() for _ in range(setup.tracks)))

    def evolve(
        self,
        *,
        setup: Any = _KEEP,
        tracks: Any = _KEEP,
        flow: Any = _KEEP,
        dealer: Any = _KEEP,
        deal: Any = _KEEP,
        count_index: Any = _KEEP,
        heels: Any = _KEEP,
        last_done: Any = _KEEP,
        winner: Any = _KEEP,
        won_points: Any = _KEEP,
        next_dealer: Any = _KEEP,
        game_number: Any = _KEEP,
        match_number: Any = _KEEP,
        match_winner: Any = _KEEP,
    ) -> GameState:
        """A copy with some fields changed (:func:`dataclasses.replace`, spelled out for speed)."""
        return GameState(
            self.setup if setup is _KEEP else setup,
            self.tracks if tracks is _KEEP else tracks,
            self.flow if flow is _KEEP else flow,
            self.dealer if dealer is _KEEP else dealer,
            self.deal if deal is _KEEP else deal,
            self.count_index if count_index is _KEEP else count_index,
            self.heels if heels is _KEEP else heels,
            self.last_done if last_done is _KEEP else last_done,
            self.winner if winner is _KEEP else winner,
            self.won_points if won_points is _KEEP else won_points,
            self.next_dealer if next_dealer is _KEEP else next_dealer,
            self.game_number if game_number is _KEEP else game_number,
            self.match_number if match_number is _KEEP else match_number,
            self.match_winner if match_winner is _KEEP else match_winner,
        )

    def to_dict(self) -> dict[str, Any]:
        """The state as JSON-able data (a journal snapshot); :meth:`from_dict` reverses it."""
        return {
            "setup": self.setup.to_dict(),
            "tracks": [[t.front, t.back, t.game_points] for t in self.tracks],
            "flow": self.flow,
            "dealer": self.dealer,
            "deal": self.deal,
            "count_index": self.count_index,
            "heels": self.heels,
            "last_done": self.last_done,
            "winner": self.winner,
            "won_points": self.won_points,
            "next_dealer": self.next_dealer,
            "game_number": self.game_number,
            "match_number": self.match_number,
            "match_winner": self.match_winner,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameState:
        """Rebuild a state from :meth:`to_dict` data; raise :class:`EntryError` if malformed."""
        try:
            setup = setup_from_command(data["setup"], base=GameSetup())
            tracks = tuple(TrackState(int(f), int(b), int(g)) for f, b, g in data["tracks"])
            if len(tracks) != setup.tracks:
                raise ValueError("wrong number of tracks")
            values = {name: data[name] for name in _STATE_FIELDS if name not in _NESTED}
        except (KeyError, TypeError, ValueError) as exc:
            raise EntryError(f"malformed state data ({exc})") from None
        return cls(setup=setup, tracks=tracks, **values)

    @property
    def phase(self) -> str:
        """What the board shows: cut, deal, play, show, over or free."""
        if self.winner is not None:
            return "over"
        if self.setup.mode == "free":
            return "free"
        return self.flow

    @property
    def target(self) -> int:
        """Points that win the game."""
        return self.setup.target

    def track_of(self, seat: int) -> int:
        """The track a seat scores on."""
        return self.setup.variant.team_of(seat)

    @property
    def dealer_track(self) -> int | None:
        """The track of the dealer (owner of the crib), if the dealer is known."""
        return None if self.dealer is None else self.track_of(self.dealer)

    @property
    def counting_seat(self) -> int | None:
        """The seat whose count is due in the guided show (the dealer for the crib)."""
        if self.phase != "show" or self.dealer is None:
            return None
        players = self.setup.players
        if self.count_index >= players:
            return self.dealer
        return (self.dealer + 1 + self.count_index) % players

    @property
    def to_count(self) -> int | None:
        """The track whose count is due in the guided show."""
        seat = self.counting_seat
        return None if seat is None else self.track_of(seat)

    @property
    def crib_due(self) -> bool:
        """True when the crib is the next count of the show."""
        return self.phase == "show" and self.count_index >= self.setup.players

    @property
    def started(self) -> bool:
        """True once any peg has moved in this game."""
        return any(t.front or t.back for t in self.tracks)


_STATE_FIELDS = tuple(f.name for f in fields(GameState))
_NESTED = ("setup", "tracks")


@dataclass(frozen=True, slots=True)
class Plan:
    """An accepted event and what it does, not yet committed.

    ``reset`` clears the undo and redo stacks (a new game starts); ``move``
    is ``"undo"``, ``"redo"`` or ``"do"``.
    """

    event: dict[str, Any]
    state: GameState
    move: str = "do"
    reset: bool = False


Chooser = Callable[[int], int]


class Machine:
    """Folds events into a :class:`GameState`, with undo and redo stacks.

    :meth:`plan` validates a command and computes its effect without changing
    anything; :meth:`commit` makes a plan current; :meth:`apply` does both.
    """

    def __init__(self, state: GameState | None = None, *, limits: Limits | None = None) -> None:
        self.state = state or GameState.initial().evolve(match_number=0)
        self.limits = limits or DEFAULT_LIMITS
        self.past: list[GameState] = []
        self.future: list[GameState] = []

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Machine):
            return NotImplemented
        return (self.state, self.past, self.future) == (other.state, other.past, other.future)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Machine({self.state!r}, past={len(self.past)}, future={len(self.future)})"

    def apply(self, command: Mapping[str, Any], *, choose: Chooser | None = None) -> dict[str, Any]:
        """Validate and apply a command; return the event recorded."""
        plan = self.plan(command, choose=choose)
        self.commit(plan)
        return plan.event

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

    def plan(self, command: Mapping[str, Any], *, choose: Chooser | None = None) -> Plan:
        """Validate ``command`` against the current state; raise :class:`EntryError` if refused."""
        event = check_command(command)
        op = event["op"]
        state = self.state
        if op == "undo":
            if not self.past:
                raise EntryError("nothing to undo (this is the start of the game)")
            return Plan({"op": "undo"}, self.past[-1], move="undo")
        if op == "redo":
            if not self.future:
                raise EntryError("nothing to redo")
            return Plan({"op": "redo"}, self.future[-1], move="redo")
        if op == "new_game":
            setup = setup_from_command(event, base=state.setup)
            event = {"op": "new_game", **setup.to_dict()}
            fresh = GameState.initial(setup)
            return Plan(event, fresh.evolve(match_number=state.match_number + 1), reset=True)
        if op == "next":
            if state.winner is not None:
                return Plan({"op": "next"}, _next_game(state), reset=True)
            return Plan({"op": "next"}, _advance(state))
        if op == "cut":
            return _cut(state, event, choose or random.randrange)
        if op == "set":
            return _set(state, event)
        return _peg(state, event, self.limits)


def replay(
    events: list[Mapping[str, Any]] | tuple[Mapping[str, Any], ...],
    *,
    limits: Limits | None = None,
) -> Machine:
    """Fold ``events`` from a fresh machine (the journal's replay)."""
    machine = Machine(limits=limits)
    for event in events:
        machine.commit(machine.plan(event))
    return machine


# --- helpers ---------------------------------------------------------------


def _name(state: GameState, track: int) -> str:
    return state.setup.track_names()[track]


def _over_message(state: GameState) -> str:
    assert state.winner is not None
    if state.match_winner is not None:
        return (
            f"the match is over ({_name(state, state.match_winner)} won); "
            "send next for a new match or new_game"
        )
    return f"the game is over ({_name(state, state.winner)} won); send next for the next game"


def _with_points(state: GameState, track: int, points: int) -> GameState:
    """Move a track's pegs by ``points``; end the game if it reaches the target.

    Forwards, the back peg leapfrogs to where the front peg was. Backwards (a
    correction), the front peg is taken back and the back peg stays put, unless
    it would now be ahead of the front peg: the dim peg never leads.
    """
    if points == 0:
        return state
    old = state.tracks[track]
    front = min(old.front + points, state.target)
    back = old.front if points > 0 else min(old.back, front)
    tracks = list(state.tracks)
    tracks[track] = TrackState(front, back, old.game_points)
    state = state.evolve(tracks=tuple(tracks))
    if front >= state.target:
        state = _game_won(state, track)
    return state


def _game_won(state: GameState, winner: int) -> GameState:
    """Score the game for ``winner``: game points per preset, match winner, next dealer."""
    setup = state.setup
    preset = setup.preset
    others = [t.front for i, t in enumerate(state.tracks) if i != winner]
    best_loser = house.skunk_loser(others, setup.house_rules)
    fractions = house.fraction_lines(setup.house_rules)
    points = preset.game_points(setup.target, best_loser, fractions=fractions)
    tracks = list(state.tracks)
    tracks[winner] = replace(tracks[winner], game_points=tracks[winner].game_points + points)
    match_over = (
        setup.match == 0
        or tracks[winner].game_points >= setup.match
        or preset.ends_match(setup.target, best_loser, fractions=fractions)
    )
    return state.evolve(
        tracks=tuple(tracks),
        winner=winner,
        won_points=points,
        next_dealer=_loser_seat(state, winner),
        match_winner=winner if match_over else None,
    )


def _loser_seat(state: GameState, winner: int) -> int | None:
    """The seat that deals first next game: a player of the lowest losing track.

    Ties and team tracks go to the first such seat clockwise from the dealer's left.
    """
    players = state.setup.players
    start = 0 if state.dealer is None else state.dealer + 1
    losers = [i for i in range(len(state.tracks)) if i != winner]
    if not losers:
        return None
    low = min(state.tracks[i].front for i in losers)
    for offset in range(players):
        seat = (start + offset) % players
        track = state.track_of(seat)
        if track != winner and state.tracks[track].front == low:
            return seat
    return None  # pragma: no cover - every track has a seat


def _start_deals(state: GameState, dealer: int) -> GameState:
    """The first deal of a game with ``dealer``: five-card gives three for last."""
    state = state.evolve(dealer=dealer, flow="deal", deal=1, count_index=0, heels=False)
    variant = state.setup.variant
    if variant.three_for_last and state.setup.mode == "guided" and not state.last_done:
        pone = (dealer + 1) % state.setup.players
        state = state.evolve(last_done=True)
        state = _with_points(state, state.track_of(pone), THREE_FOR_LAST)
    return state


def _next_game(state: GameState) -> GameState:
    """After a game: the next game of the match (loser deals), or a new match."""
    if state.match_winner is not None:
        fresh = GameState.initial(state.setup)
        return fresh.evolve(match_number=state.match_number + 1)
    tracks = tuple(TrackState(game_points=t.game_points) for t in state.tracks)
    fresh = GameState(
        setup=state.setup,
        tracks=tracks,
        game_number=state.game_number + 1,
        match_number=state.match_number,
    )
    if state.next_dealer is None:
        return fresh
    return _start_deals(fresh, state.next_dealer)


def _advance(state: GameState) -> GameState:
    """``next`` during a game: deal -> play -> show."""
    phase = state.phase
    if phase == "free":
        raise EntryError("free mode has no phases (set mode to guided to use next)")
    if phase == "cut":
        raise EntryError(
            "cut for the first dealer first (`boardctl cut [SEAT]`, or a track button on the board)"
        )
    if phase == "deal":
        return state.evolve(flow="play")
    if phase == "play":
        return state.evolve(flow="show", count_index=0)
    track = state.to_count
    assert track is not None
    what = "crib" if state.crib_due else "hand"
    raise EntryError(f"enter {_name(state, track)}'s {what} count first (0 allowed)")


def _cut(state: GameState, event: dict[str, Any], choose: Chooser) -> Plan:
    if state.winner is not None:
        raise EntryError(_over_message(state))
    if state.flow != "cut":
        raise EntryError("the first dealer is already chosen (undo the cut to change it)")
    players = state.setup.players
    dealer = event.get("dealer")
    drawn = dealer is None
    if drawn:
        dealer = choose(players)
    dealer = whole(dealer, "dealer")
    if not 0 <= dealer < players:
        raise EntryError(
            f"dealer must be a seat index 0-{players - 1} (seats 1-{players} counted from 1),"
            f" not {dealer}"
        )
    new = _start_deals(state, dealer)
    return Plan({"op": "cut", "dealer": dealer, "drawn": bool(event.get("drawn", drawn))}, new)


def _set(state: GameState, event: dict[str, Any]) -> Plan:
    key = event.get("key")
    if key not in SETTINGS:
        raise EntryError(f"unknown setting {key!r} (known: {', '.join(SETTINGS)})")
    if "value" not in event:
        raise EntryError(f"set {key}: a value is required")
    value = event["value"]
    setup = state.setup
    if key == "mode":
        setup = replace(setup, mode=check_mode(value))
    elif key == "muggins":
        if not isinstance(value, bool):
            raise EntryError(f"muggins must be true or false, not {value!r}")
        house.check_muggins_change(setup.house_rules, value, state.started)
        setup = replace(setup, muggins=value)
    elif key == "house_rules":
        rules = house.house_rules_value(value)
        setup = replace(setup, house_rules=rules, muggins=house.muggins_for(rules, setup.muggins))
        value = list(rules)
    elif key == "preset":
        if not isinstance(value, str):
            raise EntryError(f"preset must be a name, not {value!r}")
        points = setup.points if value == "custom" else ()
        get_preset(value, dict(points))
        setup = replace(setup, preset_name=value, points=points)
    elif key == "points":
        if not isinstance(value, Mapping):
            raise EntryError('points must be an object such as {"win": 1, "skunk": 2}')
        get_preset("custom", value)
        setup = replace(setup, preset_name="custom", points=tuple(sorted(value.items())))
        value = dict(setup.points)
    elif key == "match":
        match = check_match(value)
        top = max(t.game_points for t in state.tracks)
        if match and state.winner is None and top >= match:
            raise EntryError(f"match {match} is not above the game points already won ({top})")
        setup = replace(setup, match=match)
    elif key == "target":
        target = check_target(whole(value, "target"))
        if state.started:
            raise EntryError("the target can only change before anyone scores; start a new game")
        setup_from_command({"target": target}, base=setup)  # validates against the variant
        setup = replace(setup, target=target)
    else:  # names
        names = check_names(value, setup.tracks)
        setup = replace(setup, names=names)
        value = list(names)
    return Plan({"op": "set", "key": key, "value": value}, state.evolve(setup=setup))


def _infer_kind(state: GameState, points: int, limits: Limits) -> str:
    phase = state.phase
    if phase == "show":
        return "crib" if state.crib_due else "hand"
    if phase == "free" and points > limits.max_play_points() + 1:
        variant = state.setup.variant
        if points not in limits.hand_scores(variant.hand_size) and points in limits.hand_scores(
            variant.crib_size, crib=True
        ):
            return "crib"  # e.g. 24 in the five-card game: only a (four-card) crib makes it
        return "hand"
    return "pegging"


def _peg(state: GameState, event: dict[str, Any], limits: Limits) -> Plan:
    limits = limits_for(limits, state.setup.house_rules)  # the rules in force
    if state.winner is not None:
        raise EntryError(_over_message(state))
    tracks = len(state.tracks)
    track = whole(event.get("track"), "track")
    if not 0 <= track < tracks:
        raise EntryError(
            f"there is no track {track + 1} (index {track}): this game has {tracks} tracks, "
            f"1 ({_name(state, 0)}) to {tracks} ({_name(state, tracks - 1)}), "
            f"index 0 to {tracks - 1}"
        )
    points = whole(event.get("points"), "points")
    kind = event.get("kind") or _infer_kind(state, points, limits)
    if kind not in KINDS:
        raise EntryError(f"unknown kind {kind!r} (kinds: {', '.join(KINDS)})")
    setup = state.setup
    variant = setup.variant
    guided = state.phase != "free"
    name = _name(state, track)
    if guided and state.phase == "cut" and kind != "correction":
        raise EntryError(
            "cut for the first dealer first (`boardctl cut [SEAT]`, or a track button on the "
            "board), or set mode free"
        )
    new = state
    if kind == "pegging":
        limit = limits.max_play_points() + 1  # one card's score plus the go or last card
        if not 1 <= points <= limit:
            raise EntryError(f"a pegging entry is 1-{limit} points, not {points}")
        if guided:
            if state.phase == "show":
                raise EntryError("the play is over; enter the counts of the show")
            if state.flow != "play":
                new = state.evolve(flow="play")
    elif kind in ("hand", "crib"):
        crib = kind == "crib"
        cards = variant.crib_size if crib else variant.hand_size
        possible = limits.hand_scores(cards, crib=crib)
        if points not in possible:
            what = "crib" if crib else f"{cards}-card hand"
            top = max(possible)
            raise EntryError(f"{points} is not a possible {what} count (0-{top}, not every number)")
        if guided:
            if state.phase in ("deal", "play") and kind == "hand":
                state = state.evolve(flow="show", count_index=0)  # the play is over
            due = state.to_count
            if due is None:
                raise EntryError(
                    f"no {kind} count is due in the {state.phase} phase: "
                    "the show starts with the non-dealer's hand"
                )
            due_name = _name(state, due)
            if state.crib_due != crib:
                what = "crib" if state.crib_due else "hand"
                raise EntryError(f"{due_name}'s {what} count is due, not a {kind} count")
            if track != due:
                what = "crib" if crib else "hand"
                raise EntryError(f"{due_name} counts first: {name} is not due to count a {what}")
            new = _with_points(state, track, points)
            if new.winner is None:
                new = _count_done(new)
            return Plan({"op": "peg", "track": track, "points": points, "kind": kind}, new)
    elif kind == "heels":
        if points != HEELS_POINTS:
            raise EntryError(f"his heels is worth {HEELS_POINTS}, not {points}")
        if state.dealer_track is not None and track != state.dealer_track:
            raise EntryError(f"his heels goes to the dealer's track, not {name}")
        if guided:
            if state.heels:
                raise EntryError("his heels was already pegged this deal")
            if state.phase == "show":
                raise EntryError("his heels is pegged when the starter is cut, before the show")
            new = state.evolve(heels=True)
    elif kind == "last":
        if not variant.three_for_last:
            raise EntryError(f"three for last belongs to the five-card game, not {variant.name}")
        if points != THREE_FOR_LAST:
            raise EntryError(f"three for last is worth {THREE_FOR_LAST}, not {points}")
        if state.last_done:
            raise EntryError("three for last was already pegged this game")
        new = state.evolve(last_done=True)
    elif kind == "muggins":
        if not setup.muggins:
            raise EntryError("muggins is off for this match (set muggins true to allow claims)")
        top = max(limits.hand_scores(variant.crib_size, crib=True))
        top = max(top, *limits.hand_scores(variant.hand_size))
        if not 1 <= points <= top:
            raise EntryError(f"a muggins claim is 1-{top} points, not {points}")
    else:  # correction
        if points == 0:
            raise EntryError("a correction of 0 changes nothing")
        front = state.tracks[track].front
        if front + points < 0:
            raise EntryError(f"a correction of {points} would take {name} below 0 (at {front})")
    new = _with_points(new, track, points)
    return Plan({"op": "peg", "track": track, "points": points, "kind": kind}, new)


def _count_done(state: GameState) -> GameState:
    """One count of the show is entered: the next count, or the next deal after the crib."""
    if not state.crib_due:
        return state.evolve(count_index=state.count_index + 1)
    assert state.dealer is not None
    return state.evolve(
        dealer=house.next_dealer(state.dealer, state.setup.players, state.setup.house_rules),
        flow="deal",
        deal=state.deal + 1,
        count_index=0,
        heels=False,
    )
