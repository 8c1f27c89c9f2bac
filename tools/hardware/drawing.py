"""An SVG drawing of a board, generated from its layout file.

The drawing shows, to scale in millimetres, every hole with the index of the
LED beneath it, the route of the strip (solid along a row, dashed where a
wire jumper joins two cut pieces), where data enters, the power injection
points, the skunk lines, and the marker, dealer, game-point and status LEDs.
Each LED is an SVG element with ``data-led`` (and ``data-track``/``data-hole``
for holes), so tests and tools can read the drawing back.

Run ``python -m tools.hardware.drawing LAYOUT [OUT.svg]`` (LAYOUT: a file
or a built-in name); ``--all DIR`` writes every built-in layout.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from tools.hardware.geometry import (
    LEDS_PER_METRE,
    PITCH_MM,
    BoardGeometry,
    LayoutLike,
    Spot,
    adjacent,
    board_geometry,
    injection_leds,
)

HOLE_RADIUS = 1.6
LINE_COLOURS = {"skunk": "#d55e00", "double": "#cc79a7", "triple": "#0072b2"}
LINE_NAMES = {"skunk": "skunk", "double": "double skunk", "triple": "triple skunk"}
KIND_FILL = {
    "hole": "#3b2a1a",
    "start": "#3b2a1a",
    "marker": "#ffffff",
    "dealer": "#e69f00",
    "game_point": "#009e73",
    "status": "#56b4e9",
}


def _f(value: float) -> str:
    """A coordinate, short: 2 decimals, no trailing zeros."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _text(x: float, y: float, body: str, *, size: float = 2.0, anchor: str = "middle",
          cls: str = "") -> str:  # fmt: skip
    klass = f' class="{cls}"' if cls else ""
    return (
        f'<text x="{_f(x)}" y="{_f(y)}" font-size="{_f(size)}" text-anchor="{anchor}"{klass}>'
        f"{escape(body)}</text>"
    )


def _spot(spot: Spot) -> str:
    attrs = [f'data-led="{spot.led}"', f'class="{spot.kind}"']
    if spot.track is not None:
        attrs.append(f'data-track="{spot.track + 1}"')
    if spot.hole is not None:
        attrs.append(f'data-hole="{spot.hole}"')
    fill = KIND_FILL[spot.kind]
    stroke = "#000000" if spot.kind == "marker" else "none"
    shape = (
        f'<circle cx="{_f(spot.x)}" cy="{_f(spot.y)}" r="{_f(HOLE_RADIUS)}" fill="{fill}" '
        f'stroke="{stroke}" stroke-width="0.3" {" ".join(attrs)}>'
        f"<title>{escape(f'LED {spot.led}: {spot.label}')}</title></circle>"
    )
    return shape + _text(spot.x, spot.y + HOLE_RADIUS + 2.2, str(spot.led), size=1.7, cls="led")


