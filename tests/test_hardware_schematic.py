"""The schematic and the perfboard layout are drawn from the pin tables and stay current."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from boardctl.config import DEFAULT_PINS
from boardctl.hardware.pinout import HEADER_PIN
from tools.hardware.circuit import (
    DATA_3V3,
    DATA_5V,
    DIN,
    GND,
    V5,
    Component,
    build_circuit,
    nets,
)
from tools.hardware.perfboard import (
    COLUMNS,
    HEAVY_PADS,
    HEAVY_REFS,
    PADS,
    PLACES,
    ROWS,
    hole_nets,
    perfboard_svg,
)
from tools.hardware.pico import firmware_settings, pico_pin
from tools.hardware.schematic import render_schematic, schematic_svg

DRAWINGS = Path(__file__).resolve().parent.parent / "hardware" / "drawings"
SVG = "{http://www.w3.org/2000/svg}"
REGENERATE = "run: python -m tools.hardware.schematic hardware/drawings"


def drawn_pins(svg: str) -> dict[tuple[str, str], str]:
    root = ET.fromstring(svg.encode("utf-8"))
    found: dict[tuple[str, str], str] = {}
    for el in root.iter(f"{SVG}g"):
        if el.get("class") == "pin":
            key = (el.get("data-ref", ""), el.get("data-pin", ""))
            assert key not in found, f"{key} drawn twice"
            found[key] = el.get("data-net", "")
    return found


def test_committed_drawings_are_current() -> None:
    assert (DRAWINGS / "schematic.svg").read_text(encoding="utf-8") == schematic_svg(), REGENERATE
    assert (DRAWINGS / "perfboard.svg").read_text(encoding="utf-8") == perfboard_svg(), REGENERATE


def test_schematic_draws_every_pin_of_the_netlist() -> None:
    expected = {(c.ref, p.number): p.net or "" for c in build_circuit() for p in c.pins}
    assert drawn_pins((DRAWINGS / "schematic.svg").read_text(encoding="utf-8")) == expected


def test_pi_header_in_the_schematic_is_the_default_pin_table() -> None:
    pins = drawn_pins((DRAWINGS / "schematic.svg").read_text(encoding="utf-8"))
    wired = [(g, r, b) for g, roles in DEFAULT_PINS.items() for r, b in roles.items() if b]
    assert len(wired) >= 7
    for _group, _role, bcm in wired:
        assert pins[("A1", str(HEADER_PIN[bcm]))] == f"GPIO{bcm}"
    gpio_nets = {net for (ref, _pin), net in pins.items() if ref == "A1" and net.startswith("GPIO")}
    assert gpio_nets == {f"GPIO{bcm}" for _g, _r, bcm in wired}


def test_strip_data_leaves_the_shifter_from_its_output_side() -> None:
    circuit = build_circuit()
    by_ref = {c.ref: c for c in circuit}
    led_pin = firmware_settings()["LED_PIN"]
    assert by_ref["A2"].net_of(str(pico_pin(led_pin))) == DATA_3V3
    shifter = by_ref["U2"]
    assert shifter.net_of("2") == DATA_3V3  # 1A: the input side
    assert shifter.net_of("3") == DATA_5V  # 1Y: the output side
    assert by_ref["R7"].net_of("1") == DATA_5V and by_ref["R7"].net_of("2") == DIN
    assert by_ref["J4"].net_of("DIN") == DIN
    table = nets(circuit)
    assert table[DIN] == {("R7", "2"), ("J4", "DIN")}
    assert ("U2", "2") not in table[DIN] and ("U2", "3") not in table[DIN]
    assert ("R8", "1") in table[DATA_3V3]  # the pull-down on the input


def test_a_changed_default_pin_changes_the_schematic() -> None:
    changed = {group: dict(roles) for group, roles in DEFAULT_PINS.items()}
    changed["shared"]["undo"] = 20
    assert render_schematic(build_circuit(changed)) != schematic_svg()
    assert ("A1", str(HEADER_PIN[20])) in drawn_pins(render_schematic(build_circuit(changed)))


class Joined:
    """Union-find over holes."""

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, a: str) -> str:
        self.parent.setdefault(a, a)
        while self.parent[a] != a:
            a = self.parent[a]
        return a

    def join(self, a: str, b: str) -> None:
        self.parent[self.find(a)] = self.find(b)


def test_perfboard_links_join_exactly_the_nets_of_the_schematic() -> None:
    root = ET.fromstring((DRAWINGS / "perfboard.svg").read_bytes())
    holes: dict[str, str] = {}
    owners: dict[str, tuple[str, str]] = {}
    for el in root.iter(f"{SVG}circle"):
        if el.get("class") == "hole":
            where = el.get("data-hole", "")
            assert where not in holes, f"two pins in hole {where}"
            holes[where] = el.get("data-net", "")
            owners[where] = (el.get("data-ref", ""), el.get("data-pin", ""))
            col, row = map(int, where.split(","))
            assert 0 <= col < COLUMNS and 0 <= row < ROWS
    joined = Joined()
    for el in root.iter(f"{SVG}path"):
        if el.get("class") in ("link", "link heavy"):
            a, b = el.get("data-from", ""), el.get("data-to", "")
            assert holes[a] == holes[b] == el.get("data-net"), "a link between two nets"
            joined.join(a, b)
    by_net: dict[str, set[str]] = {}
    for where, net in holes.items():
        if net:
            by_net.setdefault(net, set()).add(joined.find(where))
    assert all(len(groups) == 1 for groups in by_net.values()), by_net
    # The pins on the perfboard carry the schematic's nets.
    schematic = {(c.ref, p.number): p.net or "" for c in build_circuit() for p in c.pins}
    for where, (ref, pin) in owners.items():
        if ref != "PAD":
            assert holes[where] == schematic[(ref, pin)]
    assert {net for _label, net, _hole in PADS} <= set(by_net)


def test_every_perfboard_part_is_placed_and_nothing_else() -> None:
    on_board = {c.ref for c in build_circuit() if c.perfboard}
    assert {p.ref for p in PLACES} == on_board
    by_ref = {c.ref: c for c in build_circuit()}
    for place in PLACES:
        assert set(place.pins) == {p.number for p in by_ref[place.ref].pins}


@pytest.mark.parametrize("name", ["schematic.svg", "perfboard.svg"])
def test_the_build_guide_shows_the_drawings(name: str) -> None:
    readme = (DRAWINGS.parent / "README.md").read_text(encoding="utf-8")
    assert f"(drawings/{name})" in readme


def test_the_strip_and_fault_currents_never_run_through_the_small_parts_pins() -> None:
    # The heavy links alone join the bus pads to the strip pads, D1, D2, SCR1 and C2,
    # and no heavy link ends on U2's socket or any other small part.
    root = ET.fromstring((DRAWINGS / "perfboard.svg").read_bytes())
    owner = {el.get("data-hole", ""): el.get("data-ref", "") for el in root.iter(f"{SVG}circle")
             if el.get("class") == "hole"}  # fmt: skip
    joined = Joined()
    for el in root.iter(f"{SVG}path"):
        if el.get("class") == "link heavy":
            a, b = el.get("data-from", ""), el.get("data-to", "")
            assert {owner[a], owner[b]} <= {"PAD", *HEAVY_REFS}, (owner[a], owner[b])
            assert el.get("data-net") in (V5, GND)
            joined.join(a, b)
    for net in (V5, GND):
        heavy = {where for where, (ref, pin, n) in hole_key(build_circuit()).items()
                 if n == net and (ref in HEAVY_REFS or pin in HEAVY_PADS)}  # fmt: skip
        assert len({joined.find(where) for where in heavy}) == 1, net


def hole_key(components: list[Component]) -> dict[str, tuple[str, str, str]]:
    return {f"{c},{r}": v for (c, r), v in hole_nets(components).items()}


def test_polarised_parts_carry_their_marks() -> None:
    root = ET.fromstring((DRAWINGS / "perfboard.svg").read_bytes())
    marks = {
        (part.get("data-ref"), el.get("data-mark"), el.get("data-pin"))
        for part in root.iter(f"{SVG}g")
        if part.get("class") == "part"
        for el in part.iter()
        if "polarity" in (el.get("class") or "")
    }
    by_ref = {c.ref: c for c in build_circuit()}
    for ref in ("D1", "D2", "D3"):
        assert by_ref[ref].net_of("2") != by_ref[ref].net_of("1")
        assert (ref, "band", "2") in marks, f"{ref} has no cathode band"
    assert ("C2", "minus", "2") in marks and ("C2", "plus", "1") in marks
    # C2's + lead is on +5 V; the schematic draws it polarised.
    assert by_ref["C2"].net_of("1") == V5 and by_ref["C2"].net_of("2") == GND
    schematic = ET.fromstring((DRAWINGS / "schematic.svg").read_bytes())
    assert any("polarity" in (el.get("class") or "") for el in schematic.iter())


def test_the_perfboard_is_a_size_that_is_sold() -> None:
    # 9 x 7 cm boards have 30 x 24 holes (5 x 7 cm ones 24 x 18, too few for this layout).
    assert (COLUMNS, ROWS) == (30, 24)
    used = hole_nets(build_circuit())
    assert max(c for c, _ in used) < COLUMNS and max(r for _, r in used) < ROWS
    assert "9 x 7 cm" in perfboard_svg()


def test_the_do201_diodes_leave_room_between_their_bodies() -> None:
    rows = {p.ref: p.holes[0][1] for p in PLACES if p.ref in ("D1", "D2")}
    assert abs(rows["D1"] - rows["D2"]) * 2.54 >= 5.3 + 2.0  # two 5.3 mm bodies, 2 mm apart


def test_the_underside_view_mirrors_every_hole_and_link() -> None:
    root = ET.fromstring((DRAWINGS / "perfboard.svg").read_bytes())
    top = {el.get("data-hole") for el in root.iter(f"{SVG}circle") if el.get("class") == "hole"}
    under = {el.get("data-hole") for el in root.iter(f"{SVG}circle")
             if el.get("class") == "underside-hole"}  # fmt: skip
    assert top == under and top

    def pairs(kind: str) -> set[tuple[str | None, str | None]]:
        return {(el.get("data-from"), el.get("data-to")) for el in root.iter(f"{SVG}path")
                if (el.get("class") or "").startswith(kind)}  # fmt: skip

    assert pairs("link") == pairs("underside-link")
    group = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "underside")
    assert "scale(-1 1)" in group.get("transform", "")  # turned over left to right
