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
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
UNIT = REPO / "systemd" / "boardctl.service"
INSTALL = REPO / "systemd" / "install.sh"
ANALYZE = shutil.which("systemd-analyze")
NEEDS_ANALYZE = "systemd-analyze is missing: install the systemd package (apt-get install systemd)"


def unit_options() -> dict[str, list[str]]:
    """``Key -> [values]`` of the [Service] section (keys may repeat)."""
    values: dict[str, list[str]] = {}
    section = ""
    for raw in UNIT.read_text().splitlines():
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


def test_systemd_analyze_security_rates_the_unit_at_most_2_5() -> None:
    assert ANALYZE, NEEDS_ANALYZE
    result = subprocess.run(
        [ANALYZE, "security", "--offline=yes", "--no-pager", str(UNIT)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "SYSTEMD_COLORS": "0"},
    )
    match = re.search(r"Overall exposure level for boardctl\.service: (\d+\.\d+)", result.stdout)
    assert match, result.stdout + result.stderr
    assert float(match.group(1)) <= 2.5


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
    assert f"/opt/boardctl/venv/bin/pip install --quiet --upgrade {REPO}" in plan
    assert f"{REPO}/systemd/boardctl.service /etc/systemd/system/boardctl.service" in plan
    assert "systemctl enable boardctl.service" in plan
    # The verbs the docs give (boardctl status, ...) are on every user's PATH.
    assert "ln -sf /opt/boardctl/venv/bin/boardctl /usr/local/bin/boardctl" in plan
    assert "boardctl run --print-config" in plan
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
