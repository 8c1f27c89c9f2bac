"""The carrier's printed circuit board, generated from the schematic's netlist.

``python -m tools.hardware.kicad.board`` (from the repository's root, with KiCad 9 and its
footprint library installed) reads ``hardware/kicad/carrier-netlist.xml`` (what
``kicad-cli sch export netlist`` makes of the schematic), takes every part's footprint from
KiCad's own library, places it where :data:`PLACEMENT` says, routes the board with
:mod:`tools.hardware.kicad.router`, pours the power nets and the ground, lets KiCad fill the
pours (``pcbnew``, the Python module of the ``kicad`` package, run by the system's Python)
and writes ``hardware/kicad/carrier.kicad_pcb``. ``--check`` builds it again in a scratch
folder and says whether the committed board differs.

Two layers, 1.6 mm, 1 oz copper; the board is a Raspberry Pi HAT's outline (its mounting
holes, the 40-pin socket on the underside) drawn out to the right for the input, its
protection and the strip's screw terminals. The power path (USB-C to the terminals and the
Pi) is poured copper on the top, every other track is :data:`SIGNAL_MM` wide; the pour is
wider than the track IPC-2221 asks for at the worst-case current of the power budget
(:func:`power_track_mm`), and the back is one ground plane.
"""

from __future__ import annotations

import argparse
import math
import re
import shutil
import subprocess
import sys
import tempfile
import uuid
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tools.hardware.kicad.carrier import KICAD_DIR, NAMESPACE, PROJECT
from tools.hardware.kicad.router import (
    LAYERS,
    Board,
    Pad,
    Rect,
    Routed,
    Segment,
    Via,
    Zone,
    route,
)
from tools.hardware.kicad.sexpr import Node, dump, find, parse, q, unq
from tools.hardware.power import PI_MA, supply_ma
from tools.hardware.routes import CARRIER_HOLES_MM, CARRIER_SIZE_MM

FOOTPRINT_DIR = Path("/usr/share/kicad/footprints")
PCB = f"{PROJECT}.kicad_pcb"
NETLIST = KICAD_DIR / f"{PROJECT}-netlist.xml"
#: Where the board's top-left corner sits on KiCad's A4 sheet.
ORIGIN = (40.0, 40.0)
WIDTH, HEIGHT = CARRIER_SIZE_MM
EDGE_MM = 0.5  # copper to the board's edge
SIGNAL_MM = 0.2
MOUNTING_HOLE = "MountingHole:MountingHole_2.7mm_M2.5"
#: 1 oz (35 um) outer copper, and the temperature rise allowed at the worst-case current.
COPPER_UM, RISE_C = 35.0, 10.0


def power_track_mm(amps: float) -> float:
    """IPC-2221's width for an outer track carrying ``amps`` at :data:`RISE_C` over ambient:
    I = 0.048 dT^0.44 A^0.725, A in square mils."""
    area_mil2 = (amps / (0.048 * RISE_C**0.44)) ** (1 / 0.725)
    return float(area_mil2) / (COPPER_UM / 25.4) * 0.0254


# --- the netlist --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Component:
    ref: str
    footprint: str
    value: str


def read_netlist(path: Path = NETLIST) -> tuple[list[Component], dict[tuple[str, str], str]]:
    """The parts, and the net of each connected ``(ref, pin)`` (KiCad's names without the
    sheet's ``/``; a pin alone on its net, a no-connect, has none)."""
    root = ET.parse(path).getroot()
    parts = [
        Component(c.get("ref", ""), c.findtext("footprint", ""), c.findtext("value", ""))
        for c in root.iter("comp")
        if c.findtext("footprint")
    ]
    nets: dict[tuple[str, str], str] = {}
    for net in root.iter("net"):
        nodes = list(net.iter("node"))
        if len(nodes) > 1:
            for node in nodes:
                nets[(node.get("ref", ""), node.get("pin", ""))] = net.get("name", "").lstrip("/")
    return parts, nets


# --- placement ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Place:
    x: float
    y: float
    angle: int = 0
    back: bool = False


