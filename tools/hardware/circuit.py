"""The board's circuit as a netlist, built from the pin tables the software uses.

Every part with a designator, every pin and the net it is on: the Pi's
header pins come from the service's default pins (``DEFAULT_PINS``), the
Pico's data and UART pins from ``firmware/config.py``, the values and part
numbers from :mod:`tools.hardware.parts`. The schematic
(:mod:`tools.hardware.schematic`) and the perfboard layout
(:mod:`tools.hardware.perfboard`) draw this netlist, so neither can drift
from the code.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from boardctl.hardware.pinout import HEADER_PIN, SHUTDOWN_GPIO, pin_assignments
from tools.hardware.parts import BUTTON_SERIES, LEVEL_SHIFTER, PROTECTION, Part

# Net names.
VIN = "+5V_IN"  # the input, before the fuse
V5 = "+5V"
GND = "GND"
V3 = "3V3"
DATA_3V3 = "DATA_3V3"  # Pico -> 74AHCT125 input
DATA_5V = "DATA_5V"  # 74AHCT125 output -> 330 ohm
DIN = "DIN"  # 330 ohm -> the strip's first LED
VSYS = "VSYS"
PI_TX = "UART_PI_TX"  # Pi GPIO14 -> Pico RX
PI_RX = "UART_PI_RX"  # Pico TX -> Pi GPIO15
UART_OPTION = "UART link only"


@dataclass(frozen=True, slots=True)
class Pin:
    """One pin of a part: its number (or name on a module) and its net."""

    number: str
    name: str
    net: str | None  # None: not connected


@dataclass(frozen=True, slots=True)
class Component:
    """One part of the circuit."""

    ref: str
    # resistor, capacitor, diode, fuse, switch, scr, pnp, reference, ic, module, connector
    kind: str
    value: str
    pins: tuple[Pin, ...]
    block: str  # which part of the schematic: power, data, pico, pi, inputs
    perfboard: bool = False  # sits on the perfboard (else wired to it)
    option: str = ""  # e.g. "UART link only"

    def net_of(self, number: str) -> str | None:
        """The net of pin ``number``."""
        return next(p.net for p in self.pins if p.number == number)


def _two(part: Part, kind: str, a: str, b: str, block: str, **kw: object) -> Component:
    pins = (Pin("1", "1", a), Pin("2", "2", b))
    return Component(part.ref, kind, part.value, pins, block, **kw)  # type: ignore[arg-type]


def _by_ref(parts: tuple[Part, ...]) -> dict[str, Part]:
    return {p.ref: p for p in parts}


def protection() -> list[Component]:
    """The input, the fuse, the crowbar and the reverse clamp."""
    p = _by_ref(PROTECTION)
    d = "diode"
    return [
        Component(
            "J1",
            "connector",
            "USB-C power-only input (5.1 kOhm on CC1, CC2)",
            (Pin("VBUS", "VBUS", VIN), Pin("GND", "GND", GND)),
            "power",
        ),
        _two(p["F1"], "fuse", VIN, V5, "power"),
        # Diodes: pin 1 = anode, pin 2 = cathode.
        _two(p["D1"], d, GND, V5, "power", perfboard=True),
        _two(p["D2"], d, GND, V5, "power", perfboard=True),
        Component(
            "SCR1",
            "scr",
            p["SCR1"].value,
            (Pin("A", "anode", V5), Pin("K", "cathode", GND), Pin("G", "gate", "SCR_G")),
            "power",
            perfboard=True,
        ),
        Component(
            "U1",
            "reference",
            p["U1"].value,
            (Pin("K", "cathode", "U1_K"), Pin("A", "anode", GND), Pin("REF", "ref", "TRIP")),
            "power",
            perfboard=True,
        ),
        Component(
            "Q1",
            "pnp",
            p["Q1"].value,
            (Pin("E", "emitter", V5), Pin("B", "base", "Q1_B"), Pin("C", "collector", "Q1_C")),
            "power",
            perfboard=True,
        ),
        _two(p["R1"], "resistor", V5, "TRIP", "power", perfboard=True),
        _two(p["R2"], "resistor", "TRIP", GND, "power", perfboard=True),
        _two(p["C1"], "capacitor", "TRIP", GND, "power", perfboard=True),
        _two(p["R3"], "resistor", "Q1_B", "U1_K", "power", perfboard=True),
        _two(p["R4"], "resistor", V5, "Q1_B", "power", perfboard=True),
        _two(p["R5"], "resistor", "Q1_C", "SCR_G", "power", perfboard=True),
        _two(p["R6"], "resistor", "SCR_G", GND, "power", perfboard=True),
    ]


#: The 74AHCT125's pins (DIP-14): channel 1 carries the data; the unused
#: channels are disabled (OE high) with their inputs tied low.
SHIFTER_PINS: tuple[tuple[str, str, str | None], ...] = (
    ("1", "1OE", GND),
    ("2", "1A", DATA_3V3),
    ("3", "1Y", DATA_5V),
    ("4", "2OE", V5),
    ("5", "2A", GND),
    ("6", "2Y", None),
    ("7", "GND", GND),
    ("8", "3Y", None),
    ("9", "3A", GND),
    ("10", "3OE", V5),
    ("11", "4Y", None),
    ("12", "4A", GND),
    ("13", "4OE", V5),
    ("14", "VCC", V5),
)


def data_path() -> list[Component]:
    """Pico -> pull-down -> 74AHCT125 -> 330 ohm -> strip DIN; the strip's capacitor."""
    p = _by_ref(LEVEL_SHIFTER)
    shifter = tuple(Pin(n, name, net) for n, name, net in SHIFTER_PINS)
    return [
        Component("U2", "ic", p["U2"].value, shifter, "data", perfboard=True),
        _two(p["C3"], "capacitor", V5, GND, "data", perfboard=True),
        _two(p["R8"], "resistor", DATA_3V3, GND, "data", perfboard=True),
        _two(p["R7"], "resistor", DATA_5V, DIN, "data", perfboard=True),
        _two(p["C2"], "capacitor", V5, GND, "data", perfboard=True),
        Component(
            "J4",
            "connector",
            "LED strip input (JST-SM pigtail)",
            (Pin("DIN", "DIN", DIN), Pin("5V", "5V", V5), Pin("GND", "GND", GND)),
            "data",
        ),
    ]


