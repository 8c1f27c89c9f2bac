"""Measure ``boardctl results`` (and ``stats players``) over a 200-game journal, whole process.

Run from the repository root::

    PYTHONPATH=. python benchmarks/bench_results.py [--games 200] [--runs 7]

Builds a journal of ``--games`` demo games (real cards, six players taking
turns in pairs, written in one transaction, then opened once by a writer, which
stores its game starts and kept games as a board's journal has them), then
runs each command as a new process ``--runs`` times and prints the median and the fastest wall time
and the median CPU time (user + system, less disturbed by other work on a
shared machine). For
comparison it also times ``history --all`` over the same journal (a full
``Scorekeeper`` replay, which derives the rules tables on the first hand
count) and the rules tables alone in a fresh process.
Target: each command <= 0.3 s whole process.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from boardctl.demo.game import DemoGame
from boardctl.game.keeper import Scorekeeper
from boardctl.store.journal import Journal

PLAYERS = ("Alice", "Bob", "Carol", "Dave", "Erin", "Frank")


def season(path: Path, games: int) -> int:
    """``games`` demo games between pairs of :data:`PLAYERS` into a new journal; its events."""
    keeper = Scorekeeper.memory()
    for number in range(games):
        first = PLAYERS[number % len(PLAYERS)]
        second = PLAYERS[(number // len(PLAYERS) + number + 1) % len(PLAYERS)]
        if second == first:
            second = PLAYERS[(number + 2) % len(PLAYERS)]
        DemoGame(seed=number, names=(first, second), keeper=keeper).play()
    rows = keeper.history(all_games=True)
    with Journal.open(path) as journal:
        journal.append_all((row["event"], row["at"]) for row in rows)
    Scorekeeper.open(path).close()  # a writer stores the game starts, as on a board
    return len(rows)


def timed(argv: list[str], runs: int) -> tuple[float, float, float]:
    """Median and fastest wall time, and median CPU time (user + system), of ``argv``."""
    times = []
    cpu = []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(times), min(times), statistics.median(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "journal.sqlite"
        events = season(path, args.games)
        print(f"journal: {args.games} games, {events} events")
        cli = [sys.executable, "-m", "boardctl"]
        commands = {
            "results --csv": [*cli, "results", "--csv", "--journal", str(path)],
            "stats players": [*cli, "stats", "players", "--journal", str(path)],
            "history --all (full Scorekeeper replay, for comparison)": [
                *cli, "history", "--all", "--json", "--journal", str(path)
            ],
        }  # fmt: skip
        for name, argv in commands.items():
            median, best, cpu = timed(argv, args.runs)
            print(
                f"{name}: wall median {median:.3f} s, fastest {best:.3f} s; "
                f"CPU median {cpu:.3f} s (target <= 0.3 s)"
            )
        tables = subprocess.run(
            [sys.executable, "-c", _WARM_UP], check=True, capture_output=True, text=True
        ).stdout.strip()
        print(f"deriving the rules tables (warm_up), which results and stats never do: {tables} s")


_WARM_UP = (
    "import time; from boardctl.game.limits import warm_up; "
    "t = time.perf_counter(); warm_up(); print(f'{time.perf_counter() - t:.3f}')"
)


if __name__ == "__main__":
    import machine_load

    machine_load.report("before")
    main()
    machine_load.report("after")
