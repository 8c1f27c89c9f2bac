"""The woodwork files of a layout: DXF for a CNC router or laser, and a printable drilling template.

For each layout, in ``hardware/woodwork/``:

- ``LAYOUT-top.dxf``: the top plate, seen from above: its outline and a hole
  over every LED (layer ``TOP_HOLES``);
- ``LAYOUT-base.dxf``: the base board, seen from above: the strip channels
  (``CHANNELS``, pockets), the wire holes through it (``WIRE_HOLES``);
- ``LAYOUT-base-underside.dxf``: the base board turned over (mirrored left to
  right, as it lies on the router's bed): the wire grooves (``GROOVES``, centre
  lines), the wire holes again to register the second side, the electronics bay's
  outline (``BAY``) and the carrier board's mounting holes (``BAY_MOUNTING_HOLES``);
- ``LAYOUT-template-a4-N.svg`` and ``LAYOUT-template-letter-N.svg``: the top
  plate at 1:1, tiled on pages with an overlap, a 100 mm scale bar on every page,
  the board's overall dimensions, the pitch and row spacing, and a ruler in board
  millimetres along each page's edges.

Every figure comes from :mod:`tools.hardware.routes` and the layout. Run
``python -m tools.hardware.woodwork`` from the repository's root to write them
(into ``hardware/woodwork/``); ``--check`` names the files that are stale.
"""

from __future__ import annotations

import argparse
import io
import math
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

import ezdxf
from ezdxf.document import Drawing
from ezdxf.filemanagement import new as new_dxf
from ezdxf.layouts.layout import Modelspace

from boardctl.board.layout import LAYOUT_NAMES, builtin_layout
from tools import REPO
from tools.hardware.geometry import (
    PITCH_MM,
    TRACK_SPACING_MM,
    BoardGeometry,
    board_geometry,
)
from tools.hardware.routes import (
    BASE_THICKNESS_MM,
    BAY_DEPTH_MM,
    CHANNEL_DEPTH_MM,
    CHANNEL_WIDTH_MM,
    GROOVE_DEPTH_MM,
    GROOVE_WIDTH_MM,
    HOLE_DIAMETER_MM,
    MOUNTING_HOLE_DIAMETER_MM,
    TOP_THICKNESS_MM,
    WIRE_HOLE_DIAMETER_MM,
    bay,
    carrier_holes,
    pieces,
    routes,
)

WOODWORK_DIR = REPO / "hardware" / "woodwork"

#: Paper sizes in mm (portrait), the printable margin and the tiles' overlap.
PAPERS = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
PAGE_MARGIN_MM = 10.0
TILE_OVERLAP_MM = 10.0
#: Room around the board on the template for its dimension lines.
TEMPLATE_BORDER_MM = 20.0
SCALE_BAR_MM = 100.0

Point = tuple[float, float]


# --- DXF ------------------------------------------------------------------------------------


def _new_dxf(geo: BoardGeometry, title: str, layers: dict[str, int]) -> Drawing:
    # The same file for the same board: no time stamps or random ids in the header.
    ezdxf.options.write_fixed_meta_data_for_testing = True  # type: ignore[attr-defined]
    doc = new_dxf("R2010", units=ezdxf.units.MM)
    for name, colour in {"OUTLINE": 7, "NOTES": 8, **layers}.items():
        doc.layers.add(name, color=colour)
    msp = doc.modelspace()
    msp.add_lwpolyline(
        [(0, 0), (geo.width, 0), (geo.width, geo.height), (0, geo.height)],
        close=True,
        dxfattribs={"layer": "OUTLINE"},
    )
    msp.add_text(title, height=3.0, dxfattribs={"layer": "NOTES"}).set_placement((0, -8))
    return doc


def _flip(geo: BoardGeometry, point: Point) -> Point:
    """Board coordinates (y down, seen from the top) to DXF (y up)."""
    return (point[0], geo.height - point[1])


