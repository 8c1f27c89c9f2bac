"""The carrier board's KiCad netlist (exported by kicad-cli) against the code's pin tables.

Checked both ways: every pin the code names reaches the part KiCad connects it to, and every
GPIO net on KiCad's Pi header is a pin of the code's tables on the header pin the code says.
"""

from __future__ import annotations

import csv
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from boardctl.config import DEFAULT_PINS, SHUTDOWN_GPIO
from tools.hardware.pico import firmware_settings, pico_pin
from tools.hardware.pinout import HEADER_PIN, I2S_PINS, pin_assignments
from tools.hardware.power import VSAFE5V

KICAD = Path(__file__).resolve().parent.parent / "hardware" / "kicad"

Nets = dict[str, set[tuple[str, str]]]


def netlist() -> tuple[Nets, dict[str, str]]:
    """KiCad's nets (name -> {(ref, pin)}) and each part's value."""
    root = ET.parse(KICAD / "carrier-netlist.xml").getroot()
    nets: Nets = {}
    for net in root.iter("net"):
        name = net.get("name", "").lstrip("/")
        nets[name] = {(n.get("ref", ""), n.get("pin", "")) for n in net.iter("node")}
    values = {c.get("ref", ""): c.findtext("value", "") for c in root.iter("comp")}
    return nets, values


NETS, VALUES = netlist()


def net_of(ref: str, pin: str) -> str:
    found = [name for name, nodes in NETS.items() if (ref, pin) in nodes]
    assert len(found) == 1, f"{ref} pin {pin}: nets {found}"
    return found[0]


def other_end(ref: str, pin: str) -> str:
    """The net at a two-pin part's other pin."""
    return net_of(ref, "2" if pin == "1" else "1")


@pytest.mark.parametrize(("key", "bcm"), [(k, b) for k, _r, b in pin_assignments(DEFAULT_PINS)])
def test_every_button_line_of_the_code_reaches_its_connector_protected(key: str, bcm: int) -> None:
    header = net_of("J6", str(HEADER_PIN[bcm]))
    assert header == f"GPIO{bcm}"
    (series,) = [(r, p) for r, p in NETS[header] if r.startswith("R")]
    assert VALUES[series[0]] == "1k"
    line = other_end(*series)
    parts = {ref for ref, _ in NETS[line]}
    assert any(r.startswith("J") for r in parts), "no connector pin"
    assert any(r.startswith("D") and VALUES[r] == "PESD5V0S1BA" for r in parts), "no ESD diode"
    pullups = [(r, p) for r, p in NETS[line] if r.startswith("R") and r != series[0]]
    assert [other_end(*pu) for pu in pullups] == ["+3V3_PI"], "no pull-up to 3.3 V"


def test_every_gpio_on_the_header_is_a_pin_of_the_code_on_its_header_pin() -> None:
    known = {b for _k, _r, b in pin_assignments(DEFAULT_PINS)} | {SHUTDOWN_GPIO, *I2S_PINS}
    seen = set()
    for name, nodes in NETS.items():
        found = re.fullmatch(r"GPIO(\d+)", name)
        if not found:
            continue
        bcm = int(found[1])
        assert bcm in known, f"{name} is on the board but in no pin table"
        assert ("J6", str(HEADER_PIN[bcm])) in nodes, (
            f"{name} is not on header pin {HEADER_PIN[bcm]}"
        )
        seen.add(bcm)
    assert seen == known


def test_the_shutdown_button_pulls_the_gpio_shutdown_pin_through_a_resistor() -> None:
    header = net_of("J6", str(HEADER_PIN[SHUTDOWN_GPIO]))
    (series,) = [(r, p) for r, p in NETS[header] if r.startswith("R")]
    assert ("SW1", "1") in NETS[other_end(*series)]
    assert net_of("SW1", "2") == "GND"


def test_the_pico_pins_of_the_firmware_reach_the_shifter_the_uart_and_the_piezo() -> None:
    settings = firmware_settings()
    data = net_of("A1", str(pico_pin(settings["LED_PIN"])))
    assert ("U2", "2") in NETS[data]  # 74AHCT1G125 input A
    din = other_end(*next((r, p) for r, p in NETS[net_of("U2", "4")] if r.startswith("R")))
    assert ("J2", "2") in NETS[din]  # the strip terminal's DIN
    assert ("J6", str(HEADER_PIN[15])) in NETS[net_of("A1", str(pico_pin(settings["UART_TX"])))]
    assert ("J6", str(HEADER_PIN[14])) in NETS[net_of("A1", str(pico_pin(settings["UART_RX"])))]
    buzzer = net_of("A1", str(pico_pin(settings["BUZZER_PIN"])))
    assert any(r.startswith("R") for r, _ in NETS[buzzer])


def ohms(value: str) -> float:
    number = re.match(r"([\d.]+)([kM]?)", value)
    assert number is not None
    return float(number[1]) * {"": 1, "k": 1e3, "M": 1e6}[number[2]]


def test_the_input_controller_passes_usb_c_and_blocks_above_it() -> None:
    # LTC4365: UV and OV compare with 0.5 V; the divider R3 (VIN-UV), R4 (UV-OV), R5 (OV-GND).
    assert net_of("U1", "1") == "VIN" and net_of("U1", "2") == "UV" and net_of("U1", "3") == "OV"
    assert {("R3", "1"), ("J1", "A9")} <= NETS["VIN"] and ("R5", "2") in NETS["GND"]
    top, middle, bottom = (ohms(VALUES[r]) for r in ("R3", "R4", "R5"))
    total = top + middle + bottom
    over = 0.5 * total / bottom
    under = 0.5 * total / (middle + bottom)
    assert VSAFE5V[1] < over < 6.0  # a USB-C charger passes; the strip's 5.3 V is soon guarded
    assert under < VSAFE5V[0]
    # Both MOSFETs share the gate and their sources: back to back, so no body diode conducts.
    # (BSC028N06LS3, PG-TDSON-8: pads 1-3 source, 4 gate, 5 and the tab drain.)
    assert net_of("Q1", "4") == net_of("Q2", "4") == net_of("U1", "8")
    assert net_of("Q1", "1") == net_of("Q2", "1") == net_of("Q1", "3") == net_of("Q2", "3")
    assert (net_of("Q1", "5"), net_of("Q2", "5")) == ("VIN", "+5V_PROT")


def test_the_unidirectional_tvs_has_its_cathode_on_the_rail_so_it_never_conducts_forward() -> None:
    # SMAJ5.0A in D_SMA: pad 1 is the cathode, under the band.
    assert (net_of("D1", "1"), net_of("D1", "2")) == ("+5V", "GND")
    # The Schottky feeding the Pico: anode on +5 V, cathode on VSYS.
    assert (net_of("D2", "2"), net_of("D2", "1")) == ("+5V", "VSYS")


def test_every_part_of_the_bom_has_a_manufacturer_part_number() -> None:
    with (KICAD / "carrier-bom.csv").open(encoding="utf-8", newline="") as bom:
        rows = list(csv.DictReader(bom))
    assert rows
    refs = {ref for row in rows for ref in row["Refs"].split(",")}
    assert {"U1", "U2", "A1", "J6", "F1"} <= refs
    for row in rows:
        assert row["MPN"].strip(), f"{row['Refs']} has no part number"
    assert any(row["MPN"] == "Raspberry Pi SC0917" for row in rows)