def _button_lines() -> list[tuple[str, str]]:
    """Each input connector and the lines on its pins, in pin order (from the netlist)."""
    _parts, nets = read_netlist()
    out: list[tuple[str, str]] = []
    for ref in ("J9", "J10", "J11", "J8"):
        pins = sorted((int(p), n) for (r, p), n in nets.items() if r == ref)
        out += [(ref, n) for _p, n in pins]
    return out


def placement() -> dict[str, Place]:
    """Where each part goes, board millimetres from the top-left corner (y down)."""
    place = {
        # The Pi's header: a socket on the underside, pin 1 where the HAT specification has it.
        "J6": Place(8.37, 4.77, 90, back=True),
        "A1": Place(56.3, 29.0, 270),
        # The input on the top edge; its protection: LTC4365 with Q1, Q2 back to back.
        "J1": Place(80.0, 2.8, 180),
        "R1": Place(87.5, 3.0, 0),
        "R2": Place(87.5, 5.0, 0),
        "U1": Place(70.0, 3.6, 0),
        "R3": Place(66.2, 1.5, 0),
        "R4": Place(66.2, 3.2, 0),
        "R5": Place(66.2, 4.9, 0),
        "C2": Place(69.6, 6.45, 0),
        "R6": Place(72.8, 6.45, 0),
        "Q1": Place(70.9, 11.0, 0),
        "Q2": Place(63.4, 9.73, 180),
        "F1": Place(61.5, 15.0, 0),
        # +5 V: the bulk capacitor, the clamp, the strip's terminals on the right-hand edge.
        "C1": Place(70.5, 22.0, 0),
        "D1": Place(70.0, 32.0, 90),
        "J2": Place(84.5, 15.0, 270),
        "J3": Place(84.5, 32.0, 270),
        "J4": Place(84.5, 44.0, 270),
        # The Pico's supply diode: +5 V to VSYS (pin 39).
        "D2": Place(61.0, 46.0, 0),
        # The strip's level shifter, below the +5 V pour.
        "U2": Place(70.0, 52.5, 0),
        "C3": Place(74.0, 50.6, 0),
        "R7": Place(74.5, 53.6, 0),
        "R8": Place(66.0, 54.5, 90),
        # Piezo driver on GP15 (pin 20, the Pico's left end).
        "R9": Place(8.3, 50.6, 0),
        "Q3": Place(12.0, 52.5, 0),
        "R10": Place(15.0, 52.5, 90),
        "J5": Place(19.0, 53.5, 0),
        # The shutdown button on GPIO3 and the I2S header.
        "SW1": Place(27.0, 51.5, 0),
        "R11": Place(24.0, 58.3, 0),
        "J7": Place(40.0, 53.5, 90),
    }
    # The inputs: four connectors in a row below the header, each line's series resistor,
    # ESD diode and pull-up in a column above its pin.
    x = 3.5
    for ref, count in (("J9", 6), ("J10", 6), ("J11", 3), ("J8", 3)):
        place[ref] = Place(x, 22.4)
        x += (count - 1) * 2.5 + 6.2
    return place | _line_columns(place)


def _line_columns(place: dict[str, Place]) -> dict[str, Place]:
    _parts, nets = read_netlist()
    out: dict[str, Place] = {}
    for (ref, pin), net in sorted(nets.items()):
        if not net.startswith("IN_") or ref not in ("J8", "J9", "J10", "J11"):
            continue
        x = place[ref].x + (int(pin) - 1) * 2.5
        series = next(
            r
            for (r, p), n in nets.items()
            if n == net
            and r.startswith("R")
            and nets.get((r, "1" if p == "2" else "2"), "").startswith("GPIO")
        )
        number = int(series[1:])
        out[series] = Place(x, 9.4, 270)  # pad 1 (the Pi's side) up
        out[f"D{number + 2}"] = Place(x, 12.9, 270)  # pad 2 (the line) up, pad 1 (GND) down
        out[f"R{number + 1}"] = Place(x, 16.6, 270)  # pad 1 (the line) up, pad 2 (3V3) down
    return out


