"""gpiozero devices on MockFactory pins: edges reach the panel with the injected time."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from boardctl.config import Config, parse_config
from boardctl.errors import GpioError
from boardctl.game.commands import BoardCommand, Peg, Undo
from boardctl.inputs.events import Edge, InputEvent, Turn
from boardctl.inputs.gpio import Inputs, pin_factory
from boardctl.inputs.panel import Panel


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Rig:
    """Inputs on mock pins wired straight into a Panel (as the loop does)."""

    def __init__(self, factory: MockFactory, config: Config | None = None) -> None:
        self.config = config or Config()
        self.clock = Clock()
        self.events: list[InputEvent] = []
        self.panel = Panel(tracks=2)
        self.commands: list[BoardCommand] = []
        self.inputs = Inputs(
            self.config.pins, 2, self.events.append, factory=factory, clock=self.clock
        )
        self.factory = factory

    def pin(self, number: int | None) -> Any:
        assert number is not None
        return self.factory.pin(number)

    def drive(self, number: int | None, sequence: list[tuple[float, bool]]) -> None:
        """Drive a pin through (time, pressed) steps; pressed = pulled low."""
        pin = self.pin(number)
        for t, pressed in sequence:
            self.clock.now = t
            self.flush()
            pin.drive_low() if pressed else pin.drive_high()
            self.flush()

    def flush(self) -> None:
        while self.events:
            event = self.events.pop(0)
            if isinstance(event, Edge):
                self.commands += self.panel.edge(event.button, event.pressed, event.at)
            elif isinstance(event, Turn):
                assert event.at is not None
                self.commands += self.panel.turn(event.track, event.steps, event.at)

    def run_until(self, end: float) -> None:
        for _ in range(1000):
            due = self.panel.deadline()
            if due is None or due > end:
                break
            self.clock.now = due
            self.commands += self.panel.tick(due)


def chatter(start: float, pressed: bool, bounces: int, gap: float) -> list[tuple[float, bool]]:
    """An edge to ``pressed`` followed by ``bounces`` pairs of bounce edges."""
    steps = [(start, pressed)]
    t = start
    for _ in range(bounces):
        t += gap
        steps.append((t, not pressed))
        t += gap
        steps.append((t, pressed))
    return steps


def test_buttons_are_pulled_up_inputs_on_the_configured_pins(mock_factory: MockFactory) -> None:
    rig = Rig(mock_factory)
    pins = rig.config.pins
    assert set(rig.inputs.buttons) == {
        "undo",
        "menu",
        "track1.plus1",
        "track1.plus5",
        "track1.encoder_push",
        "track2.plus1",
        "track2.plus5",
        "track2.encoder_push",
    }
    assert rig.pin(pins.tracks[0].plus1).pull == "up"
    assert rig.pin(pins.undo).pull == "up"
    assert set(rig.inputs.encoders) == {0, 1}
    rig.inputs.close()
    assert rig.inputs.buttons["menu"].closed


def test_inputs_start_no_threads(mock_factory: MockFactory) -> None:
    """No polling: gpiozero.Button would start a hold thread per button (0.1 s wake-ups)."""
    import threading

    before = threading.active_count()
    rig = Rig(mock_factory)
    assert threading.active_count() == before
    rig.inputs.close()


def test_chattering_presses_on_mock_pins_count_once_each(mock_factory: MockFactory) -> None:
    rig = Rig(mock_factory)
    plus1 = rig.config.pins.tracks[0].plus1
    for i in range(3):
        t = 0.4 * i
        rig.drive(plus1, chatter(t, True, bounces=4, gap=0.0007))
        rig.drive(plus1, chatter(t + 0.15, False, bounces=3, gap=0.001))
    assert rig.panel.pending == (3, 0)
    # gpiozero saw every bounce; the panel counted three presses
    assert len(rig.pin(plus1).states) > 20
    rig.run_until(10.0)
    assert rig.commands == [Peg(0, 3)]


def test_a_button_stuck_down_never_adds_more_than_one_entry(mock_factory: MockFactory) -> None:
    rig = Rig(mock_factory)
    plus5 = rig.config.pins.tracks[1].plus5
    rig.drive(plus5, chatter(0.0, True, bounces=5, gap=0.001))
    rig.run_until(3600.0)
    assert rig.panel.pending == (0, 0)
    assert rig.commands.count(Undo()) <= 1
    assert not any(isinstance(c, Peg) for c in rig.commands)
    assert rig.panel.deadline() is None  # no timer left running for a stuck button


def test_two_tracks_pressing_at_the_same_instant_both_count(mock_factory: MockFactory) -> None:
    rig = Rig(mock_factory)
    a = rig.config.pins.tracks[0].plus1
    b = rig.config.pins.tracks[1].plus1
    rig.clock.now = 1.0
    rig.pin(a).drive_low()
    rig.pin(b).drive_low()
    rig.clock.now = 1.0005
    rig.pin(a).drive_high()  # bounce on both
    rig.pin(b).drive_high()
    rig.pin(a).drive_low()
    rig.pin(b).drive_low()
    rig.clock.now = 1.2
    rig.pin(a).drive_high()
    rig.pin(b).drive_high()
    rig.flush()
    assert rig.panel.pending == (1, 1)
    rig.run_until(5.0)
    assert sorted((c.track, c.points) for c in rig.commands if isinstance(c, Peg)) == [
        (0, 1),
        (1, 1),
    ]


def test_encoder_quadrature_turns_and_push_commits(mock_factory: MockFactory) -> None:
    rig = Rig(mock_factory)
    track = rig.config.pins.tracks[0]
    a, b = rig.pin(track.encoder_a), rig.pin(track.encoder_b)

    def detent(clockwise: bool) -> None:
        first, second = (a, b) if clockwise else (b, a)
        first.drive_low()
        second.drive_low()
        first.drive_high()
        second.drive_high()

    for _ in range(4):
        detent(True)
    detent(False)
    rig.flush()
    assert rig.panel.pending == (3, 0)
    rig.drive(track.encoder_push, chatter(0.5, True, bounces=2, gap=0.001))
    rig.drive(track.encoder_push, [(0.7, False)])
    assert rig.commands == [Peg(0, 3)]


def test_edges_are_stamped_and_queued_under_the_loops_lock(mock_factory: MockFactory) -> None:
    """The loop reads its clock under the same lock, so no stamped edge is ever unseen."""
    import threading

    lock = threading.Lock()
    seen: list[bool] = []
    inputs = Inputs(
        Config().pins, 2, lambda event: seen.append(lock.locked()), factory=mock_factory, lock=lock
    )
    mock_factory.pin(Config().pins.tracks[0].plus1).drive_low()
    mock_factory.pin(Config().pins.tracks[0].plus1).drive_high()
    assert seen == [True, True]
    inputs.close()


def test_unwired_pins_make_no_device(mock_factory: MockFactory) -> None:
    config = parse_config(
        {"pins": {"undo": False, "track1": {"encoder_a": False, "encoder_b": False}}}
    )
    rig = Rig(mock_factory, config)
    assert "undo" not in rig.inputs.buttons
    assert set(rig.inputs.encoders) == {1}


def test_pin_factory_uses_the_configured_mock(mock_factory: MockFactory) -> None:
    factory, mock = pin_factory()
    assert factory is mock_factory and mock


def test_pin_factory_falls_back_to_mock_pins_without_a_gpio_chip(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    saved = Device.pin_factory
    Device.pin_factory = None
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    monkeypatch.setattr("glob.glob", lambda pattern: [])
    try:
        with caplog.at_level("WARNING"):
            factory, mock = pin_factory()
        assert mock and isinstance(factory, MockFactory)
        assert "no GPIO chip found" in caplog.text
        assert caplog.text.count("mock pins") == 1
    finally:
        Device.pin_factory = saved


def test_pin_factory_with_a_gpio_chip_but_no_factory_logs_every_reason_and_fails(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    saved = Device.pin_factory
    Device.pin_factory = None
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    monkeypatch.setattr("boardctl.inputs.gpio.gpio_chips", lambda: ["/dev/gpiochip0"])
    try:
        with caplog.at_level("WARNING"), pytest.raises(GpioError) as failed:
            # gpiozero's own default loader, on a machine without lgpio, RPi.GPIO or pigpio
            pin_factory()
    finally:
        Device.pin_factory = saved
    for name in ("lgpio", "rpigpio", "pigpio", "native"):
        assert f"Falling back from {name}" in caplog.text
        assert f"Falling back from {name}" in str(failed.value)
    assert "/dev/gpiochip0" in str(failed.value) and "python3-lgpio" in str(failed.value)
    assert "mock pins" not in caplog.text


def test_pin_factory_logs_the_fallbacks_before_the_factory_that_loads(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import warnings

    chosen = MockFactory()

    def load() -> MockFactory:
        warnings.warn("Falling back from lgpio: cannot open gpiochip4", stacklevel=1)
        return chosen

    saved = Device.pin_factory
    Device.pin_factory = None
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    monkeypatch.setattr("boardctl.inputs.gpio.gpio_chips", lambda: ["/dev/gpiochip0"])
    monkeypatch.setattr("boardctl.inputs.gpio.default_pin_factory", load)
    try:
        with caplog.at_level("WARNING"):
            factory, mock = pin_factory()
    finally:
        Device.pin_factory = saved
    assert factory is chosen and mock  # (the loader's MockFactory, as it returned it)
    assert "cannot open gpiochip4" in caplog.text


def test_the_service_exits_non_zero_when_a_gpio_chip_has_no_pin_factory(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from boardctl.cli import main

    saved = Device.pin_factory
    Device.pin_factory = None
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    monkeypatch.setattr("boardctl.inputs.gpio.gpio_chips", lambda: ["/dev/gpiochip0"])
    config = tmp_path / "config.toml"
    config.write_text('[link]\nkind = "null"\n')
    where = ["--journal", str(tmp_path / "j.sqlite"), "--socket", str(tmp_path / "s.sock")]
    try:
        code = main(["run", "--config", str(config), "--display", "none", *where])
    finally:
        Device.pin_factory = saved
    assert code == 1
    err = capsys.readouterr().err
    assert "boardctl: error: GPIO chips /dev/gpiochip0 found" in err
    assert not (tmp_path / "s.sock").exists()


def test_a_named_pin_factory_that_does_not_load_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    saved = Device.pin_factory
    Device.pin_factory = None
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "lgpio")  # not installed here
    try:
        with pytest.raises(GpioError, match="GPIOZERO_PIN_FACTORY=lgpio"):
            pin_factory()
    finally:
        Device.pin_factory = saved