def render_svg(geo: BoardGeometry) -> str:
    """The drawing as SVG text (millimetre units)."""
    w, h = geo.width, geo.height
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_f(w)}mm" height="{_f(h)}mm" '
        f'viewBox="0 0 {_f(w)} {_f(h)}" font-family="sans-serif" '
        f"data-layout={quoteattr(geo.name)}>",
        f"<title>{escape(f'boardctl layout {geo.name}')}</title>",
        f'<rect x="0" y="0" width="{_f(w)}" height="{_f(h)}" rx="6" fill="#e8d2a6" '
        'stroke="#8b6b3d" stroke-width="0.6"/>',
    ]
    metres = geo.led_count / LEDS_PER_METRE
    out.append(_text(6, 8, f"{geo.name}: {geo.description}", size=4.0, anchor="start"))
    out.append(
        _text(
            6,
            13.5,
            f"{geo.led_count} LEDs = {metres:.2f} m of {LEDS_PER_METRE}/m strip; "
            f"hole pitch {PITCH_MM:.2f} mm; numbers under holes are LED indices; "
            "dashed = wire jumper between cut strip pieces",
            size=2.4,
            anchor="start",
        )
    )
    # Street outlines (the strip channels) and hole-number ticks every 5 holes.
    for row in geo.rows:
        spots = [s for s in geo.spots.values() if s.kind == "hole" and s.track == row.track]
        in_row = [s for s in spots if row.first_hole <= (s.hole or 0) <= row.last_hole]
        # The start hole lies on the first row's piece: the channel runs under it too.
        starts = [s for s in geo.spots.values() if s.kind == "start" and s.track == row.track]
        on_piece = [s for s in starts if row.first_hole == 1 and s.y == in_row[0].y]
        x0 = min(s.x for s in in_row + on_piece) - PITCH_MM / 2
        x1 = max(s.x for s in in_row) + PITCH_MM / 2
        y = in_row[0].y
        out.append(
            f'<rect x="{_f(x0)}" y="{_f(y - 6)}" width="{_f(x1 - x0)}" height="12" rx="1.5" '
            f'fill="#d9bd87" stroke="#b08d55" stroke-width="0.25" class="channel" '
            f'data-track="{row.track + 1}" data-first-hole="{row.first_hole}" '
            f'data-last-hole="{row.last_hole}" data-step="{row.step}"/>'
        )
        for s in in_row:
            if s.hole is not None and s.hole % 5 == 0 and s.hole != row.last_hole:
                gx = s.x + PITCH_MM / 2
                out.append(
                    f'<line x1="{_f(gx)}" y1="{_f(y - 4.5)}" x2="{_f(gx)}" y2="{_f(y + 4.5)}" '
                    'stroke="#8b6b3d" stroke-width="0.35" class="group"/>'
                )
            numbered = s.hole is not None and (s.hole % 5 == 0 or s.hole == row.first_hole)
            if row.track == 0 and numbered and s.hole is not None:
                top = geo.street_top[row.street]
                out.append(_text(s.x, top - 0.6, str(s.hole), size=2.0, cls="hole-number"))
    # Skunk lines.
    for line in geo.lines:
        colour = LINE_COLOURS[line.key]
        out.append(
            f'<line x1="{_f(line.x)}" y1="{_f(line.y_top)}" x2="{_f(line.x)}" '
            f'y2="{_f(line.y_bottom)}" stroke="{colour}" stroke-width="1.2" '
            f'class="skunk-line" data-line="{line.key}" data-hole="{line.hole}"/>'
        )
        out.append(
            _text(
                line.x + 1.0,
                line.y_bottom + 3.2,
                f"{LINE_NAMES[line.key]} line ({line.hole})",
                size=2.2,
                anchor="start",
            )
        )
    # The strip's route, LED by LED.
    for a, b in geo.strip_path():
        near = adjacent(a, b)
        dash = "" if near else ' stroke-dasharray="1.5,1.2"'
        cls = "strip" if near else "jumper"
        out.append(
            f'<line x1="{_f(a.x)}" y1="{_f(a.y)}" x2="{_f(b.x)}" y2="{_f(b.y)}" '
            f'stroke="#404040" stroke-width="0.45"{dash} class="{cls}" '
            f'data-from="{a.led}" data-to="{b.led}"/>'
        )
    for spot in sorted(geo.spots.values(), key=lambda s: s.led):
        out.append(_spot(spot))
    # Data in and power injection.
    if 0 in geo.spots:
        first = geo.spots[0]
        out.append(
            _text(first.x, first.y - 3.2, "DIN", size=2.2, cls="din")
            + f'<path d="M{_f(first.x - 6)},{_f(first.y)} h4" stroke="#c00000" '
            'stroke-width="0.6" class="din-arrow"/>'
        )
    for led in injection_leds(geo):
        fed = geo.spots.get(led)
        if fed is None:
            continue
        out.append(
            f'<circle cx="{_f(fed.x)}" cy="{_f(fed.y)}" r="{_f(HOLE_RADIUS + 1.1)}" '
            f'fill="none" stroke="#c00000" stroke-width="0.5" class="injection" '
            f'data-led="{led}"/>'
        )
    legend_y = geo.height - 5
    out.append(
        _text(
            6,
            legend_y,
            "red rings: 5 V / GND injection points; panel below the tracks: dealer (orange), "
            "game points (green), status (blue); white: line markers",
            size=2.2,
            anchor="start",
        )
    )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def layout_svg(layout: LayoutLike) -> str:
    """The SVG drawing of ``layout``."""
    return render_svg(board_geometry(layout))


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: write the drawing of one layout, or of every built-in one."""
    import importlib

    layouts: Any = importlib.import_module("boardctl.board.layout")
    load_layout, LAYOUT_NAMES = layouts.load_layout, layouts.LAYOUT_NAMES
    parser = argparse.ArgumentParser(prog="python -m tools.hardware.drawing")
    parser.add_argument("layout", nargs="?", help="layout file or built-in name")
    parser.add_argument("out", nargs="?", help="output SVG (default: standard output)")
    parser.add_argument("--all", metavar="DIR", help="write DIR/<name>.svg for every built-in")
    args = parser.parse_args(argv)
    if args.all:
        folder = Path(args.all)
        folder.mkdir(parents=True, exist_ok=True)
        for name in LAYOUT_NAMES:
            path = folder / f"{name}.svg"
            path.write_text(layout_svg(load_layout(name)), encoding="utf-8")
            print(path)
        return 0
    if not args.layout:
        parser.error("give a layout (file or built-in name) or --all DIR")
    svg = layout_svg(load_layout(args.layout))
    if args.out:
        Path(args.out).write_text(svg, encoding="utf-8")
    else:
        sys.stdout.write(svg)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
