"""Where the strip's pieces, their channels, wire holes and wires lie on the board.

Worked out from the board geometry (:mod:`tools.hardware.geometry`); the woodwork
files (:mod:`tools.hardware.woodwork`), the cut list and the power tables all
measure from here, so the wire a maker cuts is the wire the router's groove holds.

- A **piece** is a straight run of strip along x; it reaches half a pitch past
  its first and last LED (the cut lines).
- Its **channel** in the base board is :data:`CHANNEL_WIDTH_MM` wide (clearance
  for a 12 mm strip) and reaches :data:`CHANNEL_END_MM` past each cut end.
- A **wire hole** goes through the base board in the channel just past each cut
  end: the jumpers and the feeds drop through it.
- Every wire runs on the **underside** of the base board in a groove: from the
  wire hole it goes along y, then along x, to the next hole (an L, the
  documented route of wiring.md). The feeds run from the electronics bay the same way.
- The **electronics bay** is a box screwed under the base board near the strip's
  first LED; the carrier board (the size of a Raspberry Pi HAT) stacks on the
  Pi Zero 2 W in it.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from tools.hardware.geometry import (
    MARGIN_MM,
    PITCH_MM,
    STRIP_WIDTH_MM,
    BoardGeometry,
    injection_leds,
    strip_pieces,
)

#: The routed channel: 12.5-13 mm for a 12 mm strip (a strip's width varies by
#: 0.2-0.3 mm between makers, and the glue needs room).
CHANNEL_WIDTH_MM = 12.75
CHANNEL_DEPTH_MM = 4.0
#: How far a channel reaches past a piece's cut end: room for the wire hole.
CHANNEL_END_MM = 5.0
WIRE_HOLE_DIAMETER_MM = 4.0
#: Wire hole centre past the cut end: inside the channel's end, clear of the pads.
WIRE_HOLE_OFFSET_MM = 2.5
GROOVE_WIDTH_MM = 5.0
GROOVE_DEPTH_MM = 3.0
BASE_THICKNESS_MM = 18.0
TOP_THICKNESS_MM = 4.0
HOLE_DIAMETER_MM = 3.0

#: The carrier board (hardware/kicad/carrier.kicad_pcb): a Raspberry Pi HAT's mounting
#: holes and header (the HAT mechanical specification: four 2.75 mm holes 3.5 mm in,
#: 58 x 49 mm apart), its outline drawn out to 90 x 60 mm for the input, its protection
#: and the strip's screw terminals; stacked on the Pi Zero 2 W, whose own holes are the
#: first two rows of it.
CARRIER_SIZE_MM = (90.0, 60.0)
CARRIER_HOLES_MM = ((3.5, 3.5), (61.5, 3.5), (3.5, 52.5), (61.5, 52.5))
MOUNTING_HOLE_DIAMETER_MM = 2.75
#: Clearance around the carrier inside the bay (cables, fingers, the SD card).
BAY_CLEARANCE_MM = 10.0
BAY_DEPTH_MM = 30.0


@dataclass(frozen=True, slots=True)
class Piece:
    """One straight piece of strip as it lies on the board."""

    first_led: int
    last_led: int
    y: float
    din_x: float  # the cut end at its first LED (data in)
    dout_x: float  # the cut end at its last LED (data out)

    @property
    def direction(self) -> int:
        """+1: data runs towards +x; -1: towards -x."""
        return 1 if self.dout_x > self.din_x else -1

    @property
    def din_hole(self) -> tuple[float, float]:
        return (self.din_x - self.direction * WIRE_HOLE_OFFSET_MM, self.y)

    @property
    def dout_hole(self) -> tuple[float, float]:
        return (self.dout_x + self.direction * WIRE_HOLE_OFFSET_MM, self.y)

    @property
    def strip(self) -> tuple[float, float, float, float]:
        """The strip's rectangle ``(x0, y0, x1, y1)``."""
        x0, x1 = sorted((self.din_x, self.dout_x))
        half = STRIP_WIDTH_MM / 2
        return (x0, self.y - half, x1, self.y + half)

    @property
    def channel(self) -> tuple[float, float, float, float]:
        """The routed channel's rectangle ``(x0, y0, x1, y1)``."""
        x0, x1 = sorted((self.din_x, self.dout_x))
        half = CHANNEL_WIDTH_MM / 2
        return (x0 - CHANNEL_END_MM, self.y - half, x1 + CHANNEL_END_MM, self.y + half)


@dataclass(frozen=True, slots=True)
class Route:
    """Three wires in an underside groove: a jumper between two pieces, or a feed."""

    kind: str  # "jumper" or "feed"
    from_led: int | None  # None: from the electronics bay
    to_led: int
    points: tuple[tuple[float, float], ...]  # wire hole, corner, wire hole

    @property
    def length_mm(self) -> float:
        """Along the groove, hole to hole."""
        return sum(math.dist(a, b) for a, b in itertools.pairwise(self.points))


def pieces(geo: BoardGeometry) -> list[Piece]:
    """Every piece of strip, in strip order."""
    out = []
    for first, last in strip_pieces(geo):
        a, b = geo.spots[first], geo.spots[last]
        direction = 1 if b.x >= a.x else -1
        half = direction * PITCH_MM / 2
        out.append(Piece(first, last, a.y, a.x - half, b.x + half))
    return out


def _l_route(a: tuple[float, float], b: tuple[float, float]) -> tuple[tuple[float, float], ...]:
    """Along y from ``a``, then along x to ``b``."""
    corner = (a[0], b[1])
    return (a, corner, b) if corner not in (a, b) else (a, b)


def bay(geo: BoardGeometry) -> tuple[float, float, float, float]:
    """The electronics bay's rectangle on the board (seen from the top), by the strip's start."""
    width, height = (side + 2 * BAY_CLEARANCE_MM for side in CARRIER_SIZE_MM)
    x0 = MARGIN_MM
    y0 = geo.street_top[0]
    return (x0, y0, x0 + width, y0 + height)


def carrier_holes(geo: BoardGeometry) -> list[tuple[float, float]]:
    """The carrier's (and the Pi's) mounting holes in the bay, board coordinates."""
    x0, y0, _x1, _y1 = bay(geo)
    inset = BAY_CLEARANCE_MM
    return [(x0 + inset + x, y0 + inset + y) for x, y in CARRIER_HOLES_MM]


def bay_exit(geo: BoardGeometry) -> tuple[float, float]:
    """Where the wires leave the bay: the middle of its right-hand side."""
    _x0, y0, x1, y1 = bay(geo)
    return (x1, (y0 + y1) / 2)


def routes(geo: BoardGeometry) -> list[Route]:
    """The jumpers in strip order, then a feed (5 V + GND) to every injection point."""
    laid = pieces(geo)
    out = [
        Route("jumper", a.last_led, b.first_led, _l_route(a.dout_hole, b.din_hole))
        for a, b in itertools.pairwise(laid)
    ]
    for led in injection_leds(geo):
        piece = next(p for p in laid if p.first_led <= led <= p.last_led)
        hole = piece.din_hole if led - piece.first_led <= piece.last_led - led else piece.dout_hole
        out.append(Route("feed", None, led, _l_route(bay_exit(geo), hole)))
    return out
