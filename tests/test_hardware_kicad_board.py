"""The carrier's printed circuit board (tools/hardware/kicad/board.py) against its schematic.

The committed board is read as KiCad wrote it; KiCad's own ``kicad-cli`` (installed by
``.ci/run``) runs the design rules check and says where each pad is.
"""

from __future__ import annotations

import math
import re
import subprocess
import tempfile
from pathlib import Path

import pytest

from tools.hardware.kicad.board import (
    NON_POLAR,
    PI_FEED_MM,
    POURS,
    footprint,
    narrowest,
    pin_one_marks,
    placement,
    polarised,
    power_track_mm,
    read_netlist,
)
from tools.hardware.kicad.outputs import FAB, RENDERS, drc_violations
from tools.hardware.kicad.sexpr import find, parse, unq
from tools.hardware.power import PI_MA, supply_ma
from tools.hardware.routes import CARRIER_HOLES_MM, CARRIER_SIZE_MM

KICAD = Path(__file__).resolve().parent.parent / "hardware" / "kicad"
BOARD = parse((KICAD / "carrier.kicad_pcb").read_text(encoding="utf-8"))


def board_pad_nets() -> dict[tuple[str, str], str]:
    """``(ref, pad) -> net`` of every pad on a net, as the committed board has them."""
    out: dict[tuple[str, str], str] = {}
    for fp in find(BOARD, "footprint"):
        ref = next(unq(p[2]) for p in find(fp, "property") if unq(p[1]) == "Reference")
        for pad in find(fp, "pad"):
            net = find(pad, "net")
            if net:
                out[(ref, unq(pad[1]))] = unq(net[0][2])
    return out


def test_every_pin_of_every_schematic_net_is_on_that_net_on_the_board() -> None:
    _parts, nets = read_netlist()
    on_board = board_pad_nets()
    assert nets
    missing = {key: net for key, net in nets.items() if on_board.get(key) != net}
    assert not missing
    # And both ways: no pad carries a net the schematic does not give it.
    assert {k: n for k, n in on_board.items() if nets.get(k) != n} == {}


def test_every_part_of_the_schematic_has_its_footprint_on_the_board() -> None:
    parts, _nets = read_netlist()
    footprints = {
        next(unq(p[2]) for p in find(fp, "property") if unq(p[1]) == "Reference"): unq(fp[1])
        for fp in find(BOARD, "footprint")
    }
    assert {p.ref: p.footprint for p in parts}.items() <= footprints.items()


def test_kicads_design_rules_check_finds_no_error_and_nothing_unconnected() -> None:
    errors, warnings, unconnected = drc_violations()
    assert errors == []
    assert unconnected == 0
    # The warnings left are the library footprints' silkscreen crowding each other and the
    # mask openings (cosmetic; the fab clips silk off pads) and the two footprints drawn
    # differently from the library: the socket, mirrored on the underside, and the Pico.
    kinds = {w.split(":")[0] for w in warnings}
    assert kinds <= {"silk_overlap", "silk_over_copper", "silk_edge_clearance",
                     "lib_footprint_mismatch"}  # fmt: skip


def ipc_pads() -> dict[tuple[str, str], tuple[float, float]]:
    """Where KiCad puts each pad (its IPC-D-356 netlist), board mm from the top-left corner."""
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "board.ipc"
        subprocess.run(
            ["kicad-cli", "pcb", "export", "ipcd356", "-o", str(out), "carrier.kicad_pcb"],
            cwd=KICAD, check=True, capture_output=True,
        )  # fmt: skip
        lines = out.read_text(encoding="utf-8").splitlines()
    pads: dict[tuple[str, str], tuple[float, float]] = {}
    for line in lines:
        if line[:3] not in ("317", "327"):
            continue
        ref, pin = line[20:26].strip(), line[26:32].strip().lstrip("-")
        found = re.search(r"X([+-]?\d+)Y([+-]?\d+)", line)
        assert found is not None
        # IPC-D-356 here: 0.0001 inch, y up, from the board's bottom-left corner (its origin).
        x, y = int(found[1]) * 0.00254, int(found[2]) * 0.00254
        pads[(ref, pin)] = (round(x, 3), round(CARRIER_SIZE_MM[1] - y, 3))
    return pads


def test_the_pi_socket_puts_pin_1_where_the_hat_specification_does() -> None:
    pads = ipc_pads()
    # The header's centre line is 3.5 mm in, centred between the holes (29 mm from each);
    # seen from the top, pin 1 is at the left on the inner row, pin 2 on the edge's row.
    x1, y1 = pads[("J6", "1")]
    assert (x1, y1) == pytest.approx((32.5 - 19 * 2.54 / 2, 3.5 + 1.27), abs=0.01)
    assert pads[("J6", "2")] == pytest.approx((x1, 3.5 - 1.27), abs=0.01)
    assert pads[("J6", "40")] == pytest.approx((32.5 + 19 * 2.54 / 2, 3.5 - 1.27), abs=0.01)


