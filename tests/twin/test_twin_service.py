"""boardctl as it runs on a Pi: installed by install.sh into a Debian VM, buttons on kernel GPIO.

The VM (twin/, docs/twin.md) boots Debian trixie under QEMU with systemd as PID 1; the
score journal's state directory is its own ext4 disk; the buttons are lines of a
simulated GPIO chip (gpio-sim) that the host pulls low and high, read by gpiozero
through lgpio as on Raspberry Pi OS.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from boardctl.config import DEFAULT_PINS
from tests.twin.vm import Twin, wait_for

pytestmark = pytest.mark.twin

TRACK1, TRACK2, SHARED = DEFAULT_PINS["track1"], DEFAULT_PINS["track2"], DEFAULT_PINS["shared"]
STATUS_TIMEOUT = 120.0  # a press's effect, seen by `boardctl status` in the guest under TCG


def line(pin: int | None) -> int:
    assert pin is not None
    return pin


def scores(status: dict[str, Any]) -> list[tuple[int, int]]:
    return [(t["front"], t["back"]) for t in status["tracks"]]


def test_the_twin_runs_systemd_and_udev_with_the_journal_on_its_own_ext4(twin: Twin) -> None:
    assert twin.ssh("ps -p 1 -o comm=").stdout.strip() == "systemd"
    assert twin.ssh("systemctl is-active systemd-udevd").stdout.strip() == "active"
    assert twin.ssh("systemctl --failed --no-legend --plain").stdout.strip() == ""
    mount = twin.ssh("findmnt -n -o SOURCE,FSTYPE /var/lib/boardctl").stdout.split()
    assert mount == ["/dev/vdb", "ext4"]
    chip = twin.ssh("gpiodetect").stdout
    assert "gpiochip0 [pinctrl-bcm2835] (54 lines)" in chip


def test_install_sh_starts_the_service_under_its_unit_and_it_reports_ready(twin: Twin) -> None:
    shown = twin.ssh(
        "systemctl show boardctl -p Type -p ActiveState -p SubState -p User -p NRestarts"
    ).stdout
    fields = dict(row.split("=", 1) for row in shown.split())
    # Type=notify: "active" only after the service's READY=1 came over sd_notify
    assert fields == {
        "Type": "notify",
        "ActiveState": "active",
        "SubState": "running",
        "User": "boardctl",
        "NRestarts": "0",
    }, twin.ssh("journalctl -u boardctl --no-pager -n 50", check=False).stdout
    assert "boardctl is installed" in twin.install_output


def test_systemd_analyze_security_rates_the_installed_unit_safe(twin: Twin) -> None:
    done = twin.ssh("SYSTEMD_COLORS=0 systemd-analyze security --no-pager boardctl.service")
    match = re.search(
        r"Overall exposure level for boardctl\.service: (\d+\.\d+) (\w+)", done.stdout
    )
    assert match, done.stdout
    twin.figures["systemd_analyze_security"] = f"{match.group(1)} {match.group(2)}"
    assert float(match.group(1)) <= 2.5


def test_the_service_holds_the_buttons_lines_through_lgpio(twin: Twin) -> None:
    info = twin.ssh("gpioinfo -c gpiochip0").stdout
    for pin in (TRACK1["plus1"], TRACK1["plus5"], TRACK2["plus1"], SHARED["menu"]):
        row = next(r for r in info.splitlines() if re.match(rf"\s*line\s+{pin}:", r))
        assert "input" in row and "bias=pull-up" in row and 'consumer="lg"' in row, row


def test_a_guided_game_entered_on_the_gpio_lines_shows_in_boardctl_status(twin: Twin) -> None:
    def once(check: Any) -> Any:
        def probe() -> dict[str, Any] | None:
            status = twin.status()
            return status if check(status) else None

        return wait_for("the press's effect in boardctl status", probe, STATUS_TIMEOUT, 1.0)

    once(lambda s: s["phase"] == "cut")
    chip = twin.pico.chip if twin.pico is not None else None
    assert chip is not None
    mark = len(chip.frames)
    twin.press(line(TRACK2["plus1"]))  # the cut: track 2 deals
    once(lambda s: s["phase"] == "deal" and s["dealer"] == 1)
    twin.press(line(SHARED["menu"]))  # dealt: the play
    once(lambda s: s["phase"] == "play")
    expected = [[0, 0], [0, 0]]
    for track, points in ((0, 2), (1, 3), (0, 1)):
        pins = (TRACK1, TRACK2)[track]
        for _ in range(points):
            twin.press(line(pins["plus1"]))
        twin.press(line(pins["encoder_push"]))  # commit
        expected[track] = [expected[track][0] + points, expected[track][0]]
        want = [tuple(t) for t in expected]
        once(lambda s, want=want: scores(s) == want and not any(s["pending"]))
    status = twin.status()
    assert scores(status) == [(3, 2), (3, 0)] and status["phase"] == "play"
    # and the Pico's LED pin draws the frame the service rendered for the score

    def drawn() -> bool | None:
        rgb = twin.service_frame()
        return True if any(f.rgb == rgb for f in chip.frames[mark:]) else None

    wait_for("the game's frame on the LED pin", drawn, STATUS_TIMEOUT, 1.0)


def test_a_gpio_chip_that_no_pin_factory_opens_stops_the_service_with_the_reasons(
    twin: Twin,
) -> None:
    # Without the board's Revision line gpiozero's lgpio factory cannot tell the board, and
    # its other factories are not installed: the service must stop, saying why, never fall
    # back to mock pins on a board whose buttons would then be dead.
    done = twin.ssh(
        "unshare --mount --propagation private sh -c 'umount /proc/cpuinfo &&"
        " timeout 300 boardctl run --display none --journal /tmp/gpio-check.sqlite"
        " --socket /tmp/gpio-check.sock'",
        check=False,
        timeout=400,
    )
    assert done.returncode not in (0, 124), done  # 124: still running after 300 s
    assert "GPIO chips /dev/gpiochip0 found, but no gpiozero pin factory" in done.stderr, done
    assert "Revision" in done.stderr or "revision" in done.stderr, done
