"""Power you can check: worst-case currents, wire drops, trip points and wrong supplies.

Every figure is either the code's own (the host limiter of
``boardctl/board/power.py``, the firmware's ``BUDGET_MA`` and ``LED_MA`` in
``firmware/config.py``, the feed and jumper routes of
:mod:`tools.hardware.routes`) or a datasheet's, named beside it in
:data:`DATASHEET`. The tables of ``hardware/power.md`` are written from here and a
test fails when they drift.
"""

from __future__ import annotations

from dataclasses import dataclass

from boardctl.board.layout import LAYOUT_NAMES, builtin_layout
from boardctl.board.power import MA_PER_LED_WHITE, PowerBudget
from boardctl.config import BoardConfig
from tools.hardware.cutlist import JUMPER_ALLOWANCE_MM, jumpers
from tools.hardware.geometry import board_geometry
from tools.hardware.parts import SUPPLY_MAX_V, SUPPLY_RIPPLE_V, trip_range
from tools.hardware.pico import firmware_settings
from tools.hardware.routes import routes

#: Copper resistance per metre at 20 degrees C (ASTM B258 / the AWG table), in ohms.
OHMS_PER_M = {18: 0.02095, 20: 0.03331, 22: 0.05296}
#: The gauge of each run (hardware/parts.md, "Wire"): the supply to the buses, each
#: injection feed (5 V and GND), and the strip's jumpers.
SUPPLY_AWG, FEED_AWG, JUMPER_AWG = 18, 20, 22
#: The supply lead from the input to the distribution point (in the bay), each way.
SUPPLY_LEAD_M = 0.3
#: The Pi Zero 2 W's worst case (four busy cores and Wi-Fi), and the margin planned
#: for the supply's tolerance and the capacitor's inrush (boardctl/board/power.py).
PI_MA = 600
MARGIN_MA = 400
#: The fuse's cold resistance (Littelfuse 0217004.HXP, 217 series: about 20 mOhm).
FUSE_OHMS = 0.020
FUSE_RATING_A = 4.0
#: IEC 60127-2 sheet 1 (F, fast-acting 5 x 20 mm): carries 1.5 x In for at least an
#: hour; opens within 30 minutes at 2.1 x In.
FUSE_HOLDS_X, FUSE_OPENS_X = 1.5, 2.1
#: The lowest supply voltage a WS2812B is specified for, and where a Pi Zero 2 W
#: flags under-voltage.
WS2812B_VDD_MIN_V = 3.5
PI_UNDERVOLTAGE_V = 4.65
#: The reference supply (Raspberry Pi 15 W USB-C: 5.1 V) and the lowest it may sag
#: to at 3 A (its 5 % tolerance).
SUPPLY_NOMINAL_V = 5.1
SUPPLY_MIN_V = 5.1 * 0.95
#: The crowbar's SCR (WeEn BT151-500R): on-state voltage at 5 A (figure 'on-state
#: characteristics', typical), junction limit, junction to mounting base; its
#: 20 K/W clip heatsink; the air in a closed bay.
SCR_ON_V = 1.2
SCR_TJ_MAX_C = 125.0
SCR_RTH_JMB = 1.3
HEATSINK_RTH = 20.0 + 0.5  # the clip, and the insulating pad under the tab
BAY_AIR_C = 40.0
#: The reverse clamp D2 (1N5822): its average forward current rating (3 A at a 95 C
#: lead temperature).
D2_RATED_A = 3.0
#: USB Type-C, a sink with 5.1 kOhm on CC and no Power Delivery: the source gives
#: vSafe5V, 4.75-5.5 V, and never more (USB PD 3.x, table 7-22).
VSAFE5V = (4.75, 5.5)

DATASHEET = {
    "fuse": "IEC 60127-2 sheet 1, F type; Littelfuse 217 series datasheet",
    "scr": "WeEn BT151-500R datasheet: V_T, T_j max 125 C, R_th(j-mb) 1.3 K/W",
    "d2": "onsemi 1N5820-22 datasheet: I_F(AV) 3 A",
    "tvs": "Littelfuse 1.5KE datasheet: 1.5KE6.8A V_BR 6.45-7.14 V",
    "tl431": "TI TL431A datasheet: V_ref 2.495 V +-1 % (2.470-2.520 V)",
    "usb": "USB Power Delivery 3.x, vSafe5V 4.75-5.5 V; USB Type-C 2.x, Rp current advertisement",
    "ws2812b": "Worldsemi WS2812B datasheet: VDD 3.5-5.3 V",
    "pico": "Raspberry Pi Pico datasheet: VSYS 1.8-5.5 V",
}


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


