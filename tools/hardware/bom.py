"""The bill of materials of each build: parts, part numbers, quantities, a cost estimate.

Quantities come from the code: strip length and jumper wire from the layout
(:mod:`tools.hardware.cutlist`), buttons and encoders from the default pins of the
tracks the layout has, and the carrier board's parts from the parts its schematic is
generated from (:func:`tools.hardware.kicad.carrier.carrier_parts`), grouped by
manufacturer part number. Prices are typical single-quantity prices in US dollars
(late 2025), for a budget, not a quote.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from tools.hardware.cutlist import jumpers, metres_to_buy, real_gaps
from tools.hardware.geometry import LayoutLike, board_geometry, injection_leds
from tools.hardware.kicad.carrier import carrier_parts

ENCODER_ROLES = ("encoder_a", "encoder_b", "encoder_push")
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
    option: str = ""  # "" (always) or OPTIONAL: not in the total


def _one(_build: Build) -> float:
    return 1


#: A typical single-quantity price of each of the carrier's parts, by manufacturer part number.
CARRIER_PRICES_USD: dict[str, float] = {
    "Amphenol 68001-105HLF": 0.3,
    "Analog Devices LTC4365CTS8#TRMPBF": 5.0,
    "Bourns MF-RG300": 0.5,
    "GCT USB4125-GF-A": 0.9,
    "Infineon BSC028N06LS3G": 1.5,
    "JST B2B-XH-A": 0.15,
    "JST B3B-XH-A": 0.15,
    "JST B6B-XH-A": 0.25,
    "Littelfuse SMAJ6.0A": 0.3,
    "Murata GRM188R71H104KA93D": 0.05,
    "Nexperia PESD5V0S1BA": 0.1,
    "Omron B3F-1000": 0.3,
    "Panasonic EEU-FR1C102": 0.6,
    "Phoenix Contact 1935161": 0.8,
    "Phoenix Contact 1935174": 1.1,
    "Raspberry Pi SC0917": 5.0,
    "Samtec SSQ-120-03-T-D": 6.0,
    "Texas Instruments SN74AHCT1G125DBVR": 0.3,
    "onsemi 1N5817": 0.2,
    "onsemi MMBT3904LT1G": 0.05,
}
#: Every Yageo 0603 resistor.
RESISTOR_USD = 0.02


def carrier_items() -> tuple[Item, ...]:
    """One line per manufacturer part number of the carrier: its designators, how many."""
    refs: dict[str, list[str]] = {}
    values: dict[str, set[str]] = {}
    for part in carrier_parts():
        refs.setdefault(part.mpn, []).append(part.ref)
        values.setdefault(part.mpn, set()).add(part.value)
    count = Counter({mpn: len(r) for mpn, r in refs.items()})
    items = []
    for mpn in sorted(refs, key=lambda m: (sorted(refs[m])[0][0], m)):
        price = RESISTOR_USD if mpn.startswith("Yageo RC") else CARRIER_PRICES_USD[mpn]
        shown = ", ".join(sorted(refs[mpn], key=_ref_order))
        item = f"{shown}: {'; '.join(sorted(values[mpn]))}"
        items.append(Item("carrier", item, mpn, _fixed(count[mpn]), price))
    return tuple(items)


def _fixed(n: int) -> Callable[[Build], float]:
    """A quantity that does not depend on the build."""
    return lambda _build: n


def _ref_order(ref: str) -> tuple[str, int]:
    letters = ref.rstrip("0123456789")
    return letters, int(ref[len(letters) :] or 0)


ITEMS: tuple[Item, ...] = (
    Item("computers", "Raspberry Pi Zero 2 W (or Zero 2 WH, header fitted)", "Raspberry Pi SC0510",
         _one, 15.0),
    Item("computers", "microSD card, 16 GB, A1", "SanDisk SDSQUA4-016G", _one, 6.0),
    Item("computers", "USB cable micro-B OTG to micro-B, data (the USB link)",
         "(any data cable, 10-20 cm)", _one, 4.0),
    Item("LEDs", "WS2812B strip, 144 LEDs/m, 5 V, IP30, 1 m lengths",
         "BTF-LIGHTING WS2812B 144/m IP30 (or equivalent)", lambda b: b.strip_metres(), 12.0,
         "m"),
    Item("carrier", "carrier PCB, 2 layers, 90 x 60 mm, from kicad/fab/ (a fab's minimum order)",
         "(any PCB fab's standard 2-layer service)", _one, 10.0),
    *carrier_items(),
    Item("carrier", "JST XH crimp housings and contacts for J5 and the input connectors",
         "JST XHP-2/-3/-6 housings, SXH-001T-P0.6 contacts", _one, 3.0),
    Item("power", "Raspberry Pi 15 W USB-C power supply, 5.1 V 3 A",
         "Raspberry Pi 15W USB-C PSU (order code by plug type)", _one, 8.0),
    Item("power", "\"5 V DC ONLY\" label at the input", "(printed or engraved)", _one, 0.0),
    Item("inputs", "momentary push button, normally open (24 mm arcade or 16 mm metal)",
         "Sanwa OBSF-24 (or a 16 mm metal button with a ground lug)",
         lambda b: b.buttons(), 2.0),
    Item("inputs", "KY-040 rotary encoder module (with push switch)", "(KY-040 module)",
         lambda b: b.encoders(), 1.5),
    Item("wire", "22 AWG stranded, three colours (strip jumpers: 5 V, data, GND)",
         "Alpha Wire 3051 (or any 22 AWG stranded)", lambda b: 3 * b.jumper_wire_m(), 0.5,
         "m"),
    Item("wire", "20 AWG stranded pair (the strip's input and the power feeds)",
         "(any 20 AWG stranded)", lambda b: 2 * math.ceil(0.6 * b.feeds()), 0.6, "m"),
    Item("wire", "24-26 AWG stranded (buttons and encoders to the JST XH connectors)",
         "(any 24-26 AWG stranded)", lambda _b: 5, 0.3, "m"),
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
    Item("enclosure", "M2.5 nylon standoffs 11 mm with screws (Pi and carrier, stacked)",
         "(any M2.5 nylon kit)", lambda _b: 8, 0.3),
    Item("enclosure", "cable gland PG7, for the supply lead through the box", "(any PG7 nylon)",
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
