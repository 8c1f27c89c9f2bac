"""Power cuts: QEMU killed while entries are committed from the control socket and the buttons,
the twin booted again (tests/twin/cuts.py says what each source's acknowledgement is). The
board must then hold every acknowledged entry, none counted twice, and its LED pin must draw
the restored score. (benchmarks/bench_twin_power_cuts.py runs many more.) Then a clean
shutdown: the strip goes dark and the journal is closed as a stop closes it.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.twin.cuts import PowerCuts
from tests.twin.vm import Twin

pytestmark = pytest.mark.twin

# Each cut costs a boot; BOARDCTL_TWIN_CUTS sets how many (.ci/run's stage asks for one).
CUTS = int(os.environ.get("BOARDCTL_TWIN_CUTS", "2"))


def test_power_cuts_while_entries_are_committed_lose_and_double_nothing(twin: Twin) -> None:
    assert CUTS >= 1
    rng = random.Random(29)
    cuts = PowerCuts(twin)
    cuts.new_game()
    for cut in range(CUTS):
        record = cuts.trial(f"cut{cut}", rng.randint(2, 5), rng.randint(1, 3), rng.uniform(0, 0.5))
        assert record["lost"] == 0 and record["doubled"] == 0, cuts.trials
        # the board's acknowledged entries were on both tracks before the cut
        assert record["socket_acked"] >= 2 and record["buttons_journalled"] >= 1, record
    twin.figures["power_cuts"] = cuts.trials


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
    # the service stops under systemd (SIGTERM), the VM powers off; the Pico runs on a second
    twin.poweroff(pico_after_s=1.2)
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
