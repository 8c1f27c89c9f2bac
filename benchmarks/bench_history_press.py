"""Button edge -> frame written while the service pages out ``history --all`` (or
``results --csv``).

The service in one process as ``bench_service_latency.py`` builds it (MockFactory
pins, the engine on a journal of ``--games`` demo games or on ``--journal PATH``,
e.g. ``bench_years.py``'s 10,000 games, the real serial link to the emulated
controller behind a pty; with ``--pi-class`` the controller runs in the first process,
outside the quota, as a Pico beside a Pi). Each round gives the service's ``history --all``
reader (:mod:`boardctl.service.history_all`) a fresh start, then a client
process asks for ``--pages`` pages with
:func:`~boardctl.service.client.request_ready` (as ``boardctl history --all``
does) while this thread presses +1, the encoder push (a commit: a journal write)
and undo on track 1 again and again, each timed from the pin's edge to the
frame written to the link, until the client has its pages. Only presses made
while the reader's thread was making a page are counted. It prints the time
of the first page and the latency figures (p50 / p99 / max).

A +1 pressed in the pending blink's "off" half lights nothing until the blink
turns on (its figure is the blink): such presses are counted apart, as in
``bench_service_latency.py``.

    PYTHONPATH=. python benchmarks/bench_history_press.py [--games 200] [--rounds 5]
        [--journal PATH] [--pages 20] [--link serial|null] [--pi-class 8 [--own-core]]
        [--burn N] [--during history|starts|results|burn]

``--during starts`` starts the service on a fresh copy of a journal without
snapshots (``bench_years.py``'s cached one, as imported) each round and presses
until the thread that stores its game starts after READY is done. ``--during
results`` gives the ``results`` request's reader (:mod:`boardctl.service.results_csv`)
a fresh start each round and presses while a client process runs ``boardctl results
--csv`` as typed (at the verb's own priority), every press until it has copied the whole
text counted; the round's figure is that client's seconds. ``--during burn`` runs a
busy loop at nice 10 instead, asking nothing: what any CPU-bound neighbour does. With
``--own-core`` the client runs on a second core of the same quota (:meth:`pi_class.PiClass.twin`),
as a verb typed on a Pi Zero 2 W runs on another of its four cores.
"""

from __future__ import annotations

import argparse
import functools
import operator
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, cast

import bench_cli
import pi_class
from bench_service_latency import TimedLink, _config, _open_link, percentile
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from boardctl.link import open_link  # noqa: E402
from boardctl.service import app  # noqa: E402
from boardctl.service.client import request  # noqa: E402
from boardctl.service.fault import JournalKeeper  # noqa: E402
from boardctl.service.history_all import HistoryPages  # noqa: E402
from boardctl.service.loop import Call  # noqa: E402
from boardctl.service.results_csv import ResultsCsv  # noqa: E402

#: The client, a process of its own as ``boardctl history --all`` is (a thread here would hold
#: the service's GIL while it decodes a page), paging as that verb does: asks for N pages,
#: prints the first one's seconds.
CLIENT = """
import argparse, itertools, sys, time
from boardctl.cli.cmd_history import _pages_from_service
pages = _pages_from_service(argparse.Namespace(socket=sys.argv[1], config=None), all_games=True)
began = time.perf_counter()
next(pages)
first = time.perf_counter() - began
for _ in itertools.islice(pages, int(sys.argv[2]) - 1):
    pass
print(first)
"""

#: The client of ``--during results``: ``boardctl results --csv`` as typed, its seconds.
RESULTS_CLIENT = """
import sys, time
began = time.perf_counter()
sys.argv[:] = ["boardctl", "results", "--csv", "--socket", sys.argv[1]]
sys.stdout = open("/dev/null", "w")  # the text, copied to nowhere
from boardctl.cli import main
main()  # as typed (at the verb's own priority)
print(time.perf_counter() - began, file=sys.__stdout__)
"""

