"""Score entries (``peg``): one check per kind of entry, in one table (:data:`CHECKS`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from boardctl.cribbage.awards import HEELS_POINTS, THREE_FOR_LAST_POINTS
from boardctl.errors import EntryError
from boardctl.game.flow import CUT_FIRST, count_done, with_points
from boardctl.game.limits import Limits, limits_for
from boardctl.game.state import GameState
from boardctl.refusals import Refusal
from boardctl.view import Question


@dataclass(frozen=True, slots=True)
class Entry:
    """An entry being checked: ``points`` for ``track``, of ``kind``, against ``state``."""

    state: GameState
    track: int
    points: int
    kind: str
    limits: Limits

    @property
    def guided(self) -> bool:
        return self.state.phase != "free"

    @property
    def name(self) -> str:
        return self.state.track_name(self.track)


def _pegging(entry: Entry) -> GameState:
    state, points = entry.state, entry.points
    limit = entry.limits.max_play_points() + 1  # one card's score plus the go or last card
    if not 1 <= points <= limit:
        raise EntryError(
            f"a pegging entry is 1-{limit} points, not {points}", Refusal.TOO_MANY_POINTS
        )
    if entry.guided:
        if state.phase == "show":
            raise EntryError(
                "the play is over; enter the counts of the show", Refusal.NOT_YOUR_TURN
            )
        if state.flow != "play" or not state.pegged:
            state = state.evolve(flow="play", pegged=True)
    return with_points(state, entry.track, points)


def _count(entry: Entry) -> GameState:
    """A hand or crib count: a possible count; guided, only the one that is due."""
    state, points, kind = entry.state, entry.points, entry.kind
    crib = kind == "crib"
    variant = state.setup.variant
    cards = variant.crib_size if crib else variant.hand_size
    possible = entry.limits.hand_scores(cards, crib=crib)
    if points not in possible:
        what = "crib" if crib else f"{cards}-card hand"
        raise EntryError(
            f"{points} is not a possible {what} count (0-{max(possible)}, not every number)",
            Refusal.IMPOSSIBLE,
        )
    if not entry.guided:
        return with_points(state, entry.track, points)
    if state.phase in ("deal", "play") and not crib:
        state = state.evolve(flow="show", count_index=0)  # the play is over
    due = state.to_count
    if due is None:
        raise EntryError(
            f"no {kind} count is due in the {state.phase} phase: "
            "the show starts with the non-dealer's hand",
            Refusal.NOT_YOUR_TURN,
        )
    due_name = state.track_name(due)
    if state.crib_due != crib:
        what = "crib" if state.crib_due else "hand"
        raise EntryError(
            f"{due_name}'s {what} count is due, not a {kind} count", Refusal.NOT_YOUR_TURN
        )
    if entry.track != due:
        raise EntryError(
            f"{due_name} counts first: {entry.name} is not due to count a {kind}",
            Refusal.NOT_YOUR_TURN,
        )
    new = with_points(state, entry.track, points)
    return count_done(new) if new.winner is None else new


def _heels(entry: Entry) -> GameState:
    state = entry.state
    if entry.points != HEELS_POINTS:
        raise EntryError(
            f"his heels is worth {HEELS_POINTS}, not {entry.points}", Refusal.IMPOSSIBLE
        )
    if state.dealer_track is not None and entry.track != state.dealer_track:
        raise EntryError(
            f"his heels goes to the dealer's track, not {entry.name}", Refusal.NOT_YOUR_TURN
        )
    if entry.guided:
        if state.heels:
            raise EntryError("his heels was already pegged this deal", Refusal.IMPOSSIBLE)
        if state.phase == "show":
            raise EntryError(
                "his heels is pegged when the starter is cut, before the show",
                Refusal.NOT_YOUR_TURN,
            )
        state = state.evolve(heels=True)
    return with_points(state, entry.track, entry.points)


def _last(entry: Entry) -> GameState:
    state = entry.state
    variant = state.setup.variant
    if not variant.three_for_last:
        raise EntryError(f"three for last belongs to the five-card game, not {variant.name}")
    if entry.points != THREE_FOR_LAST_POINTS:
        raise EntryError(
            f"three for last is worth {THREE_FOR_LAST_POINTS}, not {entry.points}",
            Refusal.IMPOSSIBLE,
        )
    if state.last_done:
        raise EntryError("three for last was already pegged this game", Refusal.IMPOSSIBLE)
    return with_points(state.evolve(last_done=True), entry.track, entry.points)


def _muggins(entry: Entry) -> GameState:
    setup, limits = entry.state.setup, entry.limits
    if not setup.muggins:
        raise EntryError("muggins is off for this game (`boardctl set muggins true` allows claims)")
    variant = setup.variant
    top = max(limits.hand_scores(variant.crib_size, crib=True))
    top = max(top, *limits.hand_scores(variant.hand_size))
    if not 1 <= entry.points <= top:
        raise EntryError(
            f"a muggins claim is 1-{top} points, not {entry.points}", Refusal.IMPOSSIBLE
        )
    return with_points(entry.state, entry.track, entry.points)


def _correction(entry: Entry) -> GameState:
    points = entry.points
    if points == 0:
        raise EntryError("a correction of 0 changes nothing")
    front = entry.state.tracks[entry.track].front
    if front + points < 0:
        raise EntryError(f"a correction of {points} would take {entry.name} below 0 (at {front})")
    return with_points(entry.state, entry.track, points)


#: Each kind of score entry and its check. ``last`` is the five-card game's "three for last".
CHECKS: dict[str, Callable[[Entry], GameState]] = {
    "pegging": _pegging,
    "hand": _count,
    "crib": _count,
    "heels": _heels,
    "muggins": _muggins,
    "correction": _correction,
    "last": _last,
}
KINDS = tuple(CHECKS)


def infer_kind(state: GameState, points: int, limits: Limits, track: int) -> str:
    """The kind of an entry given without one, from the phase (free mode: also the size;
    docs/scorekeeping.md, "Commands" and "The forgotten menu press: the board asks")."""
    phase = state.phase
    if phase == "show":
        return "crib" if state.crib_due else "hand"
    heels = points == HEELS_POINTS and not state.heels  # not yet pegged this deal
    if phase == "deal" and heels and track == state.dealer_track:
        return "heels"
    if phase in ("deal", "play") and _beyond_the_play(state, points, limits):
        return "hand"  # the menu press that ends the play was forgotten: the show's first count
    if phase == "free" and points > limits.max_play_points() + 1:
        variant = state.setup.variant
        if points not in limits.hand_scores(variant.hand_size) and points in limits.hand_scores(
            variant.crib_size, crib=True
        ):
            return "crib"  # e.g. 24 in the five-card game: only a (four-card) crib makes it
        return "hand"
    return "pegging"


def _beyond_the_play(state: GameState, points: int, limits: Limits) -> bool:
    """Whether ``points`` is more than the play can peg at once but a possible hand count
    (``benchmarks/bench_forgotten_menu.py --baseline`` replaces it)."""
    hand = state.setup.variant.hand_size
    return points > limits.max_play_points() + 1 and points in limits.hand_scores(hand)


def ask_about(entry: Entry) -> Question | None:
    """Whether the board asks about an entry of this kind, and the other kind it offers
    (docs/scorekeeping.md, "The forgotten menu press: the board asks")."""
    state, points, track = entry.state, entry.points, entry.track
    if not entry.guided or state.dealer is None:
        return None
    if entry.kind != infer_kind(state, points, entry.limits, track):
        return None
    if entry.kind == "heels":
        return Question(track, points, "heels", "pegging")
    if entry.kind != "pegging" or state.phase != "play" or not state.pegged:
        return None
    first = state.track_of((state.dealer + 1) % state.setup.players)
    if track != first or points not in entry.limits.hand_scores(state.setup.variant.hand_size):
        return None
    return Question(track, points, "pegging", "hand")


def check_track(state: GameState, track: int) -> None:
    """Refuse an entry for a track the game lacks (a won game refuses every entry: the machine)."""
    tracks = len(state.tracks)
    if not 0 <= track < tracks:
        raise EntryError(
            f"there is no track {track + 1} (index {track}): this game has {tracks} tracks, "
            f"1 ({state.track_name(0)}) to {tracks} ({state.track_name(tracks - 1)}), "
            f"index 0 to {tracks - 1}",
            Refusal.NO_SUCH_TRACK,
        )


def peg(
    state: GameState, track: int, points: int, kind: str | None, limits: Limits
) -> tuple[Entry, GameState]:
    """The checked :class:`Entry` and the state after it (:class:`EntryError` if refused)."""
    limits = limits_for(limits, state.setup.house_rules)  # the rules in force
    check_track(state, track)
    kind = kind or infer_kind(state, points, limits, track)
    if state.phase == "cut" and kind != "correction":
        raise EntryError(f"{CUT_FIRST}, or set mode free")
    entry = Entry(state, track, points, kind, limits)
    return entry, CHECKS[kind](entry)
