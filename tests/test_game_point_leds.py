"""Game points at a glance: one LED a point, a blinking LED two, golden frames for a match to 7."""

from __future__ import annotations

import pytest

from boardctl.board import Renderer, builtin_layout
from boardctl.board.frame import pixel
from boardctl.board.render import GAME_POINT_PERIOD, game_point_leds
from boardctl.board.terminal import draw_board
from boardctl.board.viewjson import view_from_dict
from boardctl.game.commands import NewGame, Peg
from boardctl.game.machine import Machine
from boardctl.game.setup import PRESETS
from boardctl.game.state import GameState
from boardctl.game.status import board_view
from boardctl.view import BoardView, TrackView
from tests.test_game_replay import apply
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


# --- every preset and every outcome: the LEDs say what the preset paid ------------------------
OUTCOMES = {"win": 100, "skunk": 80, "double skunk": 50, "triple skunk": 20}  # the loser's score
FORMATS = {"single": {"match": 0}, "to 7": {"match": 7}, "best of 3": {"best_of": 3}}


def _finished(preset: str, loser: int, match: dict[str, int]) -> GameState:
    machine = Machine()
    apply(machine, NewGame(variant="six-card", mode="free", preset=preset, **match))  # type: ignore[arg-type]
    apply(machine, Peg(1, loser, "correction"))
    apply(machine, Peg(0, 121, "correction"))
    return machine.state


def _read(view: BoardView, track: int) -> tuple[int, bool]:
    """What a player reads on a track's game-point LEDs (blinking ones twice), and whether
    they are all lit at full (the match winner's sign)."""
    renderer = Renderer(LAYOUT)
    on = _leds(renderer.render(view, 0.1), track)
    off = _leds(renderer.render(view, 0.1 + GAME_POINT_PERIOD / 2), track)
    frame = renderer.render(view, 0.1)
    full = all(max(pixel(frame, led)) > 200 for led in LAYOUT.tracks[track].game_points)
    return sum(on) + sum(a and not b for a, b in zip(on, off, strict=True)), full


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("outcome", OUTCOMES)
@pytest.mark.parametrize("preset", PRESETS)
def test_the_game_point_leds_show_what_the_preset_paid(preset: str, outcome: str, fmt: str) -> None:
    loser = OUTCOMES[outcome]
    state = _finished(preset, loser, FORMATS[fmt])
    paid = PRESETS[preset].game_points(121, loser)
    assert state.winner == 0 and state.won_points == paid
    view = board_view(state)
    reading, full = _read(view, 0)
    if fmt == "best of 3":  # each game counts one toward the match, whatever the skunk
        assert (reading, full) == (1, False)
    elif state.match_winner == 0 and fmt == "to 7":  # the match is won: every LED at full
        assert paid >= 7 or PRESETS[preset].triple_wins_match
        assert full
    else:
        assert reading == paid, f"{preset} {outcome} {fmt}: read {reading}, paid {paid}"
        assert full == (fmt == "single" and paid >= 3)  # a single game's points shine at full
    assert _read(view, 1) == (0, False)  # the loser won nothing


def test_a_single_two_point_win_lights_two_game_point_leds_on_the_virtual_board() -> None:
    view = board_view(_finished("acc", 100, {"match": 0}))
    frame = Renderer(LAYOUT).render(view, 0.1)
    text = draw_board(view, frame, LAYOUT, color="none")
    games = [row for row in text.splitlines() if "games" in row]
    assert len(games) == 1 and games[0].startswith("Track 1 ")
    assert games[0].endswith("oo. games 2")  # was ooo: every LED lit for a 2-point win
