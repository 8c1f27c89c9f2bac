"""The skunk lines come from the rule set: the engine, the LEDs, the pictures and the status agree.

Under the house rule ``fraction-lines`` (English seed 003) the lines sit at 3/4
and 1/2 of the target: 91 and 61 at 121 (and no triple line), 46 and 31 at 61.
The engine scores by :func:`boardctl.view.skunk_lines` and puts the lines in
the view; the renderer, the virtual board and the PNG draw the view's lines.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

from boardctl.board.frame import pixel
from boardctl.board.layout import builtin_layout
from boardctl.board.render import Renderer
from boardctl.board.snapshot import Picture
from boardctl.board.terminal import draw_board
from boardctl.board.theme import DEFAULT_THEME, scaled
from boardctl.board.viewjson import view_from_dict
from boardctl.cli.cmd_status import summary_lines
from boardctl.errors import ConfigError
from boardctl.game.commands import parse_command
from boardctl.game.keeper import Scorekeeper
from boardctl.game.setup import get_preset
from boardctl.game.status import status_dict
from boardctl.view import BoardView, TrackView, lines_failed, skunk_lines
from tests.golden import golden_text
from tests.test_render_golden import golden_frame

# (rules, target, the loser's score, layout): a finished game whose lines differ by rule set
GAMES = {
    "acc-61": ("acc", 61, 40, "two-61"),
    "english-61": ("english", 61, 40, "two-61"),
    "acc-121": ("acc", 121, 25, "two-121"),
    "english-121": ("english", 121, 25, "two-121"),
}
NOW = 31.0  # seconds after the game's end: the comet and the blinking are over, failed lines lit


def finished(rules: str, target: int, loser: int) -> Scorekeeper:
    """A free game under ``rules`` to ``target`` that track 1 won with track 2 at ``loser``."""
    variant = "five-card" if target == 61 else "six-card"
    commands: Iterable[Mapping[str, Any]] = (
        {"op": "new_game", "variant": variant, "rules": rules, "target": target, "mode": "free"},
        {"op": "peg", "track": 1, "points": loser, "kind": "correction"},
        {"op": "peg", "track": 0, "points": target, "kind": "correction"},
    )
    keeper = Scorekeeper.memory()
    for command in commands:
        keeper.apply(parse_command(dict(command)))
    return keeper


def game_view(name: str) -> tuple[BoardView, str]:
    rules, target, loser, layout = GAMES[name]
    view = finished(rules, target, loser).view()
    return dataclasses.replace(view, over_at=0.0), layout


def test_the_lines_of_each_rule() -> None:
    assert skunk_lines(121) == (91, 61, 31)
    assert skunk_lines(121, fractions=True) == (91, 61)
    assert skunk_lines(61) == (31, 1, -29)
    assert skunk_lines(61, fractions=True) == (46, 31)


@pytest.mark.parametrize("target", range(31, 256))
def test_fraction_lines_are_the_seed_text_for_every_target(target: int) -> None:
    # seed 003: "fails to meet 3/4 the target" (skunk), "doesn't reach the half" (double)
    for score in range(target + 1):
        expected = (4 * score < 3 * target) + (2 * score < target)
        assert lines_failed(target, score, fractions=True) == expected


@pytest.mark.parametrize("name", sorted(GAMES))
def test_engine_view_status_and_points_use_the_same_lines(name: str) -> None:
    rules, target, loser, _layout = GAMES[name]
    keeper = finished(rules, target, loser)
    fractions = rules == "english"
    lines = skunk_lines(target, fractions=fractions)
    view = keeper.view()
    status = json.loads(json.dumps(status_dict(keeper.state)))
    assert view.lines == lines and view.skunk_lines == lines
    assert status["lines"] == list(lines)
    failed = lines_failed(target, loser, fractions=fractions)
    assert view.line_failed(1) == failed == status["tracks"][1]["lines_failed"]
    preset = get_preset(status["preset"])
    assert status["won_points"] == preset.game_points(target, loser, fractions=fractions)
    words = summary_lines(status)
    assert any("skunked" in line for line in words) == (failed > 0)
    # the status JSON drawn as a picture (``status --json | snapshot --state -``) has the lines
    assert view_from_dict(status).skunk_lines == lines


def test_english_61_differs_from_acc_61_as_the_seed_says() -> None:
    acc, _ = game_view("acc-61")
    english, _ = game_view("english-61")
    assert (acc.line_failed(1), english.line_failed(1)) == (0, 1)  # 40 is past 31, short of 46
    acc_121, _ = game_view("acc-121")
    english_121, _ = game_view("english-121")
    assert (acc_121.line_failed(1), english_121.line_failed(1)) == (3, 2)  # no triple line


def test_the_leds_sit_on_the_rule_sets_lines() -> None:
    layout = builtin_layout("two-61")  # painted board: the line's hole is tinted on every track
    faint = [bytes(scaled(c, DEFAULT_THEME.line_level)) for c in DEFAULT_THEME.lines]
    for name, tinted in (("acc-61", {31: 0}), ("english-61", {46: 0, 31: 1})):
        view, _ = game_view(name)
        view = BoardView(61, (TrackView("A", 5), TrackView("B", 3)), lines=view.lines)
        frame = Renderer(layout).render(view, 0.0)
        for track in range(2):
            for hole in (31, 46):
                colour = bytes(pixel(frame, layout.led_of(track, hole)))
                want = faint[tinted[hole]] if hole in tinted else bytes(3)
                assert colour == want, (name, track, hole)
    markers = builtin_layout("two-121")  # marker LEDs: the triple marker is dark in English
    for name, triple_lit in (("acc-121", True), ("english-121", False)):
        view, _ = game_view(name)
        frame = Renderer(markers).render(BoardView(121, view.tracks, lines=view.lines), 0.0)
        assert any(pixel(frame, markers.markers["triple"][0])) is triple_lit
        assert any(pixel(frame, markers.markers["double"][0]))


@pytest.mark.parametrize("name", sorted(GAMES))
def test_golden_frames_of_the_lines(name: str) -> None:
    view, layout_name = game_view(name)
    layout = builtin_layout(layout_name)
    frame = Renderer(layout).render(view, NOW)
    stored, differences = golden_frame(
        f"frame-lines-{name}.json", layout_name, layout, view, NOW, frame
    )
    assert view_from_dict(stored["view"]) == view, "the position changed: regenerate the file"
    assert not differences, f"{name}: {len(differences)} LEDs differ\n" + "\n".join(differences)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_golden_virtual_boards_of_the_lines(name: str) -> None:
    view, layout_name = game_view(name)
    layout = builtin_layout(layout_name)
    text = draw_board(view, Renderer(layout).render(view, NOW), layout, color="none")
    assert text == golden_text(f"terminal-lines-{name}.txt", text)
    drawn = [int(line.split(")")[0]) for line in text.split("skunk line (")[1:]]
    assert sorted(drawn, reverse=True) == [h for h in view.skunk_lines if 1 < h < view.target]


def test_the_virtual_board_points_at_a_line_inside_a_row() -> None:
    view, layout_name = game_view("english-61")
    layout = builtin_layout(layout_name)
    rows = draw_board(view, Renderer(layout).render(view, NOW), layout, color="none").splitlines()
    pointer = next(row for row in rows if "v skunk line (46)" in row)
    track_row = next(row for row in rows if row.endswith("31-60"))
    column = pointer.index("v")
    # above hole 46: the row's bar "|" sits just before it
    assert track_row[column - 1] == "|" and track_row[column] in ".*B"


def test_the_picture_paints_the_rule_sets_lines() -> None:
    english, _ = game_view("english-61")
    picture = Picture(builtin_layout("two-61"), english)
    labels = [text for _xy, text in picture.texts if "line (" in text]
    assert labels == ["double skunk line (31)", "skunk line (46)"]
    assert len(picture.rules) == 1 and len(picture.ticks) == 1  # 31 between rows, 46 inside
    acc, _ = game_view("acc-61")
    acc_picture = Picture(builtin_layout("two-61"), acc)
    assert [t for _xy, t in acc_picture.texts if "line (" in t] == ["skunk line (31)"]
    assert not acc_picture.ticks


def test_a_state_with_bad_lines_is_refused_with_the_key() -> None:
    base = {"target": 121, "tracks": [{"front": 5}, {"front": 9}]}
    assert view_from_dict({**base, "lines": [91, 61]}).skunk_lines == (91, 61)
    assert view_from_dict({**base, "lines": None}).skunk_lines == (91, 61, 31)
    for bad, words in (
        ([61, 91], "must go down"),
        ([91, 61, 31, 1], "at most 3"),
        ("91", "at most 3"),
        ([91, "61"], r"lines\[1\] must be a whole number"),
    ):
        with pytest.raises(ConfigError, match=words):
            view_from_dict({**base, "lines": bad})


def test_the_docs_picture_is_the_english_demo_on_the_painted_board() -> None:
    """docs/images/board-english-61.png is ``snapshot --demo english-61 --layout two-61``."""
    from PIL import Image

    from boardctl.board.demo import DEMOS
    from boardctl.board.snapshot import HOLE
    from boardctl.board.theme import display_colour

    layout = builtin_layout("two-61")
    view, now = DEMOS["english-61"]
    assert view.skunk_lines == (46, 31) and view.line_failed(1) == 1
    path = Path(__file__).resolve().parent.parent / "docs" / "images" / "board-english-61.png"
    image = Image.open(path).convert("RGB")
    frame = Renderer(layout).render(view, now)
    picture = Picture(layout, view, scale=2)
    assert image.size == (picture.width, picture.height)
    for led, xy in picture.leds.items():
        colour = pixel(frame, led)
        assert image.getpixel(xy) == (display_colour(colour) if any(colour) else HOLE), led
    # the loser's hole 46 (the skunk line he failed) is lit in the skunk colour
    assert bytes(pixel(frame, layout.led_of(1, 46))) == bytes(DEFAULT_THEME.lines[0])
