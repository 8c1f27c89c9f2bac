"""The play-by-play wording: counts as spoken, play calls, peg markers, results."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from boardctl.demo.log import (
    Style,
    count_items,
    number_word,
    parse_marker,
    play_phrase,
    recite,
    result_line,
    scored,
    spoken_reason,
    style_for,
)


@pytest.mark.parametrize(
    ("n", "word"),
    [(0, "zero"), (2, "two"), (15, "fifteen"), (20, "twenty"), (21, "twenty-one"),
     (29, "twenty-nine"), (31, "thirty-one"), (99, "ninety-nine"), (121, "121")],
)  # fmt: skip
def test_number_words(n: int, word: str) -> None:
    assert number_word(n) == word


def test_recite_counts_fifteens_by_running_total_then_the_rest() -> None:
    assert recite([("fifteen", 2), ("fifteen", 2), ("pair", 2)]) == (
        "fifteen two, fifteen four and a pair is six"
    )
    text = recite(
        [("fifteen", 2), ("run of three", 3), ("run of three", 3), ("pair", 2),
         ("flush of four", 4), ("his nob", 1)]
    )  # fmt: skip
    assert text == (
        "fifteen two, a run of three is five, another run of three is eight, a pair is ten, "
        "a flush of four is fourteen and one for his nob is fifteen"
    )
    assert recite([("pair royal", 6)]) == "a pair royal is six"
    assert recite([]) == "nineteen: nothing"


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


@dataclass(frozen=True)
class Item:
    kind: str
    cards: tuple[int, ...]
    points: int


def test_count_items_groups_pairs_into_royals_and_names_runs() -> None:
    items = [
        Item("fifteen", (5, 10), 2),
        Item("pair", (5, 5), 2),
        Item("pair", (5, 5), 2),
        Item("pair", (5, 5), 2),
        Item("pair", (9, 9), 2),
        Item("run", (3, 4, 5, 6), 4),
        Item("flush", (1, 2, 3, 4), 4),
        Item("nobs", (11,), 1),
    ]
    assert count_items(items) == [
        ("fifteen", 2),
        ("pair royal", 6),
        ("pair", 2),
        ("run of four", 4),
        ("flush of four", 4),
        ("his nob", 1),
    ]
    assert sum(points for _, points in count_items(items)) == sum(i.points for i in items)


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
    assert Style(unicode=False).card("10", "D") == "10D"
    assert Style(unicode=True).card("Q", "H") == "Q♥"


def test_result_line_names_winner_skunk_and_game_points() -> None:
    assert result_line("Bob", [("Bob", 121), ("Alice", 84)], 1, 3) == (
        "Bob wins (Bob 121, Alice 84): a skunk. Bob takes 3 game points."
    )
    assert result_line("Alice", [("Alice", 61), ("Bob", 50)], 0, 1) == (
        "Alice wins (Alice 61, Bob 50). Alice takes 1 game point."
    )