def _circle(msp: Modelspace, centre: Point, diameter: float, layer: str) -> None:
    msp.add_circle(centre, diameter / 2, dxfattribs={"layer": layer})


def _rect(geo: BoardGeometry, box: tuple[float, float, float, float]) -> list[Point]:
    x0, y0, x1, y1 = box
    return [_flip(geo, p) for p in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))]


def top_dxf(geo: BoardGeometry) -> Drawing:
    """The top plate: its outline and one hole over every LED."""
    doc = _new_dxf(
        geo,
        f"{geo.name}: top plate {TOP_THICKNESS_MM:g} mm, "
        f"holes {HOLE_DIAMETER_MM:g} mm through (TOP_HOLES)",
        {"TOP_HOLES": 1},
    )
    msp = doc.modelspace()
    for led in sorted(geo.spots):
        spot = geo.spots[led]
        msp.add_circle(
            _flip(geo, (spot.x, spot.y)), HOLE_DIAMETER_MM / 2, dxfattribs={"layer": "TOP_HOLES"}
        )
    return doc


def base_dxf(geo: BoardGeometry) -> Drawing:
    """The base board's top side: channels and wire holes."""
    doc = _new_dxf(
        geo,
        f"{geo.name}: base board {BASE_THICKNESS_MM:g} mm; CHANNELS pockets "
        f"{CHANNEL_WIDTH_MM:g} mm wide, {CHANNEL_DEPTH_MM:g} mm deep; "
        f"WIRE_HOLES {WIRE_HOLE_DIAMETER_MM:g} mm through",
        {"CHANNELS": 5, "WIRE_HOLES": 3},
    )
    msp = doc.modelspace()
    for piece in pieces(geo):
        msp.add_lwpolyline(_rect(geo, piece.channel), close=True, dxfattribs={"layer": "CHANNELS"})
    for hole in wire_holes(geo):
        msp.add_circle(
            _flip(geo, hole), WIRE_HOLE_DIAMETER_MM / 2, dxfattribs={"layer": "WIRE_HOLES"}
        )
    return doc


def underside_dxf(geo: BoardGeometry) -> Drawing:
    """The base board turned over: grooves, wire holes, the bay and its mounting holes."""
    doc = _new_dxf(
        geo,
        f"{geo.name}: base board UNDERSIDE (mirrored); GROOVES centre lines, "
        f"{GROOVE_WIDTH_MM:g} mm tool, {GROOVE_DEPTH_MM:g} mm deep; BAY: the electronics box "
        f"({BAY_DEPTH_MM:g} mm deep) goes here; BAY_MOUNTING_HOLES "
        f"{MOUNTING_HOLE_DIAMETER_MM:g} mm, 8 mm deep, for M2.5 inserts",
        {"GROOVES": 4, "WIRE_HOLES": 3, "BAY": 6, "BAY_MOUNTING_HOLES": 2},
    )
    msp = doc.modelspace()

    def mirrored(point: Point) -> Point:
        return _flip(geo, (geo.width - point[0], point[1]))

    for route in routes(geo):
        msp.add_lwpolyline([mirrored(p) for p in route.points], dxfattribs={"layer": "GROOVES"})
    for hole in wire_holes(geo):
        msp.add_circle(
            mirrored(hole), WIRE_HOLE_DIAMETER_MM / 2, dxfattribs={"layer": "WIRE_HOLES"}
        )
    x0, y0, x1, y1 = bay(geo)
    corners = [mirrored(p) for p in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))]
    msp.add_lwpolyline(corners, close=True, dxfattribs={"layer": "BAY"})
    for hole in carrier_holes(geo):
        msp.add_circle(
            mirrored(hole),
            MOUNTING_HOLE_DIAMETER_MM / 2,
            dxfattribs={"layer": "BAY_MOUNTING_HOLES"},
        )
    return doc


