"""The build guide agrees with the code: pin table, power figures, layouts, drawings."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import pytest

from boardctl.board.layout import LAYOUT_NAMES, builtin_layout, load_layout
from boardctl.board.power import MA_PER_LED_WHITE, PowerBudget
from boardctl.config import DEFAULT_PINS, BoardConfig
from tools.hardware import docs
from tools.hardware.drawing import layout_svg
from tools.hardware.pinout import (
    GROUND_PINS,
    HEADER_PIN,
    POWER_3V3_PINS,
    POWER_5V_PINS,
    nearest_ground,
    parse_wiring_table,
    wiring_table,
)

HARDWARE = Path(__file__).resolve().parent.parent / "hardware"


def test_generated_blocks_are_current() -> None:
    assert docs.stale_sections(HARDWARE) == [], "run: python -m tools.hardware.docs --write"


def test_wiring_doc_pin_table_equals_the_default_config() -> None:
    documented = parse_wiring_table((HARDWARE / "wiring.md").read_text(encoding="utf-8"))
    expected = {}
    for group, roles in DEFAULT_PINS.items():
        for role, bcm in roles.items():
            if bcm is not None:
                key = role if group == "shared" else f"{group}.{role}"
                expected[key] = (bcm, HEADER_PIN[bcm])
    assert documented == expected
    assert len(expected) >= 7  # undo, menu and a track's worth at least


def test_a_changed_default_pin_would_be_caught() -> None:
    changed = {group: dict(roles) for group, roles in DEFAULT_PINS.items()}
    changed["track1"]["plus1"] = 16
    documented = parse_wiring_table((HARDWARE / "wiring.md").read_text(encoding="utf-8"))
    assert parse_wiring_table(wiring_table(changed)) != documented


def test_header_map_is_the_40_pin_header() -> None:
    assert set(HEADER_PIN) == set(range(28))  # GPIO 0-27
    physical = [*HEADER_PIN.values(), *GROUND_PINS, *POWER_5V_PINS, *POWER_3V3_PINS]
    assert sorted(physical) == list(range(1, 41))
    # Spot checks against the printed pinout.
    assert (HEADER_PIN[17], HEADER_PIN[14], HEADER_PIN[21], HEADER_PIN[2]) == (11, 8, 40, 3)
    assert nearest_ground(11) == 9
    assert nearest_ground(40) == 39


def test_wiring_table_parser_refuses_duplicates() -> None:
    row = "| `pins.undo` | Undo | GPIO5 | 29 | 30 | x |"
    assert parse_wiring_table(row) == {"undo": (5, 29)}
    with pytest.raises(ValueError, match="twice"):
        parse_wiring_table(row + "\n" + row)


def test_blocks_are_replaced_between_their_markers_only() -> None:
    text = "a\n<!-- begin generated: x -->\nold\n<!-- end generated: x -->\nb\n"
    new = docs.replace_block(text, "x", "new\n")
    assert new == "a\n<!-- begin generated: x -->\nnew\n<!-- end generated: x -->\nb\n"
    assert docs.read_block(new, "x") == "new\n"
    with pytest.raises(ValueError, match="markers missing"):
        docs.read_block(text, "y")


def test_power_figures_stay_within_the_budget() -> None:
    budget = BoardConfig().power_budget_ma
    table = docs.power_section()
    rows = [line for line in table.splitlines() if re.match(r"^\| \d+/255", line)]
    assert len(rows) == 3 * len(docs.BRIGHTNESS_LEVELS)
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        before, after = (float(c.replace(",", "")) for c in cells[2:4])
        assert after <= budget
        assert after <= before
        limited = cells[4] != "1 (not limited)"
        assert limited == (before > budget)  # the limiter acts exactly when it must
        if "full white" in cells[1] and cells[0].startswith(("191/", "255/")):
            assert limited, "the worst case must need the limiter"
    assert PowerBudget().ma_per_channel * 3 == pytest.approx(MA_PER_LED_WHITE) == 60


@pytest.mark.parametrize("name", LAYOUT_NAMES)
def test_drawing_is_generated_from_the_layout_and_current(name: str) -> None:
    committed = (HARDWARE / "drawings" / f"{name}.svg").read_text(encoding="utf-8")
    assert committed == layout_svg(builtin_layout(name)), (
        "run: python -m tools.hardware.drawing --all hardware/drawings"
    )


@pytest.mark.parametrize("name", LAYOUT_NAMES)
def test_drawing_has_every_hole_of_the_layout(name: str) -> None:
    import xml.etree.ElementTree as ET

    layout = builtin_layout(name)
    root = ET.fromstring((HARDWARE / "drawings" / f"{name}.svg").read_bytes())
    drawn: dict[tuple[int, int], int] = {}
    leds: set[int] = set()
    for el in root.iter("{http://www.w3.org/2000/svg}circle"):
        if el.get("class") == "injection":
            continue
        leds.add(int(el.get("data-led", "-1")))
        if el.get("class") in ("hole", "start"):
            drawn[(int(el.get("data-track", "0")), int(el.get("data-hole", "-1")))] = int(
                el.get("data-led", "-1")
            )
    expected = {
        (t + 1, hole): led
        for t, track in enumerate(layout.tracks)
        for hole, led in enumerate(track.holes)
    }
    assert drawn == expected
    assert leds == set(layout.roles())


def test_firmware_defaults_match_the_default_layout() -> None:
    from tools.hardware.pico import firmware_settings

    settings = firmware_settings()
    layout = builtin_layout(BoardConfig().layout)
    assert settings["LED_COUNT"] == layout.led_count
    assert settings["COLOR_ORDER"] == layout.color_order


def test_firmware_settings_are_read_without_importing(tmp_path: Path) -> None:
    from tools.hardware.pico import firmware_settings, pico_pin

    config = tmp_path / "config.py"
    config.write_text('import machine\nLED_PIN = 2  # data\nLINK = "uart"\nx, y = 1, 2\n')
    assert firmware_settings(config) == {"LED_PIN": 2, "LINK": "uart"}
    assert pico_pin(2) == 4
    with pytest.raises(ValueError, match="GP23"):
        pico_pin(23)


def test_measured_figures_may_drift_a_little_but_not_more() -> None:
    generated = "| 50% | mid-game | 1,000 | 417 | 0.33 |\n"
    assert docs.figures_agree(generated, generated)
    assert docs.figures_agree("| 50% | mid-game | 1,030 | 425 | 0.33 |\n", generated)
    assert not docs.figures_agree("| 50% | mid-game | 1,200 | 417 | 0.33 |\n", generated)
    assert not docs.figures_agree("| 50% | end game | 1,000 | 417 | 0.33 |\n", generated)
    assert not docs.figures_agree("| 50% | mid-game | 1,000 | 417 |\n", generated)


def test_a_stale_block_is_found_and_rewritten(tmp_path: Path) -> None:
    for section in docs.SECTIONS:
        source = HARDWARE / section.document
        (tmp_path / section.document).write_text(source.read_text(encoding="utf-8"))
    wiring = tmp_path / "wiring.md"
    text = wiring.read_text(encoding="utf-8")
    undo = DEFAULT_PINS["shared"]["undo"]
    wiring.write_text(text.replace(f"| GPIO{undo} |", "| GPIO4 |", 1), encoding="utf-8")
    assert docs.stale_sections(tmp_path) == ["wiring.md:pins"]
    assert docs.write_sections(tmp_path) == ["wiring.md:pins"]
    assert docs.stale_sections(tmp_path) == []
    assert wiring.read_text(encoding="utf-8") == text


def test_command_line_check_and_write(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for section in docs.SECTIONS:
        source = HARDWARE / section.document
        (tmp_path / section.document).write_text(source.read_text(encoding="utf-8"))
    assert docs.main(["--check", "--dir", str(tmp_path)]) == 0
    power = tmp_path / "power.md"
    power.write_text(power.read_text(encoding="utf-8").replace("| 64/255 (25%) |", "| 1/255 |", 1))
    assert docs.main(["--dir", str(tmp_path)]) == 1  # --check is the default
    assert "stale: power.md:power" in capsys.readouterr().err
    assert docs.main(["--write", "--dir", str(tmp_path)]) == 0
    assert docs.main(["--check", "--dir", str(tmp_path)]) == 0


_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def test_every_relative_link_of_the_build_guide_resolves() -> None:
    checked = 0
    for doc in HARDWARE.glob("*.md"):
        for target in _LINK.findall(doc.read_text(encoding="utf-8")):
            if "://" in target:
                continue
            assert (doc.parent / target).exists(), f"{doc.name}: broken link {target}"
            checked += 1
    assert checked >= 10


def test_layout_files_table_links_to_the_files_the_code_loads() -> None:
    from boardctl.board.layout import LAYOUT_NAMES as names

    table = docs.layout_files_section()
    for name in names:
        target = HARDWARE / docs.LAYOUT_FILES / f"{name}.toml"
        assert f"]({docs.LAYOUT_FILES}/{name}.toml)" in table
        packaged = resources.files("boardctl.board").joinpath("layouts", f"{name}.toml")
        assert target.read_bytes() == packaged.read_bytes()
        assert load_layout(target).tracks == builtin_layout(name).tracks


def test_the_guides_name_the_pico_h_by_its_own_part_number() -> None:
    # SC0915 is the plain Pico; the Pico H (headers fitted) is SC0917.
    for path in HARDWARE.glob("*.md"):
        text = path.read_text(encoding="utf-8")
        assert "SC0915" not in text, path.name
    assert "Raspberry Pi SC0917" in (HARDWARE / "parts.md").read_text(encoding="utf-8")


_PART_NUMBER = re.compile(
    r"\b(SMAJ\d+\.\dA|MF-R\w*\d|PESD\w+|BSC\d+\w+|LTC\d{4}\w*|1N58\d\d|MMBT\d+|SN74\w+|"
    r"USB\d{4}|EEU-\w+|1935\d{3})"
)


def test_the_guides_name_only_the_part_numbers_the_carrier_s_schematic_has() -> None:
    from tools.hardware.kicad.carrier import carrier_parts

    parts = carrier_parts()
    on_schematic = set(_PART_NUMBER.findall(" ".join(f"{p.value} {p.mpn}" for p in parts)))
    mentioned: dict[str, str] = {}
    for path in HARDWARE.glob("*.md"):
        for number in _PART_NUMBER.findall(path.read_text(encoding="utf-8")):
            mentioned.setdefault(number, path.name)
    # Named on purpose: the TVS the carrier no longer uses, a fuse for a next revision, and
    # the sibling controller whose threshold band stands in for the LTC4365's.
    compared = {"SMAJ5.0A", "MF-RG500", "LTC4368"}
    strangers = {n: doc for n, doc in mentioned.items() if n not in on_schematic | compared}
    assert strangers == {}
    assert {"SMAJ6.0A", "MF-RG300", "PESD5V0S1BA", "LTC4365"} <= set(mentioned)
