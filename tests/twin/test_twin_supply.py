"""Power cuts: QEMU killed while entries are written, the twin booted again.

QEMU's disks use cache=none, so a kill loses every write the guest had not flushed
(twin/boot.sh). Entries come over the control socket, each with its request id; after the
boot the one entry in flight is sent again with the same id. The board must then hold
exactly the acknowledged entries and that one: nothing lost, nothing counted twice.
(benchmarks/bench_twin_power_cuts.py runs many more.) Then a clean shutdown: the strip goes
dark and the journal is closed as a stop closes it.
"""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.twin.vm import Twin, power_cut_trial, start_power_cut_game

pytestmark = pytest.mark.twin

CUTS = 2


def test_power_cuts_while_entries_are_written_lose_and_double_nothing(twin: Twin) -> None:
    rng = random.Random(29)
    start_power_cut_game(twin)
    acknowledged = 0
    trials = []
    for cut in range(CUTS):
        after = rng.randint(3, 8)
        points = power_cut_trial(twin, f"cut{cut}", after, rng.uniform(0.0, 0.5))
        acknowledged += after + 1  # the acknowledged ones and the one sent again
        trials.append({"acked_before_cut": after, "points_after_boot": points})
        assert points == acknowledged, trials
    twin.figures["power_cuts"] = trials


def test_a_clean_shutdown_darkens_the_strip_and_closes_the_journal(
    twin: Twin, tmp_path: Path
) -> None:
    # Last of the session: `systemctl poweroff`, then the state disk read from the host.
    assert twin.pico is not None and twin.pico.chip is not None
    chip = twin.pico.chip
    points = sum(int(track["front"]) for track in twin.status()["tracks"])
    lit = twin.service_frame()
    assert any(lit)
    mark = len(chip.frames)
    twin.poweroff()  # the service stops under systemd (SIGTERM), the VM powers off
    frames = chip.frames[mark:]
    dark = next((i for i, f in enumerate(frames) if not any(f.rgb)), None)
    assert dark is not None, "the strip never went dark"
    # dark to the end, with no link-lost sign after the service's GOODBYE
    assert not any(any(f.rgb) for f in frames[dark:])
    assert chip.now_ns - frames[dark].end_ns > 1_000_000_000  # (a second of the chip's time)

    assert (
        "Filesystem state:         clean"
        in subprocess.run(
            ["dumpe2fs", "-h", str(twin.run / "state.img")], capture_output=True, text=True
        ).stdout
    )  # unmounted cleanly
    names = twin.state_disk("ls -p /").split()
    listed = {entry.split("/")[5] for entry in names if entry.count("/") >= 6}
    assert "journal.sqlite" in listed
    assert "journal.sqlite-wal" not in listed  # the last connection closed: WAL checkpointed
    backups = twin.state_disk("ls -p /backups")
    assert "-shutdown.sqlite" in backups  # the service's close backs the journal up
    copy = tmp_path / "journal.sqlite"
    twin.state_disk(f"dump /journal.sqlite {copy}")
    with sqlite3.connect(copy) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    done = subprocess.run(
        [sys.executable, "-m", "boardctl", "status", "--json", "--journal", str(copy)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert sum(int(t["front"]) for t in json.loads(done.stdout)["tracks"]) == points
