"""The hardware self-test: every LED in turn, every button as it is pressed.

The self-test is built from small parts so that a test can drive it with a
recording link, mock pins and a fake clock:

- :func:`colour_check_frame` lights the first three LEDs red, green and blue, so
  a wrong colour order in the layout is seen at once;
- :func:`sweep_frame` lights one LED; :class:`SelfTest` shows one such frame
  per LED, in the order given (normally every LED of the strip, labelled with
  its role in the layout), and reports each step;
- :class:`InputWatch` opens every wired button and encoder with gpiozero and
  queues a line for each press or turn; the self-test reports them between
  steps and, after the sweep, until every input was seen or time runs out.

Example (no hardware: a list stands in for the link)::

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
from dataclasses import dataclass
from typing import Any, Protocol

from boardctl.board.frame import RGB, Frame, blank_frame
from boardctl.errors import HardwareError

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


class SelfTest:
    """Show each LED in turn on ``sink`` and report inputs from ``events``.

    ``steps`` is the order of the sweep. ``events`` (optional) is a queue of
    report lines filled by :class:`InputWatch` callbacks; they are reported
    between steps, so a button pressed during the sweep shows up at once.
    ``sleep`` and ``clock`` are injected for tests.
    """

    def __init__(
        self,
        sink: FrameSink,
        *,
        led_count: int,
        steps: Sequence[LedStep],
        events: queue.Queue[str] | None = None,
        report: Callable[[str], None] = print,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        colour: RGB = WHITE,
    ) -> None:
        if led_count < 1:
            raise HardwareError("the strip needs at least one LED")
        for step in steps:
            if not 0 <= step.index < led_count:
                raise HardwareError(
                    f"{step.label}: LED {step.index} is outside the strip (0..{led_count - 1})"
                )
        self.sink = sink
        self.led_count = led_count
        self.steps = list(steps)
        self.events = events
        self.report = report
        self.sleep = sleep
        self.clock = clock
        self.colour = colour
        self.inputs_seen: list[str] = []

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
        """Report inputs until each of ``expected`` was seen or ``timeout`` passes.

        Returns the expected inputs never seen. An input counts as seen when
        a report line starts with its name.
        """
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
    """Open buttons and encoders with gpiozero; queue a line per press or turn.

    ``buttons`` maps a name (``"track1.plus1"``) to a BCM pin; ``encoders``
    maps a name (``"track1.encoder"``) to its (A, B) pins. Buttons switch to
    ground (internal pull-ups), as in the wiring guide. Lines look like
    ``"track1.plus1 (GPIO17) pressed"`` and ``"track1.encoder (GPIO22/23)
    turned clockwise"``. Use as a context manager, or call :meth:`close`.
    """

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
        """Release every pin."""
        while self._devices:
            self._devices.pop().close()

    def __enter__(self) -> InputWatch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def layout_steps(led_count: int, roles: Mapping[int, str]) -> list[LedStep]:
    """Every LED of the strip in order, named by its role in the layout.

    ``roles`` is :meth:`boardctl.board.layout.Layout.roles`; LEDs the layout
    does not use are swept too (labelled "unused"), so a gap in the strip shows.
    """
    return [LedStep(i, roles.get(i, "unused")) for i in range(led_count)]


def input_pins(
    undo: int | None,
    menu: int | None,
    tracks: Iterable[Any],
) -> tuple[dict[str, int], dict[str, tuple[int, int]]]:
    """Buttons and encoders to watch, named as the service names them.

    ``tracks`` holds one pin table per track of the layout (objects with
    ``plus1``, ``plus5``, ``encoder_a``, ``encoder_b``, ``encoder_push``;
    ``None`` = not wired). Returns ``(buttons, encoders)``:
    ``{"undo": 5, "track1.plus1": 17, ...}`` and ``{"track1.encoder": (22, 23)}``.
    """
    from boardctl.inputs.panel import button_id

    buttons: dict[str, int] = {}
    if undo is not None:
        buttons[button_id("undo")] = undo
    if menu is not None:
        buttons[button_id("menu")] = menu
    encoders: dict[str, tuple[int, int]] = {}
    for track, table in enumerate(tracks):
        for role in ("plus1", "plus5", "encoder_push"):
            pin = getattr(table, role)
            if pin is not None:
                buttons[button_id(role, track)] = pin
        if table.encoder_a is not None and table.encoder_b is not None:
            encoders[f"track{track + 1}.encoder"] = (table.encoder_a, table.encoder_b)
    return buttons, encoders
