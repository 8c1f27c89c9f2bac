"""The woodwork files: every hole over its LED, pieces that fit, wires cut to their groove."""

from __future__ import annotations

import io
import itertools
import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import ezdxf
import pytest
from ezdxf.filemanagement import read as dxf_read

from boardctl.board.layout import LAYOUT_NAMES, builtin_layout
from tests.test_hardware_drawing import DRILL_TOLERANCE_MM, real_led_places
from tools.hardware.cutlist import JUMPER_ALLOWANCE_MM, jumpers, real_gaps
from tools.hardware.geometry import PIECE_GAP_MM, PITCH_MM, BoardGeometry, board_geometry
from tools.hardware.routes import (
    CHANNEL_END_MM,
    CHANNEL_WIDTH_MM,
    WIRE_HOLE_DIAMETER_MM,
    bay,
    carrier_holes,
    pieces,
    routes,
)
from tools.hardware.woodwork import (
    PAGE_MARGIN_MM,
    PAPERS,
    SCALE_BAR_MM,
    WOODWORK_DIR,
    stale_files,
    tiles,
)

HARDWARE = Path(__file__).resolve().parent.parent / "hardware"
SVG = "{http://www.w3.org/2000/svg}"
#: Markers sit in a channel of their own: at least a row spacing from any row's centre line.
MARKER_CLEARANCE_MM = 14.0


def geometries() -> list[tuple[str, BoardGeometry]]:
    """Every built-in layout, and its "real gaps" variant."""
    out = []
    for name in LAYOUT_NAMES:
        layout = builtin_layout(name)
        out += [(name, board_geometry(layout)), (f"{name} gaps", board_geometry(real_gaps(layout)))]
    return out


GEOMETRIES = geometries()
IDS = [name for name, _ in GEOMETRIES]


def read_dxf(name: str) -> ezdxf.document.Drawing:
    text = (WOODWORK_DIR / name).read_text(encoding="utf-8")
    return dxf_read(io.StringIO(text))


def test_the_committed_woodwork_files_are_current() -> None:
    assert stale_files() == [], "run: python -m tools.hardware.woodwork"


@pytest.mark.parametrize("name", LAYOUT_NAMES)
def test_every_top_plate_hole_in_the_dxf_is_within_half_a_millimetre_of_its_led(
    name: str,
) -> None:
    geo = board_geometry(builtin_layout(name))
    real = real_led_places(geo)
    doc = read_dxf(f"{name}-top.dxf")
    assert doc.units == ezdxf.units.MM
    # The DXF's y runs up; the board's runs down from the top edge.
    holes = [
        (c.dxf.center.x, geo.height - c.dxf.center.y)
        for c in doc.modelspace().query('CIRCLE[layer=="TOP_HOLES"]')
    ]
    assert len(holes) == len(geo.spots)
    unmatched = dict(real)
    for hole in holes:
        led = min(unmatched, key=lambda n: math.dist(hole, unmatched[n]))
        off = math.dist(hole, unmatched.pop(led))
        assert off <= DRILL_TOLERANCE_MM, f"{name}: the hole for LED {led} is {off:.2f} mm off"
    assert not unmatched


def gap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    """Clear distance between two rectangles along the axis that separates them (< 0: overlap)."""
    return max(b[0] - a[2], a[0] - b[2], b[1] - a[3], a[1] - b[3])


@pytest.mark.parametrize(("name", "geo"), GEOMETRIES, ids=IDS)
def test_no_two_strip_pieces_overlap_or_touch(name: str, geo: BoardGeometry) -> None:
    laid = pieces(geo)
    for a, b in itertools.combinations(laid, 2):
        assert gap(a.strip, b.strip) > 0, f"{name}: pieces at LED {a.first_led} and {b.first_led}"
        assert gap(a.channel, b.channel) > 0, (
            f"{name}: channels of LED {a.first_led}, {b.first_led}"
        )
        single = a.first_led == a.last_led or b.first_led == b.last_led
        in_line = abs(a.y - b.y) < CHANNEL_WIDTH_MM
        if single and in_line:
            x_gap = max(b.strip[0] - a.strip[2], a.strip[0] - b.strip[2])
            assert x_gap >= PITCH_MM + 5.0 - 1e-9, (
                f"{name}: only {x_gap:.1f} mm of bare strip before LED "
                f"{max(a.first_led, b.first_led)}"
            )


