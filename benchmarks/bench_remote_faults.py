"""Fault trials of a linked game: entries on both boards across faults, none lost or doubled.

Two boards as systemd runs them (``boardctl run`` processes on mock pins), a real mosquitto,
and each board behind its own home's network, a fault-injecting TCP proxy
(tests/test_remote_process.py's ``LinkedProcesses`` and ``fault_trial``). Each trial starts
a new game on the host, enters counts on both boards through their control sockets with
request ids made there, injects one fault (in turn), enters more during it (on the joined
board unless it is the one killed, on the host unless it is), heals it, and checks: every
entry journalled by the host exactly once, its scores the sums entered, and both boards
showing the same LED frame and journal position with no link-lost sign. The faults:

- ``broker``: mosquitto killed (SIGKILL) and started again on its port;
- ``reset``: one home's network (host's or joined's, at random) reset and refused;
- ``loss``: one home's network losing 30 % of its packets (TCP sends them again);
- ``partition``: one home's network silent, no reset, for ``--partition`` seconds
  (60 by default: found only by MQTT's keep-alive);
- ``host`` / ``joined``: that board's service killed (SIGKILL) and started again.

Each fault but the partition lasts ``--outage`` seconds. Reported: trials, failures, and per
fault the time from the heal (for a killed service: the command that starts it again,
its start included) until both boards showed the same (p50 / p90 / max), and how many
trials took over 2 s.

    PYTHONPATH=. python benchmarks/bench_remote_faults.py [--trials 200] [--partition 60]
        [--fault loss ...]
"""

from __future__ import annotations

import argparse
import random
import signal
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.test_remote_process import FAULTS, LinkedProcesses, fault_trial  # noqa: E402

TARGET = 2.0  # seconds: both boards the same this soon after the heal (the goal)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--outage", type=float, default=1.0, help="seconds of each fault")
    parser.add_argument("--partition", type=float, default=60.0, help="seconds of a partition")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--fault", action="append", choices=FAULTS, help="only this fault (again: and this one)"
    )
    args = parser.parse_args()
    faults = tuple(args.fault or FAULTS)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # stopped: the boards are stopped too
    rng = random.Random(args.seed)
    times: dict[str, list[float]] = {fault: [] for fault in FAULTS}
    failures: list[str] = []
    with tempfile.TemporaryDirectory() as folder:
        linked = LinkedProcesses(Path(folder))
        try:
            for number in range(args.trials):
                fault = faults[number % len(faults)]
                outage = args.partition if fault == "partition" else args.outage
                try:
                    times[fault].append(fault_trial(linked, fault, rng, outage=outage))
                    print(f"trial {number}: {fault} {times[fault][-1]:.2f} s", file=sys.stderr)
                except AssertionError as exc:
                    failures.append(f"trial {number}: {exc}")
                    print(failures[-1], file=sys.stderr, flush=True)
                    linked.close()
                    linked = LinkedProcesses(Path(folder) / f"after-{number}")
        finally:
            linked.close()
    print(f"{args.trials} trials, {len(failures)} failed")
    for fault, values in times.items():
        if values:
            p90 = (
                statistics.quantiles(values, n=10, method="inclusive")[-1]
                if len(values) > 1
                else values[0]
            )
            print(
                f"{fault}: {len(values)} trials, the same board on both after the heal: "
                f"p50 {statistics.median(values):.2f} s / p90 {p90:.2f} s / "
                f"max {max(values):.2f} s, over {TARGET:g} s {sum(v > TARGET for v in values)}"
            )
    late = sum(v > TARGET for values in times.values() for v in values)
    print(
        f"within {TARGET:g} s of the heal: {sum(map(len, times.values())) - late} of {args.trials}"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
