"""boardctl as it runs on a Pi: installed by install.sh into a Debian VM, buttons on kernel GPIO.

The VM (twin/, docs/twin.md) boots Debian trixie under QEMU with systemd as PID 1; the
score journal's state directory is its own ext4 disk; the buttons are lines of a
simulated GPIO chip (gpio-sim) that the host pulls low and high, read by gpiozero
through lgpio as on Raspberry Pi OS.
"""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any

import pytest

from boardctl.cli import main
from boardctl.config import DEFAULT_PINS
from boardctl.remote import link_path, paired
from tests.mqtt_broker import Broker
from tests.test_remote_process import BoardProcess
from tests.twin.vm import PAHO, SOCKET, VENV_PYTHON, Twin, downloaded, wait_for

pytestmark = pytest.mark.twin

TRACK1, TRACK2, SHARED = DEFAULT_PINS["track1"], DEFAULT_PINS["track2"], DEFAULT_PINS["shared"]
STATUS_TIMEOUT = 120.0  # a press's effect, seen by `boardctl status` in the guest under TCG
VENV_BIN = "/opt/boardctl/venv/bin"  # install.sh's virtualenv
CONFIG = "/etc/boardctl/config.toml"
JOURNAL = "/var/lib/boardctl/journal.sqlite"
DROP_IN = "/etc/systemd/system/boardctl.service.d/remote.conf"


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
    once_in_status(twin, lambda s: s["phase"] == "cut")
    chip = twin.pico.chip if twin.pico is not None else None
    assert chip is not None
    mark = len(chip.frames)
    twin.press(line(TRACK2["plus1"]))  # the cut: track 2 deals
    once_in_status(twin, lambda s: s["phase"] == "deal" and s["dealer"] == 1)
    twin.press(line(SHARED["menu"]))  # dealt: the play
    once_in_status(twin, lambda s: s["phase"] == "play")
    expected = [[0, 0], [0, 0]]
    for track, points in ((0, 2), (1, 3), (0, 1)):
        pins = (TRACK1, TRACK2)[track]
        for _ in range(points):
            twin.press(line(pins["plus1"]))
        twin.press(line(pins["encoder_push"]))  # commit
        expected[track] = [expected[track][0] + points, expected[track][0]]
        want = [tuple(t) for t in expected]
        once_in_status(twin, lambda s, want=want: scores(s) == want and not any(s["pending"]))
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


def test_with_the_remote_drop_in_the_installed_service_hosts_a_game_another_home_joins(
    twin: Twin, tmp_path: Path
) -> None:
    # The board in the VM hosts a linked game as docs/remote.md sets one up: the MQTT extra,
    # [mqtt] naming the broker, `remote invite` as the service's user, the drop-in that gives
    # the unit the network. The other home's board is a `boardctl run` process on this host,
    # joined with the code. Both reach a mosquitto on this host; the guest through 10.0.2.100
    # (twin/boot.sh's guestfwd), so the VM's only other way out is the broker's port.
    broker = Broker(tmp_path / "broker", port=twin.broker_port)
    broker.start()
    joined: BoardProcess | None = None
    twin.ssh(f"cp {CONFIG} /root/config.before")
    try:
        twin.copy_folder(downloaded(PAHO), "/home/pi/paho")
        twin.ssh(f"{VENV_BIN}/pip install -q --no-index --find-links /home/pi/paho {PAHO}")
        twin.ssh(
            rf"sed -i '/^\[mqtt\]/,/^\[/{{s/^host = .*/host = \"10.0.2.100\"/;"
            rf"s/^port = .*/port = 1883/;s/^keepalive = .*/keepalive = 5/}}' {CONFIG}"
        )
        invite = twin.ssh(f"runuser -u boardctl -- {VENV_BIN}/boardctl remote invite").stdout
        assert "the installed service has no network (PrivateNetwork=yes)" in invite, invite
        code = re.search(r"^code: (\S+)$", invite, re.M)
        assert code, invite
        twin.ssh(  # what install.sh does with BOARDCTL_REMOTE=yes, then the restart it asks
            f"install -D -m 0644 /home/pi/boardctl/systemd/boardctl.service.d/remote.conf {DROP_IN}"
            " && systemctl daemon-reload && systemctl restart boardctl"
        )
        shown = twin.ssh("systemctl show boardctl -p DropInPaths -p PrivateNetwork -p ActiveState")
        fields = dict(row.split("=", 1) for row in shown.stdout.splitlines() if "=" in row)
        assert DROP_IN in fields["DropInPaths"] and fields["PrivateNetwork"] == "no", fields
        assert fields["ActiveState"] == "active", fields
        security = twin.ssh("SYSTEMD_COLORS=0 systemd-analyze security --no-pager boardctl")
        exposure = re.search(
            r"Overall exposure level for boardctl\.service: (\S+ \w+)", security.stdout
        )
        assert exposure, security.stdout
        twin.figures["systemd_analyze_security_remote"] = exposure.group(1)
        guest_control(twin, {"op": "new_game", "mode": "free"})

        joined = BoardProcess(tmp_path / "joined", "guest", broker.port)
        paired.remove(link_path(joined.journal))
        arguments = ["--journal", str(joined.journal), "--config", str(joined.config)]
        assert main(["remote", "join", code.group(1), *arguments]) == 0
        joined.start()
        # an entry at the other home: journalled once by the installed service, shown on both
        made = uuid.uuid4().hex
        reply = joined.ask({"op": "peg", "track": 1, "points": 3, "request_id": made})
        assert reply.get("ok", True), reply
        once_in_status(twin, lambda s: scores(s)[1][0] == 3)
        guest_control(twin, {"op": "peg", "track": 0, "points": 2, "request_id": "twin-host-1"})

        def agreed() -> bool | None:
            shown = joined.ask({"op": "status"})
            fronts = [t["front"] for t in shown["tracks"]]
            return True if fronts == [2, 3] and not shown["remote"]["link_lost"] else None

        wait_for("the host's entry on the joined board", agreed, STATUS_TIMEOUT, 1.0)
        count = twin.ssh(
            f'{VENV_PYTHON} -c \'import sqlite3; print(sqlite3.connect("{JOURNAL}")'
            f'.execute("SELECT count(*) FROM events WHERE request = ?", ("{made}",))'
            ".fetchone()[0])'"
        )
        assert count.stdout.strip() == "1"
    finally:
        if joined is not None:
            joined.stop()
        twin.ssh(  # the board as it was: unlinked, no network, its own config
            f"runuser -u boardctl -- {VENV_BIN}/boardctl remote leave; rm -f {DROP_IN};"
            f" cp /root/config.before {CONFIG}; systemctl daemon-reload;"
            " systemctl restart boardctl",
            check=False,
        )
        broker.kill()


def guest_control(twin: Twin, message: dict[str, Any]) -> None:
    """One request to the installed service's control socket, from inside the guest."""
    twin.ssh(
        f"{VENV_PYTHON} -c 'from boardctl.service.client import request;"
        f' request("{SOCKET}", {json.dumps(message)}, timeout=120)\''
    )


def once_in_status(twin: Twin, check: Any) -> dict[str, Any]:
    def probe() -> dict[str, Any] | None:
        status = twin.status()
        return status if check(status) else None

    value: dict[str, Any] = wait_for("the effect in boardctl status", probe, STATUS_TIMEOUT, 1.0)
    return value
