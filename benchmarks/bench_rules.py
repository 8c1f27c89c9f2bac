"""Speed of the rules engine: census, hand totals, discard advice, ``boardctl score`` cold start.

Run from the repository root::

    python benchmarks/bench_rules.py [--repeat 5]

The process pins itself (and its children) to one CPU core when the OS
allows it. Figures are wall-clock; each is the median of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import functools
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from boardctl.cribbage import census as census_module  # noqa: E402
from boardctl.cribbage import fast as fast_module  # noqa: E402
from boardctl.cribbage.cards import DECK, Card  # noqa: E402
from boardctl.cribbage.census import census  # noqa: E402
from boardctl.cribbage.discard import rank_discards  # noqa: E402
from boardctl.cribbage.fast import hand_total  # noqa: E402
from boardctl.cribbage.hand import score_hand  # noqa: E402
from boardctl.cribbage.rules import RULE_SETS, scoring_for  # noqa: E402
from boardctl.cribbage.scoring import ACC, Scoring  # noqa: E402
from boardctl.cribbage.validation import max_play_points, possible_scores  # noqa: E402


def _pin_one_core() -> str:
    if hasattr(os, "sched_setaffinity"):
        core = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {core})
        return f"pinned to core {core}"
    return "not pinned"


def _median(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _subprocess_median(argv: list[str], repeat: int) -> float:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(
            argv,
            env=env,
            cwd=REPO,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _cold_census(hand_size: int, crib: bool, scoring: Scoring = ACC) -> None:
    fast_module._BASE.clear()  # measure the tables' fill too, as a fresh process would
    census_module._shape_counts.cache_clear()
    census(hand_size, crib=crib, scoring=scoring)


def _status_without_service(py: str, repeat: int) -> float:
    """``boardctl status`` reading a short journal (a deal with hand counts) with no service."""
    import tempfile

    from boardctl.game.commands import parse_command
    from boardctl.game.keeper import Scorekeeper

    with tempfile.TemporaryDirectory() as tmp:
        journal = Path(tmp) / "journal.sqlite"
        with Scorekeeper.open(journal, setup={"variant": "six-card"}) as keeper:
            for command in (
                {"op": "cut", "dealer": 0},
                {"op": "peg", "track": 1, "points": 2, "kind": "pegging"},
                {"op": "peg", "track": 0, "points": 1, "kind": "pegging"},
                {"op": "next"},
                {"op": "peg", "track": 1, "points": 8, "kind": "hand"},
                {"op": "peg", "track": 0, "points": 12, "kind": "hand"},
                {"op": "peg", "track": 0, "points": 4, "kind": "crib"},
            ):
                keeper.apply(parse_command(command))
        argv = [py, "-m", "boardctl", "status", "--journal", str(journal)]
        argv += ["--socket", str(Path(tmp) / "none.sock")]
        return _subprocess_median(argv, repeat)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure (median)")
    parser.add_argument("--hands", type=int, default=200_000, help="random hands for the rates")
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, {_pin_one_core()}")

    for label, size, crib in (("hand", 4, False), ("crib", 4, True), ("3-card", 3, False)):
        seconds = _median(functools.partial(_cold_census, size, crib), args.repeat)
        print(f"census {label:6} in process (cold table): {seconds:.3f} s")
    czech = scoring_for(RULE_SETS["czech"].house_rules)
    seconds = _median(lambda: _cold_census(4, False, czech), args.repeat)
    print(f"census hand, czech rules, in process (cold table): {seconds:.3f} s")
    py = sys.executable
    for extra in ([], ["--crib"], ["--cards", "3"], ["--rules", "czech"]):
        argv = [py, "-m", "boardctl", "stats", "hands", *extra]
        seconds = _subprocess_median(argv, args.repeat)
        print(f"boardctl stats hands {' '.join(extra):10} wall: {seconds:.3f} s")

    rng = random.Random(1)
    deals: list[tuple[list[Card], Card]] = []
    for _ in range(args.hands):
        five = rng.sample(DECK, 5)
        deals.append((five[:4], five[4]))

    def fast_pass() -> None:
        for hand, starter in deals:
            hand_total(hand, starter)

    fast_pass()  # fill the rank table once, as any long-running process would
    seconds = _median(fast_pass, args.repeat)
    print(f"hand_total (fast path):      {len(deals) / seconds:,.0f} hands/s")

    def total_pass() -> None:
        for hand, starter in deals:
            _ = score_hand(hand, starter).total

    seconds = _median(total_pass, args.repeat)
    print(f"score_hand(...).total:       {len(deals) / seconds:,.0f} hands/s")
    sample = deals[: max(1, len(deals) // 10)]

    def itemised_pass() -> None:
        for hand, starter in sample:
            _ = score_hand(hand, starter).items

    seconds = _median(itemised_pass, max(1, args.repeat // 2))
    print(f"score_hand(...).items:       {len(sample) / seconds:,.0f} hands/s (breakdown)")

    held = [rng.sample(DECK, 6) for _ in range(50)]
    seconds = _median(lambda: [rank_discards(h, dealer=True) for h in held], 3) / len(held)
    print(f"rank_discards (6 cards):     {seconds * 1000:.1f} ms per decision")
    fives = [h[:5] for h in held[:10]]
    seconds = _median(lambda: [rank_discards(h, dealer=True, keep=4) for h in fives], 3) / 10
    print(f"rank_discards (5, keep 4):   {seconds * 1000:.1f} ms per decision")

    start = time.perf_counter()
    possible_scores.cache_clear()
    possible_scores(4)
    print(f"possible_scores(4) first call: {time.perf_counter() - start:.3f} s")
    start = time.perf_counter()
    max_play_points.cache_clear()
    print(f"max_play_points() = {max_play_points()}: {time.perf_counter() - start:.3f} s")

    code = (
        "from boardctl.game.limits import RulesLimits, warm_up;"
        "from boardctl.cribbage.rules import RULE_SETS, scoring_for;"
        "[warm_up(RulesLimits(scoring_for(s.house_rules))) for s in RULE_SETS.values()]"
    )
    seconds = _subprocess_median([py, "-c", code], max(args.repeat, 11))
    print(f"every rule set's limits, fresh process: {seconds:.3f} s (shipped tables)")
    seconds = _status_without_service(py, max(args.repeat, 11))
    print(f"boardctl status, no service (journal): {seconds:.3f} s")

    argv = [py, "-m", "boardctl", "score", "5H", "5C", "5S", "JD", "5D"]
    seconds = _subprocess_median(argv, max(args.repeat, 11))
    print(f"boardctl score cold start:   {seconds:.3f} s (median of {max(args.repeat, 11)})")
    seconds = _subprocess_median([py, "-c", "pass"], max(args.repeat, 11))
    print(f"  (bare python start:        {seconds:.3f} s)")


if __name__ == "__main__":
    import machine_load

    machine_load.report("before")
    main()
    machine_load.report("after")
