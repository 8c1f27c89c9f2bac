"""The small protections of the build guide are in the carrier's netlist, not only in the prose."""

from __future__ import annotations

from pathlib import Path

from tests.test_hardware_kicad import NETS, VALUES, net_of, ohms, other_end
from tools.hardware import docs
from tools.hardware.power import PI_3V3, PI_GPIO_PULLUP_OHMS, PI_GPIO_VIL_V

HARDWARE = Path(__file__).resolve().parent.parent / "hardware"


def test_the_shifter_input_is_pulled_down() -> None:
    data = net_of("U2", "2")
    (pull,) = [(r, p) for r, p in NETS[data] if r.startswith("R")]
    assert other_end(*pull) == "GND" and VALUES[pull[0]] == "10k"
    assert f"**10 kOhm** ({pull[0]}) -> GND" in docs.pico_data_section()


def test_a_pressed_shutdown_button_reads_low_through_its_resistor() -> None:
    # GPIO3 has the Pi's fixed 1.8 kOhm pull-up: the series resistor and it divide 3.3 V.
    header = net_of("J6", "5")
    (series,) = [r for r, _ in NETS[header] if r.startswith("R")]
    level = PI_3V3 * ohms(VALUES[series]) / (ohms(VALUES[series]) + PI_GPIO_PULLUP_OHMS)
    assert level < PI_GPIO_VIL_V - 0.3, f"a press reads {level:.2f} V"


def test_guide_names_the_shifter_and_its_only_drop_in_equivalent() -> None:
    parts = " ".join((HARDWARE / "parts.md").read_text(encoding="utf-8").split())
    assert "**74AHCT1G125**" in parts and "74HCT1G125" in parts
    assert "**other pinouts**" in parts


def test_hot_plug_rules_enclosure_and_repairs_are_written() -> None:
    wiring = (HARDWARE / "wiring.md").read_text(encoding="utf-8")
    assert "Ground first, ground last" in wiring
    assert "Pixels powered before the controller" in wiring
    enclosure = (HARDWARE / "enclosure.md").read_text(encoding="utf-8")
    for heading in ("SD card access", "BOOTSEL access", "Strain relief", "The input"):
        assert heading in enclosure
    assert "### A dead pixel in a cut strip" in enclosure
    assert "### A piece laid DOUT-first" in enclosure
