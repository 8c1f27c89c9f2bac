"""Fault trials of a linked game: entries on both boards across faults, none lost or doubled.

Two whole boards (tests/test_remote_e2e.py's ``TwoBoards``: ``app.build`` on mock pins and
manual clocks, a real mosquitto, the joined board behind a TCP proxy). Each trial starts a new
game on the host, enters a few counts on both boards, injects one fault (chosen in turn):

- ``broker``: mosquitto killed (SIGKILL) and started again on its port;
- ``network``: the joined home's connection reset and refused for ``--outage`` seconds;
- ``host``: the host's service stopped and started again (a clean stop, in process);
- ``joined``: the joined board's service stopped and started again (its outbox kept);

enters more counts on the joined board (and on the host when it runs) during the fault, heals
it, and checks: every request id the joined board made journalled exactly once by the host,
both tracks' scores as entered, and both boards' LEDs equal. Reported: trials, failures,
and the time from the heal until both boards showed the same board (p50 / max).

    PYTHONPATH=. python benchmarks/bench_remote_faults.py [--trials 200] [--outage 1.0]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from gpiozero.pins.mock import MockFactory  # noqa: E402

from boardctl.link import RecordingLink  # noqa: E402
from boardctl.service.client import request  # noqa: E402
from tests.test_e2e import ManualClock, Rig  # noqa: E402
from tests.test_remote_e2e import TwoBoards, wait_for  # noqa: E402

FAULTS = ("broker", "network", "host", "joined")


def trial(boards: TwoBoards, fault: str, outage: float, rng: random.Random) -> float:
    """One trial; the seconds from the heal until both boards showed the same board."""
    socket = boards.folders["host"] / "run" / "control.sock"
    request(socket, {"op": "new_game"})
    wait_for(lambda: boards.joined.status()["seq"] == boards.host.status()["seq"])
    expected = [0, 0]
    first_sent = len(boards.sent())

    def enter(board: str, points: int) -> None:
        track = 0 if board == "host" else 1
        rig = boards.host if board == "host" else boards.joined
        rig.enter(track + 1, points)
        expected[track] += points

    for _ in range(rng.randint(1, 3)):
        enter(rng.choice(("host", "joined")), rng.randint(1, 4))
    if fault == "broker":
        boards.broker.kill()
    elif fault == "network":
        boards.network.cut()
    elif fault == "host":
        boards.host.close()
    else:
        boards.joined.close()
    if fault != "joined":
        for _ in range(rng.randint(1, 3)):
            enter("joined", rng.randint(1, 4))
    if fault != "host":  # the host plays on meanwhile
        enter("host", rng.randint(1, 4))
    time.sleep(outage if fault == "network" else 0.0)
    healed = time.monotonic()
    if fault == "broker":
        boards.broker.start()
    elif fault == "network":
        boards.network.mend()
    elif fault == "host":
        folder = boards.folders["host"]
        factory = MockFactory()
        boards.host = Rig(folder, factory, boards.config, RecordingLink(), clock=ManualClock())
    else:
        boards.joined = boards.start_joined()
    wait_for(lambda: boards.keeper.guest.outbox.pending() == [], seconds=120)
    wait_for(lambda: boards.same_lights() and not boards.joined.loop.view().extra.link_lost, 120)
    converged = time.monotonic() - healed
    made = boards.sent()[first_sent:]
    counts = [boards.journalled(rid) for rid in made]
    if counts != [1] * len(made):
        raise AssertionError(f"{fault}: journalled {counts}")
    fronts = [t["front"] for t in boards.host.status()["tracks"]]
    if fronts != expected:
        raise AssertionError(f"{fault}: host shows {fronts}, entered {expected}")
    return converged


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--outage", type=float, default=1.0, help="seconds of a network cut")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    times: dict[str, list[float]] = {fault: [] for fault in FAULTS}
    failures: list[str] = []
    with tempfile.TemporaryDirectory() as folder:
        boards = TwoBoards(Path(folder), MockFactory())
        try:
            wait_for(lambda: boards.keeper.guest.reachable)
            for number in range(args.trials):
                fault = FAULTS[number % len(FAULTS)]
                try:
                    times[fault].append(trial(boards, fault, args.outage, rng))
                except AssertionError as exc:
                    failures.append(f"trial {number}: {exc}")
                    print(failures[-1], file=sys.stderr)
        finally:
            boards.close()
    print(f"{args.trials} trials, {len(failures)} failed")
    for fault, values in times.items():
        if values:
            print(
                f"{fault}: {len(values)} trials, the same board on both "
                f"{statistics.median(values):.2f} s after the heal (p50), max {max(values):.2f} s"
            )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
