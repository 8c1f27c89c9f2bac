"""The power side of the build guide: the protection's trip point and the per-LED figure."""

from __future__ import annotations

from pathlib import Path

import pytest

from boardctl.board.layout import LAYOUT_NAMES
from boardctl.board.power import MA_PER_LED_WHITE, PowerBudget, estimate_ma
from boardctl.config import BoardConfig
from tools.hardware import docs, power
from tools.hardware.parts import (
    PROTECTION,
    SUPPLY_MAX_V,
    SUPPLY_RIPPLE_V,
    TVS_BREAKDOWN_MIN_V,
    parts_table,
    trip_range,
    trip_voltage,
)
from tools.hardware.pico import firmware_settings

HARDWARE = Path(__file__).resolve().parent.parent / "hardware"


def test_the_crowbar_trips_above_the_supply_and_below_the_tvs() -> None:
    low, high = trip_range()
    assert low < trip_voltage() < high
    assert low > SUPPLY_MAX_V + SUPPLY_RIPPLE_V, "a trimmed supply would blow the fuse"
    assert high < TVS_BREAKDOWN_MIN_V, "the TVS would take the over-voltage instead"
    assert trip_voltage() == pytest.approx(2.495 * (1 + 12.4 / 10), abs=0.001)


def test_every_protection_part_has_a_part_number_and_a_job() -> None:
    refs = [p.ref for p in PROTECTION]
    assert len(refs) == len(set(refs))
    assert {"F1", "D1", "D2", "SCR1", "U1", "Q1"} <= set(refs)
    for part in PROTECTION:
        assert part.part_number and part.why and part.unit_usd > 0
    table = parts_table(PROTECTION)
    assert all(f"| {ref} |" in table for ref in refs)


def test_power_guide_shows_the_protection_and_the_limiters_figure() -> None:
    text = (HARDWARE / "power.md").read_text(encoding="utf-8")
    assert docs.read_block(text, "protection") == docs.protection_section()
    assert "1.5KE6.8A" in text and "BT151-500R" in text
    assert f"**{MA_PER_LED_WHITE:.0f} mA**" in text
    assert "5 V DC ONLY" in text


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


# --- power you can check: tools/hardware/power.py ------------------------------------------


def test_the_power_tables_of_the_guide_are_current() -> None:
    text = (HARDWARE / "power.md").read_text(encoding="utf-8")
    for name, write in (
        ("power-layouts", power.layouts_table),
        ("power-protection", power.protection_table),
        ("chargers", power.chargers_table),
    ):
        assert docs.read_block(text, name) == write(), "run: python -m tools.hardware.docs --write"


def test_the_firmware_and_the_host_plan_on_the_same_current_per_led() -> None:
    settings = firmware_settings()
    assert settings["LED_MA"] == MA_PER_LED_WHITE == 60
    assert f"`LED_MA = {settings['LED_MA']}` mA" in power.layouts_table()


def test_the_supply_worst_case_is_the_budget_plus_the_pi() -> None:
    assert power.strip_budget_ma() == min(BoardConfig().power_budget_ma, 2000)
    assert power.supply_ma() == power.strip_budget_ma() + 600
    # The reference 3 A supply carries it with the planned margin, and F1 with more.
    assert power.supply_ma() + power.MARGIN_MA <= 3000
    assert power.supply_ma() < power.FUSE_RATING_A * 1000


def test_a_pair_drops_twice_its_length() -> None:
    # 1 m of 20 AWG (33.31 mOhm/m) out and back at 2 A: 2 x 0.0333 x 2 = 0.133 V.
    assert power.pair_drop_v(1.0, 20, 2.0) == pytest.approx(0.1332, abs=1e-4)


@pytest.mark.parametrize("name", LAYOUT_NAMES)
def test_every_led_keeps_its_supply_at_the_worst_case(name: str) -> None:
    worst = power.layout_power(name)
    assert worst.feeds, "no power feed"
    assert worst.worst_led_v >= power.WS2812B_VDD_MIN_V + 0.5
    # Every feed's wire is its groove plus the allowance through the board.
    assert all(0.1 < metres < 1.0 for _, metres in worst.feeds)


def test_the_crowbar_trip_range_is_worked_from_each_tolerance() -> None:
    # By hand: V_ref 2.495 -1 % - 17 mV = 2.453 V with R1 -1 % over R2 +1 %, and the reverse.
    low = (2.495 * 0.99 - 0.017) * (1 + 12.4 * 0.99 / (10 * 1.01))
    high = (2.495 * 1.01 + 0.017) * (1 + 12.4 * 1.01 / (10 * 0.99))
    assert trip_range() == pytest.approx((low, high))
    assert 5.42 < low < 5.44 and 5.74 < high < 5.76


def test_the_fired_scr_is_safe_only_under_its_thermal_limit() -> None:
    # (125 C - 40 C) / (1.3 + 20.5 K/W) = 3.9 W, at 1.2 V: 3.25 A.
    assert power.scr_safe_amps() == pytest.approx(85 / 21.8 / 1.2, rel=1e-6)
    table = power.protection_table()
    # The window where F1 holds and the SCR overheats is named, not hidden.
    assert f"between {power.scr_safe_amps():.1f} and 8.4 A | **not safe**" in table
    assert "F1 holds / opens | 6.0 A for an hour / 8.4 A within 30 min" in table
    # And a charger at the top of vSafe5V can reach the crowbar's lowest trip point.
    assert trip_range()[0] < power.VSAFE5V[1]
    assert "can trip it" in table


def test_a_charger_works_only_when_its_5_v_row_carries_the_budget() -> None:
    table = power.chargers_table()
    rows = {r.split(" | ")[0].strip("| "): r for r in table.splitlines() if r.startswith("| 5")}
    assert "| works |" in rows["5 V 3 A"]
    assert "**overloaded**" in rows["5 V 1.5 A"] and "| 500 |" in rows["5 V 1.5 A"]
    assert "**overloaded**" in rows["5 V 2 A"] and "| 1000 |" in rows["5 V 2 A"]
    # A 5 A charger does not lift the budget past what F1 (4 A) carries.
    assert "| 3000 |" in rows["5.1 V 5 A"]
    assert "none" in rows["5 V 0.9 A or less"]


def test_the_parts_list_names_the_gauges_the_drops_are_worked_for() -> None:
    text = (HARDWARE / "parts.md").read_text(encoding="utf-8")
    assert (
        f"| supply -> fuse -> distribution point (+5 V and GND) | **{power.SUPPLY_AWG} AWG**"
        in text
    )
    assert f"each power injection point of the strip | **{power.FEED_AWG} AWG**" in text
    assert f"(+5 V, GND, data) | {power.JUMPER_AWG} AWG" in text


def test_the_build_guide_gives_the_code_s_bring_up_figures() -> None:
    text = (HARDWARE / "build.md").read_text(encoding="utf-8")
    assert docs.read_block(text, "bringup-figures") == power.bringup_table()
    table = power.bringup_table()
    # Dark two-121: 50 mA for the Pico and 1 mA for each of its 256 LEDs.
    assert "about 306 mA (50 mA Pico + 1 mA x 256 dark LEDs)" in table
    assert f"it must be {trip_range()[0]:.2f} V or more" in table
    assert "never over 2,000 mA" in table
