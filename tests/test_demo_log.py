"""The play-by-play wording: counts as spoken, play calls, peg markers, results."""

from __future__ import annotations

import re

import pytest

from boardctl.cribbage.cards import Card
from boardctl.demo.log import (
    Style,
    play_phrase,
    result_line,
    scored,
    spoken_reason,
    style_for,
)

_MARKER = re.compile(r"\[(?P<name>[^\[\]]+?) \+(?P<points>\d+) (?:→|->) (?P<total>\d+)\]\s*$")


def parse_marker(line: str) -> tuple[str, int, int] | None:
    """``(name, points, total)`` from a line ending in a peg marker, else ``None``."""
    match = _MARKER.search(line)
    if match is None:
        return None
    return match["name"], int(match["points"]), int(match["total"])


@pytest.mark.parametrize(
    ("reason", "spoken"),
    [
        ("fifteen for 2", "fifteen two"),
        ("thirty-one for 2", "thirty-one for two"),
        ("a pair for 2", "a pair for two"),
        ("three of a kind for 6", "pair royal for six"),
        ("four of a kind for 12", "double pair royal for twelve"),
        ("a run of 4 for 4", "a run of four for four"),
        ("something new", "something new"),
    ],
)
def test_play_reasons_are_spoken(reason: str, spoken: str) -> None:
    assert spoken_reason(reason) == spoken


def test_play_phrases_join_reasons_and_total_them() -> None:
    assert play_phrase(["fifteen for 2"], 2) == "fifteen two"
    assert play_phrase(["fifteen for 2", "three of a kind for 6"], 8) == (
        "fifteen two and pair royal for six (8)"
    )


@pytest.mark.parametrize("unicode", [True, False])
def test_marker_round_trips(unicode: bool) -> None:
    style = Style(unicode=unicode)
    line = scored("Alice plays 5♣ for fifteen two (count 15).", "Alice & Carol", 2, 17, style)
    assert parse_marker(line) == ("Alice & Carol", 2, 17)
    assert ("→" in line) is unicode
    assert parse_marker("Alice plays 4♣ (count 19).") is None


def test_style_follows_the_stream_encoding() -> None:
    assert style_for("utf-8").unicode
    assert not style_for("ascii").unicode
    assert not style_for(None).unicode
    assert not style_for("no-such-codec").unicode
    assert Style(unicode=False).card(Card(10, 2)) == "10D"
    assert Style(unicode=True).card(Card(12, 1)) == "Q♥"


def test_result_line_names_winner_skunk_and_game_points() -> None:
    assert result_line("Bob", [("Bob", 121), ("Alice", 84)], 1, 3) == (
        "Bob wins (Bob 121, Alice 84): a skunk. Bob takes 3 game points."
    )
    assert result_line("Alice", [("Alice", 61), ("Bob", 50)], 0, 1) == (
        "Alice wins (Alice 61, Bob 50): no skunk. Alice takes 1 game point."
    )
    assert result_line("Ann & Cy", [("Ann & Cy", 121), ("Bo & Di", 95)], 0, 2, team=True) == (
        "Ann & Cy win (Ann & Cy 121, Bo & Di 95): no skunk. Ann & Cy take 2 game points."
    )