def pico(settings: Mapping[str, object]) -> list[Component]:
    """The Pico: its data pin, ground, and the UART option's pins and supply."""
    from tools.hardware.pico import PICO_VSYS, nearest_pico_ground, pico_pin

    led = settings["LED_PIN"]
    tx, rx = settings["UART_TX"], settings["UART_RX"]
    data_pin = pico_pin(led)
    pins = (
        Pin(str(data_pin), f"GP{led}", DATA_3V3),
        Pin(str(nearest_pico_ground(data_pin)), "GND", GND),
        Pin(str(pico_pin(tx)), f"GP{tx} (UART TX)", PI_RX),
        Pin(str(pico_pin(rx)), f"GP{rx} (UART RX)", PI_TX),
        Pin(str(PICO_VSYS), "VSYS", VSYS),
        Pin("USB", "micro-USB", "USB link (to the Pi)"),
    )
    d3 = _by_ref(LEVEL_SHIFTER)["D3"]
    return [
        Component("A2", "module", "Raspberry Pi Pico", pins, "pico"),
        _two(d3, "diode", V5, VSYS, "pico", perfboard=True, option=UART_OPTION),
    ]


def _encoder_groups(pins: Mapping[str, Mapping[str, int | None]]) -> dict[str, dict[str, int]]:
    groups: dict[str, dict[str, int]] = {}
    for group, roles in pins.items():
        wired = {r: b for r, b in roles.items() if r.startswith("encoder_") and b is not None}
        if wired:
            groups[group] = wired
    return groups


def pi_and_inputs(pins: Mapping[str, Mapping[str, int | None]]) -> list[Component]:
    """The Pi's header (every default pin), its power input, the buttons and encoders."""
    assigned = pin_assignments(pins)
    header = [Pin("1", "3V3", V3), Pin("6", "GND", GND)]
    header += [
        Pin(str(HEADER_PIN[bcm]), f"GPIO{bcm} ({key})", f"GPIO{bcm}") for key, _, bcm in assigned
    ]
    header += [
        Pin(str(HEADER_PIN[SHUTDOWN_GPIO]), f"GPIO{SHUTDOWN_GPIO} (shutdown)", "SHUTDOWN"),
        Pin(str(HEADER_PIN[14]), "GPIO14 TXD", PI_TX),
        Pin(str(HEADER_PIN[15]), "GPIO15 RXD", PI_RX),
    ]
    header.sort(key=lambda p: int(p.number))
    out = [
        Component("A1", "module", "Raspberry Pi Zero 2 W: 40-pin header", tuple(header), "pi"),
        Component(
            "J6",
            "connector",
            "Pi PWR IN (micro-USB pigtail)",
            (Pin("VBUS", "VBUS", V5), Pin("GND", "GND", GND)),
            "pi",
        ),
    ]
    encoder_contacts = {bcm for roles in _encoder_groups(pins).values() for bcm in roles.values()}
    switch_no = 0
    for n, (key, _role, bcm) in enumerate(assigned, start=1):
        line = f"GPIO{bcm}_IN"
        series = (Pin("1", "1", f"GPIO{bcm}"), Pin("2", "2", line))
        out.append(Component(f"RB{n}", "resistor", BUTTON_SERIES.value, series, "inputs"))
        if bcm not in encoder_contacts:
            switch_no += 1
            out.append(
                Component(
                    f"SW{switch_no}",
                    "switch",
                    f"button {key}",
                    (Pin("1", "1", line), Pin("2", "2", GND)),
                    "inputs",
                )
            )
    for k, (group, roles) in enumerate(_encoder_groups(pins).items(), start=1):
        names = {"encoder_a": "CLK", "encoder_b": "DT", "encoder_push": "SW"}
        enc_pins = [Pin(names[r], names[r], f"GPIO{b}_IN") for r, b in roles.items()]
        enc_pins += [Pin("+", "+", V3), Pin("GND", "GND", GND)]
        out.append(
            Component(f"ENC{k}", "module", f"KY-040 encoder, {group}", tuple(enc_pins), "inputs")
        )
    switch_no += 1
    out.append(
        Component(
            f"SW{switch_no}",
            "switch",
            "shutdown / wake button",
            (Pin("1", "1", "SHUTDOWN"), Pin("2", "2", GND)),
            "inputs",
        )
    )
    return out


def build_circuit(
    pins: Mapping[str, Mapping[str, int | None]] | None = None,
    settings: Mapping[str, object] | None = None,
) -> list[Component]:
    """The whole circuit, from the default pins and the firmware's settings."""
    if pins is None:
        from boardctl.config import DEFAULT_PINS

        pins = DEFAULT_PINS
    if settings is None:
        from tools.hardware.pico import firmware_settings

        settings = firmware_settings()
    return [*protection(), *data_path(), *pico(settings), *pi_and_inputs(pins)]


def nets(components: list[Component]) -> dict[str, set[tuple[str, str]]]:
    """Each net and the ``(ref, pin)`` pairs on it."""
    found: dict[str, set[tuple[str, str]]] = {}
    for comp in components:
        for pin in comp.pins:
            if pin.net is not None:
                found.setdefault(pin.net, set()).add((comp.ref, pin.number))
    return found
