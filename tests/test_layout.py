"""Layout files: the reference layouts load, and each kind of mistake has its own message."""

from __future__ import annotations

from pathlib import Path

import pytest

from boardctl.board.layout import (
    LAYOUT_NAMES,
    builtin_layout,
    load_layout,
    parse_layout,
)
from boardctl.errors import LayoutError

PACKAGE_LAYOUTS = Path(__file__).resolve().parent.parent / "boardctl" / "board" / "layouts"


def test_the_package_ships_exactly_the_built_in_layouts() -> None:
    # The one copy of each layout file: hardware/ links to these, it has none of its own.
    names = {p.name for p in PACKAGE_LAYOUTS.glob("*.toml")}
    assert names == {f"{n}.toml" for n in LAYOUT_NAMES}
    hardware = PACKAGE_LAYOUTS.parents[2] / "hardware"
    assert not list(hardware.rglob("*.toml"))


@pytest.mark.parametrize(
    ("name", "tracks", "holes", "leds"),
    [("two-121", 2, 121, 256), ("three-121", 3, 121, 382), ("two-61", 2, 61, 131)],
)
def test_reference_layouts(name: str, tracks: int, holes: int, leds: int) -> None:
    layout = builtin_layout(name)
    assert layout.name == name
    assert len(layout.tracks) == tracks
    assert layout.hole_count == holes
    assert layout.led_count == leds
    used = [led for track in layout.tracks for led in track.holes]
    assert len(used) == tracks * (holes + 1)
    assert len(set(used)) == len(used)
    assert all(0 <= led < leds for led in used)
    # every LED of the strip has a job in the reference builds
    assert sorted(layout.roles()) == list(range(leds))


def test_serpentine_rows_of_the_main_build() -> None:
    layout = builtin_layout("two-121")
    first = layout.tracks[0].holes
    assert first[0] == 0 and first[1] == 1 and first[30] == 30
    assert first[31] == 60 and first[60] == 31  # second row runs back
    assert first[61] == 61 and first[91] == 120 and first[121] == 121
    assert layout.tracks[1].holes[0] == 122
    assert layout.markers == {"skunk": (252,), "double": (253,), "triple": (254,)}
    assert layout.status == 255
    assert layout.color_order == "GRB"


def test_split_strip_of_the_three_track_build() -> None:
    layout = builtin_layout("three-121")
    second = layout.tracks[1].holes
    assert second[0] == 61 and second[60] == 121
    assert second[61] == 304 and second[121] == 244


def test_painted_lines_build_has_no_markers() -> None:
    assert builtin_layout("two-61").markers == {}


def test_load_by_path_and_by_name(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text((PACKAGE_LAYOUTS / "two-61.toml").read_text())
    assert load_layout(path).tracks == builtin_layout("two-61").tracks
    assert load_layout(path).source == str(path)
    assert load_layout("two-61").led_count == 131


def test_every_used_led_is_named_by_its_role() -> None:
    roles = builtin_layout("two-121").roles()
    assert roles[60] == "track 1 hole 31"
    assert roles[122] == "track 2 start hole"
    assert roles[253] == "double line marker"
    assert roles[244] == "track 1 dealer LED"


# ---------------------------------------------------------------------------
# mistakes

GOOD = """
name = "tiny"
holes = 5
[strip]
led_count = 16
color_order = "GRB"
[[track]]
start = 0
dealer = 12
segments = [
  { from_hole = 1, to_hole = 5, first_led = 1, step = 1 },
]
[[track]]
start = 6
game_points = [13, 14]
segments = [
  { from_hole = 1, to_hole = 3, first_led = 7 },
  { from_hole = 4, to_hole = 5, first_led = 11, step = -1 },
]
[markers]
skunk = 15
"""


def test_the_small_good_layout_loads() -> None:
    layout = parse_layout(GOOD, source="tiny.toml")
    assert layout.tracks[1].holes == (6, 7, 8, 9, 11, 10)
    assert layout.tracks[0].dealer == 12
    assert layout.tracks[1].game_points == (13, 14)
    assert layout.markers["skunk"] == (15,)


def _error(text: str) -> str:
    with pytest.raises(LayoutError) as info:
        parse_layout(text, source="tiny.toml")
    message = str(info.value)
    assert message.startswith("tiny.toml: ")
    return message


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "first_led = 11",
            "first_led = 40",
            "[[track]] 2 segments[1]: track 2 hole 4 is on LED 40",
        ),
        ("first_led = 11", "first_led = 40", "outside the strip of 16 LEDs (0-15)"),
        ("led_count = 16", "led_count = 14", "game_points: track 2 game-point LED 2 is on LED 14"),
        ("skunk = 15", "skunk = 3", "LED 3 is used twice (track 1 hole 3 and skunk line marker)"),
        (
            "dealer = 12",
            "dealer = 7",
            "LED 7 is used twice (track 1 dealer LED and track 2 hole 1)",
        ),
        ("to_hole = 3, first_led = 7", "to_hole = 2, first_led = 7", "no LED for holes 3;"),
        ("{ from_hole = 4, to_hole = 5, first_led = 11, step = -1 },", "", "no LED for holes 4-5"),
        (
            "from_hole = 4, to_hole = 5",
            "from_hole = 3, to_hole = 5",
            "hole 3 is also in segments[0]",
        ),
        (
            "from_hole = 4, to_hole = 5",
            "from_hole = 5, to_hole = 4",
            "from_hole 5 is after to_hole 4",
        ),
        (
            "from_hole = 4, to_hole = 5",
            "from_hole = 4, to_hole = 6",
            "to_hole 6 is beyond the 5 holes",
        ),
        ("step = -1", "step = 0", "step is 0; use 1 (or -1"),
        ('color_order = "GRB"', 'color_order = "GRBX"', "color_order 'GRBX' is not one of"),
        ("led_count = 16", "", "[strip] led_count is missing"),
        ("led_count = 16", 'led_count = "16"', "[strip] led_count must be a whole number"),
        ("led_count = 16", "led_count = 0", "[strip] led_count must be at least 1"),
        ("holes = 5", "", "holes is missing"),
        ("dealer = 12", "dealr = 12", "[[track]] 1: unknown key 'dealr'"),
        ("start = 6", "", "[[track]] 2 start is missing"),
        ("first_led = 7 }", "first = 7 }", "[[track]] 2 segments[0]: unknown key 'first'"),
        ("skunk = 15", "skunky = 15", "[markers]: unknown key 'skunky'"),
        ("game_points = [13, 14]", "game_points = [13, -1]", "game_points[1] must be at least 0"),
        ("[strip]", "[strip", "not valid TOML"),
    ],
)
def test_each_mistake_names_the_key_and_the_fix(old: str, new: str, expected: str) -> None:
    assert old in GOOD
    assert expected in _error(GOOD.replace(old, new, 1))


def test_a_layout_without_tracks() -> None:
    text = "holes = 5\n[strip]\nled_count = 8\n"
    assert "no [[track]] tables" in _error(text)


def test_a_layout_without_strip() -> None:
    assert "[strip] table is missing" in _error("holes = 5\n")


def test_missing_file_is_a_layout_error(tmp_path: Path) -> None:
    with pytest.raises(LayoutError, match="cannot read layout file"):
        load_layout(tmp_path / "nope.toml")


def test_unknown_builtin_names_the_known_ones() -> None:
    with pytest.raises(LayoutError, match="two-121, three-121, two-61"):
        builtin_layout("four-121")
