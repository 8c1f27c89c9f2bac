"""The refusal signs: every :class:`~boardctl.refusals.Refusal` lights its own number of first
holes on every track (:data:`SIGN_HOLES`) while the start holes flash, so a player with no screen
tells the reasons apart; also the board's question, the link's and the stuck-button signs."""

from __future__ import annotations

from boardctl.board.theme import YELLOW
from boardctl.refusals import MEANINGS, Refusal
from boardctl.view import ButtonId

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

SIGN_SECONDS = 4.0  # s a refusal's sign stays lit (the service keeps the refusal for longer)


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


#: The board asks about the last entry (``extra.ask``): steady, so a restart shows the same.
ASK_SIGN = "a start hole and the status LED steady white"
ASK_MEANING = "the board asks: pegging or a hand count? heels or pegging? (undo held)"


def ask_question(name: str, points: object, kind: object, other: object) -> str:
    """The board's question in words: "is Bob's 2 heels or pegging?"."""
    return f"is {name}'s {points} {kind} or {other}?"


#: Linked boards (boardctl.remote): the host cannot be reached (``extra.link_lost``), and the
#: link has ended (``extra.link_ended``): its own sign, a slow blink of the same holes.
LINK_LOST_SIGN = "start holes and the status LED steady white"
LINK_LOST_MEANING = "linked boards: the host cannot be reached; entries wait"
LINK_ENDED_SIGN = "start holes and the status LED blinking white, slowly"
LINK_ENDED_MEANING = "linked boards: the link has ended (remote leave), no fault"
LINK_ENDED_STEP = 0.5  # seconds on, seconds off
#: A joined board's undo on its way to the host (``extra.undoing``): the peg it takes back
#: blinks on the pending entries' beat (the renderer's undo layer) until the host answers.
UNDO_SENT_SIGN = "front peg blinking"
UNDO_SENT_MEANING = "linked boards: an undo sent to the host, not yet taken back"


#: A contact held past ``[inputs] stuck_after`` (``extra.stuck``), ignored until released:
#: two 0.1 s yellow flashes a second (no other sign blinks so), over everything else.
STUCK_COLOUR = YELLOW
STUCK_PERIOD = 1.0
STUCK_FLASHES = ((0.0, 0.1), (0.2, 0.3))  # (on, off) within each period
#: The hole a stuck track button lights with its start hole (0: the start hole alone).
STUCK_HOLES = {"plus1": 1, "plus5": 5, "encoder_push": 0}
STUCK_SIGN = (
    "yellow double flash on a start hole (with hole 1: its +1, hole 5: its +5, alone: its push)"
    " or the status LED (undo; with every start hole: menu)"
)
STUCK_MEANING = "that button is stuck: ignored until released"


def stuck_on(now: float) -> bool:
    """Whether the stuck sign's double flash is lit at ``now``."""
    phase = now % STUCK_PERIOD
    return any(on <= phase < off for on, off in STUCK_FLASHES)


def stuck_next(now: float) -> float:
    """When the stuck sign's double flash next turns on or off after ``now``."""
    start = now - now % STUCK_PERIOD
    edges = [start + t for flash in STUCK_FLASHES for t in flash] + [start + STUCK_PERIOD]
    return min(edge for edge in edges if edge > now)


def stuck_places(button: ButtonId, tracks: int, status: bool) -> list[tuple[int, int] | None]:
    """Where a stuck button's sign is (``(track, hole)``, ``None`` the status LED): a track
    button its start hole and :data:`STUCK_HOLES`, undo the status LED (else every hole 1),
    menu the status LED and every start hole (:data:`STUCK_SIGN`)."""
    if button.track is not None:
        if button.role not in STUCK_HOLES or not 0 <= button.track < tracks:
            return []
        hole = STUCK_HOLES[button.role]
        return [(button.track, 0), (button.track, hole)] if hole else [(button.track, 0)]
    starts: list[tuple[int, int] | None] = [(track, 0) for track in range(tracks)]
    if button.role == "undo":
        return [None] if status else [(track, 1) for track in range(tracks)]
    if button.role == "menu":
        return [None, *starts] if status else starts
    return []


def stuck_line(names: object) -> str:
    """The stuck buttons in words, for ``boardctl status`` (empty: none is stuck)."""
    if not isinstance(names, list | tuple) or not names:
        return ""
    which = ", ".join(str(name) for name in names)
    return (
        f"stuck button: {which}: held past stuck_after and ignored until released"
        " (the board shows it double-flashing yellow)"
    )
