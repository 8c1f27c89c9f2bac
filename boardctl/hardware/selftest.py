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

import queue
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, Protocol

from boardctl.board.frame import RGB, Frame, blank_frame
from boardctl.config import PinsConfig
from boardctl.errors import HardwareError
from boardctl.view import ButtonId

WHITE: RGB = (255, 255, 255)
COLOUR_CHECK: tuple[RGB, RGB, RGB] = ((255, 0, 0), (0, 255, 0), (0, 0, 255))


class FrameSink(Protocol):
    """Where frames go: a :class:`boardctl.link` Link, or anything with ``show``."""

    def show(self, frame: Frame) -> None:
        """Send one frame to the strip."""


@dataclass(frozen=True, slots=True)
class LedStep:
    """One LED of the sweep: its index on the strip and what it is for."""

    index: int
    label: str


def sweep_frame(led_count: int, index: int, colour: RGB = WHITE) -> Frame:
    """A frame with only LED ``index`` lit in ``colour``."""
    if not 0 <= index < led_count:
        raise HardwareError(f"LED {index} is outside the strip (0..{led_count - 1})")
    out = bytearray(blank_frame(led_count))
    out[3 * index : 3 * index + 3] = bytes(colour)
    return bytes(out)


def colour_check_frame(led_count: int, level: int = 255) -> Frame:
    """The first three LEDs (fewer on a shorter strip) red, green and blue at ``level``."""
    out = bytearray(blank_frame(led_count))
    for index, colour in enumerate(COLOUR_CHECK[:led_count]):
        out[3 * index : 3 * index + 3] = bytes(level if c else 0 for c in colour)
    return bytes(out)


@dataclass
class SelfTest:
    """Show each LED of ``steps`` in turn on ``sink``, reporting the input lines queued on
    ``events`` (by :class:`InputWatch`) between steps, so a press shows at once."""

    sink: FrameSink
    _: KW_ONLY
    led_count: int
    steps: Sequence[LedStep]
    events: queue.Queue[str] | None = None
    report: Callable[[str], None] = print
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic
    colour: RGB = WHITE
    inputs_seen: list[str] = field(default_factory=list)

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
        missing = [name for name in expected if not self._seen(name)]
        deadline = self.clock() + timeout
        while missing and self.events is not None:
            left = deadline - self.clock()
            if left <= 0:
                break
            try:
                line = self.events.get(timeout=min(left, 0.5))
            except queue.Empty:
                continue
            self._record(line)
            missing = [name for name in missing if not self._seen(name)]
        return missing

    def _seen(self, name: str) -> bool:
        return any(line.startswith(name + " ") for line in self.inputs_seen)

    def _record(self, line: str) -> None:
        self.inputs_seen.append(line)
        self.report(f"input: {line}")

    def drain(self) -> None:
        """Report every input event queued so far."""
        if self.events is None:
            return
        while True:
            try:
                line = self.events.get_nowait()
            except queue.Empty:
                return
            self._record(line)

    def _wait(self, seconds: float) -> None:
        self.drain()
        if seconds > 0:
            self.sleep(seconds)
        self.drain()


class InputWatch:
    """Open buttons (name -> BCM pin, to ground) and encoders (name -> A, B pins) with
    gpiozero; queue a line per press or turn (``"track1.plus1 (GPIO17) pressed"``)."""

    def __init__(
        self,
        buttons: Mapping[str, int],
        encoders: Mapping[str, tuple[int, int]] | None = None,
        *,
        events: queue.Queue[str] | None = None,
        pin_factory: Any = None,
    ) -> None:
        from gpiozero import Button, RotaryEncoder

        self.events: queue.Queue[str] = events if events is not None else queue.Queue()
        self.names: list[str] = []
        self._devices: list[Any] = []
        try:
            for name, pin in buttons.items():
                button = Button(pin, pull_up=True, pin_factory=pin_factory)
                button.when_pressed = self._callback(f"{name} (GPIO{pin}) pressed")
                button.when_released = self._callback(f"{name} (GPIO{pin}) released")
                self._devices.append(button)
                self.names.append(name)
            for name, (a, b) in (encoders or {}).items():
                encoder = RotaryEncoder(a, b, max_steps=0, pin_factory=pin_factory)
                where = f"{name} (GPIO{a}/{b})"
                encoder.when_rotated_clockwise = self._callback(f"{where} turned clockwise")
                encoder.when_rotated_counter_clockwise = self._callback(
                    f"{where} turned counter-clockwise"
                )
                self._devices.append(encoder)
                self.names.append(name)
        except BaseException:
            self.close()
            raise

    def _callback(self, line: str) -> Callable[[], None]:
        def put() -> None:
            self.events.put(line)

        return put

    def close(self) -> None:
        while self._devices:
            self._devices.pop().close()

    def __enter__(self) -> InputWatch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def layout_steps(led_count: int, roles: Mapping[int, str]) -> list[LedStep]:
    """Every LED of the strip in order, named by its role (:meth:`Layout.roles`; "unused")."""
    return [LedStep(i, roles.get(i, "unused")) for i in range(led_count)]


def input_pins(pins: PinsConfig, tracks: int) -> tuple[dict[str, int], dict[str, tuple[int, int]]]:
    """The wired buttons of the first ``tracks`` tracks and the shared ones, named as the
    service names them, and their encoders' A and B pins (``{"track1.encoder": (22, 23)}``)."""
    buttons = {
        name: pin
        for name, pin in pins.named()
        if pin is not None
        and (ButtonId.from_name(name).track or 0) < tracks
        and not name.endswith(("encoder_a", "encoder_b"))
    }
    encoders = {
        f"track{track + 1}.encoder": (table.encoder_a, table.encoder_b)
        for track, table in enumerate(pins.tracks[:tracks])
        if table.encoder_a is not None and table.encoder_b is not None
    }
    return buttons, encoders
