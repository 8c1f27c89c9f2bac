"""Years of play: what a journal of 10, 200, 2,000 or 10,000 games costs the board (issue 32).

Run from the repository root::

    PYTHONPATH=. python benchmarks/bench_years.py [--games 10000] [--runs 3] [--pi-class 8]

Builds a journal of ``--games`` games once: :data:`DISTINCT` demo games (real
cards, pairs of six players) played in turn, an hour apart (cached in
``~/.cache/boardctl-bench`` under a name made of the generator's inputs:
games, distinct games, players, the generator's version and the journal's
schema), written as an import writes it (``import_events``: the snapshots and
kept rows of the game starts with the events; ``import`` is its time), or with
``--plain`` without them (``append_all``: a journal no import wrote). Then,
each ``--runs`` times, on a fresh copy:

- ``start -> READY, imported`` (the first start: after READY, a thread of the
  service stores the game starts of a ``--plain`` journal, once: ``game starts
  stored after READY``) and ``start -> READY`` (every later start);
- ``history --all first page``: the first page through the running service,
  asked as ``boardctl history --all`` asks (``request_ready``), and a page
  from the middle of the journal;
- ``results --csv`` and ``stats players``: whole process (wall and CPU) as typed on
  a board (the ``boardctl`` of a virtualenv it is installed into, not editable, built
  for the run), once the service is idle (``service settled after``: its check of the
  journal after a start has ended), the running service answering (``service CPU``:
  the service's CPU meanwhile), and with ``--journal`` (``--journal wall``,
  ``--journal CPU``: the process reads the journal);
- ``RSS after the reads``: the service's resident memory after the history
  pages and a ``records`` request;
- ``bridge start: result feed's first read CPU``: what ``boardctl mqtt`` reads
  when it starts (in this process, the service running), as if right after the
  last game: the games of the broker's default retention (14 days) and two days
  more (``bridge start: results read``; 384 at one game an hour).

It prints the machine (CPU model, cores) and the load average with the
figures. ``--pi-class N`` runs it all again under :mod:`pi_class`'s
calibrated one-core quota (needs root); ``--burn N`` beside N busy loops.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

import pi_class  # noqa: E402
from bench_cli import build_venv  # noqa: E402
from machine_load import as_installed, load, machine  # noqa: E402

from boardctl.demo.game import DemoGame  # noqa: E402
from boardctl.game.keeper import Scorekeeper  # noqa: E402
from boardctl.mqtt.result_feed import ResultFeed  # noqa: E402
from boardctl.mqtt.retention import oldest_kept  # noqa: E402
from boardctl.results.kept import import_events  # noqa: E402
from boardctl.service.client import request, request_ready  # noqa: E402
from boardctl.store.journal import SCHEMA_VERSION, Journal  # noqa: E402

PLAYERS = ("Alice", "Bob", "Carol", "Dave", "Erin", "Frank")
GENERATOR = 3  # bump when the games built change
DISTINCT = 60  # demo games played (12 s for 20 here): the journal cycles through them
CACHE = Path.home() / ".cache" / "boardctl-bench"
ENV = {**os.environ, "PYTHONPATH": str(REPO)}


def pairing(number: int) -> tuple[str, str]:
    """The two players of game ``number``."""
    first = PLAYERS[number % len(PLAYERS)]
    second = PLAYERS[(number // len(PLAYERS) + number + 1) % len(PLAYERS)]
    if second == first:
        second = PLAYERS[(number + 2) % len(PLAYERS)]
    return first, second


def cached_journal(games: int, *, plain: bool = False) -> Path:
    """The journal of ``games`` games, built once: :data:`DISTINCT` demo games (seed = the
    game's number, :func:`pairing`'s players) played in turn, an hour apart, imported (or
    appended without their game starts if ``plain``)."""
    key = f"{GENERATOR}-{games}-{DISTINCT}-{','.join(PLAYERS)}-schema{SCHEMA_VERSION}"
    key += "-plain" if plain else ""
    path = CACHE / f"years-{games}-{hashlib.sha256(key.encode()).hexdigest()[:12]}.sqlite"
    if path.exists():
        return path
    CACHE.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".part")
    partial.unlink(missing_ok=True)
    began = time.perf_counter()
    played = []
    for number in range(min(games, DISTINCT)):
        keeper = Scorekeeper.memory()
        DemoGame(seed=number, names=pairing(number), keeper=keeper).play()
        played.append([(row["event"], float(row["at"])) for row in keeper.history(all_games=True)])
    start = 1.7e9
    importing = time.perf_counter()
    with Journal.open(partial) as journal:
        batch: list[tuple[dict[str, object], float]] = []
        for number in range(games):
            events = played[number % len(played)]
            first = events[0][1]
            batch += [(event, start + 3600 * number + at - first) for event, at in events]
            if len(batch) > 50_000 or number == games - 1:
                if plain:
                    journal.append_all(batch)
                else:
                    import_events(journal, batch)
                batch = []
    print(f"import: {time.perf_counter() - importing:.1f} s ({'plain' if plain else 'imported'})")
    for suffix in ("-mark", "-wal", "-shm", "-lock"):
        Path(f"{partial}{suffix}").unlink(missing_ok=True)
    partial.rename(path)
    print(f"built {path} in {time.perf_counter() - began:.0f} s", flush=True)
    return path


def start_service(folder: Path, journal: Path) -> tuple[subprocess.Popen[bytes], Path, float]:
    """``boardctl run`` on ``journal``; it, its socket and its seconds to READY=1."""
    notify_path = folder / "notify"
    notify_path.unlink(missing_ok=True)
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(notify_path))
    notify.settimeout(1)
    sock = folder / "control.sock"
    (folder / "x.toml").write_text("")  # no configuration: the defaults
    argv = [sys.executable, "-m", "boardctl", "run", "--display", "none"]
    argv += ["--journal", str(journal), "--socket", str(sock), "--config", str(folder / "x.toml")]
    env = {**ENV, "NOTIFY_SOCKET": str(notify_path), "WATCHDOG_USEC": "600000000"}
    began = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stderr=(folder / "service.log").open("ab"))
    try:
        while True:
            try:
                if b"READY=1" in notify.recv(4096):
                    break
            except TimeoutError:
                pass
            if proc.poll() is not None:
                raise SystemExit((folder / "service.log").read_text())
    finally:
        notify.close()
    seconds = time.perf_counter() - began
    global started_cpu
    started_cpu = cpu_seconds(proc.pid)
    return proc, sock, seconds


started_cpu = 0.0  # the CPU seconds of the last service started, at its READY=1


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def settle(pid: int, *, still: float = 0.5, at_most: float = 300.0) -> float:
    """Wait until process ``pid`` used no CPU for ``still`` seconds (its thread that checks
    the journal after a start has ended); the seconds waited."""
    began = time.perf_counter()
    used = cpu_seconds(pid)
    while time.perf_counter() - began < at_most:
        time.sleep(still)
        used, before = cpu_seconds(pid), used
        if used == before:
            break
    return time.perf_counter() - began


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    proc.wait(120)


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def whole_process(argv: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of ``argv`` (an installed verb) as a new process."""
    env = {k: v for k, v in ENV.items() if k != "PYTHONPATH"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def timed(action: Callable[[], object]) -> float:
    began = time.perf_counter()
    action()
    return time.perf_counter() - began


def copy(source: Path, target: Path) -> None:
    """A copy of the journal, on the disk before the service starts (so that the start's
    fsyncs do not wait for the copy's 100 MB to be written back)."""
    shutil.copy(source, target)
    with target.open("rb") as file:
        os.fsync(file.fileno())


def first_start(source: Path, folder: Path) -> tuple[Path, float, float]:
    """The imported journal's first start: the journal as the service left it once its
    thread stored the game starts (also kept beside the cached one, ``-opened``), the
    seconds to READY and from READY until they were stored."""
    journal = folder / "own" / "journal.sqlite"
    journal.parent.mkdir()
    copy(source, journal)
    proc, _, seconds = start_service(journal.parent, journal)
    began = time.perf_counter()
    while True:  # the thread's progress, as another reader sees it
        with Journal.open(journal, readonly=True) as reader:
            if not reader.kept_in_doubt():
                break
        time.sleep(1)
    stored = time.perf_counter() - began
    stop(proc)
    shutil.copy(journal, source.with_name(f"{source.stem}-opened.sqlite"))  # for --reuse-opened
    return journal, seconds, stored


def one_run(own: Path, installed: Path) -> dict[str, float]:
    """Every other figure once, on a fresh copy of the journal the service has opened; the
    verbs as the ``boardctl`` of the virtualenv whose ``bin`` is ``installed``."""
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        journal = folder / "journal.sqlite"
        copy(own, journal)
        proc, sock, figures["start -> READY"] = start_service(folder, journal)
        figures["start -> READY CPU"] = started_cpu
        try:
            seq = int(request(sock, {"op": "status"})["seq"])
            page = {"op": "history", "all": True, "after": 0}
            figures["history --all first page"] = timed(
                lambda: request_ready(sock, page, timeout=600)
            )
            middle = {"op": "history", "all": True, "after": seq // 2}
            figures["history --all page at the middle"] = timed(
                lambda: request_ready(sock, middle, timeout=600)
            )
            figures["records request"] = timed(
                lambda: request_ready(sock, {"op": "records"}, timeout=600)
            )
            cli = [str(installed / "boardctl")]
            # the verbs once the service is idle (a verb typed in the first seconds after a
            # start shares the CPU with its check of the journal: "settled after")
            figures["service settled after"] = settle(proc.pid)
            for verb, *labels in (
                (
                    ["results", "--csv"],
                    "results --csv wall",
                    "results --csv CPU",
                    "results --csv service CPU",
                    "results --csv --journal wall",
                    "results --csv --journal CPU",
                ),
                (
                    ["stats", "players"],
                    "stats players wall",
                    "stats players CPU",
                    "stats players service CPU",
                    "stats players --journal wall",
                    "stats players --journal CPU",
                ),
            ):
                # as typed: the running service answers (its CPU for it counted apart) ...
                served = cpu_seconds(proc.pid)
                wall, cpu = whole_process([*cli, *verb, "--socket", str(sock)])
                figures[labels[0]], figures[labels[1]] = wall, cpu
                figures[labels[2]] = cpu_seconds(proc.pid) - served
                # ... and with --journal: the process reads the journal itself
                wall, cpu = whole_process([*cli, *verb, "--journal", str(journal)])
                figures[labels[3]], figures[labels[4]] = wall, cpu
            figures["RSS after the reads (MB)"] = rss_mb(proc.pid)
            feed = ResultFeed(journal, "bench")
            with Journal.open(journal, readonly=True) as reader:
                last = list(reader.page(reader.stored_seq(), reader.stored_seq())[1])[-1].at
            began = time.process_time()
            feed.refresh(oldest_kept(last))  # what boardctl mqtt reads when it starts, then
            figures["bridge start: result feed's first read CPU"] = time.process_time() - began
            figures["bridge start: results read"] = len(feed.results)
            feed.close()
        finally:
            stop(proc)
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--build-only", action="store_true", help="build the cached journal only")
    parser.add_argument("--plain", action="store_true", help="a journal without its game starts")
    parser.add_argument(
        "--reuse-opened",
        action="store_true",
        help="skip the imported journal's first start: use the journal a first start left",
    )
    parser.add_argument("--prebuilt", type=Path, help=argparse.SUPPRESS)  # set by --pi-class
    pi_class.add_options(parser)
    args = parser.parse_args()
    source = cached_journal(args.games, plain=args.plain)
    if args.build_only:
        return 0
    with tempfile.TemporaryDirectory() as name:
        prebuilt = args.prebuilt or Path(name)
        if args.prebuilt is None:  # the verbs installed as a board has them, at full speed
            build_venv(prebuilt)
        # again inside the Pi-class group, the journal and the virtualenv built already
        code = pi_class.rerun(args, ["--prebuilt", str(prebuilt)])
        return measure(args, source, prebuilt / "venv" / "bin") if code is None else code


def measure(args: argparse.Namespace, source: Path, installed: Path) -> int:
    """Every figure, ``--runs`` times (the service from the tree, the verbs from
    ``installed``); printed."""
    as_installed(REPO / "boardctl")  # the service runs from the tree
    with Journal.open(source, readonly=True) as journal:
        events = journal.stored_seq()
    print(f"machine: {machine()}; load average before: {load()}")
    print(f"journal: {args.games} games, {events} events ({source})")
    print(f"verbs from {installed} (installed, not editable)")
    opened = source.with_name(f"{source.stem}-opened.sqlite")
    with tempfile.TemporaryDirectory() as name:
        if args.reuse_opened and opened.exists():
            own = opened
        else:
            own, seconds, stored = first_start(source, Path(name))
            print(f"start -> READY, imported: {seconds:.3f} s")
            print(f"game starts stored after READY, imported (once, by a thread): {stored:.1f} s")
        runs = [one_run(own, installed) for _ in range(args.runs)]
    for name in runs[0]:
        values = sorted(run[name] for run in runs)
        unit = "" if name.endswith(("(MB)", "results read")) else " s"
        print(
            f"{name}: median {statistics.median(values):.3f}{unit}, "
            f"best {values[0]:.3f}{unit}, worst {values[-1]:.3f}{unit} ({len(values)} runs)"
        )
    print(f"load average after: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
