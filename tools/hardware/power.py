"""Power you can check: worst-case currents, drops, the protection's trip points, wrong supplies.

Every figure is the code's own (the host limiter of ``boardctl/board/power.py``, the
firmware's ``BUDGET_MA`` and ``LED_MA`` in ``firmware/config.py``, the feed and jumper
routes of :mod:`tools.hardware.routes`, the resistor values and parts of the carrier's
schematic in :mod:`tools.hardware.kicad.carrier`) or a datasheet's, named beside it in
:data:`DATASHEET`. The tables of ``hardware/power.md`` and the bring-up table of
``hardware/build.md`` are written from here, and a test fails when they drift.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from boardctl.board.layout import LAYOUT_NAMES, builtin_layout
from boardctl.board.power import MA_PER_LED_WHITE, PowerBudget
from boardctl.config import BoardConfig
from tools.hardware.cutlist import JUMPER_ALLOWANCE_MM, jumpers
from tools.hardware.geometry import board_geometry
from tools.hardware.kicad.carrier import GND, V5, VIN, Part, carrier_parts
from tools.hardware.pico import firmware_settings
from tools.hardware.routes import routes

DATASHEET = {
    "ltc4365": "Analog Devices LTC4365 datasheet: V_IN -40 V to 60 V, operating 2.5-34 V; "
    "UV and OV thresholds 0.5 V, 25 mV hysteresis (Figure 4); the 492-508 mV band is "
    "assumed from the sister LTC4368's table (492.5-507.5 mV), widened: check it",
    "fet": "Infineon BSC028N06LS3 G datasheet: V_DS 60 V, R_DS(on) 2.8 mOhm max at V_GS 10 V",
    "polyfuse": "Bourns MF-RG datasheet, MF-RG300: I_hold 3.0 A (2.6 A at 40 C), I_trip "
    "5.1 A, R1max 0.0975 Ohm, trips within 1.0 s at 15 A, V_max 16 V",
    "smaj": "Littelfuse SMAJ datasheet: SMAJ5.0A V_R 5.0 V, V_BR 6.40-7.00 V, V_C 9.2 V at "
    "43.5 A; SMAJ6.0A V_R 6.0 V, V_BR 6.67-7.37 V, V_C 10.3 V at 38.8 A; I_R 800 uA at V_R",
    "resistor": "Yageo RC0603 datasheet: RC0603FR- parts are 1 %",
    "1n5817": "onsemi 1N5817 datasheet: V_F 0.45 V max at 1 A",
    "usb": "USB Power Delivery 3.x, vSafe5V 4.75-5.5 V; USB Type-C 2.x: a sink with Rd "
    "(5.1 kOhm) on CC gets vSafe5V only, and the Rp current advertisement (0.9, 1.5, 3 A)",
    "ws2812b": "Worldsemi WS2812B datasheet: VDD 3.5-5.3 V",
    "pico": "Raspberry Pi Pico datasheet: VSYS 1.8-5.5 V",
    "ahct": "TI SN74AHCT1G125 datasheet: V_CC absolute maximum 7 V",
    "pi": "Raspberry Pi documentation: under-voltage flagged below about 4.63 V; GPIO "
    "V_IL 0.8 V max; GPIO2/3 have fixed 1.8 kOhm pull-ups",
}

#: Copper resistance per metre at 20 degrees C (ASTM B258 / the AWG table), in ohms.
OHMS_PER_M = {18: 0.02095, 20: 0.03331, 22: 0.05296}
#: The gauge of each run (hardware/parts.md, "Wire"): each feed from the carrier's
#: terminals (5 V and GND, the strip's input the same), and the strip's jumpers.
FEED_AWG, JUMPER_AWG = 20, 22
#: The Pi Zero 2 W's worst case (four busy cores and Wi-Fi), and the margin planned
#: for the supply's tolerance and the capacitor's inrush (boardctl/board/power.py).
PI_MA = 600
MARGIN_MA = 400
#: The lowest supply voltage a WS2812B is specified for and its highest; where a Pi
#: flags under-voltage; the Pico's highest VSYS; the shifter's absolute maximum.
WS2812B_VDD_V = (3.5, 5.3)
PI_UNDERVOLTAGE_V = 4.63
PICO_VSYS_MAX_V = 5.5
AHCT_VCC_MAX_V = 7.0
#: The Pi's 3.3 V rail, GPIO3's fixed pull-up and the highest voltage a GPIO reads as low.
PI_3V3 = 3.3
PI_GPIO_PULLUP_OHMS = 1800.0
PI_GPIO_VIL_V = 0.8
#: The reference supply (Raspberry Pi 15 W USB-C: 5.1 V), the lowest it may sag to at
#: 3 A (5 %), and the highest trim of the guide.
SUPPLY_NOMINAL_V = 5.1
SUPPLY_MIN_V = SUPPLY_NOMINAL_V * 0.95
SUPPLY_MAX_V = 5.2
#: USB Type-C without a Power Delivery contract: the source gives vSafe5V, never more.
VSAFE5V = (4.75, 5.5)

#: LTC4365: UV (falling) and OV (rising) thresholds, min / typical / max, and hysteresis.
LTC4365_THRESHOLD_V = (0.492, 0.500, 0.508)
LTC4365_HYSTERESIS_V = 0.025
LTC4365_VIN_V = (-40.0, 60.0)
LTC4365_OPERATING_V = (2.5, 34.0)
#: Every resistor of the carrier is a Yageo RC0603FR- (1 %).
RESISTOR_TOLERANCE = 0.01
#: The two MOSFETs: the datasheet's R_DS(on) at 10 V, and twice that as an allowance
#: for the lower gate drive the LTC4365 makes from a 5 V input (not a datasheet figure).
FET_RDS_ON_OHMS = 0.0028
FET_ALLOWANCE = 2.0
FET_VDS_V = 60.0
#: F1, Bourns MF-RG300.
F1_HOLD_A = 3.0
F1_HOLD_40C_A = 2.6
F1_TRIP_A = 5.1
F1_R1MAX_OHMS = 0.0975
F1_VMAX_V = 16.0
#: D2 (1N5817) feeding the Pico's VSYS.
D2_VF_MAX_V = 0.45


@dataclass(frozen=True, slots=True)
class Tvs:
    """A unidirectional SMAJ TVS: stand-off, breakdown range, clamping at its peak current."""

    standoff_v: float
    breakdown_v: tuple[float, float]
    clamp_v: float
    peak_a: float
    leakage_ua: float


SMAJ = {
    "SMAJ5.0A": Tvs(5.0, (6.40, 7.00), 9.2, 43.5, 800),
    "SMAJ6.0A": Tvs(6.0, (6.67, 7.37), 10.3, 38.8, 800),
}


# --- the schematic's parts ---------------------------------------------------------------


@cache
def _parts() -> dict[str, Part]:
    return {p.ref: p for p in carrier_parts()}


_VALUE = re.compile(r"([\d.]+)([kM]?)")


def ohms(value: str) -> float:
    """A schematic value such as ``34.8k 1%``, ``1M`` or ``220``, in ohms."""
    found = _VALUE.match(value)
    if found is None:
        raise ValueError(f"not a resistance: {value!r}")
    return float(found[1]) * {"": 1.0, "k": 1e3, "M": 1e6}[found[2]]


def resistor_between(a: str, b: str) -> Part:
    """The schematic's one resistor joining nets ``a`` and ``b``."""
    (found,) = [
        p for p in _parts().values() if p.lib == "Device:R" and set(p.nets.values()) == {a, b}
    ]
    return found


