"""The self-test: LEDs lit one at a time in order, inputs reported as they happen."""

from __future__ import annotations

import queue

import pytest
from gpiozero.pins.mock import MockFactory

from boardctl.board.frame import blank_frame, pixel
from boardctl.config import Config
from boardctl.hardware.selftest import (
    InputWatch,
    LedStep,
    SelfTest,
    colour_check_frame,
    sweep_frame,
)
from boardctl.link import RecordingLink

PINS = Config().pins


def lit(frame: bytes) -> list[int]:
    return [i for i in range(len(frame) // 3) if pixel(frame, i) != (0, 0, 0)]


def test_sweep_frame_lights_exactly_one_led() -> None:
    frame = sweep_frame(5, 3, (1, 2, 3))
    assert len(frame) == 15
    assert lit(frame) == [3]
    assert pixel(frame, 3) == (1, 2, 3)
    with pytest.raises(ValueError, match="outside the strip"):
        sweep_frame(5, 5)


def test_colour_check_is_red_green_blue_on_the_first_leds() -> None:
    frame = colour_check_frame(10)
    assert [pixel(frame, i) for i in range(4)] == [(255, 0, 0), (0, 255, 0), (0, 0, 255), (0, 0, 0)]
    assert colour_check_frame(2) == bytes([255, 0, 0, 0, 255, 0])


def test_sweep_shows_each_led_in_the_given_order_then_blanks() -> None:
    sink = RecordingLink()
    order = [4, 0, 7, 2]
    lines: list[str] = []
    sleeps: list[float] = []
    test = SelfTest(
        sink,
        led_count=8,
        steps=[LedStep(i, f"hole {i}") for i in order],
        report=lines.append,
        sleep=sleeps.append,
    )
    test.sweep(delay=0.25)
    assert [lit(f) for f in sink.frames[:-1]] == [[i] for i in order]
    assert all(pixel(f, i) == (255, 255, 255) for f, i in zip(sink.frames, order, strict=False))
    assert sink.frames[-1] == blank_frame(8)
    assert sleeps == [0.25] * len(order)
    assert lines[0].startswith("LED    4  (1/4)  hole 4")
    assert len(lines) == len(order)


def test_steps_outside_the_strip_are_refused() -> None:
    with pytest.raises(ValueError, match="hole 9: LED 9 is outside"):
        SelfTest(RecordingLink(), led_count=9, steps=[LedStep(9, "hole 9")])


def test_button_pressed_during_the_sweep_is_reported_at_once(mock_factory: MockFactory) -> None:
    sink = RecordingLink()
    lines: list[str] = []
    with InputWatch(PINS, 1) as watch:
        button_pin = mock_factory.pin(PINS.tracks[0].plus1 or 0)

        def sleep(_seconds: float) -> None:
            # The player presses +1 while the second LED is lit.
            if len(sink.frames) == 2:
                button_pin.drive_low()
                button_pin.drive_high()

        test = SelfTest(
            sink,
            led_count=3,
            steps=[LedStep(i, f"LED {i}") for i in range(3)],
            events=watch.events,
            report=lines.append,
            sleep=sleep,
        )
        test.sweep(delay=0.1)
    plus1 = f"track1.plus1 (GPIO{PINS.tracks[0].plus1})"
    assert lines.index(f"input: {plus1} pressed") == 2  # after the 2nd LED line
    assert f"input: {plus1} released" in lines
    assert not any("undo" in line for line in lines)


def test_wait_for_inputs_stops_once_every_input_was_seen(mock_factory: MockFactory) -> None:
    lines: list[str] = []
    with InputWatch(PINS, 1) as watch:
        test = SelfTest(
            RecordingLink(),
            led_count=1,
            steps=[],
            events=watch.events,
            report=lines.append,
        )
        mock_factory.pin(5).drive_low()
        # One detent clockwise: A falls, B falls, A rises, B rises.
        a, b = mock_factory.pin(22), mock_factory.pin(23)
        for pin, level in ((a, 0), (b, 0), (a, 1), (b, 1)):
            pin.drive_low() if level == 0 else pin.drive_high()
        names = ["undo", "menu", "track1.encoder"]
        missing = test.wait_for_inputs(names, timeout=0.3)
        assert missing == ["menu"]
        mock_factory.pin(6).drive_low()
        assert test.wait_for_inputs(names, timeout=5.0) == []
    assert "input: undo (GPIO5) pressed" in lines
    assert "input: track1.encoder (GPIO22/23) turned clockwise" in lines
    assert "input: menu (GPIO6) pressed" in lines


def test_input_watch_releases_its_pins(mock_factory: MockFactory) -> None:
    watch = InputWatch(PINS, 2)
    watch.close()
    # The pins are free again: opening them once more does not raise.
    InputWatch(PINS, 2).close()


def test_queue_is_shared_when_given(mock_factory: MockFactory) -> None:
    events: queue.Queue[str] = queue.Queue()
    watch = InputWatch(PINS, 1, events=events)
    assert watch.events is events
    watch.close()


def test_module_example_runs() -> None:
    import doctest

    import boardctl.hardware.selftest as module

    result = doctest.testmod(module)
    assert result.attempted >= 4
    assert result.failed == 0


def test_input_names_are_the_service_button_names(mock_factory: MockFactory) -> None:
    from boardctl.inputs.panel import parse_button_id

    with InputWatch(PINS, 2) as watch:
        assert watch.names[:2] == ["undo", "menu"]
        assert "track2.plus5" in watch.names and "track1.encoder" in watch.names
        for name in watch.names:
            if not name.endswith(".encoder"):
                parse_button_id(name)  # raises for a name the service does not know
        assert not any(name.startswith("track3") for name in watch.names)
