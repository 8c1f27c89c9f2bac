"""What the board says, in the words players use at the table.

Pure functions from what happened to a phrase: "Alice, fifteen two, fifteen
four and a pair is six" when the cards were entered, "Alice twelve,
one-oh-three" when only the points were; whose count is next; why an entry
was refused; the score on request.
"""

from __future__ import annotations

from collections.abc import Sequence

from boardctl.cribbage.hand import HandScore
from boardctl.cribbage.speech import number_words, say_count
from boardctl.refusals import MEANINGS, Refusal


def score_words(score: int) -> str:
    """A peg position as players say it: 91 ``ninety-one``, 103 ``one-oh-three``, 121
    ``one twenty-one``, 100 ``one hundred``."""
    if score < 100:
        return number_words(score)
    hundreds, rest = divmod(score, 100)
    head = number_words(hundreds)
    if rest == 0:
        return f"{head} hundred"
    if rest < 10:
        return f"{head}-oh-{number_words(rest)}"
    return f"{head} {number_words(rest)}" if rest >= 20 else f"{head}-{number_words(rest)}"


def entry(name: str, points: int, front: int, *, count: HandScore | None = None) -> str:
    """An entry recorded: the count in words with the cards, else the points and the score."""
    if count is not None:
        return f"{name}, {say_count(count)}"
    return f"{name} {number_words(points)}, {score_words(front)}"


def to_count(name: str, *, crib: bool = False) -> str:
    """Whose count is next in the show."""
    return f"{name}'s crib" if crib else f"{name} to count"


def deals(name: str) -> str:
    """Who deals the next hand."""
    return f"{name} deals"


def the_play() -> str:
    """The play begins (guided games)."""
    return "The play"


def new_game() -> str:
    """A new game has started."""
    return "New game"


def refusal(reason: Refusal) -> str:
    """Why an entry was refused (the quick-reference card's words)."""
    return f"Refused: {MEANINGS[reason]}."


def skunk_line(name: str) -> str:
    """A track has crossed the skunk line."""
    return f"{name} is past the skunk line"


def win(name: str, scores: Sequence[tuple[str, int]], *, skunk: int = 0) -> str:
    """The game is won: the winner, every score, and the skunk if any."""
    kinds = {1: "a skunk", 2: "a double skunk", 3: "a triple skunk"}
    said = ", ".join(f"{n} {score_words(s)}" for n, s in scores)
    tail = f", with {kinds[skunk]}" if skunk in kinds else ""
    return f"{name} wins{tail}. {said}."


def scores(tracks: Sequence[tuple[str, int]]) -> str:
    """The score on request: every track, front peg first."""
    return ", ".join(f"{name} {score_words(front)}" for name, front in tracks) + "."
