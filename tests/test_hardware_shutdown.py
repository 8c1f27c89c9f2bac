"""The installer's optional shutdown button and read-only root: asked, never forced."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from boardctl.config import SHUTDOWN_GPIO
from tools.hardware.pinout import HEADER_PIN, KEPT_FREE

REPO = Path(__file__).resolve().parent.parent
INSTALL = REPO / "systemd" / "install.sh"
OVERLAY = "raspi-config nonint do_overlayfs 0"


def plan(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    boot = tmp_path / "config.txt"
    if not boot.exists():
        boot.write_text("[all]\n")
    return subprocess.run(
        ["sh", str(INSTALL)],
        stdin=subprocess.DEVNULL,  # no terminal: nothing is asked
        capture_output=True,
        text=True,
        timeout=60,
        env={
            **os.environ,
            "DRY_RUN": "1",
            "CONFIG_DIR": str(tmp_path / "etc"),
            "BOOT_CONFIG": str(boot),
            **env,
        },
    )


def test_without_a_terminal_the_installer_adds_neither(tmp_path: Path) -> None:
    result = plan(tmp_path)
    assert result.returncode == 0, result.stderr
    assert "gpio-shutdown" not in result.stdout
    assert OVERLAY not in result.stdout


def test_asked_for_the_shutdown_button_it_adds_the_overlay_for_the_kept_pin(
    tmp_path: Path,
) -> None:
    result = plan(tmp_path, BOARDCTL_SHUTDOWN_BUTTON="yes")
    assert result.returncode == 0, result.stderr
    line = f"dtoverlay=gpio-shutdown,gpio_pin={SHUTDOWN_GPIO}"
    assert f"echo '{line}' >> '{tmp_path / 'config.txt'}'" in result.stdout
    assert SHUTDOWN_GPIO in KEPT_FREE and HEADER_PIN[SHUTDOWN_GPIO] == 5
    # Never twice.
    (tmp_path / "config.txt").write_text(f"{line}\n")
    again = plan(tmp_path, BOARDCTL_SHUTDOWN_BUTTON="yes")
    assert "already has a gpio-shutdown line" in again.stdout
    assert "echo 'dtoverlay" not in again.stdout


def test_the_overlay_is_refused_while_the_journal_would_live_in_ram(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    result = plan(tmp_path, BOARDCTL_OVERLAYFS="yes", STATE_DIR=str(state))
    assert result.returncode == 0, result.stderr
    assert OVERLAY not in result.stdout
    assert "not a partition of its own" in result.stderr


def test_the_overlay_is_enabled_when_the_journal_has_its_own_partition(tmp_path: Path) -> None:
    result = plan(tmp_path, BOARDCTL_OVERLAYFS="yes", STATE_DIR="/")  # "/" is a mount point
    assert result.returncode == 0, result.stderr
    assert f"+ {OVERLAY}" in result.stdout


def test_an_explicit_no_wins(tmp_path: Path) -> None:
    result = plan(tmp_path, BOARDCTL_SHUTDOWN_BUTTON="no", BOARDCTL_OVERLAYFS="no")
    assert "gpio-shutdown" not in result.stdout and OVERLAY not in result.stdout


def test_bringup_documents_both() -> None:
    text = (REPO / "hardware" / "bringup.md").read_text(encoding="utf-8")
    assert f"dtoverlay=gpio-shutdown,gpio_pin={SHUTDOWN_GPIO}" in text
    assert "LABEL=BOARDCTL /var/lib/boardctl ext4" in text
    assert "do_overlayfs" in text