# --- footprints ---------------------------------------------------------------------------------


def _uuid(*names: object) -> str:
    return str(uuid.uuid5(NAMESPACE, "pcb/" + "/".join(map(str, names))))


def _mm(value: float) -> str:
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


@cache
def library_footprint(lib_id: str) -> Node:
    library, name = lib_id.split(":")
    return parse((FOOTPRINT_DIR / f"{library}.pretty" / f"{name}.kicad_mod").read_text("utf-8"))


def transform(place: Place, lx: float, ly: float) -> tuple[float, float]:
    """A footprint's local point on the board (KiCad's rotation: counter-clockwise, y down)."""
    if place.back:
        lx = -lx
    a = math.radians(place.angle)
    return (
        place.x + lx * math.cos(a) + ly * math.sin(a),
        place.y - lx * math.sin(a) + ly * math.cos(a),
    )


def _flip_layer(name: str) -> str:
    inner = unq(name)
    if inner.startswith("F."):
        return q("B." + inner[2:])
    if inner.startswith("B."):
        return q("F." + inner[2:])
    return name


def _mirror(node: Node) -> Node:
    """A footprint's item seen from the back: x negated, front and back layers swapped."""
    if not isinstance(node, list):
        return node
    if node and node[0] in ("at", "start", "end", "center", "mid", "xy") and len(node) > 2:
        return [node[0], _mm(-float(node[1])), *node[2:]]
    if node and node[0] in ("layer", "layers"):
        return [node[0], *[_flip_layer(n) for n in node[1:]]]
    if node and node[0] == "effects":
        justify = find(node, "justify")
        rest = [_mirror(n) for n in node if not (isinstance(n, list) and n[0] == "justify")]
        return [*rest, ["justify", *(justify[0][1:] if justify else []), "mirror"]]
    return [_mirror(n) for n in node]


def pad_rect(place: Place, pad: Node) -> tuple[Rect, float]:
    """A pad's copper on the board (a rounded or odd-shaped one by its box, a round one as a
    circle, an oval as a line with round ends), and its drilled hole's radius."""
    at = find(pad, "at")[0]
    size = find(pad, "size")[0]
    angle = float(at[3]) if len(at) > 3 else 0.0
    total = (angle * (-1 if place.back else 1) + place.angle) % 360
    assert total % 90 == 0, f"pad at {total} degrees"
    sx, sy = float(size[1]), float(size[2])
    if total % 180:
        sx, sy = sy, sx
    x, y = transform(place, float(at[1]), float(at[2]))
    shape = str(pad[3])
    drill = find(pad, "drill")
    hole = 0.0
    if drill:
        numbers = [float(v) for v in drill[0][1:] if isinstance(v, str) and v[0].isdigit()]
        hole = min(numbers) / 2 if numbers else 0.0
    if shape == "circle":
        return Rect(x, y, x, y, sx / 2), hole
    if shape == "oval":
        r = min(sx, sy) / 2
        return Rect(x - sx / 2 + r, y - sy / 2 + r, x + sx / 2 - r, y + sy / 2 - r, r), hole
    return Rect(x - sx / 2, y - sy / 2, x + sx / 2, y + sy / 2), hole


def _copper_layers(place: Place, pad: Node) -> tuple[int, ...]:
    names = [unq(n) for n in find(pad, "layers")[0][1:]]
    out: set[int] = set()
    for name in names:
        if name == "*.Cu":
            out |= {0, 1}
        elif name in ("F.Cu", "B.Cu"):
            out.add(LAYERS.index(name) ^ (1 if place.back else 0))
    return tuple(sorted(out))


