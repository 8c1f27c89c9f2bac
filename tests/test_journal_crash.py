"""Kill -9 at random moments: the journal keeps exactly the acknowledged entries."""

from __future__ import annotations

from pathlib import Path

from tests.crash_child import CrashHarness

TRIALS = 200


def test_kill_nine_never_loses_or_damages_acknowledged_entries(tmp_path: Path) -> None:
    with CrashHarness(tmp_path, seed=20261129) as harness:
        for _ in range(TRIALS):
            harness.trial()
    stats = harness.stats
    assert stats.trials == TRIALS
    assert stats.acked > TRIALS  # the workers really committed entries between kills
