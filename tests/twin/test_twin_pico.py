"""The Pico on the Pi's USB, as the Pi sees it: the emulated RP2040 behind a USB gadget.

The guest's CDC ACM gadget on dummy_hcd carries the Pico's USB id (2E8A:0005); its other end
is the emulated RP2040 on the host running the real firmware (tests/twin/pico.py). The chip
starts with other files (a 64-LED RGB strip's config.py, ``OLD_FIRMWARE``) until the
installed package's ``boardctl firmware install`` has flashed it through that port.
"""

from __future__ import annotations

import time

import pytest

from boardctl.link import protocol
from tests.rp2040.chip import Chip
from tests.twin.vm import MPREMOTE, Twin, downloaded, wait_for

pytestmark = pytest.mark.twin

INSTALL_TIMEOUT = 900.0  # `boardctl firmware install` under TCG, mpremote at the chip's pace
LOG_TIMEOUT = 300.0  # a line in the service's journal
PIN_TIMEOUT = 300.0  # the service's frame on the emulated pin


def chip_of(twin: Twin) -> Chip:
    assert twin.pico is not None and twin.pico.chip is not None
    return twin.pico.chip


def service_log(twin: Twin, text: str) -> str:
    """The service's journal (its current run) once it has a line holding ``text``."""

    def found() -> str | None:
        log = twin.ssh("journalctl -b -u boardctl --no-pager -o cat", check=False).stdout
        return log if text in log else None

    return wait_for(f"{text!r} in boardctl's log", found, LOG_TIMEOUT, every=2.0)


def pin_shows_the_service_frame(twin: Twin, after: int = 0) -> bytes:
    """The service's frame, once the emulated LED pin drew it (a frame at ``after`` or later);
    asked again while the service draws newer frames."""
    chip = chip_of(twin)

    def drawn() -> bytes | None:
        rgb = twin.service_frame()
        return rgb if any(f.rgb == rgb for f in chip.frames[after:]) else None

    return wait_for("the service's frame on the LED pin", drawn, PIN_TIMEOUT, every=1.0)


def test_the_pi_sees_the_pico_on_usb_and_the_udev_rule_names_it(twin: Twin) -> None:
    def link() -> str | None:
        done = twin.ssh("readlink /dev/boardctl-leds", check=False)
        return done.stdout.strip() or None

    assert wait_for("/dev/boardctl-leds", link, LOG_TIMEOUT, every=2.0) == "ttyACM0"
    assert "2e8a:0005 MicroPython Board in FS mode" in twin.ssh("lsusb").stdout
    node = twin.ssh("stat -L -c '%G %a %F' /dev/boardctl-leds").stdout.strip()
    assert node == "dialout 660 character special file"
    props = twin.ssh("udevadm info -q property -n /dev/boardctl-leds").stdout.split()
    assert {"ID_VENDOR_ID=2e8a", "ID_MODEL_ID=0005", "ID_MM_DEVICE_IGNORE=1"} <= set(props)


def test_the_service_finds_the_pico_by_its_usb_id_and_talks_to_its_firmware(twin: Twin) -> None:
    # The unit names no device: the link looks for USB 2E8A:0005 and opens what it finds,
    # through the unit's DevicePolicy=closed (char-ttyACM is allowed).
    log = service_log(twin, "LED controller: firmware")
    assert "LED link (serial): connected: /dev/ttyACM0" in log
    assert "64 LEDs, colour order RGB" in log  # the chip's files as they came (OLD_FIRMWARE)


def test_firmware_install_from_the_installed_package_flashes_the_pico_through_its_port(
    twin: Twin,
) -> None:
    assert twin.pico is not None
    chip = chip_of(twin)
    twin.ssh("systemctl stop boardctl")  # (the command says so: the service holds the port)
    twin.copy_folder(downloaded(MPREMOTE), "/home/pi/mpremote-wheels")
    # hardware/bringup.md: `sudo /opt/boardctl/venv/bin/pip install mpremote` (from a folder here)
    twin.ssh(
        "PIP_NO_INDEX=1 PIP_FIND_LINKS=/home/pi/mpremote-wheels"
        " /opt/boardctl/venv/bin/pip install --quiet mpremote",
        timeout=600,
    )
    resets, said = len(chip.resets), len(chip.messages)
    start = time.monotonic()
    done = twin.ssh("boardctl firmware install", check=False, timeout=INSTALL_TIMEOUT)
    twin.figures["firmware_install_s"] = round(time.monotonic() - start, 1)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "firmware installed" in done.stdout
    assert chip.wait(lambda: len(chip.resets) > resets, emu_s=30)  # mpremote's reset
    hello = chip.message(protocol.HELLO, after=said, emu_s=30)
    # the package's config.py now runs: 256 LEDs, GRB (firmware/config.py)
    assert protocol.parse_hello(hello.payload)[2:] == (256, "GRB")
    twin.pico.files = None  # a power-on boots the files the install put there
    twin.ssh("systemctl start boardctl", timeout=300)
    log = service_log(twin, "256 LEDs, colour order GRB")
    assert "LED link (serial): connected: /dev/ttyACM0" in log


def test_the_led_pin_draws_the_frame_the_service_rendered(twin: Twin) -> None:
    chip = chip_of(twin)
    rgb = pin_shows_the_service_frame(twin)
    assert len(rgb) == 3 * 256 and any(rgb)  # the board's layout, lit (the game's cut sign)
    assert chip.frames[-1].t1h_ns[0] > chip.frames[-1].t0h_ns[1]  # WS2812 bits, told apart
