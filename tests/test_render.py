"""The renderer: what each part of a view lights, and when frames change."""

from __future__ import annotations

import dataclasses
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.board.frame import pixel
from boardctl.board.layout import builtin_layout
from boardctl.board.power import PowerBudget, estimate_ma
from boardctl.board.render import (
    CHASE_SECONDS,
    ERROR_SECONDS,
    LINE_BLINK_SECONDS,
    Renderer,
    brightness_table,
)
from boardctl.board.theme import ORANGE, SKY_BLUE, VERMILION, YELLOW, Theme, scaled
from boardctl.errors import ConfigError, LayoutError
from boardctl.view import BoardView, TrackView, ViewExtra

LAYOUT = builtin_layout("two-121")
R = Renderer(LAYOUT)
OFF = (0, 0, 0)


def hole(frame: bytes, track: int, number: int, layout: object = LAYOUT) -> tuple[int, int, int]:
    assert hasattr(layout, "led_of")
    return pixel(frame, layout.led_of(track, number))


def lit_holes(frame: bytes, track: int, layout: object = LAYOUT) -> list[int]:
    assert hasattr(layout, "tracks")
    return [h for h, led in enumerate(layout.tracks[track].holes) if any(pixel(frame, led))]


def two(a: tuple[int, int], b: tuple[int, int], **kw: object) -> BoardView:
    pending = kw.pop("pending", 0)
    assert isinstance(pending, int)
    tracks = (TrackView("A", a[0], a[1], pending=pending), TrackView("B", b[0], b[1]))
    return BoardView(121, tracks, **kw)  # type: ignore[arg-type]


def test_front_bright_back_dim_in_track_colours() -> None:
    frame = R.render(two((45, 40), (20, 12)), 0.0)
    assert hole(frame, 0, 45) == ORANGE
    assert hole(frame, 0, 40) == scaled(ORANGE, 0.25)
    assert hole(frame, 1, 20) == SKY_BLUE
    assert hole(frame, 1, 12) == scaled(SKY_BLUE, 0.25)
    assert lit_holes(frame, 0) == [40, 45]
    assert lit_holes(frame, 1) == [12, 20]


def test_new_game_pegs_sit_in_the_start_holes() -> None:
    frame = R.render(two((0, 0), (0, 0)), 0.0)
    assert pixel(frame, 0) == ORANGE and pixel(frame, 122) == SKY_BLUE
    assert lit_holes(frame, 0) == [0]


def test_front_on_back_shows_the_front_peg() -> None:
    frame = R.render(two((7, 7), (0, 0)), 0.0)
    assert hole(frame, 0, 7) == ORANGE


def test_scores_clamp_to_the_board() -> None:
    frame = R.render(two((130, 125), (-3, -5)), 0.0)
    assert hole(frame, 0, 121) == ORANGE
    assert hole(frame, 1, 0) == SKY_BLUE


def test_trail_is_optional_and_faint() -> None:
    view = two((30, 20), (0, 0))
    assert lit_holes(R.render(view, 0.0), 0) == [20, 30]
    trail = Renderer(LAYOUT, Theme(trail=True)).render(view, 0.0)
    assert lit_holes(trail, 0) == [*range(1, 21), 30]
    assert max(hole(trail, 0, 5)) < 10


def test_skunk_lines_always_faint_on_markers() -> None:
    frame = R.render(two((0, 0), (0, 0)), 0.0)
    for led, colour in zip((252, 253, 254), Theme().lines, strict=True):
        assert pixel(frame, led) == scaled(colour, 0.06)
        assert 0 < max(pixel(frame, led)) < 20


def test_painted_board_tints_the_line_holes_instead() -> None:
    layout = builtin_layout("two-61")
    view = BoardView(61, (TrackView("A", 10, 5), TrackView("B", 3, 0)))
    frame = Renderer(layout).render(view, 0.0)
    assert hole(frame, 0, 31, layout) == scaled(YELLOW, 0.06)
    assert hole(frame, 1, 31, layout) == scaled(YELLOW, 0.06)


def test_pending_entry_blinks_ahead_of_the_front_peg() -> None:
    view = two((45, 40), (20, 12), pending=6)
    on, off = R.render(view, 0.1), R.render(view, 0.4)
    assert hole(on, 0, 51) == scaled(ORANGE, 0.6)
    assert hole(off, 0, 51) == OFF
    assert hole(on, 0, 45) == hole(off, 0, 45) == ORANGE  # the peg itself stays
    assert R.next_change(view, 0.1) == pytest.approx(0.3)


