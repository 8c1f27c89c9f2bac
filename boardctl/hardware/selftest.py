"""The hardware self-test: every LED in turn, every button as it is pressed.

:func:`colour_check_frame` lights the first three LEDs red, green and blue (a wrong colour
order shows at once); :class:`SelfTest` sweeps one LED at a time and reports the inputs
:class:`InputWatch` queues. A list stands in for the link::

    >>> shown = []
    >>> class Sink:
    ...     def show(self, frame: bytes) -> None:
    ...         shown.append(frame)
    >>> test = SelfTest(Sink(), led_count=3, steps=[LedStep(i, f"LED {i}") for i in range(3)],
    ...                 sleep=lambda s: None, report=lambda line: None)
    >>> test.sweep(delay=0)
    >>> [f.hex() for f in shown]
    ['ffffff000000000000', '000000ffffff000000', '000000000000ffffff', '000000000000000000']
"""

from __future__ import annotations

import contextlib
import queue
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import Any

from boardctl.board.frame import RGB, Frame, blank_frame
from boardctl.config import PinsConfig
from boardctl.errors import HardwareError
from boardctl.inputs.events import Edge, InputEvent, Turn
from boardctl.link.base import Closing, Link

WHITE: RGB = (255, 255, 255)
COLOUR_CHECK: tuple[RGB, RGB, RGB] = ((255, 0, 0), (0, 255, 0), (0, 0, 255))


@dataclass(frozen=True, slots=True)
class LedStep:
    """One LED of the sweep: its index on the strip and what it is for."""

    index: int
    label: str


def sweep_frame(led_count: int, index: int, colour: RGB = WHITE) -> Frame:
    """A frame with only LED ``index`` lit in ``colour``."""
    if not 0 <= index < led_count:
        raise HardwareError(f"LED {index} is outside the strip (0..{led_count - 1})")
    return blank_frame(index) + bytes(colour) + blank_frame(led_count - index - 1)


def colour_check_frame(led_count: int, level: int = 255) -> Frame:
    """The first three LEDs (fewer on a shorter strip) red, green and blue at ``level``."""
    lit = bytes(level if c else 0 for colour in COLOUR_CHECK[:led_count] for c in colour)
    return lit + blank_frame(led_count - len(lit) // 3)


@dataclass
class SelfTest:
    """Show each LED of ``steps`` in turn on ``sink``, reporting the input lines queued on
    ``events`` (by :class:`InputWatch`) between steps, so a press shows at once."""

    sink: Link  # (or anything with ``show``)
    _: KW_ONLY
    led_count: int
    steps: Sequence[LedStep]
    events: queue.Queue[str] | None = None
    report: Callable[[str], None] = print
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic
    colour: RGB = WHITE
    seen: set[str] = field(default_factory=set)  # the inputs reported (a line's first word)

    def __post_init__(self) -> None:
        if self.led_count < 1:
            raise HardwareError("the strip needs at least one LED")
        for step in self.steps:
            if not 0 <= step.index < self.led_count:
                raise HardwareError(
                    f"{step.label}: LED {step.index} is outside the strip (0..{self.led_count - 1})"
                )

    def colour_check(self, *, hold: float, level: int = 255) -> None:
        """Light LEDs 0, 1, 2 red, green, blue (at ``level``) for ``hold`` seconds."""
        self.report(
            "colour check: LED 0 red, LED 1 green, LED 2 blue (other colours: set "
            "COLOR_ORDER in firmware/config.py, and color_order in the layout, to the strip's)"
        )
        self.sink.show(colour_check_frame(self.led_count, level))
        self._wait(hold)

    def sweep(self, *, delay: float) -> None:
        """Light each LED of ``steps`` alone, ``delay`` seconds each."""
        total = len(self.steps)
        for number, step in enumerate(self.steps, 1):
            self.report(f"LED {step.index:4d}  ({number}/{total})  {step.label}")
            self.sink.show(sweep_frame(self.led_count, step.index, self.colour))
            self._wait(delay)
        self.sink.show(blank_frame(self.led_count))

    def wait_for_inputs(self, expected: Iterable[str], *, timeout: float) -> list[str]:
        """Report inputs until each of ``expected`` (a line's first word) was seen or
        ``timeout`` passes; the ones never seen."""
        missing = [name for name in expected if name not in self.seen]
        deadline = self.clock() + timeout
        while missing and self.events is not None and (left := deadline - self.clock()) > 0:
            with contextlib.suppress(queue.Empty):
                self._record(self.events.get(timeout=min(left, 0.5)))
                missing = [name for name in missing if name not in self.seen]
        return missing

    def _record(self, line: str) -> None:
        self.seen.add(line.partition(" ")[0])
        self.report(f"input: {line}")

    def drain(self) -> None:
        """Report every input event queued so far."""
        with contextlib.suppress(queue.Empty):
            while self.events is not None:
                self._record(self.events.get_nowait())

    def _wait(self, seconds: float) -> None:
        self.drain()
        if seconds > 0:
            self.sleep(seconds)
        self.drain()


class InputWatch(Closing):
    """The inputs of the first ``tracks`` tracks, each press, release or turn queued as a line
    (``"undo (GPIO5) pressed"``)."""

    def __init__(
        self,
        pins: PinsConfig,
        tracks: int,
        *,
        events: queue.Queue[str] | None = None,
        pin_factory: Any = None,
    ) -> None:
        from boardctl.inputs.gpio import Inputs

        self.events: queue.Queue[str] = events if events is not None else queue.Queue()
        self._pins = dict(pins.named())
        self.inputs = Inputs(pins, tracks, self._put, factory=pin_factory)
        encoders = [f"track{track + 1}.encoder" for track in self.inputs.encoders]
        self.names: list[str] = [*self.inputs.buttons, *encoders]

    def _put(self, event: InputEvent) -> None:
        if isinstance(event, Edge):
            done = "pressed" if event.pressed else "released"
            self.events.put(f"{event.button} (GPIO{self._pins[event.button]}) {done}")
        elif isinstance(event, Turn):
            name = f"track{event.track + 1}"
            a, b = self._pins[f"{name}.encoder_a"], self._pins[f"{name}.encoder_b"]
            way = "clockwise" if event.steps > 0 else "counter-clockwise"
            self.events.put(f"{name}.encoder (GPIO{a}/{b}) turned {way}")

    def close(self) -> None:
        """Release every pin."""
        self.inputs.close()