@dataclass(frozen=True, slots=True)
class LayoutPower:
    """A layout's worst case at the limiter's budget."""

    name: str
    leds: int
    unlimited_ma: float  # every LED full white with no limiter
    feeds: tuple[tuple[int, float], ...]  # (LED, wire length m) per injection feed
    longest_jumper_m: float

    @property
    def supply_drop_v(self) -> float:
        """Fuse and supply lead at the supply's worst case."""
        amps = supply_ma() / 1000
        return amps * FUSE_OHMS + pair_drop_v(SUPPLY_LEAD_M, SUPPLY_AWG, amps)

    def feed_drop_v(self, length_m: float) -> float:
        """One feed carrying the LED side's whole budget (all the lit LEDs behind one feed)."""
        return pair_drop_v(length_m, FEED_AWG, strip_budget_ma() / 1000)

    @property
    def jumper_drop_v(self) -> float:
        """The longest jumper carrying the whole budget (a lit stretch fed only through it)."""
        return pair_drop_v(self.longest_jumper_m, JUMPER_AWG, strip_budget_ma() / 1000)

    @property
    def worst_led_v(self) -> float:
        """The lowest voltage an LED can see: the sagging supply less every drop on the way."""
        worst_feed = max(self.feed_drop_v(m) for _, m in self.feeds)
        return SUPPLY_MIN_V - self.supply_drop_v - worst_feed - self.jumper_drop_v


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
    lines = [
        f"The LED side is capped at **{strip_budget_ma():,.0f} mA** (the lower of "
        f"`[board] power_budget_ma = {BoardConfig().power_budget_ma}` and the firmware's "
        f"`BUDGET_MA = {firmware['BUDGET_MA']}`, both planned on "
        f"`LED_MA = {firmware['LED_MA']}` mA per LED at full white), the Pi Zero 2 W takes up to "
        f"{PI_MA} mA, so the supply delivers at most **{supply_ma() / 1000:.1f} A**. Drops are "
        f"for both conductors of a pair, copper at 20 C ({', '.join(f'{g} AWG {o * 1000:.1f}' for g, o in OHMS_PER_M.items())} mOhm/m), "  # noqa: E501
        f"from a supply sagging to {SUPPLY_MIN_V:.2f} V (5.1 V - 5 %), through the fuse "
        f"({FUSE_OHMS * 1000:.0f} mOhm) and {SUPPLY_LEAD_M * 100:.0f} cm of {SUPPLY_AWG} AWG "
        "lead; each feed and the longest jumper are taken to carry the whole budget (every lit "
        "LED behind that one wire), a worst case no game reaches.",
        "",
        "| layout | LEDs | full white, no limiter | supply worst case | feeds "
        f"({FEED_AWG} AWG pair, along the grooves) | longest jumper ({JUMPER_AWG} AWG) "
        "| lowest LED supply |",
        "|---|---|---|---|---|---|---|",
    ]
    for name in LAYOUT_NAMES:
        p = layout_power(name)
        feeds = "; ".join(
            f"LED {led}: {m * 1000:.0f} mm, {p.feed_drop_v(m):.2f} V" for led, m in p.feeds
        )
        lines.append(
            f"| `{name}` | {p.leds} | {p.unlimited_ma / 1000:.1f} A | "
            f"{supply_ma() / 1000:.1f} A, {p.supply_drop_v:.2f} V in fuse and lead | {feeds} | "
            f"{p.longest_jumper_m * 1000:.0f} mm, {p.jumper_drop_v:.2f} V | "
            f"{p.worst_led_v:.2f} V (WS2812B minimum {WS2812B_VDD_MIN_V} V) |"
        )
    return "\n".join(lines) + "\n"


def scr_safe_amps() -> float:
    """The most current the fired crowbar carries for ever without passing its junction limit."""
    watts = (SCR_TJ_MAX_C - BAY_AIR_C) / (SCR_RTH_JMB + HEATSINK_RTH)
    return watts / SCR_ON_V


