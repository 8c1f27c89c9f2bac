"""A random player of the scorekeeping API, for benchmarks, crash trials and property tests.

:func:`random_command` proposes a plausible next command for a state (most
are accepted, a few are deliberately wrong or undo/redo); it knows nothing
about cards, only about the phases of a guided game.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from boardctl.game.commands import Command, Cut, Next, Peg, Redo, Undo
from boardctl.game.limits import DEFAULT_LIMITS, Limits
from boardctl.game.state import GameState


def random_command(
    state: GameState,
    rng: random.Random,
    *,
    limits: Limits | None = None,
    mistakes: float = 0.05,
) -> Command:
    """A next command for ``state``: usually the natural one, sometimes undo, redo or a mistake."""
    limits = limits or DEFAULT_LIMITS
    tracks = len(state.tracks)
    roll = rng.random()
    if roll < mistakes:
        return _mistake(state, rng, limits)
    if roll < mistakes + 0.04:
        return rng.choice((Undo, Redo))()
    phase = state.phase
    if phase == "over":
        return Next()
    if phase == "cut":
        return Cut(rng.randrange(state.setup.players))
    if phase == "deal":
        if not state.heels and state.dealer_track is not None and rng.random() < 1 / 13:
            return Peg(state.dealer_track, 2, "heels")
        return Next()
    if phase == "play":
        if rng.random() < 0.2:
            return Next()
        points = rng.choice((1, 1, 2, 2, 2, 3, 4, 6))
        return Peg(rng.randrange(tracks), points, "pegging")
    if phase == "show":
        crib = state.crib_due
        variant = state.setup.variant
        cards = variant.crib_size if crib else variant.hand_size
        possible = sorted(limits.hand_scores(cards, crib=crib))
        points = min(rng.choice(possible), rng.choice(possible))  # lower counts are commoner
        kind = "crib" if crib else "hand"
        assert state.to_count is not None
        return Peg(state.to_count, points, kind)
    # free mode
    if rng.random() < 0.7:
        points = rng.randint(1, 4)
        return Peg(rng.randrange(tracks), points, "pegging")
    points = rng.choice(sorted(limits.hand_scores(state.setup.variant.hand_size)))
    return Peg(rng.randrange(tracks), points, "hand")


def _mistake(state: GameState, rng: random.Random, limits: Limits) -> Command:
    """A command the state machine should usually refuse."""
    tracks = len(state.tracks)
    choice = rng.randrange(5)
    if choice == 0:
        impossible = sorted(set(range(35)) - limits.hand_scores(state.setup.variant.hand_size))
        return Peg(0, rng.choice(impossible), "hand")
    if choice == 1:
        points = limits.max_play_points() + 2
        return Peg(rng.randrange(tracks), points, "pegging")
    if choice == 2:
        return Peg(tracks, 1, "pegging")
    if choice == 3:
        return Next()
    return Peg(rng.randrange(tracks), 3, "heels")


def play_random(
    apply: Callable[[Command], object],
    state_of: Callable[[], GameState],
    rng: random.Random,
    count: int,
    *,
    limits: Limits | None = None,
) -> int:
    """Send ``count`` random commands through ``apply``; return how many were accepted.

    ``apply(command)`` applies or raises :class:`~boardctl.errors.EntryError`;
    ``state_of()`` returns the current :class:`GameState`.
    """
    from boardctl.errors import EntryError

    accepted = 0
    for _ in range(count):
        try:
            apply(random_command(state_of(), rng, limits=limits))
        except EntryError:
            continue
        accepted += 1
    return accepted