def divider_ohms() -> tuple[float, float, float]:
    """The LTC4365's divider: VIN to UV, UV to OV, OV to GND."""
    return (
        ohms(resistor_between(VIN, "UV").value),
        ohms(resistor_between("UV", "OV").value),
        ohms(resistor_between("OV", GND).value),
    )


def tvs() -> tuple[str, Tvs]:
    """The TVS across the protected rail, as the schematic names it."""
    (part,) = [p for p in _parts().values() if set(p.nets.values()) == {V5, GND} and
               p.lib == "Device:D_Zener"]  # fmt: skip
    return part.value, SMAJ[part.value]


# --- the LTC4365's trip points -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Trip:
    """One trip point of the input: lowest, nominal and highest over every tolerance."""

    low: float
    nominal: float
    high: float


def _ratio(upper: float, lower: float, sign: int) -> float:
    """(upper + lower) / lower with both resistances at their tolerance; ``sign`` +1 makes
    the ratio its highest."""
    up = upper * (1 + sign * RESISTOR_TOLERANCE)
    down = lower * (1 - sign * RESISTOR_TOLERANCE)
    return (up + down) / down


def over_voltage() -> Trip:
    """Above this input the LTC4365 opens the MOSFETs: V_OV x (top + mid + bottom) / bottom."""
    top, mid, bottom = divider_ohms()
    low, typ, high = LTC4365_THRESHOLD_V
    return Trip(low * _ratio(top + mid, bottom, -1), typ * _ratio(top + mid, bottom, 0),
                high * _ratio(top + mid, bottom, 1))  # fmt: skip


