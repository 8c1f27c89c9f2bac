"""Measure the scorekeeper: durable commit, resume from a long journal, state queries.

Run from the repository root::

    PYTHONPATH=. python benchmarks/bench_journal.py [--dir DIR] [--events 10000]

Targets: commit median <= 5 ms, resume of 10,000 events <= 200 ms,
a state query <= 50 microseconds. The journal goes in ``--dir`` (default: a
temporary folder beside this script, on the same disk as the repository, so
that fsync is real; /tmp may be a RAM disk).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from boardctl.errors import EntryError
from boardctl.game.keeper import Scorekeeper

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository's tools/
from tools.random_player import random_command


def bench_commit(folder: Path, count: int) -> list[float]:
    """Seconds per accepted ``apply`` (validate, one durable transaction, fold)."""
    rng = random.Random(1)
    times: list[float] = []
    with Scorekeeper.open(folder / "commit.sqlite", setup={"variant": "six-card"}) as keeper:
        while len(times) < count:
            command = random_command(keeper.state, rng, mistakes=0.0)
            start = time.perf_counter()
            try:
                keeper.apply(command)
            except EntryError:
                continue
            times.append(time.perf_counter() - start)
    return times


def build_journal(path: Path, events: int) -> None:
    """Write ``events`` accepted events of random games (fsync off while building only)."""
    rng = random.Random(2)
    with Scorekeeper.open(path, setup={"variant": "six-card"}) as keeper:
        assert keeper.journal is not None
        keeper.journal._db.execute("PRAGMA synchronous=OFF")  # building only
        while keeper.seq < events:
            try:
                keeper.apply(random_command(keeper.state, rng, mistakes=0.0))
            except EntryError:
                continue


def bench_resume(path: Path, repeats: int, *, full: bool = False) -> list[float]:
    """Seconds to open a journal and replay it into a ready scorekeeper."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        keeper = Scorekeeper.open(path, full_replay=full)
        keeper.status()
        times.append(time.perf_counter() - start)
        keeper.close()
    return times


def bench_queries(path: Path, count: int) -> dict[str, float]:
    """Microseconds per status(), view() and state access of a resumed keeper."""
    results = {}
    with Scorekeeper.open(path) as keeper:
        for name, query in (
            ("status()", keeper.status),
            ("view()", keeper.view),
            ("state", lambda: keeper.state),
        ):
            query()
            start = time.perf_counter()
            for _ in range(count):
                query()
            results[name] = (time.perf_counter() - start) / count * 1e6
        # A query right after a change (the caches are rebuilt).
        rng = random.Random(3)
        changed = []
        for _ in range(200):
            keeper._view = keeper._status = None  # the caches, as a change leaves them
            start = time.perf_counter()
            keeper.status()
            keeper.view()
            changed.append(time.perf_counter() - start)
            rng.random()
        results["status()+view() after a change"] = statistics.median(changed) * 1e6
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=Path(__file__).resolve().parent)
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--commits", type=int, default=500)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-journal-", dir=args.dir) as tmp:
        folder = Path(tmp)
        commits = bench_commit(folder, args.commits)
        ms = [t * 1e3 for t in commits]
        print(
            f"durable commit (WAL, synchronous=FULL): median {statistics.median(ms):.2f} ms, "
            f"p90 {statistics.quantiles(ms, n=10)[-1]:.2f} ms, max {max(ms):.2f} ms "
            f"over {len(ms)} commits (target <= 5 ms median)"
        )
        path = folder / "long.sqlite"
        build_journal(path, args.events)
        for full, how in ((False, "latest snapshot + this game"), (True, "full replay")):
            resume = [t * 1e3 for t in bench_resume(path, 7, full=full)]
            print(
                f"resume from {args.events} events ({how}): median "
                f"{statistics.median(resume):.1f} ms, best {min(resume):.1f} ms "
                "(target <= 200 ms; every checksum verified)"
            )
        for name, micros in bench_queries(path, 100_000).items():
            print(f"state query {name}: {micros:.2f} us (target <= 50 us)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