def footprint(
    part: Component, place: Place, nets: dict[tuple[str, str], str], net_ids: dict[str, int]
) -> tuple[Node, list[Pad]]:
    """The part's library footprint placed on the board, its pads on their nets."""
    source = library_footprint(part.footprint)
    body: list[Node] = []
    pads: list[Pad] = []
    for index, item in enumerate(source[2:]):
        if not isinstance(item, list) or item[0] in (
            "version",
            "generator",
            "generator_version",
            "layer",
        ):
            continue
        if item[0] == "property" and unq(item[1]) in ("Reference", "Value"):
            item = [
                item[0],
                item[1],
                q(part.ref if unq(item[1]) == "Reference" else part.value),
                *item[3:],
            ]
        placed = _mirror(item) if place.back else item
        if item[0] == "pad":
            number = unq(item[1])
            net = nets.get((part.ref, number), "")
            rect, hole = pad_rect(place, item)
            layers = _copper_layers(place, item)
            if layers or hole:
                pads.append(Pad(part.ref, number, net if number else "", rect, layers, hole))
            at = find(placed, "at")[0]
            local = float(at[3]) if len(at) > 3 else 0.0
            new_at = ["at", at[1], at[2], _mm((-local if place.back else local) + place.angle)]
            placed = [new_at if isinstance(c, list) and c[0] == "at" else c for c in placed]
            placed = [c for c in placed if not (isinstance(c, list) and c[0] in ("uuid", "net"))]
            if net:
                placed.append(["net", str(net_ids[net]), q(net)])
            placed.append(["uuid", q(_uuid(part.ref, "pad", index))])
        elif item[0] in ("property", "fp_text"):
            placed = [
                _rotated_at(c, place.angle) if isinstance(c, list) and c[0] == "at" else c
                for c in placed
            ]
            placed = [_uuid_of(c, part.ref, index) for c in placed]
        else:
            placed = [_uuid_of(c, part.ref, index) for c in placed]
        body.append(placed)
    node = [
        "footprint",
        q(part.footprint),
        ["layer", q("B.Cu" if place.back else "F.Cu")],
        ["uuid", q(_uuid(part.ref))],
        ["at", _mm(ORIGIN[0] + place.x), _mm(ORIGIN[1] + place.y), str(place.angle)],
        *body,
    ]
    if part.ref[0] != "H":
        node.insert(5, ["path", q(f"/{_symbol_uuid(part.ref)}")])
    return node, pads


def _symbol_uuid(ref: str) -> str:
    return str(uuid.uuid5(NAMESPACE, f"symbol/{ref}"))


def _rotated_at(at: Node, angle: int) -> Node:
    local = float(at[3]) if len(at) > 3 else 0.0
    return ["at", at[1], at[2], _mm((local + angle) % 360)]


def _uuid_of(node: Node, ref: str, index: int) -> Node:
    if isinstance(node, list) and node and node[0] == "uuid":
        return ["uuid", q(_uuid(ref, index))]
    return node


# --- pours --------------------------------------------------------------------------------------

GND, V5 = "GND", "+5V"


@dataclass(frozen=True, slots=True)
class Pour:
    """A copper pour: the net, its layer, its outline (board mm) and KiCad's fill priority."""

    net: str
    layer: int
    areas: tuple[Rect, ...]  # the outline is their union: rectangles, or an L of two
    priority: int

    @property
    def outline(self) -> tuple[tuple[float, float], ...]:
        a = self.areas[0]
        if len(self.areas) == 1:
            return ((a.x0, a.y0), (a.x1, a.y0), (a.x1, a.y1), (a.x0, a.y1))
        b = self.areas[1]  # on top of ``a``, flush with its right-hand side
        assert b.y1 == a.y0 and b.x1 == a.x1 and b.x0 > a.x0
        return ((a.x0, a.y0), (b.x0, a.y0), (b.x0, b.y0), (b.x1, b.y0), (a.x1, a.y1), (a.x0, a.y1))


def _rect(x0: float, y0: float, x1: float, y1: float) -> tuple[Rect, ...]:
    return (Rect(x0, y0, x1, y1),)


