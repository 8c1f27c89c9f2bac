"""The play-by-play: a demo game told the way players say it at the table.

Pure text functions, no I/O. Every line that moves a peg ends with a marker
``[Name +N → total]`` (``->`` in plain ASCII) so a reader, or a test, can follow
the score from the log alone: :func:`parse_marker` reads it back.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

_UNITS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
          "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
          "eighteen", "nineteen")  # fmt: skip
_TENS = {20: "twenty", 30: "thirty", 40: "forty", 50: "fifty", 60: "sixty", 70: "seventy",
         80: "eighty", 90: "ninety"}  # fmt: skip

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def number_word(n: int) -> str:
    """``29`` -> ``"twenty-nine"`` (0..99; larger numbers as digits)."""
    if 0 <= n < 20:
        return _UNITS[n]
    if 20 <= n < 100:
        tens, unit = divmod(n, 10)
        word = _TENS[tens * 10]
        return word if unit == 0 else f"{word}-{_UNITS[unit]}"
    return str(n)


@dataclass(frozen=True, slots=True)
class Style:
    """How to write cards and arrows: Unicode suits, or plain ASCII for any terminal."""

    unicode: bool = True

    @property
    def arrow(self) -> str:
        """The arrow in a peg marker."""
        return "→" if self.unicode else "->"

    def card(self, rank: str, suit: str) -> str:
        """A card from its rank text (``A``, ``2``..``10``, ``J``, ``Q``, ``K``) and suit letter."""
        return f"{rank}{SUIT_SYMBOLS[suit] if self.unicode else suit}"


def style_for(encoding: str | None) -> Style:
    """The richest style a stream with ``encoding`` can print."""
    try:
        ("♠♥♦♣→").encode(encoding or "ascii")
    except (LookupError, UnicodeEncodeError):
        return Style(unicode=False)
    return Style(unicode=True)


# --- scores as spoken ------------------------------------------------------
def _with_article(label: str) -> str:
    return f"an {label}" if label[:1] in "aeiou" else f"a {label}"


def recite(items: Sequence[tuple[str, int]]) -> str:
    """A hand or crib count as it is said aloud.

    ``items`` are ``(label, points)`` in the order they are counted: label
    ``"fifteen"`` for each fifteen, otherwise a noun phrase such as ``"pair"``,
    ``"pair royal"``, ``"run of three"``, ``"flush of four"``, ``"his nob"``.

    >>> recite([("fifteen", 2), ("fifteen", 2), ("pair", 2)])
    'fifteen two, fifteen four and a pair is six'
    """
    if not items:
        return "nineteen: nothing"
    phrases: list[str] = []
    total = 0
    seen: set[str] = set()
    for label, points in items:
        total += points
        if label == "fifteen":
            phrases.append(f"fifteen {number_word(total)}")
            continue
        if label == "his nob":
            spoken = "one for his nob"
        elif label in seen:
            spoken = f"another {label}"
        else:
            spoken = _with_article(label)
        seen.add(label)
        phrases.append(f"{spoken} is {number_word(total)}")
    if len(phrases) == 1:
        return phrases[0]
    return ", ".join(phrases[:-1]) + " and " + phrases[-1]


class ScoreItemLike(Protocol):
    """One scoring combination of a hand count (the rules engine's ``ScoreItem``)."""

    @property
    def kind(self) -> str: ...  # fifteen, pair, run, flush, nobs

    @property
    def cards(self) -> Sequence[Any]: ...

    @property
    def points(self) -> int: ...


_ROYALS = {1: "pair", 3: "pair royal", 6: "double pair royal"}


def count_items(items: Sequence[ScoreItemLike]) -> list[tuple[str, int]]:
    """A hand's scoring items as :func:`recite` says them.

    Pairs of one rank are said together (three pairs are a pair royal, six a
    double pair royal); runs, flushes and nobs by name.
    """
    said: list[tuple[str, int]] = []
    pairs: dict[Any, list[int]] = {}
    for item in items:
        if item.kind == "pair":
            pairs.setdefault(getattr(item.cards[0], "rank", item.cards[0]), []).append(item.points)
    for item in items:
        if item.kind == "fifteen":
            said.append(("fifteen", item.points))
        elif item.kind == "pair":
            rank = getattr(item.cards[0], "rank", item.cards[0])
            group = pairs.pop(rank, None)
            if group is not None:
                said.append((_ROYALS.get(len(group), f"{len(group)} pairs"), sum(group)))
        elif item.kind == "run":
            said.append((f"run of {number_word(len(item.cards))}", item.points))
        elif item.kind == "flush":
            said.append((f"flush of {number_word(item.points)}", item.points))
        elif item.kind == "nobs":
            said.append(("his nob", item.points))
        else:
            said.append((item.kind, item.points))
    return said


_RENAMED = {
    "three of a kind": "pair royal",
    "four of a kind": "double pair royal",
}
_REASON = re.compile(r"^(?P<what>.+?) for (?P<points>\d+)$")


def spoken_reason(reason: str) -> str:
    """One scoring reason of the play as it is said: ``"fifteen for 2"`` -> ``"fifteen two"``.

    Reasons are the rules engine's ``"<what> for <points>"`` texts; numbers
    become words and three/four of a kind are called pair royal / double pair royal.
    """
    match = _REASON.match(reason)
    if match is None:
        return reason
    what = match["what"]
    points = number_word(int(match["points"]))
    if what == "fifteen":
        return f"fifteen {points}"
    what = re.sub(r"\d+", lambda m: number_word(int(m[0])), what)
    for plain, name in _RENAMED.items():
        if what in (plain, f"a {plain}"):
            what = name
    return f"{what} for {points}"


def play_phrase(reasons: Sequence[str], points: int) -> str:
    """What a player says for the points of one card in the play.

    >>> play_phrase(["fifteen for 2", "a pair for 2"], 4)
    'fifteen two and a pair for two (4)'
    """
    phrases = [spoken_reason(reason) for reason in reasons]
    if not phrases:
        return number_word(points)
    text = phrases[0] if len(phrases) == 1 else ", ".join(phrases[:-1]) + " and " + phrases[-1]
    if len(phrases) > 1:
        text += f" ({points})"
    return text


# --- peg markers -----------------------------------------------------------
def marker(name: str, points: int, total: int, style: Style) -> str:
    """The peg marker that ends every scoring line: ``[Bob +2 → 17]``."""
    return f"[{name} +{points} {style.arrow} {total}]"


_MARKER = re.compile(r"\[(?P<name>[^\[\]]+?) \+(?P<points>\d+) (?:→|->) (?P<total>\d+)\]\s*$")


def parse_marker(line: str) -> tuple[str, int, int] | None:
    """``(name, points, total)`` from a line ending in a peg marker, else ``None``."""
    match = _MARKER.search(line)
    if match is None:
        return None
    return match["name"], int(match["points"]), int(match["total"])


def scored(text: str, name: str, points: int, total: int, style: Style) -> str:
    """A log line with its peg marker."""
    return f"{text}  {marker(name, points, total, style)}"


# --- results ---------------------------------------------------------------
_LINE_NAMES = ("", "a skunk", "a double skunk", "a triple skunk")


def result_line(
    winner: str, scores: Sequence[tuple[str, int]], lines_failed: int, game_points: int
) -> str:
    """The last line of a game: who won, by how much, skunk or not, the game points.

    ``lines_failed`` is the most skunk lines any loser failed to cross.
    """
    score_text = ", ".join(f"{name} {score}" for name, score in scores)
    won = f"{winner} wins ({score_text})"
    if lines_failed:
        won += f": {_LINE_NAMES[min(lines_failed, 3)]}"
    plural = "" if game_points == 1 else "s"
    return f"{won}. {winner} takes {game_points} game point{plural}."