def under_voltage() -> Trip:
    """Below this input the LTC4365 opens them: V_UV x (top + mid + bottom) / (mid + bottom)."""
    top, mid, bottom = divider_ohms()
    low, typ, high = LTC4365_THRESHOLD_V
    return Trip(low * _ratio(top, mid + bottom, -1), typ * _ratio(top, mid + bottom, 0),
                high * _ratio(top, mid + bottom, 1))  # fmt: skip


def over_voltage_release() -> float:
    """The nominal input where an over-voltage fault clears (the threshold less its hysteresis)."""
    top, mid, bottom = divider_ohms()
    return (LTC4365_THRESHOLD_V[1] - LTC4365_HYSTERESIS_V) * _ratio(top + mid, bottom, 0)


def pin_volts(vin: float) -> tuple[float, float]:
    """What the UV and OV pins read at input ``vin`` (nominal resistors)."""
    top, mid, bottom = divider_ohms()
    total = top + mid + bottom
    return vin * (mid + bottom) / total, vin * bottom / total


# --- currents and drops --------------------------------------------------------------------


def strip_budget_ma() -> float:
    """The LED side's cap: the lower of the host's default budget and the firmware's."""
    host = float(BoardConfig().power_budget_ma)
    firmware = firmware_settings()["BUDGET_MA"]
    assert isinstance(firmware, int)
    return min(host, float(firmware))


def supply_ma() -> float:
    """The worst case the supply delivers: the LED side's cap plus the Pi."""
    return strip_budget_ma() + PI_MA


def pair_drop_v(length_m: float, awg: int, amps: float) -> float:
    """The voltage lost in a pair (5 V out, GND back) of ``length_m`` metres."""
    return 2 * length_m * OHMS_PER_M[awg] * amps


def carrier_drop_v(amps: float) -> float:
    """The input's loss on the carrier: two MOSFETs (with the allowance) and F1 at R1max."""
    return amps * (2 * FET_RDS_ON_OHMS * FET_ALLOWANCE + F1_R1MAX_OHMS)


def pi_rail_v() -> float:
    """The Pi's 5 V at the worst case: the sagging supply less the carrier's loss
    (the Pi takes its 5 V from the carrier's rail, through the header)."""
    return SUPPLY_MIN_V - carrier_drop_v(supply_ma() / 1000)