def wire_holes(geo: BoardGeometry) -> list[Point]:
    """One wire hole past each cut end of every piece."""
    return [hole for piece in pieces(geo) for hole in (piece.din_hole, piece.dout_hole)]


def dxf_text(doc: Drawing) -> str:
    """The DXF file's text, the same for the same drawing in every process."""
    # ezdxf lists the classes in use in the order of a set of names: fix it first.
    for name in sorted(doc.entitydb.dxf_types_in_use()):
        doc.classes.add_class(name)
    stream = io.StringIO()
    doc.write(stream)
    return stream.getvalue()


# --- the drilling template --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Tile:
    """One page of the template: which part of the board (board mm) it shows."""

    paper: str
    number: int
    count: int
    x0: float
    y0: float

    @property
    def size(self) -> Point:
        return PAPERS[self.paper]


def tiles(geo: BoardGeometry, paper: str) -> list[Tile]:
    """The pages that cover the board and its dimension lines, overlapping."""
    width, height = PAPERS[paper]
    step_x = width - 2 * PAGE_MARGIN_MM - TILE_OVERLAP_MM
    step_y = height - 2 * PAGE_MARGIN_MM - TILE_OVERLAP_MM
    span_x = geo.width + 2 * TEMPLATE_BORDER_MM
    span_y = geo.height + 2 * TEMPLATE_BORDER_MM
    columns = max(1, math.ceil((span_x - TILE_OVERLAP_MM) / step_x))
    rows = max(1, math.ceil((span_y - TILE_OVERLAP_MM) / step_y))
    origin = -TEMPLATE_BORDER_MM
    return [
        Tile(paper, r * columns + c + 1, rows * columns, origin + c * step_x, origin + r * step_y)
        for r in range(rows)
        for c in range(columns)
    ]


def _f(value: float) -> str:
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _text(x: float, y: float, body: str, size: float = 3.0, anchor: str = "start") -> str:
    return (
        f'<text x="{_f(x)}" y="{_f(y)}" font-size="{_f(size)}" font-family="sans-serif" '
        f'text-anchor="{anchor}">{escape(body)}</text>'
    )


def _dimension(a: Point, b: Point, label: str, cls: str) -> str:
    """A dimension line with end ticks and its figure."""
    (x0, y0), (x1, y1) = a, b
    vertical = x0 == x1
    tick = [(0.0, -2.0), (0.0, 2.0)] if not vertical else [(-2.0, 0.0), (2.0, 0.0)]
    ticks = "".join(
        f'<line x1="{_f(x + tick[0][0])}" y1="{_f(y + tick[0][1])}" '
        f'x2="{_f(x + tick[1][0])}" y2="{_f(y + tick[1][1])}" stroke="#000" stroke-width="0.25"/>'
        for x, y in (a, b)
    )
    mid = ((x0 + x1) / 2, (y0 + y1) / 2)
    text = (
        _text(mid[0] + 1.5, mid[1], label, 2.5)
        if vertical
        else _text(mid[0], mid[1] - 1.2, label, 2.5, "middle")
    )
    return (
        f'<g class="dimension" data-dimension="{cls}" data-mm="{_f(math.dist(a, b))}">'
        f'<line x1="{_f(x0)}" y1="{_f(y0)}" x2="{_f(x1)}" y2="{_f(y1)}" stroke="#000" '
        f'stroke-width="0.25"/>{ticks}{text}</g>'
    )


