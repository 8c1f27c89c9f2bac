"""A few of benchmarks/service_crash_trials.py in CI: kill -9 with concurrent pipelining clients."""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from service_crash_trials import Totals, trial


def test_kill_9_with_concurrent_clients_loses_nothing_and_applies_nothing_twice(
    tmp_path: Path,
) -> None:
    rng = random.Random(5)
    totals = Totals()
    for number in range(3):
        folder = tmp_path / f"j{number}"
        folder.mkdir()
        trial(folder, rng, number, totals)  # asserts lost == 0 and twice == 0 itself
    assert totals.trials == 3 and totals.lost == 0 and totals.twice == 0
    assert totals.recorded == totals.sent  # every request, resent with its id, is in once
