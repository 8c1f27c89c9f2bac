"""Cut list, jumpers, the "real gaps" variant and the bill of materials, from the layouts."""

from __future__ import annotations

import itertools
import math
import re
from pathlib import Path

import pytest

from boardctl.board.layout import LAYOUT_NAMES, builtin_layout
from boardctl.config import DEFAULT_PINS
from tools.hardware import docs
from tools.hardware.bom import ITEMS, Build, bom_table, total_usd
from tools.hardware.cutlist import (
    JUMPER_ALLOWANCE_MM,
    MIN_SPARE_LEDS,
    cut_pieces,
    jumpers,
    metres_to_buy,
    real_gaps,
)
from tools.hardware.geometry import LEDS_PER_METRE, PITCH_MM, board_geometry, strip_pieces
from tools.hardware.kicad.carrier import carrier_parts

HARDWARE = Path(__file__).resolve().parent.parent / "hardware"


@pytest.mark.parametrize("name", LAYOUT_NAMES)
def test_pieces_are_cut_in_order_from_whole_metres(name: str) -> None:
    geo = board_geometry(builtin_layout(name))
    pieces = cut_pieces(geo)
    assert [(p.first_led, p.last_led) for p in pieces] == strip_pieces(geo)
    reels = [p.reel for p in pieces]
    assert reels == sorted(reels)
    for reel in set(reels):
        assert sum(p.leds for p in pieces if p.reel == reel) <= LEDS_PER_METRE
    metres = metres_to_buy(geo)
    assert metres >= reels[-1] + 1
    assert metres * LEDS_PER_METRE - geo.led_count >= MIN_SPARE_LEDS


@pytest.mark.parametrize("name", LAYOUT_NAMES)
def test_jumpers_join_the_pieces_and_are_long_enough(name: str) -> None:
    geo = board_geometry(builtin_layout(name))
    found = jumpers(geo)
    pieces = strip_pieces(geo)
    assert [(j.from_led, j.to_led) for j in found] == [
        (a[1], b[0]) for a, b in itertools.pairwise(pieces)
    ]
    for j in found:
        assert j.wire_mm >= j.route_mm + JUMPER_ALLOWANCE_MM
        assert j.route_mm > PITCH_MM  # never where the strip would simply lie


# Worked by hand: a row of 30 holes has 5 group boundaries inside it; two-121 has
# 4 rows per track, two-61 2 (its game hole is a piece of its own); three-121's
# rows are holes 1-60 (11 boundaries) and 61-121 (12).
@pytest.mark.parametrize(
    ("name", "dark"), [("two-121", 2 * 4 * 5), ("three-121", 3 * (11 + 12)), ("two-61", 2 * 2 * 5)]
)
def test_real_gaps_variant_adds_one_dark_led_per_group_boundary(name: str, dark: int) -> None:
    layout = builtin_layout(name)
    gapped = real_gaps(layout)
    assert gapped.led_count == layout.led_count + dark
    leds = [h for t in gapped.tracks for h in t.holes]
    assert len(set(leds)) == len(leds) and max(leds) < gapped.led_count
    assert gapped.status == gapped.led_count - 1
    geo = board_geometry(gapped)
    # Same rows and pieces as the plain layout, only longer.
    assert len(strip_pieces(geo)) == len(strip_pieces(board_geometry(layout)))
    track = gapped.tracks[0]
    assert abs(track.holes[6] - track.holes[5]) == 2  # the dark LED between holes 5 and 6
    assert math.isclose(geo.spots[track.holes[6]].x - geo.spots[track.holes[5]].x, 2 * PITCH_MM)


def test_real_gaps_need_more_strip_than_the_plain_tables_said() -> None:
    assert metres_to_buy(board_geometry(builtin_layout("two-121"))) == 2
    assert metres_to_buy(board_geometry(real_gaps(builtin_layout("two-121")))) == 3
    assert metres_to_buy(board_geometry(real_gaps(builtin_layout("two-61")))) == 2


def wired(groups: list[str]) -> list[tuple[str, int]]:
    return [(r, b) for g in groups for r, b in DEFAULT_PINS[g].items() if b is not None]


