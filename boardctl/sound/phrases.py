"""What the board says, in the words players use at the table (pure functions; docs/sound.md, "What
it sounds like")."""

from __future__ import annotations

from collections.abc import Sequence

from boardctl.cribbage.cards import parse_card
from boardctl.cribbage.hand import HandScore
from boardctl.cribbage.speech import number_words, say_count
from boardctl.refusals import MEANINGS, Refusal
from boardctl.view import SKUNK_NAMES


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


def points_words(points: int) -> str:
    """An entry's points: ``twelve``; a correction below zero ``minus two``."""
    return f"minus {number_words(-points)}" if points < 0 else number_words(points)


THE_PLAY = "The play"
NEW_GAME = "New game"

#: Entries players name rather than count: "two for his heels", "three for last".
NAMED_ENTRIES = {"heels": "for his heels", "last": "for last"}


def entry(name: str, points: int, front: int, *, kind: str | None = None) -> str:
    """An entry recorded without its cards: the points and the score; his heels and three for last
    by name."""
    named = NAMED_ENTRIES.get(kind or "")
    if named is not None:
        return f"{name}, {points_words(points)} {named}, {score_words(front)}"
    return f"{name} {points_words(points)}, {score_words(front)}"


def counted(name: str, front: int, count: HandScore) -> list[str]:
    """A count entered with its cards: the count as players say it, then the new score."""
    whose = f"{name}'s crib" if count.crib else name
    return [f"{whose}, {say_count(count)}", scores([(name, front)])]


#: How an entry's kind is said in the board's question.
KIND_WORDS = {"heels": "his heels", "hand": "a hand count", "crib": "the crib"}


def ask(name: str, points: int, kind: str, other: str) -> str:
    """The board's question about the last entry and how to answer it (said once):
    "Bob's two: his heels or pegging? Hold undo for pegging."."""
    said, other_said = KIND_WORDS.get(kind, kind), KIND_WORDS.get(other, other)
    return f"{name}'s {points_words(points)}: {said} or {other_said}? Hold undo for {other}."


def to_count(name: str, *, crib: bool = False) -> str:
    return f"{name}'s crib" if crib else f"{name} to count"


def deals(name: str) -> str:
    return f"{name} deals"


def starter(card: str) -> str:
    """The deal's starter named (``cut --starter``): "The starter: the five of spades"."""
    return f"The starter: the {parse_card(card).name}"


def refusal(reason: Refusal) -> str:
    """Why an entry was refused (the quick-reference card's words)."""
    return f"Refused: {MEANINGS[reason]}."


def skunk_line(name: str) -> str:
    return f"{name} is past the skunk line"


def win(name: str, scores: Sequence[tuple[str, int]], *, skunk: int = 0) -> str:
    """The game is won: the winner, every score, and the skunk if any."""
    said = ", ".join(f"{n} {score_words(s)}" for n, s in scores)
    tail = f", with a {SKUNK_NAMES[skunk - 1]}" if 1 <= skunk <= 3 else ""
    return f"{name} wins{tail}. {said}."


def scores(tracks: Sequence[tuple[str, int]]) -> str:
    """The score on request: every track, front peg first."""
    return ", ".join(f"{name} {score_words(front)}" for name, front in tracks) + "."
