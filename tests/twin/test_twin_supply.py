"""Power cuts: QEMU killed while entries are written, the twin booted again.

QEMU's disks use cache=none, so a kill loses every write the guest had not flushed
(twin/boot.sh). Entries come over the control socket, each with its request id; after the
boot the one entry in flight is sent again with the same id. The board must then hold
exactly the acknowledged entries and that one: nothing lost, nothing counted twice.
(benchmarks/bench_twin_power_cuts.py runs many more.)
"""

from __future__ import annotations

import random

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
