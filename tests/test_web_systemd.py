"""The page's systemd unit: the only boardctl unit with network, and only the LAN's.

Like tests/test_systemd.py these fail, rather than skip, without systemd-analyze.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.test_systemd import ANALYZE, NEEDS_ANALYZE, exposure, unit_options

REPO = Path(__file__).resolve().parent.parent
UNIT = REPO / "systemd" / "boardctl-web.service"
MAIN = REPO / "systemd" / "boardctl.service"


options = unit_options  # the same [Service] reader as the main unit's tests


def test_the_page_unit_has_the_lan_and_nothing_else() -> None:
    opts = options(UNIT)
    assert "boardctl web serve" in opts["ExecStart"][0]
    assert "PrivateNetwork" not in opts
    assert set(opts["RestrictAddressFamilies"][0].split()) == {"AF_UNIX", "AF_INET", "AF_INET6"}
    assert opts["IPAddressDeny"] == ["any"]
    allowed = opts["IPAddressAllow"][0].split()
    assert "localhost" in allowed and "192.168.0.0/16" in allowed
    assert not any(a in ("any", "0.0.0.0/0", "::/0") for a in allowed)
    # no second way to change the game: the journal is out of reach, the socket is the way
    assert opts["InaccessiblePaths"] == ["-/var/lib/boardctl"]
    assert opts["StateDirectory"] == ["boardctl-web"]
    assert opts["User"] == ["boardctl"] and opts["Group"] == ["boardctl"]


def test_the_page_unit_sets_its_file_limit_above_what_one_address_may_hold() -> None:
    from boardctl.web.page_config import WebConfig

    limit = int(options(UNIT)["LimitNOFILE"][0])
    assert limit >= 100 * WebConfig().connections_per_address


def test_the_main_unit_keeps_no_network() -> None:
    opts = options(MAIN)
    assert opts["PrivateNetwork"] == ["yes"]
    assert opts["IPAddressDeny"] == ["any"]
    assert opts["RestrictAddressFamilies"] == ["AF_UNIX"]


def test_systemd_analyze_verify_prints_nothing(tmp_path: Path) -> None:
    assert ANALYZE, NEEDS_ANALYZE
    program = Path(sys.executable).parent / "boardctl"
    if not program.exists():
        program = Path(sys.executable)
    copy = tmp_path / "boardctl-web.service"
    copy.write_text(UNIT.read_text().replace("/opt/boardctl/venv/bin/boardctl", str(program)))
    result = subprocess.run(
        [ANALYZE, "verify", str(copy)], capture_output=True, text=True, timeout=60
    )
    # verify looks for the units this one names; the main unit is not installed here
    lines = [
        line
        for line in (result.stdout + result.stderr).splitlines()
        if "boardctl.service" not in line
    ]
    assert lines == []


def test_systemd_analyze_security_rates_the_page_unit_at_most_2_5() -> None:
    assert exposure(UNIT) <= 2.5