#: The client of ``--during burn``: no request, a busy loop at the verbs' nice for as long
#: as ``results --csv`` runs at the quota; what any CPU-bound neighbour does to the loop.
BURN_CLIENT = """
import os, sys, time
os.nice(10)
began = time.perf_counter()
while time.perf_counter() - began < float(sys.argv[1]):
    pass
print(time.perf_counter() - began)
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--link", choices=("serial", "null"), default="serial")
    parser.add_argument("--journal", type=Path, help="this journal (a copy) instead of --games")
    parser.add_argument("--pages", type=int, default=20, help="pages the client asks a round")
    parser.add_argument(
        "--during",
        choices=("history", "starts", "results", "burn"),
        default="history",
        help="what runs beside the presses: history pages, (a journal without snapshots, as "
        "imported) the thread storing the game starts after a start, or results --csv",
    )
    parser.add_argument("--prebuilt", type=Path, help=argparse.SUPPRESS)  # set by --pi-class
    parser.add_argument("--pty", help=argparse.SUPPRESS)  # the controller's, set by --pi-class
    parser.add_argument(
        "--own-core",
        action="store_true",
        help="with --pi-class: the client runs on a second core of the same quota (a Pi Zero "
        "2 W has four), not on the service's",
    )
    parser.add_argument("--second-core", type=Path, help=argparse.SUPPRESS)  # by --own-core
    pi_class.add_options(parser)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        journal = args.prebuilt or args.journal or tmp / "journal.sqlite"
        if args.prebuilt is None and args.journal is None:  # the journal, at full speed
            seconds = bench_cli.build_journal(journal, args.games)
            print(f"journal: {args.games} games built in {seconds:.1f} s", flush=True)
        extra = ["--prebuilt", str(journal)]
        controller = None
        if args.pi_class and args.link == "serial":  # the Pico's work, outside the Pi's quota
            from emulator import PtyDevice

            controller = PtyDevice(led_count=256)
            controller.plug()
            extra += ["--pty", controller.path]
        try:
            code = pi_class.rerun(args, extra, second_core=args.own_core)
        finally:
            if controller is not None:
                controller.close()
        if code is not None:
            return code
        for round_ in range(args.rounds if args.during == "starts" else 1):
            copy = tmp / f"state-{round_}" / "journal.sqlite"  # starts: a fresh import a round
            copy.parent.mkdir()  # (its own directory: no -wal or mark of the last round's)
            shutil.copyfile(journal, copy)
            run(args, copy)
    return 0


def _checking(keeper: JournalKeeper) -> bool:
    """The journal's check after a start is running (or not begun)."""
    return keeper.checking is None or keeper.checking.is_alive()


