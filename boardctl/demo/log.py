"""The play-by-play: a demo game told the way players say it at the table.

Pure text functions, no I/O. Every line that moves a peg ends with a marker
``[Name +N → total]`` (``->`` in plain ASCII) so a reader, or a test, can follow
the score from the log alone: :func:`parse_marker` reads it back.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

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


_PLAY_PHRASES = {
    "fifteen": "fifteen two",
    "thirty-one": "thirty-one for two",
    "pair": "a pair for two",
    "pair royal": "pair royal for six",
    "double pair royal": "double pair royal for twelve",
}


def play_phrase(parts: Sequence[tuple[str, int]]) -> str:
    """What a player says for the points of one card in the play.

    ``parts`` are ``(label, points)``: ``"fifteen"``, ``"thirty-one"``,
    ``"pair"``, ``"pair royal"``, ``"double pair royal"``, ``"run of N"``.

    >>> play_phrase([("fifteen", 2), ("pair", 2)])
    'fifteen two and a pair for two (4)'
    """
    phrases = []
    for label, points in parts:
        phrase = _PLAY_PHRASES.get(label)
        if phrase is None:
            phrase = f"{_with_article(label)} for {number_word(points)}"
        phrases.append(phrase)
    text = phrases[0] if len(phrases) == 1 else ", ".join(phrases[:-1]) + " and " + phrases[-1]
    if len(parts) > 1:
        text += f" ({sum(points for _, points in parts)})"
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
