"""Power cuts: QEMU killed while entries are written, the twin booted again.

QEMU's disks use cache=none, so a kill loses every write the guest had not flushed
(twin/boot.sh). Entries come over the control socket, each with its request id; after the
boot the one entry in flight is sent again with the same id. The board must then hold
exactly the acknowledged entries and that one: nothing lost, nothing counted twice.
"""

from __future__ import annotations

import random
import select
import subprocess
import time
from pathlib import Path

import pytest

from tests.twin.vm import BOOT_TIMEOUT, Twin, wait_for

pytestmark = pytest.mark.twin

PEGGER = Path(__file__).with_name("guest_pegger.py")
VENV_PYTHON = "/opt/boardctl/venv/bin/python"
CUTS = 2


def boot_to_ready(twin: Twin) -> None:
    """Boot again; wait for boardctl's READY; keep the figures (VM start to READY)."""
    start = time.monotonic()
    twin.boot()

    def active() -> bool | None:
        state = twin.ssh("systemctl is-active boardctl", check=False).stdout.strip()
        return True if state == "active" else None

    wait_for("boardctl active after the boot", active, BOOT_TIMEOUT, every=1.0)
    twin.figures.setdefault("vm_start_to_ready_seen_s", []).append(
        round(time.monotonic() - start, 1)
    )
    shown = twin.ssh("systemctl show boardctl -p ActiveEnterTimestampMonotonic").stdout
    kernel_to_ready = int(shown.strip().split("=", 1)[1]) / 1e6
    twin.figures.setdefault("kernel_start_to_ready_s", []).append(round(kernel_to_ready, 1))


def test_power_cuts_while_entries_are_written_lose_and_double_nothing(twin: Twin) -> None:
    rng = random.Random(29)
    with PEGGER.open("rb") as source:
        twin.ssh("cat > /root/pegger.py", stdin=source)
    twin.ssh(f"{VENV_PYTHON} /root/pegger.py new")
    acknowledged = 0
    trials = []
    for cut in range(CUTS):
        after = rng.randint(3, 8)
        pegger = subprocess.Popen(
            twin.ssh_command(f"{VENV_PYTHON} -u /root/pegger.py run cut{cut}"),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert pegger.stdin is not None and pegger.stdout is not None
        for number in range(1, after + 1):
            pegger.stdin.write("\n")
            pegger.stdin.flush()
            ready, _, _ = select.select([pegger.stdout], [], [], 120)
            assert ready, f"no reply to entry {number} within 120 s"
            assert pegger.stdout.readline().strip() == f"ack {number}"
        pegger.stdin.write("\n")  # entry after+1: in flight when the power goes
        pegger.stdin.flush()
        time.sleep(rng.uniform(0.0, 0.5))
        twin.cut_power()
        pegger.kill()
        pegger.wait()
        boot_to_ready(twin)
        resent = twin.ssh(f"{VENV_PYTHON} -u /root/pegger.py resend cut{cut} {after + 1}")
        assert resent.stdout.strip() == f"ack {after + 1}"
        acknowledged += after + 1
        status = twin.status()
        points = sum(track["front"] for track in status["tracks"])
        trials.append({"acked_before_cut": after, "points_after_boot": points})
        assert points == acknowledged, trials
    twin.figures["power_cuts"] = trials
