"""Where each LED of a layout sits on the board, worked out from the layout itself.

A layout file says which LED shows which hole, not where the hole is. The
physical arrangement follows from how the strip is laid:

- a **row** is a maximal run of holes of one track that lie on consecutive
  LEDs of the strip (step +1 or -1, or 2 with a dark LED between two groups
  of holes): one straight piece of strip. A new row starts wherever the strip
  is cut and continues elsewhere;
- holes read **left to right** in every row; a row whose LEDs count down
  (step -1) is a piece of strip running right to left (the serpentine);
- **streets**: row *k* of every track lies in street *k*, the tracks' rows
  side by side, so that equal scores line up across tracks, as on a wooden
  board. Columns in a street are aligned by hole number;
- the game hole, when it is alone on a piece of strip, sits after the
  track's last row, as on a wooden board, with room for the cut ends' solder
  joints between the two pieces (:data:`PIECE_GAP_MM`);
- the start hole is the LED next to hole 1 on the same uncut piece, one
  pitch (6.94 mm) left of it (two with a dark LED between); skunk-line marker LEDs sit on
  their line above its street, half-way to the street before (a channel of
  their own, :data:`MARKER_OFFSET_MM` from either street's row); dealer,
  game-point and status LEDs sit in a panel below the streets.

Distances are millimetres. The hole pitch is the LED pitch of the strip
(1000/144 = 6.94 mm for a 144 LEDs/m strip): one LED under each hole.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Protocol

from boardctl.board.geometry import board_lines
from boardctl.board.layout import LINE_KEYS

LEDS_PER_METRE = 144
PITCH_MM = 1000 / LEDS_PER_METRE
STRIP_WIDTH_MM = 12.0  # a 144 LEDs/m WS2812B strip
TRACK_SPACING_MM = 14.0  # centre to centre of two tracks' rows (12 mm strip + wood)
STREET_GAP_MM = 16.0  # extra space between streets: room for a marker's channel
#: A skunk-line marker's distance above its street's first row, as far from the
#: last row of the street before (half of the 30 mm between the two rows).
MARKER_OFFSET_MM = (TRACK_SPACING_MM + STREET_GAP_MM) / 2
#: Bare strip left between the cut ends of two pieces in one line: one pitch
#: (room for both pieces' pads and solder joints) plus 5 mm (their wire holes).
PIECE_GAP_MM = PITCH_MM + 5.0
MARGIN_MM = 14.0


class TrackLike(Protocol):
    """What the geometry needs of one track of a layout."""

    @property
    def holes(self) -> tuple[int, ...]: ...
    @property
    def dealer(self) -> int | None: ...
    @property
    def game_points(self) -> tuple[int, ...]: ...


class LayoutLike(Protocol):
    """What the geometry needs of a layout (:class:`boardctl.board.layout.Layout`)."""

    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def led_count(self) -> int: ...
    @property
    def hole_count(self) -> int: ...
    @property
    def tracks(self) -> Sequence[TrackLike]: ...
    @property
    def markers(self) -> Mapping[str, tuple[int, ...]]: ...
    @property
    def status(self) -> int | None: ...


@dataclass(frozen=True, slots=True)
class Row:
    """One straight piece of strip under consecutive holes of one track."""

    track: int  # 0-based
    street: int  # 0-based
    first_hole: int
    last_hole: int
    step: int  # +1: the strip runs left to right; -1: right to left


@dataclass(frozen=True, slots=True)
class Spot:
    """One LED on the board: where it is and what it shows."""

    led: int
    x: float
    y: float
    kind: str  # "hole", "start", "marker", "dealer", "game_point", "status"
    track: int | None = None  # 0-based
    hole: int | None = None  # for "hole" and "start" (0)
    label: str = ""


@dataclass(frozen=True, slots=True)
class Line:
    """A skunk line: drawn just before ``hole`` across its street."""

    key: str  # skunk, double, triple
    hole: int
    x: float
    y_top: float
    y_bottom: float


@dataclass(slots=True)
class BoardGeometry:
    """Every LED of a layout placed on the board, and the lines."""

    name: str
    description: str
    led_count: int
    hole_count: int
    width: float
    height: float
    rows: list[Row] = field(default_factory=list)
    spots: dict[int, Spot] = field(default_factory=dict)  # by LED
    lines: list[Line] = field(default_factory=list)
    street_top: list[float] = field(default_factory=list)

    def holes(self) -> Iterator[Spot]:
        """Every hole spot (start holes included), by track then hole."""
        found = [s for s in self.spots.values() if s.kind in ("hole", "start")]
        return iter(sorted(found, key=lambda s: (s.track or 0, s.hole or 0)))

    def strip_path(self) -> list[tuple[Spot, Spot]]:
        """Consecutive used LEDs along the strip, as pairs (the strip's route)."""
        ordered = [self.spots[led] for led in sorted(self.spots)]
        return list(pairwise(ordered))


def track_rows(holes: Sequence[int], track: int) -> list[Row]:
    """Split a track's holes 1..N into rows: runs on one straight piece of strip.

    Holes on consecutive LEDs are one row; so are holes with one dark LED
    between them (a wider gap between groups of five).
    """
    rows: list[Row] = []
    first = 1
    step = 0
    for hole in range(2, len(holes) + 1):
        diff = holes[hole] - holes[hole - 1] if hole < len(holes) else 0
        if step == 0 and diff in (1, -1, 2, -2):
            step = 1 if diff > 0 else -1
            continue
        if step != 0 and diff in (step, 2 * step):
            continue
        rows.append(Row(track, len(rows), first, hole - 1, step or 1))
        first, step = hole, 0
    if len(rows) >= 2 and rows[-1].first_hole == rows[-1].last_hole:
        # The game hole on a piece of its own sits right after the last row.
        last = rows.pop()
        rows.append(Row(track, rows[-1].street, last.first_hole, last.last_hole, last.step))
    return rows


def start_gap(holes: Sequence[int], step: int) -> int:
    """How many pitches the start hole sits left of hole 1.

    The start hole is normally the LED just before hole 1 on the same uncut
    piece (one pitch to its left), or two before it with a dark LED between;
    on a piece of its own it is still drawn one pitch to the left.
    """
    for gap in (1, 2):
        if holes[0] == holes[1] - gap * step:
            return gap
    return 1


def skunk_lines(target: int) -> dict[str, int]:
    """Line holes for a game to ``target`` by marker key (skunk, double, triple).

    The renderer's rule (:func:`boardctl.board.geometry.board_lines`): target
    -30, -60, -90, each only if it lies after hole 1.
    """
    return {LINE_KEYS[line.index]: line.hole for line in board_lines(target)}


def board_geometry(layout: LayoutLike) -> BoardGeometry:
    """Place every LED of ``layout`` on the board (see the module docstring)."""
    rows = [row for t, track in enumerate(layout.tracks) for row in track_rows(track.holes, t)]
    track_count = len(layout.tracks)
    street_count = max(row.street for row in rows) + 1
    street_first = [min(r.first_hole for r in rows if r.street == s) for s in range(street_count)]
    left = MARGIN_MM + 2 * PITCH_MM  # room for the start holes and line markers
    street_height = track_count * TRACK_SPACING_MM + STREET_GAP_MM
    top = MARGIN_MM + 14.0  # room for the title
    street_top = [top + s * street_height for s in range(street_count)]

    # Column of each hole in its street, counted in LED pitches: holes of equal
    # number line up across tracks, and a dark LED between holes leaves a gap.
    # A piece after another in the same street (the game hole on its own) leaves
    # PIECE_GAP_MM of bare strip after the other's end.
    column: dict[tuple[int, int], float] = {}
    for t, track in enumerate(layout.tracks):
        previous: Row | None = None
        for row in (r for r in rows if r.track == t):
            base = track.holes[row.first_hole]
            if previous is not None and previous.street == row.street:
                start = column[(t, previous.last_hole)] + 1 + PIECE_GAP_MM / PITCH_MM
            else:
                start = row.first_hole - street_first[row.street]
            for hole in range(row.first_hole, row.last_hole + 1):
                column[(t, hole)] = start + abs(track.holes[hole] - base)
            previous = row

    def hole_xy(track: int, street: int, hole: int) -> tuple[float, float]:
        x = left + column[(track, hole)] * PITCH_MM
        y = street_top[street] + (track + 0.5) * TRACK_SPACING_MM
        return x, y

    geo = BoardGeometry(
        name=layout.name,
        description=layout.description,
        led_count=layout.led_count,
        hole_count=layout.hole_count,
        width=0.0,
        height=0.0,
        rows=rows,
        street_top=street_top,
    )
    for row in rows:
        for hole in range(row.first_hole, row.last_hole + 1):
            led = layout.tracks[row.track].holes[hole]
            x, y = hole_xy(row.track, row.street, hole)
            label = f"track {row.track + 1} hole {hole}"
            geo.spots[led] = Spot(led, x, y, "hole", row.track, hole, label)
    for t, track in enumerate(layout.tracks):
        first_row = next(r for r in rows if r.track == t)
        x1, y = hole_xy(t, first_row.street, first_row.first_hole)
        gap = start_gap(track.holes, first_row.step)
        label = f"track {t + 1} start hole"
        geo.spots[track.holes[0]] = Spot(
            track.holes[0], x1 - gap * PITCH_MM, y, "start", t, 0, label
        )

    for key, hole in skunk_lines(layout.hole_count).items():
        row = next(r for r in rows if r.track == 0 and r.first_hole <= hole <= r.last_hole)
        x = hole_xy(0, row.street, hole)[0] - PITCH_MM / 2
        y_top = street_top[row.street]
        line = Line(key, hole, x, y_top, y_top + track_count * TRACK_SPACING_MM)
        geo.lines.append(line)
        y_marker = y_top + TRACK_SPACING_MM / 2 - MARKER_OFFSET_MM
        for j, led in enumerate(layout.markers.get(key, ())):
            label = f"{key} line marker"
            geo.spots[led] = Spot(led, x + j * PITCH_MM, y_marker, "marker", None, None, label)

    panel_top = street_top[-1] + street_height
    for t, track in enumerate(layout.tracks):
        y = panel_top + (t + 0.5) * TRACK_SPACING_MM
        if track.dealer is not None:
            geo.spots[track.dealer] = Spot(
                track.dealer, left, y, "dealer", t, None, f"track {t + 1} dealer LED"
            )
        for i, led in enumerate(track.game_points):
            x = left + (3 + i) * PITCH_MM
            label = f"track {t + 1} game point {i + 1}"
            geo.spots[led] = Spot(led, x, y, "game_point", t, None, label)
    panel_bottom = panel_top + track_count * TRACK_SPACING_MM
    if layout.status is not None:
        x = left + (3 + 1.5 * 6) * PITCH_MM
        geo.spots[layout.status] = Spot(
            layout.status, x, panel_top + TRACK_SPACING_MM / 2, "status", None, None, "status LED"
        )
    geo.width = max(s.x for s in geo.spots.values()) + PITCH_MM + MARGIN_MM
    geo.height = panel_bottom + MARGIN_MM
    return geo


def strip_pieces(geo: BoardGeometry) -> list[tuple[int, int]]:
    """The strip cut into pieces: ``(first_led, last_led)`` of each run of
    consecutive LEDs that lie next to each other on the board. Between two
    pieces the strip is cut and joined by three wires (5 V, data, GND).
    """
    pieces: list[tuple[int, int]] = []
    path = geo.strip_path()
    if not path:
        return [(led, led) for led in geo.spots]
    start = path[0][0].led
    for a, b in path:
        if not adjacent(a, b):
            pieces.append((start, a.led))
            start = b.led
    pieces.append((start, path[-1][1].led))
    return pieces


#: How far (mm) two LEDs' places may differ from a whole number of pitches and
#: still be one uncut piece: rounding only, since the geometry is exact.
PLACE_EPSILON_MM = 0.01


def adjacent(a: Spot, b: Spot) -> bool:
    """Whether two used LEDs lie on one uncut piece of strip (dark LEDs between allowed).

    On an uncut piece the LEDs are exactly one pitch apart, so two LEDs ``span``
    indices apart are ``span`` pitches apart, no more, no less. Anything else
    is a cut joined by a wire jumper.
    """
    span = abs(b.led - a.led)
    return abs(math.dist((a.x, a.y), (b.x, b.y)) - span * PITCH_MM) <= PLACE_EPSILON_MM


def injection_leds(geo: BoardGeometry, *, max_span: int = LEDS_PER_METRE) -> list[int]:
    """Where to feed 5 V and GND into the strip.

    At the first LED, at the far end of the last long piece (the short
    pieces after it, dealer and marker LEDs, draw little and are fed through
    their jumper wires), and in between at piece joints (where wires are
    soldered anyway) so that no feed serves more than about ``max_span`` LEDs
    of strip (one metre of 144/m strip).
    """
    pieces = strip_pieces(geo)
    long_pieces = [p for p in pieces if p[1] - p[0] + 1 >= 10] or pieces
    first, last = pieces[0][0], long_pieces[-1][1]
    sections = max(1, -(-(last - first) // max_span))
    joints = [start for start, _end in long_pieces[1:] if start < last]
    points = [first]
    for i in range(1, sections):
        target = first + i * (last - first) / sections
        if joints:
            points.append(min(joints, key=lambda led: (abs(led - target), led)))
    points.append(last)
    return sorted(set(points))
