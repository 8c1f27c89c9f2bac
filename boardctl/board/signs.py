"""The refusal signs: which holes light to say why an entry was refused.

Every refusal class (:class:`boardctl.refusals.Refusal`) has its own sign, so
a player with no screen tells the reasons apart: while the start holes and
the status LED flash the error colour, the first holes of every track stay
lit in that colour, one hole for an impossible count, two for "not this
track's turn", and so on (the buzzer's cues beep the same numbers). A
refusal of no named class shows the flash alone. The renderer, the legend in
``docs/board.md`` and the quick-reference card all read :data:`SIGN_HOLES`.
"""

from __future__ import annotations

from boardctl.refusals import MEANINGS, Refusal

#: How many holes (1, 2, ... from the start hole) of every track a refusal lights.
SIGN_HOLES: dict[Refusal, int] = {
    Refusal.IMPOSSIBLE: 1,
    Refusal.NOT_YOUR_TURN: 2,
    Refusal.TOO_MANY_POINTS: 3,
    Refusal.GAME_OVER: 4,
    Refusal.NO_SUCH_TRACK: 5,
    Refusal.STORAGE: 6,
    Refusal.OTHER: 0,
}

#: Seconds a refusal's sign stays lit (the service keeps the refusal in the view for longer).
SIGN_SECONDS = 4.0


def refusal_from(value: object) -> Refusal | None:
    """The refusal class named by a view's ``extra["refusal"]`` (None: none or unknown)."""
    try:
        return Refusal(value) if isinstance(value, str) else None
    except ValueError:
        return None


def sign_text(refusal: Refusal) -> str:
    """The sign in words, for the legend and the card."""
    holes = SIGN_HOLES[refusal]
    if not holes:
        return "start holes flash vermilion, no hole lit"
    lit = "hole 1" if holes == 1 else f"holes 1-{holes}"
    return f"start holes flash vermilion, {lit} lit vermilion"


def legend() -> list[tuple[Refusal, str, str]]:
    """Each refusal class with its sign and its meaning, in the order of the list."""
    return [(refusal, sign_text(refusal), MEANINGS[refusal]) for refusal in Refusal]


#: The board asks about the last entry (``extra["ask"]``, see
#: :func:`boardctl.game.entries.ask_about`): the asked track's start hole and the status
#: LED light steady white until the next entry or press answers (steady: a restart shows
#: the same frame, and nothing animates while the board waits).
ASK_SIGN = "a start hole and the status LED steady white"
ASK_MEANING = "the board asks: pegging or a hand count? heels or pegging? (undo held)"


def ask_track(value: object) -> int | None:
    """The track a view's ``extra["ask"]`` asks about (None: the board asks nothing)."""
    if isinstance(value, dict):
        track = value.get("track")
        if isinstance(track, int) and not isinstance(track, bool):
            return track
    return None
