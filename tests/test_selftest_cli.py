"""``boardctl selftest`` end to end: layout, link and mock pins from the configuration."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

import boardctl.link
from boardctl.board.frame import blank_frame, pixel
from boardctl.board.layout import builtin_layout
from boardctl.cli import main
from boardctl.config import DEFAULT_PINS
from boardctl.hardware.selftest import colour_check_frame
from boardctl.link import RecordingLink
from tests.test_selftest import lit


class PicoLink(RecordingLink):
    device = ((1, 2, 3), 131, "RGB")  # what a Pico's HELLO says


@pytest.fixture
def recording(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    opened: dict[str, Any] = {}

    def fake_open_link(kind: str, **options: Any) -> RecordingLink:
        opened.update(kind=kind, options=options, link=PicoLink())
        link: RecordingLink = opened["link"]
        return link

    monkeypatch.setattr(boardctl.link, "open_link", fake_open_link)
    return opened


def test_lights_every_led_of_the_layout_in_order(
    mock_factory: MockFactory, recording: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    quick = ["--delay", "0", "--hold", "0", "--wait", "0"]
    status = main(
        ["selftest", "--layout", "two-121", "--link", "null", *quick, "--brightness", "200"]
    )
    assert status == 1  # nobody pressed anything
    link: RecordingLink = recording["link"]
    assert recording["kind"] == "null"
    assert link.closed
    layout = builtin_layout("two-121")
    n = layout.led_count
    assert link.frames[0] == colour_check_frame(n, 200)
    sweep = link.frames[1 : 1 + n]
    assert [lit(f) for f in sweep] == [[i] for i in range(n)]
    assert all(pixel(f, i) == (200, 200, 200) for i, f in enumerate(sweep))
    assert link.frames[-1] == blank_frame(n)
    out = capsys.readouterr().out
    roles = layout.roles()
    for led in (0, 31, 60, 121, 252, 255):
        assert f"LED {led:4d}  ({led + 1}/{n})  {roles[led]}\n" in out
    assert "never seen: undo, menu, track1.plus1" in out


def test_serial_link_gets_the_device_and_baud_rate(
    mock_factory: MockFactory, recording: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    serial = ["--link", "serial", "--device", "/dev/ttyX"]
    main(["selftest", "--layout", "two-61", *serial, "--delay", "0", "--hold", "0", "--no-inputs"])
    assert recording["kind"] == "serial"
    # no baud: the link's own (USB CDC ignores it; the UART default is the firmware's)
    assert recording["options"] == {"path": "/dev/ttyX", "budget_ma": 2000, "led_ma": 60}
    out = capsys.readouterr().out
    assert "LED controller: firmware 1.2.3, 131 LEDs, colour order RGB" in out
    assert "LED_COUNT" not in out  # two-61 has 131 LEDs
    assert "the firmware's colour order is RGB, layout two-61 says GRB" in out


@pytest.mark.parametrize("kind", ["serial", "adalight"])
def test_link_options_are_ones_the_real_links_accept(
    mock_factory: MockFactory,
    kind: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    real_open_link = boardctl.link.open_link
    opened: list[Any] = []

    def spy(kind: str, **options: Any) -> Any:
        link = real_open_link(kind, **options)  # a ConfigError here means a wrong option
        opened.append(link)
        return link

    monkeypatch.setattr(boardctl.link, "open_link", spy)
    where = ["--link", kind, "--device", "/nonexistent/tty", "--connect-timeout", "0.1"]
    status = main(
        ["selftest", "--layout", "two-61", *where, "--delay", "0", "--hold", "0", "--no-inputs"]
    )
    assert status == 0
    assert len(opened) == 1
    assert "warning: LED link waiting after 0.1 s" in capsys.readouterr().out


def press_everything(
    factory: MockFactory, pin_numbers: list[int], encoders: list[tuple[int, int]]
) -> threading.Thread:
    """From another thread, once the self-test listens to every pin (each input has its
    edge callback): press all."""

    def worker() -> None:
        wanted = {f"GPIO{n}" for n in pin_numbers + [p for pair in encoders for p in pair]}
        while True:
            try:
                listening = {
                    info.name
                    for info, pin in list(factory.pins.items())
                    if pin.function == "input" and pin.when_changed is not None
                }
            except RuntimeError:  # the pin table changed while we looked
                continue
            if wanted <= listening:
                break
            time.sleep(0.01)
        for number in pin_numbers:
            pin = factory.pin(number)
            pin.drive_low()
            pin.drive_high()
        for a_pin, b_pin in encoders:
            a, b = factory.pin(a_pin), factory.pin(b_pin)
            for pin, level in ((a, 0), (b, 0), (a, 1), (b, 1)):
                pin.drive_low() if level == 0 else pin.drive_high()

    thread = threading.Thread(target=worker, daemon=True)
    thread.start()
    return thread


def test_reports_each_button_and_ends_when_all_were_seen(
    mock_factory: MockFactory, recording: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    track1, track2 = DEFAULT_PINS["track1"], DEFAULT_PINS["track2"]
    buttons = [DEFAULT_PINS["shared"]["undo"], DEFAULT_PINS["shared"]["menu"]]
    for table in (track1, track2):
        buttons += [table["plus1"], table["plus5"], table["encoder_push"]]
    encoders = [(t["encoder_a"], t["encoder_b"]) for t in (track1, track2)]
    buttons_int = [b for b in buttons if b is not None]
    encoders_int = [(a, b) for a, b in encoders if a is not None and b is not None]
    thread = press_everything(mock_factory, buttons_int, encoders_int)
    # (a long wait: the self-test ends as soon as every input was seen, which it then says)
    status = main(["selftest", "--layout", "two-61", "--only-inputs", "--wait", "300"])
    thread.join()
    assert status == 0
    out = capsys.readouterr().out
    assert f"input: track1.plus1 (GPIO{track1['plus1']}) pressed" in out
    assert f"input: track2.plus5 (GPIO{track2['plus5']}) released" in out
    assert (
        f"input: track2.encoder (GPIO{track2['encoder_a']}/{track2['encoder_b']}) "
        "turned clockwise" in out
    )
    assert "every input was seen" in out
    assert "LED " not in out  # --only-inputs: no sweep
    assert recording["kind"] == "null"


def test_bad_options_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["selftest", "--brightness", "0"])
    assert "brightness must be 1-255" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["selftest", "--no-inputs", "--only-inputs"])


def test_unknown_layout_is_a_clear_error(
    mock_factory: MockFactory, recording: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["selftest", "--layout", "/nonexistent/board.toml", "--no-inputs"]) == 1
    assert "boardctl: error: /nonexistent/board.toml" in capsys.readouterr().err


def test_over_a_serial_link_to_the_firmware(
    mock_factory: MockFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    """End to end: the real serial link, a pty, the firmware's controller on CPython."""
    import sys
    from pathlib import Path

    firmware = str(Path(__file__).resolve().parent.parent / "firmware")
    sys.path.insert(0, firmware)
    try:
        from emulator import PtyDevice
    finally:
        sys.path.remove(firmware)
    # A controller set up for 131 LEDs while the layout has 256: the self-test says so.
    with PtyDevice(led_count=131) as device:
        serial = ["--link", "serial", "--device", device.path, "--hold", "0"]
        status = main(
            ["selftest", "--layout", "two-121", *serial, "--delay", "0.002", "--no-inputs"]
        )
        assert status == 0
        deadline = time.monotonic() + 3
        while device.strip.writes < 10 and time.monotonic() < deadline:
            time.sleep(0.02)
        writes = device.strip.writes
    out = capsys.readouterr().out
    assert "LED controller: firmware " in out
    assert ", 131 LEDs, colour order GRB" in out
    assert "set LED_COUNT = 256 in firmware/config.py" in out
    assert writes >= 10  # the sweep reached the strip


def test_without_a_device_the_pico_is_found_by_usb_id(
    mock_factory: MockFactory, recording: dict[str, Any]
) -> None:
    quick = ["--hold", "0", "--delay", "0", "--no-inputs"]
    main(["selftest", "--layout", "two-61", "--link", "serial", *quick])
    assert recording["options"]["vid_pid"] == "2E8A:0005"
    assert "path" not in recording["options"]
