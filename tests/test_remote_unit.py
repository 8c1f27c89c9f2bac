"""The installed service and the link: the drop-in that gives a linked board's service the
network (``systemd/boardctl.service.d/remote.conf``), its install, and the CLI's hint."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from boardctl.cli import cmd_remote, main
from tests.test_systemd import ANALYZE, INSTALL, NEEDS_ANALYZE, REPO, _unit_for_verify, unit_options

DROP_IN = REPO / "systemd" / "boardctl.service.d" / "remote.conf"


def test_the_drop_in_gives_the_service_ip_and_leaves_the_rest_of_its_hardening() -> None:
    base, extra = unit_options(), unit_options(DROP_IN)
    assert base["PrivateNetwork"] == ["yes"]  # an unlinked board: no network at all
    assert extra == {
        "PrivateNetwork": ["no"],
        "IPAddressDeny": [""],  # the base unit's "any", reset
        "RestrictAddressFamilies": ["AF_UNIX AF_INET AF_INET6"],  # no netlink, no raw sockets
    }
    unit = DROP_IN.read_text()
    assert "Wants=network-online.target" in unit and "After=network-online.target" in unit


def test_systemd_analyze_verifies_the_unit_with_the_drop_in(tmp_path: Path) -> None:
    assert ANALYZE, NEEDS_ANALYZE
    unit = _unit_for_verify(tmp_path)
    (tmp_path / "boardctl.service.d").mkdir()
    (tmp_path / "boardctl.service.d" / "remote.conf").write_text(DROP_IN.read_text())
    result = subprocess.run(
        [ANALYZE, "verify", str(unit)], capture_output=True, text=True, timeout=60
    )
    assert result.stdout + result.stderr == ""
    assert result.returncode == 0


@pytest.mark.parametrize("answer", ["yes", "no"])
def test_install_puts_the_drop_in_only_on_a_board_to_be_linked(tmp_path: Path, answer: str) -> None:
    env = {**os.environ, "DRY_RUN": "1", "CONFIG_DIR": str(tmp_path), "BOARDCTL_REMOTE": answer}
    result = subprocess.run(
        ["sh", str(INSTALL)], capture_output=True, text=True, timeout=30, env=env
    )
    assert result.returncode == 0, result.stderr
    line = f"install -D -m 0644 {DROP_IN} /etc/systemd/system/boardctl.service.d/remote.conf"
    assert (line in result.stdout) is (answer == "yes")
    if answer == "yes":  # in place before the service is (re)started
        assert result.stdout.index(line) < result.stdout.index("systemctl restart boardctl")


def test_join_on_an_installed_board_without_the_drop_in_says_how_to_give_it_the_network(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    unit = tmp_path / "etc" / "boardctl.service"
    unit.parent.mkdir()
    unit.write_text("[Service]\n")
    monkeypatch.setattr(cmd_remote, "UNIT", unit)
    monkeypatch.setattr(cmd_remote, "DROP_IN", tmp_path / "etc" / "boardctl.service.d" / "x.conf")
    journal = ["--journal", str(tmp_path / "host" / "journal.sqlite")]
    assert main(["remote", "invite", *journal]) == 0
    assert "sudo BOARDCTL_REMOTE=yes sh boardctl/systemd/install.sh" in capsys.readouterr().out
    cmd_remote.DROP_IN.parent.mkdir()
    cmd_remote.DROP_IN.write_text(DROP_IN.read_text())
    assert main(["remote", "invite", *journal]) == 0
    assert "BOARDCTL_REMOTE" not in capsys.readouterr().out
