"""The board's schematic as SVG, drawn from the netlist of :mod:`tools.hardware.circuit`.

A net-label schematic: every pin ends in a label naming its net, and pins
with the same label are connected (power nets are coloured). Every part and
pin is an SVG element with ``data-ref``/``data-pin``/``data-net``, so tests
read the drawing back and compare it with the pin tables.

``python -m tools.hardware.schematic DIR`` writes ``DIR/schematic.svg`` and
``DIR/perfboard.svg``.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

from tools.hardware.circuit import GND, V3, V5, VIN, Component, Pin, build_circuit

ROW = 5.0  # mm between pins
STUB = 4.0  # pin stub length
LABEL_W = 27.0  # room for a net label
NET_COLOURS = {V5: "#c00000", VIN: "#c00000", GND: "#000000", V3: "#e69f00"}
BLOCKS: tuple[tuple[str, str], ...] = (
    ("power", "1. Input, fuse, over-voltage crowbar, reverse-polarity clamp"),
    ("data", "2. Level shifter, strip data and supply"),
    ("pico", "3. Raspberry Pi Pico"),
    ("pi", "4. Raspberry Pi"),
    ("inputs", "5. Buttons and encoders (1 kOhm in series with each line)"),
)
COLUMNS: tuple[tuple[str, ...], ...] = (("power",), ("data", "pico"), ("pi",), ("inputs",))
COLUMN_W = (100.0, 100.0, 110.0, 100.0)
TWO_PIN = ("resistor", "capacitor", "diode", "fuse", "switch")


def _f(value: float) -> str:
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _text(x: float, y: float, body: str, *, size: float = 2.4, anchor: str = "start",
          cls: str = "", fill: str = "#000000") -> str:  # fmt: skip
    klass = f' class="{cls}"' if cls else ""
    return (
        f'<text x="{_f(x)}" y="{_f(y)}" font-size="{_f(size)}" text-anchor="{anchor}" '
        f'fill="{fill}"{klass}>{escape(body)}</text>'
    )


def _pin(comp: Component, pin: Pin, x: float, y: float, side: int, *, show_name: bool) -> str:
    """A pin stub from (x, y) outwards (side -1: left, +1: right) and its net label."""
    net = pin.net
    colour = NET_COLOURS.get(net or "", "#1f4e79")
    x2 = x + side * STUB
    parts = [
        f'<g class="pin" data-ref={quoteattr(comp.ref)} data-pin={quoteattr(pin.number)} '
        f"data-net={quoteattr(net or '')}>",
        f'<line x1="{_f(x)}" y1="{_f(y)}" x2="{_f(x2)}" y2="{_f(y)}" stroke="#000000" '
        'stroke-width="0.3"/>',
    ]
    if show_name:
        inside = x - side * 1.0
        parts.append(_text(inside, y + 0.8, pin.name, size=2.0, anchor=_anchor(-side)))
        parts.append(_text(x + side * 0.8, y - 0.7, pin.number, size=1.6, anchor=_anchor(side)))
    if net is None:
        parts.append(
            f'<path d="M{_f(x2 - 1)},{_f(y - 1)} l2,2 m0,-2 l-2,2" stroke="#000000" '
            'stroke-width="0.3" class="nc"/>'
        )
    else:
        label = _text(
            x2 + side * 0.8, y + 0.8, net, size=2.2, anchor=_anchor(side), cls="net", fill=colour
        )
        parts.append(label)
    parts.append("</g>")
    return "".join(parts)


def _anchor(side: int) -> str:
    return "start" if side > 0 else "end"


def is_polarised(comp: Component) -> bool:
    """An electrolytic capacitor: pin 1 is its + lead."""
    return comp.kind == "capacitor" and "electrolytic" in comp.value


def _symbol(comp: Component, cx: float, cy: float) -> str:
    """The symbol of a two-pin part, centred at (cx, cy), 12 mm wide."""
    s = 'stroke="#000000" stroke-width="0.35" fill="none"'
    left, right = cx - 6, cx + 6
    if comp.kind == "resistor":
        body = f'<rect x="{_f(cx - 4)}" y="{_f(cy - 1.3)}" width="8" height="2.6" {s}/>'
        leads = (cx - 4, cx + 4)
    elif comp.kind == "fuse":
        body = (
            f'<rect x="{_f(cx - 4)}" y="{_f(cy - 1.3)}" width="8" height="2.6" {s}/>'
            f'<line x1="{_f(cx - 4)}" y1="{_f(cy)}" x2="{_f(cx + 4)}" y2="{_f(cy)}" {s}/>'
        )
        leads = (cx - 4, cx + 4)
    elif comp.kind == "capacitor" and is_polarised(comp):
        # Pin 1 (+, left): a straight plate and a "+"; pin 2 (-): the curved plate.
        body = (
            f'<line x1="{_f(cx - 0.8)}" y1="{_f(cy - 2.5)}" x2="{_f(cx - 0.8)}" '
            f'y2="{_f(cy + 2.5)}" {s}/>'
            f'<path d="M{_f(cx + 1.6)},{_f(cy - 2.5)} Q{_f(cx + 0.4)},{_f(cy)} '
            f'{_f(cx + 1.6)},{_f(cy + 2.5)}" {s} class="polarity"/>'
            f'<text x="{_f(cx - 2.6)}" y="{_f(cy - 1.6)}" font-size="2.4" '
            f'class="polarity" data-pin="1">+</text>'
        )
        leads = (cx - 0.8, cx + 0.9)
    elif comp.kind == "capacitor":
        body = (
            f'<line x1="{_f(cx - 0.8)}" y1="{_f(cy - 2.5)}" x2="{_f(cx - 0.8)}" '
            f'y2="{_f(cy + 2.5)}" {s}/>'
            f'<line x1="{_f(cx + 0.8)}" y1="{_f(cy - 2.5)}" x2="{_f(cx + 0.8)}" '
            f'y2="{_f(cy + 2.5)}" {s}/>'
        )
        leads = (cx - 0.8, cx + 0.8)
    elif comp.kind == "diode":  # pin 1 anode (left), pin 2 cathode (right)
        body = (
            f'<path d="M{_f(cx - 2)},{_f(cy - 2)} L{_f(cx + 2)},{_f(cy)} L{_f(cx - 2)},'
            f'{_f(cy + 2)} Z" {s}/>'
            f'<line x1="{_f(cx + 2)}" y1="{_f(cy - 2)}" x2="{_f(cx + 2)}" y2="{_f(cy + 2)}" '
            f"{s}/>"
        )
        leads = (cx - 2, cx + 2)
    else:  # switch: an open contact
        body = (
            f'<circle cx="{_f(cx - 3)}" cy="{_f(cy)}" r="0.6" {s}/>'
            f'<circle cx="{_f(cx + 3)}" cy="{_f(cy)}" r="0.6" {s}/>'
            f'<line x1="{_f(cx - 2.5)}" y1="{_f(cy - 0.4)}" x2="{_f(cx + 3)}" '
            f'y2="{_f(cy - 2.6)}" {s}/>'
        )
        leads = (cx - 3.6, cx + 3.6)
    return (
        body
        + f'<line x1="{_f(left)}" y1="{_f(cy)}" x2="{_f(leads[0])}" y2="{_f(cy)}" {s}/>'
        + f'<line x1="{_f(leads[1])}" y1="{_f(cy)}" x2="{_f(right)}" y2="{_f(cy)}" {s}/>'
    )


def _component(comp: Component, x: float, y: float) -> tuple[str, float]:
    """Draw ``comp`` with its top-left at (x, y); return the SVG and its height."""
    attrs = (
        f'class="component" data-ref={quoteattr(comp.ref)} data-kind={quoteattr(comp.kind)} '
        f"data-value={quoteattr(comp.value)}"
    )
    out = [f"<g {attrs}>"]
    title = f"{comp.ref}  {comp.value}" + (f"  [{comp.option}]" if comp.option else "")
    if comp.kind in TWO_PIN:
        cx, cy = x + LABEL_W + STUB + 6, y + 4.5
        out.append(_text(cx, cy - 3.2, comp.ref, size=2.2, anchor="middle", cls="ref"))
        out.append(_symbol(comp, cx, cy))
        a, b = comp.pins
        out.append(_pin(comp, a, cx - 6, cy, -1, show_name=False))
        out.append(_pin(comp, b, cx + 6, cy, 1, show_name=False))
        value = comp.value + (f" [{comp.option}]" if comp.option else "")
        out.append(_text(cx, cy + 4.0, value, size=1.9, anchor="middle", cls="value"))
        out.append("</g>")
        return "".join(out), 11.0
    if comp.kind == "module" or comp.ref == "J4":
        left: tuple[Pin, ...] = ()
        right = comp.pins
    elif comp.kind == "ic":  # DIP: 1..n/2 down the left, the rest up the right
        half = len(comp.pins) // 2
        left, right = comp.pins[:half], tuple(reversed(comp.pins[half:]))
    else:
        half = (len(comp.pins) + 1) // 2
        left, right = comp.pins[:half], comp.pins[half:]
    rows = max(len(left), len(right))
    box_w = 38.0 if comp.kind == "module" else 22.0
    bx = x + (4.0 if comp.kind == "module" else LABEL_W + STUB)
    by = y + 5.0
    box_h = rows * ROW + 2
    out.append(_text(bx, y + 3.5, title, size=2.3, cls="ref"))
    out.append(
        f'<rect x="{_f(bx)}" y="{_f(by)}" width="{_f(box_w)}" height="{_f(box_h)}" '
        'fill="#ffffff" stroke="#000000" stroke-width="0.4"/>'
    )
    for i, pin in enumerate(left):
        out.append(_pin(comp, pin, bx, by + 3.5 + i * ROW, -1, show_name=True))
    for i, pin in enumerate(right):
        out.append(_pin(comp, pin, bx + box_w, by + 3.5 + i * ROW, 1, show_name=True))
    out.append("</g>")
    return "".join(out), box_h + 9.0


def render_schematic(components: Sequence[Component]) -> str:
    """The schematic as SVG text (millimetre units)."""
    titles = dict(BLOCKS)
    body: list[str] = []
    x = 8.0
    height = 0.0
    for col, width in zip(COLUMNS, COLUMN_W, strict=True):
        y = 24.0
        for block in col:
            body.append(_text(x, y, titles[block], size=3.0, cls="block"))
            y += 4.0
            for comp in (c for c in components if c.block == block):
                svg, h = _component(comp, x, y)
                body.append(svg)
                y += h
            y += 6.0
        height = max(height, y)
        x += width
    width_total = x + 4.0
    height += 12.0
    head = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_f(width_total)}mm" '
        f'height="{_f(height)}mm" viewBox="0 0 {_f(width_total)} {_f(height)}" '
        'font-family="sans-serif">',
        "<title>boardctl schematic</title>",
        f'<rect x="0" y="0" width="{_f(width_total)}" height="{_f(height)}" fill="#ffffff"/>',
        _text(8, 10, "boardctl: schematic of the reference board", size=5.0),
        _text(
            8,
            16,
            "Pins with the same net label are connected. Generated from the default pin table "
            "(boardctl/config.py), firmware/config.py and tools/hardware/parts.py: "
            "python -m tools.hardware.schematic hardware/drawings",
            size=2.4,
        ),
    ]
    foot = _text(
        8,
        height - 4,
        "Red: +5 V; black: GND; orange: 3.3 V from the Pi (encoders only). Diodes: anode "
        "left, cathode right. [UART link only]: fit only for the UART link option.",
        size=2.3,
    )
    return "\n".join([*head, *body, foot, "</svg>"]) + "\n"


def schematic_svg() -> str:
    """The schematic of the default circuit."""
    return render_schematic(build_circuit())


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: write ``schematic.svg`` and ``perfboard.svg`` into a folder."""
    from tools.hardware.perfboard import perfboard_svg

    parser = argparse.ArgumentParser(prog="python -m tools.hardware.schematic")
    parser.add_argument("folder", type=Path, help="where to write the two SVG files")
    args = parser.parse_args(argv)
    args.folder.mkdir(parents=True, exist_ok=True)
    for name, svg in (("schematic.svg", schematic_svg()), ("perfboard.svg", perfboard_svg())):
        path = args.folder / name
        path.write_text(svg, encoding="utf-8")
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
