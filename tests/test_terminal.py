"""The virtual board as text: layout, letters, colours and the auto colour mode."""

from __future__ import annotations

import io
import re
from dataclasses import replace

import pytest

from boardctl.board.demo import DEMOS
from boardctl.board.layout import builtin_layout
from boardctl.board.render import Renderer
from boardctl.board.terminal import draw_board, resolve_color_mode, xterm256
from boardctl.board.theme import ORANGE, display_colour
from boardctl.view import BoardView, TrackView
from tests.golden import golden_text

LAYOUT = builtin_layout("two-121")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def board(name: str, color: str) -> str:
    view, now = DEMOS[name]
    return draw_board(view, Renderer(LAYOUT).render(view, now), LAYOUT, color=color)


@pytest.mark.parametrize("name", ["pending", "double-skunk", "match-point"])
def test_plain_board_matches_the_golden_text(name: str) -> None:
    text = board(name, "none")
    assert "\x1b" not in text  # plain means no escape codes at all
    assert text == golden_text(f"terminal-{name}.txt", text)


def test_truecolor_board_matches_the_golden_text() -> None:
    text = board("mid-game", "truecolor")
    assert text == golden_text("terminal-mid-game-truecolor.txt", text)


def test_plain_board_is_laid_out_like_the_wooden_board() -> None:
    lines = board("pending", "none").splitlines()
    alice = [line for line in lines if line.startswith("Alice")]
    bob = [line for line in lines if line.startswith("Bob")]
    assert len(alice) == len(bob) == 5  # four rows of 30 and the game hole
    first = alice[0]
    # start hole, then six groups of five holes
    assert re.search(r"Alice +\. +(\S{5} ){5}\S{5} +1-30", first)
    # Alice: front 45 (row 2, hole 15), back 40 (row 2, hole 10), pending +6 at 51 blinking on
    assert alice[1].split()[1:7] == [".....", "....a", "....A", ".....", "+....", "....."]
    # beside the track's rows: score and back peg, then pending, then the dealer
    assert first.endswith("45  back 40")
    assert alice[1].endswith("pending +6  D dealer")
    assert "52  back 50" in bob[0]
    # the lines sit between the rows, before holes 31, 61 and 91
    separators = [line.strip() for line in lines if "line (" in line]
    assert separators == [
        ". -- triple skunk line (31) --",
        ". -- double skunk line (61) --",
        ". -- skunk line (91) --",
    ]
    assert lines.index(next(x for x in lines if "(91)" in x)) == lines.index(alice[3]) - 1


def test_plain_board_shows_the_failed_line_and_the_winner() -> None:
    text = board("double-skunk", "none")
    bob = [line for line in text.splitlines() if line.startswith("Bob")]
    assert any(line.endswith("double-skunked") for line in bob)  # beside the loser's rows
    assert "skunked" not in text.splitlines()[0]
    assert "! -- double skunk line (61) --" in text  # the marker is lit
    assert "WINNER" in text


def test_colour_board_uses_the_frame_colours() -> None:
    text = board("pending", "truecolor")
    r, g, b = display_colour(ORANGE)
    assert f"\x1b[38;2;{r};{g};{b}m●" in text
    assert ANSI.sub("", text).count("●") >= 7  # pegs, pending, markers, dealer, status
    # the same layout as the plain board, column for column
    plain = board("pending", "none").splitlines()
    coloured = ANSI.sub("", text).splitlines()
    assert [len(line) for line in coloured[1:]] == [len(line) for line in plain[1:]]


def test_256_colour_fallback() -> None:
    text = board("pending", "256")
    assert "\x1b[38;5;" in text and "\x1b[38;2;" not in text
    assert xterm256((0, 0, 0)) == 16
    assert xterm256((255, 0, 0)) == 196
    assert xterm256((86, 180, 233)) == 16 + 36 * 1 + 6 * 3 + 4


def test_auto_colour_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv("COLORTERM", "truecolor")
    assert resolve_color_mode("auto", Tty()) == "truecolor"
    assert resolve_color_mode("auto", io.StringIO()) == "none"  # not a terminal
    monkeypatch.delenv("COLORTERM")
    assert resolve_color_mode("auto", Tty()) == "256"
    monkeypatch.setenv("TERM", "dumb")
    assert resolve_color_mode("auto", Tty()) == "none"
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.setenv("NO_COLOR", "1")
    assert resolve_color_mode("auto", Tty()) == "none"
    with pytest.raises(ValueError, match="color must be"):
        resolve_color_mode("16")


def test_three_tracks_and_a_short_game() -> None:
    layout = builtin_layout("three-121")
    view = BoardView(121, (TrackView("A", 3), TrackView("B", 10), TrackView("C", 121, 100)))
    text = draw_board(view, Renderer(layout).render(view, 0.0), layout, color="none")
    assert len([line for line in text.splitlines() if line.startswith("C ")]) == 5
    short = builtin_layout("two-61")
    view = BoardView(61, (TrackView("Ann", 33, 30), TrackView("Bo", 0, 0)))
    text = draw_board(view, Renderer(short).render(view, 0.0), short, color="none")
    assert [line.strip() for line in text.splitlines() if "line (" in line] == [
        "-- skunk line (31) --"
    ]
    assert len(text.splitlines()) == 2 + 3 * 2 + 1


def test_docstring_examples_run() -> None:
    import doctest

    from boardctl.board import render, terminal

    for module in (render, terminal):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0, module.__name__


@pytest.mark.parametrize("name", sorted(DEMOS))
def test_every_line_fits_an_80_column_terminal(name: str) -> None:
    for line in board(name, "none").splitlines():
        assert len(line) <= 80, line


def test_a_single_game_won_is_not_called_a_match() -> None:
    view = BoardView(
        121,
        (TrackView("Ann", 121, 110, game_points=2), TrackView("Bo", 100, 95)),
        phase="over",
        winner=0,
        match_target=0,
        match_winner=0,
    )
    text = draw_board(view, Renderer(LAYOUT).render(view, 0.0), LAYOUT, color="none")
    assert "WINNER" in text and "games 2" in text
    assert "MATCH" not in text
    in_a_match = replace(view, match_target=7)
    text = draw_board(in_a_match, Renderer(LAYOUT).render(in_a_match, 0.0), LAYOUT, color="none")
    assert "games 2/7" in text and "MATCH" in text