@dataclass(frozen=True, slots=True)
class LayoutPower:
    """A layout's worst case at the limiter's budget."""

    name: str
    leds: int
    unlimited_ma: float  # every LED full white with no limiter
    feeds: tuple[tuple[int, float], ...]  # (LED, wire length m) per injection feed
    longest_jumper_m: float

    def feed_drop_v(self, length_m: float) -> float:
        """One feed carrying the LED side's whole budget (all the lit LEDs behind one feed)."""
        return pair_drop_v(length_m, FEED_AWG, strip_budget_ma() / 1000)

    @property
    def jumper_drop_v(self) -> float:
        """The longest jumper carrying the whole budget (a lit stretch fed only through it)."""
        return pair_drop_v(self.longest_jumper_m, JUMPER_AWG, strip_budget_ma() / 1000)

    @property
    def worst_led_v(self) -> float:
        """The lowest voltage an LED can see: the rail at the worst case less every drop."""
        worst_feed = max(self.feed_drop_v(m) for _, m in self.feeds)
        return pi_rail_v() - worst_feed - self.jumper_drop_v


def layout_power(name: str) -> LayoutPower:
    layout = builtin_layout(name)
    geo = board_geometry(layout)
    budget = PowerBudget()
    feeds = tuple(
        (r.to_led, (r.length_mm + JUMPER_ALLOWANCE_MM) / 1000)
        for r in routes(geo)
        if r.kind == "feed"
    )
    longest = max(j.wire_mm for j in jumpers(geo)) / 1000
    unlimited = budget.fixed_ma(layout.led_count) + MA_PER_LED_WHITE * layout.led_count
    return LayoutPower(name, layout.led_count, unlimited, feeds, longest)


def layouts_table() -> str:
    """Per layout: currents, wires and drops at the limiter's budget."""
    firmware = firmware_settings()
    amps = supply_ma() / 1000
    ohms_text = ", ".join(f"{g} AWG {o * 1000:.1f}" for g, o in OHMS_PER_M.items() if g != 18)
    lines = [
        f"The LED side is capped at **{strip_budget_ma():,.0f} mA** (the lower of "
        f"`[board] power_budget_ma = {BoardConfig().power_budget_ma}` and the firmware's "
        f"`BUDGET_MA = {firmware['BUDGET_MA']}`, both planned on "
        f"`LED_MA = {firmware['LED_MA']}` mA per LED at full white), the Pi Zero 2 W takes up to "
        f"{PI_MA} mA, so the supply delivers at most **{amps:.1f} A**. On the carrier that "
        f"current crosses the two MOSFETs ({FET_RDS_ON_OHMS * 1000:.1f} mOhm each, counted "
        f"x{FET_ALLOWANCE:g} for the low gate drive) and F1 (MF-RG300, "
        f"{F1_R1MAX_OHMS * 1000:.1f} mOhm after a trip): **{carrier_drop_v(amps):.2f} V**, so "
        f"from a supply sagging to {SUPPLY_MIN_V:.2f} V (5.1 V - 5 %) the rail, and the Pi on "
        f"it, sees **{pi_rail_v():.2f} V** (the Pi flags under-voltage below "
        f"{PI_UNDERVOLTAGE_V} V). Drops in the wires are for both conductors of a pair, copper "
        f"at 20 C ({ohms_text} mOhm/m); each feed and the longest jumper are taken to carry the "
        "whole budget (every lit LED behind that one wire), a worst case no game reaches.",
        "",
        "| layout | LEDs | full white, no limiter | supply worst case | feeds "
        f"({FEED_AWG} AWG pair from the carrier's terminals, along the grooves) "
        f"| longest jumper ({JUMPER_AWG} AWG) | lowest LED supply |",
        "|---|---|---|---|---|---|---|",
    ]
    for name in LAYOUT_NAMES:
        p = layout_power(name)
        feeds = "; ".join(
            f"LED {led}: {m * 1000:.0f} mm, {p.feed_drop_v(m):.2f} V" for led, m in p.feeds
        )
        lines.append(
            f"| `{name}` | {p.leds} | {p.unlimited_ma / 1000:.1f} A | "
            f"{amps:.1f} A, {carrier_drop_v(amps):.2f} V on the carrier | {feeds} | "
            f"{p.longest_jumper_m * 1000:.0f} mm, {p.jumper_drop_v:.2f} V | "
            f"{p.worst_led_v:.2f} V (WS2812B minimum {WS2812B_VDD_V[0]} V) |"
        )
    return "\n".join(lines) + "\n"


