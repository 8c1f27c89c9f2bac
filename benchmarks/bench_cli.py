"""The CLI verbs players and owners use, timed as whole processes.

Builds a journal of ``--games`` finished games (computer players through the
engine: ``boardctl demo --journal J --games N``), then times, as whole
processes from ``fork`` to exit (median and max of ``--repeats`` runs):

- ``python -c pass`` (the floor any Python command pays);
- with the service down: ``boardctl status``, ``history``, ``peg`` (a
  direct write to the journal);
- with the service running (``boardctl run --display none``, mock pins, on
  the same journal): ``status``, ``peg`` and ``history`` through the
  control socket.

``--pi-class 8`` runs the whole script (the verbs and the service with it)
inside a cgroup that gives it one core at 1/8 of its speed (see
``pi_class.py``); ``--burn N`` adds N CPU-burning neighbours.

    PYTHONPATH=. python benchmarks/bench_cli.py [--games 200] [--repeats 7] [--pi-class 8]
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import pi_class

REPO = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(REPO), "GPIOZERO_PIN_FACTORY": "mock"}
BOARDCTL = [sys.executable, "-m", "boardctl"]


def timed(argv: Sequence[str], repeats: int) -> tuple[float, float]:
    """Median and max wall seconds of ``argv`` run ``repeats`` times (each must succeed)."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        done = subprocess.run(argv, env=ENV, capture_output=True)
        times.append(time.perf_counter() - start)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.decode()}")
    return statistics.median(times), max(times)


def build_journal(path: Path, games: int) -> float:
    """Play ``games`` games into ``path``; return the seconds it took."""
    start = time.perf_counter()
    argv = [*BOARDCTL, "demo", "--journal", str(path), "--games", str(games)]
    argv += ["--display", "none", "--speed", "0", "--seed", "1"]
    subprocess.run(
        argv,
        env=ENV,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return time.perf_counter() - start


def start_service(tmp: Path, journal: Path) -> tuple[subprocess.Popen[bytes], Path, float]:
    """Start ``boardctl run`` on ``journal``; return it, its socket and its seconds to READY=1."""
    notify_path = tmp / "notify"
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(notify_path))
    notify.settimeout(60)
    sock = tmp / "control.sock"
    argv = [*BOARDCTL, "run", "--display", "none", "--journal", str(journal)]
    argv += ["--socket", str(sock), "--config", str(tmp / "none.toml")]
    env = {**ENV, "NOTIFY_SOCKET": str(notify_path), "WATCHDOG_USEC": "30000000"}
    began = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stderr=subprocess.DEVNULL)
    try:
        while b"READY=1" not in notify.recv(4096):
            pass
    finally:
        notify.close()
    return proc, sock, time.perf_counter() - began


def report(name: str, figures: tuple[float, float]) -> None:
    median, worst = figures
    print(f"  {name:<34} median {median * 1000:7.1f} ms   max {worst * 1000:7.1f} ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--prebuilt", type=Path, help=argparse.SUPPRESS)  # set by --pi-class
    pi_class.add_options(parser)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        if args.pi_class or args.burn:  # the journal is built at full speed, then timed slowly
            prebuilt = Path(name) / "prebuilt.sqlite"
            build_journal(prebuilt, args.games)
            code = pi_class.rerun(args, ["--prebuilt", str(prebuilt)])
            assert code is not None
            return code
        return run(args, Path(name))


def run(args: argparse.Namespace, tmp: Path) -> int:
    """Build (or copy) the journal, then time every verb; see the module docstring."""
    load = os.getloadavg()
    print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}", flush=True)
    (tmp / "none.toml").write_text("")
    journal = tmp / "journal.sqlite"
    if args.prebuilt:
        shutil.copyfile(args.prebuilt, journal)
        seconds = 0.0
    else:
        seconds = build_journal(journal, args.games)
    events = subprocess.run(
        [*BOARDCTL, "history", "--all", "--json", "--journal", str(journal)],
        env=ENV,
        capture_output=True,
        check=True,
    ).stdout.count(b'"seq"')
    print(f"journal: {args.games} games, {events} events, built in {seconds:.1f} s")
    # a new game, dealt, so that `peg` has somewhere to go
    for verb in (["next"], ["cut", "1"]):
        subprocess.run(
            [*BOARDCTL, *verb, "--journal", str(journal), "--socket", str(tmp / "no.sock")],
            env=ENV,
            check=True,
            capture_output=True,
        )
    direct = ["--journal", str(journal), "--socket", str(tmp / "no.sock")]
    print("whole process, service down:")
    report("python -c pass", timed([sys.executable, "-c", "pass"], args.repeats))
    report("boardctl status", timed([*BOARDCTL, "status", *direct], args.repeats))
    for extra in ([], ["--all"]):
        report(
            " ".join(["boardctl history", *extra]),
            timed([*BOARDCTL, "history", *extra, *direct], args.repeats),
        )
    report("boardctl peg 1 1 (direct write)", timed([*BOARDCTL, "peg", "1", "1", *direct], 3))
    proc, sock, ready = start_service(tmp, journal)
    try:
        via = ["--socket", str(sock)]  # the service answers; no journal named
        print(f"whole process, service running (READY=1 after {ready:.2f} s):")
        report("boardctl status", timed([*BOARDCTL, "status", *via], args.repeats))
        report("boardctl peg 1 1", timed([*BOARDCTL, "peg", "1", "1", *via], 3))
        for extra in ([], ["--all"]):  # through the socket: the service has it replayed
            report(
                " ".join(["boardctl history", *extra]),
                timed([*BOARDCTL, "history", *extra, "--socket", str(sock)], args.repeats),
            )
    finally:
        proc.terminate()
        proc.wait(30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