def test_the_mounting_holes_are_the_hats_on_a_board_of_the_woodworks_size() -> None:
    start = find(find(BOARD, "gr_rect")[0], "start")[0]
    end = find(find(BOARD, "gr_rect")[0], "end")[0]
    size = (float(end[1]) - float(start[1]), float(end[2]) - float(start[2]))
    assert size == pytest.approx(CARRIER_SIZE_MM)
    holes = []
    for fp in find(BOARD, "footprint"):
        if unq(fp[1]).startswith("MountingHole:"):
            at = find(fp, "at")[0]
            holes.append((float(at[1]) - float(start[1]), float(at[2]) - float(start[2])))
    assert sorted((round(x, 3), round(y, 3)) for x, y in holes) == sorted(CARRIER_HOLES_MM)


def test_the_power_path_is_wider_than_ipc_2221_asks_for_the_worst_case_current() -> None:
    need = power_track_mm(supply_ma() / 1000)
    assert 0.9 < need < 1.5  # 2.6 A on 1 oz copper, 10 C rise: about 1.1 mm
    for pour in POURS:
        if pour.net != "GND":
            assert narrowest(pour) >= need, pour.net
    assert power_track_mm(PI_MA / 1000) <= PI_FEED_MM
    five_volt = next(n[1] for n in find(BOARD, "net") if unq(n[2]) == "+5V")
    widths = {float(find(s, "width")[0][1]) for s in find(BOARD, "segment")
              if find(s, "net")[0][1] == five_volt}  # fmt: skip
    assert PI_FEED_MM in widths


def test_every_polarised_part_has_a_silkscreen_dot_beside_its_pin_1() -> None:
    parts, nets = read_netlist()
    place = placement()
    ids = {n: i + 1 for i, n in enumerate(sorted(set(nets.values())))}
    pads = [pad for part in parts for pad in footprint(part, place[part.ref], nets, ids)[1]]
    marks = pin_one_marks(pads, place)
    dots = {(unq(find(c, "layer")[0][1]), float(find(c, "center")[0][1]),
             float(find(c, "center")[0][2])) for c in find(BOARD, "gr_circle")}  # fmt: skip
    origin = find(find(BOARD, "gr_rect")[0], "start")[0]
    ox, oy = float(origin[1]), float(origin[2])
    assert {(layer, round(x + ox, 3), round(y + oy, 3)) for layer, x, y in marks} <= {
        (layer, round(x, 3), round(y, 3)) for layer, x, y in dots
    }
    polar = [p for p in parts if polarised(p.ref) and p.ref != "J1"]
    assert {"C1", "D1", "D2", "U1", "U2", "Q1", "A1", "J2", "J6"} <= {p.ref for p in polar}
    for part in polar:
        first = next(p for p in pads if p.ref == part.ref and p.number == "1")
        cx, cy = (first.shape.x0 + first.shape.x1) / 2, (first.shape.y0 + first.shape.y1) / 2
        near = min(math.dist((cx, cy), (x, y)) for _layer, x, y in marks)
        assert near < 3.0, part.ref
    assert all(not polarised(f"{prefix}1") for prefix in NON_POLAR)


def test_the_fabrication_files_and_renders_are_committed() -> None:
    fab = KICAD / FAB
    names = {p.name for p in fab.iterdir()}
    for layer in ("F_Cu", "B_Cu", "F_Mask", "B_Mask", "F_Silkscreen", "Edge_Cuts"):
        assert any(layer in n for n in names), layer
    assert any(n.endswith(".drl") for n in names)
    placements = (fab / "carrier-pos.csv").read_text(encoding="utf-8")
    assert "U1" in placements and "A1" in placements
    for render in RENDERS:
        assert (KICAD / render).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_every_part_is_fitted_in_exactly_one_assembly_step_in_the_guide_s_order() -> None:
    from tools.hardware.kicad import steps

    fitted = [steps.refs_of(BOARD, step) for step in steps.STEPS]
    parts = {ref for (ref, _pad) in board_pad_nets()} - {r for r in placement() if r[0] == "H"}
    assert fitted[0] == [], "the bare board fits nothing"
    assert sorted(r for refs in fitted for r in refs) == sorted(parts)
    smd, through_hole, last = (set(refs) for refs in fitted[1:])
    assert {"R7", "U1", "U2", "Q1", "D1"} <= smd
    assert {"C1", "D2", "F1", "SW1"} <= through_hole
    assert {"A1", "J1", "J2", "J6"} <= last
    # The drawing of a step has the earlier steps' parts as outlines (DNP) and no later part.
    assert steps.step_board(BOARD, 0) is BOARD  # the bare board: copper and silkscreen
    after_smd = steps.step_board(BOARD, 2)
    drawn = [(fp.ref, node) for node in after_smd if (fp := steps.footprint_info(node))]
    dnp = {ref for ref, node in drawn if "dnp" in str(node)}
    present = {ref for ref, _node in drawn}
    assert smd <= dnp and not (last & present) and through_hole <= present - dnp


def test_the_build_guide_shows_every_assembly_step_drawing() -> None:
    from tools.hardware.kicad import steps

    guide = (KICAD.parent / "build.md").read_text(encoding="utf-8")
    for name in steps.files():
        assert (KICAD / steps.STEP_DIR / name).is_file(), name
        assert f"](kicad/{steps.STEP_DIR}/{name})" in guide, name