def _board_drawing(geo: BoardGeometry, tile: Tile) -> str:
    """The top plate at 1:1 in board millimetres: outline, the holes on ``tile`` with
    centre crosses, and the dimension lines."""
    width, height = tile.size
    parts = [
        f'<rect x="0" y="0" width="{_f(geo.width)}" height="{_f(geo.height)}" fill="none" '
        'stroke="#000" stroke-width="0.3"/>'
    ]
    for led in sorted(geo.spots):
        spot = geo.spots[led]
        x, y = spot.x, spot.y
        if not (tile.x0 - 5 <= x <= tile.x0 + width and tile.y0 - 5 <= y <= tile.y0 + height):
            continue
        parts.append(
            f'<circle class="hole" data-led="{led}" cx="{_f(x)}" cy="{_f(y)}" '
            f'r="{_f(HOLE_DIAMETER_MM / 2)}" fill="none" stroke="#000" stroke-width="0.2"/>'
            f'<path d="M{_f(x - 2.5)} {_f(y)}H{_f(x + 2.5)}M{_f(x)} {_f(y - 2.5)}V{_f(y + 2.5)}" '
            'stroke="#000" stroke-width="0.1"/>'
        )
    parts.append(
        _dimension((0, -10), (geo.width, -10), f"{geo.width:.1f} mm", "width")
        + _dimension((-10, 0), (-10, geo.height), f"{geo.height:.1f} mm", "height")
    )
    # The pitch along the first row and the spacing of the first street's rows.
    first_row = geo.rows[0]
    track = [s for s in geo.spots.values() if s.kind == "hole" and s.track == first_row.track]
    one, two = sorted(track, key=lambda s: s.hole or 0)[:2]
    parts.append(_dimension((one.x, one.y - 5), (two.x, one.y - 5), f"{PITCH_MM:.2f}", "pitch"))
    below = [s for s in geo.spots.values() if s.track == 1 and s.hole == one.hole]
    for s in below:
        parts.append(
            _dimension(
                (one.x - 5, one.y), (one.x - 5, s.y), f"{TRACK_SPACING_MM:g}", "track-spacing"
            )
        )
    return "".join(parts)


def _ruler(tile: Tile) -> str:
    """Ticks every 10 mm of board coordinates along the page's top and left edges."""
    width, height = tile.size
    out = []
    first_x = math.ceil(tile.x0 / 10) * 10
    for mm in range(int(first_x), int(tile.x0 + width - 2 * PAGE_MARGIN_MM) + 1, 10):
        x = PAGE_MARGIN_MM + mm - tile.x0
        out.append(
            f'<line x1="{_f(x)}" y1="{_f(PAGE_MARGIN_MM)}" x2="{_f(x)}" '
            f'y2="{_f(PAGE_MARGIN_MM + 3)}" stroke="#000" stroke-width="0.2"/>'
            + _text(x, PAGE_MARGIN_MM + 5.5, str(mm), 2.0, "middle")
        )
    first_y = math.ceil(tile.y0 / 10) * 10
    for mm in range(int(first_y), int(tile.y0 + height - 2 * PAGE_MARGIN_MM) + 1, 10):
        y = PAGE_MARGIN_MM + mm - tile.y0
        out.append(
            f'<line x1="{_f(PAGE_MARGIN_MM)}" y1="{_f(y)}" x2="{_f(PAGE_MARGIN_MM + 3)}" '
            f'y2="{_f(y)}" stroke="#000" stroke-width="0.2"/>'
            + _text(PAGE_MARGIN_MM + 4, y + 0.8, str(mm), 2.0)
        )
    return "".join(out)


