"""The play-by-play in the players' words (pure text); each line that moves a peg ends with ``[Name
+N → total]`` (``->`` in ASCII), which the tests read back."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from boardctl.cribbage.cards import RANK_LETTERS, SUIT_LETTERS, SUIT_SYMBOLS, Card
from boardctl.cribbage.speech import number_words
from boardctl.view import SKUNK_NAMES


@dataclass(frozen=True, slots=True)
class Style:
    """How to write cards and arrows: Unicode suits, or plain ASCII for any terminal."""

    unicode: bool = True

    @property
    def arrow(self) -> str:
        return "→" if self.unicode else "->"

    def card(self, card: Card) -> str:
        """``10♦``, ``Q♥``, ``A♠`` (``10D`` ... in ASCII)."""
        rank = "10" if card.rank == 10 else RANK_LETTERS[card.rank - 1]
        return rank + (SUIT_SYMBOLS if self.unicode else SUIT_LETTERS)[card.suit]


def style_for(encoding: str | None) -> Style:
    """The richest style a stream with ``encoding`` can print."""
    try:
        ("♠♥♦♣→").encode(encoding or "ascii")
    except (LookupError, UnicodeEncodeError):
        return Style(unicode=False)
    return Style(unicode=True)


_RENAMED = {"three of a kind": "pair royal", "four of a kind": "double pair royal"}
_REASON = re.compile(r"^(?P<what>.+?) for (?P<points>\d+)$")


def spoken_reason(reason: str) -> str:
    """One of the engine's scoring reasons as it is said: ``"fifteen for 2"`` -> ``"fifteen
    two"``, three of a kind a pair royal."""
    match = _REASON.match(reason)
    if match is None:
        return reason
    what = match["what"]
    points = number_words(int(match["points"]))
    if what == "fifteen":
        return f"fifteen {points}"
    what = re.sub(r"\d+", lambda m: number_words(int(m[0])), what)
    return f"{_RENAMED.get(what.removeprefix('a '), what)} for {points}"


def play_phrase(reasons: Sequence[str], points: int) -> str:
    """What a player says for the points of one card in the play.

    >>> play_phrase(["fifteen for 2", "a pair for 2"], 4)
    'fifteen two and a pair for two (4)'
    """
    phrases = [spoken_reason(reason) for reason in reasons]
    if len(phrases) < 2:
        return phrases[0] if phrases else number_words(points)
    return ", ".join(phrases[:-1]) + f" and {phrases[-1]} ({points})"


def scored(text: str, name: str, points: int, total: int, style: Style) -> str:
    """A log line with the peg marker that ends every scoring line: ``[Bob +2 → 17]``."""
    return f"{text}  [{name} +{points} {style.arrow} {total}]"


def _skunk_words(failed: int) -> str:
    return f"a {SKUNK_NAMES[min(failed, 3) - 1]}" if failed > 0 else "no skunk"


def result_line(
    winner: str,
    scores: Sequence[tuple[str, int]],
    lines_failed: int,
    game_points: int,
    *,
    team: bool = False,
) -> str:
    """The last line of a game: who won (``team``: "take"), the scores, the skunk paid for
    (``lines_failed``), the game points."""
    score_text = ", ".join(f"{name} {score}" for name, score in scores)
    wins, takes = ("win", "take") if team else ("wins", "takes")
    won = f"{winner} {wins} ({score_text}): {_skunk_words(lines_failed)}"
    plural = "" if game_points == 1 else "s"
    return f"{won}. {winner} {takes} {game_points} game point{plural}."
