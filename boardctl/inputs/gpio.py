"""gpiozero devices for the configured pins, feeding raw events to a callback that only stamps
the time and hands the event on (no gpiozero hold thread: holds are timed in the service loop)."""

from __future__ import annotations

import contextlib
import glob
import logging
import os
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from boardctl.config import SHARED_PINS, PinsConfig
from boardctl.errors import GpioError
from boardctl.inputs.events import Edge, InputEvent, Turn
from boardctl.inputs.panel import TRACK_BUTTONS
from boardctl.view import ButtonId

BUTTONS = (*SHARED_PINS, *TRACK_BUTTONS)

log = logging.getLogger(__name__)

Sink = Callable[[InputEvent], None]


def gpio_chips() -> list[str]:
    return sorted(glob.glob("/dev/gpiochip*"))


def default_pin_factory() -> Any:
    """gpiozero's default pin factory (``GPIOZERO_PIN_FACTORY``, else the first that loads),
    which :meth:`Device.ensure_pin_factory` makes every device's."""
    from gpiozero import Device

    Device.ensure_pin_factory()
    return Device.pin_factory


def pin_factory() -> tuple[Any, bool]:
    """The gpiozero pin factory and whether it is the mock one: ``GPIOZERO_PIN_FACTORY``'s, mock
    pins without a GPIO chip, else the first default that loads (none: :class:`GpioError`)."""
    import warnings

    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory

    if Device.pin_factory is not None:
        factory = Device.pin_factory
    elif named := os.environ.get("GPIOZERO_PIN_FACTORY"):
        try:
            factory = default_pin_factory()
        except Exception as exc:  # BadPinFactory, or the library's own import error
            raise GpioError(f"GPIOZERO_PIN_FACTORY={named}: {exc}") from exc
    elif not (found := gpio_chips()):
        log.warning(
            "no GPIO chip found (/dev/gpiochip*): using mock pins "
            "(no button on this machine can be read)"
        )
        factory = MockFactory()
    else:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                factory = default_pin_factory()
            except Exception as exc:  # gpiozero raises BadPinFactory after trying all
                reasons = [*(str(warning.message) for warning in caught), str(exc)]
                for reason in reasons:
                    log.error("GPIO: %s", reason)
                raise GpioError(
                    f"GPIO chips {', '.join(found)} found, but no gpiozero pin factory could "
                    f"open them ({'; '.join(reasons)}); on Raspberry Pi OS install "
                    "python3-lgpio and gpiozero>=2.0.1.post1 (systemd/install.sh does both)"
                ) from exc
        for warning in caught:
            log.warning("GPIO: %s", warning.message)
    return factory, isinstance(factory, MockFactory)


class Inputs:
    """The board's buttons and encoders; ``close()`` releases the pins."""

    def __init__(
        self,
        pins: PinsConfig,
        tracks: int,
        sink: Sink,
        *,
        factory: Any = None,
        clock: Callable[[], float] = time.monotonic,
        lock: Any = None,
    ) -> None:
        from gpiozero import DigitalInputDevice, RotaryEncoder

        self.buttons: dict[str, Any] = {}
        self.encoders: dict[int, Any] = {}
        self._sink = sink
        self._clock = clock
        # Stamping an edge and queueing it happen under ``lock``, so a reader that takes
        # the lock and reads the clock knows every edge stamped before then is queued.
        self._lock = lock if lock is not None else contextlib.nullcontext()
        try:
            for name, pin in pins.named():
                wired = ButtonId.from_name(name)
                if pin is None or wired.role not in BUTTONS or (wired.track or 0) >= tracks:
                    continue  # not wired, an encoder's contact, or a track the game has not
                self.buttons[name] = button = DigitalInputDevice(
                    pin, pull_up=True, bounce_time=None, pin_factory=factory
                )
                button.when_activated = self._handler(partial(Edge, name, True))
                button.when_deactivated = self._handler(partial(Edge, name, False))
            for track, table in enumerate(pins.tracks[:tracks]):
                if table.encoder_a is None or table.encoder_b is None:
                    continue
                self.encoders[track] = encoder = RotaryEncoder(
                    table.encoder_a, table.encoder_b, max_steps=0, pin_factory=factory
                )
                encoder.when_rotated_clockwise = self._handler(partial(Turn, track, 1))
                encoder.when_rotated_counter_clockwise = self._handler(partial(Turn, track, -1))
        except BaseException:
            self.close()
            raise

    def _handler(self, event: Callable[[float], InputEvent]) -> Callable[[], None]:
        """A gpiozero callback posting ``event`` stamped with the time it runs."""

        def handler() -> None:
            with self._lock:
                self._sink(event(self._clock()))

        return handler

    def close(self) -> None:
        """Release every pin (again: nothing)."""
        for device in [*self.buttons.values(), *self.encoders.values()]:
            device.close()