#: The power path, poured on the top: input, between the MOSFETs' sources, protected
#: input to the fuse, +5 V to the terminals; then the ground plane on the back.
POURS = (
    Pour("VIN", 0, (Rect(69.2, 7.4, 83.0, 13.6), Rect(75.0, 4.9, 83.0, 7.4)), 4),
    Pour("FET_S", 0, _rect(65.5, 8.7, 68.75, 12.0), 3),
    Pour("+5V_PROT", 0, _rect(59.9, 7.0, 65.3, 16.2), 2),
    Pour(V5, 0, _rect(65.6, 13.8, 86.2, 48.0), 1),
    Pour(GND, 1, _rect(0, 0, WIDTH, HEIGHT), 0),
)


def narrowest(pour: Pour) -> float:
    """The pour's narrowest part: what the power path's width comes down to."""
    return min(min(a.x1 - a.x0, a.y1 - a.y0) for a in pour.areas)


# --- silkscreen ---------------------------------------------------------------------------------

#: Parts that have no polarity (the rest get a pin-1 dot: a diode's cathode, the capacitor's +).
NON_POLAR = ("R", "F", "SW", "H")
#: What each screw terminal's pins carry, printed beside them.
TERMINAL_LABELS = {"J2": ("+5V", "DIN", "GND"), "J3": ("+5V", "GND"), "J4": ("+5V", "GND")}
SILK_TEXT_MM = 0.8


def polarised(ref: str) -> bool:
    prefix = ref.rstrip("0123456789")
    return prefix not in NON_POLAR and ref not in ("C2", "C3")


def pin_one_marks(pads: Sequence[Pad], place: dict[str, Place]) -> list[tuple[str, float, float]]:
    """A dot beside pad 1 of every polarised part, on the side it is soldered from (the Pi
    socket's on both): ``(layer, x, y)``, board mm. Pad 1 is a diode's cathode (its band),
    the electrolytic's +, an IC's or connector's pin 1."""
    marks: list[tuple[str, float, float]] = []
    for ref in sorted({p.ref for p in pads}):
        if not polarised(ref):
            continue
        own = [p for p in pads if p.ref == ref and p.number]
        first = next((p for p in own if p.number == "1"), None)
        if first is None:  # the USB-C receptacle: keyed by its shape, either way up
            continue
        cx = sum((p.shape.x0 + p.shape.x1) / 2 for p in own) / len(own)
        cy = sum((p.shape.y0 + p.shape.y1) / 2 for p in own) / len(own)
        px, py = (first.shape.x0 + first.shape.x1) / 2, (first.shape.y0 + first.shape.y1) / 2
        dx, dy = px - cx, py - cy
        length = math.hypot(dx, dy) or 1.0
        reach = max(first.shape.x1 - first.shape.x0, first.shape.y1 - first.shape.y0) / 2
        reach += first.shape.r + 0.7
        x, y = px + dx / length * reach, py + dy / length * reach
        sides = ("F.SilkS", "B.SilkS") if place[ref].back else ("F.SilkS",)
        marks += [(side, round(x, 3), round(y, 3)) for side in sides]
    return marks


def silkscreen(pads: Sequence[Pad], place: dict[str, Place]) -> list[Node]:
    """The board's own silkscreen: pin-1 marks, the terminals' pin names, a legend."""
    items: list[Node] = []
    for n, (layer, x, y) in enumerate(pin_one_marks(pads, place)):
        items.append(
            [
                "gr_circle",
                ["center", *_at(x, y)],
                ["end", *_at(x + 0.3, y)],
                ["stroke", ["width", "0.1"], ["type", "solid"]],
                ["fill", "yes"],
                ["layer", q(layer)],
                ["uuid", q(_uuid("pin1", n))],
            ]
        )
    texts: list[tuple[str, float, float, int]] = []
    for ref, labels in TERMINAL_LABELS.items():
        for number, label in enumerate(labels, start=1):
            pad = next(p for p in pads if p.ref == ref and p.number == str(number))
            texts.append((label, pad.shape.x0 - 2.2, (pad.shape.y0 + pad.shape.y1) / 2, 90))
    texts.append(("\u25cf pin 1 / cathode / +", 76.0, HEIGHT - 1.2, 0))
    for n, (text, x, y, angle) in enumerate(texts):
        items.append(
            [
                "gr_text",
                q(text),
                ["at", *_at(x, y), str(angle)],
                ["layer", q("F.SilkS")],
                ["uuid", q(_uuid("text", n))],
                [
                    "effects",
                    ["font", ["size", _mm(SILK_TEXT_MM), _mm(SILK_TEXT_MM)], ["thickness", "0.12"]],
                ],
            ]
        )
    return items


