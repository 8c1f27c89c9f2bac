"""The power limiter: estimates like WLED's, and scaled frames stay within the budget."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boardctl.board.power import (
    DEFAULT_BUDGET,
    PowerBudget,
    estimate_ma,
    limit_power,
    power_scale,
)
from boardctl.errors import ConfigError


def test_estimate_of_a_dark_strip_is_controller_plus_idle() -> None:
    assert estimate_ma(bytes(3 * 256)) == pytest.approx(50 + 256 * 1.0)


def test_full_white_led_draws_60_ma() -> None:
    one_white = b"\xff\xff\xff" + bytes(3 * 9)
    budget = PowerBudget(controller_ma=0, idle_ma_per_led=0)
    assert estimate_ma(one_white, budget) == pytest.approx(60.0)
    # WLED's formula, sum(r+g+b) * 55 / 765, with the worst case of 60 for WLED's 55
    frame = bytes([10, 200, 30, 0, 0, 255])
    assert estimate_ma(frame, budget) == pytest.approx((10 + 200 + 30 + 255) * 60 / 765)


def test_frames_within_budget_are_returned_unchanged() -> None:
    frame = bytes([230, 159, 0]) + bytes(3 * 255)
    assert limit_power(frame) is frame
    assert power_scale(frame) == 1.0


def test_full_white_board_is_scaled_to_the_default_budget() -> None:
    white = b"\xff" * (3 * 256)
    assert estimate_ma(white) > 14_000
    limited = limit_power(white)
    assert estimate_ma(limited) <= DEFAULT_BUDGET.limit_ma
    # scaled, not blanked: the budget is mostly used
    assert estimate_ma(limited) > 0.95 * DEFAULT_BUDGET.limit_ma
    assert len(set(limited)) == 1 and 0 < limited[0] < 255


def test_a_number_is_a_limit_in_ma() -> None:
    white = b"\xff" * (3 * 100)
    assert estimate_ma(limit_power(white, 500)) <= 500


def test_budget_below_the_fixed_draw_blanks_the_frame() -> None:
    frame = b"\x80" * 30
    assert limit_power(frame, PowerBudget(limit_ma=40)) == bytes(30)


def test_negative_figures_are_refused() -> None:
    with pytest.raises(ConfigError, match="idle_ma_per_led"):
        PowerBudget(idle_ma_per_led=-1)


frames = st.integers(min_value=1, max_value=300).flatmap(
    lambda n: st.binary(min_size=3 * n, max_size=3 * n)
)
budgets = st.builds(
    PowerBudget,
    limit_ma=st.floats(min_value=0, max_value=20_000),
    ma_per_channel=st.floats(min_value=0, max_value=40),
    idle_ma_per_led=st.floats(min_value=0, max_value=2),
    controller_ma=st.floats(min_value=0, max_value=200),
)


@given(frames, budgets)
def test_limited_frame_fits_and_is_never_brighter(frame: bytes, budget: PowerBudget) -> None:
    limited = limit_power(frame, budget)
    assert len(limited) == len(frame)
    assert all(new <= old for new, old in zip(limited, frame, strict=True))
    fixed = budget.fixed_ma(len(frame) // 3)
    if fixed <= budget.limit_ma:
        assert estimate_ma(limited, budget) <= budget.limit_ma + 1e-6
    else:  # nothing to do but switch every LED off
        assert not any(limited)


@given(frames, budgets)
def test_limiting_twice_changes_nothing_more(frame: bytes, budget: PowerBudget) -> None:
    once = limit_power(frame, budget)
    assert limit_power(once, budget) == once


def test_the_pico_and_the_link_count_the_same_milliamps_per_led_as_the_host() -> None:
    """One figure per LED for both power limiters (the firmware cannot import the package)."""
    import inspect
    import re
    from pathlib import Path

    from boardctl.board.power import MA_PER_LED_WHITE
    from boardctl.config import link_options, parse_config
    from boardctl.link.serial_link import PicoLink

    firmware = (Path(__file__).resolve().parent.parent / "firmware" / "config.py").read_text()
    found = re.search(r"^LED_MA = (\d+)", firmware, re.MULTILINE)
    assert found is not None
    assert int(found.group(1)) == round(MA_PER_LED_WHITE)
    assert link_options(parse_config({}), "serial")["led_ma"] == round(MA_PER_LED_WHITE)
    default = inspect.signature(PicoLink.__init__).parameters["led_ma"].default
    assert default == round(MA_PER_LED_WHITE)
