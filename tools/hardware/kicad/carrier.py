"""The carrier board's schematic, generated as a KiCad 9 project from the code's pin tables.

The carrier is a Raspberry Pi HAT-sized board on the Pi's 40-pin header. It holds the Pico, the
input protection (an LTC4365 over-voltage, under-voltage and reverse-supply controller with two
N-MOSFETs back to back, then a resettable fuse: a 12 V or reversed supply is blocked for ever
with nothing to replace), the 74AHCT1G125 level shifter, the strip outputs on screw terminals,
every button line with a series resistor, an ESD diode and an external pull-up, the shutdown
button on the ``gpio-shutdown`` pin, the piezo driver on the Pico's buzzer pin and the I2S header.

Every pin the code names comes from :mod:`tools.hardware.pinout`,
:data:`boardctl.config.DEFAULT_PINS` and ``firmware/config.py``; the symbols come from
KiCad's own libraries, copied into the file.
Run ``python -m tools.hardware.kicad.carrier`` from the repository's root to write
``hardware/kicad/carrier.kicad_sch`` (and ``.kicad_pro``); ``--check`` names a stale file.
"""

from __future__ import annotations

import argparse
import sys
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from boardctl.config import DEFAULT_PINS, SHUTDOWN_GPIO
from tools import REPO
from tools.hardware.kicad.sexpr import Node, dump, find, parse, q, unq
from tools.hardware.pico import PICO_PIN, firmware_settings
from tools.hardware.pinout import HEADER_PIN, I2S_PINS, pin_assignments

KICAD_DIR = REPO / "hardware" / "kicad"
SYMBOL_DIR = Path("/usr/share/kicad/symbols")
PROJECT = "carrier"
NAMESPACE = uuid.UUID("6f1c1d2e-5b0a-4c55-9f0e-0b0a7d1c2a10")

# Net names.
VIN, V5P, V5, GND, V3_PI, VSYS = "VIN", "+5V_PROT", "+5V", "GND", "+3V3_PI", "VSYS"
LED_3V3, DIN = "LED_DATA_3V3", "STRIP_DIN"
PI_TX, PI_RX = "PI_TXD", "PI_RXD"


def gpio_net(bcm: int) -> str:
    """The header-side net of a Pi GPIO."""
    return f"GPIO{bcm}"


def line_net(key: str) -> str:
    """The connector-side net of a button or encoder line (after its series resistor)."""
    return "IN_" + key.replace(".", "_").upper()


@dataclass(slots=True)
class Part:
    """One symbol on the sheet: which library symbol, and the net of each pin (None: no connect)."""

    ref: str
    lib: str  # "Library:Symbol"
    value: str
    footprint: str
    mpn: str
    nets: dict[str, str | None] = field(default_factory=dict)


def _r(ref: str, value: str, a: str, b: str, mpn: str) -> Part:
    return Part(ref, "Device:R", value, "Resistor_SMD:R_0603_1608Metric", mpn, {"1": a, "2": b})


def _c(ref: str, value: str, a: str, b: str, mpn: str) -> Part:
    return Part(ref, "Device:C", value, "Capacitor_SMD:C_0603_1608Metric", mpn, {"1": a, "2": b})


