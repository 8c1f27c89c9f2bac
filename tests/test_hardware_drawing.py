"""Board geometry and the SVG drawing, worked out from a layout's hole -> LED map."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

import pytest

from boardctl.board.layout import LAYOUT_NAMES, builtin_layout
from tools.hardware.drawing import layout_svg
from tools.hardware.geometry import (
    PIECE_GAP_MM,
    PITCH_MM,
    BoardGeometry,
    Spot,
    adjacent,
    board_geometry,
    injection_leds,
    skunk_lines,
    start_gap,
    strip_pieces,
    track_rows,
)

SVG = "{http://www.w3.org/2000/svg}"


@dataclass(frozen=True)
class FakeTrack:
    holes: tuple[int, ...]
    dealer: int | None = None
    game_points: tuple[int, ...] = ()


@dataclass(frozen=True)
class FakeLayout:
    name: str
    led_count: int
    hole_count: int
    tracks: tuple[FakeTrack, ...]
    markers: dict[str, tuple[int, ...]] = field(default_factory=dict)
    status: int | None = None
    description: str = "test board"


def serpentine_track(first_led: int, holes: int, row: int) -> tuple[int, ...]:
    """Start hole, then rows of ``row`` holes, every other row running back."""
    leds = [first_led]
    led = first_led + 1
    for start in range(1, holes + 1, row):
        count = min(row, holes - start + 1)
        run = list(range(led, led + count))
        leds.extend(run if (start // row) % 2 == 0 else run[::-1])
        led += count
    return tuple(leds)


def small_layout() -> FakeLayout:
    # Two tracks of 61 holes in rows of 30 (the game hole alone), markers, panel.
    t1 = serpentine_track(0, 61, 30)
    t2 = serpentine_track(62, 61, 30)
    return FakeLayout(
        name="small",
        led_count=130,
        hole_count=61,
        tracks=(FakeTrack(t1, 124, (126,)), FakeTrack(t2, 125, (127,))),
        markers={"skunk": (128,)},
        status=129,
    )


def test_rows_follow_the_strip() -> None:
    holes = serpentine_track(0, 61, 30)
    rows = track_rows(holes, 0)
    assert [(r.first_hole, r.last_hole, r.step, r.street) for r in rows] == [
        (1, 30, 1, 0),
        (31, 60, -1, 1),
        (61, 61, 1, 1),  # the game hole joins the last street, after hole 60
    ]


def test_skunk_lines_by_target() -> None:
    assert skunk_lines(121) == {"skunk": 91, "double": 61, "triple": 31}
    assert skunk_lines(61) == {"skunk": 31}


def test_geometry_places_every_led_once() -> None:
    layout = small_layout()
    geo = board_geometry(layout)
    assert sorted(geo.spots) == list(range(130))
    places = {(round(s.x, 2), round(s.y, 2)) for s in geo.spots.values()}
    assert len(places) == 130, "two LEDs drawn on the same spot"
    # Holes of equal number line up across the tracks; hole 31 starts street 2.
    for hole in (1, 17, 31, 60, 61):
        xs = {round(geo.spots[t.holes[hole]].x, 2) for t in layout.tracks}
        assert len(xs) == 1
    h1, h31 = geo.spots[layout.tracks[0].holes[1]], geo.spots[layout.tracks[0].holes[31]]
    assert h1.x == pytest.approx(h31.x)
    assert h31.y > h1.y
    # Hole pitch is the LED pitch; hole 61, a piece of its own, sits after hole 60 with
    # bare strip for both cut ends' joints between them.
    h2 = geo.spots[layout.tracks[0].holes[2]]
    assert h2.x - h1.x == pytest.approx(PITCH_MM)
    h60, h61 = (geo.spots[layout.tracks[0].holes[h]] for h in (60, 61))
    assert h61.x - h60.x == pytest.approx(PITCH_MM + PIECE_GAP_MM)
    assert h61.y == h60.y


def test_strip_pieces_and_power_injection() -> None:
    geo = board_geometry(small_layout())
    pieces = strip_pieces(geo)
    assert pieces[:4] == [(0, 30), (31, 60), (61, 61), (62, 92)]
    # Start of the strip, far end of the last row of holes; no span over 144 LEDs.
    assert injection_leds(geo) == [0, 122]
    assert injection_leds(geo, max_span=70) == [0, 62, 122]


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg.encode("utf-8"))


def test_svg_has_every_hole_with_its_led() -> None:
    layout = small_layout()
    root = parse(layout_svg(layout))
    holes = {}
    for el in root.iter(f"{SVG}circle"):
        if el.get("class") in ("hole", "start"):
            key = (int(el.get("data-track", "0")), int(el.get("data-hole", "-1")))
            assert key not in holes, f"{key} drawn twice"
            holes[key] = int(el.get("data-led", "-1"))
    expected = {
        (t + 1, h): led
        for t, track in enumerate(layout.tracks)
        for h, led in enumerate(track.holes)
    }
    assert holes == expected
    leds = {
        int(el.get("data-led", "-1"))
        for el in root.iter(f"{SVG}circle")
        if el.get("class") in ("hole", "start", "marker", "dealer", "game_point", "status")
    }
    assert leds == set(range(layout.led_count))


def test_svg_draws_the_route_lines_and_feeds() -> None:
    root = parse(layout_svg(small_layout()))
    lines = root.findall(f"{SVG}line")
    route = [(int(el.get("data-from", "")), int(el.get("data-to", ""))) for el in lines
             if el.get("class") in ("strip", "jumper")]  # fmt: skip
    assert route == [(i, i + 1) for i in range(129)]
    jumpers = {int(el.get("data-from", "")) for el in lines if el.get("class") == "jumper"}
    assert {30, 60, 61, 92} <= jumpers
    assert 5 not in jumpers
    skunk = [el for el in lines if el.get("class") == "skunk-line"]
    assert [(el.get("data-line"), el.get("data-hole")) for el in skunk] == [("skunk", "31")]
    feeds = [int(el.get("data-led", "")) for el in root.iter(f"{SVG}circle")
             if el.get("class") == "injection"]  # fmt: skip
    assert feeds == [0, 122]
    assert root.get("data-layout") == "small"


def grouped_track(first_led: int, holes: int) -> tuple[int, ...]:
    """Start hole, then holes in groups of five with one dark LED between groups."""
    leds = [first_led]
    led = first_led + 1
    for hole in range(1, holes + 1):
        leds.append(led)
        led += 2 if hole % 5 == 0 else 1
    return tuple(leds)


def test_a_dark_led_between_groups_is_a_gap_not_a_new_row() -> None:
    t1 = grouped_track(0, 20)  # LEDs 1-5, 7-11, 13-17, 19-23
    t2 = grouped_track(30, 20)
    assert t1[5:7] == (5, 7)
    layout = FakeLayout("grouped", 60, 20, (FakeTrack(t1), FakeTrack(t2)))
    rows = track_rows(t1, 0)
    assert [(r.first_hole, r.last_hole, r.step) for r in rows] == [(1, 20, 1)]
    geo = board_geometry(layout)
    x = {h: geo.spots[t1[h]].x for h in range(1, 21)}
    assert x[2] - x[1] == pytest.approx(PITCH_MM)
    assert x[6] - x[5] == pytest.approx(2 * PITCH_MM)  # the dark LED's place
    assert geo.spots[t2[6]].x == pytest.approx(x[6])  # tracks still line up
    # One piece of strip per track (plus the start hole on it): no jumper inside a row.
    assert strip_pieces(geo) == [(0, 23), (30, 53)]


# --- every drilled hole over its LED ------------------------------------------------------

DRILL_TOLERANCE_MM = 0.5


def real_led_places(geo: BoardGeometry) -> dict[int, tuple[float, float]]:
    """Where each LED really is once the strip is laid: along each uncut piece,
    one pitch apart in a straight line from the piece's first used LED, the
    direction given by the piece's last used LED. Not taken from the drawing's
    own placement of the LEDs in between."""
    places: dict[int, tuple[float, float]] = {}
    for first, last in strip_pieces(geo):
        a, b = geo.spots[first], geo.spots[last]
        span = last - first
        length = math.dist((a.x, a.y), (b.x, b.y))
        ux, uy = ((b.x - a.x) / length, (b.y - a.y) / length) if span else (0.0, 0.0)
        for led in range(first, last + 1):
            if led in geo.spots:
                k = (led - first) * PITCH_MM
                places[led] = (a.x + k * ux, a.y + k * uy)
    return places


@pytest.mark.parametrize("name", LAYOUT_NAMES)
def test_every_drilled_hole_is_within_half_a_millimetre_of_its_led(name: str) -> None:
    geo = board_geometry(builtin_layout(name))
    real = real_led_places(geo)
    assert set(real) == set(geo.spots)
    for led, spot in geo.spots.items():
        off = math.dist((spot.x, spot.y), real[led])
        assert off <= DRILL_TOLERANCE_MM, f"{name}: LED {led} ({spot.label}) drawn {off:.2f} mm off"


@pytest.mark.parametrize("name", LAYOUT_NAMES)
def test_the_start_hole_is_the_next_led_of_hole_1s_piece(name: str) -> None:
    layout = builtin_layout(name)
    geo = board_geometry(layout)
    pieces = strip_pieces(geo)
    for track in layout.tracks:
        start, hole1 = track.holes[0], track.holes[1]
        assert abs(start - hole1) == 1  # every built-in layout lays them in a row
        assert any(lo <= min(start, hole1) and max(start, hole1) <= hi for lo, hi in pieces)
        a, b = geo.spots[start], geo.spots[hole1]
        assert math.dist((a.x, a.y), (b.x, b.y)) == pytest.approx(PITCH_MM, abs=0.01)
        assert a.x < b.x and a.y == b.y  # left of hole 1, in its row


@pytest.mark.parametrize("name", LAYOUT_NAMES)
def test_no_jumper_where_the_strip_would_simply_lie(name: str) -> None:
    # A cut between two consecutive LEDs drawn under two pitches apart serves
    # nothing: the strip would lie there uncut, so the holes must match it.
    geo = board_geometry(builtin_layout(name))
    for a, b in geo.strip_path():
        if b.led == a.led + 1 and math.dist((a.x, a.y), (b.x, b.y)) < 2 * PITCH_MM:
            assert adjacent(a, b), f"LED {a.led} -> {b.led}"


def test_adjacency_has_no_slack() -> None:
    here = Spot(0, 0.0, 0.0, "hole")
    assert adjacent(here, Spot(1, PITCH_MM, 0.0, "hole"))
    assert adjacent(here, Spot(2, 2 * PITCH_MM, 0.0, "hole"))  # a dark LED between
    assert not adjacent(here, Spot(1, 1.5 * PITCH_MM, 0.0, "hole"))  # the old start hole
    assert not adjacent(here, Spot(1, PITCH_MM + 0.5, 0.0, "hole"))
    assert not adjacent(here, Spot(2, PITCH_MM, 0.0, "hole"))


def test_start_gap_follows_the_strip() -> None:
    assert start_gap((0, 1, 2), 1) == 1
    assert start_gap((31, 30, 29), -1) == 1
    assert start_gap((0, 2, 3), 1) == 2  # a dark LED between start and hole 1
    assert start_gap((50, 1, 2), 1) == 1  # on a piece of its own
