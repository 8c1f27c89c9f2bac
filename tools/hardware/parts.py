"""The parts of the circuits on the perfboard, by reference designator.

One table for every part that has a designator on the schematic: the
schematic (:mod:`tools.hardware.schematic`), the perfboard layout and the
parts list of the build guide are written from it, so a value or a part
number is written once.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Part:
    """One part on the schematic."""

    ref: str  # reference designator: F1, D1, U2, ...
    value: str  # what it is, as printed on the schematic
    part_number: str  # a real part to order (manufacturer's number)
    why: str  # its job, for the parts list
    unit_usd: float  # a typical single-quantity price, for the cost estimate


#: Input protection after the fuse: an over-voltage crowbar and a reverse-polarity
#: clamp (see hardware/power.md, "Protection after the fuse").
PROTECTION: tuple[Part, ...] = (
    Part(
        "F1",
        "fuse 4 A fast, 5 x 20 mm (5 A for a 4 A supply)",
        "Littelfuse 0217004.HXP (0217005.HXP for 5 A)",
        "opens when the crowbar or the clamp shorts the input, and on a short in the wiring",
        0.5,
    ),
    Part(
        "D1",
        "TVS 6.8 V, 1500 W, unidirectional",
        "Littelfuse 1.5KE6.8A (Vishay 1.5KE6V8A)",
        "clamps fast spikes above about 6.5 V; conducts forwards if the input is reversed",
        0.6,
    ),
    Part(
        "D2",
        "Schottky 3 A 40 V",
        "1N5822 (onsemi, Vishay)",
        "reverse-polarity clamp: holds a reversed input at under 1 V until F1 opens",
        0.3,
    ),
    Part(
        "SCR1",
        "SCR 12 A, TO-220",
        "WeEn BT151-500R",
        "the crowbar: shorts +5 V to GND above the trip voltage, so F1 opens",
        0.8,
    ),
    Part(
        "U1",
        "TL431A shunt reference, TO-92",
        "Texas Instruments TL431ACLP",
        "compares the input with 2.495 V (1 %) through R1/R2: the trip point",
        0.4,
    ),
    Part(
        "Q1",
        "PNP transistor, TO-92",
        "BC557B (onsemi, Diotec)",
        "turned on by U1, drives about 40 mA into the SCR's gate",
        0.1,
    ),
    Part("R1", "12.4 kOhm 1 %", "Yageo MFR-25FBF52-12K4", "trip divider, top", 0.1),
    Part("R2", "10 kOhm 1 %", "Yageo MFR-25FBF52-10K", "trip divider, bottom", 0.1),
    Part("R3", "1 kOhm", "Yageo CFR-25JB-52-1K", "Q1 base current from U1", 0.05),
    Part("R4", "10 kOhm", "Yageo CFR-25JB-52-10K", "holds Q1 off below the trip point", 0.05),
    Part("R5", "100 Ohm", "Yageo CFR-25JB-52-100R", "limits the SCR's gate current", 0.05),
    Part("R6", "1 kOhm", "Yageo CFR-25JB-52-1K", "SCR gate to cathode: no false firing", 0.05),
    Part("C1", "10 nF ceramic", "KEMET C315C103K5R5TA", "filters the divider (about 55 us)", 0.2),
)

#: The level shifter between the Pico and the strip, its decoupling, the
#: strip's capacitor, and the UART option's diode.
LEVEL_SHIFTER: tuple[Part, ...] = (
    Part(
        "U2",
        "74AHCT125 quad buffer, DIP-14",
        "Texas Instruments SN74AHCT125N",
        "lifts the Pico's 3.3 V data to 5 V (TTL inputs: V_IH 2.0 V)",
        0.6,
    ),
    Part("C3", "100 nF ceramic", "KEMET C320C104K5R5TA", "U2's decoupling, pins 14-7", 0.2),
    Part(
        "R7",
        "330 Ohm",
        "Yageo CFR-25JB-52-330R",
        "in series with the strip's DIN: damps ringing, limits current into an unpowered strip",
        0.05,
    ),
    Part(
        "R8",
        "10 kOhm",
        "Yageo CFR-25JB-52-10K",
        "pull-down on U2's input: the strip stays dark while the Pico is unplugged or booting",
        0.05,
    ),
    Part(
        "C2",
        "1000 uF 16 V electrolytic",
        "Panasonic EEU-FR1C102",
        "across the strip's supply where it enters: inrush and current steps",
        0.6,
    ),
    Part(
        "D3",
        "Schottky 1 A 20 V",
        "1N5817 (onsemi, Vishay)",
        "UART link only: +5 V into the Pico's VSYS, so USB never back-feeds the supply",
        0.15,
    ),
)

#: Per wired button or encoder contact (off the perfboard, at the Pi's header).
BUTTON_SERIES = Part(
    "RB",
    "1 kOhm",
    "Yageo CFR-25JB-52-1K",
    "in series with each button and encoder line: limits the current of a static discharge",
    0.05,
)

#: The supply's highest trimmed voltage, and the ripple on top of it.
SUPPLY_MAX_V = 5.2
SUPPLY_RIPPLE_V = 0.1
#: D1's lowest breakdown voltage (1.5KE6.8A: 6.45 V): the crowbar fires below it,
#: so the TVS only ever takes the fast spikes.
TVS_BREAKDOWN_MIN_V = 6.45

#: U1's reference voltage (TL431A, 25 degrees C) and the divider R1/R2.
TL431_VREF = 2.495
TRIP_DIVIDER_OHMS = (12_400.0, 10_000.0)
#: The trip point's tolerances: the TL431A's initial 1 %, its drift over 0-70 C
#: (V_I(dev), at most 17 mV) and both divider resistors' 1 %.
TL431_TOLERANCE = 0.01
TL431_DRIFT_V = 0.017
RESISTOR_TOLERANCE = 0.01


def trip_voltage() -> float:
    """The crowbar's nominal trip voltage: Vref x (1 + R1 / R2)."""
    top, bottom = TRIP_DIVIDER_OHMS
    return TL431_VREF * (1 + top / bottom)


def trip_range() -> tuple[float, float]:
    """The lowest and highest trip voltage, every tolerance at its worst."""
    top, bottom = TRIP_DIVIDER_OHMS
    ends = []
    for sign in (-1, 1):
        vref = TL431_VREF * (1 + sign * TL431_TOLERANCE) + sign * TL431_DRIFT_V
        ratio = top * (1 + sign * RESISTOR_TOLERANCE) / (bottom * (1 - sign * RESISTOR_TOLERANCE))
        ends.append(vref * (1 + ratio))
    return ends[0], ends[1]


def parts_table(parts: tuple[Part, ...]) -> str:
    """A Markdown table of ``parts``: designator, value, part number, job."""
    lines = ["| ref | part | part number | job |", "|---|---|---|---|"]
    for part in parts:
        lines.append(f"| {part.ref} | {part.value} | {part.part_number} | {part.why} |")
    return "\n".join(lines) + "\n"