def power_parts() -> list[Part]:
    """The input and its protection.

    LTC4365 (Analog Devices datasheet): UV and OV compare with 0.5 V. With 1 MOhm, 34.8 kOhm
    and 100 kOhm the output opens above 0.5 V x 1134.8 / 100 = 5.67 V and below
    0.5 V x 1134.8 / 134.8 = 4.21 V; the part stands -40 V to 60 V on VIN and the two
    logic-level 60 V MOSFETs (back to back: no body diode conducts either way) as much, so a
    12 V or reversed supply is blocked with nothing to replace.
    """
    return [
        Part(
            "J1",
            "Connector:USB_C_Receptacle_PowerOnly_6P",
            "USB-C power only",
            "Connector_USB:USB_C_Receptacle_GCT_USB4125-xx-x_6P_TopMnt_Horizontal",
            "GCT USB4125-GF-A",
            {"A9": VIN, "B9": VIN, "A12": GND, "B12": GND, "A5": "CC1", "B5": "CC2", "S1": GND},
        ),
        _r("R1", "5.1k", "CC1", GND, "Yageo RC0603FR-075K1L"),
        _r("R2", "5.1k", "CC2", GND, "Yageo RC0603FR-075K1L"),
        Part(
            "U1",
            "Power_Management:LTC4365TS8",
            "LTC4365",
            "Package_TO_SOT_SMD:TSOT-23-8",
            "Analog Devices LTC4365CTS8#TRMPBF",
            {
                "1": VIN,
                "5": "SHDN",
                "2": "UV",
                "3": "OV",
                "8": "GATE",
                "4": GND,
                "7": V5P,
                "6": None,
            },
        ),
        _r("R3", "1M 1%", VIN, "UV", "Yageo RC0603FR-071ML"),
        _r("R4", "34.8k 1%", "UV", "OV", "Yageo RC0603FR-0734K8L"),
        _r("R5", "100k 1%", "OV", GND, "Yageo RC0603FR-07100KL"),
        _r("R6", "100k", VIN, "SHDN", "Yageo RC0603FR-07100KL"),
        Part(
            "Q1",
            "Transistor_FET:BSC028N06LS3",
            "BSC028N06LS3",
            "Package_SON:Infineon_PG-TDSON-8_6.15x5.15mm",
            "Infineon BSC028N06LS3G",
            {"1": "FET_S", "2": "FET_S", "3": "FET_S", "4": "GATE", "5": VIN},
        ),
        Part(
            "Q2",
            "Transistor_FET:BSC028N06LS3",
            "BSC028N06LS3",
            "Package_SON:Infineon_PG-TDSON-8_6.15x5.15mm",
            "Infineon BSC028N06LS3G",
            {"1": "FET_S", "2": "FET_S", "3": "FET_S", "4": "GATE", "5": V5P},
        ),
        Part(
            "F1",
            "Device:Polyfuse",
            "3 A hold",
            "Fuse:Fuse_Bourns_MF-RG300",
            "Bourns MF-RG300",
            {"1": V5P, "2": V5},
        ),
        Part(
            "D1",
            "Device:D_Zener",
            "SMAJ6.0A",
            "Diode_SMD:D_SMA",
            "Littelfuse SMAJ6.0A",
            {"1": V5, "2": GND},  # unidirectional: cathode (pad 1, the band) on +5 V
        ),
        Part(
            "C1",
            "Device:C_Polarized",
            "1000uF 16V",
            "Capacitor_THT:CP_Radial_D10.0mm_P5.00mm",
            "Panasonic EEU-FR1C102",
            {"1": V5, "2": GND},
        ),
        _c("C2", "100nF 50V", VIN, GND, "Murata GRM188R71H104KA93D"),
    ]


def strip_parts() -> list[Part]:
    """The level shifter and the strip's screw terminals."""
    return [
        Part(
            "U2",
            "74xGxx:74LVC1G125",
            "74AHCT1G125",
            "Package_TO_SOT_SMD:SOT-23-5",
            "Texas Instruments SN74AHCT1G125DBVR",
            {"2": LED_3V3, "1": GND, "4": "DIN_BUF", "5": V5, "3": GND},
        ),
        _c("C3", "100nF", V5, GND, "Murata GRM188R71H104KA93D"),
        _r("R7", "330", "DIN_BUF", DIN, "Yageo RC0603FR-07330RL"),
        _r("R8", "10k", LED_3V3, GND, "Yageo RC0603FR-0710KL"),
        Part(
            "J2",
            "Connector:Screw_Terminal_01x03",
            "strip: 5V DIN GND",
            "TerminalBlock_Phoenix:TerminalBlock_Phoenix_MKDS-1,5-3-5.08_1x03_P5.08mm_Horizontal",
            "Phoenix Contact 1935174",
            {"1": V5, "2": DIN, "3": GND},
        ),
        Part(
            "J3",
            "Connector:Screw_Terminal_01x02",
            "feed: 5V GND",
            "TerminalBlock_Phoenix:TerminalBlock_Phoenix_MKDS-1,5-2-5.08_1x02_P5.08mm_Horizontal",
            "Phoenix Contact 1935161",
            {"1": V5, "2": GND},
        ),
        Part(
            "J4",
            "Connector:Screw_Terminal_01x02",
            "feed: 5V GND",
            "TerminalBlock_Phoenix:TerminalBlock_Phoenix_MKDS-1,5-2-5.08_1x02_P5.08mm_Horizontal",
            "Phoenix Contact 1935161",
            {"1": V5, "2": GND},
        ),
    ]


