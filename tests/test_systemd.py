"""The systemd unit and the install script.

``systemd-analyze`` is an OS tool: CI installs it (the ``systemd`` package,
see ``.ci/run``). These tests fail, rather than skip, when it is missing, so a
green run always means the unit was really verified.
"""

from __future__ import annotations

import configparser
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
UNIT = REPO / "systemd" / "boardctl.service"
INSTALL = REPO / "systemd" / "install.sh"
ANALYZE = shutil.which("systemd-analyze")
NEEDS_ANALYZE = "systemd-analyze is missing: install the systemd package (apt-get install systemd)"


def unit_options(unit: Path = UNIT) -> dict[str, list[str]]:
    """``Key -> [values]`` of a unit's [Service] section (keys may repeat)."""
    values: dict[str, list[str]] = {}
    section = ""
    for raw in unit.read_text().splitlines():
        line = raw.strip()
        if line.startswith("["):
            section = line
        elif line and not line.startswith("#") and section == "[Service]":
            key, _, value = line.partition("=")
            values.setdefault(key, []).append(value)
    return values


def test_unit_has_the_required_service_settings() -> None:
    opts = unit_options()
    assert opts["Type"] == ["notify"]
    assert opts["User"] == ["boardctl"]
    assert set(opts["SupplementaryGroups"][0].split()) == {"gpio", "dialout"}
    assert opts["StateDirectory"] == ["boardctl"]
    assert opts["RuntimeDirectory"] == ["boardctl"]
    assert opts["ConfigurationDirectory"] == ["boardctl"]
    assert opts["Restart"] == ["always"]
    assert int(opts["WatchdogSec"][0]) > 0
    assert "boardctl run" in opts["ExecStart"][0]
    assert "--display none" in opts["ExecStart"][0]
    # lgpio writes its notification pipes to the working directory or $LG_WD: a writable one
    assert opts["WorkingDirectory"] == ["/run/boardctl"]
    assert "LG_WD=/run/boardctl" in opts["Environment"]
    # gpiozero reads the Pi's revision from /proc/device-tree or /proc/cpuinfo
    assert "ProcSubset" not in opts or opts["ProcSubset"] == ["all"]
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.read_string(UNIT.read_text())
    assert parser["Install"]["WantedBy"] == "multi-user.target"


def test_the_watchdog_is_pinged_well_within_its_limit() -> None:
    from boardctl.service.notify import Notifier

    seconds = int(unit_options()["WatchdogSec"][0])
    notifier = Notifier({"WATCHDOG_USEC": str(seconds * 1_000_000)})
    assert notifier.watchdog_interval == seconds / 2


def _unit_for_verify(tmp_path: Path) -> Path:
    """The unit with ExecStart pointing at an executable that exists here.

    ``systemd-analyze verify`` checks that the program exists; on this machine
    boardctl is not installed in /opt, so the copy runs this environment's
    boardctl (or the Python interpreter) instead. Nothing else changes.
    """
    program = Path(sys.executable).parent / "boardctl"
    if not program.exists():
        program = Path(sys.executable)
    text = UNIT.read_text().replace("/opt/boardctl/venv/bin/boardctl", str(program))
    copy = tmp_path / "boardctl.service"
    copy.write_text(text)
    return copy


def test_systemd_analyze_verify_prints_nothing(tmp_path: Path) -> None:
    assert ANALYZE, NEEDS_ANALYZE
    unit = _unit_for_verify(tmp_path)
    result = subprocess.run(
        [ANALYZE, "verify", str(unit)], capture_output=True, text=True, timeout=60
    )
    assert result.stdout + result.stderr == ""
    assert result.returncode == 0


def exposure(unit: Path) -> float:
    """``systemd-analyze security``'s overall exposure level for ``unit`` (0 safe - 10)."""
    assert ANALYZE, NEEDS_ANALYZE
    result = subprocess.run(
        [ANALYZE, "security", "--offline=yes", "--no-pager", str(unit)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "SYSTEMD_COLORS": "0"},
    )
    name = re.escape(unit.name)
    match = re.search(rf"Overall exposure level for {name}: (\d+\.\d+)", result.stdout)
    assert match, result.stdout + result.stderr
    return float(match.group(1))


def test_systemd_analyze_security_rates_the_unit_at_most_2_5() -> None:
    assert exposure(UNIT) <= 2.5


def test_install_script_plan(tmp_path: Path) -> None:
    result = subprocess.run(
        ["sh", str(INSTALL)],
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "DRY_RUN": "1", "CONFIG_DIR": str(tmp_path / "etc")},
    )
    assert result.returncode == 0, result.stderr
    plan = result.stdout
    assert "python3 -m venv --system-site-packages /opt/boardctl/venv" in plan
    pip = "/opt/boardctl/venv/bin/pip install --quiet"
    assert f"{pip} --no-deps --no-build-isolation --upgrade {REPO}" in plan
    assert f"{REPO}/systemd/boardctl.service /etc/systemd/system/boardctl.service" in plan
    assert "systemctl enable boardctl.service" in plan
    # Everything is on the disk before the service is enabled (a power cut after install).
    assert plan.index("+ sync\n") < plan.index("systemctl enable boardctl.service")
    # The verbs the docs give (boardctl status, ...) are on every user's PATH.
    assert "ln -sf /opt/boardctl/venv/bin/boardctl /usr/local/bin/boardctl" in plan
    assert "boardctl run --print-config" in plan
    # The serial drivers load at boot, so the unit's DeviceAllow=char-ttyACM finds its major
    # even when the Pico is plugged in after the service started.
    assert "cdc_acm usbserial > /etc/modules-load.d/boardctl.conf" in plan
    if (REPO / "hardware" / "99-boardctl.rules").exists():
        assert "/etc/udev/rules.d/99-boardctl.rules" in plan
    users = re.search(r"useradd .*--groups gpio,dialout boardctl|usermod -aG gpio,dialout", plan)
    assert users, plan


