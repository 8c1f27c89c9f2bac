"""Power limiting, after WLED's automatic brightness limiter: the estimate, the default budget
and the worked figures are docs/board.md, "Power limiting"."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from boardctl.board.frame import Frame
from boardctl.errors import ConfigError

#: WS2812B at full white, per LED (mA): the worst case of the datasheets (3 x 20 mA;
#: WLED assumes 55). The power budget is planned on it.
MA_PER_LED_WHITE = 60.0


@dataclass(frozen=True, slots=True)
class PowerBudget:
    """A current budget for the LED side (strip and its controller), in mA."""

    limit_ma: float = 2000.0
    ma_per_channel: float = MA_PER_LED_WHITE / 3
    idle_ma_per_led: float = 1.0
    controller_ma: float = 50.0

    def __post_init__(self) -> None:
        for name, value in asdict(self).items():
            if value < 0:
                raise ConfigError(f"power budget {name} must not be negative, not {value}")

    def fixed_ma(self, led_count: int) -> float:
        """What the controller and the idle LEDs draw whatever the colours."""
        return self.controller_ma + self.idle_ma_per_led * led_count

    def colour_ma(self, frame: Frame) -> float:
        """What the lit channels of ``frame`` draw."""
        return sum(frame) * self.ma_per_channel / 255


DEFAULT_BUDGET = PowerBudget()  # a 5 V 3 A supply shared with a Pi Zero 2 W


def estimate_ma(frame: Frame, budget: PowerBudget = DEFAULT_BUDGET) -> float:
    """Estimated current of ``frame`` (controller and idle LEDs included), in mA."""
    return budget.fixed_ma(len(frame) // 3) + budget.colour_ma(frame)


def power_scale(frame: Frame, budget: PowerBudget = DEFAULT_BUDGET) -> float:
    """The brightness factor (0..1) that brings ``frame`` within ``budget``."""
    colour = budget.colour_ma(frame)
    available = budget.limit_ma - budget.fixed_ma(len(frame) // 3)
    if colour <= available:
        return 1.0
    return 0.0 if available <= 0 else available / colour


def limit_power(frame: Frame, budget: PowerBudget | float = DEFAULT_BUDGET) -> Frame:
    """``frame`` scaled down (never up) so its estimated current fits ``budget`` (a
    :class:`PowerBudget` or a limit in mA)."""
    if not isinstance(budget, PowerBudget):
        budget = PowerBudget(limit_ma=float(budget))
    scale = power_scale(frame, budget)
    if scale >= 1.0:
        return frame
    table = bytes(int(v * scale) for v in range(256))
    return frame.translate(table)
