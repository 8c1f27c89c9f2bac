"""The perfboard layout: where each part of the circuit sits, and the wire links.

Holes are on a 0.1" (2.54 mm) grid, numbered from the top-left corner
(column, row), seen from the component side. Each part of the netlist
(:mod:`tools.hardware.circuit`) marked ``perfboard`` has a place here; its
pins' nets come from the netlist, so the links (one chain per net, drawn as
wires on the underside) always join what the schematic joins. Pads are the
points where off-board wires are soldered.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

from tools.hardware.circuit import (
    DATA_3V3,
    DIN,
    GND,
    V5,
    VSYS,
    Component,
    build_circuit,
)

PITCH = 2.54
#: A 9 x 7 cm board, 30 x 24 holes (a size sold everywhere; the layout needs 28 x 20).
COLUMNS, ROWS = 30, 24
BOARD_SIZE = "9 x 7 cm"
MARGIN = 6.0
LEFT = 44.0  # room for the labels of the left pads
NET_COLOURS = {V5: "#c00000", GND: "#202020", DATA_3V3: "#0072b2", DIN: "#009e73"}


@dataclass(frozen=True, slots=True)
class Place:
    """Where a part sits: the hole of each of its pins, in the order of the footprint."""

    ref: str
    holes: tuple[tuple[int, int], ...]
    pins: tuple[str, ...]  # pin numbers of the part, matching ``holes``
    outline: str  # "axial", "radial", "to220", "to92", "dip", "electrolytic"

    @property
    def polarity(self) -> str:
        """The polarity mark drawn on the part: "band" (a diode's cathode), "minus"
        (an electrolytic's - stripe), or "" (either way round)."""
        if self.ref.startswith("D"):
            return "band"
        return "minus" if self.outline == "electrolytic" else ""


def _row(ref: str, col: int, row: int, span: int, outline: str, pins: Sequence[str]) -> Place:
    step = span // (len(pins) - 1)
    holes = tuple((col + i * step, row) for i in range(len(pins)))
    return Place(ref, holes, tuple(pins), outline)


def _dip14(ref: str, col: int, top: int) -> Place:
    bottom = [(col + k - 1, top + 3) for k in range(1, 8)]
    holes = bottom + [(col + 14 - k, top) for k in range(8, 15)]
    return Place(ref, tuple(holes), tuple(str(k) for k in range(1, 15)), "dip")


#: The placement. Diodes: pin 1 anode, pin 2 cathode (the band). TO-220 BT151:
#: K, A, G from the left, tab = anode. TO-92, flat side facing you: TL431ACLP
#: REF, A, K; BC557B C, B, E.
PLACES: tuple[Place, ...] = (
    _row("D1", 2, 2, 5, "axial", ("1", "2")),
    _row("D2", 2, 5, 5, "axial", ("1", "2")),  # 7.62 mm from D1: DO-201 bodies are 5.3 mm
    _row("SCR1", 9, 2, 2, "to220", ("K", "A", "G")),
    _row("R6", 9, 4, 4, "axial", ("1", "2")),
    _row("R5", 9, 6, 4, "axial", ("1", "2")),
    _row("Q1", 2, 8, 2, "to92", ("C", "B", "E")),
    _row("R3", 7, 8, 4, "axial", ("1", "2")),
    _row("R4", 2, 10, 4, "axial", ("1", "2")),
    _row("U1", 2, 13, 2, "to92", ("REF", "A", "K")),
    _row("R2", 7, 13, 4, "axial", ("1", "2")),
    _row("R1", 2, 15, 4, "axial", ("1", "2")),
    _row("C1", 7, 15, 2, "radial", ("1", "2")),
    _dip14("U2", 16, 6),
    _row("C3", 16, 4, 2, "radial", ("1", "2")),
    _row("C2", 22, 2, 2, "electrolytic", ("1", "2")),
    _row("R8", 16, 12, 4, "axial", ("1", "2")),
    _row("R7", 22, 12, 4, "axial", ("1", "2")),
    _row("D3", 16, 16, 4, "axial", ("1", "2")),
)

#: Pads for the off-board wires: (label, net, hole).
PADS: tuple[tuple[str, str, tuple[int, int]], ...] = (
    ("+5V from the bus (after F1)", V5, (0, 2)),
    ("GND from the bus", GND, (0, 4)),
    ("Pico data (LED_PIN)", DATA_3V3, (COLUMNS - 1, 8)),
    ("Pico GND", GND, (COLUMNS - 1, 9)),
    ("strip DIN", DIN, (COLUMNS - 1, 12)),
    ("strip 5V", V5, (COLUMNS - 1, 14)),
    ("strip GND", GND, (COLUMNS - 1, 15)),
    ("Pico VSYS (UART link only)", VSYS, (COLUMNS - 1, 17)),
)


def hole_nets(components: Sequence[Component]) -> dict[tuple[int, int], tuple[str, str, str]]:
    """Every used hole: ``(ref, pin, net)``; pads have ref ``PAD``."""
    by_ref = {c.ref: c for c in components}
    used: dict[tuple[int, int], tuple[str, str, str]] = {}
    for place in PLACES:
        comp = by_ref[place.ref]
        for hole, pin in zip(place.holes, place.pins, strict=True):
            net = comp.net_of(pin)
            used[hole] = (place.ref, pin, net or "")
    for label, net, hole in PADS:
        used[hole] = ("PAD", label, net)
    return used


#: Parts and pads that carry the strip's current or the crowbar's fault current:
#: their +5 V and GND holes are joined by heavy wire of their own, never through
#: the small parts' pins (U2's socket, C3, the crowbar's resistors).
HEAVY_REFS = frozenset({"D1", "D2", "SCR1", "C2"})
HEAVY_PADS = frozenset({"+5V from the bus (after F1)", "GND from the bus", "strip 5V", "strip GND"})
HEAVY_WIRE = "18 AWG"


def _is_heavy(ref: str, pin: str, net: str) -> bool:
    if net not in (V5, GND):
        return False
    return ref in HEAVY_REFS or (ref == "PAD" and pin in HEAVY_PADS)


Link = tuple[str, tuple[int, int], tuple[int, int], bool]


def _distance(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, tuple[int, int]]:
    return abs(a[0] - b[0]) + abs(a[1] - b[1]), b


def links(components: Sequence[Component]) -> list[Link]:
    """The wire links: ``(net, from hole, to hole, heavy)``. Per net, the heavy holes
    (:data:`HEAVY_REFS`, :data:`HEAVY_PADS`) are chained nearest-neighbour in heavy
    wire first; every other hole then joins the nearest hole already joined."""
    by_net: dict[str, list[tuple[tuple[int, int], bool]]] = {}
    for hole, (ref, pin, net) in sorted(hole_nets(components).items()):
        if net:
            by_net.setdefault(net, []).append((hole, _is_heavy(ref, pin, net)))
    out: list[Link] = []
    for net, holes in sorted(by_net.items()):
        heavy = [h for h, is_heavy in holes if is_heavy]
        light = [h for h, is_heavy in holes if not is_heavy]
        joined: list[tuple[int, int]] = []
        if heavy:
            current = heavy.pop(0)
            joined.append(current)
            while heavy:
                nxt = min(heavy, key=lambda h: _distance(current, h))
                heavy.remove(nxt)
                out.append((net, current, nxt, True))
                joined.append(nxt)
                current = nxt
        else:
            joined.append(light.pop(0))
        while light:
            hole, near = min(
                ((h, min(joined, key=lambda j: _distance(h, j))) for h in light),
                key=lambda pair: (_distance(pair[0], pair[1])[0], pair[0]),
            )
            light.remove(hole)
            out.append((net, near, hole, False))
            joined.append(hole)
    return out


def _xy(hole: tuple[int, int]) -> tuple[float, float]:
    return LEFT + hole[0] * PITCH, MARGIN + 10.0 + hole[1] * PITCH


def _f(value: float) -> str:
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _outline(place: Place) -> str:
    (x0, y0), (x1, _y1) = _xy(place.holes[0]), _xy(place.holes[-1])
    style = 'fill="none" stroke="#555555" stroke-width="0.3"'
    if place.outline == "dip":
        xa, ya = _xy(place.holes[0])
        xb, yb = _xy(place.holes[7])
        return (
            f'<rect x="{_f(xa - 1.5)}" y="{_f(yb + 1.2)}" width="{_f(xb - xa + 3)}" '
            f'height="{_f(ya - yb - 2.4)}" {style}/>'
            f'<circle cx="{_f(xa - 0.2)}" cy="{_f((ya + yb) / 2)}" r="0.8" {style}/>'
        )
    if place.outline == "electrolytic":  # pin 1 +, pin 2 - (the stripe, on the right)
        mid = (x0 + x1) / 2
        return (
            f'<circle cx="{_f(mid)}" cy="{_f(y0)}" r="5" {style}/>'
            f'<path d="M{_f(mid + 3)},{_f(y0 - 4)} A5,5 0 0 1 {_f(mid + 3)},{_f(y0 + 4)} Z" '
            f'fill="#555555" class="polarity" data-mark="minus" data-pin="2"/>'
            f'<text x="{_f(x0 - 1.2)}" y="{_f(y0 - 1.2)}" font-size="2.2" text-anchor="end" '
            f'class="polarity" data-mark="plus" data-pin="1">+</text>'
        )
    if place.outline == "to220":
        return f'<rect x="{_f(x0 - 2.5)}" y="{_f(y0 - 4.5)}" width="10" height="3.5" {style}/>'
    if place.outline == "to92":
        return f'<path d="M{_f(x0 - 1)},{_f(y0 + 1.3)} h{_f(x1 - x0 + 2)}" {style}/>'
    body = f'<rect x="{_f(x0 + 1)}" y="{_f(y0 - 1)}" width="{_f(x1 - x0 - 2)}" height="2" {style}/>'
    if place.polarity == "band":  # the cathode, pin 2, at the right-hand end
        body += (
            f'<rect x="{_f(x1 - 2.2)}" y="{_f(y0 - 1)}" width="1" height="2" fill="#555555" '
            f'class="polarity" data-mark="band" data-pin="2"/>'
        )
    return body


def _link(net: str, a: tuple[int, int], b: tuple[int, int], heavy: bool) -> str:
    """One wire link: straight between neighbouring holes, else bowed, so that it
    never seems to touch the holes it passes over."""
    (xa, ya), (xb, yb) = _xy(a), _xy(b)
    colour = NET_COLOURS.get(net, "#7f7f7f")
    length = ((xb - xa) ** 2 + (yb - ya) ** 2) ** 0.5
    if length <= PITCH * 1.5:
        shape = f"M{_f(xa)},{_f(ya)} L{_f(xb)},{_f(yb)}"
    else:
        bow = min(0.25 * length, 6.0) / length
        cx, cy = (xa + xb) / 2 - (yb - ya) * bow, (ya + yb) / 2 + (xb - xa) * bow
        shape = f"M{_f(xa)},{_f(ya)} Q{_f(cx)},{_f(cy)} {_f(xb)},{_f(yb)}"
    return (
        f'<path d="{shape}" fill="none" stroke="{colour}" '
        f'stroke-width="{"1.1" if heavy else "0.5"}" stroke-opacity="0.85" '
        f'class="{"link heavy" if heavy else "link"}" data-net={quoteattr(net)} '
        f'data-from="{a[0]},{a[1]}" data-to="{b[0]},{b[1]}"/>'
    )


def _underside(components: Sequence[Component], dy: float) -> str:
    """The board turned over (mirrored left to right), ``dy`` below the component side:
    the solder side's pads and the links, as the maker sees them while wiring."""
    bx0, by0 = _xy((0, 0))
    bx1, by1 = _xy((COLUMNS - 1, ROWS - 1))
    axis = bx0 + bx1  # a hole at x shows at axis - x
    out = [
        f'<text x="{_f(MARGIN)}" y="{_f(dy + by0 - 6)}" font-size="3.2">Underside (solder side), '
        "the board turned over left to right: wire the links here</text>",
        f'<g class="underside" transform="translate({_f(axis)} {_f(dy)}) scale(-1 1)">',
        f'<rect x="{_f(bx0 - 2)}" y="{_f(by0 - 2)}" width="{_f(bx1 - bx0 + 4)}" '
        f'height="{_f(by1 - by0 + 4)}" fill="#f2e6c9" stroke="#8b6b3d" stroke-width="0.4"/>',
    ]
    for net, a, b, heavy in links(components):
        out.append(_link(net, a, b, heavy).replace('class="link', 'class="underside-link'))
    used = hole_nets(components)
    for hole, (ref, _pin, net) in sorted(used.items()):
        x, y = _xy(hole)
        out.append(
            f'<circle cx="{_f(x)}" cy="{_f(y)}" r="0.8" fill="#b87333" class="underside-hole" '
            f'data-ref={quoteattr(ref)} data-net={quoteattr(net)} data-hole="{hole[0]},{hole[1]}"/>'
        )
    out.append("</g>")
    for hole, (ref, pin, _net) in sorted(used.items()):
        x, y = _xy(hole)
        mx = axis - x
        if ref == "PAD":
            anchor, dx = ("start", 1.5) if hole[0] == 0 else ("end", -1.5)
            out.append(
                f'<text x="{_f(mx + dx)}" y="{_f(y + dy + 0.7)}" font-size="1.8" '
                f'text-anchor="{anchor}">{escape(pin)}</text>'
            )
    for place in PLACES:
        x0, y0 = _xy(place.holes[0])
        out.append(
            f'<text x="{_f(axis - x0)}" y="{_f(y0 + dy - 1.5)}" font-size="1.6" '
            f'fill="#555555">{escape(place.ref)} pin {escape(place.pins[0])}</text>'
        )
    return "\n".join(out)


def render_perfboard(components: Sequence[Component]) -> str:
    """The perfboard layout as SVG text (millimetre units): the component side, then the
    underside."""
    width = LEFT + (COLUMNS - 1) * PITCH + 50
    side = 2 * MARGIN + 8.0 + (ROWS - 1) * PITCH + 18
    height = 2 * side
    used = hole_nets(components)
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_f(width)}mm" height="{_f(height)}mm" '
        f'viewBox="0 0 {_f(width)} {_f(height)}" font-family="sans-serif">',
        "<title>boardctl perfboard layout</title>",
        f'<rect x="0" y="0" width="{_f(width)}" height="{_f(height)}" fill="#ffffff"/>',
        f'<text x="{_f(MARGIN)}" y="5" font-size="3.2">boardctl: perfboard layout, component '
        f"side, {COLUMNS} x {ROWS} holes at 0.1 in ({BOARD_SIZE})</text>",
        f'<text x="{_f(MARGIN)}" y="10" font-size="2.2">Mind the marks: the diodes\' band '
        "(cathode) and C2's - stripe. D1 or D2 reversed shorts the supply; C2 reversed "
        "vents.</text>",
    ]
    bx0, by0 = _xy((0, 0))
    bx1, by1 = _xy((COLUMNS - 1, ROWS - 1))
    out.append(
        f'<rect x="{_f(bx0 - 2)}" y="{_f(by0 - 2)}" width="{_f(bx1 - bx0 + 4)}" '
        f'height="{_f(by1 - by0 + 4)}" fill="#f2e6c9" stroke="#8b6b3d" stroke-width="0.4"/>'
    )
    for c in range(COLUMNS):
        for r in range(ROWS):
            x, y = _xy((c, r))
            out.append(f'<circle cx="{_f(x)}" cy="{_f(y)}" r="0.45" fill="#c8b68a"/>')
    for net, a, b, heavy in links(components):
        out.append(_link(net, a, b, heavy))
    for place in PLACES:
        out.append(f'<g class="part" data-ref={quoteattr(place.ref)}>{_outline(place)}')
        x0, y0 = _xy(place.holes[0])
        out.append(
            f'<text x="{_f(x0)}" y="{_f(y0 - 1.5)}" font-size="1.8">{escape(place.ref)}</text>'
        )
        out.append("</g>")
    for hole, (ref, pin, net) in sorted(used.items()):
        x, y = _xy(hole)
        out.append(
            f'<circle cx="{_f(x)}" cy="{_f(y)}" r="0.8" fill="#b87333" class="hole" '
            f"data-ref={quoteattr(ref)} data-pin={quoteattr(pin)} data-net={quoteattr(net)} "
            f'data-hole="{hole[0]},{hole[1]}"/>'
        )
        if ref == "PAD":
            anchor, dx = ("end", -1.5) if hole[0] == 0 else ("start", 1.5)
            out.append(
                f'<text x="{_f(x + dx)}" y="{_f(y + 0.7)}" font-size="1.8" '
                f'text-anchor="{anchor}">{escape(pin)}</text>'
            )
    out.append(_underside(components, side))
    out.append(
        f'<text x="{_f(MARGIN)}" y="{_f(height - 7)}" font-size="1.7">Lines: wire links on the '
        "underside (red +5 V, black GND, blue Pico data, green DIN, grey the others); thick "
        f"lines are {HEAVY_WIRE} wire for the strip's and the crowbar's current; a link joins "
        "only the two holes at its ends.</text>"
    )
    out.append(
        f'<text x="{_f(MARGIN)}" y="{_f(side - 8)}" font-size="1.7">D1, D2 (DO-201, '
        "1.0-1.3 mm leads): drill their four holes to 1.6 mm; run +5 V and GND to C2, D1, D2 "
        "and SCR1 in 18 AWG wire, not through U2's pins.</text>"
    )
    out.append(
        f'<text x="{_f(MARGIN)}" y="{_f(height - 3.5)}" font-size="1.7">Use insulated wire '
        "wherever a link passes over another hole. Generated from tools/hardware/circuit.py "
        "(python -m tools.hardware.schematic hardware/drawings).</text>"
    )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def perfboard_svg() -> str:
    """The perfboard layout of the default circuit."""
    return render_perfboard(build_circuit())
