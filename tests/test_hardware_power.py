"""The power side of the build guide: the carrier's protection, the budget, the drops."""

from __future__ import annotations

from pathlib import Path

import pytest

from boardctl.board.layout import LAYOUT_NAMES
from boardctl.board.power import MA_PER_LED_WHITE, PowerBudget, estimate_ma
from boardctl.config import BoardConfig
from tests.test_hardware_kicad import NETS, VALUES, net_of
from tools.hardware import docs, power
from tools.hardware.pico import firmware_settings

HARDWARE = Path(__file__).resolve().parent.parent / "hardware"


def test_the_limiter_plans_on_60_ma_per_led() -> None:
    # The docs' worst case and the limiter's constant are the same figure.
    assert MA_PER_LED_WHITE == 60
    white = b"\xff\xff\xff"
    assert estimate_ma(white, PowerBudget(controller_ma=0, idle_ma_per_led=0)) == pytest.approx(60)
    # A 3 A build: 3000 mA - 600 for the Pi - 400 margin is the default budget.
    assert PowerBudget().limit_ma == 3000 - 600 - 400


def test_bringup_checks_the_supply_under_load() -> None:
    text = (HARDWARE / "bringup.md").read_text(encoding="utf-8")
    assert "vcgencmd get_throttled" in text
    assert "0x10000" in text


def test_the_power_tables_of_the_guide_are_current() -> None:
    text = (HARDWARE / "power.md").read_text(encoding="utf-8")
    for name, write in (
        ("power-layouts", power.layouts_table),
        ("power-protection", power.protection_table),
        ("tvs", power.tvs_table),
        ("chargers", power.chargers_table),
    ):
        assert docs.read_block(text, name) == write(), "run: python -m tools.hardware.docs --write"


def test_the_power_guide_names_the_parts_the_schematic_has() -> None:
    text = (HARDWARE / "power.md").read_text(encoding="utf-8")
    for part in ("LTC4365", "BSC028N06LS3", "MF-RG300", power.tvs()[0]):
        assert part in text
    for gone in ("crowbar", "SCR", "TL431", "1.5KE6.8A"):
        assert gone not in text, f"power.md still describes the {gone}"
    assert f"**{MA_PER_LED_WHITE:.0f} mA**" in text
    assert "5 V DC ONLY" in text


def test_the_firmware_and_the_host_plan_on_the_same_current_per_led() -> None:
    settings = firmware_settings()
    assert settings["LED_MA"] == MA_PER_LED_WHITE == 60
    assert f"`LED_MA = {settings['LED_MA']}` mA" in power.layouts_table()


def test_the_supply_worst_case_is_the_budget_plus_the_pi() -> None:
    assert power.strip_budget_ma() == min(BoardConfig().power_budget_ma, 2000)
    assert power.supply_ma() == power.strip_budget_ma() + 600
    # The reference 3 A supply carries it with the planned margin; F1 holds it in a warm bay.
    assert power.supply_ma() + power.MARGIN_MA <= 3000
    assert power.supply_ma() <= power.F1_HOLD_40C_A * 1000


def test_a_pair_drops_twice_its_length() -> None:
    # 1 m of 20 AWG (33.31 mOhm/m) out and back at 2 A: 2 x 0.0333 x 2 = 0.133 V.
    assert power.pair_drop_v(1.0, 20, 2.0) == pytest.approx(0.1332, abs=1e-4)


def test_the_carrier_s_loss_is_both_mosfets_and_the_fuse_after_a_trip() -> None:
    # 2.6 A x (2 x 2.8 mOhm x 2 + 97.5 mOhm) = 0.283 V; from 4.845 V that leaves 4.56 V.
    assert power.carrier_drop_v(2.6) == pytest.approx(2.6 * (2 * 0.0028 * 2 + 0.0975))
    assert power.pi_rail_v() == pytest.approx(5.1 * 0.95 - power.carrier_drop_v(2.6))
    # At the very worst case (full budget, sagging supply, F1 after a trip) the Pi may flag
    # under-voltage: the guide says so rather than hiding it.
    assert power.pi_rail_v() < power.PI_UNDERVOLTAGE_V
    assert f"sees **{power.pi_rail_v():.2f} V**" in power.layouts_table()


@pytest.mark.parametrize("name", LAYOUT_NAMES)
def test_every_led_keeps_its_supply_at_the_worst_case(name: str) -> None:
    worst = power.layout_power(name)
    assert worst.feeds, "no power feed"
    assert worst.worst_led_v >= power.WS2812B_VDD_V[0] + 0.5
    # Every feed's wire is its groove plus the allowance through the board.
    assert all(0.1 < metres < 1.0 for _, metres in worst.feeds)


