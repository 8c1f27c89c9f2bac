"""The power side of the build guide: the protection's trip point and the per-LED figure."""

from __future__ import annotations

from pathlib import Path

import pytest

from boardctl.board.power import MA_PER_LED_WHITE, PowerBudget, estimate_ma
from tools.hardware import docs
from tools.hardware.parts import (
    PROTECTION,
    SUPPLY_MAX_V,
    SUPPLY_RIPPLE_V,
    TVS_BREAKDOWN_MIN_V,
    parts_table,
    trip_range,
    trip_voltage,
)

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