def test_pending_clamps_at_the_game_hole_and_can_be_negative() -> None:
    ahead = R.render(two((118, 110), (0, 0), pending=9), 0.1)
    assert hole(ahead, 0, 121) == scaled(ORANGE, 0.6)
    behind = R.render(two((50, 40), (0, 0), pending=-2), 0.1)
    assert hole(behind, 0, 48) == scaled(ORANGE, 0.6)


def test_dealer_steady_and_whose_count_blinks() -> None:
    view = two((10, 5), (20, 10), dealer=1, phase="show", to_count=0)
    on, off = R.render(view, 0.2), R.render(view, 0.7)
    dealer_a, dealer_b = LAYOUT.tracks[0].dealer, LAYOUT.tracks[1].dealer
    assert dealer_a is not None and dealer_b is not None
    assert pixel(on, dealer_b) == pixel(off, dealer_b) == scaled(SKY_BLUE, 0.5)
    assert pixel(on, dealer_a) == scaled(ORANGE, 0.5)
    assert pixel(off, dealer_a) == OFF
    steady = dataclasses.replace(view, to_count=None)
    assert pixel(R.render(steady, 0.7), dealer_a) == OFF
    assert R.next_change(steady, 0.7) is None


def test_error_flash_for_a_moment_after_a_rejected_entry() -> None:
    view = two((10, 5), (20, 10), error_at=100.0)
    flashes = [pixel(R.render(view, 100.0 + t), 255) for t in (0.1, 0.3, 0.6, 1.1, 1.6)]
    assert flashes[0] == flashes[2] == flashes[3] == VERMILION
    assert flashes[1] == flashes[4] == scaled(Theme().status_idle, 0.1)
    assert pixel(R.render(view, 100.1), 0) == VERMILION  # start holes too
    assert R.next_change(view, 100.0 + ERROR_SECONDS + 0.01) is None


def test_skunk_and_double_skunk_blink_differently() -> None:
    skunk = two((121, 115), (84, 80), winner=0, phase="over", over_at=0.0)
    double = two((121, 115), (55, 50), winner=0, phase="over", over_at=0.0)
    times = [10 + k * 0.05 for k in range(40)]  # after the comet, within the blink
    skunk_seq = [pixel(R.render(skunk, t), 252) for t in times]
    double_seq = [pixel(R.render(double, t), 253) for t in times]
    assert pixel(R.render(skunk, 10.1), 252) == YELLOW
    assert pixel(R.render(skunk, 10.6), 252) == scaled(YELLOW, 0.06)
    assert pixel(R.render(double, 10.1), 253) == VERMILION
    assert pixel(R.render(double, 10.2), 253) == scaled(VERMILION, 0.06)
    assert pixel(R.render(double, 10.35), 253) == VERMILION
    # a double skunk also failed the skunk line: that one stays lit
    assert {pixel(R.render(double, t), 252) for t in times} == {YELLOW}
    # the rhythms differ
    assert [c == YELLOW for c in skunk_seq] != [c == VERMILION for c in double_seq]
    # after the blink time, the failed line stays lit and nothing animates
    late = LINE_BLINK_SECONDS + 1
    assert pixel(R.render(double, late), 253) == VERMILION
    assert R.next_change(double, late) is None


def test_no_line_blinks_when_the_loser_crossed_them() -> None:
    view = two((121, 115), (95, 90), winner=0, phase="over", over_at=0.0)
    assert R.next_change(view, 10.0) is None
    assert pixel(R.render(view, 10.0), 252) == scaled(YELLOW, 0.06)


def test_game_over_comet_runs_on_the_winner_track_then_stops() -> None:
    view = two((121, 115), (95, 90), winner=1, phase="over", over_at=5.0)
    frame = R.render(view, 6.0)  # step 20: head at hole 60
    assert hole(frame, 1, 60) == (255, 255, 255)
    assert hole(frame, 1, 59) == scaled(SKY_BLUE, 0.5)
    assert lit_holes(frame, 0) == [115, 121]
    assert R.next_change(view, 6.0) == pytest.approx(6.05)
    assert R.next_change(view, 5.0 + CHASE_SECONDS) is None
    assert lit_holes(R.render(view, 5.0 + CHASE_SECONDS), 1) == [90, 95]


def test_game_points_and_match_winner() -> None:
    tracks = (TrackView("A", 0, 0, game_points=2), TrackView("B", 0, 0, game_points=1))
    frame = R.render(BoardView(121, tracks, match_target=3), 0.0)
    assert [pixel(frame, led) for led in LAYOUT.tracks[0].game_points] == [
        scaled(ORANGE, 0.35),
        scaled(ORANGE, 0.35),
        OFF,
    ]
    assert [any(pixel(frame, led)) for led in LAYOUT.tracks[1].game_points] == [True, False, False]
    won = R.render(BoardView(121, tracks, match_target=7, match_winner=0), 0.0)
    # B's 1 point of 7 lights one LED (a blinking one would count two); A's are full as the winner
    assert [any(pixel(won, led)) for led in LAYOUT.tracks[1].game_points] == [True, False, False]
    assert all(pixel(won, led) == ORANGE for led in LAYOUT.tracks[0].game_points)