def test_the_divider_is_the_one_in_kicad_s_netlist() -> None:
    top, mid, bottom = power.divider_ohms()
    # LTC4365: pin 1 VIN, 2 UV, 3 OV; the resistors between them, read from the netlist.
    vin, uv, ov = (net_of("U1", pin) for pin in "123")

    def between(a: str, b: str) -> float:
        (ref,) = {r for r, _ in NETS[a] if r.startswith("R")} & {r for r, _ in NETS[b]}
        return power.ohms(VALUES[ref])

    assert (between(vin, uv), between(uv, ov), between(ov, "GND")) == (top, mid, bottom)


def test_the_trip_points_are_worked_from_each_tolerance() -> None:
    # By hand, 1 MOhm / 34.8 kOhm / 100 kOhm at 1 %, the thresholds 492-508 mV:
    ov_low = 0.492 * (1 + 1034.8 * 0.99 / (100 * 1.01))
    ov_high = 0.508 * (1 + 1034.8 * 1.01 / (100 * 0.99))
    uv_low = 0.492 * (1 + 1000 * 0.99 / (134.8 * 1.01))
    uv_high = 0.508 * (1 + 1000 * 1.01 / (134.8 * 0.99))
    ov, uv = power.over_voltage(), power.under_voltage()
    assert (ov.low, ov.high, uv.low, uv.high) == pytest.approx((ov_low, ov_high, uv_low, uv_high))
    assert ov.nominal == pytest.approx(5.674) and uv.nominal == pytest.approx(4.209, abs=1e-3)
    # Passes the 5.2 V trim with a margin, opens before 6 V; never cuts a USB-C supply low.
    assert ov.low - power.SUPPLY_MAX_V > 0.25
    assert ov.high < 6.0
    assert uv.high < power.VSAFE5V[0]
    assert ov.low < ov.nominal < ov.high and uv.low < uv.nominal < uv.high


def test_the_tvs_stand_off_sits_above_every_rail_the_input_passes() -> None:
    name, tvs = power.tvs()
    assert name == "SMAJ6.0A"
    assert tvs.standoff_v > power.over_voltage().high > power.VSAFE5V[1]
    # The SMAJ5.0A it replaced would sit in its leakage at a 5.1 V supply already.
    assert power.SMAJ["SMAJ5.0A"].standoff_v < power.SUPPLY_NOMINAL_V
    assert "| SMAJ5.0A | 5 V | **no** | **no** |" in power.tvs_table()


def test_a_charger_works_only_when_its_5_v_row_carries_the_budget() -> None:
    table = power.chargers_table()
    rows = {r.split(" | ")[0].strip("| "): r for r in table.splitlines() if r.startswith("| 5")}
    assert "| works |" in rows["5 V 3 A"]
    assert "**overloaded**" in rows["5 V 1.5 A"] and "| 500 |" in rows["5 V 1.5 A"]
    assert "**overloaded**" in rows["5 V 2 A"] and "| 1000 |" in rows["5 V 2 A"]
    # A 5 A charger does not lift the budget past what F1 holds in a warm bay.
    assert "| 2000 |" in rows["5.1 V 5 A"]
    assert "none" in rows["5 V 0.9 A or less"]


def test_every_wrong_supply_names_the_datasheet_it_rests_on() -> None:
    table = power.protection_table()
    rows = [r for r in table.splitlines() if r.startswith("| ") and "---" not in r]
    assert len(rows) >= 12
    for row in rows[1:]:
        if row.startswith(("| figure", "| supply")):
            continue
        assert row.rstrip(" |").split(" | ")[-1].strip(), row
    for case in ("9 V, 12 V or 20 V", "reversed", "a short on the strip"):
        assert case in table


def test_the_parts_list_names_the_gauges_the_drops_are_worked_for() -> None:
    text = (HARDWARE / "parts.md").read_text(encoding="utf-8")
    assert f"the strip's input and each power injection point | **{power.FEED_AWG} AWG**" in text
    assert f"(+5 V, GND, data) | {power.JUMPER_AWG} AWG" in text


def test_the_build_guide_gives_the_code_s_bring_up_figures() -> None:
    text = (HARDWARE / "build.md").read_text(encoding="utf-8")
    assert docs.read_block(text, "bringup-figures") == power.bringup_table()
    table = power.bringup_table()
    # Dark two-121: 50 mA for the Pico and 1 mA for each of its 256 LEDs.
    assert "about 306 mA (50 mA Pico + 1 mA x 256 dark LEDs)" in table
    # At 5.1 V the UV pin reads 5.1 x 134.8 / 1134.8, the OV pin 5.1 x 100 / 1134.8.
    assert "0.61 V (over 0.5 V), 0.45 V (under 0.5 V)" in table
    assert "never over 2,000 mA" in table