def protection_table() -> str:
    """Trip points, margins, and what each wrong supply does, with the figure it rests on."""
    low, high = trip_range()
    holds = FUSE_HOLDS_X * FUSE_RATING_A
    opens = FUSE_OPENS_X * FUSE_RATING_A
    safe = scr_safe_amps()
    margin = low - SUPPLY_MAX_V
    rows = [
        ("crowbar trip point", f"{low:.2f}-{high:.2f} V", DATASHEET["tl431"] + ", R1/R2 1 %"),
        (
            "margin to the 5.2 V trim",
            f"{margin:.2f} V ({margin - SUPPLY_RIPPLE_V:.2f} V after "
            f"{SUPPLY_RIPPLE_V} V of ripple)",
            "a load step that lifts the rail by more trips it and reboots the Pi",
        ),
        (
            "margin to vSafe5V's top",
            f"{low - VSAFE5V[1]:+.2f} V: a charger at the top of the USB range can trip it",
            DATASHEET["usb"],
        ),
        (
            "F1 holds / opens",
            f"{holds:.1f} A for an hour / {opens:.1f} A within 30 min",
            DATASHEET["fuse"],
        ),
        (
            "fired SCR, for ever",
            f"up to {safe:.1f} A ({SCR_ON_V} V x I on {SCR_RTH_JMB + HEATSINK_RTH:g} K/W "
            f"from {BAY_AIR_C:g} C air to {SCR_TJ_MAX_C:g} C)",
            DATASHEET["scr"],
        ),
    ]
    lines = ["| figure | value | rests on |", "|---|---|---|"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    lines += [
        "",
        "| supply | what happens | rests on |",
        "|---|---|---|",
        "| 9 V or 12 V, through the USB-C input | cannot happen: a charger raises VBUS only "
        f"after a Power Delivery contract, which the board never asks for; it stays at vSafe5V "
        f"({VSAFE5V[0]}-{VSAFE5V[1]} V) | {DATASHEET['usb']} |",
        f"| 9 V or 12 V adapter limited under {safe:.1f} A (barrel or XT30 input) | the crowbar "
        f"fires by {high:.2f} V, within about 55 us (C1's filter; D1 clamps faster spikes), and "
        f"holds the rail near {SCR_ON_V} V; the adapter sits in its current limit until "
        f"unplugged; F1 stays whole; nothing is damaged | {DATASHEET['scr']}; "
        f"{DATASHEET['ws2812b']}; {DATASHEET['pico']} |",
        f"| 9 V or 12 V source limited between {safe:.1f} and {opens:.1f} A | **not safe**: F1 "
        f"carries up to {holds:.1f} A for an hour, while the SCR's junction passes "
        f"{SCR_TJ_MAX_C:g} C within minutes; never give this board such an input | "
        f"{DATASHEET['fuse']}; {DATASHEET['scr']} |",
        f"| 9 V or 12 V source of {opens:.1f} A or more | the crowbar fires, F1 opens within 30 "
        f"minutes (within 3-300 ms at 4 x In = {4 * FUSE_RATING_A:g} A): replace F1 | "
        f"{DATASHEET['fuse']} |",
        f"| reversed, through the USB-C input | cannot happen: the plug is symmetric and VBUS/GND "
        f"are fixed | {DATASHEET['usb']} |",
        f"| reversed, limited under {D2_RATED_A:g} A (barrel or XT30) | D2 and D1 conduct forwards "
        "and hold the rail under 1 V reversed until unplugged; nothing is damaged | "
        f"{DATASHEET['d2']}; {DATASHEET['tvs']} |",
        f"| reversed, between {D2_RATED_A:g} and {opens:.1f} A | **not safe**: D2 runs past its "
        f"{D2_RATED_A:g} A rating while F1 holds | {DATASHEET['d2']}; {DATASHEET['fuse']} |",
    ]
    return "\n".join(lines) + "\n"


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
    margin, and F1 too."""
    return max(0, int(min(amps, FUSE_RATING_A) * 1000) - PI_MA - MARGIN_MA)


def chargers_table() -> str:
    """Which USB-C chargers work with the default budget, and what budget fits the others."""
    need = supply_ma() / 1000
    largest = max(builtin_layout(name).led_count for name in LAYOUT_NAMES)
    idle_ma = PowerBudget().fixed_ma(largest)
    lines = [
        f"The board needs **{need:.1f} A at 5 V** with the default budget "
        f"({strip_budget_ma():,.0f} mA for the LEDs, {PI_MA} mA for the Pi) plus "
        f"{MARGIN_MA} mA of margin: read the charger's label for the **5 V** row, not its watts.",
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


def bringup_table() -> str:
    """What a meter should read at each bring-up step of the build guide, per layout."""
    low, _high = trip_range()
    budget = PowerBudget()
    lines = [
        "| step | where | expect | if not |",
        "|---|---|---|---|",
        "| 1. supply unplugged | +5 V bus to GND, ohmmeter | climbs from a few ohms to over "
        "1 kOhm (C2 charging) | stays under 10 ohm: D1, D2 or SCR1 in backwards, or a solder "
        "bridge; fix before any power |",
        f"| 2. supply on, nothing after the perfboard | +5 V bus to GND | {SUPPLY_NOMINAL_V} V "
        f"(the official supply; {SUPPLY_MIN_V:.2f}-{SUPPLY_MAX_V} V is fine) | 0 V and F1 open: a "
        "reversed diode or a short; about 1 V: the crowbar fired, so its trip point is low "
        f"(it must be {low:.2f} V or more: check R1 12.4 kOhm on top, R2 10 kOhm below); above "
        f"{SUPPLY_MAX_V} V: trim the supply down |",
        "| 3. U2 not yet in its socket | socket pin 14 to pin 7; pin 1 (1OE); pins 4, 10, 13 "
        "| the bus voltage; 0 V; the bus voltage | pin 14 dead: the +5 V link to the socket; "
        "pin 1 high: its GND link |",
        "| 4. U2 in, Pico unplugged | U2 pin 3 (1Y) to GND | 0 V (R8 holds the input low) | "
        "a few volts: R8 missing, or U2 in backwards (notch to the left, as drawn): unplug at "
        "once |",
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
        "the bus voltage; a meter: a small DC reading that moves as LEDs change | 0 V for ever: "
        "the data wire, R7, or U2's 1OE; 3.3 V swings: U2 bypassed |",
    ]
    return "\n".join(lines) + "\n"