def pico_parts() -> list[Part]:
    """The Pico, fed from +5 V through a Schottky, its data, UART and piezo pins."""
    settings = firmware_settings()
    used = {
        int(settings["LED_PIN"]): LED_3V3,  # type: ignore[call-overload]
        int(settings["UART_TX"]): PI_RX,  # type: ignore[call-overload]
        int(settings["UART_RX"]): PI_TX,  # type: ignore[call-overload]
        int(settings["BUZZER_PIN"]): "PIEZO_PWM",  # type: ignore[call-overload]
    }
    nets: dict[str, str | None] = {str(pin): used.get(gp) for gp, pin in PICO_PIN.items()}
    nets.update({"39": VSYS, "40": None, "36": None, "37": None, "30": None, "35": None,
                 "33": None, "3": GND, "8": GND, "13": GND, "18": GND, "23": GND, "28": GND,
                 "38": GND})  # fmt: skip
    return [
        Part(
            "A1",
            "MCU_Module:RaspberryPi_Pico",
            "Raspberry Pi Pico H",
            "Module:RaspberryPi_Pico_Common_THT",
            "Raspberry Pi SC0917",
            nets,
        ),
        Part(
            "D2",
            "Device:D_Schottky",
            "1N5817",
            "Diode_THT:D_DO-41_SOD81_P10.16mm_Horizontal",
            "onsemi 1N5817",
            {"1": VSYS, "2": V5},
        ),
        _r("R9", "1k", "PIEZO_PWM", "PIEZO_B", "Yageo RC0603FR-071KL"),
        Part(
            "Q3",
            "Transistor_BJT:MMBT3904",
            "MMBT3904",
            "Package_TO_SOT_SMD:SOT-23",
            "onsemi MMBT3904LT1G",
            {"1": "PIEZO_B", "2": GND, "3": "PIEZO_N"},
        ),
        _r("R10", "1k", V5, "PIEZO_N", "Yageo RC0603FR-071KL"),
        Part(
            "J5",
            "Connector_Generic:Conn_01x02",
            "piezo",
            "Connector_JST:JST_XH_B2B-XH-A_1x02_P2.50mm_Vertical",
            "JST B2B-XH-A",
            {"1": V5, "2": "PIEZO_N"},
        ),
    ]


def header_parts() -> list[Part]:
    """The Pi header, every button line's protection, the shutdown button, the I2S header."""
    lines = pin_assignments(DEFAULT_PINS)
    header: dict[str, str | None] = {str(n): None for n in range(1, 41)}
    for n in (2, 4):
        header[str(n)] = V5
    for n in (1, 17):
        header[str(n)] = V3_PI
    for n in (6, 9, 14, 20, 25, 30, 34, 39):
        header[str(n)] = GND
    header[str(HEADER_PIN[14])] = PI_TX
    header[str(HEADER_PIN[15])] = PI_RX
    header[str(HEADER_PIN[SHUTDOWN_GPIO])] = gpio_net(SHUTDOWN_GPIO)
    for bcm in I2S_PINS:
        header[str(HEADER_PIN[bcm])] = gpio_net(bcm)
    parts = [
        Part(
            "J6",
            "Connector_Generic:Conn_02x20_Odd_Even",
            "Pi header",
            "Connector_PinSocket_2.54mm:PinSocket_2x20_P2.54mm_Vertical",
            "Samtec SSQ-120-03-T-D",
            header,
        ),
        _r("R11", "220", gpio_net(SHUTDOWN_GPIO), "SHUTDOWN_SW", "Yageo RC0603FR-07220RL"),
        Part(
            "SW1",
            "Switch:SW_Push",
            "shutdown",
            "Button_Switch_THT:SW_PUSH_6mm",
            "Omron B3F-1000",
            {"1": "SHUTDOWN_SW", "2": GND},
        ),
        Part(
            "J7",
            "Connector_Generic:Conn_01x05",
            "I2S amplifier",
            "Connector_PinHeader_2.54mm:PinHeader_1x05_P2.54mm_Vertical",
            "Amphenol 68001-105HLF",
            {
                "1": V5,
                "2": GND,
                "3": gpio_net(I2S_PINS[0]),
                "4": gpio_net(I2S_PINS[1]),
                "5": gpio_net(I2S_PINS[2]),
            },
        ),
    ]
    groups: dict[str, list[tuple[str, int]]] = {}
    for n, (key, _role, bcm) in enumerate(lines):
        header[str(HEADER_PIN[bcm])] = gpio_net(bcm)
        group = key.split(".")[0] if "." in key else "shared"
        groups.setdefault(group, []).append((key, bcm))
        base = 20 + 3 * n
        parts += [
            _r(f"R{base}", "1k", gpio_net(bcm), line_net(key), "Yageo RC0603FR-071KL"),
            _r(f"R{base + 1}", "10k", line_net(key), V3_PI, "Yageo RC0603FR-0710KL"),
            Part(
                f"D{base + 2}",
                "Device:D_TVS",
                "PESD5V0S1BA",
                "Diode_SMD:D_SOD-323",
                "Nexperia PESD5V0S1BA",
                {"1": GND, "2": line_net(key)},
            ),
        ]
    for j, (group, keys) in enumerate(sorted(groups.items()), start=8):
        count = len(keys) + 1
        nets: dict[str, str | None] = {str(i + 1): line_net(k) for i, (k, _) in enumerate(keys)}
        nets[str(count)] = GND
        parts.append(
            Part(
                f"J{j}",
                f"Connector_Generic:Conn_01x{count:02d}",
                f"inputs: {group}",
                f"Connector_JST:JST_XH_B{count}B-XH-A_1x{count:02d}_P2.50mm_Vertical",
                f"JST B{count}B-XH-A",
                nets,
            )
        )
    return parts


