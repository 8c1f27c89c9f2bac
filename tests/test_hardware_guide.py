"""The small protections of the build guide are in the circuit, not only in the prose."""

from __future__ import annotations

from pathlib import Path

from boardctl.config import DEFAULT_PINS
from boardctl.hardware.pinout import SHUTDOWN_GPIO, pin_assignments
from tools.hardware import docs
from tools.hardware.circuit import DATA_3V3, GND, build_circuit, nets
from tools.hardware.parts import LEVEL_SHIFTER

HARDWARE = Path(__file__).resolve().parent.parent / "hardware"


def test_every_button_line_has_its_series_resistor() -> None:
    circuit = build_circuit()
    table = nets(circuit)
    for _key, _role, bcm in pin_assignments(DEFAULT_PINS):
        on_pin = table[f"GPIO{bcm}"]
        # The Pi's pin and one series resistor, nothing else: no switch straight on the pin.
        others = sorted(ref for ref, _ in on_pin if ref != "A1")
        assert len(others) == 1 and others[0].startswith("RB")
        resistor = next(c for c in circuit if c.ref == others[0])
        assert resistor.value == "1 kOhm"
        far = table[resistor.net_of("2") or ""]
        assert any(ref.startswith(("SW", "ENC")) for ref, _ in far)


def test_the_shutdown_button_has_no_series_resistor() -> None:
    table = nets(build_circuit())
    refs = {ref for ref, _ in table["SHUTDOWN"]}
    assert len(refs) == 2 and not any(ref.startswith("RB") for ref in refs)
    assert ("A1", "5") in table["SHUTDOWN"] and SHUTDOWN_GPIO == 3


def test_the_shifter_input_is_pulled_down() -> None:
    by_ref = {c.ref: c for c in build_circuit()}
    assert by_ref["R8"].net_of("1") == DATA_3V3 and by_ref["R8"].net_of("2") == GND
    assert {p.ref: p for p in LEVEL_SHIFTER}["R8"].value == "10 kOhm"
    assert "(R8) -> GND" in docs.pico_data_section()


def test_guide_says_which_equivalents_have_other_pinouts() -> None:
    parts = " ".join((HARDWARE / "parts.md").read_text(encoding="utf-8").split())
    assert "only drop-in equivalent is the **74HCT125**" in parts
    assert "**other pinouts**" in parts


def test_hot_plug_rules_enclosure_and_repairs_are_written() -> None:
    wiring = (HARDWARE / "wiring.md").read_text(encoding="utf-8")
    assert "Ground first, ground last" in wiring
    assert "Pixels powered before the controller" in wiring
    enclosure = (HARDWARE / "enclosure.md").read_text(encoding="utf-8")
    for heading in ("SD card access", "BOOTSEL access", "Strain relief", "Fuse access"):
        assert heading in enclosure
    assert "### A dead pixel in a cut strip" in enclosure
    assert "### A piece laid DOUT-first" in enclosure
