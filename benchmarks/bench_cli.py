"""The CLI verbs players and owners use, timed as whole processes, as installed.

Builds a journal of ``--games`` finished games (computer players through the
engine: ``boardctl demo --journal J --games N``) and a virtualenv with
boardctl installed in it the way ``systemd/install.sh`` does (``pip install``
of this checkout, not editable: an editable install adds an import hook to
every Python start), with a configuration file like the one ``install.sh``
writes (``boardctl run --print-config``: every key at its default) whose
``[service]`` points at this benchmark's socket and journal. Then it times,
as whole processes from ``fork`` to exit, ``--repeats`` runs each:

- ``python -c pass`` of that virtualenv (the floor any Python command pays);
- with the service running (``boardctl run --display none``, mock pins):
  ``boardctl status``, ``peg 1 1`` (each followed by an untimed ``undo``) and
  ``history`` through the control socket (and ``history --all``: its first run
  after the start on its own, then the runs answered from the rows the service
  kept), both as a user types them (the
  installed ``boardctl`` script, which reads the configuration file to find
  the socket) and with ``--socket PATH`` (no configuration file read);
- with the service down: the same verbs on the journal itself (``peg`` a
  direct write; ``status`` and ``history`` replay the journal with the engine);
- after ``kill -9`` of the service (its events still in the WAL): ``status``, which
  first runs the service's damage checks on a private copy of the database and the
  WAL, then replays the journal.

Each figure is the fastest run (the one least disturbed by other work on the
machine) and the median, in wall time, and the least CPU time (user + system,
from ``wait4``) of the runs, which other work disturbs less; the load average
is printed before and after.

``--pi-class 8`` runs the timing (the verbs and the service with it) inside a
cgroup that gives it one core at 1/8 of its speed (see ``pi_class.py``); the
journal and the virtualenv are built first at full speed. ``--burn N`` adds N
CPU-burning neighbours.

    python benchmarks/bench_cli.py [--games 200] [--repeats 9] [--pi-class 8]
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
from machine_load import as_installed, load

REPO = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(REPO), "GPIOZERO_PIN_FACTORY": "mock"}
BOARDCTL = [sys.executable, "-m", "boardctl"]  # the development tree (the service, the demo)
INSTALL_FILES = ("pyproject.toml", "README.md", "LICENSE")


def cpu_timed(argv: Sequence[str], repeats: int, after: Sequence[str] = ()) -> tuple[float, ...]:
    """(fastest, median) wall and the least CPU seconds of ``argv``, run ``repeats`` times."""
    env = {k: v for k, v in ENV.items() if k != "PYTHONPATH"}
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        pid = os.posix_spawn(argv[0], list(argv), env, file_actions=_quiet())
        _, status, usage = os.wait4(pid, 0)
        wall = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0:
            done = subprocess.run(argv, env=env, capture_output=True, text=True)
            raise SystemExit(f"{' '.join(argv)} failed: {done.stderr}")
        runs.append((wall, usage.ru_utime + usage.ru_stime))
        if after:
            subprocess.run(after, env=env, check=True, capture_output=True)
    walls = [wall for wall, _ in runs]
    return min(walls), statistics.median(walls), min(cpu for _, cpu in runs)


def _quiet() -> list[tuple[int, int, str, int, int]]:
    return [
        (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
        (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
    ]


def build_journal(path: Path, games: int) -> float:
    """Play ``games`` games into ``path``; return the seconds it took."""
    start = time.perf_counter()
    argv = [*BOARDCTL, "demo", "--journal", str(path), "--games", str(games)]
    argv += ["--display", "none", "--speed", "0", "--seed", "1"]
    subprocess.run(argv, env=ENV, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def build_venv(where: Path) -> Path:
    """A virtualenv with boardctl installed from a copy of this checkout; its ``bin``."""
    source = where / "source"
    source.mkdir(parents=True)
    for name in INSTALL_FILES:
        shutil.copy(REPO / name, source / name)
    shutil.copytree(REPO / "boardctl", source / "boardctl", ignore=_no_cache)
    subprocess.run([sys.executable, "-m", "venv", str(where / "venv")], check=True)
    pip = [str(where / "venv" / "bin" / "pip"), "install", "--quiet", "--no-deps"]
    subprocess.run([*pip, str(source)], check=True, env={**os.environ, "PIP_NO_WARN": "1"})
    return where / "venv" / "bin"


def _no_cache(folder: str, names: list[str]) -> list[str]:
    return [n for n in names if n == "__pycache__"]


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


def report(name: str, figures: tuple[float, ...]) -> None:
    fastest, median, cpu = figures
    print(
        f"  {name:<44} fastest {fastest * 1000:7.1f} ms   median {median * 1000:7.1f} ms"
        f"   CPU {cpu * 1000:6.1f} ms",
        flush=True,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--prebuilt", type=Path, help=argparse.SUPPRESS)  # set by --pi-class
    pi_class.add_options(parser)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        prebuilt = args.prebuilt or tmp / "prebuilt"
        if args.prebuilt is None:  # the journal and the virtualenv, at full speed
            as_installed(REPO / "boardctl")  # the service runs from the tree
            prebuilt.mkdir()
            seconds = build_journal(prebuilt / "journal.sqlite", args.games)
            build_venv(prebuilt)
            print(f"journal: {args.games} games built in {seconds:.1f} s", flush=True)
        if args.pi_class or args.burn:
            code = pi_class.rerun(args, ["--prebuilt", str(prebuilt)])
            assert code is not None
            return code
        return run(args, tmp, prebuilt)


def run(args: argparse.Namespace, tmp: Path, prebuilt: Path) -> int:
    """Copy the journal, then time every verb; see the module docstring."""
    print(f"load average before: {load()}", flush=True)
    (tmp / "none.toml").write_text("")
    journal = tmp / "journal.sqlite"
    shutil.copyfile(prebuilt / "journal.sqlite", journal)
    bin_dir = prebuilt / "venv" / "bin"
    boardctl = [str(bin_dir / "boardctl")]
    events = subprocess.run(
        [*boardctl, "history", "--all", "--json", "--journal", str(journal)],
        capture_output=True,
        check=True,
    ).stdout.count(b'"seq"')
    print(f"journal: {events} events; verbs from {bin_dir} (installed, not editable)")
    sock = tmp / "control.sock"
    config = tmp / "config.toml"
    text = subprocess.run([*boardctl, "run", "--print-config"], capture_output=True, check=True)
    config.write_text(
        text.stdout.decode()
        .replace('journal = ""', f'journal = "{journal}"')
        .replace('socket = ""', f'socket = "{sock}"')
    )
    as_typed = ["--config", str(config)]  # /etc/boardctl/config.toml, as install.sh writes it
    for verb in (["next"], ["cut", "1"]):  # a new game, dealt: `peg` has somewhere to go
        subprocess.run([*boardctl, *verb, *as_typed], check=True, capture_output=True)
    repeats = args.repeats
    print("whole process, service down (the journal read, or written directly):")
    report("python -c pass", cpu_timed([str(bin_dir / "python"), "-c", "pass"], repeats))
    _verbs(boardctl, as_typed, repeats)
    proc, _, ready = start_service(tmp, journal)
    try:
        print(f"whole process, service running (READY=1 after {ready:.2f} s):")
        # `history --all` pages through the service (boardctl/service/history_all.py)
        first = [*boardctl, "history", "--all", *as_typed]
        report("boardctl history --all, first after start", cpu_timed(first, 1))
        report("python -c pass", cpu_timed([str(bin_dir / "python"), "-c", "pass"], repeats))
        _verbs(boardctl, as_typed, repeats)
        via = ["--socket", str(sock)]  # no configuration file read
        for verb in (["status"], ["peg", "1", "1"], ["history"]):
            after = [*boardctl, "undo", *via] if verb[0] == "peg" else ()
            name = " ".join(["boardctl", *verb, "--socket S"])
            report(name, cpu_timed([*boardctl, *verb, *via], repeats, after))
        proc.kill()  # as a crash or power cut leaves it: the events still in the WAL
        proc.wait(30)
        print("whole process, service killed (kill -9: the WAL holds events):")
        name = "boardctl status, damage checks on a copy"
        report(name, cpu_timed([*boardctl, "status", *as_typed], repeats))
    finally:
        proc.terminate()
        proc.wait(30)
    print(f"load average after: {load()}")
    return 0


def _verbs(boardctl: list[str], where: list[str], repeats: int) -> None:
    for verb in (["status"], ["peg", "1", "1"], ["history"], ["history", "--all"]):
        after = [*boardctl, "undo", *where] if verb[0] == "peg" else ()
        argv = [*boardctl, *verb, *where]
        report(" ".join(["boardctl", *verb]), cpu_timed(argv, repeats, after))


if __name__ == "__main__":
    sys.exit(main())