def carrier_parts() -> list[Part]:
    return power_parts() + strip_parts() + pico_parts() + header_parts()


# --- symbols ------------------------------------------------------------------------------------


@cache
def _library(name: str) -> Node:
    return parse((SYMBOL_DIR / f"{name}.kicad_sym").read_text(encoding="utf-8"))


def _key(node: Node) -> str:
    """What a symbol's entry sets: its head, or a property's name."""
    if not isinstance(node, list):
        return ""
    return str(node[0]) if node[0] != "property" else "property " + unq(node[1])


def _flat_symbol(library: str, name: str) -> list[Node]:
    """The library's symbol ``name``, a derived one merged onto its parent as KiCad does."""
    symbol = next(s for s in find(_library(library), "symbol") if unq(s[1]) == name)
    assert isinstance(symbol, list)
    extends = find(symbol, "extends")
    if not extends:
        return symbol
    parent = _flat_symbol(library, unq(extends[0][1]))
    own = {_key(c) for c in symbol[2:]}
    body: list[Node] = []
    for child in parent[2:]:
        if isinstance(child, list) and child[0] == "symbol":
            unit = unq(child[1]).removeprefix(unq(parent[1]))
            body.append(["symbol", q(name + unit), *child[2:]])
        elif _key(child) not in own:
            body.append(child)
    return ["symbol", q(name), *[c for c in symbol[2:] if c is not extends[0]], *body]


def library_symbol(lib_id: str) -> list[Node]:
    """The symbol ``Library:Name`` as a schematic's ``lib_symbols`` holds it."""
    library, name = lib_id.split(":")
    return ["symbol", q(lib_id), *_flat_symbol(library, name)[2:]]


@dataclass(frozen=True, slots=True)
class PinInfo:
    number: str
    kind: str
    x: float  # connection point, symbol coordinates (y up)
    y: float


def symbol_pins(lib_id: str) -> list[PinInfo]:
    out: list[PinInfo] = []

    def walk(node: Node) -> None:
        if not isinstance(node, list):
            return
        for child in node:
            if isinstance(child, list) and child and child[0] == "pin":
                at = find(child, "at")[0]
                number = unq(find(child, "number")[0][1])
                out.append(PinInfo(number, str(child[1]), float(at[1]), float(at[2])))
            else:
                walk(child)

    walk(library_symbol(lib_id))
    return out


# --- the sheet ----------------------------------------------------------------------------------


def _uuid(*names: object) -> str:
    return str(uuid.uuid5(NAMESPACE, "/".join(map(str, names))))