# --- the Pi's supply ----------------------------------------------------------------------------

#: The Pi's +5 V (header pins 2 and 4): laid by hand, along the top edge past the header's
#: outer row, down between the mounting hole and the divider, under the protection on the
#: back and up into the +5 V pour. Its width carries the Pi's worst case (power.PI_MA).
PI_FEED_MM = 0.4
PI_FEED = (
    ((8.37, 2.23), (8.37, 1.0), "F.Cu"),
    ((10.91, 2.23), (10.91, 1.0), "F.Cu"),
    ((8.37, 1.0), (63.75, 1.0), "F.Cu"),
    ((63.75, 1.0), (63.75, 6.0), "F.Cu"),
    ((63.75, 6.0), (63.75, 14.5), "B.Cu"),
    ((63.75, 14.5), (66.0, 14.5), "B.Cu"),
)
PI_FEED_VIAS = ((63.75, 6.0), (66.0, 14.5))


# --- the board ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Layout:
    footprints: list[Node]
    pads: list[Pad]
    nets: list[str]
    routed: Routed
    silk: list[Node]


def layout() -> Layout:
    """Every footprint placed and every net routed."""
    parts, nets = read_netlist()
    names = sorted(set(nets.values()))
    net_ids = {name: i + 1 for i, name in enumerate(names)}
    place = placement()
    missing = sorted({p.ref for p in parts} - set(place))
    assert not missing, f"not placed: {missing}"
    footprints: list[Node] = []
    pads: list[Pad] = []
    for part in sorted(
        parts, key=lambda p: (p.ref[0], int(p.ref[1:]) if p.ref[1:].isdigit() else 0, p.ref)
    ):
        node, its_pads = footprint(part, place[part.ref], nets, net_ids)
        footprints.append(node)
        pads += its_pads
    for n, (x, y) in enumerate(CARRIER_HOLES_MM, start=1):
        node, its_pads = footprint(
            Component(f"H{n}", MOUNTING_HOLE, "M2.5"), Place(x, y), {}, net_ids
        )
        footprints.append(node)
        pads += its_pads
    for pour in POURS[:4]:
        assert narrowest(pour) >= power_track_mm(supply_ma() / 1000), pour.net
    widths = {"": SIGNAL_MM, V5: 0.3, GND: 0.3}
    zones = tuple(Zone(p.net, p.layer, p.areas, toll=0.0 if p.net == GND else 10.0) for p in POURS)
    assert power_track_mm(PI_MA / 1000) <= PI_FEED_MM
    fixed = tuple(Segment(a, b, PI_FEED_MM, layer, V5) for a, b, layer in PI_FEED)
    vias = tuple(Via(at, V5) for at in PI_FEED_VIAS)
    board = Board(WIDTH, HEIGHT, EDGE_MM, tuple(pads), (), widths, zones, fixed, vias)
    silk = silkscreen(pads, place)
    return Layout(footprints, pads, names, route(board), silk)


def _at(x: float, y: float) -> list[str]:
    return [_mm(ORIGIN[0] + x), _mm(ORIGIN[1] + y)]


