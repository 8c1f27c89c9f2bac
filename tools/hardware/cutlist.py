"""The cut list of a layout: which pieces to cut from the strip, and the jumpers between them.

Worked out from the board geometry (:mod:`tools.hardware.geometry`): a
piece is a run of LEDs on one uncut length of strip; between two pieces three
wires (5 V, data, GND) join the DOUT end of one to the DIN end of the next.
The strip is sold in 1 m lengths of 144 LEDs; pieces are cut from them in
strip order, so every piece keeps its direction arrows.

The "real gaps" variant of a layout leaves one LED dark between groups of
five holes (geometry.md); :func:`real_gaps` builds it from the layout, so its
strip length and cut list come from the same code.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tools.hardware.geometry import (
    LEDS_PER_METRE,
    BoardGeometry,
    LayoutLike,
    board_geometry,
    strip_pieces,
    track_rows,
)
from tools.hardware.routes import routes

#: Added to a jumper's length along its groove: down through the base board and
#: back up at each end (about 10 mm each), and slack to solder it.
JUMPER_ALLOWANCE_MM = 30.0
#: Spare LEDs to keep beyond those a layout uses: a repair (a dead pixel, a
#: bad cut) replaces a short piece.
MIN_SPARE_LEDS = 10


@dataclass(frozen=True, slots=True)
class Jumper:
    """Three wires from the last LED of one piece to the first of the next."""

    from_led: int
    to_led: int
    route_mm: float  # wire hole to wire hole along the underside groove

    @property
    def wire_mm(self) -> int:
        """Length to cut each of the three wires, rounded up to 10 mm."""
        return int(math.ceil((self.route_mm + JUMPER_ALLOWANCE_MM) / 10) * 10)


@dataclass(frozen=True, slots=True)
class Piece:
    """One piece of strip: its LEDs and what the first and last show."""

    first_led: int
    last_led: int
    reel: int  # which 1 m length (0-based) it is cut from

    @property
    def leds(self) -> int:
        """LEDs on the piece, dark ones between groups included."""
        return self.last_led - self.first_led + 1


def jumpers(geo: BoardGeometry) -> list[Jumper]:
    """Every jumper of the strip's route, in strip order, measured along its groove."""
    return [
        Jumper(r.from_led or 0, r.to_led, r.length_mm) for r in routes(geo) if r.kind == "jumper"
    ]


def cut_pieces(geo: BoardGeometry) -> list[Piece]:
    """The pieces in strip order, each assigned to the 1 m length it is cut from."""
    pieces: list[Piece] = []
    reel, left = 0, LEDS_PER_METRE
    previous_end = -1
    for first, last in strip_pieces(geo):
        # LEDs skipped between two pieces (unused indices) are cut away too.
        need = last - first + 1 + max(0, first - previous_end - 1)
        if need > left:
            reel, left = reel + 1, LEDS_PER_METRE
            need = last - first + 1
        left -= need
        pieces.append(Piece(first, last, reel))
        previous_end = last
    return pieces


def metres_to_buy(geo: BoardGeometry) -> int:
    """Whole 1 m lengths of 144/m strip to buy: enough for the pieces as they are
    cut in order, and for :data:`MIN_SPARE_LEDS` spares."""
    reels = cut_pieces(geo)[-1].reel + 1
    return max(reels, -(-(geo.led_count + MIN_SPARE_LEDS) // LEDS_PER_METRE))


@dataclass(frozen=True, slots=True)
class _Track:
    name: str
    holes: tuple[int, ...]
    dealer: int | None
    game_points: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GappedLayout:
    """A layout's "real gaps" variant (see :func:`real_gaps`)."""

    name: str
    description: str
    led_count: int
    hole_count: int
    tracks: tuple[_Track, ...]
    markers: dict[str, tuple[int, ...]]
    status: int | None


def real_gaps(layout: LayoutLike) -> GappedLayout:
    """The layout with one dark LED after every fifth hole inside a row (not at
    a row's end, where the strip is cut anyway): the "real gaps" build of
    geometry.md. Every LED after an inserted dark one moves up by one."""
    inserted: list[int] = []  # old LED index before which a dark LED goes
    for t, track in enumerate(layout.tracks):
        for row in track_rows(track.holes, t):
            for hole in range(row.first_hole, row.last_hole):
                a, b = track.holes[hole], track.holes[hole + 1]
                if hole % 5 == 0 and abs(b - a) == 1:
                    inserted.append(max(a, b))

    def moved(led: int) -> int:
        return led + sum(1 for at in inserted if at <= led)

    def moved_opt(led: int | None) -> int | None:
        return None if led is None else moved(led)

    tracks = tuple(
        _Track(
            getattr(track, "name", f"track{t + 1}"),
            tuple(moved(led) for led in track.holes),
            moved_opt(track.dealer),
            tuple(moved(led) for led in track.game_points),
        )
        for t, track in enumerate(layout.tracks)
    )
    return GappedLayout(
        f"{layout.name} (real gaps)",
        f"{layout.description}, one dark LED between groups of five",
        layout.led_count + len(inserted),
        layout.hole_count,
        tracks,
        {key: tuple(moved(led) for led in leds) for key, leds in layout.markers.items()},
        moved_opt(layout.status),
    )


def describe(roles: dict[int, str], first: int, last: int) -> str:
    """What a piece shows, from its first and last LED's roles."""
    a, b = roles.get(first, "unused"), roles.get(last, "unused")
    return a if first == last else f"{a} .. {b}"


def cut_list_table(layout: LayoutLike, roles: dict[int, str]) -> str:
    """The Markdown cut list of ``layout``: pieces, LED counts, reels and jumpers."""
    geo = board_geometry(layout)
    pieces = cut_pieces(geo)
    after = {j.from_led: j for j in jumpers(geo)}
    lines = [
        "| piece | LEDs | from the 1 m length | shows | then a jumper to | wire length (x3) |",
        "|---|---|---|---|---|---|",
    ]
    for n, piece in enumerate(pieces, start=1):
        jumper = after.get(piece.last_led)
        if jumper is None:
            to, length = "(end of the strip)", ""
        else:
            to = f"LED {jumper.to_led}"
            length = f"{jumper.wire_mm} mm ({jumper.route_mm:.0f} mm of groove)"
        lines.append(
            f"| {n}: LEDs {piece.first_led}-{piece.last_led} | {piece.leds} | {piece.reel + 1} "
            f"| {describe(roles, piece.first_led, piece.last_led)} | {to} | {length} |"
        )
    used = layout.led_count
    metres = metres_to_buy(geo)
    bought = metres * LEDS_PER_METRE
    wire = sum(j.wire_mm for j in jumpers(geo))
    lines += [
        "",
        f"{len(pieces)} pieces, {len(pieces) - 1} jumpers ({wire / 1000:.2f} m of each of the "
        f"three wires); {used} LEDs used of {bought} bought ({metres} m), {bought - used} spare.",
    ]
    return "\n".join(lines) + "\n"