def template_page(geo: BoardGeometry, tile: Tile) -> str:
    """One page of the drilling template as SVG, in millimetres at 1:1."""
    width, height = tile.size
    inner_w, inner_h = width - 2 * PAGE_MARGIN_MM, height - 2 * PAGE_MARGIN_MM
    bar_y = height - PAGE_MARGIN_MM / 2
    bar_x = (width - SCALE_BAR_MM) / 2
    head = (
        f"{geo.name} drilling template, {tile.paper.upper()} page {tile.number} of {tile.count}: "
        f"board x {tile.x0:.0f} to {tile.x0 + inner_w:.0f} mm, y {tile.y0:.0f} to "
        f"{tile.y0 + inner_h:.0f} mm. Print at 100 % (no fit to page); pages overlap "
        f"{TILE_OVERLAP_MM:g} mm."
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_f(width)}mm" height="{_f(height)}mm" '
        f'viewBox="0 0 {_f(width)} {_f(height)}" data-layout="{geo.name}" '
        f'data-x0="{_f(tile.x0)}" data-y0="{_f(tile.y0)}">\n'
        f'<defs><clipPath id="page"><rect x="{_f(PAGE_MARGIN_MM)}" y="{_f(PAGE_MARGIN_MM)}" '
        f'width="{_f(inner_w)}" height="{_f(inner_h)}"/></clipPath></defs>\n'
        + _text(PAGE_MARGIN_MM, PAGE_MARGIN_MM - 3, head, 2.2)
        + f'\n<rect x="{_f(PAGE_MARGIN_MM)}" y="{_f(PAGE_MARGIN_MM)}" width="{_f(inner_w)}" '
        f'height="{_f(inner_h)}" fill="none" stroke="#999" stroke-width="0.2" '
        'stroke-dasharray="2 2"/>\n'
        f'<g clip-path="url(#page)"><g class="board" transform="translate('
        f'{_f(PAGE_MARGIN_MM - tile.x0)} {_f(PAGE_MARGIN_MM - tile.y0)})">'
        f"{_board_drawing(geo, tile)}</g>{_ruler(tile)}</g>\n"
        f'<g class="scale-check" data-mm="{_f(SCALE_BAR_MM)}">'
        f'<rect x="{_f(bar_x)}" y="{_f(bar_y - 2)}" width="{_f(SCALE_BAR_MM)}" height="2" '
        'fill="#000"/>'
        + _text(
            width / 2,
            bar_y - 3,
            f"scale check: this bar must measure {SCALE_BAR_MM:g} mm",
            2.2,
            "middle",
        )
        + "</g>\n</svg>\n"
    )


# --- files ------------------------------------------------------------------------------------


def woodwork_files(geo: BoardGeometry, name: str) -> Iterator[tuple[str, str]]:
    """``(file name, text)`` of every woodwork file of one layout."""
    yield f"{name}-top.dxf", dxf_text(top_dxf(geo))
    yield f"{name}-base.dxf", dxf_text(base_dxf(geo))
    yield f"{name}-base-underside.dxf", dxf_text(underside_dxf(geo))
    for paper in PAPERS:
        for tile in tiles(geo, paper):
            yield f"{name}-template-{paper}-{tile.number}.svg", template_page(geo, tile)


def all_files() -> dict[str, str]:
    """Every woodwork file of every built-in layout."""
    return {
        file: text
        for name in LAYOUT_NAMES
        for file, text in woodwork_files(board_geometry(builtin_layout(name)), name)
    }


def stale_files(folder: Path = WOODWORK_DIR) -> list[str]:
    """The files of ``folder`` that differ from what the code makes (or are missing or extra)."""
    wanted = all_files()
    present = {p.name for p in folder.glob("*") if p.suffix in (".dxf", ".svg")}
    stale = [n for n, text in wanted.items() if not (folder / n).is_file()
             or (folder / n).read_text(encoding="utf-8") != text]  # fmt: skip
    return sorted(stale + sorted(present - set(wanted)))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, nargs="?", default=WOODWORK_DIR)
    parser.add_argument("--check", action="store_true", help="name the stale files; exit 1 if any")
    args = parser.parse_args(argv)
    if args.check:
        stale = stale_files(args.folder)
        for name in stale:
            print(f"stale: {name}", file=sys.stderr)
        return 1 if stale else 0
    args.folder.mkdir(parents=True, exist_ok=True)
    for old in args.folder.glob("*"):
        if old.suffix in (".dxf", ".svg"):
            old.unlink()
    for name, text in all_files().items():
        (args.folder / name).write_text(text, encoding="utf-8")
        print(args.folder / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
