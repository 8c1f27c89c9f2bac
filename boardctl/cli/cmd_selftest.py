"""``boardctl selftest``: check the strip and every input of a built board
(:mod:`boardctl.hardware.selftest`, docs/service.md)."""

from __future__ import annotations

import argparse
import time
from typing import Any

from boardctl.choices import Names
from boardctl.errors import HardwareError

HELP = "hardware self-test: light each LED in turn, report each button as it is pressed"


def _brightness(text: str) -> int:
    value = int(text)
    if not 1 <= value <= 255:
        raise argparse.ArgumentTypeError(f"brightness must be 1-255, not {value}")
    return value


def _seconds(text: str) -> float:
    value = float(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, not {value}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", help="configuration file (default /etc/boardctl/config.toml)")
    parser.add_argument("--layout", help="layout file or built-in name (default: the config's)")
    parser.add_argument(
        "--link", choices=Names("boardctl.link", "KINDS"), help="LED link (default: the config's)"
    )
    parser.add_argument("--device", help="serial device of the link (default: the config's)")
    for option, default, text in (
        ("--delay", 0.05, "seconds each LED stays lit (0.05)"),
        ("--hold", 2.0, "seconds the colour check stays lit (2)"),
        ("--wait", 60.0, "after the sweep, seconds to wait for the inputs not yet seen (60)"),
        ("--connect-timeout", 5.0, "seconds a serial link may take to connect first (5)"),
    ):
        parser.add_argument(option, type=_seconds, default=default, help=text)
    parser.add_argument(
        "--brightness", type=_brightness, help="LED level 1-255 (default: the config's)"
    )
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--no-inputs", action="store_true", help="test the LEDs only")
    group.add_argument("--only-inputs", action="store_true", help="test the inputs only")


def run(args: argparse.Namespace) -> int:
    from boardctl.board.frame import blank_frame
    from boardctl.board.layout import load_layout
    from boardctl.config import link_options, load_config
    from boardctl.hardware.selftest import LedStep, SelfTest
    from boardctl.link import open_link

    config = load_config(args.config)
    kind = "null" if args.only_inputs else (args.link or config.link.kind)
    layout = load_layout(args.layout or config.board.layout)
    level = args.brightness or config.board.brightness
    roles = layout.roles()  # each LED's role, else "unused"
    print(f"layout {layout.name}: {layout.led_count} LEDs; link {kind}")

    watch = None if args.no_inputs else _open_inputs(config, len(layout.tracks))
    if watch is None and args.only_inputs:
        raise HardwareError("no GPIO on this machine: there are no inputs to test")
    link = open_link(kind, **link_options(config, kind, args.device))  # as the service does
    test = SelfTest(
        link,
        led_count=layout.led_count,
        steps=[LedStep(i, roles.get(i, "unused")) for i in range(layout.led_count)],
        events=watch.events if watch else None,
        colour=(level, level, level),
    )
    try:
        if kind in ("serial", "adalight"):
            _wait_for_link(link, layout, args.connect_timeout)
        if watch is not None:
            print("inputs: " + (", ".join(watch.names) or "none wired"))
        if not args.only_inputs:
            test.colour_check(hold=args.hold, level=level)
            test.sweep(delay=args.delay)
        if watch is None:
            return 0
        if args.wait:
            print(f"press every button and turn every encoder (waiting {args.wait:g} s)")
        missing = test.wait_for_inputs(watch.names, timeout=args.wait)
        print("never seen: " + ", ".join(missing) if missing else "every input was seen")
        return 1 if missing else 0
    finally:
        link.show(blank_frame(layout.led_count))
        link.close()
        if watch is not None:
            watch.close()


def _open_inputs(config: Any, tracks: int) -> Any:
    """The input watch for the configured pins of the layout's tracks; None when no GPIO
    exists here (mock pins that nothing outside this process can press: not tested)."""
    from gpiozero import Device

    from boardctl.hardware.selftest import InputWatch
    from boardctl.inputs.gpio import pin_factory

    driven = Device.pin_factory is not None  # a program embedding this one drives its pins
    factory, mock = pin_factory()
    if mock and not driven:
        print("no GPIO on this machine: mock pins, which nothing can press; inputs not tested")
        return None
    return InputWatch(config.pins, tracks, pin_factory=factory)


def _wait_for_link(link: Any, layout: Any, timeout: float) -> None:
    """Wait for the serial link; say what the controller reported and what disagrees."""
    deadline = time.monotonic() + timeout
    while not link.connected and time.monotonic() < deadline:
        time.sleep(0.02)
    if not link.connected:
        state = getattr(link, "state", "not connected")
        print(
            f"warning: LED link {state} after {timeout:g} s; the LEDs stay dark until it "
            "connects (check the USB cable, /dev/boardctl-leds and --device)"
        )
        return
    if not hasattr(link, "device"):
        return  # an Adalight device says nothing about itself
    # The Pico's HELLO (firmware version, LED count, colour order) follows the connect.
    while link.device is None and time.monotonic() < deadline + 1.0:
        time.sleep(0.02)
    if link.device is None:
        print("warning: the LED controller has not said hello (is it running boardctl firmware?)")
        return
    firmware, count, order = link.device
    version = ".".join(map(str, firmware))
    print(f"LED controller: firmware {version}, {count} LEDs, colour order {order}")
    if count != layout.led_count:
        print(
            f"warning: the firmware drives {count} LEDs but layout {layout.name} has "
            f"{layout.led_count}: set LED_COUNT = {layout.led_count} in firmware/config.py"
        )
    if order != layout.color_order:
        print(
            f"warning: the firmware's colour order is {order}, layout {layout.name} says "
            f"{layout.color_order}: make them agree (COLOR_ORDER in firmware/config.py)"
        )