@pytest.mark.parametrize("name", LAYOUT_NAMES)
def test_bom_quantities_follow_the_layout_and_the_pins(name: str) -> None:
    layout = builtin_layout(name)
    build = Build(layout, DEFAULT_PINS)
    groups = ["shared", *(f"track{i + 1}" for i in range(len(layout.tracks)))]
    lines = wired(groups)
    assert build.buttons() == sum(1 for r, _ in lines if not r.startswith("encoder_"))
    assert build.encoders() == sum(
        1 for g in groups[1:] if DEFAULT_PINS[g]["encoder_a"] is not None
    )
    table = bom_table(build)
    strip = re.search(r"\| WS2812B strip[^\n]*\| (\d+) m \|", table)
    assert strip is not None and int(strip[1]) == metres_to_buy(board_geometry(layout))
    # Every part of the carrier's schematic, by part number, as many as it has designators.
    parts = carrier_parts()
    for mpn in {p.mpn for p in parts}:
        (row,) = [r for r in table.splitlines() if f"| {mpn} |" in r]
        assert f"| {sum(p.mpn == mpn for p in parts)} |" in row
    # The total is the sum of the rows that are not options.
    rows = [r for r in table.splitlines() if r.startswith("| ") and not r.startswith("| group")]
    summed = sum(float(r.rsplit("|", 2)[1]) for r in rows if "(optional)" not in r)
    assert summed == pytest.approx(total_usd(build), abs=0.01 * len(rows))
    assert f"about {total_usd(build):.0f} USD" in table


def test_every_bom_item_has_a_part_number_or_says_what_to_ask_for() -> None:
    for item in ITEMS:
        assert item.part_number.strip()
        assert item.unit_usd >= 0


def test_parts_guide_has_the_generated_bom_and_builds() -> None:
    text = (HARDWARE / "parts.md").read_text(encoding="utf-8")
    assert docs.read_block(text, "bom") == docs.bom_section()
    assert docs.read_block(text, "builds") == docs.builds_section()
    wiring = (HARDWARE / "wiring.md").read_text(encoding="utf-8")
    assert docs.read_block(wiring, "cut-list") == docs.cut_list_section()
    assert "Twist the data wire with its ground wire" in wiring


def test_geometry_guide_states_the_real_gaps_strip_of_the_code() -> None:
    plain = builtin_layout("two-121")
    gapped = real_gaps(plain)
    text = " ".join((HARDWARE / "geometry.md").read_text(encoding="utf-8").split())
    metres = (metres_to_buy(board_geometry(gapped)), metres_to_buy(board_geometry(plain)))
    assert (
        f"`two-121` needs {gapped.led_count} LEDs instead of {plain.led_count}, "
        f"{metres[0]} m of strip instead of {metres[1]}"
    ) in text


@pytest.mark.parametrize("name", LAYOUT_NAMES)
def test_real_gaps_holes_sit_over_their_leds_too(name: str) -> None:
    from tests.test_hardware_drawing import DRILL_TOLERANCE_MM, real_led_places

    geo = board_geometry(real_gaps(builtin_layout(name)))
    real = real_led_places(geo)
    for led, spot in geo.spots.items():
        assert math.dist((spot.x, spot.y), real[led]) <= DRILL_TOLERANCE_MM


def test_geometry_guide_states_the_jumper_lengths_of_the_code() -> None:
    found = [j for n in LAYOUT_NAMES for j in jumpers(board_geometry(builtin_layout(n)))]
    longest = max(j.wire_mm for j in found)
    street_change = jumpers(board_geometry(builtin_layout("two-121")))[0]
    text = " ".join((HARDWARE / "geometry.md").read_text(encoding="utf-8").split())
    assert f"{street_change.wire_mm} mm for a street change" in text
    assert f"up to {round(longest, -1):.0f} mm from one track's end" in text


def test_the_bom_lists_what_holds_and_finishes_the_board() -> None:
    table = bom_table(Build(builtin_layout("two-121"), DEFAULT_PINS))
    for needed in ("standoffs", "heat-shrink", "diffuser", "top plate", "base board",
                   "cable gland", "heat-set inserts"):  # fmt: skip
        assert needed in table, f"the BOM has no {needed}"