def run(args: argparse.Namespace, journal: Path) -> None:
    load = os.getloadavg()
    print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}", flush=True)
    factory = MockFactory()
    Device.pin_factory = factory
    config = _config(False)
    if args.pty is not None:  # the controller runs in the process outside the quota
        device, inner = None, open_link("serial", path=args.pty)
        while not inner.connected:
            time.sleep(0.01)
    else:
        device, inner = _open_link(args.link)
    link = TimedLink(inner)
    board = app.build(
        config,
        journal=journal,
        socket_path=journal.parent / "control.sock",
        display="none",
        link=link,
        factory=factory,
        keyboard=False,
    )
    thread = threading.Thread(target=board.loop.run, daemon=True)
    thread.start()
    time.sleep(0.2)
    pins = config.pins
    buttons = [
        ("+1", factory.pin(pins.tracks[0].plus1)),
        ("commit", factory.pin(pins.tracks[0].encoder_push)),
        ("undo", factory.pin(pins.undo)),
    ]
    latencies: list[float] = []
    blink: list[float] = []
    answers: list[float] = []
    requests = board.loop.requests
    keeper = cast(JournalKeeper, board.loop.keeper)  # (the service's)
    # a free-mode game of its own: every +1, commit and undo is accepted
    request(board.socket, {"op": "new_game", "mode": "free"})
    for _ in range(1 if args.during == "starts" else args.rounds):
        requests.past.close()
        requests.past = HistoryPages(keeper.path)  # as after a start
        requests.export.close()
        requests.export = ResultsCsv(keeper.path)
        requests.past.on_publish = requests.export.on_publish = board.loop.wake
        done: list[float] = []
        transfer = functools.partial(operator.not_, done)  # (the whole transfer)
        during = {"history": requests.past.reading, "starts": functools.partial(_checking, keeper)}
        reading = during.get(args.during, transfer)

        def ask(done: list[float] = done, reading: Any = reading) -> None:
            began = time.perf_counter()
            if args.during == "starts":
                while reading():
                    time.sleep(0.05)
                done.append(time.perf_counter() - began)
                return
            argv = [sys.executable, "-c", CLIENT, str(board.socket), str(args.pages)]
            if args.during == "results":
                argv = [sys.executable, "-c", RESULTS_CLIENT, str(board.socket)]
            elif args.during == "burn":
                argv = [sys.executable, "-c", BURN_CLIENT, "0.6"]
            env = {**os.environ, "PYTHONPATH": str(REPO)}
            core = args.second_core
            second = pi_class.SECOND_CORE
            join = None if core is None else functools.partial(pi_class.join_group, core, second)
            answer = subprocess.run(
                argv,
                env=env,
                capture_output=True,
                text=True,
                preexec_fn=join,
            )
            if answer.returncode:
                print(f"the client failed: {answer.stderr.strip()}", flush=True)
                done.append(float("nan"))
                return
            done.append(float(answer.stdout))

        client = threading.Thread(target=ask)
        client.start()
        while not done:
            for name, pin in buttons:
                elapsed, reading_now = _press(board, link, name, pin, reading)
                if not reading_now:
                    continue  # nothing under way at the edge: not what this measures
                blinked = name == "+1" and elapsed > 50
                (blink if blinked else latencies).append(elapsed)
                if elapsed > float(os.environ.get("DEBUG_PRESS", "inf")):
                    print(f"  slow: round {len(answers)} {name} {elapsed:.1f} ms", flush=True)
        client.join()
        answers.append(done[0])
    board.loop.stop()
    thread.join(5)
    board.close()
    if device is not None:
        device.close()
    _summarize(args, answers, latencies, blink)


def _press(board: Any, link: TimedLink, name: str, pin: Any, reading: Any) -> tuple[float, bool]:
    """One press, edge to frame written, in ms (undo acts on its release), and whether a
    page was being made at the edge. The loop is let finish the last press first."""
    if name == "undo":
        pin.drive_low()
        time.sleep(0.002)
    _settle(board)
    link.shown.clear()
    replaying = reading()
    start = time.perf_counter()
    if name == "undo":
        pin.drive_high()
    else:
        pin.drive_low()
    if not link.shown.wait(10):
        raise SystemExit(f"no frame after a {name} press")
    elapsed = (link.at - start) * 1000
    time.sleep(0.002)
    if name != "undo":
        pin.drive_high()
    time.sleep(0.002)
    return elapsed, replaying


def _settle(board: Any) -> None:
    idle = threading.Event()
    board.loop.post(Call(idle.set))
    if not idle.wait(10):
        raise SystemExit("the loop did not come back")


def _summarize(
    args: argparse.Namespace, answers: list[float], latencies: list[float], blink: list[float]
) -> None:
    what = {
        "history": "history --all first page after a (reader's) start",
        "starts": "game starts stored after READY",
        "results": "results --csv through the service (the whole text)",
        "burn": "a busy loop at nice 10 beside the service (no request)",
    }[args.during]
    print(
        f"{what}, {len(answers)} rounds: "
        f"median {statistics.median(answers):.3f} s, max {max(answers):.3f} s"
    )
    if blink:
        print(f"{len(blink)} +1 presses fell in the pending blink's off half (not counted)")
    if not latencies:
        print("no press was made while the reader made a page")
        return
    print(
        f"button edge -> frame written ({args.link} link) while {args.during} ran, "
        f"n={len(latencies)}: p50={statistics.median(latencies):.3f} ms  "
        f"p99={percentile(latencies, 99):.3f} ms  max={max(latencies):.3f} ms"
    )


if __name__ == "__main__":
    sys.exit(main())