def _mm(value: float) -> str:
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _property(key: str, value: str, x: float, y: float, *, hidden: bool = False) -> Node:
    effects: list[Node] = ["effects", ["font", ["size", "1.27", "1.27"]]]
    if hidden:
        effects.append(["hide", "yes"])
    return ["property", q(key), q(value), ["at", _mm(x), _mm(y), "0"], effects]


def _placed(part: Part, x: float, y: float, root: str) -> Node:
    return [
        "symbol",
        ["lib_id", q(part.lib)],
        ["at", _mm(x), _mm(y), "0"],
        ["unit", "1"],
        ["exclude_from_sim", "no"],
        ["in_bom", "yes"],
        ["on_board", "yes"],
        ["dnp", "no"],
        ["uuid", q(_uuid("symbol", part.ref))],
        _property("Reference", part.ref, x, y - 2.54),
        _property("Value", part.value, x, y + 2.54),
        _property("Footprint", part.footprint, x, y, hidden=True),
        _property("Datasheet", "", x, y, hidden=True),
        _property("MPN", part.mpn, x, y, hidden=True),
        *[["pin", q(pin.number), ["uuid", q(_uuid("pin", part.ref, pin.number))]]
          for pin in symbol_pins(part.lib)],
        ["instances", ["project", q(PROJECT), ["path", q(f"/{root}"),
                                               ["reference", q(part.ref)], ["unit", "1"]]]],
    ]  # fmt: skip


def _label(net: str, x: float, y: float) -> Node:
    return [
        "label",
        q(net),
        ["at", _mm(x), _mm(y), "0"],
        ["effects", ["font", ["size", "1", "1"]], ["justify", "left", "bottom"]],
        ["uuid", q(_uuid("label", net, _mm(x), _mm(y)))],
    ]


def _no_connect(x: float, y: float) -> Node:
    return ["no_connect", ["at", _mm(x), _mm(y)], ["uuid", q(_uuid("nc", _mm(x), _mm(y)))]]


def _size(lib_id: str) -> tuple[float, float]:
    pins = symbol_pins(lib_id)
    xs = [p.x for p in pins] or [0.0]
    ys = [p.y for p in pins] or [0.0]
    return max(xs) - min(xs), max(ys) - min(ys)


def pin_nets(parts: Sequence[Part]) -> dict[tuple[str, str], str]:
    """``(ref, pin) -> net`` of every connected pin: what the sheet's labels say."""
    return {(p.ref, pin): net for p in parts for pin, net in p.nets.items() if net is not None}


def schematic(parts: Sequence[Part]) -> str:
    """The carrier's sheet: each symbol on a grid, a net label on every connected pin, a
    no-connect flag on every other, and a power flag on each net that only power inputs share."""
    root = _uuid("sheet")
    items: list[Node] = []
    lib_ids = sorted({p.lib for p in parts} | {"power:PWR_FLAG"})
    x, y, row_height = 30.48, 30.48, 0.0
    kinds: dict[str, set[str]] = {}
    for part in parts:
        width, height = _size(part.lib)
        if x + width + 25 > 560:
            x, y, row_height = 30.48, y + row_height + 25.4, 0.0
        cx = round((x + width / 2 + 12.7) / 2.54) * 2.54
        cy = round((y + height / 2 + 5) / 2.54) * 2.54
        items.append(_placed(part, cx, cy, root))
        seen: set[tuple[float, float]] = set()
        pins = {p.number: p for p in symbol_pins(part.lib)}
        assert set(part.nets) == set(pins), f"{part.ref}: pins {sorted(set(pins) ^ set(part.nets))}"
        for number, net in sorted(part.nets.items()):
            pin = pins[number]
            if net is not None:
                kinds.setdefault(net, set()).add(pin.kind)
            where = (round(cx + pin.x, 2), round(cy - pin.y, 2))
            if where in seen:
                continue
            seen.add(where)
            items.append(_no_connect(*where) if net is None else _label(net, *where))
        x += width + 30.48
        row_height = max(row_height, height + 10)
    flagged = sorted(n for n, k in kinds.items() if "power_in" in k and "power_out" not in k)
    y = round((y + row_height + 25.4) / 2.54) * 2.54
    for i, net in enumerate(flagged):
        fx, fy = 30.48 + 25.4 * i, y
        flag = Part(f"#FLG0{i + 1}", "power:PWR_FLAG", "PWR_FLAG", "", "", {"1": net})
        placed = _placed(flag, fx, fy, root)
        assert isinstance(placed, list)
        placed[5] = ["in_bom", "no"]
        placed[6] = ["on_board", "no"]
        items += [placed, _label(net, fx, fy)]
    sheet: Node = [
        "kicad_sch",
        ["version", "20250114"],
        ["generator", q("boardctl_tools")],
        ["generator_version", q("9.0")],
        ["uuid", q(root)],
        ["paper", q("A2")],
        ["title_block", ["title", q("boardctl carrier board")],
         ["comment", "1", q("Generated by tools/hardware/kicad/carrier.py: edit the script")]],
        ["lib_symbols", *[library_symbol(lib_id) for lib_id in lib_ids]],
        *items,
        ["sheet_instances", ["path", q("/"), ["page", q("1")]]],
        ["embedded_fonts", "no"],
    ]  # fmt: skip
    return dump(sheet) + "\n"


