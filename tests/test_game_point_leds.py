"""Game points at a glance: one LED a point, a blinking LED two, golden frames for a match to 7."""

from __future__ import annotations

import pytest

from boardctl.board import Renderer, builtin_layout
from boardctl.board.frame import pixel
from boardctl.board.render import GAME_POINT_PERIOD, game_point_leds
from boardctl.board.viewjson import view_from_dict
from boardctl.view import BoardView, TrackView
from tests.test_render_golden import golden_frame

LAYOUT = builtin_layout("two-121")


def _reading(points: int, match: int, leds: int = 3) -> int:
    """What a player reads: the lit LEDs, the blinking ones counted twice."""
    lit, doubled = game_point_leds(points, match, leds)
    return lit + doubled


@pytest.mark.parametrize("match", [3, 5, 7])
def test_every_score_short_of_the_match_reads_exactly_on_three_leds(match: int) -> None:
    assert [_reading(p, match) for p in range(match)] == list(range(match))


def test_two_leds_and_long_matches() -> None:
    assert [_reading(p, 5, 2) for p in range(5)] == [0, 1, 2, 3, 4]
    assert game_point_leds(61, 121, 3) == (1, 0)  # too many for any scheme: in proportion
    assert game_point_leds(5, 7, 0) == (0, 0)


def _view(points: int) -> BoardView:
    return BoardView(
        121,
        (TrackView("Ann", 10, 4, game_points=points), TrackView("Bo", 20, 12, game_points=1)),
        match_target=7,
        dealer=0,
    )


def _leds(frame: bytes, track: int) -> list[bool]:
    return [any(pixel(frame, led)) for led in LAYOUT.tracks[track].game_points]


@pytest.mark.parametrize("points", range(7))
def test_golden_frames_of_game_points_in_a_match_to_7(points: int) -> None:
    renderer = Renderer(LAYOUT)
    view = _view(points)
    on = renderer.render(view, 0.1)
    off = renderer.render(view, 0.1 + GAME_POINT_PERIOD / 2)
    stored, differences = golden_frame(
        f"frame-game-points-{points}-of-7.json", "two-121", LAYOUT, view, 0.1, on
    )
    assert view_from_dict(stored["view"]) == view
    assert not differences, "\n".join(differences)
    steady = min(points, 3) - max(0, points - 3)
    assert sum(_leds(on, 0)) == min(points, 3)
    assert sum(_leds(off, 0)) == steady  # the blinking ones are off half the time
    assert _leds(on, 1) == _leds(off, 1) == [True, False, False]
    blinking = points > 3
    assert (renderer.next_change(view, 0.1) is not None) == blinking