def board_text(lay: Layout) -> str:
    """The ``.kicad_pcb`` before KiCad fills its pours."""
    ids = {name: i + 1 for i, name in enumerate(lay.nets)}
    items: list[Node] = [
        [
            "gr_rect",
            ["start", *_at(0, 0)],
            ["end", *_at(WIDTH, HEIGHT)],
            ["stroke", ["width", "0.1"], ["type", "default"]],
            ["fill", "no"],
            ["layer", q("Edge.Cuts")],
            ["uuid", q(_uuid("outline"))],
        ],
    ]
    items += lay.footprints
    items += lay.silk
    for n, seg in enumerate(lay.routed.segments):
        items.append(
            [
                "segment",
                ["start", *_at(*seg.start)],
                ["end", *_at(*seg.end)],
                ["width", _mm(seg.width)],
                ["layer", q(seg.layer)],
                ["net", str(ids[seg.net])],
                ["uuid", q(_uuid("segment", n))],
            ]
        )
    for n, via in enumerate(lay.routed.vias):
        items.append(
            [
                "via",
                ["at", *_at(*via.at)],
                ["size", "0.6"],
                ["drill", "0.3"],
                ["layers", q("F.Cu"), q("B.Cu")],
                ["net", str(ids[via.net])],
                ["uuid", q(_uuid("via", n))],
            ]
        )
    for n, pour in enumerate(POURS):
        items.append(
            [
                "zone",
                ["net", str(ids[pour.net])],
                ["net_name", q(pour.net)],
                ["layer", q(LAYERS[pour.layer])],
                ["uuid", q(_uuid("zone", n))],
                ["name", q(f"{pour.net} {LAYERS[pour.layer]}")],
                ["hatch", "edge", "0.5"],
                ["priority", str(pour.priority)],
                ["connect_pads", "yes", ["clearance", "0.15"]],
                ["min_thickness", "0.25"],
                ["filled_areas_thickness", "no"],
                [
                    "fill",
                    "yes",
                    ["thermal_gap", "0.5"],
                    ["thermal_bridge_width", "0.5"],
                    ["island_removal_mode", "0"],
                ],
                ["polygon", ["pts", *[["xy", *_at(x, y)] for x, y in pour.outline]]],
            ]
        )
    pcb: Node = [
        "kicad_pcb",
        ["version", "20241229"],
        ["generator", q("boardctl_tools")],
        ["generator_version", q("9.0")],
        ["general", ["thickness", "1.6"], ["legacy_teardrops", "no"]],
        ["paper", q("A4")],
        [
            "title_block",
            ["title", q("boardctl carrier board")],
            ["comment", "1", q("Generated by tools/hardware/kicad/board.py: edit the script")],
        ],
        [
            "layers",
            *[
                [str(n), q(name), kind, *([q(alias)] if alias else [])]
                for n, name, kind, alias in _LAYER_TABLE
            ],
        ],
        [
            "setup",
            ["pad_to_mask_clearance", "0"],
            ["allow_soldermask_bridges_in_footprints", "no"],
            ["tenting", "front", "back"],
            ["aux_axis_origin", *_at(0, HEIGHT)],
            ["grid_origin", *_at(0, HEIGHT)],
        ],
        ["net", "0", q("")],
        *[["net", str(ids[name]), q(name)] for name in lay.nets],
        *items,
        ["embedded_fonts", "no"],
    ]
    return dump(pcb) + "\n"


_LAYER_TABLE = (
    (0, "F.Cu", "signal", ""),
    (2, "B.Cu", "signal", ""),
    (9, "F.Adhes", "user", "F.Adhesive"),
    (11, "B.Adhes", "user", "B.Adhesive"),
    (13, "F.Paste", "user", ""),
    (15, "B.Paste", "user", ""),
    (5, "F.SilkS", "user", "F.Silkscreen"),
    (7, "B.SilkS", "user", "B.Silkscreen"),
    (1, "F.Mask", "user", ""),
    (3, "B.Mask", "user", ""),
    (17, "Dwgs.User", "user", "User.Drawings"),
    (19, "Cmts.User", "user", "User.Comments"),
    (21, "Eco1.User", "user", "User.Eco1"),
    (23, "Eco2.User", "user", "User.Eco2"),
    (25, "Edge.Cuts", "user", ""),
    (27, "Margin", "user", ""),
    (31, "F.CrtYd", "user", "F.Courtyard"),
    (29, "B.CrtYd", "user", "B.Courtyard"),
    (35, "F.Fab", "user", ""),
    (33, "B.Fab", "user", ""),
)