def test_game_points_fill_in_proportion_for_long_matches() -> None:
    tracks = (TrackView("A", game_points=61), TrackView("B", game_points=81))
    frame = R.render(BoardView(121, tracks, match_target=121), 0.0)
    assert [any(pixel(frame, led)) for led in LAYOUT.tracks[0].game_points] == [True, False, False]
    assert [any(pixel(frame, led)) for led in LAYOUT.tracks[1].game_points] == [True, True, False]


def test_three_tracks() -> None:
    layout = builtin_layout("three-121")
    tracks = (TrackView("A", 5, 1), TrackView("B", 70, 60), TrackView("C", 121, 119))
    frame = Renderer(layout).render(BoardView(121, tracks), 0.0)
    assert lit_holes(frame, 2, layout) == [119, 121]
    assert hole(frame, 1, 70, layout) == SKY_BLUE
    assert hole(frame, 2, 121, layout) == Theme().tracks[2]


def test_views_that_do_not_fit_the_layout() -> None:
    with pytest.raises(LayoutError, match="has 2 tracks but the game has 3"):
        R.render(BoardView(121, (TrackView("A"),) * 3), 0.0)
    with pytest.raises(LayoutError, match="61 holes per track but the game is played to 121"):
        Renderer(builtin_layout("two-61")).render(two((0, 0), (0, 0)), 0.0)


def test_a_short_game_on_a_long_board_ends_at_its_target() -> None:
    view = BoardView(61, (TrackView("A", 70, 50), TrackView("B", 3, 0)))
    frame = R.render(view, 0.0)
    assert hole(frame, 0, 61) == ORANGE
    assert hole(frame, 0, 31) == scaled(YELLOW, 0.06) or pixel(frame, 252) == scaled(YELLOW, 0.06)


def test_global_brightness_follows_the_perceptual_curve_and_keeps_faint_things_on() -> None:
    view = two((45, 40), (20, 12))
    full = R.render(view, 0.0)
    half = Renderer(LAYOUT, brightness=128).render(view, 0.0)
    assert hole(half, 0, 45) == tuple(v and max(1, round(v * (128 / 255) ** 2.2)) for v in ORANGE)
    assert all((h == 0) == (f == 0) for h, f in zip(half, full, strict=True))
    assert not any(Renderer(LAYOUT, brightness=0).render(view, 0.0))
    with pytest.raises(ConfigError, match="brightness"):
        Renderer(LAYOUT, brightness=300)


def test_renderer_applies_a_power_budget() -> None:
    theme = Theme(trail=True, trail_level=1.0)
    view = two((121, 120), (121, 120))
    budget = PowerBudget(limit_ma=1000)
    frame = Renderer(LAYOUT, theme, power=budget).render(view, 0.0)
    assert estimate_ma(Renderer(LAYOUT, theme).render(view, 0.0), budget) > 1000
    assert estimate_ma(frame, budget) <= 1000


def test_static_view_needs_no_frames() -> None:
    assert R.next_change(two((45, 40), (20, 12), dealer=0), 123.0) is None


# --- next_change agrees with render ---------------------------------------

scores = st.integers(min_value=-2, max_value=125)
maybe_track = st.none() | st.integers(min_value=0, max_value=1)
maybe_time = st.none() | st.floats(min_value=0, max_value=50)


@st.composite
def views(draw: st.DrawFn) -> BoardView:
    tracks = tuple(
        TrackView(
            name,
            front=draw(scores),
            back=draw(scores),
            pending=draw(st.integers(min_value=-3, max_value=30)),
            game_points=draw(st.integers(min_value=0, max_value=9)),
        )
        for name in "AB"
    )
    return BoardView(
        121,
        tracks,
        phase=draw(st.sampled_from(["play", "show", "over"])),
        dealer=draw(maybe_track),
        to_count=draw(maybe_track),
        winner=draw(maybe_track),
        match_target=draw(st.integers(min_value=0, max_value=9)),
        error_at=draw(maybe_time),
        over_at=draw(maybe_time),
    )