def test_the_piece_gap_is_a_pitch_and_five_millimetres() -> None:
    assert pytest.approx(PITCH_MM + 5.0) == PIECE_GAP_MM


@pytest.mark.parametrize(("name", "geo"), GEOMETRIES, ids=IDS)
def test_markers_sit_at_least_14_mm_from_every_row(name: str, geo: BoardGeometry) -> None:
    markers = [s for s in geo.spots.values() if s.kind == "marker"]
    rows = [p for p in pieces(geo) if p.last_led - p.first_led >= 10]
    for marker, row in itertools.product(markers, rows):
        x0, _y0, x1, _y1 = row.strip
        nearest = (min(max(marker.x, x0), x1), row.y)
        distance = math.dist((marker.x, marker.y), nearest)
        assert distance >= MARKER_CLEARANCE_MM, f"{name}: LED {marker.led} {distance:.1f} mm"


def test_the_built_in_layouts_have_markers_to_check() -> None:
    assert any(s.kind == "marker" for _, geo in GEOMETRIES for s in geo.spots.values())


def test_channels_leave_clearance_for_a_12_mm_strip() -> None:
    assert 12.5 <= CHANNEL_WIDTH_MM <= 13.0


@pytest.mark.parametrize(("name", "geo"), GEOMETRIES, ids=IDS)
def test_wire_holes_lie_in_their_channel_clear_of_the_strip(name: str, geo: BoardGeometry) -> None:
    r = WIRE_HOLE_DIAMETER_MM / 2
    for piece in pieces(geo):
        x0, y0, x1, y1 = piece.channel
        for hx, hy in (piece.din_hole, piece.dout_hole):
            assert x0 + 0 <= hx - r and hx + r <= x1 and y0 <= hy - r and hy + r <= y1
            sx0, _sy0, sx1, _sy1 = piece.strip
            assert hx + r <= sx0 or hx - r >= sx1, f"{name}: a wire hole under the strip"
        assert CHANNEL_END_MM >= WIRE_HOLE_DIAMETER_MM


@pytest.mark.parametrize(("name", "geo"), GEOMETRIES, ids=IDS)
def test_jumpers_are_cut_to_their_route_along_the_grooves(name: str, geo: BoardGeometry) -> None:
    laid = pieces(geo)
    found = [r for r in routes(geo) if r.kind == "jumper"]
    assert len(found) == len(laid) - 1
    for route, (a, b), jumper in zip(found, itertools.pairwise(laid), jumpers(geo), strict=True):
        # From the wire hole at one piece's data-out end to the next one's data-in end,
        # along the board's axes (the grooves), never shorter than the straight line.
        assert route.points[0] == a.dout_hole and route.points[-1] == b.din_hole
        for p, q in itertools.pairwise(route.points):
            assert p[0] == q[0] or p[1] == q[1]
        manhattan = abs(a.dout_hole[0] - b.din_hole[0]) + abs(a.dout_hole[1] - b.din_hole[1])
        assert route.length_mm == pytest.approx(manhattan)
        assert jumper.route_mm == pytest.approx(route.length_mm)
        assert jumper.wire_mm >= route.length_mm + JUMPER_ALLOWANCE_MM


def test_the_track_to_track_jumper_of_two_121_follows_its_groove() -> None:
    # LED 121 (track 1's game hole) to LED 122 (track 2's start hole): worked out by hand
    # from the drawing's coordinates, not from the route code.
    geo = board_geometry(builtin_layout("two-121"))
    game, start = geo.spots[121], geo.spots[122]
    out_hole = (game.x + PITCH_MM / 2 + 2.5, game.y)  # its data-out end is on its right
    in_hole = (start.x - PITCH_MM / 2 - 2.5, start.y)  # the start hole's data-in is on its left
    along = abs(out_hole[0] - in_hole[0]) + abs(out_hole[1] - in_hole[1])
    jumper = next(j for j in jumpers(geo) if j.from_led == 121)
    assert jumper.route_mm == pytest.approx(along)
    assert jumper.route_mm > math.dist((game.x, game.y), (start.x, start.y)) + 50
    assert jumper.wire_mm >= along + JUMPER_ALLOWANCE_MM


def test_the_cut_list_gives_the_route_lengths() -> None:
    wiring = (HARDWARE / "wiring.md").read_text(encoding="utf-8")
    geo = board_geometry(builtin_layout("two-121"))
    for jumper in jumpers(geo):
        row = re.search(rf"\| LED {jumper.to_led} \| (\d+) mm \((\d+) mm of groove\) \|", wiring)
        assert row is not None, f"no cut list row for the jumper to LED {jumper.to_led}"
        assert int(row[1]) == jumper.wire_mm and int(row[2]) == round(jumper.route_mm)


