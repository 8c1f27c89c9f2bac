"""Kill -9 trials of the journal, many more than the test suite runs.

Run from the repository root::

    PYTHONPATH=. python benchmarks/crash_trials.py [--trials 2000] [--dir DIR]

A child appends random entries and acknowledges each durable commit; it is
killed with SIGKILL at random moments (after 0-8 acknowledgements plus up to
1.5 ms). After every kill the journal is reopened and must hold exactly the
acknowledged events, plus at most the one in flight, and replay cleanly.
Any violation stops the run with an assertion error.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.crash_child import CrashHarness


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dir", type=Path, default=Path(__file__).resolve().parent)
    args = parser.parse_args()
    start = time.perf_counter()
    with (
        tempfile.TemporaryDirectory(prefix="crash-trials-", dir=args.dir) as tmp,
        CrashHarness(Path(tmp), seed=args.seed, fresh_every=100) as harness,
    ):
        for done in range(1, args.trials + 1):
            harness.trial()
            if done % 500 == 0:
                print(f"  {done} trials ...", flush=True)
        # a kill -9 is a torn last write at worst: never reported as damage
        false_alarms = list(Path(tmp).glob("damaged-*"))
        assert not false_alarms, f"damage reported after a plain kill -9: {false_alarms}"
    stats = harness.stats
    elapsed = time.perf_counter() - start
    print(
        f"{stats.trials} kill -9 trials in {elapsed:.1f} s: every reopen held exactly the "
        f"acknowledged events ({stats.acked} acknowledged commits in all); the in-flight "
        f"event was kept {stats.in_flight_kept} times and dropped "
        f"{stats.trials - stats.in_flight_kept} times; reopen+check median "
        f"{statistics.median(stats.reopen_ms):.1f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