def test_install_script_is_valid_posix_sh() -> None:
    result = subprocess.run(["sh", "-n", str(INSTALL)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("key", ["ProtectSystem", "NoNewPrivileges", "PrivateNetwork"])
def test_hardening_keys_are_set(key: str) -> None:
    assert unit_options()[key][0] in ("yes", "strict")


def test_a_missing_config_file_means_defaults_the_unit_does_not_insist_on_one() -> None:
    text = UNIT.read_text()
    start = next(line for line in text.splitlines() if line.startswith("ExecStart="))
    assert "--config" not in start  # boardctl run reads /etc/boardctl/config.toml if present


def test_the_restart_limit_ends_in_the_fault_sign() -> None:
    text = UNIT.read_text()
    assert "StartLimitIntervalSec=0" not in text  # was: restart for ever
    assert re.search(r"^StartLimitBurst=\d+$", text, re.M)
    assert "OnFailure=boardctl-fault.service" in text
    fault = (REPO / "systemd" / "boardctl-fault.service").read_text()
    assert "ExecStart=/opt/boardctl/venv/bin/boardctl fault-sign" in fault


def test_install_uses_pinned_hash_checked_requirements(tmp_path: Path) -> None:
    from packaging.requirements import Requirement

    result = subprocess.run(
        ["sh", str(INSTALL)],
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "DRY_RUN": "1", "CONFIG_DIR": str(tmp_path / "etc")},
    )
    plan = result.stdout
    assert f"--require-hashes --no-deps -r {REPO}/systemd/requirements.txt" in plan
    assert f"--no-deps --no-build-isolation --upgrade {REPO}" in plan
    assert "boardctl-fault.service" in plan
    pins: dict[str, str] = {}
    for line in (REPO / "systemd" / "requirements.txt").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        spec, _, digest = line.partition(" --hash=sha256:")
        assert re.fullmatch(r"[0-9a-f]{64}", digest), line
        name, version = spec.split("==")
        pins[name.lower()] = version
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    for text in project["dependencies"]:
        requirement = Requirement(text)
        assert requirement.name.lower() in pins, text  # every runtime dependency is pinned
        assert requirement.specifier.contains(pins[requirement.name.lower()]), text
    build = tomllib.loads((REPO / "pyproject.toml").read_text())["build-system"]["requires"]
    for text in build:
        requirement = Requirement(text)
        assert requirement.specifier.contains(pins[requirement.name.lower()]), text


def test_the_units_let_the_service_open_every_kind_of_led_controller_port() -> None:
    # The Pico (ttyACM), a UART (ttyAMA, ttyS) and WLED boards on USB-serial chips (ttyUSB).
    for unit in ("boardctl.service", "boardctl-fault.service"):
        text = (REPO / "systemd" / unit).read_text()
        assert re.search(r"^DevicePolicy=closed$", text, re.M), unit
        allowed = set(re.findall(r"^DeviceAllow=char-(\S+) rw$", text, re.M))
        assert {"ttyACM", "ttyAMA", "ttyS", "ttyUSB"} <= allowed, unit


def pinned() -> dict[str, str]:
    """systemd/requirements.txt's pins, by lower-case name."""
    pins: dict[str, str] = {}
    for line in (REPO / "systemd" / "requirements.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, version = line.partition(" ")[0].split("==")
            pins[name.lower()] = version
    return pins


def test_gpiozero_is_a_release_that_finds_a_pi_5s_gpio_chip_and_ci_runs_the_pin() -> None:
    from importlib.metadata import version

    from packaging.requirements import Requirement
    from packaging.version import Version

    pin = pinned()["gpiozero"]
    assert Version(pin) >= Version("2.0.1.post1")  # 2.0.1 opens gpiochip4 on a Pi 5
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    (gpiozero,) = [Requirement(t) for t in project["dependencies"] if t.startswith("gpiozero")]
    assert not gpiozero.specifier.contains("2.0.1") and gpiozero.specifier.contains(pin)
    assert version("gpiozero") == pin  # .ci/run installs the pins first: CI tests them


def test_the_pi_needs_debians_lgpio_and_no_gpio_library_from_pypi() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    extras = " ".join(" ".join(v) for v in project["optional-dependencies"].values())
    assert "RPi.GPIO" not in extras and "lgpio" not in extras
    plan = subprocess.run(
        ["sh", str(INSTALL)],
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "DRY_RUN": "1"},
    ).stdout
    assert "apt-get install -y --no-install-recommends python3-venv python3-lgpio" in plan
    assert "venv --system-site-packages" in plan


def test_fault_sign_sends_the_sign_even_with_a_broken_config(tmp_path: Path) -> None:
    from boardctl.board import builtin_layout
    from boardctl.board.overlay import VERMILION
    from boardctl.link import RecordingLink
    from boardctl.service.fault_sign import fault_frame, show_fault_sign

    broken = tmp_path / "config.toml"
    broken.write_text("[board]\nbrightness = 'very'\n")
    link = RecordingLink()
    assert "fault sign shown" in show_fault_sign(str(broken), link=link)
    layout = builtin_layout("two-121")
    assert link.frames == [fault_frame(layout)]
    start = layout.led_of(0, 0)
    assert link.frames[0][3 * start : 3 * start + 3] == VERMILION