@pytest.mark.parametrize("name", LAYOUT_NAMES)
def test_the_carrier_board_mounts_inside_the_bay(name: str) -> None:
    geo = board_geometry(builtin_layout(name))
    x0, y0, x1, y1 = bay(geo)
    assert 0 < x0 < x1 < geo.width and 0 < y0 < y1 < geo.height
    for x, y in carrier_holes(geo):
        assert x0 < x < x1 and y0 < y < y1
    doc = read_dxf(f"{name}-base-underside.dxf")
    assert len(doc.modelspace().query('CIRCLE[layer=="BAY_MOUNTING_HOLES"]')) == 4
    assert len(doc.modelspace().query('LWPOLYLINE[layer=="BAY"]')) == 1


@pytest.mark.parametrize("name", LAYOUT_NAMES)
def test_the_underside_mirrors_the_wire_holes_of_the_top_side(name: str) -> None:
    geo = board_geometry(builtin_layout(name))
    top = read_dxf(f"{name}-base.dxf").modelspace().query('CIRCLE[layer=="WIRE_HOLES"]')
    under = read_dxf(f"{name}-base-underside.dxf").modelspace()
    mirrored = {(round(geo.width - c.dxf.center.x, 3), round(c.dxf.center.y, 3))
                for c in under.query('CIRCLE[layer=="WIRE_HOLES"]')}  # fmt: skip
    assert {(round(c.dxf.center.x, 3), round(c.dxf.center.y, 3)) for c in top} == mirrored
    grooves = under.query('LWPOLYLINE[layer=="GROOVES"]')
    assert len(grooves) == len(routes(geo))


def translate(group: ET.Element) -> tuple[float, float]:
    found = re.fullmatch(r"translate\(([-\d.]+) ([-\d.]+)\)", group.get("transform", ""))
    assert found is not None
    return float(found[1]), float(found[2])


@pytest.mark.parametrize("paper", sorted(PAPERS))
@pytest.mark.parametrize("name", LAYOUT_NAMES)
def test_the_drilling_template_pages_cover_every_hole_at_full_scale(name: str, paper: str) -> None:
    geo = board_geometry(builtin_layout(name))
    width, height = PAPERS[paper]
    seen: set[int] = set()
    pages = tiles(geo, paper)
    assert len(pages) > 1  # a board is larger than a sheet: the template is tiled
    for tile in pages:
        root = ET.parse(WOODWORK_DIR / f"{name}-template-{paper}-{tile.number}.svg").getroot()
        # Millimetres at 1:1: the page is the paper, its user unit one millimetre.
        assert root.get("width") == f"{width:g}mm" and root.get("height") == f"{height:g}mm"
        assert root.get("viewBox") == f"0 0 {width:g} {height:g}"
        bar = root.find(f".//{SVG}g[@class='scale-check']/{SVG}rect")
        assert bar is not None and float(bar.get("width", "0")) == SCALE_BAR_MM
        board = root.find(f".//{SVG}g[@class='board']")
        assert board is not None
        dx, dy = translate(board)
        for hole in board.iter(f"{SVG}circle"):
            led = int(hole.get("data-led", "-1"))
            x, y = float(hole.get("cx", "0")), float(hole.get("cy", "0"))
            assert (x, y) == pytest.approx((geo.spots[led].x, geo.spots[led].y), abs=0.01)
            px, py = x + dx, y + dy
            inside = PAGE_MARGIN_MM <= px <= width - PAGE_MARGIN_MM and (
                PAGE_MARGIN_MM <= py <= height - PAGE_MARGIN_MM
            )
            if inside:
                seen.add(led)
        dims = {g.get("data-dimension"): float(g.get("data-mm", "0"))
                for g in root.iter(f"{SVG}g") if g.get("class") == "dimension"}  # fmt: skip
        assert dims["width"] == pytest.approx(geo.width, abs=0.01)
        assert dims["height"] == pytest.approx(geo.height, abs=0.01)
        assert dims["pitch"] == pytest.approx(PITCH_MM, abs=0.01)
    assert seen == set(geo.spots), f"holes on no page: {sorted(set(geo.spots) - seen)}"