#: Fills the pours in place: KiCad's own filler, from the ``kicad`` package's Python module.
_FILL = """
import sys, pcbnew
board = pcbnew.LoadBoard(sys.argv[1])
pcbnew.ZONE_FILLER(board).Fill(board.Zones())
pcbnew.SaveBoard(sys.argv[1], board)
"""


def kicad_python() -> str:
    """The Python that has KiCad's ``pcbnew`` module (Debian's: the system's python3)."""
    for candidate in ("/usr/bin/python3", shutil.which("python3") or ""):
        if (
            candidate
            and subprocess.run([candidate, "-c", "import pcbnew"], capture_output=True).returncode
            == 0
        ):
            return candidate
    raise RuntimeError("no Python with KiCad's pcbnew module (Debian package: kicad)")


def build(folder: Path) -> Layout:
    """Write the filled board into ``folder``. KiCad fills it in a scratch copy of the
    project, since saving a board rewrites the project's files too."""
    lay = layout()
    with tempfile.TemporaryDirectory() as scratch:
        _project_files(Path(scratch))
        path = Path(scratch) / PCB
        path.write_text(board_text(lay), encoding="utf-8")
        subprocess.run([kicad_python(), "-c", _FILL, str(path)], check=True, capture_output=True)
        (folder / PCB).write_text(_steady(path.read_text(encoding="utf-8")), encoding="utf-8")
    return lay


_RANDOM_UUID = re.compile(r'"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}"')


def _steady(text: str) -> str:
    """KiCad's saved board with the random identifiers it gives some items on loading (the
    footprints' fields) replaced, in order, by fixed ones, and each footprint's run of user
    texts (which KiCad writes in an order of its own from one run to the next) sorted: the
    same board, the same file."""
    count = iter(range(1_000_000))
    return _RANDOM_UUID.sub(lambda _m: q(_uuid("kicad", next(count))), _sorted_user_texts(text))


def _sorted_user_texts(text: str) -> str:
    """Every run of consecutive ``(fp_text user ...)`` blocks in sorted order."""
    out: list[str] = []
    run: list[list[str]] = []
    block: list[str] | None = None
    for line in text.splitlines(keepends=True):
        if block is not None:
            block.append(line)
            if line == "\t\t)\n":
                run.append(block)
                block = None
        elif line.startswith("\t\t(fp_text user "):
            block = [line]
        else:
            out.extend(line for b in sorted(run, key=_without_uuid) for line in b)
            run = []
            out.append(line)
    out.extend(line for b in sorted(run, key=_without_uuid) for line in b)
    return "".join(out)


def _without_uuid(block: list[str]) -> list[str]:
    return [line for line in block if not line.lstrip().startswith("(uuid ")]


def _project_files(folder: Path) -> None:
    for name in (f"{PROJECT}.kicad_pro", "fp-lib-table", "sym-lib-table"):
        shutil.copy(KICAD_DIR / name, folder / name)


def stale() -> bool:
    """Whether the committed board differs from a fresh build."""
    with tempfile.TemporaryDirectory() as scratch:
        build(Path(scratch))
        fresh = (Path(scratch) / PCB).read_text(encoding="utf-8")
    committed = KICAD_DIR / PCB
    return not committed.is_file() or committed.read_text(encoding="utf-8") != fresh


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the board is stale")
    args = parser.parse_args(argv)
    if args.check:
        if stale():
            print(f"stale: {PCB} (run: python -m tools.hardware.kicad.board)", file=sys.stderr)
            return 1
        return 0
    lay = build(KICAD_DIR)
    for net, ref, pad in lay.routed.failed:
        print(f"unrouted: {net} at {ref} pad {pad}", file=sys.stderr)
    print(KICAD_DIR / PCB)
    return 1 if lay.routed.failed else 0


if __name__ == "__main__":
    sys.exit(main())
