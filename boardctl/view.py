"""What the board must show, as plain immutable data: the contract between the engine (which
builds a :class:`BoardView`), the service (which adds the pending entry and the refusal) and
the renderers (pure functions of a view and a time)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from boardctl.refusals import Refusal

# Phases of a guided game. Free mode uses only "free" and "over".
PHASES = ("cut", "deal", "play", "show", "over", "free")


def skunk_lines(target: int, *, fractions: bool = False) -> tuple[int, ...]:
    """The skunk lines of a game to ``target`` (the lowest score that escapes each): target-30,
    -60 and -90, or with ``fractions`` (house rule ``fraction-lines``) 3/4 and 1/2 of it, rounded
    up (91 and 61 at 121). The one place they are computed; a line at or below 0 does not exist."""
    if fractions:
        return (-(-3 * target // 4), -(-target // 2))
    return (target - 30, target - 60, target - 90)


#: The lines' names, first to third (a loser past none of them is not skunked).
SKUNK_NAMES = ("skunk", "double skunk", "triple skunk")


def skunked(failed: int) -> str:
    """A loser who failed ``failed`` (1-3) lines, in one word: "double-skunked"."""
    return SKUNK_NAMES[min(failed, 3) - 1].replace(" ", "-") + "ed"


def lines_failed(
    target: int, score: int, *, fractions: bool = False, lines: tuple[int, ...] | None = None
) -> int:
    """How many lines (0-3) a loser with ``score`` failed to cross (``lines``, else
    :func:`skunk_lines`)."""
    shown = skunk_lines(target, fractions=fractions) if lines is None else lines
    return sum(1 for line in shown if line > 0 and score < line)


@dataclass(frozen=True, slots=True)
class Question:
    """The board asks about the last entry: is ``track``'s ``points`` ``kind`` or ``other``?"""

    track: int
    points: int
    kind: str
    other: str


@dataclass(frozen=True, slots=True)
class ButtonId:
    """A button of the board: its ``role`` (``plus1``, ``undo``, ...) on ``track`` (0-based;
    None: a shared button)."""

    role: str
    track: int | None = None

    @property
    def name(self) -> str:
        """``"undo"``, ``"menu"`` or ``"track1.plus1"`` (1-based), as the config names it."""
        return self.role if self.track is None else f"track{self.track + 1}.{self.role}"

    @classmethod
    def from_name(cls, name: str) -> ButtonId:
        """``"track2.plus5"`` -> ``ButtonId("plus5", 1)``; any other name a shared button."""
        head, _, role = name.partition(".")
        if role and head.startswith("track") and head[5:].isdigit() and int(head[5:]) >= 1:
            return cls(role, int(head[5:]) - 1)
        return cls(name)


@dataclass(frozen=True, slots=True)
class SettingsShown:
    """Settings mode on the LEDs: item ``index`` of ``count`` (``item``, set to ``value``),
    whose ``value`` is choice ``choice`` of ``choices``."""

    item: str
    index: int
    count: int
    value: object
    choice: int
    choices: int


@dataclass(frozen=True, slots=True)
class ViewExtra:
    """What the board shows beside the pegs, each field "nothing" by default: the engine's
    notes (``variant`` to ``ask``), the panel's modes (``settings`` to ``stuck``), then the
    service's."""

    variant: str = ""
    mode: str = ""
    preset: str = ""
    rules: str = ""  # the rule set's label (boardctl.cribbage.rules.rules_label)
    game_number: int = 0
    deal: int = 0
    dealer_seat: int | None = None
    counting_seat: int | None = None
    crib_due: bool = False
    won_points: int = 0
    skunk: int = 0  # at game end, the lines the winner was paid for
    lines_failed: tuple[int, ...] | None = None  # at game end, per track (None: from the view)
    ask: Question | None = None
    settings: SettingsShown | None = None  # settings mode
    confirm: Mapping[str, object] | None = None  # the new game a menu press would start
    undo_confirm: bool = False  # a second undo asks for its confirm
    signoff: tuple[int, ...] | None = None  # a result waits: the tracks that confirmed it
    stuck: tuple[ButtonId, ...] = ()  # the buttons held past stuck_after
    pending_at: float | None = None  # when the pending amount last changed
    refusal: Refusal | None = None  # the class of the last refused entry
    refused: str = ""  # its reason, in words
    # the journal's notices, named as in the status (boardctl.notices)
    journal_damage: bool = False  # the journal was damaged and recovered
    journal_fault: str | None = None  # the journal cannot be opened: why
    link_lost: bool = False  # a joined board cannot reach the host of its game (boardctl.remote)
    link_ended: bool = False  # the link to the other board ended (remote leave; boardctl.remote)
    # a joined board's undo sent to the host, not answered yet: the tracks of the entry it
    # takes back, whose front peg blinks (every track for an entry of none; boardctl.remote)
    undoing: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class TrackView:
    """One track: a player or a team; scores run from 0 (the start hole) to the target."""

    name: str
    front: int = 0
    back: int = 0  # the previous front peg
    game_points: int = 0
    pending: int = 0  # entered, not yet committed (blinking ahead of the front peg)


@dataclass(frozen=True, slots=True)
class BoardView:
    """Everything the LEDs show at one moment; times are the service's ``time.monotonic()``
    seconds (``None``: not happening)."""

    target: int
    tracks: tuple[TrackView, ...]
    phase: str = "play"
    dealer: int | None = None  # track whose player deals (owns the crib)
    to_count: int | None = None  # track whose count is due (guided show)
    winner: int | None = None  # track that won the game
    match_target: int = 0  # game points that win the match (0 = one game)
    match_winner: int | None = None
    error_at: float | None = None  # when an entry was last rejected
    over_at: float | None = None  # when the game ended
    lines: tuple[int, ...] | None = None  # the skunk lines (None: target-30, -60, -90)
    extra: ViewExtra = field(default_factory=ViewExtra, compare=False, hash=False)

    @property
    def skunk_lines(self) -> tuple[int, ...]:
        """Skunk, double-skunk (and triple-skunk) lines: ``lines``, else target-30, -60, -90."""
        return skunk_lines(self.target) if self.lines is None else self.lines

    def line_failed(self, track: int) -> int:
        """At game end, lines a loser failed to cross (0 none, 1 skunk, 2 double, 3 triple)."""
        if self.winner is None or track == self.winner:
            return 0
        given = self.extra.lines_failed  # the engine's, under the house rules in force
        if given is not None and track < len(given):
            return given[track]
        return lines_failed(self.target, self.tracks[track].front, lines=self.skunk_lines)