# --- the protection ------------------------------------------------------------------------


def protection_table() -> str:
    """Trip points, margins, and what each wrong supply does, with the figure it rests on."""
    ov, uv = over_voltage(), under_voltage()
    top, mid, bottom = divider_ohms()
    name, t = tvs()
    amps = supply_ma() / 1000
    divider = f"{top / 1e3:g}k / {mid / 1e3:g}k / {bottom / 1e3:g}k"
    rows = [
        (
            "over-voltage trip (the output opens above)",
            f"{ov.nominal:.2f} V nominal, {ov.low:.2f}-{ov.high:.2f} V; closes again below "
            f"{over_voltage_release():.2f} V",
            f"{DATASHEET['ltc4365']}; the divider {divider} at 1 % ({DATASHEET['resistor']})",
        ),
        (
            "under-voltage trip (the output opens below)",
            f"{uv.nominal:.2f} V nominal, {uv.low:.2f}-{uv.high:.2f} V",
            "the same",
        ),
        (
            "margin to the 5.2 V trim",
            f"{ov.low - SUPPLY_MAX_V:.2f} V at the lowest trip point, "
            f"{ov.nominal - SUPPLY_MAX_V:.2f} V nominal; a trip opens the output and it closes "
            "again by itself, nothing latches",
            DATASHEET["ltc4365"],
        ),
        (
            "margin to vSafe5V's top (5.5 V)",
            f"{ov.low - VSAFE5V[1]:+.2f} V at the lowest trip point, "
            f"{ov.nominal - VSAFE5V[1]:+.2f} V nominal; the under-voltage trip sits "
            f"{VSAFE5V[0] - uv.high:.2f} V below vSafe5V's bottom at its highest",
            DATASHEET["usb"],
        ),
        (
            "F1 carries / trips",
            f"{F1_HOLD_A:g} A ({F1_HOLD_40C_A:g} A in a 40 C bay; the worst case is {amps:.1f} A) "
            f"/ {F1_TRIP_A:g} A; it resets when the fault is gone",
            DATASHEET["polyfuse"],
        ),
        (
            f"D1, {name}",
            f"stand-off {t.standoff_v:g} V (above the highest trip point, {ov.high:.2f} V), "
            f"breakdown {t.breakdown_v[0]:.2f}-{t.breakdown_v[1]:.2f} V, "
            f"{t.clamp_v:g} V at {t.peak_a:g} A",
            DATASHEET["smaj"],
        ),
    ]
    lines = ["| figure | value | rests on |", "|---|---|---|"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    lines += [
        "",
        "| supply at J1 | what happens | rests on |",
        "|---|---|---|",
        f"| a USB-C charger, any wattage, no Power Delivery contract | it gives vSafe5V "
        f"({VSAFE5V[0]}-{VSAFE5V[1]} V): the output passes from {uv.high:.2f} V up to the "
        f"over-voltage trip ({ov.low:.2f} V at the worst tolerances, {ov.nominal:.2f} V "
        f"nominal) | {DATASHEET['usb']} |",
        f"| 9 V, 12 V or 20 V (a charger that ignores the CC pins, a bench supply, a wrongly "
        f"wired lead) | the LTC4365 opens both MOSFETs by {ov.high:.2f} V and keeps them open "
        f"for as long as it lasts; nothing after them sees it, F1 and D1 included, and nothing "
        f"is replaced | {DATASHEET['ltc4365']}; {DATASHEET['fet']} |",
        f"| up to {LTC4365_VIN_V[1]:g} V | the same: the LTC4365 stands {LTC4365_VIN_V[1]:g} V "
        f"(it operates to {LTC4365_OPERATING_V[1]:g} V) and the MOSFETs {FET_VDS_V:g} V | "
        f"{DATASHEET['ltc4365']}; {DATASHEET['fet']} |",
        f"| reversed, down to {LTC4365_VIN_V[0]:g} V (a bench supply or a lead wired "
        f"backwards; a USB-C plug cannot be reversed) | the LTC4365 ties the gates to the "
        f"negative input: the second MOSFET's body diode blocks, the output stays at 0 V | "
        f"{DATASHEET['ltc4365']}; {DATASHEET['fet']} |",
        f"| a short on the strip's wiring | F1 trips (over {F1_TRIP_A:g} A; within 1 s at 15 A) "
        f"unless the charger limits its current first, and resets when the short is gone | "
        f"{DATASHEET['polyfuse']} |",
        f"| beyond {LTC4365_VIN_V[1]:g} V or {LTC4365_VIN_V[0]:g} V | not covered: the "
        f"LTC4365's and the MOSFETs' ratings | {DATASHEET['ltc4365']} |",
    ]
    return "\n".join(lines) + "\n"


def tvs_table() -> str:
    """Why D1 is the SMAJ it is: both candidates against the rails the board may see."""
    ov = over_voltage()
    lines = [
        "| TVS | stand-off | above vSafe5V's top (5.5 V)? | above the highest trip point "
        f"({ov.high:.2f} V)? | breakdown | clamping at its peak current |",
        "|---|---|---|---|---|---|",
    ]
    for name, t in SMAJ.items():
        lines.append(
            f"| {name} | {t.standoff_v:g} V | {'yes' if t.standoff_v > VSAFE5V[1] else '**no**'} "
            f"| {'yes' if t.standoff_v > ov.high else '**no**'} "
            f"| {t.breakdown_v[0]:.2f}-{t.breakdown_v[1]:.2f} V "
            f"| {t.clamp_v:g} V at {t.peak_a:g} A |"
        )
    return "\n".join(lines) + "\n"


# --- chargers ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Charger:
    """A USB-C charger class, by what its label says at 5 V."""

    label: str
    amps: float
    example: str


CHARGERS = (
    Charger("5.1 V 5 A", 5.0, "the Raspberry Pi 27 W USB-C power supply"),
    Charger("5.1 V 3 A", 3.0, "the Raspberry Pi 15 W USB-C power supply"),
    Charger("5 V 3 A", 3.0, "most 20-65 W USB-C PD chargers (their 5 V row)"),
    Charger("5 V 2 A", 2.0, "small phone chargers"),
    Charger("5 V 1.5 A", 1.5, "a USB-C port advertising 1.5 A; old tablet chargers"),
    Charger("5 V 0.9 A or less", 0.9, "a computer's USB port, a USB-A to USB-C cable"),
)


def budget_for(amps: float) -> int:
    """The largest ``power_budget_ma`` a charger of ``amps`` carries with the Pi and the
    margin, and F1 in a warm bay too."""
    charger = amps * 1000 - PI_MA - MARGIN_MA
    fuse = F1_HOLD_40C_A * 1000 - PI_MA
    return max(0, int(min(charger, fuse)))


def chargers_table() -> str:
    """Which USB-C chargers work with the default budget, and what budget fits the others."""
    need = supply_ma() / 1000
    largest = max(builtin_layout(name).led_count for name in LAYOUT_NAMES)
    idle_ma = PowerBudget().fixed_ma(largest)
    lines = [
        f"The board needs **{need:.1f} A at 5 V** with the default budget "
        f"({strip_budget_ma():,.0f} mA for the LEDs, {PI_MA} mA for the Pi) plus "
        f"{MARGIN_MA} mA of margin: read the charger's label for the **5 V** row, not its watts. "
        f"F1 carries {F1_HOLD_40C_A:g} A in a 40 C bay, so no charger lifts the budget past "
        f"{budget_for(100.0)} mA.",
        "",
        "| charger's 5 V row | e.g. | with the default budget | `power_budget_ma` that fits |",
        "|---|---|---|---|",
    ]
    for c in CHARGERS:
        fits = c.amps * 1000 >= supply_ma() + MARGIN_MA
        verdict = "works" if fits else "**overloaded**: sags, the Pi reboots"
        budget = budget_for(c.amps)
        fit = f"{budget}" if budget > idle_ma else "none: less than the dark LEDs draw"
        lines.append(f"| {c.label} | {c.example} | {verdict} | {fit} |")
    return "\n".join(lines) + "\n"


# --- bring-up ------------------------------------------------------------------------------


def bringup_table() -> str:
    """What a meter should read at each bring-up step of the build guide, per layout."""
    budget = PowerBudget()
    uv_pin, ov_pin = pin_volts(SUPPLY_NOMINAL_V)
    uv, ov = under_voltage(), over_voltage()
    lines = [
        "| step | where | expect | if not |",
        "|---|---|---|---|",
        "| 1. nothing plugged in | J3 **+5V** to **GND**, ohmmeter | climbs from a few ohms to "
        "over 1 kOhm (C1 charging) | stays under 10 ohm: D1 or C1 in backwards, or a solder "
        "bridge; fix before any power |",
        f"| 2. the USB-C supply in, no Pi, no Pico, no strip | U1 pin 2 (UV), pin 3 (OV), "
        f"J3 +5V, each to GND | {uv_pin:.2f} V (over 0.5 V), {ov_pin:.2f} V (under 0.5 V), "
        f"{SUPPLY_NOMINAL_V} V (the official supply; {SUPPLY_MIN_V:.2f}-{SUPPLY_MAX_V} V is fine) "
        f"| +5V at 0 V with the pins as expected: Q1/Q2 or U1 (pin 5, SHDN, must read the "
        f"supply's voltage); the pins off: the divider's resistors (1M, 34.8k, 100k from the "
        f"input down) swapped; the input must be inside {uv.high:.2f}-{ov.low:.2f} V |",
        f"| 3. the same | D2's cathode (the Pico's VSYS, pin 39) | a little under +5V "
        f"(D2 drops at most {D2_VF_MAX_V} V) | 0 V: D2 in backwards (band towards the Pico) |",
        "| 4. the Pico fitted, not running (BOOTSEL held) | J2 **DIN** to GND | 0 V (R8 holds "
        "the shifter's input low) | a few volts: R8 missing, or U2 turned |",
    ]
    for name in LAYOUT_NAMES:
        leds = builtin_layout(name).led_count
        lines.append(
            f"| 5. `{name}` strip connected, all dark | LED side current (a USB-C power meter, "
            f"less the Pi's 0.1-0.6 A) | about {budget.fixed_ma(leds):.0f} mA "
            f"({budget.controller_ma:g} mA Pico + {budget.idle_ma_per_led:g} mA x {leds} dark "
            f"LEDs) | much more, with LEDs lit or warm: a wrong piece's 5 V and GND swapped: "
            "unplug at once |"
        )
    lines += [
        f"| 6. any frame, any brightness | LED side current | never over "
        f"{strip_budget_ma():,.0f} mA: the limiters cap it | over it: the firmware is not "
        "the project's (`boardctl selftest` names its version) |",
        "| 7. the self-test running | DIN pad of LED 0 to GND | a scope: 800 kHz bursts, 0 to "
        "the rail's voltage; a meter: a small DC reading that moves as LEDs change | 0 V for "
        "ever: the DIN wire or R7; 3.3 V swings: U2 bypassed |",
    ]
    return "\n".join(lines) + "\n"