PROJECT_FILE = """{
  "board": {
    "design_settings": {
      "defaults": {
        "copper_line_width": 0.2,
        "silk_line_width": 0.15,
        "silk_text_size_h": 1.0,
        "silk_text_size_v": 1.0,
        "silk_text_thickness": 0.15
      },
      "rules": {
        "min_clearance": 0.15,
        "min_copper_edge_clearance": 0.5,
        "min_hole_clearance": 0.25,
        "min_hole_to_hole": 0.25,
        "min_silk_clearance": 0.0,
        "min_text_height": 0.8,
        "min_text_thickness": 0.08,
        "min_through_hole_diameter": 0.3,
        "min_track_width": 0.2,
        "min_via_annular_width": 0.13,
        "min_via_diameter": 0.5
      }
    }
  },
  "erc": {
    "erc_exclusions": [],
    "meta": {
      "version": 0
    },
    "pin_map": [],
    "rule_severities": {}
  },
  "meta": {
    "filename": "carrier.kicad_pro",
    "version": 3
  },
  "net_settings": {
    "classes": [
      {
        "bus_width": 12,
        "clearance": 0.15,
        "diff_pair_gap": 0.25,
        "diff_pair_via_gap": 0.25,
        "diff_pair_width": 0.2,
        "line_style": 0,
        "microvia_diameter": 0.3,
        "microvia_drill": 0.1,
        "name": "Default",
        "pcb_color": "rgba(0, 0, 0, 0.000)",
        "priority": 2147483647,
        "schematic_color": "rgba(0, 0, 0, 0.000)",
        "track_width": 0.2,
        "via_diameter": 0.6,
        "via_drill": 0.3,
        "wire_width": 6
      }
    ],
    "meta": {
      "version": 4
    }
  }
}
"""


def library_table(parts: Sequence[Part]) -> str:
    """The project's symbol library table: KiCad's own libraries, by its own path variable."""
    names = sorted({p.lib.split(":")[0] for p in parts} | {"power"})
    return _table("sym_lib_table", names, "${KICAD9_SYMBOL_DIR}/{name}.kicad_sym")


def footprint_table(parts: Sequence[Part]) -> str:
    """The footprint library table: KiCad's own footprint libraries (and the mounting holes')."""
    names = sorted({p.footprint.split(":")[0] for p in parts} | {"MountingHole"})
    return _table("fp_lib_table", names, "${KICAD9_FOOTPRINT_DIR}/{name}.pretty")


def _table(kind: str, names: Sequence[str], uri: str) -> str:
    rows = [
        f'  (lib (name "{name}")(type "KiCad")(uri "{uri.replace("{name}", name)}")(options "")'
        '(descr ""))'
        for name in names
    ]
    return f"({kind}\n  (version 7)\n" + "\n".join(rows) + "\n)\n"


def files() -> dict[str, str]:
    """The project's files by name."""
    parts = carrier_parts()
    return {
        f"{PROJECT}.kicad_sch": schematic(parts),
        f"{PROJECT}.kicad_pro": PROJECT_FILE,
        "sym-lib-table": library_table(parts),
        "fp-lib-table": footprint_table(parts),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="name stale files; exit 1 if any")
    args = parser.parse_args(argv)
    stale = []
    for name, text in files().items():
        path = KICAD_DIR / name
        if args.check:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
        else:
            KICAD_DIR.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(path)
    for name in stale:
        print(f"stale: {name}", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
