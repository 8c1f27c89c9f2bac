"""Run the test suite (or part of it) several times with CPU burners beside it.

The suite must pass on a busy machine: every test waits for the event it asserts or runs on
an injected clock. This script is how that is checked:

    python benchmarks/loaded_suite.py                 # the suite as CI runs it, 5 runs, 2 burners
    python benchmarks/loaded_suite.py --runs 3 -- tests/test_e2e.py

It prints each run's result line and time, and exits non-zero if any run failed.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import subprocess
import sys
import time

# What .ci/run's main stage passes to pytest (without arguments after --, the runs use these).
CI_ARGS = ["-n", "auto", "--dist", "loadfile"]


def _burn() -> None:
    """Spin forever (a process that keeps one core busy)."""
    while True:
        pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="how many runs (default 5)")
    parser.add_argument("--burners", type=int, default=2, help="CPU burners (default 2)")
    parser.add_argument("pytest_args", nargs="*", help="passed to pytest (after --)")
    args = parser.parse_args(argv)
    pytest_args = args.pytest_args or CI_ARGS
    burners = [multiprocessing.Process(target=_burn, daemon=True) for _ in range(args.burners)]
    for burner in burners:
        burner.start()
    failed = 0
    try:
        print(f"{os.cpu_count()} cores, {args.burners} burners, {args.runs} runs", flush=True)
        for run in range(1, args.runs + 1):
            start = time.monotonic()
            result = subprocess.run(
                [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *pytest_args],
                capture_output=True,
                text=True,
                check=False,
            )
            lines = result.stdout.strip().splitlines()
            summary = lines[-1] if lines else "(no output)"
            took = time.monotonic() - start
            print(f"run {run}: exit {result.returncode} in {took:.0f} s: {summary}", flush=True)
            if result.returncode != 0:
                failed += 1
                failures = [line for line in lines if line.startswith(("FAILED", "ERROR"))]
                print("\n".join(failures), flush=True)
    finally:
        for burner in burners:
            burner.terminate()
    print(f"{args.runs - failed} of {args.runs} runs passed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
