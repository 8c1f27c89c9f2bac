"""The bill of materials of each build: parts, part numbers, quantities, a cost estimate.

Quantities come from the code: strip length and jumper wire from the layout
(:mod:`tools.hardware.cutlist`), buttons, encoders and their series
resistors from the default pins of the tracks the layout has, and the
perfboard's parts from :mod:`tools.hardware.parts`. Prices are typical
single-quantity prices in US dollars (late 2025), for a budget, not a quote.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from tools.hardware.cutlist import jumpers, metres_to_buy, real_gaps
from tools.hardware.geometry import LayoutLike, board_geometry, injection_leds
from tools.hardware.parts import BUTTON_SERIES, LEVEL_SHIFTER, PROTECTION, Part

ENCODER_ROLES = ("encoder_a", "encoder_b", "encoder_push")
UART_ONLY = "UART link only"
OPTIONAL = "optional"


@dataclass(frozen=True, slots=True)
class Build:
    """What the quantities depend on: the layout and the pins of its tracks."""

    layout: LayoutLike
    pins: Mapping[str, Mapping[str, int | None]]

    def groups(self) -> list[str]:
        """The pin groups this build wires: shared, then one per track."""
        return ["shared", *(f"track{i + 1}" for i in range(len(self.layout.tracks)))]

    def buttons(self) -> int:
        """Push buttons: every wired pin that is not an encoder contact."""
        return sum(
            1
            for g in self.groups()
            for role, bcm in self.pins.get(g, {}).items()
            if bcm is not None and role not in ENCODER_ROLES
        )

    def encoders(self) -> int:
        """KY-040 modules: tracks with their encoder pins wired."""
        return sum(
            1 for g in self.groups() if any(self.pins.get(g, {}).get(r) for r in ENCODER_ROLES)
        )

    def lines(self) -> int:
        """Wired GPIO lines (each gets a series resistor)."""
        return sum(
            1 for g in self.groups() for bcm in self.pins.get(g, {}).values() if bcm is not None
        )

    def strip_metres(self) -> int:
        """1 m lengths of 144/m strip (the layout as it is)."""
        return metres_to_buy(board_geometry(self.layout))

    def gaps_strip_metres(self) -> int:
        """1 m lengths for the "real gaps" variant."""
        return metres_to_buy(board_geometry(real_gaps(self.layout)))

    def jumper_wire_m(self) -> float:
        """Metres of each of the jumpers' three wires, rounded up to 0.5 m."""
        total = sum(j.wire_mm for j in jumpers(board_geometry(self.layout))) / 1000
        return math.ceil(total * 2) / 2

    def feeds(self) -> int:
        """Power injection points (a 20 AWG pair of about 0.6 m each)."""
        return len(injection_leds(board_geometry(self.layout)))


@dataclass(frozen=True, slots=True)
class Item:
    """One line of the bill of materials."""

    group: str
    item: str
    part_number: str
    qty: Callable[[Build], float]
    unit_usd: float
    unit: str = ""  # "m" for lengths
    option: str = ""  # "" (always), OPTIONAL or UART_ONLY: not in the total


def _one(_build: Build) -> float:
    return 1


def _from_part(group: str, part: Part, *, qty: Callable[[Build], float] = _one,
               option: str = "") -> Item:  # fmt: skip
    return Item(group, f"{part.ref}: {part.value}", part.part_number, qty, part.unit_usd,
                option=option)  # fmt: skip


def _fuse_qty(_build: Build) -> float:
    return 3  # F1 and two spares