@settings(max_examples=150, deadline=None)
@given(views(), st.floats(min_value=0, max_value=60), st.floats(min_value=0.01, max_value=0.99))
def test_frame_is_constant_until_next_change(view: BoardView, now: float, part: float) -> None:
    frame, upcoming = R.render_with_next(view, now)
    if upcoming is None:
        for later in (now + 0.37, now + 45.0, now + 1000.0):
            assert R.render(view, later) == frame
    else:
        assert upcoming > now
        between = now + (upcoming - now) * part
        if between >= upcoming:  # adjacent floats: nothing lies strictly between
            between = now
        assert R.render(view, between) == frame


def follow(view: BoardView, start: float, seconds: float) -> list[tuple[float, bytes]]:
    """Frames a service renders when it sleeps until each next_change."""
    out = []
    now = start
    while now < start + seconds:
        frame, upcoming = R.render_with_next(view, now)
        out.append((now, frame))
        if upcoming is None:
            break
        assert upcoming > now
        now = upcoming
    return out


@pytest.mark.parametrize("start", [0.0, 1000.25, 12345.678, 7.3])
def test_following_next_change_keeps_blinking_exactly(start: float) -> None:
    view = two((45, 40), (20, 12), pending=6)
    frames = follow(view, start, 6.0)
    assert 20 <= len(frames) <= 21  # 0.3 s per step
    pending_led = LAYOUT.led_of(0, 51)
    states = [any(pixel(f, pending_led)) for _, f in frames]
    assert all(a != b for a, b in itertools.pairwise(states))


def test_following_next_change_through_a_game_end() -> None:
    view = two((121, 115), (55, 50), winner=0, phase="over", over_at=50.0)
    frames = follow(view, 50.0, 100.0)
    times = [t for t, _ in frames]
    # the comet's 80 steps, then the double-skunk rhythm until the blink time ends
    assert sum(1 for t in times if t < 50.0 + CHASE_SECONDS) == CHASE_SECONDS * 20
    assert times[-1] == pytest.approx(50.0 + LINE_BLINK_SECONDS)
    assert R.next_change(view, times[-1]) is None
    assert pixel(frames[-1][1], 253) == VERMILION  # stays lit afterwards


def test_the_package_exports_the_renderer_and_its_parts() -> None:
    import boardctl.board as board

    assert board.Renderer is Renderer
    assert board.builtin_layout("two-61").led_count == 131
    for name in board.__all__:
        assert getattr(board, name) is not None


def test_a_quarter_brightness_drives_the_leds_at_a_quarter_of_perceived_lightness() -> None:
    quarter = brightness_table(64)[255] / 255  # the duty of a full channel at 25 %
    lightness = 116 * quarter ** (1 / 3) - 16  # CIE 1976 L* (0-100) of that light
    assert 22 <= lightness <= 28  # a quarter (a linear 25 % would be L* 57: half)
    assert brightness_table(64)[255] == 12 and brightness_table(186)[255] == 127


@given(st.integers(0, 254), st.integers(0, 255))
def test_the_brightness_curve_never_brightens_keeps_order_and_keeps_lit_channels_lit(
    level: int, value: int
) -> None:
    table = brightness_table(level)
    assert table[value] <= value
    assert value == 0 or table[value] >= (level > 0)
    assert table[value] <= brightness_table(level + 1)[value]
    assert value == 255 or table[value] <= table[value + 1]


def test_brightness_can_change_at_run_time() -> None:
    renderer = Renderer(LAYOUT)
    view = two((45, 40), (20, 12))
    renderer.set_brightness(64)
    assert hole(renderer.render(view, 0.0), 0, 45) == tuple(brightness_table(64)[v] for v in ORANGE)
    renderer.set_brightness(255)
    assert hole(renderer.render(view, 0.0), 0, 45) == ORANGE
    with pytest.raises(ValueError, match="0-255"):
        renderer.set_brightness(-1)


def test_views_naming_missing_tracks_are_refused() -> None:
    with pytest.raises(ValueError, match="winner 2 is not a track index"):
        R.render(two((0, 0), (0, 0), winner=2), 0.0)


@pytest.mark.parametrize("pending_at", [12.0, 12.31, 12.62, 100.05])
def test_a_new_pending_amount_shows_at_once(pending_at: float) -> None:
    extra = ViewExtra(pending_at=pending_at)
    view = dataclasses.replace(two((45, 40), (20, 12), pending=6), extra=extra)
    led = LAYOUT.led_of(0, 51)
    assert any(pixel(R.render(view, pending_at), led))  # lit the moment it changed
    assert any(pixel(R.render(view, pending_at + 0.29), led))
    assert not any(pixel(R.render(view, pending_at + 0.31), led))  # then it blinks
    assert R.next_change(view, pending_at) == pytest.approx(pending_at + 0.3)