ITEMS: tuple[Item, ...] = (
    Item("computers", "Raspberry Pi Zero 2 W (or Zero 2 WH, header fitted)", "Raspberry Pi SC0510",
         _one, 15.0),
    Item("computers", "microSD card, 16 GB, A1", "SanDisk SDSQUA4-016G", _one, 6.0),
    Item("computers", "Raspberry Pi Pico (Pico H: headers fitted)", "Raspberry Pi SC0917",
         _one, 4.0),
    Item("computers", "USB cable micro-B OTG to micro-B, data", "(any data cable, 20-30 cm)",
         _one, 4.0),
    Item("LEDs", "WS2812B strip, 144 LEDs/m, 5 V, IP30, 1 m lengths",
         "BTF-LIGHTING WS2812B 144/m IP30 (or equivalent)", lambda b: b.strip_metres(), 12.0,
         "m"),
    Item("LEDs", "3-pin JST-SM pigtail pair (strip input)", "(usually supplied with the strip)",
         _one, 0.5),
    *(_from_part("perfboard: protection", p, qty=_fuse_qty if p.ref == "F1" else _one)
      for p in PROTECTION),
    Item("perfboard: protection", "TO-220 clip-on heatsink for SCR1, about 20 K/W",
         "Aavid 577202B00000G", _one, 1.0),
    *(_from_part("perfboard: data", p, option=UART_ONLY if p.ref == "D3" else "")
      for p in LEVEL_SHIFTER),
    Item("perfboard: data", "14-pin DIP socket for U2", "Mill-Max 110-43-314-41-001000",
         _one, 0.8),
    Item("perfboard: data", "perfboard 9 x 7 cm (30 x 24 holes), 0.1 in pitch",
         "(any FR4 perfboard)", _one, 1.0),
    Item("power", "Raspberry Pi 15 W USB-C power supply, 5.1 V 3 A",
         "Raspberry Pi 15W USB-C PSU (order code by plug type)", _one, 8.0),
    Item("power", "USB-C power-only receptacle, 5.1 kOhm on CC1/CC2, no PD",
         "(a USB-C sink breakout with the CC pull-downs)", _one, 2.0),
    Item("power", "5 x 20 mm fuse holder, panel mount", "(any, 10 A 250 V)", _one, 2.0),
    Item("power", "micro-USB plug pigtail (Pi PWR IN), 20-22 AWG", "(any)", _one, 2.0),
    Item("power", "lever connectors (the 5 V and GND distribution point)", "Wago 221-415",
         lambda _b: 4, 0.6),
    Item("power", "rocker switch, 6 A or more", "(any)", _one, 1.0, option=OPTIONAL),
    Item("power", "\"5 V DC ONLY\" label at the input", "(printed or engraved)", _one, 0.0),
    Item("inputs", "momentary push button, normally open (24 mm arcade or 16 mm metal)",
         "Sanwa OBSF-24 (or a 16 mm metal button with a ground lug)",
         lambda b: b.buttons(), 2.0),
    Item("inputs", "KY-040 rotary encoder module (with push switch)", "(KY-040 module)",
         lambda b: b.encoders(), 1.5),
    Item("inputs", f"{BUTTON_SERIES.ref}: {BUTTON_SERIES.value} in series with each line",
         BUTTON_SERIES.part_number, lambda b: b.lines(), BUTTON_SERIES.unit_usd),
    Item("inputs", "shutdown / wake button (GPIO3), 12 mm momentary", "(any, normally open)",
         _one, 1.0),
    Item("inputs", "female Dupont jumper wires, 20 cm, 40-way ribbon", "(any)", _one, 3.0),
    Item("wire", "22 AWG stranded, three colours (strip jumpers: 5 V, data, GND)",
         "Alpha Wire 3051 (or any 22 AWG stranded)", lambda b: 3 * b.jumper_wire_m(), 0.5,
         "m"),
    Item("wire", "20 AWG stranded pair (power injection feeds)", "(any 20 AWG stranded)",
         lambda b: 2 * math.ceil(0.6 * b.feeds()), 0.6, "m"),
    Item("wire", "18 AWG stranded pair (supply -> fuse -> distribution point)",
         "(any 18 AWG stranded)", lambda _b: 2, 0.8, "m"),
    Item("wire", "heat-shrink tubing assortment (every jumper and feed joint)", "(any 2:1 kit)",
         _one, 4.0),
    Item("woodwork", "top plate, 4 mm plywood or MDF, the board's size (woodwork/*-top.dxf)",
         "(any)", _one, 6.0),
    Item("woodwork", "base board, 18 mm plywood or MDF (woodwork/*-base*.dxf)", "(any)",
         _one, 10.0),
    Item("woodwork", "diffuser between strip and top plate: frosted film or thin white paper",
         "(any, the board's size)", _one, 3.0),
    Item("enclosure", "electronics box under the base board, 30 mm deep (the BAY layer)",
         "(any, or four strips of wood and a lid)", _one, 5.0),
    Item("enclosure", "M2.5 heat-set inserts for the bay's mounting holes", "(any M2.5 x 5 mm)",
         lambda _b: 4, 0.2),
    Item("enclosure", "M2.5 nylon standoffs 11 mm with screws (the Pi)", "(any M2.5 nylon kit)",
         lambda _b: 4, 0.3),
    Item("enclosure", "M2 nylon standoffs with screws (the Pico)", "(any M2 nylon kit)",
         lambda _b: 4, 0.3),
    Item("enclosure", "M3 nylon standoffs with screws (the perfboard)", "(any M3 nylon kit)",
         lambda _b: 4, 0.3),
    Item("enclosure", "cable gland PG7, for a supply lead through the box", "(any PG7 nylon)",
         _one, 1.0, option=OPTIONAL),
)  # fmt: skip


def _qty_text(qty: float, unit: str) -> str:
    text = f"{qty:g}"
    return f"{text} {unit}" if unit else text


def bom_table(build: Build) -> str:
    """The bill of materials of ``build`` as Markdown, with the cost estimate."""
    lines = [
        "| group | item | part number | qty | each (USD) | total (USD) |",
        "|---|---|---|---|---|---|",
    ]
    total = 0.0
    extra: dict[str, float] = {}
    for item in ITEMS:
        qty = item.qty(build)
        if qty == 0:
            continue
        cost = qty * item.unit_usd
        note = f" ({item.option})" if item.option else ""
        lines.append(
            f"| {item.group} | {item.item}{note} | {item.part_number} "
            f"| {_qty_text(qty, item.unit)} | {item.unit_usd:.2f} | {cost:.2f} |"
        )
        if item.option:
            extra[item.option] = extra.get(item.option, 0.0) + cost
        else:
            total += cost
    options = "; ".join(f"{name}: {cost:.2f}" for name, cost in extra.items())
    lines += [
        "",
        f"Estimated cost: **about {total:.0f} USD** (options not included: {options}). "
        "Typical single-quantity prices, late 2025; a budget, not a quote.",
    ]
    return "\n".join(lines) + "\n"


def total_usd(build: Build) -> float:
    """The estimated cost of ``build`` without the options."""
    return sum(item.qty(build) * item.unit_usd for item in ITEMS if not item.option)
